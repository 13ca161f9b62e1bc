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
import time
from pathlib import Path

from evalrank.cli.common import _log, add_command

__all__ = ["TITLE", "add_stage_parsers", "population_from", "scorers_from"]

TITLE = "theory (workflow/rules/wang2013.smk)"


def population_from(params: dict):
    from evalrank.papers.wang2013.population import LogisticPopulation

    pop = params.get("population", {})
    return LogisticPopulation(pop.get("slope", 5.0), pop.get("thresholds", [0.3, 0.6, 0.85]), pop.get("gain", "exp"))


def scorers_from(params: dict):
    """(names, Scorer list) in the config's order."""
    from evalrank.papers.wang2013.population import Scorer

    items = list(params["scorers"].items())
    return [n for n, _ in items], [Scorer(float(s["weight"]), bool(s.get("reverse", False)), int(s.get("noise", 0)))
                                   for _, s in items]


def cmd_sample(a):
    import numpy as np

    from evalrank import io, seeds
    from evalrank.papers.wang2013.experiments import sample_ndcg

    params = json.loads(a.params)
    pop = population_from(params)
    names, scorers = scorers_from(params)
    measures = params["measures"]
    t0 = time.perf_counter()
    last = [0.0]

    def progress(done, total):
        if time.perf_counter() - last[0] > 10 or done == total:
            last[0] = time.perf_counter()
            _log(f"n = {a.n}: {done}/{total} samples")

    vals = sample_ndcg(pop, scorers, measures, a.n, a.repetitions, seeds.seed_sequence(a.seed, "theory", "n", a.n),
                       block=a.block, progress=progress)
    _log(f"n = {a.n}: {a.repetitions} samples x {len(scorers)} scorers x {len(measures)} measures in "
         f"{time.perf_counter() - t0:.1f} s")
    io.save_arrays(a.output, ndcg=vals, n=np.int64(a.n), scorers=np.asarray(names), measures=np.asarray(measures))


def cmd_report(a):
    import numpy as np
    import pandas as pd

    from evalrank import io
    from evalrank.papers.wang2013 import plots
    from evalrank.papers.wang2013.experiments import (convergence_table, distinguishability, gap_rate, limits_table,
                                             parse_measure)

    params = json.loads(a.params)
    pop = population_from(params)
    names, scorers = scorers_from(params)
    measures = [str(parse_measure(m)) for m in params["measures"]]
    values = {}
    for path in a.inputs:
        d = io.load_arrays(path)
        if list(d["scorers"]) != names or [str(parse_measure(m)) for m in d["measures"]] != measures:
            raise ValueError(f"--inputs: {path} was sampled for other scorers or measures; rerun theory-sample")
        values[int(d["n"])] = d["ndcg"]
    out = Path(a.out_dir)
    limits = limits_table(pop, scorers, measures, names)      # every scorer x measure
    io.write_table(limits, out / "limits.csv", float_format="%.6f")
    conv = convergence_table(values, pop, scorers, measures, names=names, limits=limits)
    io.write_table(conv, out / "convergence.csv", float_format="%.6f")
    # |empirical - limit| at the largest n, and within 2 %?
    big = conv[conv.n == conv.n.max()].copy()
    big["abs_gap"] = (big["mean"] - big["limit"]).abs()
    big["within_2pct"] = np.where(big["limit"].notna(), big["rel_gap"].abs() <= 0.02, pd.NA)
    big["gap_in_se"] = big["abs_gap"] / big["se"]
    io.write_table(big[["n", "scorer", "measure", "R", "mean", "se", "limit", "abs_gap", "rel_gap", "gap_in_se",
                        "within_2pct", "theorem"]], out / "gaps.csv", float_format="%.6f")
    # standard NDCG's gap to 1: C (ln n)^-gamma
    rates = []
    std = [str(m) for m in map(parse_measure, measures) if m.k is None and m.discount in ("log2", "log")]
    for m in std:
        for name in names:
            t = conv[(conv.measure == m) & (conv.scorer == name)]
            gamma, C = gap_rate(t["n"], 1 - t["mean"])
            rates.append({"measure": m, "scorer": name, "gamma": gamma, "C": C,
                          "gap_at_largest_n": float(1 - t["mean"].iloc[-1])})
    io.write_table(pd.DataFrame(rates), out / "rate.csv", float_format="%.4f")
    pairs = [(f"{label}: {s1} vs {s2}", names.index(s1), names.index(s2)) for label, s1, s2 in params["pairs"]]
    dist = distinguishability(values, pairs, measures)
    io.write_table(dist, out / "distinguishability.csv", float_format="%.4f")
    plots.plot_convergence(conv, out / "convergence.png")
    plots.plot_distinguishability(dist, out / "distinguishability.png")
    ok = big[big.limit.notna()]
    _log(f"at n = {int(conv.n.max())}: {int(ok.within_2pct.sum())}/{len(ok)} (scorer, measure) within 2 % of the "
         f"limit; standard NDCG gap rate gamma = " + ", ".join(f"{r['gamma']:.2f}" for r in rates))


def cmd_lists(a):
    import numpy as np

    from evalrank import io, seeds
    from evalrank.data.collection import Collection
    from evalrank.data.synthetic import generate
    from evalrank.models.zoo import load_model
    from evalrank.papers.wang2013 import plots
    from evalrank.papers.wang2013.lists import longest_queries, prefix_ndcg

    rankers = []
    for item in a.models:  # checked before the lists are built
        name, _, path = item.partition("=")
        if not path:
            raise ValueError(f"--models: expected NAME=PATH, got {item!r}")
        rankers.append((name, load_model(path)))
    if a.source == "synthetic":
        # the generator's long-list option: a few dozen queries of thousands of documents, in generation order
        c = generate(a.queries, seed=a.seed, partition=a.stream_partition, n_features=a.n_features,
                     mean_docs=a.docs_per_query, sigma_docs=0.0, p_small=0.0, max_docs=a.docs_per_query)
        what = f"{a.queries} generated queries of {a.docs_per_query} documents"
    else:
        if not a.partition:
            raise ValueError("--partition: needed with --source dataset")
        full = Collection.load(a.partition)
        c = full.select_queries(longest_queries(full.offsets, a.queries))
        what = f"the {a.queries} longest queries of {a.partition} ({int(np.diff(c.offsets).min())} documents or more)"
    scores = {name: model.score(c.features) for name, model in rankers}
    scores["random"] = seeds.rng(a.seed, "theory", "lists", "random").random(c.n_docs)
    shortest = int(np.diff(c.offsets).min())
    sizes = [n for n in a.sizes if n <= shortest]
    if len(sizes) < len(a.sizes):
        _log(f"sizes above the shortest query ({shortest}) dropped: {[n for n in a.sizes if n > shortest]}")
    table = prefix_ndcg(scores, c.labels, c.offsets, sizes, a.measures)
    out = Path(a.out_dir)
    io.write_table(table, out / "lists.csv", float_format="%.6f")
    for i, m in enumerate(table["measure"].unique(), start=1):
        plots.plot_lists(table[table.measure == m], out / f"lists_fig{i}.png", inset=(i == 1),
                         title=f"Fig. {i} analogue: {m}, the first n documents of {c.n_queries} queries")
    _log(f"{what}: {len(sizes)} sizes x {len(scores)} rankers x {len(a.measures)} measures")




def add_stage_parsers(sub) -> None:
    s = add_command(sub, "theory-sample", cmd_sample, "NDCG of R i.i.d. samples of size n (Wang et al. 2013)")
    s.add_argument("--params", required=True,
                   help="JSON of the config's theory section: population, scorers, measures, pairs")
    s.add_argument("--n", type=int, required=True, help="the list size (theory.sizes)")
    s.add_argument("--repetitions", type=int, required=True, help="samples R (theory.repetitions)")
    s.add_argument("--block", type=int, required=True,
                   help="samples per random stream (max(1, theory.block_objects // n))")
    s.add_argument("--seed", type=int, required=True, help="the config's seed")
    s.add_argument("--output", required=True, help="samples/n<N>.npz")

    s = add_command(sub, "theory-lists", cmd_lists,
                    "Wang et al. Sec. 4: NDCG of the first n documents of long lists")
    s.add_argument("--models", nargs="+", required=True, help="NAME=model.pkl of the trained rankers")
    s.add_argument("--source", choices=["synthetic", "dataset"], required=True,
                   help="synthetic: the generator's long lists; dataset: the longest queries of --partition "
                        "(theory.lists.source)")
    s.add_argument("--partition", help="a parsed partition (.npz), needed by --source dataset "
                                          "(theory.lists.partition; default: none)")
    s.add_argument("--queries", type=int, required=True, help="queries (theory.lists.queries)")
    s.add_argument("--docs-per-query", type=int, required=True,
                   help="documents of each generated list (theory.lists.docs_per_query)")
    s.add_argument("--n-features", type=int, required=True, help="features per document (dataset.n_features)")
    s.add_argument("--stream-partition", type=int, default=9,
                   help="the generator's stream (not a data partition; no config key)")
    s.add_argument("--sizes", type=int, nargs="+", required=True, help="prefix lengths n (theory.lists.sizes)")
    s.add_argument("--measures", nargs="+", required=True, help="theory.lists.measures")
    s.add_argument("--seed", type=int, required=True, help="the config's seed")
    s.add_argument("--out-dir", required=True, help="folder of lists.csv and the figures")

    s = add_command(sub, "theory-report", cmd_report,
                    "limits, convergence, rate and distinguishability tables + figures")
    s.add_argument("--params", required=True, help="JSON of the config's theory section, as theory-sample's")
    s.add_argument("--inputs", nargs="+", required=True, help="samples/n<N>.npz of theory-sample")
    s.add_argument("--out-dir", required=True, help="folder of the tables and figures")
