r"""Confidence sequences for the mean of i.i.d. per-draw terms: intervals valid at every look.

A labelling campaign is looked at after every round (``evalrank active estimate`` after each
``--continue``), and a team stops when the interval is narrow enough or the difference is
decided. A fixed-budget interval (Student's t, :mod:`evalrank.active.interval`) promises its
coverage at one budget fixed in advance; looked at repeatedly, the chance that some look
misses the truth grows with the number of looks. A *confidence sequence* ``(C_t)`` promises
``P(mu in C_t for every t >= 1) >= 1 - alpha``: any number of looks, stopping whenever one likes.

Two sequences for the mean ``mu`` of i.i.d. terms ``psi_1, psi_2, ...`` (the estimator's
per-draw terms, :mod:`evalrank.active.estimators`):

:func:`asymptotic_cs` (the default of ``evalrank active estimate``)
    Waudby-Smith, Arnold, Wu, Howard & Ramdas (2024), "Time-uniform central limit theory and
    asymptotic confidence sequences", Annals of Statistics 52(6), Theorem 2.2: Robbins' two-sided
    Gaussian-mixture boundary applied to the running mean with the running standard deviation,

        C_t = psi_bar_t -/+ sigma_t sqrt( 2 (t rho^2 + 1) / (t^2 rho^2) log( sqrt(t rho^2 + 1) / alpha ) ),

    with ``rho^2`` chosen to make the boundary tightest at ``t*`` draws (Howard et al. 2021,
    eq. (3.12); :func:`best_rho2`), ``t*`` fixed before any label is seen: the plan's number of
    draws in its first round. Valid as ``t`` grows (the terms need only finite variance);
    :data:`SMALL_T_TERMS` and the variance floor below are what the coverage study on the
    default data showed small samples need.

:func:`betting_cs` (``--interval betting``)
    Waudby-Smith & Ramdas (2024), "Estimating means of bounded random variables by betting",
    JRSS-B 86(1), Sec. 4, the hedged capital process with the predictable plug-in bets
    (eqs. (26)-(27)): exact at every sample size, for terms in a known range ``[lo, hi]``. It is
    only as good as that range is tight: importance weights stretch the range of a term by the
    largest weight, so it suits bounded measures (ERR, NDCG) with a floored ``q``
    (:func:`evalrank.active.sampling.defensive`), and is too wide for DCG (whose range is the
    ideal DCG of the longest list times the largest weight). Measured on the default data
    (``benchmarks/betting_width.py``, ``benchmarks/RESULTS.md``): 1.0-1.3x the asymptotic
    sequence's width for one ranker's ERR from about 200 draws; 4-73x for a difference of two
    rankers, 2-6x for DCG -- too wide to use there.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["best_rho2", "mixture_margin", "asymptotic_cs", "betting_cs", "running_moments", "cs_half_width",
           "small_sample_factor", "BOUNDARY_ALPHA_SHARE", "FLOOR_TERMS"]


def _check_level(level) -> float:
    if isinstance(level, bool) or not isinstance(level, (float, int)) or not 0.0 < float(level) < 1.0:
        raise ValueError(f"level must be a number in (0, 1), got {level!r}")
    return float(level)


def best_rho2(t_star, alpha: float) -> float:
    """The mixture's ``rho^2`` that minimizes the boundary at ``t_star`` draws (Howard, Ramdas,
    McAuliffe & Sekhon 2021, "Time-uniform, nonparametric, nonasymptotic confidence sequences",
    Ann. Statist. 49(2), eq. (3.12); confseq's ``best_rho``):
    ``rho^2 = (-2 log alpha + log(-2 log alpha + 1)) / t*``."""
    if not (np.isfinite(t_star) and t_star > 0):
        raise ValueError(f"t_star must be > 0, got {t_star!r}")
    la = -2.0 * math.log(alpha)
    return (la + math.log(la + 1.0)) / float(t_star)


def mixture_margin(t, rho2: float, alpha: float):
    """Robbins' two-sided normal-mixture boundary for unit variance, divided by ``t``:
    ``sqrt(2 (t rho^2 + 1) / (t^2 rho^2) log(sqrt(t rho^2 + 1) / alpha))`` (Waudby-Smith et al.
    2024, Theorem 2.2). Its ``t``-th value times the standard deviation is the half width after
    ``t`` terms."""
    t = np.asarray(t, dtype=np.float64)
    return np.sqrt(2.0 * (t * rho2 + 1.0) / (t * t * rho2) * np.log(np.sqrt(t * rho2 + 1.0) / alpha))


def running_moments(psi) -> tuple[np.ndarray, np.ndarray]:
    """Running mean and running variance (divisor ``t``) of ``psi`` after each term."""
    psi = np.asarray(psi, dtype=np.float64)
    t = np.arange(1, psi.size + 1, dtype=np.float64)
    mean = np.cumsum(psi) / t
    # centred on the final mean for accuracy, then shifted: sum (x - m_t)^2 = S2 - t (m_t - c)^2
    c = mean[-1] if psi.size else 0.0
    d = psi - c
    var = np.maximum(np.cumsum(d * d) / t - (mean - c) ** 2, 0.0)
    return mean, var


#: the variance floor's weight: the running variance is pooled with the floor as if the floor
#: were this many terms (:func:`asymptotic_cs`)
FLOOR_TERMS = 2.0
#: the share of ``alpha`` the boundary spends: the asymptotic sequence is computed at
#: ``alpha' = 0.8 alpha`` (nominal 95 %: the boundary of 96 %), the allowance for the
#: approximation at small samples that the coverage study measured (``campaign_coverage.csv``)
BOUNDARY_ALPHA_SHARE = 0.8


def small_sample_factor(t, alpha: float):
    """Student's small-sample correction of a plug-in standard deviation after ``t`` terms:
    ``t_{t-1}(1 - alpha/2) / z(1 - alpha/2)`` (1.15 at 10 terms, 1.04 at 30, 1.01 at 100): the
    running ``sigma_t`` of few terms is noisy and, on skewed terms, too small. The quantiles are
    scipy's kernels, ``special.stdtrit`` and ``special.ndtri`` (what ``stats.t.ppf`` and
    ``stats.norm.ppf`` return, without importing scipy.stats: ~1 CPU-s per active-mc job)."""
    from scipy.special import ndtri, stdtrit

    t = np.asarray(t, dtype=np.float64)
    return stdtrit(np.maximum(t - 1.0, 1.0), 1.0 - alpha / 2) / ndtri(1.0 - alpha / 2)


def asymptotic_cs(psi, *, level: float = 0.95, t_star, var_floor: float = 0.0) -> dict:
    """The asymptotic confidence sequence of the running mean of ``psi`` (module docstring),
    after every term: ``estimate``, ``ci_low``, ``ci_high``, ``half`` (arrays of ``len(psi)``).

    ``t_star``: the number of terms the boundary is tuned for, fixed before the data (the plan's
    draws at the budget it was planned for). The boundary is Theorem 2.2's at ``alpha' =``
    :data:`BOUNDARY_ALPHA_SHARE` ``* (1 - level)``, times :func:`small_sample_factor`, on the
    running variance (divisor ``t - 1``) pooled with ``var_floor`` weighted as
    :data:`FLOOR_TERMS` terms, ``((t - 1) s_t^2 + FLOOR_TERMS var_floor) / (t - 1 + FLOOR_TERMS)``
    -- a few-draws guard (a sample that has not met the tail has a small ``s_t``); the campaign
    passes the label model's predicted variance of the terms. All three were chosen by the
    coverage study on the default data (``campaign_coverage.csv``: coverage at every budget and
    along whole sequences, and the width they cost). With one term and no floor the interval is
    infinite."""
    level = _check_level(level)
    psi = np.asarray(psi, dtype=np.float64)
    if psi.ndim != 1:
        raise ValueError(f"psi must be 1-d, got shape {psi.shape}")
    if not np.isfinite(psi).all():
        raise ValueError("psi must be finite")
    if not (np.isfinite(var_floor) and var_floor >= 0):
        raise ValueError(f"var_floor must be finite and >= 0, got {var_floor!r}")
    alpha = BOUNDARY_ALPHA_SHARE * (1.0 - level)
    rho2 = best_rho2(t_star, alpha)
    mean, var = running_moments(psi)
    t = np.arange(1, psi.size + 1, dtype=np.float64)
    half = cs_half_width(t, var * t / np.maximum(t - 1.0, 1.0), rho2, alpha, var_floor)
    return {"estimate": mean, "ci_low": mean - half, "ci_high": mean + half, "half": half, "rho2": rho2}


def cs_half_width(t, s2, rho2: float, alpha: float, var_floor=0.0, *, factors=None):
    """The half width of :func:`asymptotic_cs` after ``t`` terms with sample variance ``s2``
    (divisor ``t - 1``), vectorized (the coverage study calls it on many campaigns at once).
    ``factors``: ``(mixture_margin(t, rho2, alpha), small_sample_factor(t, alpha))`` when the
    caller has them already (the coverage study's two sequences share them)."""
    t = np.asarray(t, dtype=np.float64)
    s2 = np.asarray(s2, dtype=np.float64)
    floor = np.asarray(var_floor, dtype=np.float64)
    pooled = ((t - 1.0) * s2 + FLOOR_TERMS * floor) / (t - 1.0 + FLOOR_TERMS)
    margin, factor = factors if factors is not None else (mixture_margin(t, rho2, alpha), small_sample_factor(t, alpha))
    half = np.sqrt(pooled) * margin * factor
    return np.where((t > 1) | (floor > 0), half, np.inf)


def betting_cs(psi, lo: float, hi: float, *, level: float = 0.95, grid: int = 2000, c: float = 0.5) -> dict:
    """The hedged-capital betting confidence sequence for the mean of terms in ``[lo, hi]``
    (Waudby-Smith & Ramdas 2024, JRSS-B, Sec. 4.2, Theorem 3 with the predictable plug-in bets of
    eqs. (26)-(27), ``theta = 1/2``, bets truncated at ``c / m`` and ``c / (1 - m)``), on a grid
    of ``grid`` candidate means, with the running intersection. Exact (non-asymptotic) at every
    ``t``. Returns ``estimate`` (the running mean), ``ci_low``, ``ci_high`` after every term.

    A term outside ``[lo, hi]`` is a ValueError (the range is the method's assumption)."""
    level = _check_level(level)
    psi = np.asarray(psi, dtype=np.float64)
    if psi.ndim != 1 or psi.size == 0:
        raise ValueError("psi must be a non-empty 1-d array")
    if not (np.isfinite(lo) and np.isfinite(hi) and hi > lo):
        raise ValueError(f"the range must be finite with lo < hi, got [{lo!r}, {hi!r}]")
    span = hi - lo
    if (psi < lo - 1e-12 * span).any() or (psi > hi + 1e-12 * span).any():
        raise ValueError(f"a term lies outside the range [{lo:g}, {hi:g}] the betting sequence assumes")
    alpha = 1.0 - level
    x = np.clip((psi - lo) / span, 0.0, 1.0)
    n = x.size
    t = np.arange(1, n + 1, dtype=np.float64)
    # predictable plug-in: mu_hat_t, sigma_hat^2_t over the first t terms, regularized (eq. 27)
    mu_hat = (0.5 + np.cumsum(x)) / (t + 1.0)
    sig2 = (0.25 + np.cumsum((x - mu_hat) ** 2)) / (t + 1.0)
    sig2_prev = np.concatenate(([0.25], sig2[:-1]))
    lam = np.sqrt(2.0 * math.log(2.0 / alpha) / (sig2_prev * t * np.log1p(t)))
    m = (np.arange(grid) + 0.5) / grid
    lam_p = np.minimum(lam[:, None], c / m[None, :])
    lam_m = np.minimum(lam[:, None], c / (1.0 - m[None, :]))
    dev = x[:, None] - m[None, :]
    log_kp = np.cumsum(np.log1p(lam_p * dev), axis=0)
    log_km = np.cumsum(np.log1p(-lam_m * dev), axis=0)
    # K = max(theta K+, (1 - theta) K-), theta = 1/2; reject m where K >= 1/alpha
    log_k = np.maximum(log_kp, log_km) + math.log(0.5)
    keep = log_k < math.log(1.0 / alpha)
    keep = np.logical_and.accumulate(keep, axis=0)  # running intersection
    any_kept = keep.any(axis=1)
    first = np.where(any_kept, keep.argmax(axis=1), 0)
    last = np.where(any_kept, grid - 1 - keep[:, ::-1].argmax(axis=1), grid - 1)
    # the sequence lies between the last rejected and the first kept grid point: report the
    # rejected neighbours (conservative by at most one grid step)
    step = 1.0 / grid
    low = np.where(any_kept, np.maximum(m[first] - step, 0.0), np.nan)
    high = np.where(any_kept, np.minimum(m[last] + step, 1.0), np.nan)
    mean = np.cumsum(psi) / t
    return {"estimate": mean, "ci_low": lo + span * low, "ci_high": lo + span * high}
