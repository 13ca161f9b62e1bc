"""Benchmark the exact label-model moments of DCG / ERR (evalrank.active.theorem3).

Usage::

    .venv/bin/python benchmarks/bench_theorem3.py
    .venv/bin/python benchmarks/bench_theorem3.py --queries 30000 --docs 120 --grades 5

A synthetic pool (``--queries`` queries x ``--docs`` documents, Dirichlet(1)
label distributions over ``--grades`` grades, random scores) is ranked with
``rank_order``. After a numba warm-up on a small pool, the batched functions are
timed on the whole pool (best of ``--repeats``):

* ``batch_moments`` for DCG and ERR,
* ``batch_difference_moments`` for DCG and ERR, with r_b = r_a with 10% of the
  documents removed ("drop 10%") and with r_b = the same documents in another
  order ("reordered": scores plus Gaussian noise, re-ranked).

Beside each, a naive loop over queries calling the per-query API
(``moments`` / ``difference_moments`` on that query's slice of ``probs``) is
timed on the first ``--loop-queries`` queries and extrapolated linearly to the
whole pool. Prints a markdown table.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np


def _parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--queries", type=int, default=30_000)
    p.add_argument("--docs", type=int, default=120)
    p.add_argument("--grades", type=int, default=5)
    p.add_argument("--loop-queries", type=int, default=300)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args(argv)


def make_pool(n_queries, n_docs, n_grades, rng):
    from evalrank.metrics import rank_order

    offsets = np.arange(n_queries + 1, dtype=np.int64) * n_docs
    n = n_queries * n_docs
    g = rng.standard_gamma(1.0, size=(n, n_grades))  # Dirichlet(1, ..., 1) rows
    probs = g / g.sum(axis=1, keepdims=True)
    scores = rng.normal(size=n)
    order_a = rank_order(scores, offsets)
    # r_b = r_a with ~10% of each query's documents removed (relative order kept)
    keep = rng.random(n) >= 0.1
    seg = np.repeat(np.arange(n_queries), n_docs)
    offsets_drop = np.zeros(n_queries + 1, dtype=np.int64)
    np.cumsum(np.bincount(seg[keep], minlength=n_queries), out=offsets_drop[1:])
    order_drop = order_a[keep]
    # r_b = the same documents in another order
    order_reorder = rank_order(scores + rng.normal(scale=1.0, size=n), offsets)
    return probs, offsets, order_a, {"drop 10%": (offsets_drop, order_drop),
                                     "reordered": (offsets, order_reorder)}


def best_time(fn, repeats):
    best_wall, best_cpu = np.inf, np.inf
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        best_wall = min(best_wall, time.perf_counter() - t0)
        best_cpu = min(best_cpu, time.process_time() - c0)
    return best_wall, best_cpu


def loop_single(probs, offsets, order, measure, n_loop):
    from evalrank.active import moments

    for q in range(n_loop):
        lo, hi = offsets[q], offsets[q + 1]
        moments(probs[lo:hi], order[lo:hi] - lo, measure)


def loop_difference(probs, offsets, order, offsets_b, order_b, measure, n_loop):
    from evalrank.active import difference_moments

    for q in range(n_loop):
        lo, hi = offsets[q], offsets[q + 1]
        rb = order_b[offsets_b[q]:offsets_b[q + 1]] - lo
        difference_moments(probs[lo:hi], order[lo:hi] - lo, rb, measure)


def main(argv=None):
    args = _parse_args(argv)
    from evalrank.active import batch_difference_moments, batch_moments

    rng = np.random.default_rng(args.seed)
    t0 = time.perf_counter()
    small = make_pool(20, 30, args.grades, np.random.default_rng(1))
    for measure in ("dcg", "err"):  # numba compile / cache load
        batch_moments(small[0], small[1], small[2], measure)
        for ob, b in small[3].values():
            batch_difference_moments(small[0], small[1], small[2], ob, b, measure)
    warmup = time.perf_counter() - t0
    probs, offsets, order, variants = make_pool(args.queries, args.docs, args.grades, rng)
    n_loop = min(args.loop_queries, args.queries)
    factor = args.queries / n_loop

    rows = []
    for measure in ("dcg", "err"):
        wall, cpu = best_time(lambda: batch_moments(probs, offsets, order, measure, center=0.3), args.repeats)
        lw, _ = best_time(lambda: loop_single(probs, offsets, order, measure, n_loop), 1)
        rows.append((f"batch_moments {measure.upper()}", wall, cpu, lw * factor))
    for measure in ("dcg", "err"):
        for name, (ob, b) in variants.items():
            wall, cpu = best_time(
                lambda: batch_difference_moments(probs, offsets, order, ob, b, measure, center=0.01), args.repeats
            )
            lw, _ = best_time(lambda: loop_difference(probs, offsets, order, ob, b, measure, n_loop), 1)
            rows.append((f"batch_difference_moments {measure.upper()}, r_b {name}", wall, cpu, lw * factor))

    print(f"pool: {args.queries:,} queries x {args.docs} docs x {args.grades} grades "
          f"({args.queries * args.docs:,} rows); Python {platform.python_version()}, "
          f"{os.cpu_count()} CPUs; numba warm-up {warmup:.1f} s; best of {args.repeats}")
    print(f"per-query loop: moments()/difference_moments() on {n_loop} queries, x{factor:g} to the pool\n")
    print("| function | batched wall | batched CPU | per-query loop (extrapolated) | speed-up |")
    print("|---|---|---|---|---|")
    for name, wall, cpu, loop in rows:
        print(f"| {name} | {wall:.3f} s | {cpu:.3f} s | {loop:.1f} s | {loop / wall:.0f}x |")


if __name__ == "__main__":
    main()
