"""The statistics of paired comparisons, on NumPy arrays: the paired
t-test, Kendall's tau, the paired randomization (sign-flip) test, the t and
BCa bootstrap confidence intervals of a mean, and multiple-testing
corrections.

:mod:`evalrank.evaluation.compare` puts them in one table; its module
docstring states the formulas and the references (Smucker, Allan &
Carterette 2007 for the randomization test; Efron 1987 and Efron &
Tibshirani 1993, Sec. 14.3 for BCa; Holm 1979; Benjamini & Hochberg 1995).
The papers' tables use :func:`paired_t_test` and :func:`kendall_tau` too
(Dinçer et al. 2016, Tables 6-7; Busa-Fekete et al. 2012, Sec. 5), each
caller naming the guards it needs.
"""

from __future__ import annotations

import numpy as np
from scipy import special, stats

__all__ = ["paired_t_test", "kendall_tau", "randomization_p", "t_interval", "bootstrap_interval", "adjust_p",
           "check_permutations", "check_resamples", "min_resamples", "CORRECTIONS", "EXACT_MAX", "DEFAULT_LEVEL",
           "DEFAULT_RESAMPLES", "MAX_PERMUTATIONS", "MAX_RESAMPLES", "TAIL_RESAMPLES"]

#: Multiple-testing corrections of :func:`adjust_p`.
CORRECTIONS = ("none", "bonferroni", "holm", "bh")

#: The randomization test enumerates all sign flips up to this many non-zero differences.
EXACT_MAX = 16

#: The default level of the confidence intervals and the bootstrap's default number of resamples.
DEFAULT_LEVEL = 0.95
DEFAULT_RESAMPLES = 10_000

# signs x differences products (and bootstrap resamples) are computed in blocks of about this many cells
_BLOCK = 1 << 22

#: The most random sign vectors of the randomization test: its p-value's resolution, 1 / (B + 1),
#: is then 1e-7, far finer than any decision needs; each costs one random sign per differing topic.
MAX_PERMUTATIONS = 10_000_000
#: The most bootstrap resamples: every resample's mean is kept (8 bytes, 80 MB at the bound) for the
#: quantiles, and each costs ``n`` draws; the Monte Carlo error of the ends is long negligible there.
MAX_RESAMPLES = 10_000_000
#: BCa takes an interval's ends at quantiles of the resamples' means near ``(1 - level) / 2`` and
#: ``(1 + level) / 2``: at least this many resamples must lie beyond each end (:func:`min_resamples`).
#: Fewer, and an end is the most extreme resample or an interpolation past it (with 1 or 2
#: resamples a "95 %" interval was a point that did not contain the estimate).
TAIL_RESAMPLES = 10


def _count(value, arg: str, maximum: int, why: str) -> int:
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{arg} must be a positive integer, got {value!r}")
    if value > maximum:
        raise ValueError(f"{arg} {int(value):,} is more than the most allowed, {maximum:,}: {why}")
    return int(value)


def check_permutations(permutations, arg: str = "permutations") -> int:
    """``permutations`` as an int: a positive integer up to :data:`MAX_PERMUTATIONS` (a
    ``ValueError`` naming ``arg``, e.g. ``--permutations``, otherwise)."""
    return _count(permutations, arg, MAX_PERMUTATIONS,
                  "the p-value's resolution, 1 / (permutations + 1), is 1e-7 there, and more only costs time "
                  "(one random sign per differing topic each)")


def min_resamples(level: float) -> int:
    """The fewest bootstrap resamples for intervals at ``level``: ``TAIL_RESAMPLES / ((1 -
    level) / 2)``, rounded up, so that :data:`TAIL_RESAMPLES` resamples lie beyond each end
    (400 at 0.95, 200 at 0.9, 2,000 at 0.99)."""
    _check_level(level)
    return int(np.ceil(TAIL_RESAMPLES / ((1.0 - level) / 2.0) - 1e-9))


def check_resamples(resamples, level: float | None = None, arg: str = "resamples") -> int:
    """``resamples`` as an int: a positive integer up to :data:`MAX_RESAMPLES` and, given
    ``level``, at least :func:`min_resamples` ``(level)`` (a ``ValueError`` naming ``arg``,
    e.g. ``--resamples``, otherwise)."""
    b = _count(resamples, arg, MAX_RESAMPLES,
               "every resample's mean is kept for the quantiles (8 bytes each per interval), and the ends' Monte "
               "Carlo error is negligible long before")
    if level is not None and b < min_resamples(level):
        raise ValueError(
            f"{arg} {b} is too few for {level * 100:g}% intervals: BCa takes each end at a quantile of the "
            f"resamples near (1 - level) / 2 = {(1 - level) / 2:g} from either side, so at least {TAIL_RESAMPLES} "
            f"resamples must lie beyond each end: {arg} >= {TAIL_RESAMPLES} / ((1 - level) / 2) = "
            f"{min_resamples(level)} (the default is 10,000)")
    return b


# ---------------------------------------------------------------------------
# the tests on one vector of paired differences
# ---------------------------------------------------------------------------
def paired_t_test(a, b=None, *, few=None, zero=None, equal=None, tol: float = 0.0) -> tuple[float, float]:
    """``(t, p)`` of the two-sided paired t-test of ``mean(a - b) = 0`` (``b``
    omitted: ``a`` are the differences): ``t = mean(d) / sqrt(var(d) / n)``
    with the sample variance (``n - 1``), ``p = 2 P(T_{n-1} >= |t|)``,
    computed by :func:`scipy.stats.ttest_rel` (bit for bit its numbers).

    The guards, each off when ``None`` (then scipy's own result stands: NaN
    for ``n < 2`` or all-zero differences, ``p`` = 0 or a tiny ``p`` from
    rounding for a constant non-zero difference), else the ``p`` returned
    with ``t`` = NaN:

    ``few``
        ``n < 2``: no variance; ``"raise"`` raises a ``ValueError``.
    ``zero``
        every difference is 0 (``a == b`` everywhere).
    ``equal``
        every difference is equal: exactly (``tol = 0``), or up to rounding,
        ``sd(d) <= tol max |d|`` (``tol = 1e-10``: ``0.3 - 0.1`` and ``0.2``;
        ``t`` would be a quotient of rounding errors).
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.zeros_like(a) if b is None else np.asarray(b, dtype=np.float64)
    n = a.size
    if few is not None and n < 2:
        if few == "raise":
            raise ValueError(f"the paired t-test needs at least 2 differences, got {n}")
        return float("nan"), float(few)
    if zero is not None and np.all(a == b):
        return float("nan"), float(zero)
    if equal is not None and n > 0:
        d = a - b
        if (not d.std(ddof=1) > tol * np.abs(d).max()) if tol > 0 else np.all(d == d[0]):
            return float("nan"), float(equal)
    res = stats.ttest_rel(a, b)
    return float(res.statistic), float(res.pvalue)


def kendall_tau(x, y, *, nan: str = "propagate") -> float:
    """Kendall's tau-b of two equally long sequences, as
    :func:`scipy.stats.kendalltau` computes it (its default variant:
    ``(C - D) / sqrt((n0 - n_x)(n0 - n_y))``, ``n0 = n (n - 1) / 2`` pairs,
    ``n_x``, ``n_y`` the pairs tied in ``x``, in ``y``); NaN when either
    sequence is constant. ``nan``: ``"propagate"`` (a NaN anywhere gives NaN,
    scipy's default) or ``"omit"`` (only the positions where both are
    defined count; NaN below two of them, without scipy's warning)."""
    if nan not in ("propagate", "omit"):
        raise ValueError(f"nan must be 'propagate' or 'omit', got {nan!r}")
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"x and y must be 1-d and equally long, got shapes {x.shape} and {y.shape}")
    if nan == "omit":
        ok = ~(np.isnan(x) | np.isnan(y))
        x, y = x[ok], y[ok]
        if x.size < 2:
            return float("nan")
    return float(stats.kendalltau(x, y).statistic)


def _exceed_count(bits: np.ndarray, nz: np.ndarray, total: float, obs: float, tol: float) -> int:
    """How many rows of ``bits`` (1 = flip that difference) give ``|T*| >= obs``:
    ``T* = total - 2 bits @ nz``."""
    t_star = total - 2.0 * (bits.astype(np.float64) @ nz)
    return int(np.count_nonzero(np.abs(t_star) >= obs - tol))


def randomization_p(d, *, permutations: int = 10_000, rng: np.random.Generator | None = None,
                    exact_max: int = EXACT_MAX) -> tuple[float, str]:
    """Two-sided paired randomization (sign-flip) test of ``mean(d) = 0``.

    Returns ``(p, method)``, ``method`` ``"exact"`` (all ``2^m`` sign
    vectors of the ``m`` non-zero differences, when ``m <= exact_max``) or
    ``"monte_carlo"`` (``permutations`` random sign vectors from ``rng``,
    ``p = (b + 1) / (permutations + 1)``). Formulas: :mod:`evalrank.evaluation.compare`'s docstring.
    """
    d = np.asarray(d, dtype=np.float64)
    if d.ndim != 1 or d.size == 0:
        raise ValueError(f"d must be a non-empty 1-d array of differences, got shape {d.shape}")
    if not np.all(np.isfinite(d)):
        raise ValueError("d contains NaN or infinite differences")
    nz = d[d != 0]
    m = nz.size
    total = float(nz.sum())
    obs = abs(total)
    tol = 1e-10 * float(np.abs(nz).sum())
    if m <= exact_max:
        rows_per_block = max(1, _BLOCK // max(m, 1))
        shifts = np.arange(m, dtype=np.int64)
        count = 0
        for start in range(0, 1 << m, rows_per_block):
            k = np.arange(start, min(1 << m, start + rows_per_block), dtype=np.int64)
            bits = ((k[:, None] >> shifts) & 1).astype(np.uint8)
            count += _exceed_count(bits, nz, total, obs, tol)
        return count / float(1 << m), "exact"
    permutations = check_permutations(permutations)
    if rng is None:
        raise ValueError("randomization_p needs an rng for the Monte Carlo test (more than exact_max differences)")
    nbytes = (m + 7) // 8
    rows_per_block = max(1, _BLOCK // m)
    b = 0
    done = 0
    while done < permutations:
        rows = min(rows_per_block, permutations - done)
        raw = rng.integers(0, 256, size=(rows, nbytes), dtype=np.uint8)
        bits = np.unpackbits(raw, axis=1, count=m)
        b += _exceed_count(bits, nz, total, obs, tol)
        done += rows
    return (b + 1) / (permutations + 1), "monte_carlo"


# ---------------------------------------------------------------------------
# confidence intervals of a mean (of per-query values or of paired differences)
# ---------------------------------------------------------------------------
def _values(x, what: str) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 1 or x.size < 2:
        raise ValueError(f"{what} needs a 1-d array of at least 2 values, got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{what}: the values contain NaN or infinity")
    return x


def _check_level(level) -> None:
    if isinstance(level, bool) or not isinstance(level, (int, float, np.floating)) or not 0 < level < 1:
        raise ValueError(f"level must be a number in (0, 1), got {level!r}")


def _constant(x: np.ndarray) -> bool:
    """Every value equal, up to rounding (:func:`paired_t_test`'s ``equal`` rule at ``tol = 1e-10``)."""
    return not x.std(ddof=1) > 1e-10 * np.abs(x).max()


def t_interval(x, level: float = DEFAULT_LEVEL) -> tuple[float, float]:
    """Student's t interval for the mean of ``x`` (``n >= 2`` values):
    ``mean -+ t_{(1+level)/2, n-1} sd / sqrt(n)``. For paired differences
    ``x = s - b`` it is the paired t interval of the mean difference. All
    values equal (up to rounding): ``(mean, mean)``. Formulas: :mod:`evalrank.evaluation.compare`'s docstring."""
    x = _values(x, "t_interval")
    _check_level(level)
    m = float(x.mean())
    if _constant(x):
        return m, m
    half = float(stats.t.ppf(0.5 + level / 2, x.size - 1)) * float(x.std(ddof=1)) / np.sqrt(x.size)
    return m - half, m + half


def _bootstrap_means(x: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Means of ``resamples`` resamples of ``x`` with replacement: rows of
    ``rng.integers(0, n, (rows, n))`` drawn in blocks of about ``_BLOCK`` cells
    (one block, the same draws as scipy.stats.bootstrap's, while ``resamples n <= _BLOCK``)."""
    n = x.size
    rows = max(1, _BLOCK // n)
    out = np.empty(resamples)
    for start in range(0, resamples, rows):
        k = min(rows, resamples - start)
        out[start:start + k] = x[rng.integers(0, n, size=(k, n))].mean(axis=1)
    return out


def bootstrap_interval(x, level: float = DEFAULT_LEVEL, *, resamples: int = DEFAULT_RESAMPLES,
                       rng: np.random.Generator) -> tuple[float, float]:
    """The BCa bootstrap interval (Efron 1987; Efron & Tibshirani 1993,
    Sec. 14.3) for the mean of ``x`` (``n >= 2`` values; paired differences
    for a delta) from ``resamples`` resamples drawn from ``rng``. All values
    equal (up to rounding): ``(mean, mean)``. Formulas in :mod:`evalrank.evaluation.compare`'s
    docstring."""
    x = _values(x, "bootstrap_interval")
    _check_level(level)
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    resamples = check_resamples(resamples, level)
    theta = float(x.mean())
    if _constant(x):
        return theta, theta
    boot = _bootstrap_means(x, int(resamples), rng)
    b = boot.size
    p0 = (np.count_nonzero(boot < theta) + np.count_nonzero(boot <= theta)) / (2.0 * b)
    z0 = float(special.ndtri(min(max(p0, 0.5 / b), 1 - 0.5 / b)))
    jack = (x.sum() - x) / (x.size - 1)  # the means without query i
    u = jack.mean() - jack
    den = float((u ** 2).sum())
    accel = float((u ** 3).sum()) / (6.0 * den ** 1.5) if den > 0 else 0.0
    probs = []
    for zk in (float(special.ndtri((1 - level) / 2)), float(special.ndtri((1 + level) / 2))):
        num = z0 + zk
        den_k = 1.0 - accel * num
        probs.append(float(special.ndtr(z0 + num / den_k)) if den_k > 0 else (1.0 if num > 0 else 0.0))
    low, high = np.quantile(boot, probs)
    return float(low), float(high)


def adjust_p(p, method: str = "holm") -> np.ndarray:
    """Corrected p-values of one family ``p`` (any order; NaN not allowed):
    ``"none"``, ``"bonferroni"``, ``"holm"`` (step-down) or ``"bh"``
    (Benjamini-Hochberg step-up); formulas in :mod:`evalrank.evaluation.compare`'s docstring. Tied
    p-values get the same corrected value."""
    if method not in CORRECTIONS:
        raise ValueError(f"correction must be one of {CORRECTIONS}, got {method!r}")
    p = np.asarray(p, dtype=np.float64)
    if p.ndim != 1:
        raise ValueError(f"p must be 1-d, got shape {p.shape}")
    if np.any(~np.isfinite(p)) or np.any((p < 0) | (p > 1)):
        raise ValueError(f"p-values must lie in [0, 1], got {p.tolist()}")
    k = p.size
    if k == 0 or method == "none":
        return p.copy()
    if method == "bonferroni":
        return np.minimum(1.0, k * p)
    order = np.argsort(p, kind="stable")
    ps = p[order]
    j = np.arange(1, k + 1)
    if method == "holm":
        adj = np.maximum.accumulate(np.minimum(1.0, (k - j + 1) * ps))
    else:  # bh
        adj = np.minimum.accumulate(np.minimum(1.0, k * ps / j)[::-1])[::-1]
    out = np.empty(k)
    out[order] = adj
    return out
