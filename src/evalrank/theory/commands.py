"""``python -m evalrank theory-*``: the theory stage's commands (registered by
:func:`evalrank.cli.build_parser`; ``workflow/rules/theory.smk`` calls them).

- ``theory-sample``: NDCG of R i.i.d. samples of one size n for every scorer
  and measure -> ``samples/n<N>.npz``
- ``theory-report``: limits, convergence, rate, distinguishability tables and
  the figures from all sizes
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

__all__ = ["add_parsers", "population_from", "scorers_from"]


def _log(msg: str) -> None:
    print(f"[evalrank {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def population_from(params: dict):
    from evalrank.theory.population import LogisticPopulation

    pop = params.get("population", {})
    return LogisticPopulation(pop.get("slope", 5.0), pop.get("thresholds", [0.3, 0.6, 0.85]), pop.get("gain", "exp"))


def scorers_from(params: dict):
    """(names, Scorer list) in the config's order."""
    from evalrank.theory.population import Scorer

    items = list(params["scorers"].items())
    return [n for n, _ in items], [Scorer(float(s["weight"]), bool(s.get("reverse", False)), int(s.get("noise", 0)))
                                   for _, s in items]


def cmd_sample(a):
    import numpy as np

    from evalrank import io, seeds
    from evalrank.theory.experiments import sample_ndcg

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
    from evalrank.plots import theory as plots
    from evalrank.theory.experiments import convergence_table, distinguishability, gap_rate, parse_measure
    from evalrank.theory.limits import ndcg_limit

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
    # the limits table (every scorer x measure)
    lim = []
    for name, sc in zip(names, scorers):
        for m in measures:
            mm = parse_measure(m)
            L = ndcg_limit(pop, sc, mm.discount, mm.k)
            lim.append({"scorer": name, "measure": m, "limit": L.value, "rule": L.rule, "theorem": L.theorem})
    io.write_table(pd.DataFrame(lim), out / "limits.csv", float_format="%.6f")
    conv = convergence_table(values, pop, scorers, measures, names=names)
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
    std = [m for m in measures if parse_measure(m).k is None and parse_measure(m).discount in ("log2", "log")]
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


def add_parsers(sub) -> None:
    """Register the ``theory-*`` subcommands on an argparse subparsers object."""
    s = sub.add_parser("theory-sample", help="NDCG of R i.i.d. samples of size n (Wang et al. 2013)")
    s.add_argument("--params", required=True, help="JSON of the config's theory section")
    s.add_argument("--n", type=int, required=True)
    s.add_argument("--repetitions", type=int, required=True)
    s.add_argument("--block", type=int, default=20, help="samples per random stream")
    s.add_argument("--seed", type=int, required=True)
    s.add_argument("--output", required=True)
    s.set_defaults(func=cmd_sample)

    s = sub.add_parser("theory-report", help="limits, convergence, rate and distinguishability tables + figures")
    s.add_argument("--params", required=True)
    s.add_argument("--inputs", nargs="+", required=True, help="samples/n<N>.npz of theory-sample")
    s.add_argument("--out-dir", required=True)
    s.set_defaults(func=cmd_report)
