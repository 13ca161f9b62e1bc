r"""The coverage study of the labelling tool's defaults: campaigns looked at after every draw.

``evalrank active plan / estimate`` invites a team to label a few queries, look, and label
more. This study simulates such campaigns on an experiment's pool (the active stage's
``setup.npz``: the pool's true losses, the label model's means ``f`` and variances per query,
the costs, q*) and records, for every combination of

* the floor under q*: ``q = defensive(q*, epsilon)`` (:func:`evalrank.active.sampling.defensive`)
  for each ``epsilon`` of the study (0 is q* itself, what the paper's experiments and the tool
  before the floor used);
* the estimator: ``aipw``, ``hajek`` (the tool's defaults for a difference and for one ranker) or
  ``eq6`` (Sawade's), :mod:`evalrank.active.estimators`;
* the interval: ``cs`` (the asymptotic confidence sequence, :mod:`evalrank.active.confseq`) or
  ``t`` (Student's t, valid once at a budget fixed in advance),

the estimate and interval at each budget of the grid, and whether the interval missed the
truth at *any* look after any draw between two budgets -- so that coverage along whole
labelling sequences (simultaneous coverage: every look from budget ``b`` to the largest budget
covers) comes out of the same pass as the coverage at each budget.

Draws follow Algorithm 1 in deterministic labelling (:mod:`evalrank.papers.sawade2012.montecarlo`'s rule:
a repeated query is free; a budget stops before the first new query it cannot pay for), one
``SeedSequence`` stream per campaign (:func:`evalrank.seeds.rng`), so shards are ranges of
campaign numbers and the tables do not depend on how many there are. The boundary of ``cs``
is tuned at each campaign's draws at ``tune_budget`` (known before any label: draws do not
depend on labels), as the tool tunes it at the plan's draws.
"""

from __future__ import annotations

import numba
import numpy as np

from evalrank.active.estimate import default_max_draws, query_cdf
from evalrank.papers.sawade2012.montecarlo import _inverse_cdf, guide_table
from evalrank.seeds import stream_rngs

__all__ = ["COMBOS", "STATS", "FINITE", "ROUNDS", "campaign_draws", "simulate_campaigns", "simulate_finite",
           "simulate_rounds", "rounds_campaign", "offset_share",
           "first_order_ratio", "in_campaign_study"]

#: (estimator, interval) pairs of the study; the tool's default is the confidence sequence with
#: :func:`evalrank.active.estimators.default_estimator` (hajek for one ranker, aipw for a difference)
COMBOS = (("aipw", "cs"), ("eq6", "t"), ("aipw", "t"), ("eq6", "cs"), ("hajek", "cs"))
#: per (campaign, budget) arrays kept for each combination
STATS = ("estimate", "low", "high", "miss_at", "miss_since")


def in_campaign_study(experiment: str) -> bool:
    """Whether the campaign study runs on ``experiment``: one ranker, the model pairs and the
    index update, not the training-size series of Fig. 3 right."""
    return not experiment.startswith("fig3_train_size_")


@numba.njit(cache=True)
def _extend(u, cdf, guide, costs, stamp, tag, d, spent, pos, state):
    """Append the draws of uniforms ``u`` at ``d[pos:]`` (the inverse CDF, as
    :func:`evalrank.active.estimate.draws_from_cdf`) with the cost spent after each
    (``spent``: a new query adds its cost, a repeated one 0, the running sum of
    ``where(new, costs[d], 0)``); ``stamp`` marks the queries labelled so far with ``tag`` and
    ``state[0]`` counts them. Returns the new end."""
    s = spent[pos - 1] if pos > 0 else 0.0
    for j in range(u.shape[0]):
        x = _inverse_cdf(cdf, guide, u[j])
        d[pos] = x
        if stamp[x] != tag:
            stamp[x] = tag
            state[0] += 1
            s += costs[x]
        else:
            s += 0.0
        spent[pos] = s
        pos += 1
    return pos


class _Campaigns:
    """What every campaign on one pool, ``q`` and budget grid shares (:func:`campaign_draws`):
    the inverse CDF, the first chunk's size, buffers and the labelled-query stamps (one tag per
    campaign)."""

    def __init__(self, q, costs, budgets, max_draws: int):
        self.q = np.asarray(q, dtype=np.float64)
        self.costs = np.asarray(costs, dtype=np.float64)
        self.budgets = budgets
        self.max_draws = max_draws
        self.cdf = query_cdf(self.q)
        self.guide = guide_table(self.cdf)
        self.is_partial = budgets < self.costs.sum()
        partial = budgets[self.is_partial]
        self.any_partial = bool(partial.size)
        self.top = float(partial[-1]) if partial.size else 0.0
        self.size = int(min(max_draws, 2 * self.top / max(float(np.dot(self.q, self.costs)), 1e-12) + 64))
        self.drawable = np.count_nonzero(self.q > 0)
        room = max(self.size, max_draws) + 1
        self.d, self.spent = np.empty(room, dtype=np.int64), np.empty(room)
        self.stamp, self.state = np.full(self.q.size, -1, dtype=np.int64), np.zeros(1, dtype=np.int64)
        self.tag = -1

    def draws(self, gen: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        self.tag += 1
        self.state[0] = 0
        size, pos, max_draws = self.size, 0, self.max_draws
        while True:
            k = max(size - pos, 1)
            if pos + k > self.d.size:
                self.d = np.concatenate([self.d, np.empty(k, dtype=np.int64)])
                self.spent = np.concatenate([self.spent, np.empty(k)])
            pos = _extend(gen.random(k), self.cdf, self.guide, self.costs, self.stamp, self.tag, self.d, self.spent,
                          pos, self.state)
            if self.spent[pos - 1] > self.top or pos >= max_draws or self.state[0] == self.drawable:
                break
            size = min(2 * size, max_draws)
        counts = np.minimum(np.searchsorted(self.spent[:pos], self.budgets, side="right"), max_draws)
        n = int(counts[self.is_partial].max()) if self.any_partial else 0
        counts = np.minimum(counts, n)
        return self.d[:n].copy(), counts.astype(np.int64)


def campaign_draws(q, costs, budgets, gen: np.random.Generator, *, max_draws: int) -> tuple[np.ndarray, np.ndarray]:
    """One campaign's draws up to the largest budget below the pool's cost, and the number of
    draws made at each budget (Algorithm 1, deterministic labelling: a budget's state is the
    prefix of draws before the first new query it cannot pay for). Budgets at or above the pool's
    cost are whole-pool points (their count is the last partial budget's); a campaign that has
    labelled every drawable query keeps drawing for free up to ``max_draws``.

    The uniforms come in chunks (the first: twice the draws that spend the largest partial budget
    if no query repeated, plus 64; then doubling up to ``max_draws``), and the campaign stops
    drawing at the end of the first chunk after which it has spent past that budget, reached
    ``max_draws`` or labelled every drawable query."""
    return _Campaigns(q, costs, budgets, max_draws).draws(gen)


def offset_share(q, values, f) -> float:
    """The share of one AIPW term's variance under ``q`` that the label model's offset causes,
    exactly over the pool: with ``delta = R - f_pool`` (the model's mean missing the pool's),
    ``delta^2 Var_q(w) / Var_q(psi)``, ``psi = f_pool + w (L - f)``. Eq. 6's self-normalization
    does not pay this part; AIPW does (it stays unbiased), which is where eq. 6 can have the
    smaller RMSE at few draws."""
    q = np.asarray(q, dtype=np.float64)
    L = np.asarray(values, dtype=np.float64)
    f = np.asarray(f, dtype=np.float64)
    m = q.size
    ok = q > 0
    w = np.zeros(m)
    w[ok] = 1.0 / (m * q[ok])
    R = L.mean()
    psi = f.mean() + w * (L - f)
    var = float(np.sum(q[ok] * (psi[ok] - R) ** 2))
    delta = R - f.mean()
    part = delta * delta * float(np.sum(q[ok] * (w[ok] - 1.0) ** 2))
    return part / var if var > 0 else 0.0


def first_order_ratio(q, values, f, estimator: str) -> float:
    """An estimator's large-sample variance under ``q`` over eq. 6's, exactly over the pool: the
    variance of its (linearized) term, ``w (L - f) - (R - f_pool)`` for ``aipw``,
    ``w (L - f - (R - f_pool))`` for ``hajek`` and ``w (L - R)`` for ``eq6``. Above 1 the label
    model's means are no useful control variate for this pool (its errors ``L - f`` vary more,
    weighted, than the values around their mean): no number of draws makes the estimator beat
    eq. 6 there."""
    q = np.asarray(q, dtype=np.float64)
    L = np.asarray(values, dtype=np.float64)
    f = np.asarray(f, dtype=np.float64)
    from evalrank.active.estimators import ESTIMATORS

    if estimator not in ESTIMATORS:
        raise ValueError(f"estimator must be one of {list(ESTIMATORS)}, got {estimator!r}")
    m = q.size
    ok = q > 0
    w = 1.0 / (m * q[ok])
    R = L.mean()
    off = R - f.mean()
    L, f, q = L[ok], f[ok], q[ok]
    ref = float(np.sum(q * (w * (L - R)) ** 2))
    term = {"aipw": w * (L - f) - off, "hajek": w * (L - f - off), "eq6": w * (L - R)}[estimator]
    var = float(np.sum(q * term * term))
    return var / ref if ref > 0 else (0.0 if var == 0 else float("inf"))


def _misses(miss, counts):
    """``miss_at`` (a miss at the look of each budget) and ``miss_since`` (a miss at some look
    after the previous budget's, up to this budget's) from per-draw misses (R, T)."""
    R = miss.shape[0]
    cm = np.concatenate([np.zeros((R, 1), dtype=np.int64), np.cumsum(miss, axis=1)], axis=1)  # misses in draws < j
    rows = np.arange(R)[:, None]
    at = np.where(counts > 0, miss[rows, np.maximum(counts - 1, 0)], True)
    upto = cm[rows, counts]                               # misses in looks 1..counts[b]
    prev = np.concatenate([upto[:, :1] - at[:, :1].astype(np.int64), upto[:, :-1]], axis=1)
    since = (upto - prev) > 0
    since[:, 0] = at[:, 0]
    return at, since


def simulate_campaigns(setup, measure: str, *, epsilons, budgets, repetitions, seed: int, stream: tuple,
                       tune_budget: float, level: float = 0.95) -> dict:
    """Campaigns of every ``epsilon`` x :data:`COMBOS` on one experiment's setup (module
    docstring). ``setup``: the arrays of ``active-setup`` (``q_<m>_active``, ``values_<m>``,
    ``pred_mean_<m>``, ``pred_var_<m>``, ``costs``, ``truth_<m>``). Returns a flat dict:
    ``<stat>_<eps index>_<estimator>_<interval>`` of shape (campaigns, budgets) for each of
    :data:`STATS`, ``draws_<eps index>`` (campaigns, budgets) and ``max_weight`` per epsilon."""
    from evalrank.active.campaign_estimate import predicted_term_variance
    from evalrank.active.confseq import (BOUNDARY_ALPHA_SHARE, best_rho2, cs_half_width, mixture_margin,
                                         small_sample_factor)
    from evalrank.active.estimators import hajek_values
    from evalrank.active.interval import half_width, interval_from_sums
    from evalrank.active.sampling import defensive, max_weight

    budgets = np.asarray(budgets, dtype=np.float64)
    if budgets.ndim != 1 or budgets.size == 0 or np.any(np.diff(budgets) <= 0):
        raise ValueError("budgets must be a non-empty, strictly increasing 1-d array")
    if not np.isclose(budgets, tune_budget).any():
        raise ValueError(f"tune_budget {tune_budget} must be one of the budgets {budgets.tolist()}")
    tb = int(np.flatnonzero(np.isclose(budgets, tune_budget))[0])
    costs = np.asarray(setup["costs"], dtype=np.float64)
    L = np.asarray(setup[f"values_{measure}"], dtype=np.float64)
    f = np.asarray(setup[f"pred_mean_{measure}"], dtype=np.float64)
    v = np.asarray(setup[f"pred_var_{measure}"], dtype=np.float64)
    truth = float(setup[f"truth_{measure}"])
    m = L.size
    fbar = float(f.mean())
    reps = list(repetitions)
    whole = budgets >= costs.sum()
    alpha = BOUNDARY_ALPHA_SHARE * (1.0 - level)
    out = {"max_weight": np.zeros(len(epsilons)), "offset_share": np.zeros(len(epsilons))}
    for ei, eps in enumerate(epsilons):
        q = defensive(setup[f"q_{measure}_active"], float(eps))
        out["max_weight"][ei] = max_weight(q)
        out["offset_share"][ei] = offset_share(q, L, f)
        D, valid, counts = _draw_matrix(q, costs, budgets, list(stream_rngs(seed, (*stream, f"eps{ei}"), reps)),
                                        default_max_draws(m))
        out[f"draws_{ei}"] = counts
        t = np.arange(1, D.shape[1] + 1, dtype=np.float64)
        with np.errstate(divide="ignore"):
            wq = np.where(q > 0, 1.0 / (m * q), 0.0)
        w, Ld, fd = wq[D], L[D], f[D]
        t_star = np.maximum(counts[:, tb], 2).astype(np.float64)[:, None]
        rho2 = np.array([best_rho2(ts, alpha) for ts in t_star[:, 0]])[:, None]
        # AIPW terms: running mean and variance (divisor t - 1)
        psi = fbar + w * (Ld - fd)
        mean_a = np.cumsum(psi, axis=1) / t
        ss_a = np.maximum(np.cumsum(psi * psi, axis=1) - t * mean_a ** 2, 0.0)
        s2_a = ss_a / np.maximum(t - 1.0, 1.0)
        floor_a = predicted_term_variance(q, v)
        # eq. 6 and its delta-method standard error after every draw, from the running sums
        ww = w * w
        sw, sww = np.cumsum(w, axis=1), np.cumsum(ww, axis=1)

        def running_eq6(x):   # eq. 6 of values x and its standard error after every draw
            return interval_from_sums(sw, np.cumsum(w * x, axis=1), sww, np.cumsum(ww * x, axis=1),
                                      np.cumsum(ww * x * x, axis=1), t, level=level)

        est_6, se_6, half_6 = running_eq6(Ld)
        floor_6 = predicted_term_variance(q, v, f)
        est_h, se_h, _ = running_eq6(hajek_values(Ld, fd, fbar))   # Hajek: eq. 6 on L - f + f_pool
        factors = (mixture_margin(t, rho2, alpha), small_sample_factor(t, alpha))  # both sequences' boundary
        for est_name, interval in COMBOS:
            if est_name == "aipw":
                est, var_term, floor = mean_a, s2_a, floor_a
            elif est_name == "hajek":
                est, var_term, floor = est_h, se_h ** 2 * t, floor_a
            else:
                est, var_term, floor = est_6, se_6 ** 2 * t, floor_6
            if interval == "cs":
                half = cs_half_width(t, var_term, rho2, alpha, floor, factors=factors)
            elif est_name == "eq6":
                half = half_6
            else:
                half = half_width(np.sqrt(var_term / t), t, level)
            out.update(_at_budgets(est, half, truth, valid, counts, whole, f"{ei}_{est_name}_{interval}"))
    return out


def _plan_inputs(setup, measure: str, difference: bool, epsilon: float):
    """What the tool's default needs of one experiment's setup for ``measure``: costs, the pool's
    values, the label model's means and variances, each query's measure range, the truth, and the
    plan's ``q`` (one ranker: the control variate's q*, ``sqrt(Var / cost)``; a difference: eq.
    12's, the setup's) under the floor ``epsilon``."""
    from evalrank.active.sampling import defensive, instrumental

    costs = np.asarray(setup["costs"], dtype=np.float64)
    L, f, v, lo, hi = (np.asarray(setup[f"{k}_{measure}"], dtype=np.float64)
                       for k in ("values", "pred_mean", "pred_var", "range_lo", "range_hi"))
    q = defensive(setup[f"q_{measure}_active"] if difference else instrumental(v, costs), float(epsilon))
    return costs, L, f, v, lo, hi, float(setup[f"truth_{measure}"]), q


def _labels_after(d) -> np.ndarray:
    """The number of distinct queries labelled after each draw of ``d``."""
    _, at = np.unique(d, return_index=True)
    new = np.zeros(d.size, dtype=np.int64)
    new[at] = 1
    return np.cumsum(new)


#: the study's key of the tool's default: the finite-population estimator and its confidence
#: sequence (:mod:`evalrank.active.finite`), at the default floor only
FINITE = ("finite", "cs")


def simulate_finite(setup, measure: str, *, difference: bool, epsilon: float, budgets, repetitions, seed: int,
                    stream: tuple, tune_budget: float, level: float = 0.95, draw_stream: str = "finite") -> dict:
    """Campaigns of the tool's default on one experiment's setup: the plan's ``q`` as ``evalrank
    active plan`` makes it (one ranker: the control variate's q*, ``sqrt(Var / cost)``,
    :func:`evalrank.active.campaign_plan.sampling_distribution`; a difference: eq. 12's, the
    setup's ``q_<m>_active``) under the floor ``epsilon``; draws as :func:`simulate_campaigns`'
    (Algorithm 1, one stream per campaign, ``stream`` + ``draw_stream``: the study passes the
    asymptotic sequence's stream at the same floor, so that on the same ``q`` -- a difference --
    both designs label the same draws and their RMSEs compare campaign by campaign); after every draw the
    interval of :func:`evalrank.active.finite.finite_estimate` on the distinct labels so far
    (each query's measure range from the setup's ``range_lo_<m>`` / ``range_hi_<m>``; ``t_star``
    the labels at ``tune_budget``). Returns :data:`STATS` keyed ``finite_cs`` and ``draws_finite``."""
    from evalrank._jit import THRESHOLD, need
    from evalrank.active.finite import finite_estimate

    budgets = np.asarray(budgets, dtype=np.float64)
    tb = int(np.flatnonzero(np.isclose(budgets, tune_budget))[0])
    costs, L, f, v, lo, hi, truth, q = _plan_inputs(setup, measure, difference, epsilon)
    m = L.size
    D, valid, counts = _draw_matrix(q, costs, budgets, list(stream_rngs(seed, (*stream, draw_stream),
                                                                        list(repetitions))), default_max_draws(m))
    need(THRESHOLD)   # thousands of campaigns: the compiled kernels
    est = np.full(D.shape, np.nan)
    low = np.full(D.shape, -np.inf)
    high = np.full(D.shape, np.inf)
    for i in range(D.shape[0]):
        n = int(valid[i].sum())
        if n == 0:
            continue
        d = D[i, :n]
        labelled = _labels_after(d)
        t_star = int(labelled[max(int(counts[i, tb]) - 1, 0)])
        r = finite_estimate(q, d, L, f, lo, hi, level=level, t_star=max(t_star, 2))
        idx = labelled - 1
        est[i, :n], low[i, :n], high[i, :n] = r["estimate"][idx], r["ci_low"][idx], r["ci_high"][idx]
    whole = budgets >= costs.sum()
    out = _at_budgets_bounds(est, low, high, truth, valid, counts, whole, "finite_cs")
    out["draws_finite"] = counts
    return out


#: the study's key of the tool's default continued with the labels after each budget of the grid
#: (``plan --continue PLAN --run RUN --qrels LABELS``: :mod:`evalrank.active.adapt`)
ROUNDS = ("finite_rounds", "cs")


def _round(cdf, costs, budget: float, seen, state: list, gen: np.random.Generator, out: list, max_draws: int) -> None:
    """Append one round's draws to ``out``: inverse-CDF draws under ``cdf`` until the first new
    query the cumulative ``budget`` cannot pay for (its uniform is dropped: the next round starts
    on fresh ones, as :func:`evalrank.active.campaign_plan.round_draws` does), ``max_draws`` draws
    in all, or every query labelled. ``seen`` marks the labelled queries; ``state`` is ``[spent,
    queries not yet labelled]``."""
    from evalrank.active.estimate import draws_from_cdf

    while len(out) < max_draws and state[1] > 0:
        for x in draws_from_cdf(cdf, gen.random(64)).tolist():
            if not seen[x]:
                if state[0] + costs[x] > budget:
                    return
                seen[x] = True
                state[0] += costs[x]
                state[1] -= 1
            out.append(x)
            if len(out) >= max_draws or state[1] == 0:
                return


def rounds_campaign(q, costs, values, f, var, round_budgets, gen: np.random.Generator, *,
                    max_draws: int) -> tuple[np.ndarray, np.ndarray, list, list]:
    """One campaign of :func:`simulate_rounds`: the draws, the draw count at the end of each round
    (round ``k`` spends up to ``round_budgets[k]``, cumulative), and each round's share of uniform
    sampling and of the model's shape (the first round's 0 and 1; each later one's
    :func:`evalrank.active.adapt.choose_round` on the plan of the rounds before it, as ``plan
    --continue --qrels`` builds it, with ``values`` the pool's measures: only the labelled ones
    are read)."""
    from evalrank.active.adapt import choose_round
    from evalrank.active.campaign_state import Plan, mixed_rounds
    from evalrank.active.estimate import query_cdf

    q = np.asarray(q, dtype=np.float64)
    costs = np.asarray(costs, dtype=np.float64)
    m = q.size
    qids = [str(i) for i in range(m)]
    seen = np.zeros(m, dtype=bool)
    state, draws, ends, mixes, shapes = [0.0, 0], [], [], [0.0], [1.0]
    budgets = [float(b) for b in round_budgets]
    for k, b in enumerate(budgets):
        qk = mixed_rounds(q, mixes[-1:])[0]
        state[1] = int(np.count_nonzero((qk > 0) & ~seen))     # the queries this round can still label
        _round(query_cdf(qk), costs, b, seen, state, gen, draws, max_draws)
        ends.append(len(draws))
        if k + 1 < len(budgets):
            plan = Plan(qids, q, costs, f, var, np.asarray(draws, dtype=np.int64), state[0], False, False, False,
                        {"round_draws": list(ends), "rounds": len(ends), "round_mix": list(mixes),
                         "round_shape": list(shapes)})
            lam, sh = choose_round(plan, values)
            mixes.append(lam)
            shapes.append(sh)
    return np.asarray(draws, dtype=np.int64), np.asarray(ends, dtype=np.int64), mixes, shapes


def simulate_rounds(setup, measure: str, *, difference: bool, epsilon: float, budgets, repetitions, seed: int,
                    stream: tuple, level: float = 0.95) -> dict:
    """Campaigns of the tool's default continued with the labels: a first round that spends the
    grid's first budget from the plan's ``q`` (as :func:`simulate_finite`'s), then one round per
    later budget below the pool's cost, each drawn from ``(1 - lambda) q + lambda / m`` with the
    share of uniform sampling ``lambda`` and the control variate's share of the model's shape that
    :func:`evalrank.active.adapt.choose_round` picks from the labels of the rounds before it --
    what ``evalrank active plan --continue PLAN --run RUN --qrels LABELS --budget B`` does at each
    budget. A round draws as Algorithm 1 (deterministic labelling: it stops before the first new
    query it cannot pay for) on fresh uniforms (one stream per campaign, ``stream`` + ``"rounds"``).
    After every draw, the interval of :func:`evalrank.active.finite.finite_estimate` with the
    rounds (their weights from earlier labels, the asymptotic part on the rounds checked by
    labels; ``t_star`` the first round's labels, as the plan's). Returns :data:`STATS` keyed
    ``finite_rounds_cs`` and ``draws_finite_rounds``."""
    from evalrank._jit import THRESHOLD, need
    from evalrank.active.campaign_state import mixed_rounds
    from evalrank.active.finite import finite_estimate

    budgets = np.asarray(budgets, dtype=np.float64)
    costs, L, f, v, lo, hi, truth, q = _plan_inputs(setup, measure, difference, epsilon)
    m = L.size
    whole = budgets >= costs.sum()
    rounds = budgets[~whole]
    max_draws = default_max_draws(m)
    gens = list(stream_rngs(seed, (*stream, "rounds"), list(repetitions)))
    need(THRESHOLD)   # thousands of campaigns: the compiled kernels
    runs, counts = [], np.zeros((len(gens), budgets.size), dtype=np.int64)
    for i, gen in enumerate(gens):
        run = rounds_campaign(q, costs, L, f, v, rounds, gen, max_draws=max_draws)
        counts[i, ~whole] = run[1]
        counts[i, whole] = run[1][-1] if run[1].size else 0
        runs.append(run)
    T = max(1, max(d.size for d, *_ in runs))
    est = np.full((len(gens), T), np.nan)
    low = np.full((len(gens), T), -np.inf)
    high = np.full((len(gens), T), np.inf)
    valid = np.zeros((len(gens), T), dtype=bool)
    for i, (d, ends, mixes, shapes) in enumerate(runs):
        n = d.size
        if n == 0:
            continue
        valid[i, :n] = True
        labelled = _labels_after(d)
        draw_rounds = np.minimum(np.searchsorted(ends, np.arange(n), side="right"), ends.size - 1)
        t_star = int(labelled[max(int(ends[0]) - 1, 0)]) if ends[0] > 0 else 2
        r = finite_estimate(mixed_rounds(q, mixes), d, L, f, lo, hi, level=level, t_star=max(t_star, 2),
                            draw_rounds=draw_rounds, adapted=True, round_scale="labels", round_shape=shapes)
        idx = labelled - 1
        est[i, :n], low[i, :n], high[i, :n] = r["estimate"][idx], r["ci_low"][idx], r["ci_high"][idx]
    out = _at_budgets_bounds(est, low, high, truth, valid, counts, whole, "finite_rounds_cs")
    out["draws_finite_rounds"] = counts
    return out


def _at_budgets_bounds(est, low, high, truth, valid, counts, whole, key: str) -> dict:
    """:func:`_at_budgets` for an interval given by its ends (not symmetric about the estimate)."""
    miss = ((low > truth) | (high < truth)) & valid
    at, since = _misses(miss, counts)
    rows = np.arange(counts.shape[0])[:, None]
    k = np.maximum(counts - 1, 0)
    e = np.where(counts > 0, est[rows, k], np.nan)
    lo = np.where(counts > 0, low[rows, k], -np.inf)
    hi = np.where(counts > 0, high[rows, k], np.inf)
    e[:, whole] = truth
    lo[:, whole] = truth
    hi[:, whole] = truth
    at[:, whole] = False
    since[:, whole] = False
    return {f"estimate_{key}": e, f"low_{key}": lo, f"high_{key}": hi, f"miss_at_{key}": at,
            f"miss_since_{key}": since}


def _draw_matrix(q, costs, budgets, gens, max_draws: int):
    """Every campaign's draws (one generator each, :func:`campaign_draws`) as a (campaigns, T)
    matrix padded with 0, its validity mask and the draws made at each budget."""
    seqs, counts = [], np.zeros((len(gens), budgets.size), dtype=np.int64)
    pool = _Campaigns(q, costs, budgets, max_draws)
    for i, gen in enumerate(gens):
        d, c = pool.draws(gen)
        seqs.append(d)
        counts[i] = c
    T = max(1, max(s.size for s in seqs))
    D = np.zeros((len(gens), T), dtype=np.int64)
    valid = np.zeros((len(gens), T), dtype=bool)
    for i, s in enumerate(seqs):
        D[i, :s.size] = s
        valid[i, :s.size] = True
    return D, valid, counts


def _at_budgets(est, half, truth, valid, counts, whole, key: str) -> dict:
    """One combination's :data:`STATS` at each budget from its estimate and half width after every
    draw; whole-pool budgets label every query (the estimate is the truth)."""
    miss = (np.abs(est - truth) > half) & valid
    at, since = _misses(miss, counts)
    rows = np.arange(counts.shape[0])[:, None]
    k = np.maximum(counts - 1, 0)
    e = np.where(counts > 0, est[rows, k], np.nan)
    h = np.where(counts > 0, half[rows, k], np.inf)
    e[:, whole] = truth
    h[:, whole] = 0.0
    at[:, whole] = False
    since[:, whole] = False
    return {f"estimate_{key}": e, f"low_{key}": e - h, f"high_{key}": e + h, f"miss_at_{key}": at,
            f"miss_since_{key}": since}
