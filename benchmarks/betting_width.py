"""Where the exact (betting) confidence sequence is too wide to use: its width against the
asymptotic sequence's on the same campaigns of the default data's active stage.

For each of the six cells of issue 27 (one ranker, a model pair, the index update; ERR and DCG)
and the tool's default floor, ``--campaigns`` campaigns (Algorithm 1's draws, as the study's)
are looked at, at budgets 50, 200 and 500: the AIPW terms' asymptotic CS (the default) and the
betting CS of Waudby-Smith & Ramdas (2024) on the terms' range. The range of a term is
``f_pool + w (L - f)`` over the pool with ``L`` anywhere in the measure's range: ERR in [0, 1]
(a difference in [-1, 1]); for DCG the setup has no list lengths, so the largest and smallest
true per-query DCG stand in for the range -- narrower than the true one, so the betting widths
shown for DCG are a lower bound.

    .venv/bin/python benchmarks/betting_width.py --results results/synthetic --campaigns 100
"""

from __future__ import annotations

import argparse
import time

import numpy as np

CELLS = ("fig1_rf", "fig2_rf_vs_ordinal_rf", "fig3_index_update")


def main(argv=None):
    from evalrank import io, seeds
    from evalrank.active.campaign_estimate import predicted_term_variance
    from evalrank.active.campaign_plan import DEFAULT_EPSILON
    from evalrank.papers.sawade2012.campaignstudy import campaign_draws
    from evalrank.active.confseq import asymptotic_cs, betting_cs
    from evalrank.active.estimate import default_max_draws
    from evalrank.active.estimators import aipw_terms
    from evalrank.active.sampling import defensive

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", default="results/synthetic")
    ap.add_argument("--campaigns", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv)
    budgets = np.array([50.0, 200.0, 500.0])
    print("| cell | Λ | asymptotic CS width | betting CS width | ratio |\n|---|---|---|---|---|")
    t0 = time.perf_counter()
    for exp in CELLS:
        s = io.load_arrays(f"{a.results}/fold1/sawade2012/{exp}/setup.npz")
        for m in ("err", "dcg"):
            q = defensive(s[f"q_{m}_active"], DEFAULT_EPSILON)
            L, f, v = s[f"values_{m}"], s[f"pred_mean_{m}"], s[f"pred_var_{m}"]
            n = L.size
            w = 1.0 / (n * q)
            diff = exp != "fig1_rf"
            if m == "err":
                lo_l, hi_l = (-1.0, 1.0) if diff else (0.0, 1.0)
            else:
                lo_l, hi_l = float(L.min()), float(L.max())
            ends = np.concatenate([f.mean() + w * (lo_l - f), f.mean() + w * (hi_l - f)])
            lo, hi = float(ends.min()), float(ends.max())
            widths = np.zeros((2, budgets.size))
            for r in range(a.campaigns):
                d, counts = campaign_draws(q, s["costs"], budgets, seeds.rng(a.seed, "betting", exp, m, r),
                                           max_draws=default_max_draws(n))
                psi = aipw_terms(w[d], L[d], f[d], f.mean())
                cs = asymptotic_cs(psi, t_star=int(counts[1]), var_floor=predicted_term_variance(q, v))
                bt = betting_cs(psi, lo, hi, grid=4000)
                for j, c in enumerate(counts):
                    widths[0, j] += (cs["ci_high"][c - 1] - cs["ci_low"][c - 1]) / a.campaigns
                    widths[1, j] += (bt["ci_high"][c - 1] - bt["ci_low"][c - 1]) / a.campaigns
            for j, b in enumerate(budgets):
                print(f"| {exp} {m.upper()} | {b:g} | {widths[0, j]:.4g} | {widths[1, j]:.4g} | "
                      f"{widths[1, j] / widths[0, j]:.1f}x |", flush=True)
    print(f"\n{time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
