"""Risk measures over 100 systems x 50,000 topics x 21 alpha values (Dinçer et al. 2016).

    cd benchmarks && ../.venv/bin/python bench_risk.py [--systems 100] [--topics 50000] [--alphas 21]

evalrank computes every system and every alpha in one call per measure. The
peer is the straightforward NumPy way, timed in the same run on the same
matrix: one call per alpha value (recomputing the expected values and z
for ZRisk/GeoRisk, the differences for URisk/TRisk each time). Values agree
(checked). There is no published tool for ZRisk/GeoRisk to compare with.
"""

import argparse
import platform
import time

import numpy as np
from bench_active import best  # min wall time of repeated calls (run from benchmarks/)
from scipy.special import ndtr


def naive(X, b, alphas):
    out = {k: [] for k in ("urisk", "trisk", "trisk_star", "zrisk", "georisk")}
    c = X.shape[1]
    mean_q = X.mean(0)
    for a in alphas:
        d = X - b
        w = np.where(d > 0, d, (1 + a) * d)
        out["urisk"].append(w.mean(1))
        out["trisk"].append(w.mean(1) / (w.std(1, ddof=1) / np.sqrt(c)))
        d2 = X - mean_q
        w2 = np.where(d2 > 0, d2, (1 + a) * d2)
        out["trisk_star"].append(w2.mean(1) / (w2.std(1, ddof=1) / np.sqrt(c)))
        e = np.outer(X.sum(1), X.sum(0)) / X.sum()
        z = (X - e) / np.sqrt(e)
        zr = np.where(z > 0, z, (1 + a) * z).sum(1)
        out["zrisk"].append(zr)
        out["georisk"].append(np.sqrt(X.mean(1) * ndtr(zr / c)))
    return {k: np.stack(v, axis=1) for k, v in out.items()}


def ours(X, b, alphas):
    from evalrank.metrics import risk

    return {
        "urisk": risk.urisk(X, b, alphas),
        "trisk": risk.trisk(X, b, alphas),
        "trisk_star": risk.trisk_star(X, None, alphas),
        "zrisk": risk.zrisk(X, None, alphas),
        "georisk": risk.georisk(X, None, alphas),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--systems", type=int, default=100)
    ap.add_argument("--topics", type=int, default=50_000)
    ap.add_argument("--alphas", type=int, default=21)
    a = ap.parse_args()
    rng = np.random.default_rng(0)
    X = rng.beta(1.2, 3.0, size=(a.systems, a.topics))
    b = rng.beta(1.0, 3.5, size=a.topics)
    alphas = np.linspace(0, 20, a.alphas)
    t_ours, mine = best(lambda: ours(X, b, alphas))
    t_naive, ref = best(lambda: naive(X, b, alphas))
    worst = max(float(np.max(np.abs(mine[k] - ref[k]) / np.maximum(1, np.abs(ref[k])))) for k in ref)
    print(f"machine: {platform.processor() or platform.machine()}, {platform.python_version()}")
    print(f"{a.systems} systems x {a.topics} topics x {a.alphas} alphas, all five measures")
    print(f"evalrank (one call per measure): {t_ours:.3f} s")
    print(f"NumPy, one call per alpha:       {t_naive:.3f} s  ({t_naive / t_ours:.1f}x)")
    print(f"max relative difference: {worst:.1e}")


if __name__ == "__main__":
    main()
