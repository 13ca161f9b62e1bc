"""The DBN click model (Chapelle & Zhang 2009) on a 10-million-session log.

Usage::

    .venv/bin/python benchmarks/bench_dbn.py [--sessions 10000000 --serps 20000 --depth 10 --subset 20000]

A synthetic log: ``--serps`` result pages (4 per query, each a random ordering
of ``--depth`` of the query's depth + 4 candidate URLs, one in ten cut short to
5..depth-1 results) drawn with Zipf-like frequency (p ~ 1 / rank), per-pair
a ~ Beta(1.5, 3), s ~ Beta(2, 3), gamma = 0.9. Timed, once each:
``dbn.sample_sessions``, building the validated ``SessionLog``, ``aggregate()``,
``fit_dbn`` on the aggregated log (default gamma = 0.9, prior (1, 1), tol 1e-8,
SQUAREM), the same with plain EM (``accelerate=False``, 200 E-steps at most),
and ``fit_dbn`` on the raw one-row-per-session log (same pooling, no
aggregate step; up to ``--raw-max`` sessions).

Reference: a straightforward EM that loops over sessions in Python (per-session
E-step with the same closed-form posteriors, NumPy M-step, same start and
updates), run for 30 plain EM iterations on the first ``--subset`` sessions
and compared with ``fit_dbn(accelerate=False)``'s 30 iterations there. Its
time per session and E-step, scaled to the full log and the full fit's number
of E-steps, gives the speed ratio.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import time

import numpy as np

from _machine import cpu_model
from evalrank.papers.ozertem2011 import dbn
from evalrank.papers.ozertem2011.logs import session_log


def world(n_serps, depth, seed=0):
    r = np.random.default_rng(seed)
    per_query, cand = 4, depth + 4
    n_queries = -(-n_serps // per_query)
    n_pairs = n_queries * cand
    q = np.arange(n_serps) // per_query
    order = np.argsort(r.random((n_serps, cand)), axis=1)[:, :depth]
    serps = q[:, None] * cand + order
    short = r.random(n_serps) < 0.1
    lengths = np.where(short, r.integers(5, depth, n_serps) if depth > 5 else depth, depth)
    serps[np.arange(depth)[None, :] >= lengths[:, None]] = -1
    freq = 1.0 / np.arange(1, n_serps + 1)
    freq = freq[r.permutation(n_serps)]
    freq /= freq.sum()
    a = r.beta(1.5, 3.0, n_pairs)
    s = r.beta(2.0, 3.0, n_pairs)
    return serps, q, freq, a, s, n_pairs


def reference_em(serps, row_serp, clicks, n_pairs, gamma, prior, n_iter):
    """EM with a Python loop over sessions (one row = one session)."""
    al, be = prior
    sessions = []
    views, nclicks, last = np.zeros(n_pairs), np.zeros(n_pairs), np.zeros(n_pairs)
    for j, mask in zip(row_serp.tolist(), clicks.tolist()):
        shown = [p for p in serps[j].tolist() if p >= 0]
        clicked = [bool(mask >> r & 1) for r in range(len(shown))]
        lc = int(mask).bit_length()
        sessions.append((shown, clicked, lc))
        for r in range(lc):
            views[shown[r]] += 1
            nclicks[shown[r]] += clicked[r]
        if lc:
            last[shown[lc - 1]] += 1
    a = (nclicks + 1) / (views + 2)
    s = (last + 1) / (nclicks + 2)
    for _ in range(n_iter):
        al_list, sl_list = a.tolist(), s.tolist()
        exam = [0.0] * n_pairs
        sat = [0.0] * n_pairs
        for shown, clicked, lc in sessions:
            m = len(shown)
            Z = [1.0] * (m + 1)
            for r in range(m - 1, -1, -1):
                Z[r] = (1 - al_list[shown[r]]) * (1 - gamma + gamma * Z[r + 1])
            for r in range(lc):
                exam[shown[r]] += 1.0
            if lc:
                sv = sl_list[shown[lc - 1]]
                D = sv + (1 - sv) * (1 - gamma + gamma * Z[lc])
                sat[shown[lc - 1]] += sv / D
                e = (1 - sv) * gamma * Z[lc] / D
            else:
                e = 1.0
            for r in range(lc, m):
                exam[shown[r]] += e
                stay = 1 - gamma + gamma * Z[r + 1]
                e = e * gamma * Z[r + 1] / stay if stay > 0 else 0.0
        exam, sat = np.asarray(exam), np.asarray(sat)
        den = exam + al + be
        a = np.where(den > 0, (nclicks + al) / np.where(den > 0, den, 1), a)
        den = nclicks + al + be
        s = np.where(den > 0, (sat + al) / np.where(den > 0, den, 1), s)
    return a, s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=10_000_000)
    ap.add_argument("--serps", type=int, default=20_000)
    ap.add_argument("--depth", type=int, default=10)
    ap.add_argument("--subset", type=int, default=20_000)
    ap.add_argument("--raw-max", type=int, default=10_000_000, help="fit the unaggregated log only up to this size")
    ap.add_argument("--gamma", type=float, default=0.9)
    a_ = ap.parse_args()
    print(f"machine: {os.cpu_count()} cores ({cpu_model()}), Python {platform.python_version()}, "
          f"NumPy {np.__version__}")
    serps, q, freq, a, s, n_pairs = world(a_.serps, a_.depth)
    r = np.random.default_rng(1)
    row_serp = r.choice(a_.serps, size=a_.sessions, p=freq)

    t0 = time.perf_counter()
    clicks = dbn.sample_sessions(serps, row_serp, a, s, a_.gamma, r)
    t_sample = time.perf_counter() - t0
    t0 = time.perf_counter()
    raw = session_log(serps, q, row_serp, clicks)
    t_log = time.perf_counter() - t0
    t0 = time.perf_counter()
    agg = raw.aggregate()
    t_agg = time.perf_counter() - t0
    t0 = time.perf_counter()
    fit = dbn.fit_dbn(agg, n_pairs, gamma=a_.gamma)
    t_fit = time.perf_counter() - t0
    t0 = time.perf_counter()
    plain = dbn.fit_dbn(agg, n_pairs, gamma=a_.gamma, accelerate=False)
    t_plain = time.perf_counter() - t0
    t_fit_raw = same_raw = float("nan")
    if a_.sessions <= a_.raw_max:   # one row per session: pooling without aggregate()
        t0 = time.perf_counter()
        fit_raw = dbn.fit_dbn(raw, n_pairs, gamma=a_.gamma)
        t_fit_raw = time.perf_counter() - t0
        same_raw = max(float(np.abs(fit.attract - fit_raw.attract).max()),
                       float(np.abs(fit.satisfy - fit_raw.satisfy).max()))
    n = a_.sessions
    shown = np.bincount(serps[serps >= 0], minlength=n_pairs) > 0
    used = fit.views >= 10
    print(f"log: {n:,} sessions on {a_.serps:,} serps (depth {a_.depth}), {int(shown.sum()):,} pairs shown, "
          f"{agg.n_rows:,} distinct (serp, clicks) rows after aggregate(); {int(used.sum()):,} pairs with >= 10 views")
    print(f"sample_sessions:          {t_sample:8.2f} s  ({n / t_sample:,.0f} sessions/s)")
    print(f"session_log (validation): {t_log:8.2f} s")
    print(f"aggregate():              {t_agg:8.2f} s")
    print(f"fit_dbn (aggregated):     {t_fit:8.2f} s  ({fit.n_iter} SQUAREM iterations = {fit.e_steps} E-steps, "
          f"converged {fit.converged}, {t_fit / fit.e_steps * 1e3:.1f} ms/E-step)")
    print(f"  plain EM (accelerate=False): {t_plain:.2f} s, {plain.e_steps} E-steps, converged {plain.converged}, "
          f"log-posterior {plain.log_posterior[-1] - fit.log_posterior[-1]:+.2f} vs SQUAREM's")
    print(f"aggregate + fit_dbn:      {t_agg + t_fit:8.2f} s  ({n / (t_agg + t_fit):,.0f} sessions/s)")
    print(f"fit_dbn (raw log):        {t_fit_raw:8.2f} s  ({n / t_fit_raw:,.0f} sessions/s; "
          f"max |diff| to the aggregated fit {same_raw:.1e})")
    err_a = float(np.mean(np.abs(fit.attract - a)[used]))
    err_s = float(np.mean(np.abs(fit.satisfy - s)[used]))
    print(f"recovery (pairs with >= 10 views): mean |a - true| {err_a:.4f}, mean |s - true| {err_s:.4f}")

    m = min(a_.subset, n)
    sub = session_log(serps, q, row_serp[:m], clicks[:m])
    t0 = time.perf_counter()
    # plain EM (no acceleration) for a fixed number of iterations, so both run the same updates
    fit_sub = dbn.fit_dbn(sub, n_pairs, gamma=a_.gamma, accelerate=False, tol=1e-300, max_iter=30)
    t_fit_sub = time.perf_counter() - t0
    k = fit_sub.e_steps
    t0 = time.perf_counter()
    ra, rs_ = reference_em(serps, row_serp[:m], clicks[:m], n_pairs, a_.gamma, (1.0, 1.0), k)
    t_ref = time.perf_counter() - t0
    diff = max(float(np.abs(ra - fit_sub.attract).max()), float(np.abs(rs_ - fit_sub.satisfy).max()))
    per = t_ref / (m * k)
    projected = per * n * fit.e_steps
    print(f"reference (Python loop over sessions), {m:,} sessions x {k} iterations: {t_ref:.2f} s "
          f"({per * 1e6:.2f} us per session and E-step); fit_dbn on the same subset {t_fit_sub:.3f} s; "
          f"max |diff| of a, s {diff:.1e}")
    print(f"reference projected to {n:,} sessions x {fit.e_steps} E-steps: {projected:,.0f} s "
          f"-> aggregate + fit_dbn is {projected / (t_agg + t_fit):,.0f}x faster")
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.2f} GB")


if __name__ == "__main__":
    main()
