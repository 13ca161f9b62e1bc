"""The numba kernels of :mod:`evalrank.active.theorem3` (Sawade et al. 2012, eqs. 19-23, Theorem
3): validation scans (a probability row off by more than the tolerance, a repeated document,
where one ranking's documents lie in the other) and the per-document statistics and recursions
that module's docstring derives -- DCG's ``E[G]`` / ``Var[G]``, ERR's ``m, u, q, h, s, v``, its
backward recursion ``S_{i-1} = m_i / i + u_i S_i`` and the covariance of two rankings' ERR
(``D_ij``) per query, queries in parallel. They trust their input (validated by theorem3).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

@njit(cache=True, nogil=True)
def _first_bad_row(p, tol):
    """(row, problem) of the first invalid row of probs: 1 non-finite, 2 negative,
    3 sum off 1 by more than tol; (-1, 0) if all rows are distributions."""
    for r in range(p.shape[0]):
        total = 0.0
        for g in range(p.shape[1]):
            x = p[r, g]
            if not np.isfinite(x):
                return r, 1
            if x < 0.0:
                return r, 2
            total += x
        if abs(total - 1.0) > tol:
            return r, 3
    return -1, 0


@njit(cache=True, nogil=True)
def _first_repeat(n_rows, offsets, order):
    """(query, row) of the first row listed twice within one query, else (-1, -1)."""
    seen = np.full(n_rows, -1, dtype=np.int64)
    for qi in range(offsets.shape[0] - 1):
        for e in range(offsets[qi], offsets[qi + 1]):
            r = order[e]
            if seen[r] == qi:
                return qi, r
            seen[r] = qi
    return -1, -1


@njit(cache=True, nogil=True)
def _match(n_rows, off_a, order_a, off_b, order_b):
    """Per entry of b, the 0-based position of the same row in query's a (-1 if
    absent), and vice versa. Rows may recur across queries."""
    pos_a_of_b = np.empty(order_b.shape[0], dtype=np.int64)
    pos_b_of_a = np.empty(order_a.shape[0], dtype=np.int64)
    slot = np.full(n_rows, -1, dtype=np.int64)
    for qi in range(off_a.shape[0] - 1):
        la, ua = off_a[qi], off_a[qi + 1]
        lb, ub = off_b[qi], off_b[qi + 1]
        for e in range(la, ua):
            slot[order_a[e]] = e - la
        for f in range(lb, ub):
            pos_a_of_b[f] = slot[order_b[f]]
        for e in range(la, ua):
            slot[order_a[e]] = -1
        for f in range(lb, ub):
            slot[order_b[f]] = f - lb
        for e in range(la, ua):
            pos_b_of_a[e] = slot[order_a[e]]
        for f in range(lb, ub):
            slot[order_b[f]] = -1
    return pos_a_of_b, pos_b_of_a


@njit(cache=True, nogil=True)
def _dcg_stats(probs, idx, gain):
    """E[G] and Var[G] of the gain G = 2^y - 1 for the rows idx."""
    n = idx.shape[0]
    n_grades = gain.shape[0]
    eg = np.empty(n)
    vg = np.empty(n)
    for e in range(n):
        r = idx[e]
        a = 0.0
        for g in range(n_grades):
            a += probs[r, g] * gain[g]
        b = 0.0
        for g in range(n_grades):
            d = gain[g] - a
            b += probs[r, g] * d * d
        eg[e] = a
        vg[e] = b
    return eg, vg


@njit(cache=True, nogil=True)
def _err_stats(probs, idx, stop):
    """Per-entry m=E[R], u=E[1-R], q=E[(1-R)^2], h=E[R(1-R)], s=E[R^2], v=Var[R]."""
    n = idx.shape[0]
    n_grades = stop.shape[0]
    m = np.empty(n)
    u = np.empty(n)
    q = np.empty(n)
    h = np.empty(n)
    s = np.empty(n)
    v = np.empty(n)
    for e in range(n):
        r = idx[e]
        am = 0.0
        au = 0.0
        aq = 0.0
        ah = 0.0
        a_s = 0.0
        for g in range(n_grades):
            p = probs[r, g]
            x = stop[g]
            c = 1.0 - x
            am += p * x
            au += p * c
            aq += p * c * c
            ah += p * x * c
            a_s += p * x * x
        av = 0.0
        for g in range(n_grades):
            d = stop[g] - am
            av += probs[r, g] * d * d
        m[e] = am
        u[e] = au
        q[e] = aq
        h[e] = ah
        s[e] = a_s
        v[e] = av
    return m, u, q, h, s, v


@njit(cache=True, nogil=True)
def _err_segment(m, u, q, v, lo, hi, buf):
    """Mean and variance of ERR over entries lo:hi (in rank order); buf >= hi-lo."""
    n = hi - lo
    cont = 0.0
    for t in range(n - 1, -1, -1):
        buf[t] = cont  # S_t: expected contribution of later positions, given past t
        cont = m[lo + t] / (t + 1) + u[lo + t] * cont
    mean = cont
    reach2 = 1.0  # E[prod_{l<t} (1 - R_l)^2]
    var = 0.0
    for t in range(n):
        d = 1.0 / (t + 1) - buf[t]
        var += reach2 * v[lo + t] * d * d
        reach2 *= q[lo + t]
    return mean, var


@njit(cache=True, nogil=True)
def _err_single_kernel(offsets, m, u, q, v):
    nq = offsets.shape[0] - 1
    mean = np.zeros(nq)
    var = np.zeros(nq)
    longest = 0
    for qi in range(nq):
        longest = max(longest, offsets[qi + 1] - offsets[qi])
    buf = np.empty(longest)
    for qi in range(nq):
        mean[qi], var[qi] = _err_segment(m, u, q, v, offsets[qi], offsets[qi + 1], buf)
    return mean, var


@njit(cache=True, nogil=True)
def _err_cov(la, na, ma, ua, lb, nb, mb, ub, qu_b, hu_b, vu_b, hb, sb, vb, pos_a_of_b, inv):
    """Cov[L_a, L_b] of ERR for one query; see the module docstring."""
    cov = 0.0
    base = 1.0  # prod_{l<i} u(a_l)
    for i0 in range(na):
        if base == 0.0:
            break  # every later term is below the smallest double
        m_ai = ma[la + i0]
        y = base  # prod of E[f^a] E[f^b] over the documents seen so far
        d = 0.0  # prod E[f^a f^b] - prod E[f^a] E[f^b]
        held = True  # a_i's factor m(a_i) not yet absorbed
        acc = 0.0
        for j in range(nb):
            f = lb + j
            p = pos_a_of_b[f]
            if p < 0 or p > i0:
                dt = mb[f] * d
                if held:
                    dt *= m_ai
                acc += dt * inv[j]
                d *= ub[f]
                y *= ub[f]
            elif p < i0:
                dt = hu_b[f] * d - vu_b[f] * y
                if held:
                    dt *= m_ai
                acc += dt * inv[j]
                d = qu_b[f] * d + vu_b[f] * y
                y *= ub[f]
            else:
                acc += (sb[f] * d + vb[f] * y) * inv[j]
                d = hb[f] * d - vb[f] * y
                y *= mb[f] * ub[f]
                held = False
        cov += acc * inv[i0]
        base *= ua[la + i0]
    return cov


@njit(cache=True, nogil=True, parallel=True)
def _err_diff_kernel(off_a, ma, ua, qa, va, off_b, mb, ub, qb, hb, sb, vb, pos_a_of_b):
    nq = off_a.shape[0] - 1
    mean = np.zeros(nq)
    var = np.zeros(nq)
    longest = 1
    for qi in range(nq):
        longest = max(longest, off_a[qi + 1] - off_a[qi], off_b[qi + 1] - off_b[qi])
    inv = np.empty(longest)
    for t in range(longest):
        inv[t] = 1.0 / (t + 1)
    nb_tot = ub.shape[0]
    qu_b = np.empty(nb_tot)
    hu_b = np.empty(nb_tot)
    vu_b = np.empty(nb_tot)
    for f in range(nb_tot):
        qu_b[f] = qb[f] / ub[f]
        hu_b[f] = hb[f] / ub[f]
        vu_b[f] = vb[f] / ub[f]
    for qi in prange(nq):
        la, lb = off_a[qi], off_b[qi]
        na, nb = off_a[qi + 1] - la, off_b[qi + 1] - lb
        same = na == nb
        if same:
            for j in range(nb):
                if pos_a_of_b[lb + j] != j:
                    same = False
                    break
        if same:
            continue  # delta == 0 for every label vector
        buf = np.empty(max(na, nb))
        mu_a, var_a = _err_segment(ma, ua, qa, va, la, la + na, buf)
        mu_b, var_b = _err_segment(mb, ub, qb, vb, lb, lb + nb, buf)
        cov = _err_cov(la, na, ma, ua, lb, nb, mb, ub, qu_b, hu_b, vu_b, hb, sb, vb, pos_a_of_b, inv)
        mean[qi] = mu_a - mu_b
        vd = var_a + var_b - 2.0 * cov
        var[qi] = vd if vd > 0.0 else 0.0
    return mean, var
