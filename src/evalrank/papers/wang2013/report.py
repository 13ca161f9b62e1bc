"""The theory stage's tables and figures from the NDCG samples of every list size (Wang et al.
2013, Secs. 3-5; ``evalrank stage theory-report``): the limits of Theorems 1-4, the convergence
of the empirical mean to them, the gap rate of standard NDCG and the distinguishability of
scorer pairs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from evalrank import io
from evalrank.papers.wang2013.experiments import (convergence_table, distinguishability, gap_rate, limits_table,
                                                  theory_measure)
from evalrank.papers.wang2013.population import population_from, scorers_from

__all__ = ["report_files"]

GAP_COLUMNS = ["n", "scorer", "measure", "R", "mean", "se", "limit", "abs_gap", "rel_gap", "gap_in_se",
               "within_2pct", "theorem"]


def _samples(inputs, names, measures) -> dict:
    """n -> NDCG samples of every theory-sample file, refusing one sampled for other scorers or measures."""
    values = {}
    for path in inputs:
        d = io.load_arrays(path)
        if list(d["scorers"]) != names or [str(theory_measure(m)) for m in d["measures"]] != measures:
            raise ValueError(f"--inputs: {path} was sampled for other scorers or measures; rerun theory-sample")
        values[int(d["n"])] = d["ndcg"]
    return values


def _gaps(conv: pd.DataFrame) -> pd.DataFrame:
    """|empirical mean - limit| at the largest n, within 2 %?, and in standard errors."""
    big = conv[conv.n == conv.n.max()].copy()
    big["abs_gap"] = (big["mean"] - big["limit"]).abs()
    big["within_2pct"] = np.where(big["limit"].notna(), big["rel_gap"].abs() <= 0.02, pd.NA)
    big["gap_in_se"] = big["abs_gap"] / big["se"]
    return big


def _rates(conv: pd.DataFrame, names, measures) -> list:
    """Standard NDCG's gap to 1, C (ln n)^-gamma (Theorem 1's rate), per scorer."""
    rates = []
    std = [str(m) for m in map(theory_measure, measures) if m.k is None and m.discount in ("log2", "log")]
    for m in std:
        for name in names:
            t = conv[(conv.measure == m) & (conv.scorer == name)]
            gamma, C = gap_rate(t["n"], 1 - t["mean"])
            rates.append({"measure": m, "scorer": name, "gamma": gamma, "C": C,
                          "gap_at_largest_n": float(1 - t["mean"].iloc[-1])})
    return rates


def report_files(*, params: dict, inputs, out_dir, log=None) -> None:
    """From the config's wang2013 section ``params`` and the samples/n<N>.npz files ``inputs`` ->
    in ``out_dir``: ``limits.csv`` (Theorems 1-4), ``convergence.csv``, ``gaps.csv``, ``rate.csv``
    (Theorem 1's (ln n)^-gamma), ``distinguishability.csv`` (Sec. 5) and their figures."""
    from evalrank.papers.wang2013 import plots

    pop = population_from(params)
    names, scorers = scorers_from(params)
    measures = [str(theory_measure(m)) for m in params["measures"]]
    values = _samples(inputs, names, measures)
    out = Path(out_dir)
    limits = limits_table(pop, scorers, measures, names)      # every scorer x measure
    io.write_table(limits, out / "limits.csv", float_format="%.6f")
    conv = convergence_table(values, pop, scorers, measures, names=names, limits=limits)
    io.write_table(conv, out / "convergence.csv", float_format="%.6f")
    big = _gaps(conv)
    io.write_table(big[GAP_COLUMNS], out / "gaps.csv", float_format="%.6f")
    rates = _rates(conv, names, measures)
    io.write_table(pd.DataFrame(rates), out / "rate.csv", float_format="%.4f")
    pairs = [(f"{label}: {s1} vs {s2}", names.index(s1), names.index(s2)) for label, s1, s2 in params["pairs"]]
    dist = distinguishability(values, pairs, measures)
    io.write_table(dist, out / "distinguishability.csv", float_format="%.4f")
    plots.plot_convergence(conv, out / "convergence.png")
    plots.plot_distinguishability(dist, out / "distinguishability.png")
    ok = big[big.limit.notna()]
    if log is not None:
        log(f"at n = {int(conv.n.max())}: {int(ok.within_2pct.sum())}/{len(ok)} (scorer, measure) within 2 % of "
            f"the limit; standard NDCG gap rate gamma = " + ", ".join(f"{r['gamma']:.2f}" for r in rates))
