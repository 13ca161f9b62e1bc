r"""Algorithm 1 of Sawade et al. (2012) and the weighted estimator (eq. 6).

Queries are drawn with replacement from the pool according to ``q`` until the
labelling budget ``Lambda`` is exhausted; the estimate is

    R_hat = (sum_j w_j L_j) / (sum_j w_j),   w_j = p(x_j) / q(x_j),  p = 1/|D|   (eq. 6)

(self-normalized), or ``Delta_hat`` with ``L_j`` replaced by
``delta_j = L(r_1(x_j), y_j) - L(r_2(x_j), y_j)``. The plain importance-weighted
mean ``(1/n) sum_j w_j L_j`` is returned beside it: for a fixed ``n`` it is
exactly unbiased for any ``q`` (eq. 6 is consistent, with an ``O(1/n)`` bias).

Two labelling modes (Sec. 4, after Algorithm 1):

``deterministic``  a query's labels never change, so a query drawn again is looked up
                   and costs nothing; drawing continues until the next *new* query
                   would exceed the budget (the dataset experiments, Sec. 5);
``stochastic``     every draw is labelled afresh, ``y_j ~ p(y | x_j)``, and costs ``lambda(x_j)``;
                   the loop of Algorithm 1 verbatim.

Termination (deterministic mode). Free look-ups can make Algorithm 1 draw for
ever: once most of a small pool is labelled, the loop only stops when it draws
an unlabelled query it cannot afford, and a query with ``q(x) = 3e-19`` is
drawn after ~10^18 draws. Three rules bound every run, whatever ``q`` is:

* **whole pool** -- a budget at or above the cost of the whole pool
  (``sum_x lambda(x)``, every query, drawable or not) labels every query; the
  estimate is then the pool's exact mean (the truth, error 0), ``n`` the pool
  size and ``spent`` the pool's cost. No draw is made.
* **exhausted** -- every query with ``q > 0`` is labelled before the budget ran
  out: further draws are free and eq. 6 converges to the plain mean over those
  queries, which is returned (the limit of the loop).
* **draw cap** -- at most ``max_draws`` draws (default :func:`default_max_draws`,
  100 per pool query, at least 10,000); a run that reaches it stops there and
  returns eq. 6 over its draws (``capped``). The cap is a stopping rule that
  does not look at the labels, so eq. 6 stays consistent; on the paper's pools
  (budgets far below the pool's cost) no run comes near it.

This module is the readable reference (one run at a time);
:mod:`evalrank.papers.sawade2012.montecarlo` runs thousands of deterministic-mode runs
over a budget grid in one vectorized pass and is tested against it.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

__all__ = ["MODES", "draw_queries", "query_cdf", "draws_from_cdf", "check_sampling", "algorithm1",
           "budgeted_draws", "weighted_estimates", "default_max_draws"]

MODES = ("deterministic", "stochastic")


def default_max_draws(n_queries: int) -> int:
    """The default draw cap of one run: 100 draws per pool query, at least 10,000."""
    return max(10_000, 100 * int(n_queries))


def check_max_draws(max_draws, n_queries: int) -> int:
    """``max_draws`` as an int (None: :func:`default_max_draws`)."""
    if max_draws is None:
        return default_max_draws(n_queries)
    if isinstance(max_draws, bool) or not isinstance(max_draws, (int, np.integer)) or max_draws < 1:
        raise ValueError(f"max_draws must be a positive integer or None, got {max_draws!r}")
    return int(max_draws)


def check_sampling(q, costs, budget=None):
    """Validate a sampling distribution, the query costs and a budget; return them as arrays."""
    q = np.asarray(q, dtype=np.float64)
    if q.ndim != 1 or q.size == 0:
        raise ValueError("q must be a non-empty 1-d array (one probability per pool query)")
    if not np.all(np.isfinite(q)) or (q < 0).any() or abs(q.sum() - 1.0) > 1e-9:
        raise ValueError("q must be a probability distribution (finite, >= 0, summing to 1)")
    costs = np.asarray(costs, dtype=np.float64)
    if costs.shape != q.shape:
        raise ValueError(f"costs must have shape {q.shape} (one per pool query), got {costs.shape}")
    if not np.all(np.isfinite(costs)) or (costs <= 0).any():
        raise ValueError("costs must be finite and > 0")
    if budget is not None:
        b = np.atleast_1d(np.asarray(budget, dtype=np.float64))
        if not np.all(np.isfinite(b)):
            raise ValueError("budget must be finite")
        cheapest = float(costs[q > 0].min())
        if b.min() < cheapest:
            raise ValueError(
                f"budget {float(b.min()):g} is below the cheapest query that can be drawn "
                f"(cost {cheapest:g}); no query could ever be labelled"
            )
    return q, costs


def query_cdf(q) -> np.ndarray:
    """Cumulative distribution of ``q`` for :func:`draws_from_cdf` (last entry exactly 1)."""
    cdf = np.cumsum(q)
    cdf /= cdf[-1]
    return cdf


def draws_from_cdf(cdf, u) -> np.ndarray:
    """Inverse-CDF draws: query indices for uniforms ``u`` in [0, 1) under ``cdf = query_cdf(q)``."""
    return np.minimum(np.searchsorted(cdf, u, side="right"), len(cdf) - 1)


def draw_queries(q, u) -> np.ndarray:
    """Inverse-CDF draws: query indices for uniforms ``u`` in [0, 1) under ``q``.

    Queries with ``q = 0`` are never drawn. :func:`algorithm1` and the Monte
    Carlo draw through the same :func:`query_cdf` / :func:`draws_from_cdf`, so
    the same uniforms give the same queries.
    """
    return draws_from_cdf(query_cdf(q), u)


def weighted_estimates(q, queries, losses) -> tuple[float, float]:
    """``(self-normalized eq. 6, plain importance-weighted mean)`` for drawn
    ``queries`` with observed ``losses`` (one per draw); NaN when nothing was drawn."""
    queries = np.asarray(queries, dtype=np.int64)
    losses = np.asarray(losses, dtype=np.float64)
    if queries.size == 0:
        return float("nan"), float("nan")
    w = 1.0 / (len(q) * np.asarray(q)[queries])
    return float(np.sum(w * losses) / np.sum(w)), float(np.mean(w * losses))


def algorithm1(q, costs, budget, rng: np.random.Generator, *, values=None,
               sample_loss: Callable[[int, np.random.Generator], float] | None = None,
               label_rng: np.random.Generator | None = None, mode: str = "deterministic",
               max_draws: int | None = None) -> dict:
    """One run of Algorithm 1.

    Parameters
    ----------
    q : (n_queries,) sampling distribution over the pool (:mod:`evalrank.active.sampling`).
    costs : (n_queries,) labelling costs ``lambda(x)``.
    budget : labelling budget ``Lambda`` (at least the cheapest drawable query).
    rng : generator of the query draws (one uniform per draw, :func:`draw_queries`).
    values : (n_queries,) the loss each query's (fixed) labels give -- ``L(r(x), y_x)``
        or ``delta(x, y_x)`` -- for ``mode="deterministic"``.
    sample_loss : ``sample_loss(x, label_rng)`` draws fresh labels for query ``x`` and
        returns their loss, for ``mode="stochastic"``.
    label_rng : generator handed to ``sample_loss`` (kept apart from ``rng`` so the
        query sequence does not depend on the labels).
    mode : "deterministic" or "stochastic".
    max_draws : deterministic mode: the draw cap (None: :func:`default_max_draws`).

    Returns a dict: ``estimate`` (eq. 6), ``importance`` (plain weighted mean),
    ``n`` (draws used), ``spent`` (labelling cost actually paid), ``queries`` (drawn
    indices), ``losses`` (their losses), and for the deterministic mode's
    termination rules (module docstring) ``whole_pool`` (the budget covered the
    whole pool: estimate = the exact pool mean, ``n`` = pool size, no draw),
    ``exhausted`` (every query with ``q > 0`` was labelled before the budget ran
    out; the estimate is the limit of further free draws, the plain mean of
    their losses) and ``capped`` (stopped by ``max_draws``).
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {list(MODES)}, got {mode!r}")
    q, costs = check_sampling(q, costs, budget)
    if isinstance(budget, (list, tuple, np.ndarray)):
        raise TypeError("budget must be a single number (use evalrank.papers.sawade2012.montecarlo for a grid)")
    budget = float(budget)
    if mode == "deterministic":
        if values is None:
            raise ValueError("mode='deterministic' needs values (the loss of every pool query)")
        values = np.asarray(values, dtype=np.float64)
        if values.shape != q.shape:
            raise ValueError(f"values must have shape {q.shape}, got {values.shape}")
    elif sample_loss is None or not callable(sample_loss):
        raise ValueError("mode='stochastic' needs sample_loss(query, label_rng)")
    deterministic = mode == "deterministic"
    cap = check_max_draws(max_draws, q.size) if deterministic else None
    if deterministic:
        d = budgeted_draws(q, costs, budget, rng, max_draws=cap)
        if d["whole_pool"]:
            # the budget covers the whole pool: every query is labelled once and the
            # estimate is the pool's exact mean (module docstring, "whole pool")
            mean = float(values.mean())
            return {"estimate": mean, "importance": mean, "n": q.size, "spent": d["spent"],
                    "queries": d["queries"], "losses": values.copy(),
                    "whole_pool": True, "exhausted": False, "capped": False}
        queries = d["queries"]
        losses = values[queries]
        if d["exhausted"]:
            # every drawable query is labelled: further draws cost nothing and the
            # estimate converges to the weighted mean over them, which is returned
            est = imp = float(values[q > 0].mean())
        else:
            est, imp = weighted_estimates(q, queries, losses)
        return {"estimate": est, "importance": imp, "n": len(queries), "spent": d["spent"], "queries": queries,
                "losses": np.asarray(losses), "whole_pool": False, "exhausted": d["exhausted"],
                "capped": d["capped"]}
    cdf = query_cdf(q)
    spent = 0.0
    queries, losses = [], []
    while True:
        x = int(draws_from_cdf(cdf, rng.random(1))[0])
        if spent + costs[x] > budget:
            break
        spent += costs[x]
        queries.append(x)
        losses.append(float(sample_loss(x, label_rng)))
    est, imp = weighted_estimates(q, queries, losses)
    return {"estimate": est, "importance": imp, "n": len(queries), "spent": spent,
            "queries": np.asarray(queries, dtype=np.int64), "losses": np.asarray(losses),
            "whole_pool": False, "exhausted": False, "capped": False}


def budgeted_draws(q, costs, budget: float, rng: np.random.Generator, *, max_draws: int | None = None) -> dict:
    """The query draws of Algorithm 1 in deterministic labelling (module docstring): one uniform
    of ``rng`` per draw, a query drawn again costs nothing, drawing stops before the first new
    query the budget cannot pay for, when every drawable query is labelled (``exhausted``) or at
    ``max_draws`` (``capped``); a budget at or above the pool's cost labels the whole pool, with
    no draw (``whole_pool``: ``queries`` is every query once). The draws depend on ``q``, the
    costs, the budget and the stream only -- never on labels -- so they can be planned before
    anything is labelled (:mod:`evalrank.active.campaign`), and a larger budget on the same
    stream extends them (the same prefix)."""
    q, costs = check_sampling(q, costs, budget)
    budget = float(budget)
    cap = check_max_draws(max_draws, q.size)
    if budget >= costs.sum():
        return {"queries": np.arange(q.size, dtype=np.int64), "spent": float(costs.sum()), "whole_pool": True,
                "exhausted": False, "capped": False}
    seen = np.zeros(q.size, dtype=bool)
    unseen = int(np.count_nonzero(q > 0))
    cdf = query_cdf(q)
    spent = 0.0
    queries = []
    capped = False
    while unseen > 0:
        if len(queries) == cap:
            capped = True
            break
        x = int(draws_from_cdf(cdf, rng.random(1))[0])
        extra = 0.0 if seen[x] else costs[x]
        if spent + extra > budget:
            break
        spent += extra
        unseen -= int(not seen[x])
        seen[x] = True
        queries.append(x)
    return {"queries": np.asarray(queries, dtype=np.int64), "spent": spent, "whole_pool": False,
            "exhausted": unseen == 0, "capped": capped}
