r"""A labelling campaign for your own rankers (Sawade et al. 2012): plan which queries to label
under a budget, then estimate DCG or ERR -- or the difference of two rankers -- with a
confidence interval. Flat arrays in, plain values out; files are read by
:mod:`evalrank.active.files` and the CLI (``evalrank active plan|estimate``).

1. :func:`plan`: the instrumental distribution ``q`` of the chosen method
   (:mod:`evalrank.active.sampling`: eq. 11 for one ranker, eq. 12 for a
   difference, from the label model's Theorem 3 moments and the costs), then
   Algorithm 1's draws in deterministic labelling
   (:func:`evalrank.active.estimate.budgeted_draws`): queries drawn i.i.d. from
   ``q``, a query drawn again costs nothing, drawing stops before the first new
   query the budget cannot pay for. The distinct queries never cost more than
   the budget; a budget at or above the pool's cost labels the whole pool. The
   draws depend only on ``q``, the costs, the budget and the seed's stream, so a
   plan extended with more budget (``previous=``) keeps every earlier draw: a
   campaign grows in rounds without discarding labels.
2. :func:`estimate`: with the labels of the planned queries, eq. 6 (the
   self-normalized importance-weighted mean over the draws), its standard error
   and interval (:mod:`evalrank.active.interval`), and a check of the label
   model: the variance it predicted for the labelled queries' losses (Theorem 3)
   against the squared errors of its predicted means, realized.

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

from evalrank.active.estimate import budgeted_draws
from evalrank.active.sampling import METHODS

__all__ = ["Pool", "Plan", "plan", "estimate", "query_losses", "parse_campaign_measure", "label_model_check"]

#: the label model is called badly overconfident when the realized squared errors exceed the
#: predicted variance by this factor (mean over the labelled queries)
OVERCONFIDENT = 3.0


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


@dataclass(frozen=True, eq=False)
class Pool:
    """The queries a campaign may label and what is known before labelling.

    ``qids`` the pool's queries; ``offsets`` (n_queries + 1,) the rows of each query's
    documents in ``probs`` (n_docs, n_grades), the label model ``p(y | x, z)``; ``order_a``
    (and ``order_b`` for a difference) each query's documents in the ranker's order (row
    indices, grouped by query as ``offsets``; :func:`evalrank.active.files.pool_from_trec`
    makes them from TREC runs); ``costs`` (n_queries,) > 0; ``fingerprint`` identifies the
    inputs (a plan refuses another pool)."""

    qids: list
    offsets: np.ndarray
    probs: np.ndarray
    order_a: np.ndarray
    costs: np.ndarray
    order_b: np.ndarray | None = None
    fingerprint: str = ""

    def __post_init__(self):
        n = len(self.qids)
        if self.offsets.shape != (n + 1,) or self.offsets[-1] != self.probs.shape[0]:
            raise ValueError("offsets must have one entry per query + 1, ending at the number of documents")
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
        mean, var = batch_difference_mean_var(probs, pool.offsets, pool.order_a, pool.offsets, pool.order_b, base,
                                              k=k)
    else:
        mean, var = batch_mean_var(probs, pool.offsets, pool.order_a, base, k=k)
    if family == "ndcg":
        z = _ideal_expected(probs, pool.offsets, k)
        z = np.where(z > 0, z, 1.0)
        mean, var = mean / z, var / (z * z)
    return mean, var


def sampling_distribution(pool: Pool, measure: str, method: str) -> np.ndarray:
    """``q`` over the pool's queries for ``method`` (Sawade Sec. 5: active, active_uniD,
    active_uniC, passive): :mod:`evalrank.active.sampling`'s q* of the label model's moments
    (:func:`moments`, which adds NDCG's first-order moments to Theorem 3's DCG and ERR)."""
    from evalrank.active.sampling import _variants

    if method not in METHODS:
        raise ValueError(f"method must be one of {list(METHODS)}, got {method!r}")
    parse_campaign_measure(measure)
    return _variants(pool.probs, pool.n_queries, pool.costs, (method,), lambda p: moments(pool, measure, p))[method]


@dataclass(frozen=True, eq=False)
class Plan:
    """The queries to label, in draw order: ``draws`` (query index per draw), ``q`` (the
    sampling distribution over the pool), what was spent and how the loop ended; ``settings``
    holds what :func:`estimate` and an extension check (measure, method, seed, budget, pool
    fingerprint, ...)."""

    qids: list
    q: np.ndarray
    costs: np.ndarray
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


def plan(pool: Pool, *, budget: float, measure: str = "err", method: str = "active", seed: int = 0,
         previous: Plan | None = None, max_draws: int | None = None) -> Plan:
    """Plan a campaign (module docstring). ``budget``: what this round may spend; with
    ``previous`` (a plan of the same pool and settings) the rounds' budgets add up and the new
    plan starts with every draw of the previous one."""
    from evalrank.seeds import rng

    if isinstance(budget, bool) or not isinstance(budget, (int, float, np.integer, np.floating)):
        raise TypeError(f"budget must be a number, got {budget!r}")
    if not (np.isfinite(budget) and budget > 0):
        raise ValueError(f"budget must be > 0, got {budget!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    family, k = parse_campaign_measure(measure)
    total = float(budget)
    if previous is not None:
        want = {"measure": str(measure), "method": method, "seed": int(seed), "fingerprint": pool.fingerprint,
                "difference": pool.difference}
        got = {key: previous.settings.get(key) for key in want}
        if got != want:
            diff = {key: (got[key], want[key]) for key in want if got[key] != want[key]}
            raise ValueError(f"the previous plan was made with other settings or inputs (previous, now): {diff}")
        total += float(previous.settings["budget"])
    q = sampling_distribution(pool, measure, method)
    cheapest = float(pool.costs[q > 0].min())
    if total < cheapest:
        raise ValueError(f"budget {total:g} is below the cheapest query that can be drawn (cost {cheapest:g})")
    d = budgeted_draws(q, pool.costs, total, rng(int(seed), "active", "plan"), max_draws=max_draws)
    settings = {"measure": str(measure), "method": method, "seed": int(seed), "budget": total,
                "fingerprint": pool.fingerprint, "difference": pool.difference, "n_queries": pool.n_queries,
                "pool_cost": float(pool.costs.sum()), "rounds": 1 + (previous.settings.get("rounds", 1)
                                                                  if previous is not None else 0)}
    out = Plan(list(pool.qids), q, pool.costs.copy(), d["queries"], d["spent"], d["whole_pool"], d["exhausted"],
               d["capped"], settings)
    if previous is not None and not out.whole_pool:
        n = previous.draws.size
        if not previous.whole_pool and not np.array_equal(out.draws[:n], previous.draws):
            raise RuntimeError("the extended plan does not start with the previous draws (a bug: please report)")
    return out


def plan_digest(p: Plan) -> str:
    """A short hash of a plan's draws and settings (written into estimates)."""
    h = hashlib.sha256(json.dumps(p.settings, sort_keys=True).encode())
    h.update(np.ascontiguousarray(p.draws).tobytes())
    return h.hexdigest()[:16]


def query_losses(labels, offsets, order, measure: str, n_grades: int) -> np.ndarray:
    """Per query the measure of the ranking ``order`` under ``labels`` (int grades per row of
    the pool, ``0 .. n_grades - 1``): Sawade's DCG / ERR (eqs. 1-2), or NDCG@k over the ideal
    DCG@k of the query's labelled documents (0 when none is relevant)."""
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
    ideal = ideal_dcg(labels, offsets, k, gain="exp")
    return np.divide(d, ideal, out=np.zeros_like(d), where=ideal > 0)


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


def estimate(p: Plan, pool: Pool, labels, *, level: float = 0.95) -> dict:
    """eq. 6 with its interval from the labels of the planned queries.

    ``labels``: int grade per pool document (row of ``pool.probs``), ``-1`` where unknown; every
    document of every planned query must be labelled (a ValueError names the queries that are
    not). For two rankers the estimate is ``R[a] - R[b]`` and ``better`` says which ranker the
    interval favours ("a", "b" or "undecided").
    """
    from evalrank.active.interval import few_draws_warning, weighted_interval

    if p.settings.get("fingerprint") != pool.fingerprint or p.settings.get("difference") != pool.difference:
        raise ValueError("the plan was made for other inputs (run, second run, label model or costs differ)")
    labels = np.asarray(labels)
    if labels.shape != (pool.probs.shape[0],):
        raise ValueError(f"labels must have one grade per pool document ({pool.probs.shape[0]}), got {labels.shape}")
    n_grades = pool.probs.shape[1]
    if labels.size and labels.max() >= n_grades:
        raise ValueError(f"a label {int(labels.max())} is above the label model's top grade {n_grades - 1}")
    need = p.labelled
    seg = np.repeat(np.arange(pool.n_queries), np.diff(pool.offsets))
    missing_q = np.unique(seg[(labels < 0) & np.isin(seg, need)])
    if missing_q.size:
        names = [pool.qids[i] for i in missing_q[:10]]
        raise ValueError(f"{missing_q.size} planned quer{'y has' if missing_q.size == 1 else 'ies have'} documents "
                         f"without a label (e.g. {names}); label every document of every planned query")
    measure = p.settings["measure"]
    lab = np.where(labels < 0, 0, labels)
    la = query_losses(lab, pool.offsets, pool.order_a, measure, n_grades)
    values = la if not pool.difference else la - query_losses(lab, pool.offsets, pool.order_b, measure, n_grades)
    exact = p.whole_pool or (p.exhausted and bool((p.q > 0).all()))
    res = weighted_interval(p.weights, values[p.draws], level=level, exact=exact)
    mean, var = moments(pool, measure)
    check = label_model_check(mean[need], var[need], values[need])
    out = {"measure": measure, "method": p.settings["method"], "estimate": res["estimate"],
           "stderr": res["stderr"], "ci_low": res["ci_low"], "ci_high": res["ci_high"], "level": level,
           "labelled_queries": int(need.size), "draws": int(p.draws.size), "cost_spent": float(p.spent),
           "budget": float(p.settings["budget"]), "pool_queries": pool.n_queries,
           "effective_sample_size": res["ess"], "exact": bool(exact), "label_model": check,
           "warning": few_draws_warning(int(p.draws.size), bool(exact))}
    if pool.difference:
        out["difference"] = "a - b"
        out["better"] = "a" if res["ci_low"] > 0 else ("b" if res["ci_high"] < 0 else "undecided")
    return out
