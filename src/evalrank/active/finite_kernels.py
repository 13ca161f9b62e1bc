"""The kernels of :mod:`evalrank.active.finite`: the Des Raj terms with the recalibrated control
variate (one pass over the labelled queries, each step a pass over the unlabelled ones) and the
betting confidence sequence over a grid of candidate means. Written once for numba
(:mod:`evalrank._jit`: interpreted for a single campaign, compiled for the campaign study's
thousands). They trust their input (validated by :mod:`evalrank.active.finite`).
"""

from __future__ import annotations

import math

import numpy as np

from evalrank._jit import njit


@njit(cache=True, nogil=True)
def _terms(qs, rnd, seq, L, f, lo, hi, prior, center0, rscale, shape, phi, low, high, weight, left, r_low,
           r_high, center, slope):
    """Fill the terms' arrays (:func:`evalrank.active.finite.desraj_terms`). ``qs``: (rounds, N)
    sampling distributions, ``rnd`` each label's round; ``prior``: the slope prior's mass
    (``SLOPE_PRIOR * mean(f^2)``); ``center0``: the estimate before any label; ``rscale``: each
    round's factor on its terms' weights; ``shape``: each round's share of the model's shape."""
    N = qs.shape[1]
    n = seq.shape[0]
    unl = np.ones(N, dtype=np.bool_)
    S = 0.0
    sum_lo = 0.0
    sum_hi = 0.0
    for u in range(N):
        sum_lo += lo[u]
        sum_hi += hi[u]
    sfl = 0.0
    sff = 0.0
    fbar = 0.0
    for u in range(N):
        fbar += f[u]
    fbar /= N
    num = 0.0
    den = 0.0
    c = center0
    n_left = N
    for t in range(n):
        x = seq[t]
        b = 1.0
        if t > 0:
            d = sff + prior
            b = (sfl + prior) / d if d > 0.0 else 0.0
        r = rnd[t]
        Q = 0.0
        Gs = 0.0
        for u in range(N):
            if unl[u]:
                Q += qs[r, u]
                Gs += f[u]
        sh = shape[r]
        lev = b * (1.0 - sh) * fbar
        bs = b * sh
        base = S + bs * Gs + lev * n_left
        mn = math.inf
        mx = -math.inf
        for u in range(N):
            if unl[u]:
                qt = qs[r, u] / Q
                a = (lo[u] - bs * f[u] - lev) / qt
                e = (hi[u] - bs * f[u] - lev) / qt
                if a < mn:
                    mn = a
                if e > mx:
                    mx = e
        qx = qs[r, x] / Q
        p = (base + (L[t] - bs * f[x] - lev) / qx) / N
        phi[t] = p
        low[t] = (base + mn) / N
        high[t] = (base + mx) / N
        left[t] = n_left
        center[t] = c
        slope[t] = b
        unl[x] = False
        S += L[t]
        sfl += f[x] * L[t]
        sff += f[x] * f[x]
        sum_lo -= lo[x]
        sum_hi -= hi[x]
        r_low[t] = (S + sum_lo) / N
        r_high[t] = (S + sum_hi) / N
        if n_left > 1:
            w = rscale[r] * (N * (N - 1.0)) / (n_left * (n_left - 1.0))
            weight[t] = w
            num += w * p
            den += w
            c = num / den
        else:
            weight[t] = math.inf
            c = p
        n_left -= 1


@njit(cache=True, nogil=True)
def _betting(phi, low, high, center, left, finite_w, r_low, r_high, grid, log_thresh, cap, prior_terms, first,
             last):
    """The betting sequence over the candidate means ``grid`` (sorted): per look the first and last
    candidate still kept (-1: none), with aGRAPA bets on the predictable centre and variance (the
    squared scaled deviations of earlier terms, with ``prior_terms`` pseudo-terms of a quarter of
    the first term's range), capped at ``cap`` of the largest bet the term's range allows; a
    candidate outside a term's range or the bounds the labels give is rejected outright."""
    n = phi.shape[0]
    G = grid.shape[0]
    logk = np.zeros(G)
    alive = np.ones(G, dtype=np.bool_)
    N = left[0] if n > 0 else 1.0
    scale0 = (high[0] - low[0]) / 4.0 if n > 0 else 1.0
    ss = prior_terms * scale0 * scale0
    cnt = prior_terms
    for t in range(n):
        r = left[t] / N
        var = r * r * ss / cnt if cnt > 0.0 else r * r * scale0 * scale0
        lo_t = low[t]
        hi_t = high[t]
        rl = r_low[t] - 1e-12 * abs(r_low[t])
        rh = r_high[t] + 1e-12 * abs(r_high[t])
        ph = phi[t]
        ce = center[t]
        f_i = -1
        l_i = -1
        for g in range(G):
            if not alive[g]:
                continue
            m = grid[g]
            if m < lo_t or m > hi_t or m < rl or m > rh:
                alive[g] = False
                continue
            d = ce - m
            v = var + d * d
            lam = d / v if v > 0.0 else 0.0
            if m > lo_t:
                up = cap / (m - lo_t)
                if lam > up:
                    lam = up
            if m < hi_t:
                dn = cap / (hi_t - m)
                if lam < -dn:
                    lam = -dn
            y = lam * (ph - m)
            if y < -1.0 + 1e-15:
                y = -1.0 + 1e-15
            logk[g] += math.log1p(y)
            if not logk[g] < log_thresh:
                alive[g] = False
                continue
            if f_i < 0:
                f_i = g
            l_i = g
        first[t] = f_i
        last[t] = l_i
        if finite_w[t]:
            dev = (ph - ce) / max(r, 1e-300)
            ss += dev * dev
            cnt += 1.0
