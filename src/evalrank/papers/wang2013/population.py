"""Populations for the NDCG limits of Wang et al. (2013), Sec. 2-3.

A population is a distribution of (object, grade) pairs and a scoring
function f. What the limits need (``wang2013-limits.md``):

- ``g(s) = E[G(Y) | s]``, the expected gain at *canonical score*
  ``s = F(f(X))`` (F the CDF of f(X), so s ~ U[0, 1] and the object with
  canonical score s sits at rank about n (1 - s)) -- :meth:`g`;
- the marginal grade distribution, hence ``Q(1 - t)``, the gain the ideal
  ranking puts at relative position t -- :meth:`tail`, :meth:`gains`;
- i.i.d. samples of size n for the empirical NDCG -- :meth:`sample`.

Two kinds:

:class:`LogisticPopulation` (analytic). X = (u, v) with u, v i.i.d. U[0, 1];
grades 0..m with ``P(Y >= j | u) = sigmoid(b (u - tau_j))`` (binary for
m = 1, ordinal-logistic graded otherwise); v is noise. A scorer is
``f_w = w u' + (1 - w) v`` with ``u' = u`` (or ``1 - u`` for a reversed
scorer), weight ``w`` in [0, 1] and v one of several independent noise
coordinates: w = 1 ranks by the relevant coordinate,
w = 0 at random. f_w(X) has a trapezoidal CDF; given f_w = z, u' is uniform
on an interval, so ``P(Y >= j | s)`` is a difference of softplus values --
g(s) is closed form, and so are the marginals.

:class:`EmpiricalPopulation` (a trained model on the pool): the empirical
distribution of (score, grade) pairs; g is a step function over the pool's
score quantiles (tied scores share their mean gain) and a sample is n pool
documents drawn with replacement.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from evalrank.metrics.dcg import gain_values

__all__ = ["LogisticPopulation", "EmpiricalPopulation", "Scorer", "population_from", "scorers_from"]


def _softplus(x):
    return np.logaddexp(0.0, x)


@dataclass(frozen=True)
class Scorer:
    """``f = w u' + (1 - w) v_noise``, ``u' = 1 - u`` when ``reverse``.

    ``noise`` picks one of several independent noise coordinates: two
    scorers that differ only there are different functions with the *same*
    g(s) -- a pair no measure should tell apart (Wang et al., Theorem 2's
    "unless y1 = y2 almost everywhere")."""

    weight: float
    reverse: bool = False
    noise: int = 0

    def __post_init__(self):
        if not (0.0 <= float(self.weight) <= 1.0):
            raise ValueError(f"weight: must lie in [0, 1], got {self.weight!r}")
        if isinstance(self.noise, bool) or not isinstance(self.noise, (int, np.integer)) or not 0 <= self.noise < 8:
            raise ValueError(f"noise: expected an int in 0..7, got {self.noise!r}")

    def __str__(self) -> str:
        return f"w={self.weight:g}{' reversed' if self.reverse else ''}{f' noise {self.noise}' if self.noise else ''}"


class LogisticPopulation:
    """Grades 0..m with ``P(Y >= j | u) = sigmoid(slope (u - thresholds[j-1]))``
    (module docstring). ``gain``: as :func:`evalrank.metrics.dcg.gain_values`
    ("exp" = 2^y - 1, "linear", or a per-grade array)."""

    def __init__(self, slope: float, thresholds, gain="exp"):
        slope = float(slope)
        if not np.isfinite(slope) or slope <= 0:
            raise ValueError(f"slope: must be a positive number, got {slope!r}")
        tau = np.atleast_1d(np.asarray(thresholds, dtype=np.float64))
        if tau.ndim != 1 or tau.size < 1 or not np.isfinite(tau).all() or np.any(np.diff(tau) <= 0):
            raise ValueError("thresholds: expected a non-empty, strictly increasing list of finite numbers")
        self.slope, self.tau = slope, tau
        self.m = tau.size
        self.gains = gain_values(np.arange(self.m + 1), gain)
        if np.any(np.diff(self.gains) < 0):
            raise ValueError("gain: gains must not decrease with the grade")

    # -- P(Y >= j | u), averaged over an interval of u
    def _ge_given_u(self, u):
        u = np.asarray(u, dtype=np.float64)
        return expit(self.slope * (u[..., None] - self.tau))          # (..., m)

    def _ge_mean(self, lo, hi):
        """mean of P(Y >= j | u) for u uniform on [lo, hi] (lo = hi: the point)."""
        lo, hi = np.broadcast_arrays(np.asarray(lo, np.float64), np.asarray(hi, np.float64))
        b = self.slope
        width = (hi - lo)[..., None]
        num = _softplus(b * (hi[..., None] - self.tau)) - _softplus(b * (lo[..., None] - self.tau))
        point = self._ge_given_u(0.5 * (lo + hi))
        wide = width > 1e-9
        return np.where(wide, num / (b * np.where(wide, width, 1.0)), point)

    def tail(self) -> np.ndarray:
        """``T_j = P(Y >= j)`` for j = 0..m (T_0 = 1): the marginal."""
        return np.concatenate([[1.0], self._ge_mean(0.0, 1.0)])

    # -- the scorer's canonical score
    @staticmethod
    def _cdf_inverse(s, w):
        """z with F_w(z) = s, F_w the CDF of w U1 + (1 - w) U2 (trapezoid)."""
        s = np.asarray(s, dtype=np.float64)
        a, c = min(w, 1 - w), max(w, 1 - w)
        if a == 0:
            return s
        lo_part = s <= a / (2 * c)
        hi_part = s >= 1 - a / (2 * c)
        return np.where(lo_part, np.sqrt(2 * a * c * np.clip(s, 0, None)),
                        np.where(hi_part, 1 - np.sqrt(2 * a * c * np.clip(1 - s, 0, None)), c * s + a / 2))

    def _interval(self, s, scorer: Scorer):
        """u' | canonical score s is uniform on [lo, hi]."""
        w = float(scorer.weight)
        s = np.asarray(s, dtype=np.float64)
        if w == 1.0:
            return s, s
        if w == 0.0:
            return np.zeros_like(s), np.ones_like(s)
        z = self._cdf_inverse(s, w)
        return np.clip((z - (1 - w)) / w, 0.0, 1.0), np.clip(z / w, 0.0, 1.0)

    @staticmethod
    def breakpoints(scorer: Scorer) -> np.ndarray:
        """Canonical scores in (0, 1) where g has a kink (the trapezoid's corners)."""
        w = float(scorer.weight)
        a, c = min(w, 1 - w), max(w, 1 - w)
        if a == 0:
            return np.empty(0)
        return np.unique([a / (2 * c), 1 - a / (2 * c)])

    def ge(self, s, scorer: Scorer) -> np.ndarray:
        """``P(Y >= j | s)``, shape (..., m)."""
        lo, hi = self._interval(s, scorer)
        if scorer.reverse:
            lo, hi = 1.0 - hi, 1.0 - lo
        return self._ge_mean(lo, hi)

    def g(self, s, scorer: Scorer) -> np.ndarray:
        """``g(s) = E[G(Y) | canonical score s]`` = G_0 + sum_j (G_j - G_{j-1}) P(Y >= j | s)."""
        return self.gains[0] + self.ge(s, scorer) @ np.diff(self.gains)

    def sample(self, n: int, scorers, rng: np.random.Generator):
        """``n`` i.i.d. objects: ``(scores (len(scorers), n), grades (n,))``,
        every scorer scoring the same objects."""
        u, e = rng.random(n), rng.random(n)
        grades = (e[:, None] < self._ge_given_u(u)).sum(axis=1)
        noise = rng.random((max(sc.noise for sc in scorers) + 1, n))
        scores = np.empty((len(scorers), n))
        for i, sc in enumerate(scorers):
            up = 1.0 - u if sc.reverse else u
            scores[i] = sc.weight * up + (1.0 - sc.weight) * noise[sc.noise]
        return scores, grades


class EmpiricalPopulation:
    """The empirical distribution of a scored pool: ``scores`` and integer
    ``grades`` (n_docs,) of one scoring function (module docstring)."""

    def __init__(self, scores, grades, gain="exp"):
        scores = np.asarray(scores, dtype=np.float64)
        grades = np.asarray(grades)
        if scores.ndim != 1 or grades.shape != scores.shape or scores.size == 0:
            raise ValueError(f"scores, grades: expected equal non-empty 1-d arrays, got {scores.shape}, "
                             f"{grades.shape}")
        if not np.issubdtype(grades.dtype, np.integer) or grades.min() < 0:
            raise ValueError("grades: expected non-negative integer grades")
        if not np.isfinite(scores).all():
            raise ValueError("scores: must be finite")
        self.scores, self.grades = scores, grades.astype(np.int64)
        self.gains = gain_values(np.arange(int(grades.max()) + 1), gain)
        N = scores.size
        order = np.argsort(scores, kind="stable")
        s_sorted = scores[order]
        gain_sorted = self.gains[self.grades[order]]
        # tie groups share their mean gain: g is a step function on [i/N, (i+1)/N)
        new = np.concatenate([[True], s_sorted[1:] != s_sorted[:-1]])
        grp = np.cumsum(new) - 1
        mean = np.bincount(grp, weights=gain_sorted) / np.bincount(grp)
        self.edges = np.linspace(0.0, 1.0, N + 1)
        self.steps = mean[grp]
        counts = np.bincount(self.grades, minlength=self.gains.size)
        self._tail = np.cumsum(counts[::-1])[::-1] / N                    # T_j = P(Y >= j)

    def tail(self) -> np.ndarray:
        return self._tail.copy()

    def g(self, s, scorer=None) -> np.ndarray:
        i = np.clip(np.floor(np.asarray(s, np.float64) * self.steps.size).astype(np.int64), 0, self.steps.size - 1)
        return self.steps[i]

    def sample(self, n: int, scorers=None, rng: np.random.Generator | None = None):
        """``n`` pool documents drawn with replacement: ``(scores (1, n), grades (n,))``."""
        idx = rng.integers(0, self.scores.size, n)
        return self.scores[idx][None, :], self.grades[idx]


def population_from(params: dict) -> LogisticPopulation:
    """The logistic population (Sec. 3's setting) of the config's wang2013 section ``params``."""
    pop = params.get("population", {})
    return LogisticPopulation(pop.get("slope", 5.0), pop.get("thresholds", [0.3, 0.6, 0.85]), pop.get("gain", "exp"))


def scorers_from(params: dict):
    """(names, Scorer list) of the config's wang2013 section ``params``, in the config's order."""
    items = list(params["scorers"].items())
    return [n for n, _ in items], [Scorer(float(s["weight"]), bool(s.get("reverse", False)), int(s.get("noise", 0)))
                                   for _, s in items]
