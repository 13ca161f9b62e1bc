"""Empirical NDCG of growing i.i.d. samples (Wang et al. 2013, Sec. 3): the
convergence to the limits of :mod:`.limits` and consistent distinguishability
(Definition 3; ``wang2013-limits.md``).

A *measure* is named ``"DISCOUNT"`` or ``"DISCOUNT@K"`` with a discount of
:mod:`evalrank.metrics.discounts` and a cut-off of
:mod:`evalrank.metrics.cutoffs`: ``"log2"``, ``"poly:0.5"``, ``"zipf"``,
``"geometric:0.5"``, ``"log2@frac:0.3"``, ``"log2@pow:0.5"``, ``"log2@10"`` -- Wang's
notation, one spelling of the package's measure vocabulary (:mod:`evalrank.metrics.names`).

:func:`sample_ndcg` draws ``R`` independent samples of ``n`` objects, every
scorer ranking the same objects, and returns NDCG per (repetition, scorer,
measure). Repetitions are drawn in blocks of ``block`` samples, block ``b``
from the ``b``-th child of the given :class:`numpy.random.SeedSequence`, and
each block is scored with one flat-array NDCG call per scorer and measure
(the R samples are R "queries"), so the result depends on the seed and the
block size only -- not on the number of cores or the order of the calls.
All samples of a call have the same length n, so a block is an (R, n)
matrix: one row-wise sort per scorer, the ideal DCG from grade counts
(:func:`~evalrank.metrics.dcg.ideal_from_counts`, no sort), and each measure's DCG
is a product with its cut discount vector
(the discount and cut-off of :mod:`evalrank.metrics`; equal to
:func:`evalrank.metrics.ndcg.ndcg` with its default conventions, tested).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from evalrank.metrics.cutoffs import resolve_cutoff
from evalrank.metrics.dcg import cut_discount_row, grade_counts, ideal_from_counts
from evalrank.metrics.names import RankMeasure
from evalrank.metrics import names
from evalrank.metrics.ranking import descending_rows

if TYPE_CHECKING:  # the tables' functions import pandas when called (theory-sample's jobs need none)
    import pandas as pd

__all__ = ["theory_measure", "sample_ndcg", "limits_table", "convergence_table", "distinguishability", "gap_rate"]


def theory_measure(name) -> RankMeasure:
    """The measure ``name`` (parsed by :func:`evalrank.metrics.names.parse_measure`, the one parser)
    if it is one the theory stage takes: an NDCG named by its discount and cut-off only, Wang's
    ``"DISCOUNT[@K]"`` (``zipf@10``, ``log2@frac:0.3``) or ``ndcg(discount=...)@K``; else a
    ``ValueError`` that names the measure."""
    m = names.parse_measure(name)
    if not (isinstance(m, RankMeasure) and m.family == "ndcg" and set(dict(m.options)) <= {"discount"}):
        raise ValueError(f"measure {name!r}: the theory stage takes an NDCG named by its discount and cut-off, "
                         "e.g. 'zipf@10', 'log2@frac:0.3', 'ndcg(discount=poly:0.5)@pow:0.5'")
    return m


#: Old name of :func:`theory_measure`, an alias kept only while ``evalrank.config`` and
#: :mod:`evalrank.papers.wang2013.stages` import it (the one parser named ``parse_measure`` is
#: :func:`evalrank.metrics.names.parse_measure`).
parse_measure = theory_measure


def _blocks(R: int, block: int):
    starts = np.arange(0, R, block)
    return [(int(a), int(min(a + block, R))) for a in starts]


def sample_ndcg(pop, scorers, measures, n: int, R: int, seed: np.random.SeedSequence, block: int | None = None,
                progress=None) -> np.ndarray:
    """NDCG of ``R`` i.i.d. samples of size ``n``: array (R, len(scorers),
    len(measures)). ``block``: samples per draw (default: about 2 million
    objects per block); ``progress(done, R)`` is called after each block."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n: expected a positive integer, got {n!r}")
    if isinstance(R, bool) or not isinstance(R, (int, np.integer)) or R < 1:
        raise ValueError(f"R: expected a positive integer, got {R!r}")
    if not isinstance(seed, np.random.SeedSequence):
        raise TypeError("seed: expected a numpy.random.SeedSequence")
    measures = [theory_measure(m) for m in measures]
    block = int(block) if block is not None else max(1, 2_000_000 // int(n))
    if block < 1:
        raise ValueError(f"block: expected a positive integer, got {block!r}")
    out = np.empty((R, len(scorers), len(measures)))
    n = int(n)
    cuts = [resolve_cutoff(meas.k, np.array([n])) for meas in measures]
    cuts = [None if k is None else int(np.atleast_1d(k)[0]) for k in cuts]
    # the cut discount of each measure over ranks 1..n
    weights = np.stack([cut_discount_row(n, k, meas.discount) for k, meas in zip(cuts, measures)])
    cums = np.concatenate([np.zeros((len(measures), 1)), np.cumsum(weights, axis=1)], axis=1)
    blocks = _blocks(int(R), block)
    children = seed.spawn(len(blocks))
    for (a, b), child in zip(blocks, children):
        m = b - a
        scores, grades = pop.sample(n * m, scorers, np.random.default_rng(child))
        # gathered through each ranking as small integers, then mapped to gains: the same values as
        # gathering the float gains, from an array an eighth of the size (the gather is memory-bound)
        codes = grades.astype(np.min_scalar_type(pop.gains.size - 1)).reshape(m, n)
        counts = grade_counts(grades, np.arange(0, n * m + 1, n), pop.gains.size)
        ideal = np.stack([ideal_from_counts(counts, pop.gains, cum, n) for cum in cums], axis=1)   # (m, measures)
        for i in range(len(scorers)):
            # rank by decreasing score, ties in sample order (ndcg's "stable" rule)
            order = descending_rows(scores[i].reshape(m, n))
            dcg = pop.gains[np.take_along_axis(codes, order, axis=1)] @ weights.T
            out[a:b, i, :] = np.divide(dcg, ideal, out=np.zeros_like(dcg), where=ideal > 0)
        if progress is not None:
            progress(b, int(R))
    return out


def limits_table(pop, scorers, measures, names=None) -> pd.DataFrame:
    """Every scorer x measure: the limit (:func:`~evalrank.papers.wang2013.limits.ndcg_limit`),
    the rule of the table that gives it and its theorem."""
    import pandas as pd

    from evalrank.papers.wang2013.limits import ndcg_limit  # scipy's quadrature: only where limits are computed

    names = names or [str(s) for s in scorers]
    rows = []
    for name, sc in zip(names, scorers):
        for m in (theory_measure(x) for x in measures):
            L = ndcg_limit(pop, sc, m.discount, m.k)
            rows.append({"scorer": name, "measure": str(m), "limit": L.value, "rule": L.rule, "theorem": L.theorem})
    return pd.DataFrame(rows)


def convergence_table(values: dict, pop, scorers, measures, names=None, limits=None) -> pd.DataFrame:
    """Mean, standard error and the limit per (n, scorer, measure) from
    ``values``: n -> :func:`sample_ndcg` array. ``limits``: a
    :func:`limits_table` of the same scorers and measures (computed when
    not given)."""
    import pandas as pd

    measures = [theory_measure(m) for m in measures]
    names = names or [str(s) for s in scorers]
    if limits is None:
        limits = limits_table(pop, scorers, measures, names)
    lim = limits.set_index(["scorer", "measure"])
    rows = []
    for n, v in sorted(values.items()):
        R = v.shape[0]
        for i, name in enumerate(names):
            for j, m in enumerate(measures):
                x = v[:, i, j]
                rows.append({"n": int(n), "scorer": name, "measure": str(m), "R": R, "mean": float(x.mean()),
                             "se": float(x.std(ddof=1) / np.sqrt(R)) if R > 1 else np.nan,
                             "limit": float(lim.loc[(name, str(m)), "limit"]),
                             "theorem": lim.loc[(name, str(m)), "theorem"]})
    t = pd.DataFrame(rows)
    t["rel_gap"] = (t["mean"] - t["limit"]) / t["limit"]
    return t


def distinguishability(values: dict, pairs, measures) -> pd.DataFrame:
    """Share of the R samples in which M(f1) > M(f2), per (n, pair, measure),
    with its binomial standard error; ``pairs``: (label, i1, i2) scorer
    indices into the arrays of ``values`` (n -> :func:`sample_ndcg` array).
    Ties count one half."""
    import pandas as pd

    measures = [theory_measure(m) for m in measures]
    rows = []
    for n, v in sorted(values.items()):
        R = v.shape[0]
        for label, i1, i2 in pairs:
            for j, m in enumerate(measures):
                d = v[:, i1, j] - v[:, i2, j]
                share = float(np.mean(d > 0) + 0.5 * np.mean(d == 0))
                rows.append({"n": int(n), "pair": label, "measure": str(m), "R": R, "share": share,
                             "se": float(np.sqrt(share * (1 - share) / R)),
                             "mean_difference": float(d.mean())})
    return pd.DataFrame(rows)


def gap_rate(n, gap) -> tuple[float, float]:
    """Fit ``gap = C (ln n)^-gamma`` by least squares on log gap vs log ln n;
    returns ``(gamma, C)`` (Wang et al.: standard NDCG's gap to 1 is of order
    1 / log n, gamma = 1)."""
    n = np.asarray(n, dtype=np.float64)
    gap = np.asarray(gap, dtype=np.float64)
    ok = (gap > 0) & (n > 1)
    if ok.sum() < 2:
        raise ValueError("gap: needs at least two positive gaps at n > 1")
    slope, icpt = np.polyfit(np.log(np.log(n[ok])), np.log(gap[ok]), 1)
    return float(-slope), float(np.exp(icpt))
