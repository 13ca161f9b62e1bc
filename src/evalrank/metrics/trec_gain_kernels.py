"""The numba kernels of :mod:`evalrank.metrics.trec_gain`: trec_eval's gain-based measures per
topic in parallel (``m_G.c``, ``m_ndcg.c``, ``m_ndcg_rel.c``, ``m_Rndcg.c``, ``m_binG.c``,
``m_yaap.c``, ``m_relstring.c``; trec_eval 10's ``m_rbp.c``, ``m_rbp_resid.c``,
``m_unjudged.c``) on the gain tables that module prepares, with C's arithmetic where it shows
(0/0 and log of a negative number: x86's ``-nan``; the ideal ranking's walk of the sorted table).
"""

from __future__ import annotations

import math

from evalrank._jit import njit, prange

__all__: list = []

_OPTS = dict(cache=True, error_model="numpy")
#: x86's default NaN (sign bit set): what C's 0/0 and glibc's log(-1) give; trec_eval prints -nan
_NAN = -math.nan


@njit(**_OPTS)
def _div(a, b):
    """``a / b`` as C computes it, compiled or interpreted: x/0 is +-inf, 0/0 NaN."""
    if b == 0.0:
        if a != a:
            return a
        if a == 0.0:
            return _NAN
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


@njit(**_OPTS)
def _log2(x):
    """glibc's ``log2``: -inf at 0, NaN below."""
    if x > 0.0:
        return math.log2(x)
    if x == 0.0:
        return -math.inf
    return x if x != x else _NAN


@njit(**_OPTS)
def _log(x):
    """glibc's ``log``: -inf at 0, NaN below."""
    if x > 0.0:
        return math.log(x)
    if x == 0.0:
        return -math.inf
    return x if x != x else _NAN


@njit(**_OPTS)
def _next_ideal(ent_cnt, ent_gain, base, cur, num_at):
    """One step of the ideal ranking: (cur, num_at, ideal_gain) after taking one more document
    (the ``while (cur_level >= 0 && num_at_level > num_at_level[cur_level])`` loop) over the
    topic's entries with a count, ``base + 0 .. base + cur`` (the table's entries of count 0,
    which the loop steps over, are not there)."""
    num_at += 1
    while cur >= 0:
        if num_at <= ent_cnt[base + cur]:
            break
        num_at = 1
        cur -= 1
    g = ent_gain[base + cur] if cur >= 0 else 0.0
    return cur, num_at, g


@njit(cache=True, error_model="numpy", parallel=True)
def _ndcg_kernel(offsets, dg, ent_gain, ent_cnt, ent_off, init, out):
    for q in prange(offsets.shape[0] - 1):
        lo = offsets[q]
        n = offsets[q + 1] - lo
        base = ent_off[q]
        cur = ent_off[q + 1] - base - 1
        ideal_gain = init[q]
        num_at = 0
        results_dcg = 0.0
        ideal_dcg = 0.0
        i = 0
        while i < n and ideal_gain > 0.0:
            rg = dg[lo + i]
            if rg != 0:
                results_dcg += rg / math.log2(i + 2.0)
            cur, num_at, ideal_gain = _next_ideal(ent_cnt, ent_gain, base, cur, num_at)
            if ideal_gain > 0.0:
                ideal_dcg += ideal_gain / math.log2(i + 2.0)
            i += 1
        while i < n:
            rg = dg[lo + i]
            if rg != 0:
                results_dcg += rg / math.log2(i + 2.0)
            i += 1
        while ideal_gain > 0.0:
            cur, num_at, ideal_gain = _next_ideal(ent_cnt, ent_gain, base, cur, num_at)
            if ideal_gain > 0.0:
                ideal_dcg += ideal_gain / math.log2(i + 2.0)
            i += 1
        out[q, 0] = _div(results_dcg, ideal_dcg) if ideal_dcg > 0.0 else 0.0


@njit(cache=True, error_model="numpy", parallel=True)
def _G_kernel(offsets, dg, ent_gain, ent_cnt, ent_off, init, out):
    for q in prange(offsets.shape[0] - 1):
        lo = offsets[q]
        n = offsets[q + 1] - lo
        base = ent_off[q]
        cur = ent_off[q + 1] - base - 1
        ideal_gain = init[q]
        num_at = 0
        min_cost = 1.0
        results_g = 0.0
        sum_results = 0.0
        sum_ideal = 0.0
        sum_cost = 0.0
        i = 0
        while i < n and ideal_gain > 0.0:
            rg = dg[lo + i]
            sum_results += rg
            cur, num_at, ideal_gain = _next_ideal(ent_cnt, ent_gain, base, cur, num_at)
            if ideal_gain > 0.0:
                sum_ideal += ideal_gain
            if ideal_gain >= min_cost:
                sum_cost += ideal_gain
            else:
                sum_cost += min_cost
            if rg != 0:
                results_g += _div(rg, _log2(2 + sum_cost - sum_results))
            i += 1
        while i < n:
            rg = dg[lo + i]
            sum_results += rg
            sum_cost += min_cost
            if rg != 0:
                results_g += _div(rg, _log2(2 + sum_cost - sum_results))
            i += 1
        while ideal_gain > 0.0:
            cur, num_at, ideal_gain = _next_ideal(ent_cnt, ent_gain, base, cur, num_at)
            if ideal_gain > 0.0:
                sum_ideal += ideal_gain
            i += 1
        out[q, 0] = _div(results_g, sum_ideal) if sum_ideal > 0.0 else 0.0


@njit(cache=True, error_model="numpy", parallel=True)
def _ndcg_rel_kernel(offsets, dg, ent_gain, ent_cnt, ent_off, init, out):
    for q in prange(offsets.shape[0] - 1):
        lo = offsets[q]
        n = offsets[q + 1] - lo
        base = ent_off[q]
        cur = ent_off[q + 1] - base - 1
        ideal_gain = init[q]
        num_at = 0
        results_dcg = 0.0
        ideal_dcg = 0.0
        s = 0.0
        num_rel_ret = 0
        num_rel = 0
        i = 0
        while i < n and ideal_gain > 0.0:
            rg = dg[lo + i]
            if rg != 0:
                results_dcg += rg / math.log2(i + 2.0)
            cur, num_at, ideal_gain = _next_ideal(ent_cnt, ent_gain, base, cur, num_at)
            if ideal_gain > 0.0:
                num_rel += 1
                ideal_dcg += ideal_gain / math.log2(i + 2.0)
            if rg > 0:
                s += _div(results_dcg, ideal_dcg)
                num_rel_ret += 1
            i += 1
        while i < n:
            rg = dg[lo + i]
            if rg != 0:
                results_dcg += rg / math.log2(i + 2.0)
            if rg > 0:
                s += _div(results_dcg, ideal_dcg)
                num_rel_ret += 1
            i += 1
        while ideal_gain > 0.0:
            cur, num_at, ideal_gain = _next_ideal(ent_cnt, ent_gain, base, cur, num_at)
            if ideal_gain > 0.0:
                num_rel += 1
                ideal_dcg += ideal_gain / math.log2(i + 2.0)
            i += 1
        s += _div(float(num_rel - num_rel_ret) * results_dcg, ideal_dcg)
        out[q, 0] = _div(s, float(num_rel)) if s > 0.0 else 0.0


@njit(cache=True, error_model="numpy", parallel=True)
def _Rndcg_kernel(offsets, dg, ent_gain, ent_cnt, ent_off, init, num_rel, out):
    for q in prange(offsets.shape[0] - 1):
        if num_rel[q] == 0:
            out[q, 0] = 0.0
            continue
        lo = offsets[q]
        n = offsets[q + 1] - lo
        base = ent_off[q]
        cur = ent_off[q + 1] - base - 1
        ideal_gain = init[q]
        old_ideal_gain = ideal_gain
        num_changed = 0
        num_at = 0
        results_dcg = 0.0
        ideal_dcg = 0.0
        s = 0.0
        i = 0
        while i < n and ideal_gain > 0.0:
            rg = dg[lo + i]
            cur, num_at, ideal_gain = _next_ideal(ent_cnt, ent_gain, base, cur, num_at)
            if old_ideal_gain != ideal_gain:
                if ideal_dcg > 0.0:
                    s += results_dcg / ideal_dcg
                    num_changed += 1
                old_ideal_gain = ideal_gain
            if rg != 0:
                results_dcg += rg / math.log2(i + 2.0)
            if ideal_gain > 0.0:
                ideal_dcg += ideal_gain / math.log2(i + 2.0)
            i += 1
        if i < n:
            while i < n:
                rg = dg[lo + i]
                if rg != 0:
                    results_dcg += rg / math.log2(i + 2.0)
                i += 1
            if ideal_dcg > 0.0:
                s += results_dcg / ideal_dcg
                num_changed += 1
        while ideal_gain > 0.0:
            cur, num_at, ideal_gain = _next_ideal(ent_cnt, ent_gain, base, cur, num_at)
            if old_ideal_gain != ideal_gain:
                if ideal_dcg > 0.0:
                    s += results_dcg / ideal_dcg
                    num_changed += 1
                old_ideal_gain = ideal_gain
            if ideal_gain > 0.0:
                ideal_dcg += ideal_gain / math.log2(i + 2.0)
            i += 1
        out[q, 0] = _div(s, float(num_changed))


@njit(cache=True, error_model="numpy", parallel=True)
def _binG_kernel(rels, offsets, num_rel, level, out):
    for q in prange(offsets.shape[0] - 1):
        lo = offsets[q]
        n = offsets[q + 1] - lo
        rel_so_far = 0
        s = 0.0
        for i in range(n):
            if rels[lo + i] >= level:
                rel_so_far += 1
                s += 1.0 / math.log2(float(3 + i - rel_so_far))
        out[q, 0] = _div(s, float(num_rel[q])) if rel_so_far else 0.0


@njit(cache=True, error_model="numpy", parallel=True)
def _yaap_kernel(rels, offsets, num_rel, level, out):
    for q in prange(offsets.shape[0] - 1):
        lo = offsets[q]
        n = offsets[q + 1] - lo
        rel_so_far = 0
        s = 0.0
        for i in range(n):
            if rels[lo + i] >= level:
                rel_so_far += 1
                s += float(rel_so_far) / float(i + 1)
        out[q, 0] = _log(_div(1.0 + s, 1.0 + float(num_rel[q]) - s))


@njit(cache=True, error_model="numpy", parallel=True)
def _relstring_kernel(rels, offsets, length, chars, lens):
    for q in prange(offsets.shape[0] - 1):
        lo = offsets[q]
        n = offsets[q + 1] - lo
        m = min(length, n)
        for i in range(m):
            r = rels[lo + i]
            if r > 9:
                c = 62    # '>'
            elif r >= 0:
                c = 48 + r
            elif r == -1:
                c = 45    # '-'
            elif r == -2:
                c = 46    # '.'
            else:
                c = 60    # '<'
            chars[q, i] = c
        lens[q] = m


@njit(cache=True, error_model="numpy", parallel=True)
def _rbp_kernel(offsets, dg, p, out):
    for q in prange(offsets.shape[0] - 1):
        lo = offsets[q]
        n = offsets[q + 1] - lo
        s = 0.0
        cur_p = 1.0
        for i in range(n):
            g = dg[lo + i]
            if g != 0:
                s += g * cur_p
            cur_p = cur_p * p
        out[q, 0] = (1.0 - p) * s


@njit(cache=True, error_model="numpy", parallel=True)
def _rbp_resid_kernel(rels, offsets, p, out):
    for q in prange(offsets.shape[0] - 1):
        lo = offsets[q]
        n = offsets[q + 1] - lo
        unj = 0
        s = 0.0
        cur_p = 1.0
        for i in range(n):
            if rels[lo + i] < 0:
                unj += 1
                s += cur_p
            cur_p = cur_p * p
        out[q, 0] = cur_p + (1 - p) * s if unj else 0.0


@njit(cache=True, error_model="numpy", parallel=True)
def _unj_kernel(rels, offsets, cuts, out):
    nc = cuts.shape[0]
    for q in prange(offsets.shape[0] - 1):
        lo = offsets[q]
        n = offsets[q + 1] - lo
        ci = 0
        unj = 0
        for i in range(n):
            if i == cuts[ci]:
                out[q, ci] = float(unj) / float(i)
                ci += 1
                if ci == nc:
                    break
            if rels[lo + i] == -1 or rels[lo + i] == -2:
                unj += 1
        while ci < nc:
            out[q, ci] = float(unj) / float(cuts[ci])
            ci += 1
