"""``evalrank stage`` commands of the data stage (``workflow/rules/data.smk``): synthesize or
download a dataset, parse its partitions, the data facts and the dataset summary.

Defaults: see :mod:`evalrank.cli` -- an option carrying a config value is required.
"""

from __future__ import annotations

import time
from pathlib import Path

from evalrank.cli.common import _log, add_command, partition_map as _partition_map

__all__ = ["TITLE", "add_stage_parsers"]

TITLE = "data (workflow/rules/data.smk)"


def cmd_synthesize(a):
    from evalrank.data.synthetic import synthesize

    synthesize(
        a.root,
        n_queries_per_partition=a.queries_per_partition,
        seed=a.seed,
        mean_docs=a.mean_docs,
        p_no_relevant=a.p_no_relevant,
        n_features=a.n_features,
        p_small=a.p_small,
        max_docs=a.max_docs,
        feature_norm=a.feature_norm,
        layout=a.layout,
        threads=a.threads,
        **({"grade_marginals": tuple(a.grade_marginals)} if a.grade_marginals else {}),
    )
    _log(f"wrote synthetic LETOR layout under {a.root}")


def cmd_download(a):
    from evalrank.data.datasets import get_spec
    from evalrank.data.download import fetch_dataset

    overrides = {k: v for k, v in (("url", a.url), ("sha256", a.sha256)) if v}
    spec = get_spec(a.dataset, **overrides)
    fetch_dataset(spec, Path(a.root))
    _log(f"{spec.name} ready under {a.root}")


def cmd_parse(a):
    from evalrank.data.letor import read_letor

    t0 = time.perf_counter()
    coll = read_letor(a.input, n_features=a.n_features, max_grade=a.max_grade)
    coll.save(a.output)
    mb = Path(a.input).stat().st_size / 1e6
    dt = time.perf_counter() - t0
    _log(f"parsed {a.input}: {coll.n_queries} queries, {coll.n_docs} docs, {mb:.1f} MB in {dt:.2f}s")


def cmd_derive_partitions(a):
    from evalrank.data.layout import derive_partitions, read_sources

    pooled = read_sources(a.inputs, n_features=a.n_features, max_grade=a.max_grade)
    parts = derive_partitions(pooled, a.seed)
    for part, out in zip(parts, a.outputs):
        part.save(out)
    _log(f"dealt {pooled.n_queries} queries of {len(a.inputs)} file(s) into S1..S5: "
         f"{', '.join(str(p.n_queries) for p in parts)} queries")


def cmd_data_facts(a):
    from evalrank.data.facts import partition_facts, write_facts

    parts = _partition_map(a.partitions)
    facts = partition_facts(parts)
    write_facts(facts, a.output)
    _log(f"data facts: {', '.join(f'S{k} {facts.n_queries(k):,} queries' for k in sorted(parts))}; "
         f"{facts.n_features} features (highest non-zero {facts.used_features}), grades 0..{facts.max_label}")


def cmd_describe(a):
    from evalrank import io
    from evalrank.data.collection import Collection
    from evalrank.data.describe import describe_table
    from evalrank.papers.common.plots.data import plot_dataset

    names = a.names or [Path(p).stem for p in a.inputs]
    if len(names) != len(a.inputs):
        raise SystemExit("--names must give one name per --inputs file")
    named = {n: Collection.load(p) for n, p in zip(names, a.inputs)}
    io.write_table(describe_table(named, reference=True), a.table)
    if a.figure:
        plot_dataset(named, a.figure)




def add_stage_parsers(sub) -> None:
    s = add_command(sub, "synthesize", cmd_synthesize,
                    "write the synthetic MSLR-like dataset in the MSLR Fold layout")
    s.add_argument("--root", required=True, help="folder to write Fold1..Fold5 under (dataset.root)")
    s.add_argument("--queries-per-partition", type=int, required=True,
                   help="queries of each of the five partitions (dataset.synthetic.queries_per_partition)")
    s.add_argument("--seed", type=int, required=True, help="the dataset's seed (seed)")
    s.add_argument("--mean-docs", type=float, required=True,
                   help="mean documents per query (dataset.synthetic.mean_docs)")
    s.add_argument("--p-no-relevant", type=float, required=True,
                   help="share of queries without a relevant document (dataset.synthetic.p_no_relevant)")
    s.add_argument("--n-features", type=int, required=True, help="features per document (dataset.n_features)")
    s.add_argument("--p-small", type=float, required=True,
                   help="share of queries with 1..40 documents (dataset.synthetic.p_small)")
    s.add_argument("--max-docs", type=int, required=True,
                   help="most documents of a query (dataset.synthetic.max_docs)")
    s.add_argument("--grade-marginals", type=float, nargs="+",
                   help="share of grades 0..max_grade (dataset.synthetic.grade_marginals; default: MSLR's)")
    s.add_argument("--feature-norm", choices=["none", "query"], required=True,
                   help="query: min-max scale every feature within each query, as LETOR 4.0's QueryLevelNorm "
                        "(dataset.synthetic.feature_norm)")
    s.add_argument("--layout", choices=["mslr", "partitions"], default="mslr",
                   help="mslr: Fold1..5/{train,vali,test}.txt; partitions: only the test.txt files (each "
                        "partition once, what the workflow reads)")
    s.add_argument("--threads", type=int, default=1, help="threads formatting the text")

    s = add_command(sub, "download", cmd_download,
                    "download (resumable, checksummed) and extract a registered dataset")
    s.add_argument("--dataset", required=True,
                   help="mslr-web30k, mslr-web10k, mq2008 or mslr-excerpt (dataset.kind)")
    s.add_argument("--root", required=True, help="folder to download and extract into (dataset.root)")
    s.add_argument("--url", help="download from here (dataset.url; default: the registry's URL)")
    s.add_argument("--sha256", help="expected checksum of the archive (dataset.sha256; default: the registry's)")

    s = add_command(sub, "parse", cmd_parse, "parse a LETOR text file into a cached .npz collection")
    s.add_argument("--input", required=True, help="LETOR/SVMlight text file (may be gzip-compressed)")
    s.add_argument("--output", required=True, help="the collection (.npz)")
    s.add_argument("--n-features", type=int, help="features per document (dataset.n_features; default: the "
                                                   "highest feature index in the file)")
    s.add_argument("--max-grade", type=int, help="labels must be 0..max-grade (dataset.max_grade; default: any "
                                                 "label in the int8 range)")

    s = add_command(sub, "derive-partitions", cmd_derive_partitions,
                    "deal the queries of one fold's files (or one file) into partitions S1..S5 (.npz)")
    s.add_argument("--inputs", nargs="+", required=True,
                   help="LETOR files: FoldK/{train,vali,test}.txt (vali optional) or dataset.file")
    s.add_argument("--outputs", nargs=5, required=True, help="the parsed partitions S1..S5 (.npz)")
    s.add_argument("--seed", type=int, required=True, help="the dataset's seed (seed)")
    s.add_argument("--n-features", type=int, required=True, help="features per document (dataset.n_features)")
    s.add_argument("--max-grade", type=int, required=True, help="labels must be 0..max-grade (dataset.max_grade)")

    s = add_command(sub, "data-facts", cmd_data_facts,
                    "facts of the parsed partitions for the data-tied config checks")
    s.add_argument("--partitions", nargs="+", required=True, help="parsed S1..S5 .npz files")
    s.add_argument("--output", required=True, help="JSON file")

    s = add_command(sub, "describe", cmd_describe, "dataset summary table (+ figure)")
    s.add_argument("--inputs", nargs="+", required=True, help="parsed collections (.npz)")
    s.add_argument("--names", nargs="+", help="one name per --inputs file (default: the file names' stems)")
    s.add_argument("--table", required=True, help="the summary table (CSV)")
    s.add_argument("--figure", help="the dataset figure (PNG; default: none)")
