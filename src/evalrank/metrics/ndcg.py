"""Normalized DCG under every tool's convention (Busa-Fekete et al. 2012).

``NDCG@k = DCG@k / IDCG@k`` (Busa-Fekete eqs. 2-4) with the open choices --
gain, discount, empty queries, short lists, ties, score precision -- set by
a named ``convention`` (:mod:`evalrank.metrics.conventions`) and/or explicit
keywords, which override the preset.

Pure NumPy on flat arrays + query offsets: one ``lexsort`` of the pool for
the ranking, grade counts (no sort) for the ideal DCG, segment sums.
"""

from __future__ import annotations

import numpy as np

from evalrank.data.collection import check_offsets
from evalrank.metrics._validate import check_grades, check_ranked_input
from evalrank.metrics.cutoffs import resolve_cutoff
from evalrank.metrics.conventions import resolve
from evalrank.metrics.dcg import gain_values, ideal_dcg, ranked_dcg
from evalrank.metrics.ranking import round_scores

__all__ = ["ndcg", "normalize"]


def normalize(actual, ideal, sizes, k, *, empty, short) -> np.ndarray:
    """NDCG from per-query DCG@k and ideal DCG@k with the empty/short rules.

    ``sizes`` are the ranked list lengths (for ``short="zero"``).
    """
    out = np.full(actual.shape[0], np.nan if empty == "skip" else float(empty))
    ok = ideal > 0
    np.divide(actual, ideal, out=out, where=ok)
    if short == "zero" and k is not None:
        out[ok & (sizes < k)] = 0.0
    return out


def ndcg(scores, labels, offsets, k: int | None = None, *, convention: str | None = None, gain=None,
         discount=None, empty=None, short=None, ties=None, doc_ids=None, docid_order=None, precision=None,
         ideal_labels=None, ideal_offsets=None) -> np.ndarray:
    """Per-query NDCG@k of the ranking induced by ``scores``.

    Parameters
    ----------
    scores, labels, offsets : flat arrays + query offsets (higher score =
        ranked earlier; integer grades).
    k : cut-off; ``None`` = the full list, an int, a rule growing with the
        list (``"frac:c"``: k = c n, ``"pow:a"``: k = n^a; Wang et al. 2013,
        :mod:`evalrank.metrics.cutoffs`) or a per-query int array.
    convention : a preset name ("trec", "ranklib", "letor3", "letor4",
        "ms", "yahoo", "sklearn", "lightgbm", "xgboost") or None for the
        defaults (exp gain, log2, empty 0, short pad, stable ties).
    gain, discount, empty, short, ties, docid_order, precision : override
        the preset; see :mod:`evalrank.metrics.conventions`.
    doc_ids : (n_docs,) document ids, needed by ``ties="docid"``.
    ideal_labels, ideal_offsets : the judged labels per query when they are
        more than the ranked documents (trec_eval takes the ideal DCG from
        all qrels, retrieved or not); default: ``labels``.

    Returns
    -------
    (n_queries,) float64; NaN for empty queries under ``empty="skip"``.
    """
    opts = resolve(convention, gain=gain, discount=discount, empty=empty, short=short, ties=ties,
                   docid_order=docid_order, precision=precision)
    scores, labels, offsets = check_ranked_input(scores, labels, offsets)
    k = resolve_cutoff(k, np.diff(offsets))
    scores = round_scores(scores, opts["precision"])
    gains = gain_values(labels, opts["gain"])
    actual = ranked_dcg(scores, gains, offsets, k, discount=opts["discount"], ties=opts["ties"], labels=labels,
                        doc_ids=doc_ids, docid_order=opts["docid_order"])
    sizes = np.diff(offsets)
    if ideal_labels is None:
        if ideal_offsets is not None:
            raise ValueError("ideal_offsets given without ideal_labels")
        judged, judged_offsets = labels, offsets
    else:
        judged = np.asarray(ideal_labels)
        if not np.issubdtype(judged.dtype, np.number) or judged.ndim != 1:
            raise TypeError("ideal_labels must be a 1-d numeric array")
        check_grades(judged, "ideal_labels")
        if ideal_offsets is None:
            raise ValueError("ideal_labels needs ideal_offsets (one segment per query)")
        judged_offsets = check_offsets(ideal_offsets, judged.shape[0], name="ideal_offsets")
        if len(judged_offsets) != len(offsets):
            raise ValueError(f"ideal_offsets must describe {len(offsets) - 1} queries, got {len(judged_offsets) - 1}")
    cap = sizes if (opts["short"] == "truncate-ideal" and k is not None) else None
    ideal = ideal_dcg(judged, judged_offsets, k, gain=opts["gain"], discount=opts["discount"], cap=cap)
    return normalize(actual, ideal, sizes, k, empty=opts["empty"], short=opts["short"])
