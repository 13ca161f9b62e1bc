"""trec_eval's measures on flat arrays (trec_eval 9.0.8, ``m_*.c``).

Input is what trec_eval's ``form_res_rels`` makes of a topic: the relevance
of each retrieved document in rank order (``rels``; -1 for a document absent
from the qrels, -2 for one judged with a negative relevance, which trec_eval
keeps in the pool as unjudged), query offsets, and per query the relevances
of all its judgments (``judged`` with ``judged_offsets``, any order). The
ranking itself (score, then document id, both descending; ``-M``) is made by
:mod:`evalrank.evaluation`.

With relevance level ``l`` (``-l``, default 1) a document is relevant when
its relevance is ``>= l``; ``R`` is the number of relevant judgments.

=============  ============================================================
``num_ret``    documents retrieved; ``num_rel`` R; ``num_rel_ret`` relevant retrieved
``map``        sum over relevant retrieved ranks i of (relevant in top i) / i, over R
``map_cut_k``  the same over the top k
``P_k``        relevant in the top k / k (missing ranks count as non-relevant)
``recall_k``   relevant in the top k / R (0 when R = 0)
``recip_rank`` 1 / rank of the first relevant document (0 if none)
``Rprec``      relevant in the top R / R
``success_k``  1 if a relevant document is in the top k
``ndcg``       DCG of the whole list with gain = relevance (gains > 0 only)
               and discount 1/log2(i+1), over the ideal DCG of all the
               topic's positive judgments (``m_ndcg.c``)
``ndcg_cut_k`` DCG@k over the ideal DCG@k (``m_ndcg_cut.c``; the ideal is not
               truncated by the list's length)
=============  ============================================================

NDCG's gains ignore ``-l``: every positive relevance is a gain, as in
trec_eval. A topic with no positive judgment scores 0 on every measure.
"""

from __future__ import annotations

import math

import numpy as np

from evalrank import _jit
from evalrank._jit import njit, prange

__all__ = ["trec_measures", "ideal_gains"]


def ideal_gains(judged: np.ndarray, judged_offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per query, the positive relevances of its judgments sorted in decreasing order (flat
    + offsets): trec_eval's ideal ranking."""
    judged = np.asarray(judged, dtype=np.int64)
    judged_offsets = np.asarray(judged_offsets, dtype=np.int64)
    nq = judged_offsets.size - 1
    seg = np.repeat(np.arange(nq), np.diff(judged_offsets))
    keep = judged > 0
    g, s = judged[keep], seg[keep]
    sizes = np.bincount(s, minlength=nq)
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    top = int(g.max(initial=0))
    if nq * (top + 1) < 2 ** 62:   # one sort of one key: topic, then gain decreasing
        key = np.sort(s * (top + 1) + (top - g))
        return top - key % (top + 1), offsets
    return g[np.lexsort((-g, s))], offsets


@njit(cache=True, inline="always")
def _topic_ideal(judged, jl, jh, level):
    """(R: the judgments ``judged[jl:jh]`` at or above ``level`` -- and not negative, whatever
    the level: trec_eval's num_rel counts its rel_levels, grades from 0 --, the positive ones
    ascending: the ideal ranking read from the end)."""
    R = 0
    npos = 0
    for p in range(jl, jh):
        g = judged[p]
        if g >= level and g >= 0:
            R += 1
        if g > 0:
            npos += 1
    pos = np.empty(npos, dtype=np.int64)
    k = 0
    for p in range(jl, jh):
        g = judged[p]
        if g > 0:
            if npos > 64:
                pos[k] = g
            else:   # few: an insertion sort
                i = k
                while i > 0 and pos[i - 1] > g:
                    pos[i] = pos[i - 1]
                    i -= 1
                pos[i] = g
            k += 1
    if npos > 64:
        pos.sort()
    return R, pos


@njit(cache=True, parallel=True)
def _kernel(rels, offsets, judged, judged_offsets, level, ks, out_scalar, out_cut):
    """``out_scalar[q]``: num_ret, num_rel, num_rel_ret, map, Rprec, recip_rank, ndcg;
    ``out_cut[q, c, j]`` at cut-off ``ks[j]``: c = P, recall, ndcg_cut, map_cut, success.
    R and the ideal ranking (the positive judgments, decreasing) come from ``judged``."""
    nq = offsets.shape[0] - 1
    nk = ks.shape[0]
    longest = 0
    for q in range(nq):
        longest = max(longest, offsets[q + 1] - offsets[q], judged_offsets[q + 1] - judged_offsets[q])
    lg = np.empty(longest, dtype=np.float64)   # log2(rank + 1): each computed once, divided by as before
    for i in range(longest):
        lg[i] = math.log2(i + 2.0)
    for q in prange(nq):
        lo = offsets[q]
        n = offsets[q + 1] - lo
        R, ideal = _topic_ideal(judged, judged_offsets[q], judged_offsets[q + 1], level)
        ni = ideal.shape[0]
        rel_so_far = 0
        rel_ret = 0   # num_rel_ret: judged (>= 0) at or above the level; rel_so_far counts the list's
        ap = 0.0      # values at or above it, an unjudged -1 / -2 too below level 0 (m_map.c ...)
        rr = 0.0
        rprec_hits = 0
        dcg = 0.0
        # running values at each cut-off: filled when rank i reaches ks[j]
        j = 0
        ap_at = 0.0
        for i in range(n):
            while j < nk and ks[j] == i:
                out_cut[q, 0, j] = rel_so_far / ks[j]
                out_cut[q, 1, j] = rel_so_far / R if R > 0 else 0.0
                out_cut[q, 2, j] = dcg
                out_cut[q, 3, j] = ap_at / R if R > 0 else 0.0
                out_cut[q, 4, j] = 1.0 if rel_so_far > 0 else 0.0
                j += 1
            r = rels[lo + i]
            if r > 0:
                dcg += r / lg[i]
            if r >= level:
                rel_so_far += 1
                if r >= 0:
                    rel_ret += 1
                ap_at += rel_so_far / (i + 1.0)
                if rr == 0.0:
                    rr = 1.0 / (i + 1.0)
                if i < R:
                    rprec_hits += 1
        while j < nk:
            out_cut[q, 0, j] = rel_so_far / ks[j]
            out_cut[q, 1, j] = rel_so_far / R if R > 0 else 0.0
            out_cut[q, 2, j] = dcg
            out_cut[q, 3, j] = ap_at / R if R > 0 else 0.0
            out_cut[q, 4, j] = 1.0 if rel_so_far > 0 else 0.0
            j += 1
        ap = ap_at / R if R > 0 else 0.0
        # ideal DCG at each cut-off (not truncated by the list), normalising ndcg_cut
        idcg = 0.0
        j = 0
        for i in range(ni):
            while j < nk and ks[j] == i:
                out_cut[q, 2, j] = out_cut[q, 2, j] / idcg if idcg > 0 else 0.0
                j += 1
            idcg += np.float64(ideal[ni - 1 - i]) / lg[i]
        while j < nk:
            out_cut[q, 2, j] = out_cut[q, 2, j] / idcg if idcg > 0 else 0.0
            j += 1
        out_scalar[q, 0] = n
        out_scalar[q, 1] = R
        out_scalar[q, 2] = rel_ret
        out_scalar[q, 3] = ap
        out_scalar[q, 4] = rprec_hits / R if (R > 0 and n > 0) else 0.0
        out_scalar[q, 5] = rr
        out_scalar[q, 6] = dcg / idcg if idcg > 0 else 0.0


SCALARS = ("num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "recip_rank", "ndcg")
CUT = ("P", "recall", "ndcg_cut", "map_cut", "success")


def trec_measures(rels, offsets, judged, judged_offsets, *, cutoffs=(), relevance_level: int = 1) -> dict:
    """Every measure of the module docstring per query: ``{name: (n_queries,) float64}`` with
    names ``num_ret``, ``map``, ... and ``P_k``, ``recall_k``, ``ndcg_cut_k``, ``map_cut_k``,
    ``success_k`` for each ``k`` of ``cutoffs``.

    ``rels``: relevance per retrieved document in rank order (int; -1 not in the qrels, -2
    judged negative); ``judged``: every judgment's relevance per query (the same queries).
    """
    rels = np.ascontiguousarray(rels, dtype=np.int64)
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    judged = np.ascontiguousarray(judged, dtype=np.int64)
    judged_offsets = np.ascontiguousarray(judged_offsets, dtype=np.int64)
    _jit.need(rels.size * _jit.LINE_BYTES)
    if offsets.ndim != 1 or offsets.size < 1 or judged_offsets.shape != offsets.shape:
        raise ValueError("offsets and judged_offsets must be 1-d with one entry per query + 1")
    if not isinstance(relevance_level, (int, np.integer)) or isinstance(relevance_level, bool):
        raise TypeError(f"relevance_level must be an integer, got {relevance_level!r}")
    ks = np.array(sorted(set(int(k) for k in cutoffs)), dtype=np.int64)
    if ks.size and ks[0] < 1:
        raise ValueError(f"cutoffs must be positive, got {list(cutoffs)}")
    nq = offsets.size - 1
    out_scalar = np.zeros((nq, len(SCALARS)))
    out_cut = np.zeros((nq, len(CUT), ks.size))
    _kernel(rels, offsets, judged, judged_offsets, int(relevance_level), ks, out_scalar, out_cut)
    res = {name: out_scalar[:, i] for i, name in enumerate(SCALARS)}
    for c, name in enumerate(CUT):
        for j, k in enumerate(ks.tolist()):
            res[f"{name}_{k}"] = out_cut[:, c, j]
    return res


# ---------------------------------------------------------------------------
# the rest of trec_eval 9.0.8's measures: one kernel per family (m_<family>.c)
# ---------------------------------------------------------------------------
INFAP_EPSILON = 0.00001        # trec_eval.h
#: what C's 0.0 / 0.0 gives on x86-64 and trec_eval prints as "-nan" (a topic that -J leaves empty)
MINUS_NAN = float(np.copysign(np.nan, -1.0))


def rel_levels(judged: np.ndarray, judged_offsets: np.ndarray) -> np.ndarray:
    """trec_eval's ``rel_levels`` per query (``form_res_rels.c``): ``out[q, g]`` = number of the
    topic's judgments with relevance ``g`` (``g >= 0``; negative judgments are not counted)."""
    judged = np.asarray(judged, dtype=np.int64)
    nq = len(judged_offsets) - 1
    seg = np.repeat(np.arange(nq), np.diff(judged_offsets))
    keep = judged >= 0
    width = int(judged[keep].max(initial=0)) + 1
    out = np.zeros((nq, width), dtype=np.int64)
    np.add.at(out, (seg[keep], judged[keep]), 1)
    return out


@njit(cache=True, inline="always")
def _counts(levels, q, level):
    """(num_rel, judged non-relevant) of topic ``q`` from its rel_levels."""
    R = 0
    nonrel = 0
    for g in range(levels.shape[1]):
        if g >= level:
            R += levels[q, g]
        else:
            nonrel += levels[q, g]
    return R, nonrel


@njit(cache=True, inline="always")
def _rel_ret(rels, lo, n, level):
    """trec_eval's num_rel_ret: judged (>= 0) documents at or above the level."""
    c = 0
    for i in range(n):
        r = rels[lo + i]
        if r >= 0 and r >= level:
            c += 1
    return c


@njit(cache=True, parallel=True)
def _bpref_infap(rels, offsets, levels, level, out):
    """``out[q, 0]`` bpref (``m_bpref.c``), ``out[q, 1]`` infAP (``m_infap.c``), ``out[q, 2]``
    num_nonrel_judged_ret (``m_num_nonrel_judged_ret.c``)."""
    for q in prange(offsets.shape[0] - 1):
        lo = offsets[q]
        n = offsets[q + 1] - lo
        R, num_nonrel = _counts(levels, q, level)
        nonrel = 0
        rel = 0
        unjudged = 0
        bpref = 0.0
        inf = 0.0
        for j in range(n):
            r = rels[lo + j]
            if r == -1:
                continue
            if r == -2:
                unjudged += 1
                continue
            if r >= 0 and r < level:
                nonrel += 1
            else:
                rel += 1
                if nonrel > 0:
                    bpref += 1.0 - min(nonrel, R) / min(num_nonrel, R)
                else:
                    bpref += 1.0
                if j == 0:
                    inf += 1.0
                else:
                    fj = float(j)
                    inf += 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * ((rel - 1 + nonrel + unjudged) / fj) * \
                        ((rel - 1 + INFAP_EPSILON) / (rel - 1 + nonrel + 2 * INFAP_EPSILON))
        if R:
            bpref /= R
            inf /= R
        out[q, 0] = bpref
        out[q, 1] = inf
        out[q, 2] = nonrel


@njit(cache=True, inline="always")
def _rank_cuts(fracs, R):
    """trec_eval's ``(long) (f * num_rel + 0.9)`` for each fraction: a recall point or a
    multiple of R as a number of documents."""
    cuts = np.empty(fracs.shape[0], dtype=np.int64)
    for c in range(fracs.shape[0]):
        cuts[c] = np.int64(fracs[c] * R + 0.9)
    return cuts


@njit(cache=True, parallel=True)
def _interpolated(rels, offsets, levels, level, fracs, average, out):
    """Interpolated precision at recall ``fracs`` (``m_iprec_at_recall.c``): ``out[q, c]``; with
    ``average``, their mean in ``out[q, 0]`` (``m_11pt_avg.c``, ``fracs`` in the order given).
    Int_Prec(rank X) = max Prec(rank Y) over Y >= X; a fraction f stands for int(f R + 0.9)
    relevant documents."""
    m = fracs.shape[0]
    for q in prange(offsets.shape[0] - 1):
        lo = offsets[q]
        n = offsets[q + 1] - lo
        R, _ = _counts(levels, q, level)
        rel_ret = _rel_ret(rels, lo, n, level)
        cuts = _rank_cuts(fracs, R)
        cur = m - 1
        while cur >= 0 and cuts[cur] > rel_ret:
            cur -= 1
        precis = rel_ret / n if n > 0 else MINUS_NAN
        ip = precis
        so_far = rel_ret
        total = 0.0
        i = n
        while i > 0 and so_far > 0:
            precis = so_far / i
            if ip < precis:
                ip = precis
            if rels[lo + i - 1] >= level:
                while cur >= 0 and so_far == cuts[cur]:
                    if average:
                        total += ip
                    else:
                        out[q, cur] = ip
                    cur -= 1
                so_far -= 1
            i -= 1
        while cur >= 0:
            if average:
                total += ip
            else:
                out[q, cur] = ip
            cur -= 1
        if average:
            out[q, 0] = total / m


@njit(cache=True, parallel=True)
def _rprec_mult(rels, offsets, levels, level, fracs, out):
    """Precision at multiples ``fracs`` of R (``m_Rprec_mult.c``): rank int(f R + 0.9)."""
    m = fracs.shape[0]
    for q in prange(offsets.shape[0] - 1):
        lo = offsets[q]
        n = offsets[q + 1] - lo
        R, _ = _counts(levels, q, level)
        rel_ret = _rel_ret(rels, lo, n, level)
        cuts = _rank_cuts(fracs, R)
        cur = m - 1
        while cur >= 0 and cuts[cur] > n:
            out[q, cur] = rel_ret / cuts[cur]
            cur -= 1
        so_far = rel_ret
        i = n
        while i > 0 and so_far > 0:
            precis = so_far / i
            while cur >= 0 and i == cuts[cur]:
                out[q, cur] = precis
                cur -= 1
            if rels[lo + i - 1] >= level:
                so_far -= 1
            i -= 1


@njit(cache=True, parallel=True)
def _relative_p(rels, offsets, levels, level, ks, out):
    """Relevant in the top k over min(k, R) (``m_rel_P.c``); 0 for a topic with R = 0."""
    m = ks.shape[0]
    for q in prange(offsets.shape[0] - 1):
        lo = offsets[q]
        n = offsets[q + 1] - lo
        R, _ = _counts(levels, q, level)
        if R == 0:
            continue
        c = 0
        so_far = 0
        for i in range(n):
            if i == ks[c]:
                out[q, c] = so_far / (R if i > R else i)
                c += 1
                if c == m:
                    break
            if rels[lo + i] >= level:
                so_far += 1
        while c < m:
            i = ks[c]
            out[q, c] = so_far / (R if i > R else i)
            c += 1


@njit(cache=True, parallel=True)
def _set_measures(rels, offsets, levels, level, beta, coef, num_docs, out):
    """The unranked measures of the retrieved set (``m_set_*.c``, ``m_utility.c``): ``out[q]``
    = set_P, set_relative_P, set_recall, set_map, set_F (beta), utility (coef)."""
    for q in prange(offsets.shape[0] - 1):
        lo = offsets[q]
        n = offsets[q + 1] - lo
        R, _ = _counts(levels, q, level)
        a = _rel_ret(rels, lo, n, level)
        if n:
            out[q, 0] = a / n
        if n and R:
            out[q, 1] = a / min(n, R)
            out[q, 3] = (float(a) * float(a)) / (float(n) * float(R))
        if R:
            out[q, 2] = a / R
        if a:
            P = a / n
            Rc = a / R
            out[q, 4] = (beta + 1.0) * P * Rc / (beta * P + Rc)
        # num_docs + (a - n - R): a <= n, so a -N up to a C long's largest stays one (an exact long, as in C)
        out[q, 5] = coef[0] * a + coef[1] * (n - a) + coef[2] * (R - a) + coef[3] * (num_docs + (a - n - R))


_SET = ("set_P", "set_relative_P", "set_recall", "set_map", "set_F", "utility")
#: the families computed by the first kernel (``trec_measures``)
KERNEL_FAMILIES = frozenset(SCALARS) | frozenset(CUT) | {"num_q"}
#: the gain-based families (:mod:`evalrank.metrics.trec_gain`; ``ndcg`` there with per-level gains)
GAIN_FAMILIES = frozenset({"G", "binG", "ndcg", "ndcg_rel", "Rndcg", "yaap", "relstring", "rbp", "rbp_resid",
                           "unj"})


def family_values(measure, rels, offsets, levels, *, relevance_level: int = 1, num_docs: int = 0,
                  map_values=None) -> np.ndarray:
    """One trec_eval measure (a :class:`evalrank.metrics.names.TrecMeasure` outside
    :data:`KERNEL_FAMILIES`, gain-based ones excepted) per query: ``(n_queries, columns)``.

    ``rels`` / ``offsets`` as for :func:`trec_measures`; ``levels`` from :func:`rel_levels`;
    ``num_docs`` is ``-N``. ``gm_map`` and ``gm_bpref`` are ``map`` and ``bpref`` per query
    (their geometric mean is taken over topics); ``map_values`` passes ``map`` in when known.
    """
    name = measure.name
    rels = np.ascontiguousarray(rels, dtype=np.int64)
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    levels = np.ascontiguousarray(levels, dtype=np.int64)
    nq = offsets.size - 1
    level = int(relevance_level)
    params = measure.cutoffs
    if name in ("bpref", "gm_bpref", "infAP", "num_nonrel_judged_ret"):
        out = np.zeros((nq, 3))
        _bpref_infap(rels, offsets, levels, level, out)
        col = {"bpref": 0, "gm_bpref": 0, "infAP": 1, "num_nonrel_judged_ret": 2}[name]
        return out[:, col:col + 1].copy()
    if name == "gm_map":
        if map_values is None:
            raise ValueError("gm_map: pass map_values (trec_measures' 'map')")
        return np.asarray(map_values, dtype=np.float64).reshape(nq, 1)
    if name in ("iprec_at_recall", "11pt_avg"):
        fracs = np.asarray(params, dtype=np.float64)
        if fracs.size == 0:
            raise ValueError(f"measure {measure}: no recall points")
        average = name == "11pt_avg"
        out = np.zeros((nq, 1 if average else fracs.size))
        _interpolated(rels, offsets, levels, level, fracs, average, out)
        return out
    if name == "Rprec_mult":
        out = np.zeros((nq, len(params)))
        _rprec_mult(rels, offsets, levels, level, np.asarray(params, dtype=np.float64), out)
        return out
    if name == "relative_P":
        out = np.zeros((nq, len(params)))
        _relative_p(rels, offsets, levels, level, np.asarray(params, dtype=np.int64), out)
        return out
    if name in _SET:
        beta = float(params[0]) if name == "set_F" else 1.0
        coef = np.asarray(params if name == "utility" else (1.0, -1.0, 0.0, 0.0), dtype=np.float64)
        if coef.size != 4:
            raise ValueError(f"measure {measure}: utility takes 4 coefficients (retrieved relevant, retrieved "
                             f"non-relevant, missed relevant, missed non-relevant), got {coef.size}")
        out = np.zeros((nq, len(_SET)))
        _set_measures(rels, offsets, levels, level, beta, coef, int(num_docs), out)
        j = _SET.index(name)
        return out[:, j:j + 1].copy()
    raise ValueError(f"measure {measure}: not a family of family_values")


# ---------------------------------------------------------------------------
# ir_measures' Judged@k (no trec_eval measure)
# ---------------------------------------------------------------------------
@njit(cache=True, parallel=True)
def _judged_kernel(rels, offsets, k, out):
    for q in prange(offsets.shape[0] - 1):
        lo = offsets[q]
        n = offsets[q + 1] - lo
        m = n if (k <= 0 or k > n) else k
        c = 0
        for i in range(m):
            if rels[lo + i] != -1:
                c += 1
        out[q] = c / m if m > 0 else 0.0


def judged_at(rels, offsets, k: int | None = None) -> np.ndarray:
    """ir_measures' ``Judged@k`` per query: the fraction of the top ``k`` documents (``None``: all)
    that the qrels list, a negative judgment (-2) included; over the list's length when it is
    shorter than ``k`` (as ir_measures' judged provider divides), 0 for an empty list.
    ``rels``/``offsets`` as for :func:`trec_measures`."""
    rels = np.ascontiguousarray(rels, dtype=np.int64)
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    out = np.zeros(offsets.size - 1)
    _judged_kernel(rels, offsets, 0 if k is None else int(k), out)
    return out
