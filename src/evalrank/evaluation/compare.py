"""Paired comparison of runs against a baseline: means and deltas with
confidence intervals (paired t or BCa bootstrap), significance tests with a
multiple-testing correction, and risk (Dinçer et al. 2016), in one table.

:func:`compare_table` works on per-query scores (a tidy table with columns
``run, qid, measure, value``, what :func:`evalrank.evaluation.evaluate.evaluate`
returns); :func:`compare` evaluates runs first and then calls it.

For every measure, every test run ``s`` is compared with the baseline ``b``
query by query, ``d_q = s_q - b_q`` over the ``n`` queries both were
evaluated on (they must be the same queries):

``ttest_p``
    Two-sided paired t-test: ``t = mean(d) / (sd(d) / sqrt(n))`` with the
    sample standard deviation (``n - 1``), ``p = 2 P(T_{n-1} >= |t|)``
    (Student's t with ``n - 1`` degrees of freedom; computed by
    :func:`scipy.stats.ttest_rel`, through
    :func:`evalrank.evaluation.stats.paired_t_test`, where this table's
    statistics live). When every ``d_q`` is equal ``sd = 0``
    and ``t`` is undefined: ``ttest_p`` is NaN, also when they are equal only
    up to rounding (``sd <= 1e-10 max_q |d_q|``, e.g. ``0.3 - 0.1`` and
    ``0.2``: ``t`` would be a quotient of rounding errors). scipy gives NaN
    for all-zero differences but ``p = 0`` (or a tiny p from rounding) for a
    constant non-zero one, whatever ``n``.
``randomization_p`` (the primary test)
    Two-sided paired randomization test of the mean difference (Fisher's
    sign-flip test, as in Smucker, Allan & Carterette 2007, "A comparison of
    statistical significance tests for information retrieval evaluation",
    CIKM): under H0 the labels of each pair are exchangeable, so each
    ``d_q`` is as likely to have had the other sign. With ``T = sum_q d_q``
    and ``T* = sum_q e_q d_q`` for sign vectors ``e in {-1, +1}^n``,
    ``p = #{e : |T*| >= |T|} / 2^n``. Queries with ``d_q = 0`` flip to
    themselves and leave ``p`` unchanged, so only the ``m`` non-zero
    differences are flipped: all ``2^m`` sign vectors are enumerated when
    ``m <= 16`` (the exact p, column ``randomization`` = ``"exact"``),
    otherwise ``permutations`` = ``B`` random sign vectors are drawn and
    ``p = (b + 1) / (B + 1)`` with ``b`` the draws with ``|T*| >= |T|``
    (the add-one estimator, never 0, a valid p-value; ``"monte_carlo"``).
    ``|T*| >= |T|`` is taken up to a rounding tolerance of ``1e-10 sum_q
    |d_q|`` (sign vectors giving the same sum in another order count as
    equal, never as smaller). ``permutations`` is at most
    :data:`~evalrank.evaluation.stats.MAX_PERMUTATIONS` (10^7: a
    resolution of 1e-7). The random stream is drawn from the content, not
    the names: :func:`content_stream` ``(seed, d, "compare")``, the sorted
    differences and a stream keyed by their hash, so a p-value depends on
    the seed and the differences only: not on the names of the runs,
    measure or topics (renaming a run gives the same table), on the topics'
    order or on which other runs are compared.
``p_corrected``, ``significant``
    ``randomization_p`` corrected for multiple testing over the *family of
    one measure*: the ``k`` test runs compared with the baseline on that
    measure (different measures are separate families: correct across
    measures yourself, e.g. by comparing on one measure, if you need it).
    ``"none"``; ``"bonferroni"`` ``min(1, k p)``; ``"holm"`` (Holm 1979,
    step-down: sorted ``p_(1) <= ... <= p_(k)``, ``p~_(i) = max_{j <= i}
    min(1, (k - j + 1) p_(j))``, controls the family-wise error rate);
    ``"bh"`` (Benjamini & Hochberg 1995, step-up: ``p~_(i) = min_{j >= i}
    min(1, k p_(j) / j)``, controls the false discovery rate).
    ``significant = p_corrected < alpha``.
``wins``, ``losses``, ``ties``
    Queries with ``d_q > 0``, ``< 0`` and ``== 0`` (exact equality of the
    per-query values).
``urisk``, ``trisk``
    :func:`evalrank.metrics.risk.urisk` and :func:`~evalrank.metrics.risk.trisk`
    against the baseline at ``risk_alpha``: URisk (Dinçer et al. 2016,
    eq. 1) ``= (1/n)[sum_{d>0} d_q + (1 + risk_alpha) sum_{d<0} d_q]``,
    the mean difference with losses weighted ``1 + risk_alpha``; TRisk
    (eq. 2) ``= URisk / SE(URisk)``, its studentised form. ``TRisk < -2``:
    the run is significantly riskier than the baseline (it loses more than
    it wins, losses counted ``1 + risk_alpha`` times); ``TRisk > 2``: it
    is significantly more rewarding. ``|TRisk| <= 2``: no evidence either
    way. (At ``risk_alpha = 0`` TRisk is the paired t statistic.) When
    every ``d'_q`` is equal (up to rounding, the rule of ``ttest_p``: a
    constant per-topic delta, or identical runs) ``SE = 0`` and TRisk is
    ``c / 0`` or ``0 / 0``: NaN, as ``ttest_p`` (``urisk`` gives the
    direction; :func:`evalrank.metrics.risk.trisk` itself returns +-inf).
``georisk``
    :func:`evalrank.metrics.risk.georisk` (eq. 7, ``sqrt(mean_i *
    Phi(ZRisk_i / n))`` with ZRisk of eqs. 4-6) of the run within the set
    of compared runs of that measure (the baseline and the test runs: every
    other run is one of its baselines), at ``risk_alpha``; higher is better.
    A query on which every compared run scores 0 has no expected value; it
    counts as no deviation (``zero_totals="ignore"``) and stays in ``n``.
    GeoRisk depends on which runs are compared; the baseline row has one too.

``mean_ci_low``, ``mean_ci_high``, ``delta_ci_low``, ``delta_ci_high``, ``interval``, ``level``
    A two-sided confidence interval at ``level`` (default 0.95) for the
    run's mean over the ``n`` queries (the population mean of the measure
    over topics like these) and for ``delta``, the mean of the per-query
    differences ``d_q`` (paired: the same ``n`` queries as the means, the
    queries every compared run has; see the input rules). ``interval``
    names the method, one for the whole table:

    ``"t"`` (the default): Student's t, ``mean(x) -+ t_{(1+level)/2, n-1}
    sd(x) / sqrt(n)`` with the sample standard deviation (``n - 1``), ``x``
    the run's per-query values for the mean and the differences ``d`` for
    the delta (the paired t interval, the one that goes with ``ttest_p``:
    at ``level = 0.95`` the delta's interval excludes 0 exactly when
    ``ttest_p < 0.05``; the same as :func:`scipy.stats.t.interval` with
    :func:`scipy.stats.sem`). Exact for normal scores, asymptotically right
    otherwise. All values equal (up to rounding, as for ``ttest_p``): the
    interval is the single point ``[mean, mean]``.

    ``"bootstrap"``: the bias-corrected and accelerated (BCa) bootstrap
    interval of the mean (Efron 1987, "Better bootstrap confidence
    intervals", JASA 82; Efron & Tibshirani 1993, *An Introduction to the
    Bootstrap*, Sec. 14.3, eqs. 14.9-14.15): ``resamples`` = ``B``
    resamples of the ``n`` queries with replacement (for the delta, of the
    query pairs: the differences ``d_q`` are resampled), ``theta*_b`` the
    mean of resample ``b``; bias correction ``z0 = Phi^-1(p0)`` with ``p0 =
    (#{theta*_b < theta} + #{theta*_b <= theta}) / (2B)`` (ties count
    half; ``p0`` kept within ``[1/(2B), 1 - 1/(2B)]``), acceleration ``a =
    sum_i u_i^3 / (6 (sum_i u_i^2)^(3/2))`` from the jackknife (``u_i =
    mean_j theta_(j) - theta_(i)``, ``theta_(i)`` the mean without query
    ``i``); the interval is the ``alpha_1`` and ``alpha_2`` quantiles of
    the ``theta*_b`` (linear interpolation, :func:`numpy.quantile`'s
    default) with ``alpha_k = Phi(z0 + (z0 + z_k) / (1 - a (z0 + z_k)))``,
    ``z_k = Phi^-1((1 -+ level) / 2)`` (a ``1 - a (z0 + z_k) <= 0``, only
    at extreme skew and level, gives ``alpha_k`` = 0 or 1). The same
    resamples as :func:`scipy.stats.bootstrap` ``(method="BCa")`` given the
    same generator (tested). BCa is second-order accurate; the percentile
    interval (``a = z0 = 0``) is too narrow by about ``sqrt((n - 1) / n)``
    and ignores skew, which per-query differences of IR measures often
    have. ``resamples`` must put at least
    :data:`~evalrank.evaluation.stats.TAIL_RESAMPLES` (10) resamples beyond
    each end: ``B >= 10 / ((1 - level) / 2)``
    (:func:`~evalrank.evaluation.stats.min_resamples`: 400 at 0.95, 2,000
    at 0.99; with 1 or 2 a "95 %" interval was a point that missed the
    estimate), and at most :data:`~evalrank.evaluation.stats.MAX_RESAMPLES`
    (10^7; every resample's mean is kept). Seeded from the content:
    :func:`content_stream` ``(seed, x, "compare-bootstrap", "mean")`` for
    a mean (the run's values sorted, their hash keying the stream; so a
    run's mean interval does not depend on the baseline, the other runs or
    any name) and ``(seed, d, "compare-bootstrap", "delta")`` for a delta;
    the same seed gives the same table. All values equal: the single point
    ``[mean, mean]``.

    Coverage, by simulation (tests/evaluation/test_compare_intervals.py:
    50 topics, baseline scores Beta(0.5, 2), a test run that gains on 30 %
    of them and loses on 10 %, so the differences are skewed, skewness
    about 1.6, with 60 % ties; 10,000 comparisons, 1,000 resamples): at
    0.95 the delta's interval covers the true mean difference 0.934 of the
    time with t and 0.943 with BCa, the test run's mean 0.949 and 0.948.
    Both are a little short of nominal for skewed differences at 50
    topics, t more so; the test keeps each within 0.92-0.98. The intervals
    are per row, not simultaneous over the runs compared (no
    multiple-testing correction, unlike ``p_corrected``).

The baseline's own row has ``delta = 0`` and ``urisk = 0``; its test
columns (``ttest_p``, ``randomization_p``, ``p_corrected``, ``significant``,
``wins``, ``losses``, ``ties``, ``trisk``, ``randomization``) and its
``delta_ci_low`` / ``delta_ci_high`` are missing (NaN / ``<NA>``): it is
not compared with itself. Its mean has an interval like every run's.

Input rules (every violation raises a ``ValueError`` that names the argument):
run names, query ids and measure names are compared as strings; one value
per (run, qid, measure); values must be finite (a NaN is refused, not
skipped: skipping a query for one run would compare runs on different
queries; fill it, e.g. with 0 as trec_eval ``-c`` does, or drop the query
from every run) and non-negative (the risk measures need it); for each
measure the baseline and every test run must have the same queries, at
least 2 of them; a qid ``"all"`` is refused (that is trec_eval's summary
row, not a query). :func:`compare` refuses the measures whose per-topic
value is text (trec_eval's ``runid``, ``relstring``:
:func:`check_numeric_measures`).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from evalrank import seeds
from evalrank.evaluation.stats import (CORRECTIONS, DEFAULT_LEVEL, DEFAULT_RESAMPLES, EXACT_MAX,
                                       adjust_p, bootstrap_interval, check_permutations, check_resamples,
                                       paired_t_test, randomization_p, t_interval)
from evalrank.metrics import risk

__all__ = [
    "compare",
    "compare_table",
    "check_numeric_measures",
    "select_run",
    "check_options",
    "content_stream",
    "adjust_p",
    "paired_t_test",
    "randomization_p",
    "t_interval",
    "bootstrap_interval",
    "CORRECTIONS",
    "COLUMNS",
    "EXACT_MAX",
    "INTERVALS",
    "DEFAULT_INTERVAL",
    "DEFAULT_LEVEL",
    "DEFAULT_RESAMPLES",
]

#: Columns of :func:`compare_table`, in order.
COLUMNS = (
    "measure", "run", "n_queries", "mean", "mean_ci_low", "mean_ci_high",
    "delta", "delta_ci_low", "delta_ci_high", "interval", "level",
    "ttest_p", "randomization_p", "randomization", "p_corrected", "significant",
    "wins", "losses", "ties", "urisk", "trisk", "georisk",
)

#: Confidence interval methods (module docstring): paired Student t, BCa bootstrap.
INTERVALS = ("t", "bootstrap")
#: The interval defaults of :func:`compare_table` and :func:`compare` (the CLI's are tested to equal them).
DEFAULT_INTERVAL = "t"

_REQUIRED = ("run", "qid", "measure", "value")


# ---------------------------------------------------------------------------
# argument checks
# ---------------------------------------------------------------------------
def _names(x, arg: str) -> list[str]:
    if isinstance(x, str):
        return [x]
    if isinstance(x, (Sequence, pd.Index, np.ndarray)) and not isinstance(x, (bytes, bytearray)):
        out = [str(v) for v in x]
        dup = sorted({v for v in out if out.count(v) > 1})
        if dup:
            raise ValueError(f"{arg} names {dup} more than once")
        return out
    raise ValueError(f"{arg} must be a name or a list of names, got {x!r}")


def check_options(correction, alpha, permutations, seed, risk_alpha, interval=DEFAULT_INTERVAL,
                  level=DEFAULT_LEVEL, resamples=DEFAULT_RESAMPLES, *, names=None) -> None:
    """Check :func:`compare_table`'s options; a ``ValueError`` names the first bad one by its
    keyword, or by ``names[keyword]`` where given (the command line's ``--risk-alpha``)."""
    def arg(key: str) -> str:
        return (names or {}).get(key, key)

    if correction not in CORRECTIONS:
        raise ValueError(f"{arg('correction')} must be one of {CORRECTIONS}, got {correction!r}")
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.floating)) or not 0 < alpha < 1:
        raise ValueError(f"{arg('alpha')} must be a number in (0, 1), got {alpha!r}")
    check_permutations(permutations, arg("permutations"))
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"{arg('seed')} must be a non-negative integer, got {seed!r}")
    if isinstance(risk_alpha, bool) or not isinstance(risk_alpha, (int, float, np.floating)) \
            or not np.isfinite(risk_alpha) or risk_alpha < 0:
        raise ValueError(f"{arg('risk_alpha')} must be a finite number >= 0, got {risk_alpha!r}")
    if interval not in INTERVALS:
        raise ValueError(f"{arg('interval')} must be one of {INTERVALS}, got {interval!r}")
    if isinstance(level, bool) or not isinstance(level, (int, float, np.floating)) or not 0 < level < 1:
        raise ValueError(f"{arg('level')} must be a number in (0, 1), got {level!r}")
    check_resamples(resamples, level if interval == "bootstrap" else None, arg("resamples"))


_check_options = check_options


#: What trec_eval's text measures hold per topic (their values are not numbers to compare).
_TEXT_MEASURES = {"runid": "the run's name", "relstring": "the relevance grades of the top documents as a string"}


def check_numeric_measures(measures, arg: str = "measures") -> None:
    """Refuse a measure named in ``measures`` whose per-topic value is text, not a number
    (trec_eval's ``runid`` and ``relstring``): a ``ValueError`` naming ``arg`` (``-m``,
    ``--measure``). Nicknames (``all_trec``) stand for their numeric measures here; a name that
    does not parse is left to the evaluation, which names it."""
    from evalrank.metrics.names import NICKNAMES, TrecMeasure, parse_measure

    if isinstance(measures, str) or not isinstance(measures, (Sequence, pd.Index, np.ndarray)):
        measures = [measures]
    for name in measures:
        if isinstance(name, str) and name.strip() in NICKNAMES:
            continue
        try:
            m = parse_measure(name) if isinstance(name, str) else name
        except (ValueError, TypeError):
            continue
        if isinstance(m, TrecMeasure) and m.family.fmt == "string":
            raise ValueError(f"{arg} {name!r} is text per topic ({_TEXT_MEASURES.get(m.name, 'a string')}), not a "
                             "number: runs are compared on numbers per topic; give a numeric measure (map, "
                             "ndcg_cut.10, P.10, ...)")


def _tidy(per_query) -> pd.DataFrame:
    if not isinstance(per_query, pd.DataFrame):
        raise ValueError(f"per_query must be a pandas DataFrame with columns {list(_REQUIRED)}, "
                         f"got {type(per_query).__name__}")
    missing = [c for c in _REQUIRED if c not in per_query.columns]
    if missing:
        raise ValueError(f"per_query lacks column(s) {missing}; it needs {list(_REQUIRED)} "
                         f"(one row per run x query x measure), has {list(per_query.columns)}")
    df = pd.DataFrame({c: per_query[c].astype(str).to_numpy() for c in ("run", "qid", "measure")})
    value = per_query["value"]
    if not (pd.api.types.is_numeric_dtype(value) and not pd.api.types.is_bool_dtype(value)):
        raise ValueError(f"per_query['value'] must be numeric, got dtype {value.dtype}")
    df["value"] = value.to_numpy(dtype=np.float64, na_value=np.nan)
    if len(df) == 0:
        raise ValueError("per_query has no rows")
    summary = df["qid"] == "all"
    if summary.any():
        raise ValueError(f"per_query has {int(summary.sum())} row(s) with qid 'all': that is trec_eval's summary "
                         "over the queries, not a query; pass the per-query rows only")
    bad = ~np.isfinite(df["value"].to_numpy())
    if bad.any():
        first = df[bad].sort_values(["measure", "run", "qid"]).iloc[0]
        raise ValueError(
            f"per_query has {int(bad.sum())} NaN or infinite value(s), e.g. run {first['run']!r}, query "
            f"{first['qid']!r}, measure {first['measure']!r}; every compared run needs a value on every query "
            "(a skipped query would compare runs on different queries): fill them (e.g. 0 for a query a run "
            "did not answer, as trec_eval -c) or drop those queries from every run")
    dup = df.duplicated(["run", "qid", "measure"], keep=False)
    if dup.any():
        first = df[dup].sort_values(["measure", "run", "qid"]).iloc[0]
        raise ValueError(f"per_query has {int(dup.sum())} rows that repeat a (run, qid, measure), e.g. run "
                         f"{first['run']!r}, query {first['qid']!r}, measure {first['measure']!r}")
    neg = df["value"].to_numpy() < 0
    if neg.any():
        first = df[neg].sort_values(["measure", "run", "qid"]).iloc[0]
        raise ValueError(f"per_query has {int(neg.sum())} negative value(s), e.g. run {first['run']!r}, query "
                         f"{first['qid']!r}, measure {first['measure']!r} = {float(first['value']):g}; the risk measures "
                         "(URisk, TRisk, GeoRisk) need non-negative effectiveness scores")
    return df.sort_values(["measure", "run", "qid"], kind="stable").reset_index(drop=True)


def _matrix(df: pd.DataFrame, measure: str, runs: list[str], baseline: str) -> tuple[list[str], np.ndarray]:
    """``(qids, X)``: the runs' scores on ``measure`` (rows in ``runs`` order,
    baseline first), queries sorted; checks every run has the baseline's queries."""
    sub = df[df["measure"] == measure]
    by_run = {r: g for r, g in sub.groupby("run", sort=True)}
    lacking = [r for r in runs if r not in by_run]
    if lacking:
        raise ValueError(f"per_query has no rows for run(s) {lacking} on measure {measure!r}")
    base_q = by_run[baseline]["qid"].to_numpy()
    base_set = set(base_q)
    for r in runs[1:]:
        q = set(by_run[r]["qid"])
        extra, short = sorted(q - base_set), sorted(base_set - q)
        if extra or short:
            parts = []
            if short:
                parts.append(f"lacks {len(short)} of the baseline's queries (e.g. {short[:5]})")
            if extra:
                parts.append(f"has {len(extra)} queries the baseline lacks (e.g. {extra[:5]})")
            raise ValueError(
                f"per_query: on measure {measure!r} run {r!r} " + " and ".join(parts) + f" (baseline {baseline!r}, "
                f"{len(base_set)} queries); runs are compared query by query, so every compared run needs the "
                "same queries (evaluate them with the same qrels; fill or drop the missing queries)")
    if len(base_q) < 2:
        raise ValueError(f"per_query: measure {measure!r} has {len(base_q)} query; the paired tests need at least 2")
    X = np.vstack([by_run[r]["value"].to_numpy() for r in runs])  # each sorted by qid (df is sorted)
    return list(base_q), X


# ---------------------------------------------------------------------------
# the table
# ---------------------------------------------------------------------------
def compare_table(per_query: pd.DataFrame, *, baseline: str, tests=None, measures=None,
                  correction: str = "holm", alpha: float = 0.05, permutations: int = 10_000,
                  seed: int = 0, risk_alpha: float = 1.0, interval: str = DEFAULT_INTERVAL,
                  level: float = DEFAULT_LEVEL, resamples: int = DEFAULT_RESAMPLES) -> pd.DataFrame:
    """Compare runs with ``baseline`` query by query, one row per (measure, run).

    ``per_query``: columns ``run, qid, measure, value``, one row per run x
    query x measure (other columns are ignored). ``tests``: the run name(s)
    to compare (default: every other run in ``per_query``, sorted by name).
    ``measures``: the measure name(s) (default: all, sorted). Rows come per
    measure (in ``measures`` order), the baseline first, then the tests in
    ``tests`` order. ``correction`` (``"none"``, ``"bonferroni"``,
    ``"holm"``, ``"bh"``) corrects ``randomization_p`` across the tests of
    one measure; ``significant = p_corrected < alpha``. ``permutations``
    and ``seed``: the Monte Carlo randomization test (more than 16 non-zero
    differences). ``risk_alpha``: the risk sensitivity of URisk, TRisk and
    GeoRisk. ``interval`` (``"t"`` or ``"bootstrap"``, BCa), ``level`` and
    ``resamples`` (bootstrap only; seeded by ``seed``): the confidence
    intervals of every mean and delta.

    Columns: :data:`COLUMNS`; the meaning of each, the equations and the
    input rules are in the module docstring. The options are kept in
    ``table.attrs``. Same input and seed give the same table whatever the
    row order of ``per_query``.
    """
    _check_options(correction, alpha, permutations, seed, risk_alpha, interval, level, resamples)
    df = _tidy(per_query)
    runs_present = sorted(df["run"].unique())
    if not isinstance(baseline, str):
        raise ValueError(f"baseline must be a run name (str), got {baseline!r}")
    if baseline not in runs_present:
        raise ValueError(f"baseline {baseline!r} is not a run of per_query (runs: {runs_present[:20]})")
    if tests is None:
        test_runs = [r for r in runs_present if r != baseline]
    else:
        test_runs = _names(tests, "tests")
        unknown = [r for r in test_runs if r not in runs_present]
        if unknown:
            raise ValueError(f"tests names run(s) {unknown} that per_query lacks (runs: {runs_present[:20]})")
        if baseline in test_runs:
            raise ValueError(f"tests includes the baseline {baseline!r}; it is compared with itself in its own row")
    if not test_runs:
        raise ValueError(f"tests: nothing to compare with baseline {baseline!r} (per_query has runs {runs_present})")
    measures_present = sorted(df["measure"].unique())
    if measures is None:
        measure_list = measures_present
    else:
        measure_list = _names(measures, "measures")
        unknown = [m for m in measure_list if m not in measures_present]
        if unknown:
            raise ValueError(f"measures names {unknown} that per_query lacks (measures: {measures_present})")
        if not measure_list:
            raise ValueError("measures is empty")

    rows: list[dict[str, Any]] = []
    for measure in measure_list:
        _, X = _matrix(df, measure, [baseline, *test_runs], baseline)
        rows += _measure_rows(X, measure, baseline, test_runs, correction=correction, alpha=alpha,
                              permutations=permutations, seed=seed, risk_alpha=risk_alpha, interval=interval,
                              level=level, resamples=resamples)
    table = _typed(pd.DataFrame(rows, columns=list(COLUMNS)))
    table.attrs.update({
        "baseline": baseline, "tests": list(test_runs), "correction": correction, "alpha": float(alpha),
        "primary_test": "randomization", "permutations": int(permutations), "exact_max": EXACT_MAX,
        "seed": int(seed), "risk_alpha": float(risk_alpha), "interval": interval, "level": float(level),
        "resamples": int(resamples),
    })
    return table


def _measure_rows(X: np.ndarray, measure: str, baseline: str, test_runs: list[str], *, correction, alpha,
                  permutations, seed, risk_alpha, interval, level, resamples) -> list[dict[str, Any]]:
    """The rows of one measure, the baseline's first: ``X`` the runs' scores (baseline, then
    ``test_runs``) on the same queries; the columns and options of :func:`compare_table`."""

    def ci(x, kind) -> tuple[float, float]:
        if interval == "t":
            return t_interval(x, level)
        values, rng = content_stream(seed, x, "compare-bootstrap", kind)
        return bootstrap_interval(values, level, resamples=int(resamples), rng=rng)

    n = X.shape[1]
    b = X[0]
    means = X.mean(axis=1)
    ur = np.atleast_1d(risk.urisk(X[1:], b, risk_alpha))
    tr = np.atleast_1d(risk.trisk(X[1:], b, risk_alpha))
    gr = np.atleast_1d(risk.georisk(X, None, risk_alpha, zero_totals="ignore"))
    rp = np.empty(len(test_runs))
    block = []
    for i, run in enumerate(test_runs, start=1):
        d = X[i] - b
        weighted = np.where(d < 0, (1 + risk_alpha) * d, d)  # eq. 1's d'_q: TRisk = mean(d') / SE(d')
        if not weighted.std(ddof=1) > 1e-10 * np.abs(weighted).max():
            tr[i - 1] = np.nan  # SE = 0 (up to rounding): TRisk is c/0 or 0/0, undefined (as ttest_p)
        values, rng = content_stream(seed, d, "compare")
        rp[i - 1], method = randomization_p(values, permutations=permutations, rng=rng)
        m_low, m_high = ci(X[i], "mean")
        d_low, d_high = ci(d, "delta")
        block.append({
            "measure": measure, "run": run, "n_queries": n, "mean": means[i], "mean_ci_low": m_low,
            "mean_ci_high": m_high, "delta": means[i] - means[0], "delta_ci_low": d_low,
            "delta_ci_high": d_high, "interval": interval, "level": float(level),
            "ttest_p": paired_t_test(X[i], b, few="raise", equal=float("nan"), tol=1e-10)[1],
            "randomization_p": rp[i - 1], "randomization": method,
            "wins": int((d > 0).sum()), "losses": int((d < 0).sum()), "ties": int((d == 0).sum()),
            "urisk": float(ur[i - 1]), "trisk": float(tr[i - 1]), "georisk": float(gr[i]),
        })
    pc = adjust_p(rp, correction)
    for row, p in zip(block, pc):
        row["p_corrected"] = float(p)
        row["significant"] = bool(p < alpha)
    m_low, m_high = ci(b, "mean")
    return [{"measure": measure, "run": baseline, "n_queries": n, "mean": means[0], "mean_ci_low": m_low,
             "mean_ci_high": m_high, "delta": 0.0, "interval": interval, "level": float(level),
             "urisk": 0.0, "georisk": float(gr[0])}, *block]


def content_stream(seed: int, values, *kind) -> tuple[np.ndarray, np.random.Generator]:
    """``(sorted values, generator)``: the values in ascending order and the random stream
    :func:`evalrank.seeds.rng` ``(seed, *kind, *key)`` whose ``key`` is four 32-bit words of the
    SHA-256 of those sorted values (float64, little-endian, ``-0.0`` as ``0.0``). A statistic drawn
    from them depends on the seed and the multiset of values only: not on the names of the runs,
    measures or topics, nor on the order of the topics or on which other runs are compared."""
    v = np.sort(np.asarray(values, dtype=np.float64)) + 0.0
    digest = hashlib.sha256(v.astype("<f8").tobytes()).digest()
    key = tuple(int(w) for w in np.frombuffer(digest[:16], dtype="<u4"))
    return v, seeds.rng(seed, *kind, *key)


def _typed(table: pd.DataFrame) -> pd.DataFrame:
    """:func:`compare_table`'s column dtypes (missing test columns of the baseline row: NaN / <NA>)."""
    for c in ("measure", "run", "interval", "randomization"):
        table[c] = table[c].astype(object)
    table["n_queries"] = table["n_queries"].astype(np.int64)
    for c in ("mean", "mean_ci_low", "mean_ci_high", "delta", "delta_ci_low", "delta_ci_high", "level", "ttest_p",
              "randomization_p", "p_corrected", "urisk", "trisk", "georisk"):
        table[c] = table[c].astype(np.float64)
    table["significant"] = table["significant"].astype("boolean")
    for c in ("wins", "losses", "ties"):
        table[c] = table[c].astype("Int64")
    return table


# ---------------------------------------------------------------------------
# runs given by path or by name
# ---------------------------------------------------------------------------
def _path_of(run) -> str | None:
    """The file of a run given as a path (or a TrecFile read from one), else None."""
    if isinstance(run, (str, os.PathLike)):
        return os.fspath(run)
    path = getattr(run, "path", None)
    return os.fspath(path) if isinstance(path, (str, os.PathLike)) else None


def _same_file(a: str, b: str) -> bool:
    if os.path.abspath(a) == os.path.abspath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def _named_runs(runs):
    """``(runs for evaluate, [(name, path or None)])``.

    A list of files is named as ``evaluate`` names it, by file name; files
    that share a file name (``bm25/run.txt``, ``dense/run.txt``) are named
    by the shortest end of their paths that tells them apart, and handed to
    ``evaluate`` as a mapping under those names. The same file given twice is
    refused. A mapping ``{name: run}`` keeps its names (a value that is a path
    can be selected by that path too); anything else (one in-memory run) is
    passed on as it is, its name is ``evaluate``'s."""
    if isinstance(runs, (str, os.PathLike)):
        runs = [runs]
    if isinstance(runs, dict):
        if all(isinstance(k, str) for k in runs) and all(_path_of(v) is not None for v in runs.values()):
            return runs, [(k, _path_of(v)) for k, v in runs.items()]
        return runs, []
    if not isinstance(runs, (list, tuple)) or not all(_path_of(r) is not None for r in runs):
        return runs, []
    paths = [_path_of(r) for r in runs]
    for i in range(len(paths)):
        for j in range(i):
            if _same_file(paths[i], paths[j]):
                raise ValueError(f"runs: the same run file is given twice, {paths[j]} and {paths[i]}")
    parts = [Path(os.path.normpath(p)).parts for p in paths]
    names = [pp[-1] for pp in parts]
    if len(set(names)) == len(names):
        return runs, list(zip(names, paths))
    for name in sorted({n for n in names if names.count(n) > 1}):
        group = [i for i, n in enumerate(names) if n == name]
        for k in range(2, max(len(parts[i]) for i in group) + 1):
            ends = [os.path.normpath(paths[i]) if k >= len(parts[i]) else "/".join(parts[i][-k:]) for i in group]
            if len(set(ends)) == len(ends):
                break
        for i, end in zip(group, ends):
            names[i] = end
    return dict(zip(names, runs)), list(zip(names, paths))


def _stem(path: str) -> str:
    """A run file's name without its extension (and a compression suffix): ``runs/bm25.txt``,
    ``bm25.run.gz`` -> ``bm25``, ``bm25.run``."""
    name = Path(path).name
    for ext in (".gz", ".bz2", ".xz"):
        if name.endswith(ext) and len(name) > len(ext):
            name = name[:-len(ext)]
            break
    stem, dot, _ = name.rpartition(".")
    return stem if dot and stem else name


def _resolve(selector, entries: list[tuple[str, str | None]], arg: str) -> str:
    """The run name ``selector`` stands for: a run given as that file (any
    spelling of its path: ``runs/a.txt``, ``./runs/a.txt``, absolute, a
    link), else a run of that name, else a run of that file name, else one
    of that file name without its extension (``bm25`` for ``runs/bm25.txt``;
    an error naming the paths when several runs have it). A selector that is none of
    these is returned as it is (compare_table reports an unknown name) unless
    the runs are files: then the error lists them."""
    if isinstance(selector, os.PathLike):
        selector = os.fspath(selector)
    if not isinstance(selector, str):
        raise ValueError(f"{arg} must be a run's name or path (str), got {selector!r}")
    with_path = [(n, p) for n, p in entries if p is not None]
    hits = [n for n, p in with_path if _same_file(selector, p)]
    if len(hits) == 1:
        return hits[0]
    names = [n for n, _ in entries]
    if selector in names:
        return selector
    for what, key in (("file name", lambda p: Path(p).name), ("file name without its extension", _stem)):
        hits = [(n, p) for n, p in with_path if key(p) == selector]
        if len(hits) == 1:
            return hits[0][0]
        if len(hits) > 1:
            raise ValueError(f"{arg} {selector!r} is ambiguous: {len(hits)} runs have that {what}, "
                             + " and ".join(p for _, p in hits) + "; give the path of the one you mean")
    if entries and len(with_path) == len(entries):
        shown = ", ".join(f"{p} ({n})" if n != p else p for n, p in entries[:20])
        raise ValueError(f"{arg} {selector!r} is not one of the runs given; give a run's path or name: {shown}"
                         + (f" and {len(entries) - 20} more" if len(entries) > 20 else ""))
    return selector


def select_run(selector, paths, arg: str = "baseline") -> str:
    """The name of the run among the files ``paths`` that ``selector`` selects, as
    :func:`compare` selects its baseline (a path of the file, the run's name, its file name with
    or without the extension); one line naming ``arg`` and the runs when none or several match."""
    _, entries = _named_runs([os.fspath(p) for p in paths])
    return _resolve(selector, entries, arg)


def compare(qrels, runs, measures, *, baseline: str, test=None, correction: str = "holm", alpha: float = 0.05,
            permutations: int = 10_000, seed: int = 0, risk_alpha: float = 1.0, interval: str = DEFAULT_INTERVAL,
            level: float = DEFAULT_LEVEL, resamples: int = DEFAULT_RESAMPLES, **evaluate_options) -> pd.DataFrame:
    """Evaluate ``runs`` on ``qrels`` and compare them with ``baseline``.

    ``evalrank.evaluation.evaluate.evaluate(qrels, runs, measures,
    **evaluate_options)`` gives the per-query scores; :func:`compare_table`
    compares them, with ``test`` as its ``tests`` (default: every other
    run), the measures in the order ``evaluate`` returns them and the other
    options as they are (``interval``, ``level``, ``resamples``: the
    confidence intervals, module docstring).

    ``runs``: a list of run files, named by their file names as
    ``evaluate`` names them (``runs/bm25.txt`` is ``bm25.txt``; files that
    share a file name, ``bm25/run.txt`` and ``dense/run.txt``, are named by
    the shortest end of their paths that tells them apart), or a mapping
    ``{name: run}``. ``baseline`` and each ``test`` select a run by path or
    by name: the path as given or any other path of the same file
    (``./runs/bm25.txt``, an absolute path, a link), or the run's name, or
    its file name when one run has it, with or without its extension
    (``bm25``; when several have it, e.g. ``run.txt`` above, the error names
    their paths). Checked before any run is evaluated.
    """
    from evalrank.evaluation.evaluate import evaluate

    _check_options(correction, alpha, permutations, seed, risk_alpha, interval, level, resamples)
    check_numeric_measures(measures)
    runs, entries = _named_runs(runs)
    baseline = _resolve(baseline, entries, "baseline")
    if test is not None:
        if isinstance(test, (str, os.PathLike)):
            test = _resolve(test, entries, "test")
        elif isinstance(test, (Sequence, pd.Index, np.ndarray)) and not isinstance(test, (bytes, bytearray)):
            test = [_resolve(t, entries, "test") for t in test]
    per_query = evaluate(qrels, runs, measures, **evaluate_options)
    if isinstance(per_query, pd.DataFrame) and "measure" in per_query.columns:
        measure_order = [str(m) for m in pd.unique(per_query["measure"].astype(str))]
    else:
        measure_order = None  # compare_table reports the bad table
    return compare_table(per_query, baseline=baseline, tests=test, measures=measure_order, correction=correction,
                         alpha=alpha, permutations=permutations, seed=seed, risk_alpha=risk_alpha,
                         interval=interval, level=level, resamples=resamples)
