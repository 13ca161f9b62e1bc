"""Risk-sensitive evaluation on a systems x topics matrix (Dinçer, Macdonald & Ounis 2016).

Every function takes per-topic effectiveness scores (e.g. ERR@20 or NDCG@10
from :mod:`evalrank.metrics`) as a matrix ``X`` of shape ``(r, c)``: ``r``
systems (rows) by ``c`` topics (columns), the paper's Table 2. Scores must
be finite and non-negative. ``alpha`` (the risk-sensitivity, ``>= 0``) may
be a scalar or a 1-d array; results then get a trailing ``alpha`` axis, so
all systems and all ``alpha`` values come from one call:

* :func:`urisk`   eq. (1): ``(1/c) [sum_{Q+} d_q + (1 + alpha) sum_{Q-} d_q]``,
  ``d_q = s_q - b_q`` against one baseline ``b``.
* :func:`trisk`   eq. (2): ``URisk / SE(URisk)``, the studentised URisk,
  with ``SE`` the standard error of the mean of the risk-weighted
  differences ``d'_q`` (sample standard deviation, ``c - 1``; Dinçer et al.
  2014). At ``alpha = 0`` it is the paired t statistic.
* :func:`trisk_star`  TRisk against the per-topic mean of a population,
  ``Mean_q`` of eq. (3) (the paper's T*Risk, Table 6).
* :func:`zrisk`   eqs. (4)-(6): expected cell values ``e_ij = S_i T_j / N``
  from the row totals ``S_i`` and column totals ``T_j``, standardised
  residuals ``z_ij = (x_ij - e_ij) / sqrt(e_ij)`` and
  ``ZRisk_i = sum_{z>0} z_ij + (1 + alpha) sum_{z<0} z_ij``. The other rows
  of ``X`` are system ``i``'s baselines; ``sum_ij z_ij^2`` is Pearson's
  chi-square statistic ``G^2`` of eq. (4).
* :func:`georisk` eq. (7): ``sqrt(S_i / c * Phi(ZRisk_i / c))``.
* :func:`profile` the performance profile of the paper's Table 7 (mean,
  Reward, Risk, Reward/Risk, Wins, Losses, W/L, losses beyond 20 %)
  against one baseline, or macro-averaged over several.

Zero totals: a topic on which every system scores 0 (``T_j = 0``), or a
system that scores 0 on every topic (``S_i = 0``), has expected values
``e_ij = 0`` and ``z_ij = 0/0``. By default that raises a ``ValueError``
that names the topics/systems; ``zero_totals="ignore"`` sets those ``z_ij``
to 0 (no deviation from an expectation of 0: every such cell *is* 0) and
keeps the topic in ``c``.

The paper's worked example (Tables 3-5) is reproduced to the printed
precision in ``tests/metrics/test_risk.py`` and by the DAG
(``results/<name>/dincer2016/example/table4.csv``, ``table5.csv``).
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
from scipy.special import ndtr

__all__ = [
    "urisk",
    "trisk",
    "trisk_star",
    "expected_values",
    "standardized_residuals",
    "zrisk",
    "georisk",
    "chi_square",
    "profile",
    "align_topics",
    "PROFILE_COLUMNS",
]

#: Columns of :func:`profile` (the paper's Table 7, plus the baseline's mean).
PROFILE_COLUMNS = ("mean", "reward", "risk", "reward_risk", "wins", "losses", "win_loss", "big_losses")


# ---------------------------------------------------------------------------
# argument checks
# ---------------------------------------------------------------------------
def _scores(x, name: str, ndim: tuple[int, ...]) -> np.ndarray:
    a = np.asarray(x)
    if a.dtype == object or not (np.issubdtype(a.dtype, np.number) or a.dtype == bool):
        raise TypeError(f"{name} must be numeric, got dtype {a.dtype}")
    a = a.astype(np.float64, copy=False)
    if a.ndim not in ndim:
        want = " or ".join(f"{d}-d" for d in ndim)
        raise ValueError(f"{name} must be {want} (systems x topics), got shape {a.shape}")
    if a.shape[-1] == 0:
        raise ValueError(f"{name} has no topics (last axis is empty)")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name} contains NaN or infinite scores")
    if np.any(a < 0):
        bad = np.argwhere(a < 0)[0]
        raise ValueError(f"{name} must be non-negative effectiveness scores; {name}[{', '.join(map(str, bad))}] = "
                         f"{a[tuple(bad)]!r}")
    return a


def _alphas(alpha) -> tuple[np.ndarray, bool]:
    a = np.asarray(alpha, dtype=np.float64) if not isinstance(alpha, bool) else None
    if a is None or a.ndim > 1:
        raise TypeError(f"alpha must be a number or a 1-d array of numbers, got {alpha!r}")
    if not np.all(np.isfinite(a)) or np.any(a < 0):
        raise ValueError(f"alpha must be finite and >= 0, got {alpha!r}")
    return np.atleast_1d(a), a.ndim == 0


def _same_topics(s: np.ndarray, b: np.ndarray, sname: str, bname: str) -> None:
    if s.shape[-1] != b.shape[-1]:
        raise ValueError(f"{sname} and {bname} must cover the same topics: {sname} has {s.shape[-1]} topics, "
                         f"{bname} has {b.shape[-1]} (align them by topic id first, e.g. with align_topics)")


def _rows(X: np.ndarray, i) -> tuple[np.ndarray, bool]:
    """Row indices selected by ``i`` (None = all systems) and whether ``i`` was a scalar."""
    r = X.shape[0]
    if i is None:
        return np.arange(r), False
    idx = np.asarray(i)
    if idx.dtype == bool or not np.issubdtype(idx.dtype, np.integer) or idx.ndim > 1:
        raise TypeError(f"i must be a system (row) index, a 1-d array of them or None, got {i!r}")
    if np.any(idx < -r) or np.any(idx >= r):
        raise ValueError(f"i must index one of the {r} systems (rows of X), got {i!r}")
    return np.atleast_1d(idx) % r, idx.ndim == 0


def _finish(out: np.ndarray, scalar_rows: bool, scalar_alpha: bool):
    if scalar_alpha:
        out = out[..., 0]
    if scalar_rows:
        out = out[0] if out.ndim else out
    return float(out) if np.ndim(out) == 0 else out


# ---------------------------------------------------------------------------
# single baseline: URisk, TRisk (eqs. 1-2), T*Risk (eq. 3)
# ---------------------------------------------------------------------------
def _split(delta: np.ndarray):
    """Wins and losses of the differences: ``P = max(d, 0)``, ``Q = min(d, 0)``."""
    return np.maximum(delta, 0.0), np.minimum(delta, 0.0)


def urisk(s, b, alpha=0.0):
    """URisk of system(s) ``s`` against baseline ``b`` (eq. 1).

    ``s``: ``(c,)`` or ``(r, c)`` per-topic scores; ``b``: ``(c,)``. Returns a
    float, or an array of shape ``s.shape[:-1] + alpha.shape``.
    """
    s = _scores(s, "s", (1, 2))
    b = _scores(b, "b", (1,))
    _same_topics(s, b, "s", "b")
    a, scalar_alpha = _alphas(alpha)
    P, Q = _split(s - b)
    out = P.mean(axis=-1)[..., None] + (1.0 + a) * Q.mean(axis=-1)[..., None]
    return _finish(out, False, scalar_alpha)


def _trisk(s: np.ndarray, b: np.ndarray, a: np.ndarray):
    c = s.shape[-1]
    if c < 2:
        raise ValueError("TRisk needs at least 2 topics (its standard error has c - 1 degrees of freedom)")
    P, Q = _split(s - b)
    w = 1.0 + a  # (A,)
    mean = P.mean(axis=-1)[..., None] + w * Q.mean(axis=-1)[..., None]
    # var(P + w Q) from centred sums, stable for any alpha (no sum-of-squares cancellation)
    Pc = P - P.mean(axis=-1, keepdims=True)
    Qc = Q - Q.mean(axis=-1, keepdims=True)
    vpp = (Pc * Pc).sum(axis=-1)[..., None]
    vqq = (Qc * Qc).sum(axis=-1)[..., None]
    vpq = (Pc * Qc).sum(axis=-1)[..., None]
    var = np.maximum(vpp + w * w * vqq + 2.0 * w * vpq, 0.0) / (c - 1)
    se = np.sqrt(var / c)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(se > 0, mean / np.where(se > 0, se, 1.0), np.sign(mean) * np.inf)
    t = np.where((se == 0) & (mean == 0), 0.0, t)
    return t, se


def trisk(s, b, alpha=0.0, *, return_se: bool = False):
    """TRisk = URisk / SE(URisk) of ``s`` against baseline ``b`` (eq. 2).

    ``SE = sd(d') / sqrt(c)`` with ``d'_q = d_q`` for wins and
    ``(1 + alpha) d_q`` for losses and the sample standard deviation (as
    Jforests' ``TRiskAwareSAROEval.getEstimates``). ``|TRisk| > 2`` marks a
    URisk significantly different from 0 (two-tailed, ``p < 0.05`` for
    ``c`` around 50). If every ``d'_q`` is equal the SE is 0 and TRisk is
    ``+-inf`` (0 when URisk is 0 too). With ``return_se`` also returns SE.
    """
    s = _scores(s, "s", (1, 2))
    b = _scores(b, "b", (1,))
    _same_topics(s, b, "s", "b")
    a, scalar_alpha = _alphas(alpha)
    t, se = _trisk(s, b, a)
    if return_se:
        return _finish(t, False, scalar_alpha), _finish(se, False, scalar_alpha)
    return _finish(t, False, scalar_alpha)


def trisk_star(X, i=None, alpha=0.0, *, return_se: bool = False):
    """T*Risk: TRisk of row(s) ``i`` of ``X`` against ``Mean_q`` (eq. 3), the
    per-topic mean of *all* ``r`` systems of ``X`` (the system itself
    included, as in the paper's Table 6 over 48 + 1 runs)."""
    X = _scores(X, "X", (2,))
    rows, scalar_rows = _rows(X, i)
    a, scalar_alpha = _alphas(alpha)
    t, se = _trisk(X[rows], X.mean(axis=0), a)
    if return_se:
        return _finish(t, scalar_rows, scalar_alpha), _finish(se, scalar_rows, scalar_alpha)
    return _finish(t, scalar_rows, scalar_alpha)


# ---------------------------------------------------------------------------
# multiple baselines: ZRisk (eqs. 4-6), GeoRisk (eq. 7)
# ---------------------------------------------------------------------------
def _zero_totals(X: np.ndarray, zero_totals: str):
    if zero_totals not in ("raise", "ignore"):
        raise ValueError(f"zero_totals must be 'raise' or 'ignore', got {zero_totals!r}")
    S = X.sum(axis=1)
    T = X.sum(axis=0)
    if zero_totals == "raise":
        topics = np.flatnonzero(T == 0)
        systems = np.flatnonzero(S == 0)
        if topics.size or systems.size:
            what = []
            if topics.size:
                what.append(f"topic column(s) {topics[:10].tolist()} where every system scores 0 (T_j = 0)")
            if systems.size:
                what.append(f"system row(s) {systems[:10].tolist()} that score 0 on every topic (S_i = 0)")
            raise ValueError(
                "X has " + " and ".join(what) + ": the expected values e_ij = S_i T_j / N of those cells are 0, "
                "so z_ij = (x_ij - e_ij) / sqrt(e_ij) is 0/0. Drop them (e.g. X[:, X.sum(axis=0) > 0]) or pass "
                "zero_totals='ignore' to count those cells as z = 0 (no deviation from an expected 0)")
    return S, T


def expected_values(X, *, zero_totals: str = "raise") -> np.ndarray:
    """``e_ij = S_i T_j / N`` (eq. 5): row total spread over the topics in
    proportion to the column masses ``p_j = T_j / N``."""
    X = _scores(X, "X", (2,))
    S, T = _zero_totals(X, zero_totals)
    N = S.sum()
    if N == 0:
        return np.zeros_like(X)
    return np.outer(S, T / N)


def standardized_residuals(X, *, zero_totals: str = "raise") -> np.ndarray:
    """``z_ij = (x_ij - e_ij) / sqrt(e_ij)``: the signed square roots of the
    chi-square components (Sec. 3.1)."""
    X = _scores(X, "X", (2,))
    e = expected_values(X, zero_totals=zero_totals)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (X - e) / np.sqrt(e)
    return np.where(e > 0, z, 0.0)


def chi_square(X, *, zero_totals: str = "raise") -> float:
    """Pearson's ``G^2 = sum_ij (x_ij - e_ij)^2 / e_ij`` (eq. 4)."""
    z = standardized_residuals(X, zero_totals=zero_totals)
    return float((z * z).sum())


def _zrisk_from_z(z: np.ndarray, a: np.ndarray) -> np.ndarray:
    P, Q = _split(z)
    return P.sum(axis=-1)[..., None] + (1.0 + a) * Q.sum(axis=-1)[..., None]


def zrisk(X, i=None, alpha=0.0, *, zero_totals: str = "raise"):
    """ZRisk of row(s) ``i`` of ``X`` with all rows as baselines (eq. 6).

    ``i=None`` gives every system. For one system ``s`` against a single
    baseline ``b`` (the paper's Table 4) pass ``X = [s, b]`` and ``i=0``.
    Higher is safer; ZRisk does not depend on the system's mean (its
    expectation has the system's own total).
    """
    X = _scores(X, "X", (2,))
    rows, scalar_rows = _rows(X, i)
    a, scalar_alpha = _alphas(alpha)
    z = standardized_residuals(X, zero_totals=zero_totals)[rows]
    return _finish(_zrisk_from_z(z, a), scalar_rows, scalar_alpha)


def georisk(X, i=None, alpha=0.0, *, zero_totals: str = "raise"):
    """GeoRisk of row(s) ``i`` of ``X`` (eq. 7): the geometric mean of the
    mean score ``S_i / c`` and ``Phi(ZRisk_i / c)``, ``Phi`` the standard
    normal CDF."""
    X = _scores(X, "X", (2,))
    rows, scalar_rows = _rows(X, i)
    a, scalar_alpha = _alphas(alpha)
    c = X.shape[1]
    z = standardized_residuals(X, zero_totals=zero_totals)[rows]
    zr = _zrisk_from_z(z, a)
    out = np.sqrt(X[rows].mean(axis=1)[:, None] * ndtr(zr / c))
    return _finish(out, scalar_rows, scalar_alpha)


# ---------------------------------------------------------------------------
# Table 7: the performance profile against one or several baselines
# ---------------------------------------------------------------------------
def profile(s, baselines, *, loss_threshold: float = 0.2) -> dict[str, float]:
    """Table 7's profile of system ``s`` (``(c,)``) against ``baselines``
    (``(c,)`` or ``(m, c)``).

    Against one baseline ``b`` with ``d_q = s_q - b_q``: ``mean`` = mean of
    ``s``; ``reward`` = ``(1/c) sum_{d>0} d``; ``risk`` = ``(1/c) sum_{d<0}
    |d|`` (so URisk = reward - (1 + alpha) risk); ``reward_risk`` = their
    ratio; ``wins``/``losses`` = topics with ``d > 0`` / ``d < 0`` (ties are
    neither); ``win_loss`` = their ratio; ``big_losses`` = losses of more
    than ``loss_threshold`` relative to the baseline (``d < -t b``, so
    ``b > 0``). With several baselines every entry is the macro average of
    the per-baseline values, ratios included (the paper's lower half:
    "the mean when each measure is calculated with respect to each learned
    baseline in turn"). A ratio with a zero denominator is ``inf`` (``nan``
    for 0/0).
    """
    s = _scores(s, "s", (1,))
    B = _scores(baselines, "baselines", (1, 2))
    _same_topics(s, B, "s", "baselines")
    if not isinstance(loss_threshold, (int, float)) or isinstance(loss_threshold, bool) \
            or not 0 <= loss_threshold < 1:
        raise ValueError(f"loss_threshold must be a number in [0, 1), got {loss_threshold!r}")
    B = np.atleast_2d(B)
    d = s[None, :] - B
    c = s.size
    reward = np.maximum(d, 0.0).sum(axis=1) / c
    risk = -np.minimum(d, 0.0).sum(axis=1) / c
    wins = (d > 0).sum(axis=1).astype(float)
    losses = (d < 0).sum(axis=1).astype(float)
    big = (d < -loss_threshold * B).sum(axis=1).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        rr = reward / risk
        wl = wins / losses
    return {
        "mean": float(s.mean()),
        "reward": float(reward.mean()),
        "risk": float(risk.mean()),
        "reward_risk": float(rr.mean()),
        "wins": float(wins.mean()),
        "losses": float(losses.mean()),
        "win_loss": float(wl.mean()),
        "big_losses": float(big.mean()),
    }


# ---------------------------------------------------------------------------
# from named per-topic scores to a matrix
# ---------------------------------------------------------------------------
def align_topics(scores: Mapping[str, Mapping[str, float]], *, missing: str = "raise"):
    """``{system: {topic: score}}`` -> ``(systems, topics, X)``.

    Systems keep the mapping's order, topics are sorted. Risk measures
    compare systems topic by topic, so every system must cover the same
    topics: a missing topic raises a ``ValueError`` naming the system and
    topics, unless ``missing="zero"`` (trec_eval's ``-c``: a topic without
    results scores 0).
    """
    if not isinstance(scores, Mapping) or not scores:
        raise ValueError("scores must be a non-empty mapping {system: {topic: score}}")
    if missing not in ("raise", "zero"):
        raise ValueError(f"missing must be 'raise' or 'zero', got {missing!r}")
    systems = list(scores)
    topics = sorted(set().union(*[set(v) for v in scores.values()]))
    if missing == "raise":
        for name in systems:
            lack = [t for t in topics if t not in scores[name]]
            if lack:
                raise ValueError(f"system {name!r} has no score for {len(lack)} topic(s) the others have, e.g. "
                                 f"{lack[:5]}; pass missing='zero' to score them 0 (trec_eval -c)")
    X = np.array([[float(scores[name].get(t, 0.0)) for t in topics] for name in systems], dtype=np.float64)
    return systems, topics, _scores(X, "scores", (2,))
