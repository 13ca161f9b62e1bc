"""NDCG at the theory stage's scale (Wang et al. 2013, issue 8).

Usage::

    .venv/bin/python benchmarks/bench_theory.py [--n-single 10000000 --n 100000 --R 1000 --repeats 3]

1. One list of ``--n-single`` documents (the logistic population's graded
   sample, scorer w = 0.7): ``evalrank.metrics.ndcg`` for the full list and
   for k = 0.3 n, against a straightforward NumPy NDCG (``argsort`` of the
   negated scores, gains through it, ``sort`` of the gains for the ideal, a
   dot product with 1 / log2(r + 1)). Best of ``--repeats``; values compared.
2. ``--R`` samples of ``--n`` objects, one scorer, standard NDCG:
   ``evalrank.papers.wang2013.experiments.sample_ndcg`` (blocks of 2 million objects:
   one row-wise sort per block) against the straightforward loop (one sample
   at a time: draw, NumPy NDCG as in 1). Both draw the same objects (the loop
   re-draws each block from the same stream and slices it), so the values are
   compared too. Timed once each (they take seconds to minutes); the time spent
   drawing the samples (identical draws) is also reported, and subtracted for
   the NDCG-only ratio.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from _machine import cpu_model
from evalrank.metrics import ndcg
from evalrank.papers.wang2013 import LogisticPopulation, Scorer
from evalrank.papers.wang2013.experiments import sample_ndcg


def numpy_ndcg(scores, gains, k=None):
    """The straightforward NDCG@k of one list."""
    n = scores.size
    k = n if k is None else k
    disc = 1.0 / np.log2(np.arange(2, k + 2))
    dcg = gains[np.argsort(-scores, kind="stable")[:k]] @ disc
    ideal = np.sort(gains)[::-1][:k] @ disc
    return dcg / ideal if ideal > 0 else 0.0


def best(f, repeats):
    times, out = [], None
    for _ in range(repeats):
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    return min(times), out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n-single", type=int, default=10_000_000)
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--R", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    print(f"machine: {cpu_model()}, {os.cpu_count()} cores; numpy {np.__version__}")
    pop = LogisticPopulation(5.0, [0.3, 0.6, 0.85])
    sc = Scorer(0.7)

    scores, grades = pop.sample(a.n_single, [sc], np.random.default_rng(1))
    s, g = scores[0], grades
    gains = pop.gains[g]
    offsets = np.array([0, a.n_single])
    ndcg(s[:1000], g[:1000], np.array([0, 1000]))      # warm-up (numba kernels)
    print(f"\n1. one list of {a.n_single:,} documents (best of {a.repeats})")
    for k, knp in ((None, None), ("frac:0.3", int(0.3 * a.n_single + 1e-9))):
        t_e, v_e = best(lambda: ndcg(s, g, offsets, k)[0], a.repeats)
        t_n, v_n = best(lambda: numpy_ndcg(s, gains, knp), a.repeats)
        print(f"  k = {k or 'n'}: evalrank {t_e:.3f} s, NumPy {t_n:.3f} s, ratio {t_n / t_e:.2f}x; "
              f"NDCG {v_e:.12f} vs {v_n:.12f} (|diff| {abs(v_e - v_n):.1e})")

    print(f"\n2. R = {a.R} samples of n = {a.n:,} (standard NDCG, one scorer)")
    seed = np.random.SeedSequence(7)
    t = time.perf_counter()
    vals = sample_ndcg(pop, [sc], ["log2"], a.n, a.R, seed)[:, 0, 0]
    t_e = time.perf_counter() - t
    block = max(1, 2_000_000 // a.n)
    t = time.perf_counter()
    t_draw = 0.0
    ref = np.empty(a.R)
    for b, child in enumerate(np.random.SeedSequence(7).spawn(-(-a.R // block))):
        m = min(block, a.R - b * block)
        t0 = time.perf_counter()
        sc_all, gr_all = pop.sample(a.n * m, [sc], np.random.default_rng(child))
        t_draw += time.perf_counter() - t0
        for i in range(m):
            sl = slice(i * a.n, (i + 1) * a.n)
            ref[b * block + i] = numpy_ndcg(sc_all[0, sl], pop.gains[gr_all[sl]])
    t_n = time.perf_counter() - t
    print(f"  evalrank sample_ndcg {t_e:.2f} s, straightforward loop {t_n:.2f} s (both include drawing the "
          f"samples), ratio {t_n / t_e:.2f}x; max |diff| {np.max(np.abs(vals - ref)):.1e}; "
          f"mean NDCG {vals.mean():.6f}")
    print(f"  of which drawing the samples {t_draw:.2f} s (the same draws in both); NDCG alone: evalrank "
          f"{t_e - t_draw:.2f} s, loop {t_n - t_draw:.2f} s, ratio {(t_n - t_draw) / (t_e - t_draw):.2f}x")


if __name__ == "__main__":
    main()
