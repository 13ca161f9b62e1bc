"""``evalrank stage`` commands of the theory stage (Wang et al. 2013;
``workflow/rules/wang2013.smk``).

- ``theory-sample``: NDCG of R i.i.d. samples of one size n for every scorer
  and measure -> ``samples/n<N>.npz``
- ``theory-report``: limits, convergence, rate, distinguishability tables and
  the figures from all sizes
- ``theory-lists``: Sec. 4 on our data -- NDCG of the first n documents of
  long lists for trained rankers and a random scorer -> ``lists.csv``, Figs. 1-4

Defaults: see :mod:`evalrank.cli` -- an option carrying a config value is required.
"""

from __future__ import annotations

import json

from evalrank.cli.common import _log, add_command, named_paths

__all__ = ["TITLE", "add_stage_parsers"]

TITLE = "theory (workflow/rules/wang2013.smk)"


def cmd_sample(a):
    import time

    import numpy as np

    from evalrank import io, seeds
    from evalrank.papers.wang2013.experiments import sample_ndcg
    from evalrank.papers.wang2013.population import population_from, scorers_from

    params = json.loads(a.params)
    names, scorers = scorers_from(params)
    measures = params["measures"]
    t0 = time.perf_counter()
    last = [0.0]

    def progress(done, total):
        if time.perf_counter() - last[0] > 10 or done == total:
            last[0] = time.perf_counter()
            _log(f"n = {a.n}: {done}/{total} samples")

    vals = sample_ndcg(population_from(params), scorers, measures, a.n, a.repetitions,
                       seeds.seed_sequence(a.seed, "theory", "n", a.n), block=a.block, progress=progress)
    _log(f"n = {a.n}: {a.repetitions} samples x {len(scorers)} scorers x {len(measures)} measures in "
         f"{time.perf_counter() - t0:.1f} s")
    io.save_arrays(a.output, ndcg=vals, n=np.int64(a.n), scorers=np.asarray(names), measures=np.asarray(measures))


def cmd_report(a):
    from evalrank.papers.wang2013.report import report_files

    report_files(params=json.loads(a.params), inputs=a.inputs, out_dir=a.out_dir, log=_log)


def cmd_lists(a):
    from evalrank.papers.wang2013.lists import lists_files

    models = named_paths(a.models, "--models")  # checked before the lists are built
    lists_files(models=models, source=a.source, partition=a.partition, queries=a.queries,
                docs_per_query=a.docs_per_query, n_features=a.n_features, stream_partition=a.stream_partition,
                sizes=a.sizes, measures=a.measures, seed=a.seed, out_dir=a.out_dir, log=_log)


def add_stage_parsers(sub) -> None:
    s = add_command(sub, "theory-sample", cmd_sample, "NDCG of R i.i.d. samples of size n (Wang et al. 2013)")
    s.add_argument("--params", required=True,
                   help="JSON of the config's wang2013 section: population, scorers, measures, pairs")
    s.add_argument("--n", type=int, required=True, help="the list size (wang2013.sizes)")
    s.add_argument("--repetitions", type=int, required=True, help="samples R (wang2013.repetitions)")
    s.add_argument("--block", type=int, required=True,
                   help="samples per random stream (max(1, wang2013.block_objects // n))")
    s.add_argument("--seed", type=int, required=True, help="the config's seed")
    s.add_argument("--output", required=True, help="samples/n<N>.npz")

    s = add_command(sub, "theory-lists", cmd_lists,
                    "Wang et al. Sec. 4: NDCG of the first n documents of long lists")
    s.add_argument("--models", nargs="+", required=True, help="NAME=model.skops of the trained rankers")
    s.add_argument("--source", choices=["synthetic", "dataset"], required=True,
                   help="synthetic: the generator's long lists; dataset: the longest queries of --partition "
                        "(wang2013.lists.source)")
    s.add_argument("--partition", help="a parsed partition (.npz), needed by --source dataset "
                                          "(wang2013.lists.partition; default: none)")
    s.add_argument("--queries", type=int, required=True, help="queries (wang2013.lists.queries)")
    s.add_argument("--docs-per-query", type=int, required=True,
                   help="documents of each generated list (wang2013.lists.docs_per_query)")
    s.add_argument("--n-features", type=int, required=True, help="features per document (dataset.n_features)")
    s.add_argument("--stream-partition", type=int, default=9,
                   help="the generator's stream (not a data partition; no config key)")
    s.add_argument("--sizes", type=int, nargs="+", required=True, help="prefix lengths n (wang2013.lists.sizes)")
    s.add_argument("--measures", nargs="+", required=True, help="wang2013.lists.measures")
    s.add_argument("--seed", type=int, required=True, help="the config's seed")
    s.add_argument("--out-dir", required=True, help="folder of lists.csv and the figures")

    s = add_command(sub, "theory-report", cmd_report,
                    "limits, convergence, rate and distinguishability tables + figures")
    s.add_argument("--params", required=True, help="JSON of the config's wang2013 section, as theory-sample's")
    s.add_argument("--inputs", nargs="+", required=True, help="samples/n<N>.npz of theory-sample")
    s.add_argument("--out-dir", required=True, help="folder of the tables and figures")
