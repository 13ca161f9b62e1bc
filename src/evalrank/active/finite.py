r"""A labelling campaign as a finite population: distinct queries, the labelled ones known exactly.

A pool of ``N`` queries has the value ``R = (1/N) sum_x L_x`` (a ranker's mean DCG / ERR / NDCG,
or the mean difference of two rankers). A plan draws queries from ``q`` (:mod:`evalrank.active.
campaign_plan`); a query drawn again costs nothing and tells nothing new, so the campaign is the
sequence of *distinct* queries ``x_1, x_2, ...`` in the order they were first drawn
(:func:`distinct_order`). Drawing from ``q`` and skipping queries already labelled is successive
sampling without replacement: the ``t``-th new query is ``x`` with probability
``q_t(x) = q(x) / sum_{U_t} q`` over the queries ``U_t`` not labelled before it -- known before
its label, whatever the labels.

The estimator (Des Raj 1956, "Some estimators in sampling with varying probabilities without
replacement", JASA 51(274); with a control variate): after ``t - 1`` labels, with ``S_{t-1}``
the sum of the labelled values and ``g_t`` a prediction of ``L`` fitted on those labels only,

    phi_t = (1/N) [ S_{t-1} + sum_{x in U_t} g_t(x) + (L_{x_t} - g_t(x_t)) / q_t(x_t) ].

Whatever ``g_t`` and ``q_t`` (both fixed before ``x_t`` is drawn), ``E[phi_t | past] = R``
exactly, so ``phi_t - R`` is a martingale difference sequence. Two consequences:

- **any weighting fixed in advance** ``R_hat_t = sum_i a_i phi_i / sum_i a_i`` is unbiased (one
  chosen from earlier labels -- :func:`evalrank.active.adapt.round_scales` -- leaves ``sum_i a_i
  (phi_i - R)`` a martingale: consistent, and what the confidence sequence needs); with
  ``a_i = 1 / (|U_i| (|U_i| - 1))`` (normalized to a first weight of 1; a last query's is
  infinite: its term is the pool's value) and uniform ``q`` with a constant
  ``g`` it *is* the sample mean of a simple random sample without replacement (the weights that
  make the two equal do not depend on ``n``), so the estimator is random sampling's when the
  label model carries no information, and better when it does;
- labelling the last query makes ``phi_N = R`` exactly; the estimate is then exact, with width 0.

The control variate ``g_t(x) = b_t (f_bar + s_r (f(x) - f_bar))`` (``f_bar`` the pool's mean of
``f``; ``s_r`` the round's share of the model's shape: 1 in a plan's first round and in plans
that no label corrected, later rounds' chosen from earlier labels by
:func:`evalrank.active.adapt.choose_round`; with ``s_r = 1`` it is ``b_t f(x)``) recalibrates the
label model's expected measure ``f``
on the labels gathered so far (prediction-powered inference with power tuning: Angelopoulos,
Duchi & Zrnic 2023, "PPI++: efficient prediction-powered inference", arXiv:2311.01453; here the
least-squares slope of ``L`` on ``f`` through the origin over the labelled queries, with
:data:`SLOPE_PRIOR` pseudo-queries at slope 1, each weighing the pool's mean ``f^2``): a useless
model gets a slope near 0 as labels come (the estimate then leans on the labels alone), a useful
one near its best; ``g_1 = f``. An intercept is left out on purpose: with unequal ``q`` its
estimation noise is multiplied by the largest weights (two nearly equal rankers, 10 labels, 100
campaigns of ``benchmarks/campaign_worlds.py``: 0.96 of random sampling's RMSE with one, 0.36
without). The shape share ``s_r`` keeps the model's level and drops (part of) its differences
between queries: a weak model's (correlation 0.2-0.35 on the real excerpt's 43 queries) add more
variance at the slope a few labels can learn than they remove (``benchmarks/campaign_limits.py``),
and with ``s_r = 0`` on uniform draws the terms are simple random sampling's.

The interval (:func:`confidence_sequence`) is a confidence sequence: ``P(R in C_t for every t)
>= level``. It rests on what the design guarantees, never on the label model's variances:

- each ``phi_t`` lies in a range known before the draw (``[low_t, high_t]``: each unlabelled
  query's measure range -- :func:`evalrank.active.campaign_estimate.measure_range` -- minus its
  prediction, over its ``q_t``, the defensive floor bounding ``1/q_t``), so the wealth
  ``K_t(m) = prod_i (1 + lambda_i(m) (phi_i - m))`` with predictable bets in the range that keeps
  every factor >= 0 is a nonnegative martingale at ``m = R``, and Ville's inequality rejects
  ``m`` once ``K_t(m) >= 1/alpha`` (Waudby-Smith & Ramdas 2024, "Estimating means of bounded
  random variables by betting", JRSS-B 86(1), Sec. 4 and 5.1's aGRAPA bets; for importance-
  weighted terms with adaptive sampling probabilities and a predictable control variate,
  Waudby-Smith, Wu, Ramdas, Karampatziakis & Mineiro 2024, "Anytime-valid off-policy inference for
  contextual bandits", ACM/IMS J. Data Sci., Sec. 3). Exact at every ``t``: no asymptotics;
- the labelled queries bound ``R`` outright: ``R in [(S_t + sum_{U_{t+1}} lo) / N, (S_t +
  sum_{U_{t+1}} hi) / N]`` -- the interval shrinks to the point as the pool is exhausted;
- from :data:`ASYMPTOTIC_FROM` labels on -- and once the terms' effective number, ``(sum a)^2 /
  sum a^2``, has reached it: in a small pool it lags the labels -- the betting sequence is
  intersected with the asymptotic one (Waudby-Smith, Arnold, Wu, Howard & Ramdas 2024, Ann. Statist. 52(6), Theorem
  2.2: Robbins' normal mixture on the weighted running mean, the running weighted variance of
  ``phi``, tuned at the plan's ``t*``), each at half of ``alpha``. The first
  :data:`ASYMPTOTIC_FROM` - 1 looks are exact; after that the miss probability is at most
  ``alpha/2`` (betting, exact) plus the asymptotic sequence's (``alpha/2`` as ``t`` grows).
  In a plan whose rounds' ``q`` the labels chose (:mod:`evalrank.active.adapt`), the asymptotic
  part uses only the terms of the rounds that began after :data:`CHECKED_AFTER` labels (fixed
  before their draws): the first rounds' ``q`` was never checked against a label, and where the
  model misleads q* their terms are heavy-tailed in a way the running variance has not yet seen.

Assumptions, all checked or guaranteed by the plan: each query's measure lies in its stated
range; ``q > 0`` on every query (the floor); the draws follow ``q`` (the plan's seed); labels are
the truth of the queries they label.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["distinct_order", "control_slope", "desraj_terms", "confidence_sequence", "finite_estimate",
           "SLOPE_PRIOR", "ASYMPTOTIC_FROM", "CHECKED_AFTER", "BET_CAP", "PRIOR_TERMS", "GRID"]

#: pseudo-queries at slope 1 in the control variate's least-squares slope (each weighs the pool's
#: mean f^2). Measured in six worlds of benchmarks/campaign_worlds.py (600 campaigns each): 2, 6,
#: 20, 50 and a fixed slope of 1 within 2 % of one another at 20 labels and more; at 10 labels 20
#: was 1-5 % ahead of 2 (two nearly equal rankers 0.383 -> 0.364 of random sampling's RMSE), and
#: it still lets the labels move a model's weight where it misleads
SLOPE_PRIOR = 20.0
#: the look -- and the terms' effective number -- from which the asymptotic sequence is
#: intersected with the exact betting one
ASYMPTOTIC_FROM = 60
#: in a plan whose rounds' q the labels chose (``plan --continue --qrels``), the asymptotic part
#: uses only the terms of rounds that began after this many labels: the first rounds' q was never
#: checked against labels, and a model that misleads q* leaves heavy terms there that the running
#: variance has not seen (benchmarks/campaign_worlds.py, misleading model, 400 campaigns: every-look
#: coverage 0.93 with every term, 0.95 from the second round, 0.97 from the rounds after 15 labels;
#: width at 100 labels unchanged where the model is useful)
CHECKED_AFTER = 15
#: the bets' cap: a factor of the largest bet that keeps every wealth factor >= 0 (Waudby-Smith &
#: Ramdas 2024's ``c``)
BET_CAP = 0.75
#: the bets' prior: the variance of a quarter of the first term's range, weighted as this many terms
PRIOR_TERMS = 0.05
#: candidate means per sequence (a coarse grid over the pool's range and a fine one around the
#: estimate; the reported ends are the nearest rejected candidates: conservative by one step)
GRID = 1500


def distinct_order(draws) -> tuple[np.ndarray, np.ndarray]:
    """The distinct queries of a draw sequence in the order they were first drawn, and for each
    the number of draws up to and including its first (so a look after ``n`` draws has labelled
    the queries whose count is ``<= n``)."""
    draws = np.asarray(draws, dtype=np.int64)
    if draws.ndim != 1:
        raise ValueError(f"draws must be 1-d, got shape {draws.shape}")
    _, first = np.unique(draws, return_index=True)
    first = np.sort(first)
    return draws[first], first + 1


def control_slope(f, seq, values) -> float:
    """The control variate's slope ``b`` after the labelled queries ``seq`` with their ``values``
    (module docstring: least squares through the origin with :data:`SLOPE_PRIOR` pseudo-queries at
    slope 1, each weighing the pool's mean ``f^2``); the kernel of :func:`desraj_terms` updates
    the same sums label by label."""
    f = np.asarray(f, dtype=np.float64)
    ff = f[np.asarray(seq, dtype=np.int64)]
    prior = SLOPE_PRIOR * float(np.mean(f * f))
    d = float(np.sum(ff * ff)) + prior
    return (float(np.sum(ff * np.asarray(values, dtype=np.float64))) + prior) / d if d > 0 else 0.0


def desraj_terms(q, seq, values, f, lo, hi, rounds=None, round_scale=None, round_shape=None) -> dict:
    """The terms of the finite-population estimator (module docstring) for the distinct labelled
    queries ``seq`` (pool indices, in labelling order) with their ``values`` ``L``; ``q`` the plan's
    sampling distribution over the pool, ``f`` the label model's expected measure per pool query,
    ``lo`` / ``hi`` each pool query's measure range. ``rounds``: with a ``q`` of one row per round
    (a distribution chosen before the round from the labels of the rounds before it), the round of
    each labelled query; ``round_scale`` / ``round_shape``: each round's factor on its terms'
    weights and its share of the model's shape in the control variate (module docstring).

    Returns arrays of ``len(seq)``: ``phi`` (the terms), ``low`` / ``high`` (each term's range,
    known before its draw), ``weight`` (the predictable weight ``a_t``, module docstring), ``left`` (``|U_t|``), ``r_low`` /
    ``r_high`` (the bounds on ``R`` the labels so far give outright), ``center`` (the predictable
    estimate before each draw) and ``slope`` (the control variate's ``b_t``)."""
    q = np.asarray(q, dtype=np.float64)
    f = np.asarray(f, dtype=np.float64)
    lo = np.asarray(lo, dtype=np.float64)
    hi = np.asarray(hi, dtype=np.float64)
    seq = np.asarray(seq, dtype=np.int64)
    L = np.asarray(values, dtype=np.float64)
    qs = q[None, :] if q.ndim == 1 else q
    if qs.ndim != 2:
        raise ValueError(f"q must be 1-d, or 2-d with one row per round, got shape {q.shape}")
    rnd = np.zeros(seq.size, dtype=np.int64) if rounds is None else np.asarray(rounds, dtype=np.int64)
    if rnd.shape != seq.shape or (rnd.size and (rnd.min() < 0 or rnd.max() >= qs.shape[0] or (np.diff(rnd) < 0).any())):
        raise ValueError("rounds must give each labelled query a round of q, in order")
    q = qs[0]
    N = q.size
    if not (f.shape == lo.shape == hi.shape == (N,)):
        raise ValueError(f"q, f, lo and hi must have one value per pool query ({N})")
    if seq.ndim != 1 or L.shape != seq.shape:
        raise ValueError("seq and values must be 1-d of the same length")
    if seq.size and (seq.min() < 0 or seq.max() >= N or np.unique(seq).size != seq.size):
        raise ValueError("seq must hold distinct pool indices")
    if not (np.isfinite(qs).all() and (qs > 0).all()):
        raise ValueError("q must be > 0 on every pool query (the defensive floor)")
    if not (np.isfinite(L).all() and np.isfinite(f).all()):
        raise ValueError("values and f must be finite")
    span = max(float((hi - lo).max(initial=0.0)), 1.0)
    if (L < lo[seq] - 1e-9 * span).any() or (L > hi[seq] + 1e-9 * span).any():
        raise ValueError("a labelled query's value lies outside its measure range")
    n = seq.size
    out = {k: np.empty(n) for k in ("phi", "low", "high", "weight", "left", "r_low", "r_high", "center", "slope")}
    from evalrank._jit import need
    from evalrank.active.finite_kernels import _terms

    need(n * N)
    center0 = float(np.clip(f.mean(), lo.mean(), hi.mean()))
    scale = np.ones(qs.shape[0]) if round_scale is None else np.asarray(round_scale, dtype=np.float64)
    if scale.shape != (qs.shape[0],) or not (np.isfinite(scale).all() and (scale > 0).all()):
        raise ValueError("round_scale must give each round of q a finite factor > 0")
    shape = np.ones(qs.shape[0]) if round_shape is None else np.asarray(round_shape, dtype=np.float64)
    if shape.shape != (qs.shape[0],) or not (np.isfinite(shape).all() and (shape >= 0).all() and (shape <= 1).all()):
        raise ValueError("round_shape must give each round of q a share in [0, 1]")
    _terms(np.ascontiguousarray(qs), rnd, seq, L, f, lo, hi, SLOPE_PRIOR * float(np.mean(f * f)), center0, scale,
           shape, out["phi"], out["low"], out["high"], out["weight"], out["left"], out["r_low"], out["r_high"],
           out["center"], out["slope"])
    out["round"] = rnd.copy()
    return out


def _running_estimate(terms) -> np.ndarray:
    """The weighted running mean of the terms after each label (exact once the pool is exhausted),
    within the bounds the labels give outright."""
    w, phi = terms["weight"], terms["phi"]
    exact = np.isinf(w)
    wf = np.where(exact, 0.0, w)
    est = np.cumsum(wf * phi) / np.maximum(np.cumsum(wf), 1e-300)
    if exact.any():
        est[exact] = phi[exact]
    return np.clip(est, terms["r_low"], terms["r_high"])


def _betting(terms, alpha: float, grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per look, the first and last candidate means of ``grid`` the betting sequence at ``alpha``
    still keeps (-1: none; module docstring): aGRAPA bets on the predictable centre and variance,
    capped at :data:`BET_CAP` of the largest bet the term's range allows; a candidate outside a
    term's range, or outside the bounds the labels give, is rejected outright
    (:func:`evalrank.active.finite_kernels._betting`)."""
    from evalrank._jit import need
    from evalrank.active.finite_kernels import _betting as kernel

    n = terms["phi"].size
    first = np.full(n, -1, dtype=np.int64)
    last = np.full(n, -1, dtype=np.int64)
    need(n * grid.size)
    kernel(terms["phi"], terms["low"], terms["high"], terms["center"], terms["left"],
           np.isfinite(terms["weight"]), terms["r_low"], terms["r_high"], grid, math.log(1.0 / alpha), BET_CAP,
           PRIOR_TERMS, first, last)
    return first, last


def _grid(terms, est) -> np.ndarray:
    """Candidate means: a coarse grid over the range the first term allows and a fine one around
    the estimates (any fixed candidate is a valid test; the grid only sets the resolution)."""
    lo, hi = float(terms["r_low"][0] if terms["phi"].size else 0.0), float(terms["r_high"][0])
    lo0 = min(lo, float(np.min(terms["low"])))
    hi0 = max(hi, float(np.max(terms["high"])))
    coarse = np.linspace(lo0, hi0, GRID // 3)
    e_lo, e_hi = float(est.min()), float(est.max())
    pad = max(e_hi - e_lo, 1e-9 * max(1.0, abs(e_hi)))
    spread = float(np.std(terms["phi"])) if terms["phi"].size > 1 else (hi - lo) / 10.0
    a = e_lo - 4.0 * pad - 6.0 * spread
    b = e_hi + 4.0 * pad + 6.0 * spread
    fine = np.linspace(max(a, lo0), min(b, hi0), GRID - GRID // 3)
    return np.unique(np.concatenate([coarse, fine]))


def _checked(terms, adapted: bool) -> np.ndarray:
    """Which terms the asymptotic part uses: all of them; in a plan whose rounds' q the labels
    chose (``adapted``), the terms of the rounds that began after at least :data:`CHECKED_AFTER`
    labels (a round ``r >= 1``; known before the round's draws, so the terms used are fixed in
    advance: a martingale of their own)."""
    rounds = np.asarray(terms.get("round", np.zeros(terms["phi"].size, dtype=np.int64)))
    if not adapted:
        return np.ones(rounds.size, dtype=bool)
    first = np.searchsorted(rounds, rounds, side="left")   # labels before each term's round
    return (rounds >= 1) & (first >= CHECKED_AFTER)


def confidence_sequence(terms, *, level: float = 0.95, t_star=None, adapted: bool = False) -> dict:
    """The interval after every label (module docstring): ``estimate``, ``ci_low``, ``ci_high``
    (arrays of the labels' count). ``t_star``: the number of labels the asymptotic part is tuned
    for (the plan's first round), default the number of terms."""
    from evalrank.active.confseq import best_rho2, mixture_margin, small_sample_factor

    if isinstance(level, bool) or not isinstance(level, (int, float)) or not 0.0 < float(level) < 1.0:
        raise ValueError(f"level must be a number in (0, 1), got {level!r}")
    alpha = 1.0 - float(level)
    phi = terms["phi"]
    n = phi.size
    if n == 0:
        raise ValueError("no labelled query")
    est = _running_estimate(terms)
    grid = _grid(terms, est)
    first, last = _betting(terms, alpha / 2.0, grid)
    step_lo = np.concatenate(([grid[0]], grid[:-1]))
    step_hi = np.concatenate((grid[1:], [grid[-1]]))
    any_kept = first >= 0
    low = np.where(any_kept, step_lo[np.maximum(first, 0)], est)
    high = np.where(any_kept, step_hi[np.maximum(last, 0)], est)
    # the asymptotic sequence from ASYMPTOTIC_FROM labels on (module docstring)
    w = terms["weight"]
    finite = np.isfinite(w)
    wf = np.where(finite & _checked(terms, adapted), w, 0.0)
    dev2 = np.where(finite, (phi - terms["center"]) ** 2, 0.0)
    sw, sw2 = np.cumsum(wf), np.cumsum(wf * wf)
    if adapted:
        # the asymptotic part's own centre: the weighted mean of the terms it uses
        with np.errstate(invalid="ignore", divide="ignore"):
            est_a = np.where(sw > 0, np.cumsum(wf * phi) / np.where(sw > 0, sw, 1.0), est)
    else:
        est_a = est
    sigma2 = np.cumsum(wf * wf * dev2) / np.maximum(sw2, 1e-300)
    n_eff = sw * sw / np.maximum(sw2, 1e-300)
    rho2 = best_rho2(t_star or n, alpha / 2.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        half = np.sqrt(sigma2) * mixture_margin(np.maximum(n_eff, 1.0), rho2, alpha / 2.0) * \
            small_sample_factor(np.maximum(n_eff, 2.0), alpha / 2.0)
    t = np.arange(1, n + 1)
    # from ASYMPTOTIC_FROM labels' worth of weight on: the effective number of terms, which in a
    # small pool lags the labels (the Des Raj weights grow as the pool is exhausted)
    use = (n_eff >= ASYMPTOTIC_FROM - 1e-9) & (t >= ASYMPTOTIC_FROM) & np.isfinite(half)
    low = np.where(use, np.maximum(low, est_a - half), low)
    high = np.where(use, np.minimum(high, est_a + half), high)
    # the bounds the labels give outright, and an exhausted pool's exact value
    low = np.maximum(low, terms["r_low"])
    high = np.minimum(high, terms["r_high"])
    low = np.minimum(low, est)
    high = np.maximum(high, est)
    done = ~finite
    if done.any():
        low = np.where(np.cumsum(done) > 0, est, low)
        high = np.where(np.cumsum(done) > 0, est, high)
    return {"estimate": est, "ci_low": low, "ci_high": high}


def finite_estimate(q, draws, values_by_query, f, lo, hi, *, level: float = 0.95, t_star=None,
                    draw_rounds=None, adapted: bool = False, round_scale=None, round_shape=None) -> dict:
    """The finite-population estimate and confidence sequence of a plan's ``draws`` (with
    repeats, as drawn): :func:`distinct_order`, :func:`desraj_terms`, :func:`confidence_sequence`.
    ``values_by_query``: ``L`` per pool query (only the drawn ones are read). Returns the
    sequence's arrays per distinct label plus ``draws_at`` (the draw count at which each query was
    first drawn) and ``queries`` (the distinct queries in order). ``draw_rounds``: with ``q`` of
    one row per round, the round of each draw; ``adapted``: the rounds' q were chosen from the
    labels (:func:`confidence_sequence`'s asymptotic part then uses the checked rounds' terms);
    ``round_scale``: a factor per round on its terms' weights, or "labels" for
    :func:`evalrank.active.adapt.round_scales` (each from the labels before its round);
    ``round_shape``: each round's share of the model's shape in its control variate (module
    docstring; default 1)."""
    seq, at = distinct_order(draws)
    vals = np.asarray(values_by_query, dtype=np.float64)[seq]
    rounds = None if draw_rounds is None else np.asarray(draw_rounds, dtype=np.int64)[at - 1]
    if isinstance(round_scale, str) and round_scale == "labels":   # from the labels before each round
        from evalrank.active.adapt import round_scales

        qs = np.atleast_2d(np.asarray(q, dtype=np.float64))
        round_scale = round_scales(qs, seq, np.zeros(seq.size, dtype=np.int64) if rounds is None else rounds,
                                   vals, f)
    terms = desraj_terms(q, seq, vals, f, lo, hi, rounds, round_scale, round_shape)
    cs = confidence_sequence(terms, level=level, t_star=t_star, adapted=adapted)
    return {**cs, "draws_at": at, "queries": seq, "terms": terms}
