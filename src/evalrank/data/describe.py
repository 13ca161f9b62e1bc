"""Summary statistics of a collection, to set synthetic data beside real MSLR.

:func:`describe` gives one flat dict per collection (query sizes, grade
marginals, queries without relevant documents, document lengths);
:func:`describe_table` stacks them into a DataFrame, optionally with the
published MSLR-WEB30K numbers (:data:`MSLR_WEB30K_REFERENCE`) as a last row.

Conventions: quantiles use numpy's default (linear interpolation); a document
is *relevant* if its grade is >= 1; "docs" are the labelled query-document
pairs of a query.
"""

from __future__ import annotations

import numpy as np

from evalrank.data.collection import Collection, segment_ids

__all__ = [
    "describe",
    "describe_table",
    "MSLR_WEB30K_REFERENCE",
    "MSLR_WEB30K_SOURCES",
    "WHOLE_LENGTH_COLUMN",
]

#: 0-based column of MSLR feature 15, the stream length of the whole document.
WHOLE_LENGTH_COLUMN = 14

_QUANTILES = (("p05", 5), ("p25", 25), ("median", 50), ("p75", 75), ("p95", 95))


def describe(collection: Collection, name: str = "", *, max_grade: int | None = None) -> dict:
    """Summary statistics of ``collection`` as a flat dict.

    Keys: ``name``, ``n_queries``, ``n_docs``, ``n_features``,
    ``docs_per_query_{min,p05,p25,median,mean,p75,p95,max}``,
    ``share_queries_lt10_docs`` (queries with fewer than 10 documents),
    ``grade_{g}_share`` for ``g = 0..max_grade`` (share of documents; the
    default ``max_grade`` is the largest grade present, at least 1),
    ``share_queries_no_relevant`` (queries without a document of grade >= 1),
    and, when there are at least 15 features, ``whole_length_median`` and
    ``whole_length_p95`` (MSLR feature 15 = column 14, the whole-document
    length, over documents). Empty collections give NaN statistics.
    """
    if not isinstance(collection, Collection):
        raise TypeError(f"collection must be a Collection, got {type(collection).__name__}")
    labels = np.asarray(collection.labels).astype(np.int64)
    sizes = collection.query_sizes
    nq, nd = collection.n_queries, collection.n_docs
    out: dict = {"name": name, "n_queries": nq, "n_docs": nd, "n_features": collection.n_features}

    if nq:
        out["docs_per_query_min"] = int(sizes.min())
        for key, q in _QUANTILES[:3]:
            out[f"docs_per_query_{key}"] = float(np.percentile(sizes, q))
        out["docs_per_query_mean"] = float(sizes.mean())
        for key, q in _QUANTILES[3:]:
            out[f"docs_per_query_{key}"] = float(np.percentile(sizes, q))
        out["docs_per_query_max"] = int(sizes.max())
        out["share_queries_lt10_docs"] = float(np.mean(sizes < 10))
    else:
        for key in ("min", "p05", "p25", "median", "mean", "p75", "p95", "max"):
            out[f"docs_per_query_{key}"] = float("nan")
        out["share_queries_lt10_docs"] = float("nan")

    if max_grade is None:
        max_grade = max(int(labels.max()) if nd else 0, 1)
    if nd and labels.max() > max_grade:
        raise ValueError(f"max_grade={max_grade} but the collection has grade {labels.max()}")
    counts = np.bincount(labels, minlength=max_grade + 1) if nd else np.zeros(max_grade + 1)
    for g in range(max_grade + 1):
        out[f"grade_{g}_share"] = float(counts[g] / nd) if nd else float("nan")

    if nq:
        n_rel = np.bincount(segment_ids(collection.offsets), weights=labels >= 1, minlength=nq)
        out["share_queries_no_relevant"] = float(np.mean(n_rel == 0))
    else:
        out["share_queries_no_relevant"] = float("nan")

    if collection.n_features > WHOLE_LENGTH_COLUMN:
        lengths = np.asarray(collection.features[:, WHOLE_LENGTH_COLUMN], dtype=np.float64)
        out["whole_length_median"] = float(np.median(lengths)) if nd else float("nan")
        out["whole_length_p95"] = float(np.percentile(lengths, 95)) if nd else float("nan")
    return out


def describe_table(named: dict, *, reference: bool = False):
    """One row of :func:`describe` per ``{name: Collection}`` entry, in order.

    Grade columns run to the largest grade of any entry (missing grades are
    0). With ``reference=True`` a last row ``MSLR_WEB30K_REFERENCE`` is
    appended (unknown numbers are NaN).
    """
    import pandas as pd

    if not named and not reference:
        raise ValueError("named must contain at least one collection")
    max_grade = 1
    for c in named.values():
        if c.n_docs:
            max_grade = max(max_grade, int(np.asarray(c.labels).max()))
    rows = [describe(c, name=str(k), max_grade=max_grade) for k, c in named.items()]
    if reference:
        rows.append(dict(MSLR_WEB30K_REFERENCE))
    df = pd.DataFrame(rows)
    grade_cols = sorted((c for c in df.columns if c.startswith("grade_")), key=lambda c: int(c.split("_")[1]))
    rest = [c for c in df.columns if not c.startswith("grade_")]
    i = rest.index("share_queries_no_relevant") if "share_queries_no_relevant" in rest else len(rest)
    return df[rest[:i] + grade_cols + rest[i:]]


# ---------------------------------------------------------------------------
# the real dataset
# ---------------------------------------------------------------------------
#: Known statistics of MSLR-WEB30K (all five partitions together), keyed as
#: :func:`describe`'s output; ``None`` = not known to us (do not guess).
MSLR_WEB30K_REFERENCE: dict = {
    "name": "MSLR-WEB30K (published)",
    "n_queries": 31531,
    "n_docs": 3771125,
    "n_features": 136,
    "docs_per_query_min": None,
    "docs_per_query_p05": None,
    "docs_per_query_p25": None,
    "docs_per_query_median": None,
    "docs_per_query_mean": 3771125 / 31531,  # 119.6
    "docs_per_query_p75": None,
    "docs_per_query_p95": None,
    "docs_per_query_max": None,
    "share_queries_lt10_docs": None,
    "grade_0_share": 0.52,
    "grade_1_share": 0.32,
    "grade_2_share": 0.13,
    "grade_3_share": 0.02,
    "grade_4_share": 0.01,
    "share_queries_no_relevant": None,
    "whole_length_median": None,
    "whole_length_p95": None,
}

#: Where each known number of :data:`MSLR_WEB30K_REFERENCE` comes from.
MSLR_WEB30K_SOURCES: dict = {
    "n_queries": "Sawade et al. 2012, Sec. 5 ('It contains 31,531 queries'); the MSLR project page says "
    "'more than 30,000 queries'",
    "n_docs": "Sawade et al. 2012, Sec. 5 ('3,771,125 query-document pairs')",
    "n_features": "MSLR project page (https://www.microsoft.com/en-us/research/project/mslr/): "
    "'a 136-dimensional feature vector'",
    "docs_per_query_mean": "derived: 3,771,125 / 31,531 = 119.6 (Sawade et al. 2012 say 'an average of 119')",
    "grade_0_share": "approximate (rounded to whole percent, +-1 point): commonly reported grade distribution "
    "of MSLR-WEB30K, about 52/32/13/2/1 % for grades 0-4; not recomputed from the files here",
    "grade_1_share": "see grade_0_share",
    "grade_2_share": "see grade_0_share",
    "grade_3_share": "see grade_0_share",
    "grade_4_share": "see grade_0_share",
    "unknown": "query-size quantiles/min/max, share of queries with < 10 documents, share of queries "
    "without a relevant document and document-length quantiles are not published where we could "
    "check them; compute them with describe() once the real files are available",
}
