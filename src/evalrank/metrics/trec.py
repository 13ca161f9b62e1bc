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

import numba
import numpy as np

__all__ = ["trec_measures", "ideal_gains"]


def ideal_gains(judged: np.ndarray, judged_offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per query, the positive relevances of its judgments sorted in decreasing order (flat
    + offsets): trec_eval's ideal ranking."""
    judged = np.asarray(judged, dtype=np.int64)
    judged_offsets = np.asarray(judged_offsets, dtype=np.int64)
    seg = np.repeat(np.arange(judged_offsets.size - 1), np.diff(judged_offsets))
    keep = judged > 0
    g, s = judged[keep], seg[keep]
    order = np.lexsort((-g, s))
    sizes = np.bincount(s, minlength=judged_offsets.size - 1)
    return g[order], np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)


@numba.njit(cache=True, parallel=True)
def _kernel(rels, offsets, num_rel, ideal, ideal_off, level, ks, out_scalar, out_cut):
    """``out_scalar[q]``: num_ret, num_rel, num_rel_ret, map, Rprec, recip_rank, ndcg;
    ``out_cut[q, c, j]`` at cut-off ``ks[j]``: c = P, recall, ndcg_cut, map_cut, success."""
    nq = offsets.shape[0] - 1
    nk = ks.shape[0]
    for q in numba.prange(nq):
        lo = offsets[q]
        n = offsets[q + 1] - lo
        R = num_rel[q]
        il = ideal_off[q]
        ni = ideal_off[q + 1] - il
        rel_so_far = 0
        ap = 0.0
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
                dcg += r / np.log2(i + 2.0)
            if r >= level:
                rel_so_far += 1
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
            idcg += ideal[il + i] / np.log2(i + 2.0)
        while j < nk:
            out_cut[q, 2, j] = out_cut[q, 2, j] / idcg if idcg > 0 else 0.0
            j += 1
        out_scalar[q, 0] = n
        out_scalar[q, 1] = R
        out_scalar[q, 2] = rel_so_far
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
    if offsets.ndim != 1 or offsets.size < 1 or judged_offsets.shape != offsets.shape:
        raise ValueError("offsets and judged_offsets must be 1-d with one entry per query + 1")
    if not isinstance(relevance_level, (int, np.integer)) or isinstance(relevance_level, bool):
        raise TypeError(f"relevance_level must be an integer, got {relevance_level!r}")
    ks = np.array(sorted(set(int(k) for k in cutoffs)), dtype=np.int64)
    if ks.size and ks[0] < 1:
        raise ValueError(f"cutoffs must be positive, got {list(cutoffs)}")
    nq = offsets.size - 1
    seg = np.repeat(np.arange(nq), np.diff(judged_offsets))
    num_rel = np.bincount(seg, weights=(judged >= relevance_level), minlength=nq).astype(np.int64)
    ideal, ideal_off = ideal_gains(judged, judged_offsets)
    out_scalar = np.zeros((nq, len(SCALARS)))
    out_cut = np.zeros((nq, len(CUT), ks.size))
    _kernel(rels, offsets, num_rel, ideal.astype(np.float64), ideal_off, int(relevance_level), ks, out_scalar,
            out_cut)
    res = {name: out_scalar[:, i] for i, name in enumerate(SCALARS)}
    for c, name in enumerate(CUT):
        for j, k in enumerate(ks.tolist()):
            res[f"{name}_{k}"] = out_cut[:, c, j]
    return res
