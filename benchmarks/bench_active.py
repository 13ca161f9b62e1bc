"""Benchmark active evaluation: q* on a 30,000 x 120 pool, Monte Carlo throughput,
and a projection of the active stage of ``config/paper.yaml``.

Usage::

    .venv/bin/python benchmarks/bench_active.py [--queries 30000 --docs 120 --loop-queries 300]

q* (eqs. 11/12) is timed for single-model DCG and ERR and for the ERR and DCG
comparison of two rankings (r_b = the same documents re-ranked by noisy
scores), beside a naive loop over queries calling the per-query API
(``evalrank.active.moments`` / ``difference_moments``, each query's slice of ``probs``) twice (mean pass for
R_theta, then the second moment) on ``--loop-queries`` queries, extrapolated.
Monte Carlo: ``simulate`` on a pool of MSLR's pool size (about 25,000 queries)
with the paper budgets, draws per second. Thread count: numba/BLAS as set by
the environment (``NUMBA_NUM_THREADS``); the machine's cores are printed.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np


def pool(nq, nd, seed=0):
    g = np.random.default_rng(seed)
    offsets = np.arange(nq + 1, dtype=np.int64) * nd
    probs = g.dirichlet(np.ones(5), size=nq * nd)
    scores = g.random(nq * nd)
    lengths = g.lognormal(6, 1.2, size=nq * nd)
    return offsets, probs, scores, lengths


def best(fn, repeats=3):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--queries", type=int, default=30000)
    ap.add_argument("--docs", type=int, default=120)
    ap.add_argument("--loop-queries", type=int, default=300)
    ap.add_argument("--mc-queries", type=int, default=25000)
    ap.add_argument("--mc-reps", type=int, default=200)
    a = ap.parse_args()

    from evalrank.active import difference_moments, moments, q_star, q_star_difference, query_costs
    from evalrank.papers.sawade2012.montecarlo import simulate
    from evalrank.metrics.ranking import rank_order

    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs; python {platform.python_version()}, numpy {np.__version__}")
    nq, nd = a.queries, a.docs
    offsets, probs, scores, lengths = pool(nq, nd)
    order_a = rank_order(scores, offsets)
    order_b = rank_order(scores + np.random.default_rng(1).normal(0, 0.3, scores.size), offsets)
    costs = query_costs(lengths, offsets)
    # warm-up (numba compile / cache load)
    small = offsets[:11]
    q_star(probs, small, order_a[: small[-1]], "err", costs[:10])
    q_star_difference(probs, small, order_a[: small[-1]], small, order_b[: small[-1]], "err", costs[:10])

    print(f"\npool: {nq:,} queries x {nd} docs x 5 grades; best of 3\n")
    print("| q* | batched | naive per-query loop (extrapolated) | speed-up |")
    print("|---|---|---|---|")
    L = a.loop_queries
    for label, measure, diff in (("single model, DCG", "dcg", False), ("single model, ERR", "err", False),
                                 ("comparison, DCG", "dcg", True), ("comparison, ERR", "err", True)):
        if diff:
            t, _ = best(lambda: q_star_difference(probs, offsets, order_a, offsets, order_b, measure, costs))
        else:
            t, _ = best(lambda: q_star(probs, offsets, order_a, measure, costs))

        def loop():
            # each query's own slice of probs, rankings as local row indices
            pq = [probs[offsets[i]:offsets[i + 1]] for i in range(L)]
            rk_a = [order_a[offsets[i]:offsets[i + 1]] - offsets[i] for i in range(L)]
            rk_b = [order_b[offsets[i]:offsets[i + 1]] - offsets[i] for i in range(L)]
            if diff:
                mean = [difference_moments(p, ra, rb, measure)[0] for p, ra, rb in zip(pq, rk_a, rk_b)]
                c = float(np.mean(mean))
                sec = [difference_moments(p, ra, rb, measure, center=c)[1] for p, ra, rb in zip(pq, rk_a, rk_b)]
            else:
                mean = [moments(p, r, measure)[0] for p, r in zip(pq, rk_a)]
                c = float(np.mean(mean))
                sec = [moments(p, r, measure, center=c)[1] for p, r in zip(pq, rk_a)]
            q = np.sqrt(np.array(sec) / costs[:L])
            return q / q.sum()

        tl, _ = best(loop, repeats=1)
        tl *= nq / L
        print(f"| {label} | {t:.3f} s | {tl:.1f} s | {tl / t:.0f}x |")

    # Monte Carlo throughput on a pool of the paper's size
    mq = a.mc_queries
    off2, probs2, scores2, len2 = pool(mq, 60, seed=2)
    c2 = query_costs(len2, off2)
    o2 = rank_order(scores2, off2)
    values = np.random.default_rng(3).random(mq)
    budgets = [25, 50, 100, 150, 200, 300, 400, 500]
    qa = q_star(probs2, off2, o2, "err", c2)
    qp = np.full(mq, 1 / mq)
    simulate(qa, c2, values, budgets, seed=0, stream=("warm",), repetitions=range(2))
    print(f"\nMonte Carlo: pool of {mq:,} queries, budgets {budgets}, {a.mc_reps} repetitions per method\n")
    per_run = []
    for name, q in (("passive", qp), ("active", qa)):
        t0 = time.perf_counter()
        sim = simulate(q, c2, values, budgets, seed=0, stream=(name,), repetitions=range(a.mc_reps))
        dt = time.perf_counter() - t0
        draws = int(sim["n"][:, -1].sum())
        per_run.append(dt / a.mc_reps)
        print(f"- {name}: {dt:.2f} s, {draws:,} draws = {draws / dt / 1e6:.2f} M draws/s, {dt / a.mc_reps * 1e3:.2f} ms per run")
    run_s = float(np.mean(per_run))
    # config/paper.yaml, active stage: 5 folds x 12 experiments x 2 measures x 4 methods x 5000 repetitions
    runs = 5 * 12 * 2 * 4 * 5000
    setups = 5 * 12
    t_q, _ = best(lambda: q_star_difference(probs, offsets, order_a, offsets, order_b, "err", costs), repeats=1)
    setup_s = 4 * t_q + 10.0  # ~4 q* (3 active variants + DCG) + loading ~0.8 GB of predictions per job
    total = runs * run_s + setups * setup_s
    print(f"\nprojection, config/paper.yaml active stage: {runs:,} runs x {run_s * 1e3:.2f} ms + {setups} setups x {setup_s:.0f} s"
          f" = {total / 3600:.2f} core-hours -> {total / 2 / 3600:.2f} h on 2 cores, {total / 16 / 60:.0f} min on 16 cores")


if __name__ == "__main__":
    main()
