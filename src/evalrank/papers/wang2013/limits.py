"""Limits of NDCG as the list grows (Wang et al. 2013, Theorems 1, 3, 5-9 and
10-13; restated in ``../shared/papers/wang2013-limits.md``), by quadrature.

With ``g(s)`` the expected gain at canonical score s and ``Q(1 - t)`` the
gain the ideal ranking puts at relative position t (:mod:`.population`):

=====================  ==============  =========================================================
discount D(r)          cut-off k       limit of NDCG
=====================  ==============  =========================================================
log (standard)         none            1 for every scorer (Theorem 1)
r^-beta, 0 < beta < 1  none            int_0^1 g(s)(1-s)^-beta ds / int_0^1 Q(1-t) t^-beta dt (3, 10)
1/r (Zipf)             none            g(1) / max gain (Theorem 5)
summable               any / none      none: NDCG does not converge (Theorem 6)
log                    c n             int_{1-c}^1 g(s) ds / int_0^c Q(1-t) dt (Theorems 8, 12)
r^-beta, 0 < beta < 1  c n             int_{1-c}^1 g(s)(1-s)^-beta ds / int_0^c Q(1-t) t^-beta dt (9, 13)
log, r^-beta, Zipf     n^a (k/n -> 0)  g(1) / max gain (Theorems 7, 11)
any                    fixed k         none: the partial sum is bounded (Theorem 6)
=====================  ==============  =========================================================

The numerators are integrals of ``g`` with ``scipy.integrate.quad``; the
integrable singularity ``(1 - s)^-beta`` at s = 1 is quad's algebraic weight
(``weight="alg"``, after the substitution t = sqrt(1 - s) that makes g
smooth there), not an integrand that blows up. ``Q(1 - t)`` is a step
function (gain G_j on t in [T_{j+1}, T_j), T_j = P(Y >= j)), so the
denominators are exact sums of ``int t^-beta dt`` over its steps. For an
:class:`~.population.EmpiricalPopulation` g is a step function too and the
numerators are exact sums as well.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import integrate

from evalrank.metrics.cutoffs import parse_cutoff
from evalrank.metrics.discounts import parse_discount
from evalrank.papers.wang2013.population import EmpiricalPopulation

__all__ = ["Limit", "ndcg_limit", "family", "has_limit"]


@dataclass(frozen=True)
class Limit:
    """``value`` (NaN when NDCG has no limit), the ``rule`` of the table that
    gives it and the ``theorem`` of Wang et al. (2013)."""

    value: float
    rule: str
    theorem: str

    @property
    def exists(self) -> bool:
        return bool(np.isfinite(self.value))


def family(discount) -> tuple[str, float | None]:
    """``("log", None)``, ``("poly", beta)`` with 0 < beta < 1, ``("zipf", None)``
    (also poly with beta = 1) or ``("summable", None)``."""
    d = parse_discount(discount)
    if d.summable:
        return "summable", None
    if d.name in ("log", "log2"):
        return "log", None
    if d.name == "zipf" or (d.name == "poly" and d.param == 1.0):
        return "zipf", None
    return "poly", float(d.param)


def has_limit(discount, k=None) -> bool:
    """Whether NDCG under ``discount`` and cut-off ``k`` converges at all:
    not for a summable discount nor a fixed cut-off (Theorem 6)."""
    return family(discount)[0] != "summable" and not isinstance(parse_cutoff(k), int)


def _power_integral(a, b, beta):
    """int_a^b t^-beta dt for 0 <= a <= b (beta < 1)."""
    return (b ** (1 - beta) - a ** (1 - beta)) / (1 - beta)


def _ideal_integral(pop, c: float, beta: float) -> float:
    """int_0^c Q(1 - t) t^-beta dt, exactly: Q(1 - t) = G_j on [T_{j+1}, T_j)."""
    T = np.concatenate([pop.tail(), [0.0]])           # T_0 = 1 >= T_1 >= ... >= T_{m+1} = 0
    lo, hi = np.minimum(T[1:], c), np.minimum(T[:-1], c)
    return float(np.sum(pop.gains * _power_integral(lo, hi, beta)))


def _scorer_integral(pop, scorer, c: float, beta: float) -> float:
    """int_{1-c}^1 g(s) (1 - s)^-beta ds."""
    if isinstance(pop, EmpiricalPopulation):            # a step function: exact
        e = pop.edges
        lo, hi = np.maximum(e[:-1], 1 - c), np.maximum(e[1:], 1 - c)
        # int_lo^hi (1-s)^-beta ds = int_{1-hi}^{1-lo} t^-beta dt
        return float(np.sum(pop.steps * _power_integral(1 - hi, 1 - lo, beta)))
    f = lambda s: float(pop.g(s, scorer))
    # g is smooth in s between the scorer's breakpoints, but behaves like a
    # function of sqrt(1 - s) next to s = 1 (and of sqrt(s) next to s = 0):
    # the trapezoidal CDF's inverse. So the last piece is integrated in
    # t = sqrt(1 - s), where it becomes 2 int_0^t0 g(1 - t^2) t^(1 - 2 beta) dt
    # (quad's algebraic weight t^(1 - 2 beta), an exponent > -1), and a first
    # piece starting at s = 0 in t = sqrt(s).
    cuts = [x for x in pop.breakpoints(scorer) if 1 - c < x < 1]
    edges = [1 - c, *cuts, 1.0]
    opts = dict(limit=200, epsabs=1e-13, epsrel=1e-11)
    val = 0.0
    for lo, hi in zip(edges[:-2], edges[1:-1]):
        if lo == 0.0:
            val += integrate.quad(lambda t: 2 * t * f(t * t) * (1 - t * t) ** -beta, 0.0, np.sqrt(hi), **opts)[0]
        else:
            val += integrate.quad(lambda s: f(s) * (1 - s) ** -beta, lo, hi, **opts)[0]
    t0 = np.sqrt(1.0 - edges[-2])
    val += 2 * integrate.quad(lambda t: f(1.0 - t * t), 0.0, t0, weight="alg", wvar=(1.0 - 2 * beta, 0.0),
                              **opts)[0]
    return float(val)


def _top_ratio(pop, scorer) -> float:
    return float(pop.g(1.0, scorer) / pop.gains.max())


def ndcg_limit(pop, scorer=None, discount="log2", k=None) -> Limit:
    """The limit of NDCG under ``discount`` and cut-off ``k`` (None, an int,
    ``"frac:c"`` or ``"pow:a"``) for the population ``pop`` ranked by
    ``scorer`` (ignored for an empirical population): the table of the
    module docstring. Raises ValueError for a combination the table does not
    cover (Zipf with k = c n)."""
    fam, beta = family(discount)
    rule = parse_cutoff(k)
    if pop.gains.max() <= 0:
        raise ValueError("pop: every gain is 0; NDCG is undefined")
    if not has_limit(discount, k):
        return Limit(np.nan, "summable discount: no limit" if fam == "summable" else "fixed cut-off: no limit",
                     "Theorem 6")
    if rule is None:
        if fam == "log":
            return Limit(1.0, "standard NDCG: 1", "Theorem 1")
        if fam == "zipf":
            return Limit(_top_ratio(pop, scorer), "Zipf: g(1) / max gain", "Theorem 5")
        return Limit(_scorer_integral(pop, scorer, 1.0, beta) / _ideal_integral(pop, 1.0, beta),
                     "r^-beta: int g(s)(1-s)^-beta / int Q(1-t) t^-beta", "Theorems 3, 10")
    kind, v = rule
    if kind == "pow":
        return Limit(_top_ratio(pop, scorer), "k -> inf, k/n -> 0: g(1) / max gain", "Theorems 7, 11")
    if fam == "zipf":
        raise ValueError("discount: the table has no limit for Zipf with k = c n")
    b = 0.0 if fam == "log" else beta
    return Limit(_scorer_integral(pop, scorer, v, b) / _ideal_integral(pop, v, b),
                 "k = c n: int_{1-c}^1 g(s) w / int_0^c Q(1-t) w", "Theorems 8, 12" if fam == "log" else "Theorems 9, 13")
