r"""The plan's sampling distribution corrected by the labels between rounds (``evalrank active plan
--continue PLAN --qrels LABELS``).

A plan draws from ``q``, the label model's q* with the defensive floor
(:mod:`evalrank.active.campaign_plan`). Where the model is useful this saves labels; where it is
useless or misleading ``q`` puts the draws where they tell little, and the terms of the
finite-population estimator (:mod:`evalrank.active.finite`) carry large importance weights. So
before each further round the labels gathered so far choose how much uniform sampling -- simple
random sampling, which no model can mislead -- is mixed into ``q``, and how much of the label
model's differences between queries the round's control variate keeps:

    q_lambda = (1 - lambda) q + lambda / m,   lambda in {0, 0.1, ..., 1},
    g_s(x)   = b (f_bar + s (f(x) - f_bar)),  s in {1, 0.75, 0.5, 0.25, 0},

the pair that minimizes the estimated variance of a term per unit of cost,

    (A - B) * sum_x q_lambda(x) c_x,   A = sum_x r_x^2 / q_lambda(x),   B = (sum_x r_x)^2,

with ``r_x = L_x - g_s(x)`` the labelled queries' residuals (``b``:
:func:`evalrank.active.finite.control_slope`; ``f_bar`` the pool's mean of ``f``) and the pool
sums estimated from the
labelled queries by importance weighting, ``sum_x h(x) ~ (1/n) sum_i h(x_i) / pi_i`` with ``pi_i``
the probability with which query ``x_i`` was drawn among the queries not yet labelled
(successive sampling, :mod:`evalrank.active.finite`). This is the choice of a proposal among a
family by its estimated variance (adaptive importance sampling; the same cost-aware objective as
Sawade et al. 2012's Theorem 3 with the labels' residuals instead of the model's variances). The
share ``s`` is PPI++'s power tuning (Angelopoulos, Duchi & Zrnic 2023) made per round and
predictable: with ``s = 0`` and ``lambda = 1`` a round's terms are those of simple random sampling
whatever the model, so a model that does not help is dropped once the labels show it -- a weak
one costs more in the noise of a slope learned from a few labels than it saves (measured:
``benchmarks/campaign_limits.py``).

The finite estimator then weighs each later round's terms by the first round's estimated term
variance over the round's own (:func:`round_scales`, from the labels before the round), so that a
first round drawn where a misleading model pointed does not keep its weight once better rounds
follow.

Validity does not depend on the choice: a round's ``q_lambda`` is fixed before any of its draws,
from the labels of earlier rounds only, so the terms stay predictable and the confidence
sequence holds whatever ``lambda`` and ``s`` are (each round's draws are fresh draws from its own
distribution: :func:`evalrank.active.campaign_plan.round_draws`). The choice only decides the
cost: measured in ``benchmarks/campaign_worlds.py`` (``benchmarks/RESULTS.md``).
"""

from __future__ import annotations

import numpy as np

__all__ = ["MIX_GRID", "SHAPE_GRID", "SCALE_FROM", "SCALE_BOUNDS", "choose_round", "residuals", "round_scales",
           "draw_probabilities"]

#: the shares of uniform sampling a round may mix into the plan's q
MIX_GRID = tuple(round(0.1 * k, 1) for k in range(11))


def draw_probabilities(q_rounds, seq, rounds) -> np.ndarray:
    """For each distinct labelled query ``seq[i]`` (in the order first drawn; ``rounds[i]`` the
    round it was drawn in) the probability with which it was drawn among the queries not labelled
    before it: ``q_r(x_i) / sum_{U_i} q_r``."""
    qs = np.atleast_2d(np.asarray(q_rounds, dtype=np.float64))
    seq = np.asarray(seq, dtype=np.int64)
    rounds = np.asarray(rounds, dtype=np.int64)
    taken = qs[:, seq]                                   # (rounds, n): each round's q of each labelled query
    before = np.cumsum(taken, axis=1) - taken            # the mass of the queries labelled before each
    i = np.arange(seq.size)
    return taken[rounds, i] / (qs.sum(axis=1)[rounds] - before[rounds, i])


#: the fewest labels before a round from which its weight is estimated (fewer: weight 1)
SCALE_FROM = 5
#: the bounds on a round's weight relative to the first round's
SCALE_BOUNDS = (0.25, 4.0)


def _term_variance(q, seq, pi, r) -> float:
    """The variance of a Des Raj term's importance-weighted part under ``q`` (pool-normalized),
    ``sum_x r_x^2 / q(x) - (sum_x r_x)^2``, its pool sums estimated from the labelled queries
    (module docstring)."""
    n = seq.size
    A = np.sum(r * r / (pi * q[seq])) / n
    B = (np.sum(r / pi) / n) ** 2
    return float(A - B)


#: the shares of the label model's shape a round's control variate may keep (first: the tie-breaker)
SHAPE_GRID = (1.0, 0.75, 0.5, 0.25, 0.0)


def residuals(f, seq, values, b: float, shape: float) -> np.ndarray:
    """The labelled queries' residuals from a round's control variate, ``L_x - b (f_bar + shape
    (f_x - f_bar))`` (:mod:`evalrank.active.finite`; ``f_bar`` the pool's mean of ``f``)."""
    f = np.asarray(f, dtype=np.float64)
    fbar = float(np.mean(f))
    return np.asarray(values, dtype=np.float64) - b * (fbar + shape * (f[np.asarray(seq, dtype=np.int64)] - fbar))


def round_scales(q_rounds, seq, rounds, values, f) -> np.ndarray:
    """Each round's factor on its terms' weights in the finite estimator: round 0's 1; a later
    round's the estimated variance of a term under the first round's ``q`` over that under its
    own, from the labels of the rounds before it only (so the weights stay predictable), within
    :data:`SCALE_BOUNDS`; 1 where fewer than :data:`SCALE_FROM` labels precede it. A round the
    labels moved toward uniform sampling because the first round's ``q`` was poor then outweighs
    the first round's heavy terms. Both variances are of the full shape's residuals, whatever
    share of the shape the round keeps: the share was chosen as the smallest of several estimates
    of those same labels, and weighting a round by its own winning estimate would over-weight it
    (measured: ``benchmarks/RESULTS.md``, the shape share)."""
    from evalrank.active.finite import control_slope

    qs = np.atleast_2d(np.asarray(q_rounds, dtype=np.float64))
    seq = np.asarray(seq, dtype=np.int64)
    rounds = np.asarray(rounds, dtype=np.int64)
    values = np.asarray(values, dtype=np.float64)
    f = np.asarray(f, dtype=np.float64)
    out = np.ones(qs.shape[0])
    if qs.shape[0] == 1 or seq.size == 0:
        return out
    pi = draw_probabilities(qs, seq, rounds)
    for r in range(1, qs.shape[0]):
        k = int(np.searchsorted(rounds, r, side="left"))
        if k < SCALE_FROM:
            continue
        s_, L = seq[:k], values[:k]
        b = control_slope(f, s_, L)
        res = L - b * f[s_]
        v0 = _term_variance(qs[0], s_, pi[:k], res)
        vr = _term_variance(qs[r], s_, pi[:k], res)
        if v0 > 0 and vr > 0:
            out[r] = float(np.clip(v0 / vr, *SCALE_BOUNDS))
    return out


def choose_round(p, values, shapes=SHAPE_GRID) -> tuple[float, float]:
    """The next round's share of uniform sampling and share of the label model's shape in its
    control variate (module docstring) for the plan ``p``
    (:class:`~evalrank.active.campaign_state.Plan`) from ``values``, each pool query's measure
    (only the labelled queries' are read): the pair of :data:`MIX_GRID` x ``shapes`` (default
    :data:`SHAPE_GRID`; ``(1.0,)``: the share of uniform sampling alone, the full shape kept) with
    the smallest estimated term variance per unit of cost (ties: the smaller share of uniform
    sampling, the larger share of the shape). A plan with no label, or one that covers the whole
    pool, keeps its last round's pair."""
    from evalrank.active.campaign_state import mixed_rounds
    from evalrank.active.finite import control_slope, distinct_order

    keep = (float(p.mix[-1]), float(p.shape[-1]))
    if p.whole_pool or p.labelled.size == 0:
        return keep
    values = np.asarray(values, dtype=np.float64)
    m = len(p.qids)
    if values.shape != (m,):
        raise ValueError(f"values must have one value per pool query ({m}), got shape {values.shape}")
    seq, at = distinct_order(p.draws)
    rounds = p.draw_rounds[at - 1]
    pi = draw_probabilities(p.q_rounds, seq, rounds)
    L = values[seq]
    b = control_slope(p.f, seq, L)
    qls = mixed_rounds(p.q, MIX_GRID)
    cost = np.array([float(np.sum(ql * p.costs)) for ql in qls])
    at_seq = pi[None, :] * qls[:, seq]          # (mixes, n): _term_variance's denominators, every mix at once
    n = seq.size
    best, choice = np.inf, keep
    for sh in shapes:
        r = residuals(p.f, seq, L, b, sh)
        crit = np.maximum(np.sum(r * r / at_seq, axis=1) / n - (np.sum(r / pi) / n) ** 2, 0.0) * cost
        j = int(np.argmin(crit))                 # the first of equals: the smaller share of uniform sampling
        if crit[j] < best:
            best, choice = float(crit[j]), (float(MIX_GRID[j]), float(sh))
    return choice
