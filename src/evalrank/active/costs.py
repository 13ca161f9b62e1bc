"""Query labelling costs lambda(x) (Sawade et al. 2012, Sec. 2 and 5).

"We model the labeling costs lambda(x) for a query x as proportional to a sum
of costs incurred for labeling individual documents z in r(x); labeling costs
for a single document z are assumed to be logarithmic in the document length.
[...] The cost unit is chosen such that average labeling costs for a query are
one."  So ``lambda(x) = sum_{z in r(x)} log(1 + len(z)) / mean_x(...)``.
"""

from __future__ import annotations

import numpy as np

from evalrank.data.collection import check_offsets

__all__ = ["query_costs", "MSLR_LENGTH_FEATURE"]

#: MSLR-WEB30K feature id (1-based, as in the LETOR files) of the whole-document
#: stream length; ids 11-15 are the lengths of body, anchor, title, url, whole document.
MSLR_LENGTH_FEATURE = 15


def query_costs(lengths, offsets, *, normalize: bool = True) -> np.ndarray:
    """Per-query labelling cost ``lambda(x) = sum_z log(1 + len(z))``.

    Parameters
    ----------
    lengths : (n_docs,) document lengths (>= 0), e.g. ``features[:, MSLR_LENGTH_FEATURE - 1]``;
        the documents of query ``q`` are ``lengths[offsets[q]:offsets[q+1]]``
        (for a comparison: the union of both rankings' documents).
    offsets : (n_queries + 1,) query offsets.
    normalize : scale so the mean cost over the queries is 1 (the paper's unit).

    Every query must have at least one document, so that ``lambda(x) > 0``
    (the paper assumes ``lambda(x) >= eps > 0``); a document of length 0 costs
    ``log(1) = 0``, so a query whose documents all have length 0 is rejected too.
    """
    lengths = np.asarray(lengths, dtype=np.float64)
    if lengths.ndim != 1:
        raise ValueError(f"lengths must be 1-d, got shape {lengths.shape}")
    if not np.all(np.isfinite(lengths)) or (lengths < 0).any():
        raise ValueError("lengths must be finite and >= 0")
    offsets = check_offsets(offsets, lengths.size)
    if len(offsets) < 2:
        raise ValueError("offsets must describe at least one query")
    sizes = np.diff(offsets)
    if (sizes == 0).any():
        q = int(np.flatnonzero(sizes == 0)[0])
        raise ValueError(f"query {q} has no documents; labelling costs must be positive")
    cost = np.add.reduceat(np.log1p(lengths), offsets[:-1])
    bad = np.flatnonzero(~(cost > 0))
    if bad.size:
        q = int(bad[0])
        raise ValueError(
            f"query {q} would cost nothing (it has {offsets[q + 1] - offsets[q]} documents, all of length 0); "
            "labelling costs must be positive"
        )
    if normalize:
        cost = cost / cost.mean()
    return cost
