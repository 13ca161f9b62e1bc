r"""A labelling campaign for your own rankers (Sawade et al. 2012): plan which queries to label
under a budget, then estimate DCG, ERR or NDCG -- or the difference of two rankers -- with an
interval you may look at after every round. Flat arrays in, plain values out; files are read by
:mod:`evalrank.active.files` and the CLI (``evalrank active plan|estimate``).

1. :func:`plan`: the instrumental distribution of the chosen method
   (:mod:`evalrank.active.sampling`: eq. 11 for one ranker, eq. 12 for a difference, from the
   label model's Theorem 3 moments and the costs) with a floor: the defensive mixture
   ``q = (1 - epsilon) q* + epsilon / m`` (:func:`evalrank.active.sampling.defensive`,
   :data:`DEFAULT_EPSILON`), so no importance weight exceeds ``1 / epsilon``; ``passive`` stays
   uniform. Then Algorithm 1's draws in deterministic labelling
   (:func:`evalrank.active.estimate.budgeted_draws`): queries drawn i.i.d. from ``q``, a query
   drawn again costs nothing, drawing stops before the first new query the budget cannot pay
   for. The distinct queries never cost more than the budget; a budget at or above the pool's
   cost labels the whole pool. The draws depend only on ``q``, the costs, the budget and the
   seed's stream, so a plan extended with more budget (:func:`extend`, ``previous=``) keeps
   every earlier draw: a campaign grows in rounds without discarding labels. A plan carries
   what :func:`estimate` needs besides the labels and the rankings: ``q``, the costs and the
   label model's expected measure ``f`` and variance ``var`` per pool query, the first round's
   number of draws ``t_star`` (the confidence sequence is tuned for it) and where each round
   ended.
2. :func:`estimate`: with the labels of the planned queries, the AIPW estimator (default) or
   eq. 6 and a confidence sequence (default: valid at every look, so a campaign may be checked
   after each round), Student's t interval (valid once, at a budget fixed in advance) or the
   betting sequence (:func:`estimate_from_draws`), and a check of the label model: the variance
   it predicted for the labelled queries' losses (Theorem 3) against the squared errors of its
   predicted means, realized.

Measures: ``dcg``, ``err`` (the whole list, as in the paper), ``dcg@k``,
``err@k`` with Sawade's definitions (eqs. 1-2: gain ``2^y - 1``, discount
``1/log2(i+1)``; ERR's ``R(y) = (2^y - 1) / 2^{y_max}``), and ``ndcg@k``:
DCG@k over the ideal DCG@k of the query's labelled documents. For NDCG the
sampling distribution uses the DCG@k moments divided by the square of the
ideal DCG@k of the model's expected gains (first-order; Theorem 3 has no exact
NDCG moments) -- the estimate and its interval do not depend on that
approximation, only how well ``q`` is chosen does.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

import numpy as np

from evalrank.active.estimate import budgeted_draws, check_max_draws
from evalrank.active.sampling import METHODS

__all__ = ["DEFAULT_EPSILON", "Rankings", "Pool", "Plan", "plan", "extend", "estimate", "query_losses",
           "parse_campaign_measure", "label_model_check", "check_plan", "measure_range", "term_bounds",
           "model_fingerprint", "rankings_fingerprint", "planned_draws"]

#: the label model is called badly overconfident when the realized squared errors exceed the
#: predicted variance by this factor (mean over the labelled queries)
OVERCONFIDENT = 3.0

#: the floor under q*: a plan samples from ``(1 - epsilon) q* + epsilon / m``
#: (:func:`evalrank.active.sampling.defensive`), so every importance weight is at most
#: ``1 / epsilon`` (``evalrank active plan --epsilon``)
DEFAULT_EPSILON = 0.05


def parse_campaign_measure(measure) -> tuple[str, int | None]:
    """``"err"`` / ``"dcg@10"`` / ``"ndcg@10"`` -> ``(family, k)`` (the package's measure names,
    :mod:`evalrank.metrics.names`); NDCG needs a cut-off."""
    from evalrank.metrics.names import RankMeasure, parse_measure

    m = parse_measure(measure)
    if not (isinstance(m, RankMeasure) and m.family in ("dcg", "err", "ndcg") and not m.options
            and (m.k is None or isinstance(m.k, int))):
        raise ValueError(f"measure must be err, dcg, err@k, dcg@k or ndcg@k, got {measure!r}")
    if m.family == "ndcg" and m.k is None:
        raise ValueError("measure ndcg needs a cut-off, e.g. ndcg@10")
    return m.family, m.k


def _check_orders(obj, n_docs: int) -> None:
    """The shapes of a :class:`Rankings` / :class:`Pool`: offsets per query, each ranker's order
    with its own offsets (filled in with ``offsets`` when None)."""
    n = len(obj.qids)
    if obj.offsets.shape != (n + 1,) or obj.offsets[-1] != n_docs:
        raise ValueError("offsets must have one entry per query + 1, ending at the number of documents")
    for name in ("a", "b"):
        order, offs = getattr(obj, f"order_{name}"), getattr(obj, f"offsets_{name}")
        if order is None:
            if offs is not None:
                raise ValueError(f"offsets_{name} given without order_{name}")
            continue
        if offs is None:
            object.__setattr__(obj, f"offsets_{name}", obj.offsets)
            offs = obj.offsets
        if offs.shape != (n + 1,) or offs[-1] != order.shape[0]:
            raise ValueError(f"offsets_{name} must have one entry per query + 1, ending at the length of "
                             f"order_{name} ({order.shape[0]})")


@dataclass(frozen=True, eq=False)
class Rankings:
    """Each ranker's order of the pool's documents: what :func:`estimate` needs besides the plan
    and the labels (no label model, no costs).

    ``qids`` the pool's queries; ``offsets`` (n_queries + 1,) the rows of each query's documents
    (the union of the rankers' documents); ``order_a`` the rows ranker a ranks, in its order,
    query by query, starting at ``offsets_a`` (default ``offsets``: it ranks every document);
    ``order_b`` / ``offsets_b`` the same for a second ranker (a difference); ``fingerprint``
    identifies the run(s) (:func:`evalrank.active.files.rankings_from_trec` hashes them; ""
    : :func:`rankings_fingerprint` hashes the arrays)."""

    qids: list
    offsets: np.ndarray
    order_a: np.ndarray
    order_b: np.ndarray | None = None
    offsets_a: np.ndarray | None = None
    offsets_b: np.ndarray | None = None
    fingerprint: str = ""

    def __post_init__(self):
        _check_orders(self, int(self.offsets[-1]) if len(self.offsets) else -1)

    @property
    def n_queries(self) -> int:
        return len(self.qids)

    @property
    def n_docs(self) -> int:
        return int(self.offsets[-1])

    @property
    def difference(self) -> bool:
        return self.order_b is not None


@dataclass(frozen=True, eq=False)
class Pool:
    """The queries a campaign may label and what is known before labelling.

    ``qids`` the pool's queries; ``offsets`` (n_queries + 1,) the rows of each query's documents
    in ``probs`` (n_docs, n_grades), the label model ``p(y | x, z)``; ``order_a`` (and
    ``order_b`` for a difference) each ranker's documents in its order (row indices, query by
    query, starting at ``offsets_a`` / ``offsets_b``, by default ``offsets``: the ranker ranks
    every document of the query; :func:`evalrank.active.files.pool_from_trec` makes them from
    TREC runs); ``costs`` (n_queries,) > 0; ``fingerprint`` identifies the rankings (as
    :attr:`Rankings.fingerprint`)."""

    qids: list
    offsets: np.ndarray
    probs: np.ndarray
    order_a: np.ndarray
    costs: np.ndarray
    order_b: np.ndarray | None = None
    fingerprint: str = ""
    offsets_a: np.ndarray | None = None
    offsets_b: np.ndarray | None = None

    def __post_init__(self):
        n = len(self.qids)
        _check_orders(self, self.probs.shape[0])
        if self.costs.shape != (n,):
            raise ValueError(f"costs must have one value per query ({n}), got shape {self.costs.shape}")
        if not (np.isfinite(self.costs).all() and (self.costs > 0).all()):
            raise ValueError("costs must be finite and > 0")

    @property
    def n_queries(self) -> int:
        return len(self.qids)

    @property
    def difference(self) -> bool:
        return self.order_b is not None

    @property
    def rankings(self) -> Rankings:
        """The rankers' orders alone (what :func:`estimate` takes)."""
        return Rankings(list(self.qids), self.offsets, self.order_a, self.order_b, self.offsets_a, self.offsets_b,
                        self.fingerprint)


def rankings_fingerprint(r) -> str:
    """``r.fingerprint`` if set, else a hash of its queries and orders (16 hex digits)."""
    if r.fingerprint:
        return r.fingerprint
    h = hashlib.sha256(json.dumps([str(q) for q in r.qids]).encode())
    for a in (r.offsets, r.order_a, r.offsets_a, r.order_b, r.offsets_b):
        h.update(b"-" if a is None else np.ascontiguousarray(a, dtype=np.int64).tobytes())
    return h.hexdigest()[:16]


def model_fingerprint(pool: Pool) -> str:
    """A hash of the label model's probabilities and the costs (16 hex digits): what a plan
    records as ``model`` (the same model read from another file, or written with fewer digits
    but renormalised to the same rows, gives the same hash only if the rows are equal to 12
    decimals)."""
    h = hashlib.sha256(np.asarray(pool.probs.shape, dtype=np.int64).tobytes())
    h.update(np.round(np.ascontiguousarray(pool.probs, dtype=np.float64), 12).tobytes())
    h.update(np.ascontiguousarray(pool.costs, dtype=np.float64).tobytes())
    return h.hexdigest()[:16]


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
    the floor. ``keep``: a dict that receives the label model's ``mean`` and ``var`` per query."""
    from evalrank.active.sampling import _variants

    if method not in METHODS:
        raise ValueError(f"method must be one of {list(METHODS)}, got {method!r}")
    parse_campaign_measure(measure)
    return _variants(pool.probs, pool.n_queries, pool.costs, (method,), lambda p: moments(pool, measure, p),
                     keep=keep)[method]


@dataclass(frozen=True, eq=False)
class Plan:
    """The queries to label, in draw order, and what estimating needs besides the labels.

    ``q`` the sampling distribution over the pool, ``costs`` per pool query, ``f`` / ``var`` the
    label model's expected measure and its variance per pool query (Theorem 3; of the difference
    for two rankers), ``draws`` (query index per draw), what was spent and how the loop ended;
    ``settings``: measure, method, seed, epsilon, budget (all rounds), ``round_budgets`` and
    ``round_draws`` (each round's budget and the draws at its end), ``t_star`` (the first
    round's draws), ``max_draws``, ``n_grades``, ``max_weight``, ``f_pool``, ``pool_cost``,
    ``n_queries``, the fingerprints ``runs`` and ``model``, ``difference``."""

    qids: list
    q: np.ndarray
    costs: np.ndarray
    f: np.ndarray
    var: np.ndarray
    draws: np.ndarray
    spent: float
    whole_pool: bool
    exhausted: bool
    capped: bool
    settings: dict = field(default_factory=dict)

    @property
    def weights(self) -> np.ndarray:
        """``w_j = p(x_j) / q(x_j)`` per draw (``p`` uniform); 1 for a whole-pool plan."""
        if self.whole_pool:
            return np.ones(self.draws.size)
        return 1.0 / (len(self.qids) * self.q[self.draws])

    @property
    def labelled(self) -> np.ndarray:
        """The distinct queries to label, in the order they are first drawn."""
        _, first = np.unique(self.draws, return_index=True)
        return self.draws[np.sort(first)]

    @property
    def exact(self) -> bool:
        """Every pool query is labelled (the whole pool, or every query drawn): the estimate is
        the pool's value."""
        return bool(self.whole_pool or (self.exhausted and (self.q > 0).all()))

    def rows(self) -> list[dict]:
        """One row per draw: ``draw, qid, q, weight, new, cost, cumulative_cost``."""
        seen, total, out = set(), 0.0, []
        w = self.weights
        for j, x in enumerate(self.draws.tolist()):
            new = x not in seen
            seen.add(x)
            c = float(self.costs[x]) if new else 0.0
            total += c
            out.append({"draw": j + 1, "qid": self.qids[x], "q": float(self.q[x]), "weight": float(w[j]),
                        "new": int(new), "cost": c, "cumulative_cost": total})
        return out


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


def extend(previous: Plan, budget: float) -> Plan:
    """``previous`` with one more round of ``budget``: the same ``q``, costs, label model and
    stream, the total budget the sum of the rounds'; the new plan starts with every draw of the
    previous one (unless the total covers the whole pool: then every query once), and keeps its
    ``t_star`` and ``epsilon``."""
    budget = _budget(budget)
    s = dict(previous.settings)
    total = float(s["budget"]) + budget
    d = planned_draws(previous.q, previous.costs, total, s["seed"], s["max_draws"])
    n = previous.draws.size
    if not d["whole_pool"] and not previous.whole_pool and not np.array_equal(d["queries"][:n], previous.draws):
        raise RuntimeError("the extended plan does not start with the previous draws (a bug: please report)")
    s.update(budget=total, rounds=int(s["rounds"]) + 1, round_budgets=[*s["round_budgets"], budget],
             round_draws=[*s["round_draws"], int(d["queries"].size)])
    return Plan(list(previous.qids), previous.q, previous.costs, previous.f, previous.var, d["queries"], d["spent"],
                d["whole_pool"], d["exhausted"], d["capped"], s)


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
    try:
        runs = [planned_draws(p.q, p.costs, b, s["seed"], s["max_draws"]) for b in cumulative]
    except (KeyError, TypeError, ValueError) as e:
        return bad + [f"the draws cannot be recomputed ({e})"]
    counts = [int(r["queries"].size) for r in runs]
    if counts != rd:
        bad.append(f"round_draws {rd} are not what the rounds' budgets buy ({counts})")
    last = runs[-1]
    if not np.array_equal(last["queries"], p.draws):
        bad.append("the draws are not those of q, the costs, the budget and the seed")
    flags = {"spent": p.spent, "whole_pool": p.whole_pool, "exhausted": p.exhausted, "capped": p.capped}
    bad += [f"{k} is {v!r}, the draws give {last[k]!r}" for k, v in flags.items() if last[k] != v]
    return bad


def query_losses(labels, offsets, order, measure: str, n_grades: int, ideal_offsets=None) -> np.ndarray:
    """Per query the measure of the ranking ``order`` under ``labels`` (int grades per row of
    the pool, ``0 .. n_grades - 1``; ``offsets`` where each query's part of ``order`` starts):
    Sawade's DCG / ERR (eqs. 1-2), or NDCG@k over the ideal DCG@k of the query's labelled
    documents (0 when none is relevant): those of the pool's rows grouped by ``ideal_offsets``
    (the pool's offsets: both rankers of a difference share one normalizer), by default those
    of the list."""
    from evalrank.metrics.dcg import dcg_sorted, ideal_dcg
    from evalrank.metrics.err import err_sorted, stop_probability

    family, k = parse_campaign_measure(measure)
    labels = np.asarray(labels)
    ranked = labels[order]
    if family == "err":
        return err_sorted(stop_probability(ranked, n_grades - 1), offsets, k)
    d = dcg_sorted(2.0 ** ranked - 1.0, offsets, k)
    if family == "dcg":
        return d
    ideal = (ideal_dcg(ranked, offsets, k, gain="exp") if ideal_offsets is None
             else ideal_dcg(labels, ideal_offsets, k, gain="exp"))
    return np.divide(d, ideal, out=np.zeros_like(d), where=ideal > 0)


def measure_range(rankings, measure: str, n_grades: int) -> tuple[np.ndarray, np.ndarray]:
    """Per query the range ``(lo, hi)`` the measure can take on its list(s): ERR and NDCG in
    [0, 1]; DCG in [0, the DCG of the list with every document at the top grade] (cut at k);
    for a difference ``[lo_a - hi_b, hi_a - lo_b]``."""
    family, k = parse_campaign_measure(measure)

    def one(offs):
        n = np.diff(np.asarray(offs, dtype=np.int64))
        if family != "dcg":
            return np.zeros(n.size), np.ones(n.size)
        if k is not None:
            n = np.minimum(n, k)
        top = n.max(initial=0)
        ideal = np.concatenate(([0.0], np.cumsum(1.0 / np.log2(np.arange(2, top + 2)))))
        return np.zeros(n.size), (2.0 ** (int(n_grades) - 1) - 1.0) * ideal[n]

    lo_a, hi_a = one(rankings.offsets_a)
    if rankings.order_b is None:
        return lo_a, hi_a
    lo_b, hi_b = one(rankings.offsets_b)
    return lo_a - hi_b, hi_a - lo_b


def term_bounds(p: Plan, lo, hi) -> tuple[float, float]:
    """The range of the AIPW terms ``psi = f_pool + w (L - f)`` over the queries ``q`` can draw,
    with ``L`` in ``[lo, hi]`` per query (:func:`measure_range`): the betting interval's bounds."""
    ok = p.q > 0
    w = 1.0 / (len(p.qids) * p.q[ok])
    f_pool = float(p.settings["f_pool"])
    a = f_pool + w * (np.asarray(lo)[ok] - p.f[ok])
    b = f_pool + w * (np.asarray(hi)[ok] - p.f[ok])
    return float(min(a.min(), b.min())), float(max(a.max(), b.max()))


def label_model_check(pred_mean, pred_var, realized) -> dict:
    """The label model against what labelling showed, over the labelled queries: its predicted
    variance of each query's loss (Theorem 3) against the realized squared error of its
    predicted mean, ``(L_x - E_theta[L | x])^2``. ``ratio`` = mean realized / mean predicted:
    about 1 for a calibrated model, above :data:`OVERCONFIDENT` a warning (q* then rests on
    variances that are too small, and active sampling may save little or nothing)."""
    pred_mean, pred_var, realized = (np.asarray(a, dtype=np.float64) for a in (pred_mean, pred_var, realized))
    err2 = (realized - pred_mean) ** 2
    pv = float(pred_var.mean()) if pred_var.size else float("nan")
    re = float(err2.mean()) if err2.size else float("nan")
    ratio = re / pv if pv > 0 else (float("inf") if re > 0 else 1.0)
    warning = None
    if ratio > OVERCONFIDENT:
        warning = (f"the label model is overconfident: the realized squared errors of its predicted losses are "
                   f"{ratio:.1f}x the variance it predicted ({re:.4g} vs {pv:.4g} on {err2.size} queries); the "
                   "interval does not depend on the model, but q* was built on too small variances, so active "
                   "sampling may save little over passive")
    return {"queries": int(err2.size), "predicted_variance": pv, "realized_squared_error": re, "ratio": ratio,
            "warning": warning}


#: what ``estimate`` says of each interval (``note``)
NOTES = {
    "cs": "a confidence sequence: it holds at every look at once (after any number of rounds), so you may "
          "estimate after each round and stop when it is narrow enough",
    "betting": "an exact confidence sequence for terms within their range (bounds): it holds at every look at once",
    "t": "Student's t interval: valid once, at a budget fixed in advance; looking after several rounds and "
         "stopping when it suits breaks its level (use the default --interval cs for that)",
}


def _check_rankings(p: Plan, rankings) -> None:
    if rankings_fingerprint(rankings) != p.settings.get("runs"):
        raise ValueError("the plan was made for other rankings (the run or the second run differs from the one "
                         "given to 'active plan')")
    if rankings.difference != bool(p.settings.get("difference")):
        raise ValueError("the plan was made for " + ("two rankers (a difference)" if p.settings.get("difference")
                                                     else "one ranker") + ": give the same runs")
    if list(rankings.qids) != list(p.qids):
        raise ValueError("the rankings' queries differ from the plan's pool")


def _values(p: Plan, rankings, labels) -> np.ndarray:
    """Each pool query's measure (or difference) under ``labels``; unknown (-1) counted 0 (every
    planned query's documents are checked to be labelled)."""
    n_grades = int(p.settings["n_grades"])
    labels = np.asarray(labels)
    if labels.shape != (rankings.n_docs,):
        raise ValueError(f"labels must have one grade per pool document ({rankings.n_docs}), got {labels.shape}")
    if labels.size and (labels.max() >= n_grades or labels.min() < -1):
        bad = int(labels.max()) if labels.max() >= n_grades else int(labels.min())
        raise ValueError(f"a label {bad} is outside the label model's grades 0..{n_grades - 1} (-1: unknown)")
    need = p.labelled
    seg = np.repeat(np.arange(rankings.n_queries), np.diff(rankings.offsets))
    missing_q = np.unique(seg[(labels < 0) & np.isin(seg, need)])
    if missing_q.size:
        names = [rankings.qids[i] for i in missing_q[:10]]
        raise ValueError(f"{missing_q.size} planned quer{'y has' if missing_q.size == 1 else 'ies have'} documents "
                         f"without a label (e.g. {names}); label every document of every planned query")
    measure = p.settings["measure"]
    lab = np.where(labels < 0, 0, labels)
    values = query_losses(lab, rankings.offsets_a, rankings.order_a, measure, n_grades, rankings.offsets)
    if rankings.difference:
        values = values - query_losses(lab, rankings.offsets_b, rankings.order_b, measure, n_grades,
                                       rankings.offsets)
    return values


def _round_rows(p: Plan, values, **kw) -> list[dict]:
    """The interval at the end of every round of a plan that now labels every query: the rounds
    before that on their own draws (the plan's first draws, or -- the whole pool -- the draws the
    last partial round's budget bought), then the exact value."""
    s = p.settings
    cumulative = _cumulative(s["round_budgets"])
    exact_from = [k for k, b in enumerate(cumulative) if b >= s["pool_cost"]] if p.whole_pool else \
        [k for k, n in enumerate(s["round_draws"]) if n == p.draws.size]
    first = exact_from[0] if exact_from else len(cumulative) - 1
    rows = []
    if first > 0:
        seq = (planned_draws(p.q, p.costs, cumulative[first - 1], s["seed"], s["max_draws"])["queries"] if p.whole_pool
               else p.draws[:s["round_draws"][first - 1]])
        w = 1.0 / (len(p.qids) * p.q[seq])
        ends = s["round_draws"][:first]
        rows = _align(estimate_from_draws(w, values[seq], p.f[seq], s["f_pool"], rounds=ends[:-1], **kw)["rounds"],
                      ends)
    exact = float(values[p.labelled].mean())
    return rows + [{"draws": int(n), "estimate": exact, "ci_low": exact, "ci_high": exact}
                   for n in s["round_draws"][first:]]


def _align(rows, ends) -> list[dict]:
    """The rows of :func:`estimate_from_draws` (one per distinct draw count), one per round
    ending at ``ends``: a round that added no draw repeats the row of the round before."""
    by_draws = {r["draws"]: r for r in rows}
    return [by_draws[int(n)] for n in ends]


def _per_round(p: Plan, rows) -> list[dict]:
    """``round`` and its cumulative ``budget`` added to each round's row."""
    return [{"round": k + 1, "budget": b, **r} for k, (b, r) in enumerate(zip(_cumulative(p.settings["round_budgets"]),
                                                                                rows))]


def estimate(p: Plan, rankings, labels, *, estimator: str = "aipw", interval: str = "cs",
             level: float = 0.95) -> dict:
    """The estimate and its interval from the labels of the planned queries
    (:func:`estimate_from_draws`; ``estimator`` aipw or eq6, ``interval`` cs, t or betting).

    ``rankings``: the rankers' orders of the pool's documents (:class:`Rankings`, or the
    :class:`Pool` the plan was made from); ``labels``: int grade per pool document, ``-1`` where
    unknown; every document of every planned query must be labelled (a ValueError names the
    queries that are not). For two rankers the estimate is ``R[a] - R[b]`` and ``better`` says
    which ranker the interval favours ("a", "b" or "undecided"). ``rounds``: the interval at the
    end of every round (a confidence sequence holds at all of them at once).
    """
    from evalrank.active.interval import few_draws_warning

    if not (isinstance(level, float) and 0.0 < level < 1.0):
        raise ValueError(f"level must be a float in (0, 1), got {level!r}")
    if estimator == "eq6" and interval == "betting":
        raise ValueError("the betting interval needs the aipw estimator (i.i.d. terms in a known range)")
    if isinstance(rankings, Pool):
        rankings = rankings.rankings
    _check_rankings(p, rankings)
    values = _values(p, rankings, labels)
    s = p.settings
    need = p.labelled
    kw = {"estimator": estimator, "interval": interval, "level": level, "t_star": int(s["t_star"]),
          "var_floor": predicted_term_variance(p.q, p.var, p.f if estimator == "eq6" else None)}
    if interval == "betting":
        kw["bounds"] = term_bounds(p, *measure_range(rankings, s["measure"], int(s["n_grades"])))
    exact = p.exact
    if exact:
        # every query once: the pool's value (an exhausted plan's repeated draws would weigh queries unequally)
        res = estimate_from_draws(np.ones(need.size), values[need], p.f[need], s["f_pool"], exact=True, **kw)
        res["rounds"] = _round_rows(p, values, **kw)
    else:
        res = estimate_from_draws(p.weights, values[p.draws], p.f[p.draws], s["f_pool"],
                                  rounds=s["round_draws"][:-1], **kw)
        res["rounds"] = _align(res["rounds"], s["round_draws"])
    out = {"measure": s["measure"], "method": s["method"], "estimator": res["estimator"],
           "interval": res["interval"], "estimate": res["estimate"], "stderr": res["stderr"],
           "ci_low": res["ci_low"], "ci_high": res["ci_high"], "level": level,
           "labelled_queries": int(need.size), "draws": int(p.draws.size), "cost_spent": float(p.spent),
           "budget": float(s["budget"]), "pool_queries": len(p.qids), "effective_sample_size": res["ess"],
           "exact": bool(exact), "epsilon": s["epsilon"], "max_weight": s["max_weight"],
           "rounds": _per_round(p, res["rounds"]), "label_model": label_model_check(p.f[need], p.var[need], values[need]),
           "warning": few_draws_warning(int(p.draws.size), bool(exact)) if interval == "t" else None,
           "note": None if exact else NOTES[interval]}
    if rankings.difference:
        out["difference"] = "a - b"
        out["better"] = "a" if res["ci_low"] > 0 else ("b" if res["ci_high"] < 0 else "undecided")
    return out


#: the estimators and intervals of :func:`estimate_from_draws` (``evalrank active estimate
#: --estimator / --interval``); the first of each is the default
INTERVALS = ("cs", "t", "betting")


def predicted_term_variance(q, var, mean=None) -> float:
    """The label model's variance of one estimator term under ``q``, the confidence sequence's
    few-draws floor (:func:`evalrank.active.confseq.asymptotic_cs`): for AIPW (``mean`` None)
    ``sum_x q(x) w(x)^2 Var_theta[L | x] = (1/m^2) sum_x Var_theta[L | x] / q(x)`` (Theorem 3's
    variances ``var`` per pool query; the model's means cancel in ``L - f``); for eq. 6 (``mean``:
    the model's means ``f``) its linearized terms ``w (L - R)``:
    ``(1/m^2) sum_x (Var_theta[L | x] + (f(x) - f_pool)^2) / q(x)``. Queries with ``q = 0`` are
    never drawn and add nothing."""
    q = np.asarray(q, dtype=np.float64)
    v = np.asarray(var, dtype=np.float64)
    if mean is not None:
        f = np.asarray(mean, dtype=np.float64)
        v = v + (f - f.mean()) ** 2
    m = q.size
    ok = q > 0
    return float(np.sum(v[ok] / q[ok]) / (m * m))


def estimate_from_draws(weights, values, f_draws, f_pool: float, *, estimator: str = "aipw",
                        interval: str = "cs", level: float = 0.95, t_star=None, var_floor: float = 0.0,
                        rounds=(), bounds=None, exact: bool = False) -> dict:
    """The estimate and its interval from a campaign's draws (in draw order).

    ``weights`` ``w_j = p / q``, ``values`` ``L_j`` (or the difference), ``f_draws`` the label
    model's expected measure of each drawn query and ``f_pool`` its pool mean
    (:mod:`evalrank.active.estimators`). ``estimator``: ``aipw`` (default) or ``eq6``;
    ``interval``: ``cs`` (the asymptotic confidence sequence, valid at every look,
    :func:`evalrank.active.confseq.asymptotic_cs`, tuned at ``t_star`` draws, with the few-draws
    floor ``var_floor``), ``t`` (Student's t: valid once, at a budget fixed in advance, no
    peeking; for eq6 the delta-method interval of :mod:`evalrank.active.interval`) or ``betting``
    (exact, for terms within ``bounds = (lo, hi)``; aipw only). ``rounds``: the draw counts at
    which earlier rounds ended; the interval is reported there too (``rounds`` rows, the last row
    the whole campaign). ``exact``: every pool query labelled, the estimate is the pool's value
    (interval of width 0): pass one value per pool query with weight 1.

    Returns ``estimate, stderr, ci_low, ci_high, estimator, interval, level, ess`` and
    ``rounds`` (a list of ``{draws, estimate, ci_low, ci_high}``).
    """
    from evalrank.active import confseq
    from evalrank.active.estimators import ESTIMATORS, aipw_terms
    from evalrank.active.interval import half_width, weighted_interval

    if estimator not in ESTIMATORS:
        raise ValueError(f"estimator must be one of {list(ESTIMATORS)}, got {estimator!r}")
    if interval not in INTERVALS:
        raise ValueError(f"interval must be one of {list(INTERVALS)}, got {interval!r}")
    w = np.asarray(weights, dtype=np.float64)
    v = np.asarray(values, dtype=np.float64)
    if w.size == 0:
        raise ValueError("no draws: the budget buys no query (raise the budget)")
    n = w.size
    ends = sorted({int(r) for r in rounds if 0 < int(r) < n} | {n})
    ess = float(w.sum() ** 2 / (w * w).sum())
    base = {"estimator": estimator, "interval": interval, "level": float(level), "ess": ess}
    if exact:
        est = float(v.mean())
        rows = [{"draws": e, "estimate": est, "ci_low": est, "ci_high": est} for e in ends]
        return {**base, "estimate": est, "stderr": 0.0, "ci_low": est, "ci_high": est, "rounds": rows}
    if estimator == "eq6":
        if interval == "betting":
            raise ValueError("the betting interval needs the aipw estimator (i.i.d. terms in a known range)")
        rows = []
        for e in ends:
            r = weighted_interval(w[:e], v[:e], level=float(level))
            if interval == "cs":
                # eq. 6 is a ratio: its sequence is that of its linearized terms R_hat + w (L - R_hat) / mean w
                est = r["estimate"]
                psi = est + w[:e] * (v[:e] - est) / w[:e].mean()
                cs = confseq.asymptotic_cs(psi, level=level, t_star=t_star or n, var_floor=var_floor)
                r = {**r, "ci_low": est - cs["half"][-1], "ci_high": est + cs["half"][-1],
                     "stderr": float(np.sqrt(np.var(psi, ddof=1) / e)) if e > 1 else float("inf")}
            rows.append({"draws": e, "estimate": r["estimate"], "ci_low": r["ci_low"], "ci_high": r["ci_high"],
                         "stderr": r["stderr"]})
        last = rows[-1]
        return {**base, "estimate": last["estimate"], "stderr": last.pop("stderr"), "ci_low": last["ci_low"],
                "ci_high": last["ci_high"], "rounds": [{k: r[k] for k in ("draws", "estimate", "ci_low", "ci_high")}
                                                       for r in rows]}
    psi = aipw_terms(w, v, f_draws, f_pool)
    if interval == "cs":
        cs = confseq.asymptotic_cs(psi, level=level, t_star=t_star or n, var_floor=var_floor)
        low, high, mean = cs["ci_low"], cs["ci_high"], cs["estimate"]
    elif interval == "betting":
        if bounds is None:
            raise ValueError("the betting interval needs the range of the terms (bounds)")
        cs = confseq.betting_cs(psi, bounds[0], bounds[1], level=level)
        low, high, mean = cs["ci_low"], cs["ci_high"], cs["estimate"]
    else:
        t = np.arange(1, n + 1, dtype=np.float64)
        mean, var = confseq.running_moments(psi)
        half = half_width(np.sqrt(var * t / np.maximum(t - 1, 1) / t), t, level)
        low, high = mean - half, mean + half
    rows = [{"draws": e, "estimate": float(mean[e - 1]), "ci_low": float(low[e - 1]), "ci_high": float(high[e - 1])}
            for e in ends]
    se = float(np.std(psi, ddof=1) / np.sqrt(n)) if n > 1 else float("inf")
    return {**base, "estimate": float(mean[-1]), "stderr": se, "ci_low": float(low[-1]), "ci_high": float(high[-1]),
            "rounds": rows}
