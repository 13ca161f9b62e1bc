"""A labelling campaign's state (:mod:`evalrank.active.campaign`): the :class:`Pool` (documents,
queries, rankers' orders, the label model's grade probabilities, costs), the :class:`Rankings`
:func:`evalrank.active.campaign_estimate.estimate` checks against it, the :class:`Plan` (``q``,
the model's expected measure and variance per query, costs, every draw and where each round
ended), their fingerprints (what a plan file records) and the campaign's measure names.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

import numpy as np

__all__ = ["Rankings", "Pool", "Plan", "parse_campaign_measure", "model_fingerprint", "rankings_fingerprint",
           "mixed_rounds"]


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


def mixed_rounds(q, mixes) -> np.ndarray:
    """(rounds, m): each round's sampling distribution ``(1 - mix_r) q + mix_r / m``, one row per
    share of uniform sampling in ``mixes`` (a plan's ``round_mix``)."""
    q = np.asarray(q, dtype=np.float64)
    return np.stack([(1.0 - float(x)) * q + float(x) / q.size for x in mixes])


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
    def mix(self) -> list:
        """Each round's share of uniform sampling mixed into ``q`` (``settings["round_mix"]``; a
        plan without it: 0 in every round): round ``r`` draws from ``(1 - mix_r) q + mix_r / m``
        (:func:`evalrank.active.campaign_plan.extend`, chosen from the labels before the round)."""
        return list(self.settings.get("round_mix") or [0.0] * int(self.settings.get("rounds", 1)))

    @property
    def shape(self) -> list:
        """Each round's share of the label model's shape in the control variate
        (``settings["round_shape"]``; a plan without it: 1 in every round): round ``r``'s terms
        predict ``b (f_bar + shape_r (f - f_bar))`` (:mod:`evalrank.active.finite`; chosen with the
        round's mix from the labels before it, :func:`evalrank.active.adapt.choose_round`)."""
        return list(self.settings.get("round_shape") or [1.0] * int(self.settings.get("rounds", 1)))

    @property
    def q_rounds(self) -> np.ndarray:
        """(rounds, m): each round's sampling distribution (module docstring of
        :mod:`evalrank.active.campaign_plan`)."""
        return mixed_rounds(self.q, self.mix)

    @property
    def draw_rounds(self) -> np.ndarray:
        """The round (0-based) of each draw (a whole-pool plan's: the last round)."""
        ends = np.asarray(self.settings.get("round_draws", [self.draws.size]), dtype=np.int64)
        r = np.searchsorted(ends, np.arange(self.draws.size), side="right")
        return np.minimum(r, max(ends.size - 1, 0))

    @property
    def draw_q(self) -> np.ndarray:
        """The probability of each draw's query under its round's distribution."""
        return self.q_rounds[self.draw_rounds, self.draws]

    @property
    def weights(self) -> np.ndarray:
        """``w_j = p(x_j) / q_r(x_j)`` per draw (``p`` uniform, ``q_r`` the draw's round's
        distribution); 1 for a whole-pool plan."""
        if self.whole_pool:
            return np.ones(self.draws.size)
        return 1.0 / (len(self.qids) * self.draw_q)

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
        dq = self.draw_q if not self.whole_pool else self.q[self.draws]
        for j, x in enumerate(self.draws.tolist()):
            new = x not in seen
            seen.add(x)
            c = float(self.costs[x]) if new else 0.0
            total += c
            out.append({"draw": j + 1, "qid": self.qids[x], "q": float(dq[j]), "weight": float(w[j]),
                        "new": int(new), "cost": c, "cumulative_cost": total})
        return out
