"""Sorting documents within queries: the shared first step of every measure.

Tied scores are where NDCG tools disagree silently (Busa-Fekete et al. 2012,
Sec. 3: "the order of two elements with the same score depends on the
implementation of the sorting algorithm"), so the tie rule is an explicit
option everywhere:

``"stable"``
    input order (a stable sort: LightGBM, Python's ``sorted``, Perl's sort).
``"pessimistic"`` / ``"optimistic"``
    tied documents worst-first / best-first by label: the lower / upper
    bound over all tie orders.
``"docid"``
    by document id as byte strings (C ``strcmp``), the direction given by
    ``docid_order`` ("descending" is trec_eval's rule, checked against
    pytrec_eval in ``tests/papers/busafekete2012/test_peers.py``).
``"average"``
    not an order but an expectation over all orders of each tie group; see
    :func:`tie_groups` (used by :func:`evalrank.metrics.dcg.dcg`).
"""

from __future__ import annotations

import numba
import numpy as np

from evalrank.data.collection import segment_ids

__all__ = ["TIES", "tie_key", "check_doc_ids", "docid_key", "id_rows", "rank_order", "topk_rows", "equal_length", "descending_rows",
           "positions", "position_ids", "tie_groups", "round_scores"]

TIES = ("stable", "pessimistic", "optimistic", "docid", "average")


def round_scores(scores: np.ndarray, precision: str | None) -> np.ndarray:
    """Scores as the tool sees them: ``None`` keeps float64, ``"float32"``
    rounds to single precision first (XGBoost stores margins as float32, so
    scores closer than its resolution tie there; a score beyond float32's range, |x| > 3.4028235e38,
    becomes +-inf, as a C float holds it, without NumPy's overflow warning)."""
    if precision is None or precision == "float64":
        return scores
    if precision == "float32":
        with np.errstate(over="ignore"):
            return scores.astype(np.float32).astype(np.float64)
    raise ValueError(f"precision must be None, 'float64' or 'float32', got {precision!r}")


def check_doc_ids(doc_ids, n: int, docid_order: str = "descending") -> np.ndarray:
    """The ids of ``ties="docid"``, checked: one per document, strings (integers become their
    decimal strings, as trec_eval compares ids as strings), and a valid ``docid_order``."""
    if doc_ids is None:
        raise ValueError("ties='docid' needs doc_ids (one id per document)")
    ids = np.asarray(doc_ids)
    if ids.shape != (n,):
        raise ValueError(f"doc_ids must have shape ({n},), got {ids.shape}")
    if ids.dtype.kind in "iu":
        ids = ids.astype(str)  # trec_eval compares ids as strings
    elif ids.dtype.kind not in "US" and ids.dtype != object:
        raise TypeError(f"doc_ids must be strings or integers, got dtype {ids.dtype}")
    if docid_order not in ("ascending", "descending"):
        raise ValueError(f"docid_order must be 'ascending' or 'descending', got {docid_order!r}")
    return ids


def docid_key(ids: np.ndarray, docid_order: str) -> np.ndarray:
    """Tie key of checked ids (:func:`check_doc_ids`): their rank among all ``ids`` in C
    ``strcmp`` order (np.unique sorts str by code point == strcmp order on UTF-8/ASCII bytes),
    negated for "descending"."""
    _, codes = np.unique(ids.astype(str), return_inverse=True)
    codes = codes.ravel().astype(np.float64)
    return -codes if docid_order == "descending" else codes


def id_rows(ids: np.ndarray) -> np.ndarray:
    """Checked ids (:func:`check_doc_ids`) as a 2-d unsigned array whose rows compare
    lexicographically in C ``strcmp`` order: a ``str`` array's code points (a view, no copy;
    code-point order is UTF-8 byte order), a ``bytes`` array's bytes, both zero-padded -- a
    shorter id is a prefix padded with NULs, so it sorts first, as ``strcmp`` has it. The top-k
    kernel compares two rows only where two scores tie: no sort of all the ids."""
    if ids.dtype == object:
        ids = ids.astype(str)
    if ids.dtype.kind == "U":
        width = ids.dtype.itemsize // 4
        return np.ascontiguousarray(ids).view(np.uint32).reshape(ids.shape[0], width)
    width = ids.dtype.itemsize
    return np.ascontiguousarray(ids).view(np.uint8).reshape(ids.shape[0], width)


def tie_key(ties: str, n: int, *, labels=None, doc_ids=None, docid_order: str = "descending"):
    """Secondary sort key among tied scores, smaller first: float64 ``(n,)``,
    or ``None`` where ties keep the input order ("stable"; "average", whose
    averaging happens in the measure). The one place the tie rules of the
    module docstring become numbers, for :func:`rank_order` and the top-k
    kernel of :mod:`evalrank.metrics.dcg` (which, for "docid", calls its two
    steps :func:`check_doc_ids` and :func:`docid_key` itself, so as to rank
    only the queries whose top k met tied scores)."""
    if ties in ("stable", "average"):
        return None
    if ties in ("pessimistic", "optimistic"):
        if labels is None:
            raise ValueError(f"ties={ties!r} needs the labels")
        lab = np.asarray(labels, dtype=np.float64)
        return lab if ties == "pessimistic" else -lab
    if ties == "docid":
        return docid_key(check_doc_ids(doc_ids, n, docid_order), docid_order)
    raise ValueError(f"ties must be one of {TIES}, got {ties!r}")


def rank_order(scores: np.ndarray, offsets: np.ndarray, *, ties: str = "stable", labels=None,
               doc_ids=None, docid_order: str = "descending") -> np.ndarray:
    """Row permutation listing each query's documents by descending score.

    Queries stay in their order. ``ties`` orders tied scores (module
    docstring; ``"average"`` sorts like ``"stable"``: the averaging happens in
    the measure). ``labels`` is needed for pessimistic/optimistic, ``doc_ids``
    for docid. Returns int64 indices of length ``n_docs``. One ``lexsort`` of
    the whole pool, no per-query loop.
    """
    scores = np.asarray(scores)
    seg = segment_ids(offsets)
    key = tie_key(ties, scores.shape[0], labels=labels, doc_ids=doc_ids, docid_order=docid_order)
    # lexsort is stable and its last key is primary -> (query, -score, tie key, input position)
    if key is None:
        L = equal_length(offsets)
        if L:
            # equal-length queries (one long list, or R samples of n): a row-wise
            # stable order is the same permutation, without the two-key lexsort
            offsets = np.asarray(offsets, dtype=np.int64)
            order = descending_rows(scores.reshape(offsets.size - 1, L))
            return (order + offsets[:-1, None]).ravel()
        return np.lexsort((-scores, seg))
    return np.lexsort((key, -scores, seg))


def equal_length(offsets) -> int | None:
    """The common length of the queries when all have the same, non-zero
    length (one long list, R samples of n): the case the row-wise paths take."""
    sizes = np.diff(np.asarray(offsets))
    if sizes.size and sizes[0] > 0 and sizes.min() == sizes.max():
        return int(sizes[0])
    return None


def descending_rows(scores: np.ndarray) -> np.ndarray:
    """Per row of a 2-d array, the column order by descending score with ties
    in column order -- ``np.argsort(-scores, axis=1, kind="stable")``. Rows
    without tied scores have one such order, which the faster unstable sort
    finds too; only rows with ties are sorted again stably."""
    neg = -np.asarray(scores, dtype=np.float64)
    order = np.argsort(neg, axis=1)
    # a row has ties iff its sorted scores have equal neighbours; sorting the values again is
    # cheaper than gathering them through ``order`` (a random gather: 3x the time at 10^6 columns)
    s = np.sort(neg, axis=1)
    tied = np.flatnonzero((s[:, 1:] == s[:, :-1]).any(axis=1))
    if tied.size:
        order[tied] = np.argsort(neg[tied], axis=1, kind="stable")
    return order


def positions(offsets: np.ndarray) -> np.ndarray:
    """0-based rank position of each row of a query-sorted array."""
    n = int(offsets[-1])
    seg = segment_ids(offsets)
    return np.arange(n, dtype=np.int64) - offsets[:-1][seg]


def position_ids(offsets: np.ndarray) -> np.ndarray:
    """Document ids from the row within the query, zero-padded so that
    strcmp order is row order (for ``ties="docid"`` on data without ids)."""
    sizes = np.diff(offsets)
    width = len(str(max(int(sizes.max(initial=1)) - 1, 0)))
    return np.char.zfill(positions(offsets).astype(str), width)


def tie_groups(sorted_scores: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Group id of each row of a query-sorted array: rows of one query with
    equal scores share a group; ids count up from 0 in row order."""
    n = sorted_scores.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    new = np.empty(n, dtype=bool)
    new[0] = True
    new[1:] = sorted_scores[1:] != sorted_scores[:-1]
    starts = offsets[:-1][np.diff(offsets) > 0]
    new[starts] = True
    return np.cumsum(new) - 1


#: cut-offs up to this rank by a per-query top-k selection instead of a sort
TOPK_MAX = 64


@numba.njit(inline="always")
def _before(s_a, t_a, i_a, s_b, t_b, i_b, ids, sign):
    """Does document a rank before b: higher score, then smaller tie key, then (where ``ids``
    has columns) the id rows compared lexicographically, ``sign`` -1 for descending ids, then
    smaller index."""
    if s_a != s_b:
        return s_a > s_b
    if t_a != t_b:
        return t_a < t_b
    for c in range(ids.shape[1]):
        x = ids[i_a, c]
        y = ids[i_b, c]
        if x != y:
            return (x < y) if sign > 0 else (x > y)
    return i_a < i_b


@numba.njit(parallel=True, cache=True)
def _topk(scores, tiekey, ids, sign, offsets, k, out_off, out):
    """Per query, the rows of its top ``k`` in rank order, by a top-k selection (insertion
    into a sorted buffer of k entries): O(n + k log-ish) per query instead of a sort.

    Equal scores are ordered by ``tiekey``, then by the rows of ``ids`` (:func:`id_rows`; zero
    columns where ids play no part), then by input position: the ids are compared only where
    two scores tie, which is what makes trec_eval's rule cheap."""
    nq = offsets.shape[0] - 1
    for q in numba.prange(nq):
        lo = offsets[q]
        n = offsets[q + 1] - lo
        m = min(k, n)
        if m == 0:
            continue
        buf = out[out_off[q]:out_off[q] + m]
        filled = 0
        for i in range(lo, lo + n):
            if filled == m:
                w = buf[m - 1]
                if not _before(scores[i], tiekey[i], i, scores[w], tiekey[w], w, ids, sign):
                    continue
                pos = m - 1
            else:
                pos = filled
                filled += 1
            while pos > 0:
                p = buf[pos - 1]
                if _before(scores[i], tiekey[i], i, scores[p], tiekey[p], p, ids, sign):
                    buf[pos] = p
                    pos -= 1
                else:
                    break
            buf[pos] = i


def topk_rows(scores, offsets, k: int, *, ties: str = "stable", labels=None, doc_ids=None,
              docid_order: str = "descending") -> tuple[np.ndarray, np.ndarray]:
    """The rows of each query's top ``k`` in rank order under a tie rule (not "average"), and
    their offsets (``min(k, n_q)`` rows per query): what :func:`rank_order` gives, cut at
    ``k``, without sorting the lists (checked arrays)."""
    n = scores.shape[0]
    s = np.ascontiguousarray(scores, dtype=np.float64)
    off = np.asarray(offsets, dtype=np.int64)
    sizes = np.minimum(np.diff(off), int(k))
    out_off = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    out = np.empty(int(out_off[-1]), dtype=np.int64)
    if ties == "docid":
        ids = id_rows(check_doc_ids(doc_ids, n, docid_order))
        sign = -1 if docid_order == "descending" else 1
        _topk(s, np.zeros(n), ids, sign, off, int(k), out_off, out)
        return out, out_off
    key = tie_key(ties, n, labels=labels, doc_ids=doc_ids, docid_order=docid_order)
    if key is None:  # input order: the kernel's last tie-break, the row index
        key = np.zeros(n)
    _topk(s, np.ascontiguousarray(key, dtype=np.float64), np.zeros((n, 0), dtype=np.uint8), 1, off, int(k),
          out_off, out)
    return out, out_off
