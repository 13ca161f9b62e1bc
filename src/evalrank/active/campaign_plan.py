"""Planning a labelling campaign (Sawade et al. 2012): the label model's Theorem 3 moments per pool
query, the instrumental distribution of a method with the defensive floor (eqs. 11-12,
:mod:`evalrank.active.sampling`), Algorithm 1's budgeted draws (:func:`plan`), a round more from
the plan alone (:func:`extend`) and the check that a plan's draws are what its settings give
(:func:`check_plan`). Step 1 of :mod:`evalrank.active.campaign`.
"""

from __future__ import annotations

import numpy as np

from evalrank.active.campaign_state import Plan, Pool, mixed_rounds, model_fingerprint, parse_campaign_measure, rankings_fingerprint
from evalrank.active.estimate import budgeted_draws, check_max_draws
from evalrank.active.sampling import METHODS

__all__ = ["DEFAULT_EPSILON", "moments", "sampling_distribution", "planned_draws", "round_draws", "plan", "extend",
           "check_plan"]

#: the floor under q*: a plan samples from ``(1 - epsilon) q* + epsilon / m``
#: (:func:`evalrank.active.sampling.defensive`), so every importance weight is at most
#: ``1 / epsilon`` (``evalrank active plan --epsilon``)
DEFAULT_EPSILON = 0.05


def _ideal_expected(probs, offsets, k: int) -> np.ndarray:
    """Per query, the ideal DCG@k of the expected gains (NDCG's first-order normalizer)."""
    from evalrank.metrics.dcg import ideal_dcg

    g = probs @ (2.0 ** np.arange(probs.shape[1]) - 1.0)
    # ideal_dcg takes labels and a gain; the expected gain is passed as a linear "label"
    return ideal_dcg(g, offsets, k, gain="linear")


def moments(pool: Pool, measure: str, probs=None) -> tuple[np.ndarray, np.ndarray]:
    """Per query the label model's mean and variance of the measure (of the difference for two
    rankers): Theorem 3 (:mod:`evalrank.active.theorem3`); NDCG first-order (module docstring)."""
    from evalrank.active.theorem3 import batch_difference_mean_var, batch_mean_var

    family, k = parse_campaign_measure(measure)
    probs = pool.probs if probs is None else probs
    base = "dcg" if family == "ndcg" else family
    if pool.difference:
        mean, var = batch_difference_mean_var(probs, pool.offsets_a, pool.order_a, pool.offsets_b, pool.order_b,
                                              base, k=k)
    else:
        mean, var = batch_mean_var(probs, pool.offsets_a, pool.order_a, base, k=k)
    if family == "ndcg":
        z = _ideal_expected(probs, pool.offsets, k)
        z = np.where(z > 0, z, 1.0)
        mean, var = mean / z, var / (z * z)
    return mean, var


def sampling_distribution(pool: Pool, measure: str, method: str, keep: dict | None = None) -> np.ndarray:
    """``q`` over the pool's queries for ``method`` (Sawade Sec. 5: active, active_uniD,
    active_uniC, passive): :mod:`evalrank.active.sampling`'s q* of the label model's moments
    (:func:`moments`, which adds NDCG's first-order moments to Theorem 3's DCG and ERR), without
    the floor. ``keep``: a dict that receives the label model's ``mean`` and ``var`` per query.

    For **one ranker**, ``active`` and ``active_uniC`` use the q* of an estimator with the label
    model as control variate (every estimator of the tool but ``eq6``: its per-draw terms carry
    ``L - f``, whose expected square under the model is ``Var_theta[L | x]``), ``q ∝ sqrt(Var /
    lambda)`` (Zrnic & Candès 2024, "Active statistical inference", ICML, Sec. 3), instead of
    eq. 11's ``sqrt((Var + (E - R_theta)^2) / lambda)``, which is eq. 6's. Measured in
    ``benchmarks/campaign_worlds.py`` (``benchmarks/RESULTS.md``): 15-19 % lower RMSE where the
    model is useful and 8-9 % lower on the real 43-query excerpt and with an uninformative model.
    For a difference of two rankers eq. 12's q* stays (the model's predicted difference points to
    where the rankings differ, which its variance alone under-weights: 13 % higher RMSE at 10
    labels without it)."""
    from evalrank.active.sampling import _variants, instrumental

    if method not in METHODS:
        raise ValueError(f"method must be one of {list(METHODS)}, got {method!r}")
    parse_campaign_measure(measure)
    keep = {} if keep is None else keep
    q = _variants(pool.probs, pool.n_queries, pool.costs, (method,), lambda p: moments(pool, measure, p),
                  keep=keep)[method]
    if method in ("active", "active_uniC") and not pool.difference:
        return instrumental(np.asarray(keep["var"], dtype=np.float64),
                            pool.costs if method == "active" else np.ones(pool.n_queries))
    return q


def _number(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number, got {value!r}")
    return float(value)


def _budget(value) -> float:
    """A round's budget: a finite number > 0."""
    budget = _number(value, "budget")
    if not (np.isfinite(budget) and budget > 0):
        raise ValueError(f"budget must be > 0, got {budget!r}")
    return budget


def _cumulative(budgets) -> list[float]:
    """The total budget after each round (summed left to right, as :func:`extend` adds them)."""
    total, out = 0.0, []
    for b in budgets:
        total += float(b)
        out.append(total)
    return out


def planned_draws(q, costs, budget: float, seed: int, max_draws: int) -> dict:
    """The draws of a plan: :func:`budgeted_draws` on the plan's own stream of ``seed``
    (``evalrank.seeds.rng(seed, "active", "plan")``)."""
    from evalrank.seeds import rng

    return budgeted_draws(q, costs, float(budget), rng(int(seed), "active", "plan"), max_draws=int(max_draws))


def round_draws(q_rounds, costs, round_budgets, seed: int, max_draws: int) -> dict:
    """The draws of a plan of several rounds: :func:`planned_draws`'s dict of the last round plus
    ``ends`` (the draw count at the end of each round). Round ``r`` draws from its row of
    ``q_rounds`` until its cumulative budget is spent. Where every round draws from the same
    distribution these are :func:`planned_draws` of each cumulative budget (one stream, each round
    a prefix of the next). Where a round's distribution differs from the round's before, the
    uniform that ended the earlier round (it fell on a query that round could not pay for) is
    dropped and the round starts on the stream's next: the round's draws are then fresh draws from
    its own distribution, whatever ended the round before."""
    from evalrank.active.estimate import check_sampling, draws_from_cdf, query_cdf
    from evalrank.seeds import rng as seeded

    qs = np.atleast_2d(np.asarray(q_rounds, dtype=np.float64))
    cumulative = _cumulative(round_budgets)
    if len(cumulative) != qs.shape[0]:
        raise ValueError("q_rounds and round_budgets must have one entry per round")
    costs = np.asarray(costs, dtype=np.float64)
    if (qs == qs[0]).all():
        runs = [planned_draws(qs[0], costs, b, seed, max_draws) for b in cumulative]
        return {**runs[-1], "ends": [int(r["queries"].size) for r in runs]}
    pool_cost = float(costs.sum())
    for qr in qs:
        check_sampling(qr, costs)
    stream = seeded(int(seed), "active", "plan")
    seen = np.zeros(costs.size, dtype=bool)
    unseen = int(np.count_nonzero(qs[0] > 0))
    spent, queries, ends, capped, r = 0.0, [], [], False, 0
    u = None
    cdf = query_cdf(qs[0])
    while r < len(cumulative):
        if cumulative[r] >= pool_cost:
            break
        if u is None:
            if unseen == 0 or len(queries) == max_draws:
                capped = capped or (unseen > 0 and len(queries) == max_draws)
                ends.append(len(queries))
                r += 1
                continue
            u = stream.random(1)
        x = int(draws_from_cdf(cdf, u)[0])
        extra = 0.0 if seen[x] else costs[x]
        if spent + extra > cumulative[r]:
            ends.append(len(queries))
            r += 1
            if r < len(cumulative) and not np.array_equal(qs[r], qs[r - 1]):
                cdf, u = query_cdf(qs[r]), None
            continue
        spent += extra
        unseen -= int(not seen[x])
        seen[x] = True
        queries.append(x)
        u = None
    if r < len(cumulative):   # the budget covers the whole pool from round r on
        m = costs.size
        return {"queries": np.arange(m, dtype=np.int64), "spent": pool_cost, "whole_pool": True,
                "exhausted": False, "capped": False, "ends": ends + [m] * (len(cumulative) - r)}
    return {"queries": np.asarray(queries, dtype=np.int64), "spent": spent, "whole_pool": False,
            "exhausted": unseen == 0, "capped": capped, "ends": ends}


def plan(pool: Pool, *, budget: float, measure: str = "err", method: str = "active", seed: int = 0,
         previous: Plan | None = None, epsilon: float | None = None, max_draws: int | None = None) -> Plan:
    """Plan a campaign (module docstring). ``budget``: what this round may spend; ``epsilon``:
    the floor under q* (None: :data:`DEFAULT_EPSILON`); ``max_draws``: the draw cap
    (None: :func:`evalrank.active.estimate.default_max_draws`). With ``previous`` (a plan of the
    same pool and settings) this is :func:`extend`: the rounds' budgets add up and the new plan
    starts with every draw of the previous one (``measure``, ``method``, ``seed``, ``epsilon``
    must then be the previous plan's, and the pool its rankings, label model and costs)."""
    from evalrank.active.sampling import defensive, max_weight

    budget = _budget(budget)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    parse_campaign_measure(measure)
    eps = DEFAULT_EPSILON if epsilon is None else _number(epsilon, "epsilon")
    if previous is not None:
        want = {"measure": str(measure), "method": method, "seed": int(seed), "epsilon": eps,
                "runs": rankings_fingerprint(pool), "model": model_fingerprint(pool), "difference": pool.difference}
        if epsilon is None:
            want["epsilon"] = previous.settings.get("epsilon")
        got = {key: previous.settings.get(key) for key in want}
        if got != want:
            diff = {key: (got[key], want[key]) for key in want if got[key] != want[key]}
            raise ValueError(f"the previous plan was made with other settings or inputs (previous, now): {diff}")
        return extend(previous, budget)
    if not 0.0 <= eps <= 1.0:
        raise ValueError(f"epsilon must be in [0, 1], got {epsilon!r}")
    keep: dict = {}
    q = sampling_distribution(pool, measure, method, keep=keep)
    if method != "passive":
        q = defensive(q, eps)
    cheapest = float(pool.costs[q > 0].min())
    if budget < cheapest:
        raise ValueError(f"budget {budget:g} is below the cheapest query that can be drawn (cost {cheapest:g})")
    cap = check_max_draws(max_draws, pool.n_queries)
    d = planned_draws(q, pool.costs, budget, seed, cap)
    n = int(d["queries"].size)
    if n == 0:
        raise ValueError(f"budget {budget:g} buys no query: the first query drawn costs more; raise the budget")
    f, var = (np.asarray(keep[k], dtype=np.float64) for k in ("mean", "var"))
    settings = {"measure": str(measure), "method": method, "seed": int(seed), "epsilon": eps, "budget": budget,
                "rounds": 1, "round_budgets": [budget], "round_draws": [n], "t_star": n, "max_draws": cap,
                "n_queries": pool.n_queries, "n_grades": int(pool.probs.shape[1]),
                "pool_cost": float(pool.costs.sum()), "max_weight": max_weight(q), "f_pool": float(np.mean(f)),
                "runs": rankings_fingerprint(pool), "model": model_fingerprint(pool), "difference": pool.difference}
    return Plan(list(pool.qids), q, pool.costs.copy(), f, var, d["queries"], d["spent"], d["whole_pool"],
                d["exhausted"], d["capped"], settings)


def extend(previous: Plan, budget: float, mix: float | None = None, shape: float | None = None) -> Plan:
    """``previous`` with one more round of ``budget``: the same ``q``, costs, label model and
    stream, the total budget the sum of the rounds'; the new plan starts with every draw of the
    previous one (unless the total covers the whole pool: then every query once), and keeps its
    ``t_star`` and ``epsilon``. ``mix``: the new round's share of uniform sampling, ``q_r = (1 -
    mix) q + mix / m``, and ``shape``: its share of the label model's shape in the control
    variate (:func:`evalrank.active.adapt.choose_round` chooses both from the labels so far; None:
    the previous round's), recorded in the settings' ``round_mix`` and ``round_shape``."""
    budget = _budget(budget)
    s = dict(previous.settings)
    mixes = previous.mix
    lam = mixes[-1] if mix is None else _number(mix, "mix")
    if not 0.0 <= lam <= 1.0:
        raise ValueError(f"mix must be in [0, 1], got {mix!r}")
    mixes = [*mixes, lam]
    sh = previous.shape[-1] if shape is None else _number(shape, "shape")
    if not 0.0 <= sh <= 1.0:
        raise ValueError(f"shape must be in [0, 1], got {shape!r}")
    shapes = [*previous.shape, sh]
    total = float(s["budget"]) + budget
    budgets = [*s["round_budgets"], budget]
    d = round_draws(mixed_rounds(previous.q, mixes), previous.costs, budgets, s["seed"], s["max_draws"])
    n = previous.draws.size
    if not d["whole_pool"] and not previous.whole_pool and not np.array_equal(d["queries"][:n], previous.draws):
        raise RuntimeError("the extended plan does not start with the previous draws (a bug: please report)")
    s.update(budget=total, rounds=int(s["rounds"]) + 1, round_budgets=budgets, round_draws=d["ends"])
    if mix is not None or shape is not None or "round_mix" in s:   # the labels chose (adapt.choose_round)
        s["round_mix"] = mixes
        s["round_shape"] = shapes
    return Plan(list(previous.qids), previous.q, previous.costs, previous.f, previous.var, d["queries"], d["spent"],
                d["whole_pool"], d["exhausted"], d["capped"], s)


def _shares(values, n: int) -> bool:
    """``values`` is a list of ``n`` numbers in [0, 1] (a plan's per-round shares)."""
    return isinstance(values, list) and len(values) == n and all(
        isinstance(x, (int, float)) and not isinstance(x, bool) and 0.0 <= x <= 1.0 for x in values)


def check_plan(p: Plan) -> list[str]:
    """What is wrong with a plan's settings against its pool table and draws (empty: nothing):
    the pool's size, cost, ``f_pool`` and largest weight, the rounds (their budgets add up to
    the budget; each round's draw count is what its cumulative budget buys; ``t_star`` is the
    first round's), and the draws, spent and end flags recomputed from ``q``, the costs, the
    budget and the seed (:func:`evalrank.active.estimate.budgeted_draws`). A plan read from a
    file is checked row by row as well (:func:`evalrank.active.files.read_plan`)."""
    from evalrank.active.sampling import max_weight

    s, m = p.settings, len(p.qids)
    bad = []
    expect = {"n_queries": m, "pool_cost": float(p.costs.sum()), "f_pool": float(np.mean(p.f)),
              "max_weight": max_weight(p.q)}
    bad += [f"{k} is {s.get(k)!r}, the pool table gives {v!r}" for k, v in expect.items() if s.get(k) != v]
    rb, rd = s.get("round_budgets"), s.get("round_draws")
    if not (isinstance(rb, list) and isinstance(rd, list) and len(rb) == len(rd) == s.get("rounds", 0) >= 1):
        return bad + ["rounds, round_budgets and round_draws do not describe the same rounds"]
    cumulative = _cumulative(rb)
    total = cumulative[-1]
    if total != s.get("budget"):
        bad.append(f"budget {s.get('budget')!r} is not the sum of the rounds' budgets ({total!r})")
    if s.get("t_star") != rd[0]:
        bad.append(f"t_star {s.get('t_star')!r} is not the first round's draws ({rd[0]})")
    mix = s.get("round_mix")
    if mix is not None and not _shares(mix, len(rb)):
        return bad + ["round_mix must give each round a share of uniform sampling in [0, 1]"]
    shape = s.get("round_shape")
    if shape is not None and (mix is None or not _shares(shape, len(rb)) or shape[0] != 1.0):
        return bad + ["round_shape must give each round (the first: 1) a share of the model's shape in [0, 1], "
                      "beside round_mix"]
    try:
        last = round_draws(p.q_rounds, p.costs, rb, s["seed"], s["max_draws"])
    except (KeyError, TypeError, ValueError) as e:
        return bad + [f"the draws cannot be recomputed ({e})"]
    counts = last["ends"]
    if counts != rd:
        bad.append(f"round_draws {rd} are not what the rounds' budgets buy ({counts})")
    if not np.array_equal(last["queries"], p.draws):
        bad.append("the draws are not those of q, the costs, the budget and the seed")
    flags = {"spent": p.spent, "whole_pool": p.whole_pool, "exhausted": p.exhausted, "capped": p.capped}
    bad += [f"{k} is {v!r}, the draws give {last[k]!r}" for k, v in flags.items() if last[k] != v]
    return bad
