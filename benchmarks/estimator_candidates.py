"""Which estimator should `evalrank active estimate` default to (issue 27)? The candidates' RMSE
against eq. 6's on the same draws, on the active stage's own pools.

    .venv/bin/python benchmarks/estimator_candidates.py [--results results/synthetic]
        [--campaigns 10000] [--epsilon 0.05] [--budgets 10 20 30 50]

For every experiment of ``<results>/fold*/sawade2012/*/setup.npz`` (not the training-size series) and
measure, draws campaigns from the floored q (``sampling.defensive``) exactly as the campaign
study does (``campaignstudy._draw_matrix``: Algorithm 1's budgets, one generator per campaign)
and computes on the same draws:

- ``aipw``: f_pool + (1/n) sum w (L - f);
- ``hajek``: f_pool + sum w (L - f) / sum w (eq. 6 on the residual values);
- ``reg``: AIPW minus a plug-in regression coefficient times (mean w - 1) (the weight as a control
  variate with its coefficient estimated from the same draws);
- ``slope``: AIPW with f replaced by the pool's least-squares fit of L on f (an oracle: it uses
  the truth, an upper bound on what recalibrating f could give);
- ``strat2``, ``strat3``: Hajek within strata of the weight (cut at 2; at 1 and 4), each stratum's
  pool share known.

Prints one line per experiment and measure: RMSE / eq. 6's RMSE at each budget. Generated numbers
are not committed; benchmarks/RESULTS.md quotes a run.
"""

from __future__ import annotations

import argparse
import glob
import os

import numpy as np


def candidates(L, f, q, D, valid, counts):
    """Per budget, each candidate's RMSE over eq. 6's on the same draws."""
    m = L.size
    truth, fbar = L.mean(), f.mean()
    wq = 1.0 / (m * q)
    A = np.polyfit(f, L, 1)
    g = np.polyval(A, f)                      # oracle recalibration of f
    out = []
    for n in counts.T:
        k = (n[:, None] > np.arange(D.shape[1])[None, :]) & valid
        ww = wq[D] * k
        nn = k.sum(1)
        sw = ww.sum(1)
        y = ww * (L[D] - f[D])
        xm, ym = sw / nn, y.sum(1) / nn
        cxy = ((ww - xm[:, None]) * (y - ym[:, None]) * k).sum(1)
        cxx = (((ww - xm[:, None]) ** 2) * k).sum(1)
        coef = np.where(cxx > 1e-12, cxy / np.maximum(cxx, 1e-300), 0.0)

        def strat(cuts):
            est = np.full(nn.shape, fbar)
            edges = [0.0, *cuts, np.inf]
            for lo, hi in zip(edges[:-1], edges[1:]):
                share = np.mean((wq > lo) & (wq <= hi))
                ind = (wq[D] > lo) & (wq[D] <= hi)
                s_w, s_y = (ww * ind).sum(1), (y * ind).sum(1)
                est = est + np.where(s_w > 0, share * s_y / np.where(s_w > 0, s_w, 1.0), 0.0)
            return est

        est = {"eq6": (ww * L[D]).sum(1) / sw, "aipw": fbar + ym, "hajek": fbar + y.sum(1) / sw,
               "reg": fbar + ym - coef * (xm - 1.0),
               "slope": g.mean() + (ww * (L[D] - g[D])).sum(1) / nn,
               "strat2": strat([2.0]), "strat3": strat([1.0, 4.0])}
        rmse = {k: np.sqrt(np.mean((e - truth) ** 2)) for k, e in est.items()}
        out.append((float(nn.mean()), {k: v / rmse["eq6"] for k, v in rmse.items() if k != "eq6"}))
    return out


def main(argv=None) -> None:
    from evalrank.active.estimate import default_max_draws
    from evalrank.active.sampling import defensive
    from evalrank.papers.sawade2012.campaignstudy import _draw_matrix

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--results", default="results/synthetic")
    ap.add_argument("--campaigns", type=int, default=10000)
    ap.add_argument("--epsilon", type=float, default=0.05)
    ap.add_argument("--budgets", type=float, nargs="+", default=[10, 20, 30, 50])
    a = ap.parse_args(argv)
    budgets = np.asarray(a.budgets, dtype=np.float64)
    paths = sorted(glob.glob(os.path.join(a.results, "fold*", "sawade2012", "*", "setup.npz")))
    if not paths:
        raise SystemExit(f"no setup.npz under {a.results}/fold*/sawade2012/: run the DAG's active stage first")
    for path in paths:
        exp = path.split(os.sep)[-2]
        if exp.startswith("fig3_train_size_"):
            continue
        s = np.load(path)
        for meas in ("err", "dcg"):
            if f"values_{meas}" not in s:
                continue
            L, f = s[f"values_{meas}"].astype(float), s[f"pred_mean_{meas}"].astype(float)
            q = defensive(s[f"q_{meas}_active"], a.epsilon)
            seeds = np.random.SeedSequence(20271126).spawn(a.campaigns)
            D, valid, counts = _draw_matrix(q, s["costs"].astype(float), budgets,
                                            [np.random.default_rng(x) for x in seeds], default_max_draws(L.size))
            parts = [f"{exp} {meas}"]
            for b, (n, r) in zip(budgets, candidates(L, f, q, D, valid, counts)):
                parts.append(f"L{b:g} (n {n:.1f}): " + " ".join(f"{k} {v:.3f}" for k, v in r.items()))
            print(" | ".join(parts), flush=True)


if __name__ == "__main__":
    main()
