"""A simulated search world with known true grades (Ozertem et al. 2011, Sec. 4).

The paper evaluated query-rewriter tests with a search engine's private logs
and editors. Here everything is drawn from the configured seed, and the true
grade of every query-URL pair is known -- which lets the study measure what
the paper could not: the estimator's error against the truth.

- **Queries and pairs**: the pool's queries; a pair is a (query, document) of
  the pool, its true grade the dataset's label, its URL ``d<j>`` (the j-th
  document of the query).
- **Traffic**: query frequency is Zipf-like, ``p_q ∝ rank_q^-s`` over a random
  order of the queries; the sessions of a query are Poisson. Head queries get
  thousands of sessions, the tail a handful or none.
- **Old configurations** produce the click log: the baseline ranker and the
  earlier production rankers (``history``), each session shown one of them
  (``baseline_share`` of the traffic for the baseline). Clicks follow the
  Chapelle-Zhang DBN (:func:`evalrank.papers.ozertem2011.dbn.sample_sessions`) with per-pair
  attractiveness and satisfaction ``sigmoid(b0 + b1 * grade + noise * N(0,1))``.
- **Tests**: each novel configuration blends the baseline's per-query z-scores
  with another ranker's (``alternatives``: the pipeline's other models, or
  ``oracle`` = true grade + ``oracle_noise`` N(0,1), a better ranker) with weight ``w`` and adds noise of scale
  ``A``; it affects a random share of the queries whose top-k it changes.
  ``w`` and ``A`` vary per test, so tests differ in aggressiveness (how many new
  URLs reach the top k, Table 4) and in sign. No sessions come from novel
  configurations.
- **Editors**: every judgment is drawn from the row of the inter-editor
  agreement matrix (Table 1) of the pair's true grade, normalised. Three full
  sets cover every needed pair (the union of D and D' top-k over all tests);
  the pre-existing partial set covers ``judged_fraction`` of them, with odds
  ``shown_odds`` times higher for pairs the old configurations showed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import expit

from evalrank.papers.ozertem2011.grades import agreement_pdfs
from evalrank.data.collection import query_rows, segment_ids
from evalrank.metrics.ranking import positions, rank_order
from evalrank.papers.ozertem2011.logs import PairTable, SessionLog, session_log
from evalrank.seeds import rng as named_rng

__all__ = ["WorldParams", "World", "simulate_world", "per_query_zscores", "top_k", "query_frequencies"]


@dataclass(frozen=True)
class WorldParams:
    """Knobs of the simulated world (config ``ozertem2011.world``)."""

    baseline: str = "lambdamart"
    history: tuple[str, ...] = ("rf", "ordinal_rf", "ranksvm")
    baseline_share: float = 0.5
    serp_depth: int = 10
    k: int = 5
    sessions: int = 400_000
    zipf_exponent: float = 1.5
    attractiveness: tuple[float, float, float] = (-2.0, 0.8, 0.5)   # b0, b1, noise
    satisfaction: tuple[float, float, float] = (-2.5, 1.0, 0.5)
    gamma: float = 0.9
    n_tests: int = 120
    alternatives: tuple[str, ...] = ("rf", "ordinal_rf", "ordered_logit", "ranksvm", "oracle")
    oracle_noise: float = 3.0                       # oracle = true grade + oracle_noise * N(0,1)
    blend: tuple[float, float] = (0.0, 1.0)         # w ~ U(lo, hi)
    noise: tuple[float, float] = (0.05, 1.0)        # A ~ log-uniform(lo, hi)
    affected: tuple[float, float] = (0.03, 0.5)     # share of the queries a test affects, U(lo, hi)
    judged_fraction: float = 0.345
    shown_odds: float = 4.0
    full_sets: int = 3

    def __post_init__(self):
        def check(cond, key, msg):
            if not cond:
                raise ValueError(f"{key}: {msg}")

        check(0 <= self.baseline_share <= 1, "baseline_share", "must lie in [0, 1]")
        check(self.history or self.baseline_share == 1, "history",
              "is empty, so baseline_share must be 1")
        check(1 <= self.k <= self.serp_depth <= 32, "serp_depth", "must satisfy 1 <= k <= serp_depth <= 32")
        check(self.sessions >= 0, "sessions", "must be >= 0")
        check(self.zipf_exponent >= 0, "zipf_exponent", "must be >= 0")
        check(0 <= self.gamma <= 1, "gamma", "must lie in [0, 1]")
        check(self.n_tests >= 1, "n_tests", "must be >= 1")
        check(len(self.alternatives) >= 1, "alternatives", "needs at least one ranker")
        check(0 <= self.blend[0] <= self.blend[1], "blend", "must be 0 <= lo <= hi")
        check(0 < self.noise[0] <= self.noise[1], "noise", "must be 0 < lo <= hi")
        check(0 < self.affected[0] <= self.affected[1] <= 1, "affected", "must be 0 < lo <= hi <= 1")
        check(0 < self.judged_fraction < 1, "judged_fraction", "must lie in (0, 1)")
        check(self.shown_odds > 0, "shown_odds", "must be > 0")
        check(self.oracle_noise >= 0, "oracle_noise", "must be >= 0")
        check(self.full_sets >= 2, "full_sets", "needs at least 2 sets (inter-annotator agreement)")


@dataclass
class World:
    """The simulated world (see the module docstring). Pair ``i`` is pool
    document ``i``. Tests are flat: rows ``row_offsets[t]:row_offsets[t+1]``
    belong to test ``t``; ``novel_top``/``base_top`` are (n_rows, k) pair ids."""

    queries: np.ndarray          # (n_queries,) str query names
    offsets: np.ndarray          # (n_queries + 1,) pool query offsets = pair ranges
    pair_url: np.ndarray         # (n_pairs,) str
    true_grade: np.ndarray       # (n_pairs,) int64
    attract: np.ndarray          # (n_pairs,) simulator's DBN parameters
    satisfy: np.ndarray
    impressions: np.ndarray      # (n_queries,) sessions per query
    row_offsets: np.ndarray      # (n_tests + 1,)
    row_query: np.ndarray        # (n_rows,)
    novel_top: np.ndarray        # (n_rows, k)
    base_top: np.ndarray         # (n_rows, k)
    tests: pd.DataFrame          # one row per test: alternative, blend, noise, affected share, ...
    log: SessionLog
    judgments: pd.DataFrame      # query, url, grade_index, set

    @property
    def n_pairs(self) -> int:
        return int(self.true_grade.size)

    def pair_table(self) -> PairTable:
        return PairTable.from_offsets(self.queries, self.offsets, self.pair_url)

    def arrays(self) -> dict[str, np.ndarray]:
        """Everything but the log, the judgments and the test table, for ``world.npz``."""
        return {k: getattr(self, k) for k in ("queries", "offsets", "pair_url", "true_grade", "attract", "satisfy",
                                               "impressions", "row_offsets", "row_query", "novel_top", "base_top")}


def per_query_zscores(scores, offsets) -> np.ndarray:
    """Scores standardised within each query (mean 0, SD 1; SD 0 -> 0)."""
    s = np.asarray(scores, dtype=np.float64)
    n = np.diff(offsets)
    qid = segment_ids(offsets)
    mean = np.bincount(qid, weights=s, minlength=n.size) / np.maximum(n, 1)
    c = s - mean[qid]
    sd = np.sqrt(np.bincount(qid, weights=c * c, minlength=n.size) / np.maximum(n, 1))
    return np.divide(c, sd[qid], out=np.zeros_like(c), where=sd[qid] > 0)


def top_k(scores, offsets, k: int, queries=None) -> np.ndarray:
    """(n_queries, k) pair ids of the top ``k`` documents by score (ties: lower
    document index first) of each query (or of ``queries``); -1 past a short list."""
    offsets = np.asarray(offsets, dtype=np.int64)
    queries = np.arange(offsets.size - 1) if queries is None else np.asarray(queries, dtype=np.int64)
    idx, sub = query_rows(offsets, queries)
    order = rank_order(np.asarray(scores, dtype=np.float64)[idx], sub)   # ties: input (document) order
    rank = positions(sub)
    keep = rank < k
    out = np.full((queries.size, k), -1, dtype=np.int64)
    out[segment_ids(sub)[keep], rank[keep]] = idx[order][keep]
    return out


def query_frequencies(n_queries: int, exponent: float, rng: np.random.Generator) -> np.ndarray:
    """Zipf-like traffic shares: ``p ∝ rank^-exponent`` over a random order of queries."""
    ranks = rng.permutation(n_queries) + 1.0
    w = ranks ** -float(exponent)
    return w / w.sum()


def _judged_probability(shown, fraction, odds):
    """Per-pair judging probability with odds ``odds`` times higher for shown
    pairs and mean ``fraction`` (bisection on the base log-odds)."""
    shown = np.asarray(shown, dtype=bool)
    lo, hi = -30.0, 30.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        p = expit(mid + np.log(odds) * shown)
        lo, hi = (mid, hi) if p.mean() < fraction else (lo, mid)
    return expit(0.5 * (lo + hi) + np.log(odds) * shown)


def _checked(labels, offsets, scores: dict, agreement, params: WorldParams):
    """:func:`simulate_world`'s inputs checked: (true grades, offsets, agreement counts, per-query
    z-scores of every ranker the world needs)."""
    labels = np.asarray(labels)
    offsets = np.asarray(offsets, dtype=np.int64)
    n_pairs = labels.size
    if offsets[0] != 0 or offsets[-1] != n_pairs or np.any(np.diff(offsets) < 1):
        raise ValueError("offsets: must start at 0, end at len(labels) and give every query a document")
    C = np.asarray(agreement, dtype=np.float64)
    G = C.shape[0]
    if not np.issubdtype(labels.dtype, np.integer) and not np.all(labels == np.round(labels)):
        raise ValueError("labels: true grades must be integers")
    grade = labels.astype(np.int64)
    if grade.min() < 0 or grade.max() >= G:
        raise ValueError(f"labels: grades must lie in 0..{G - 1} (the agreement matrix's grades), "
                         f"got {grade.min()}..{grade.max()}")
    needed = {params.baseline, *params.history, *(a for a in params.alternatives if a != "oracle")}
    missing = sorted(n for n in needed if n not in scores)
    if missing:
        raise ValueError(f"scores: no pool scores for ranker(s) {missing}; have {sorted(scores)}")
    for name in needed:
        if np.asarray(scores[name]).shape != (n_pairs,):
            raise ValueError(f"scores[{name!r}]: expected {n_pairs} scores, got {np.asarray(scores[name]).shape}")
    return grade, offsets, C, {name: per_query_zscores(scores[name], offsets) for name in needed}


def _users(grade, offsets, z, params: WorldParams, seed: int, say):
    """Users: DBN parameters per pair, Zipf traffic and the sessions on the old configurations
    (streams 'users', 'traffic', 'sessions') -> (attract, satisfy, impressions, log, shown_old)."""
    from evalrank.papers.ozertem2011.dbn import sample_sessions

    n_pairs, n_queries = grade.size, offsets.size - 1
    r = named_rng(seed, "clicks", "users")
    b0, b1, sa = params.attractiveness
    attract = expit(b0 + b1 * grade + sa * r.standard_normal(n_pairs))
    b0, b1, ss = params.satisfaction
    satisfy = expit(b0 + b1 * grade + ss * r.standard_normal(n_pairs))
    r = named_rng(seed, "clicks", "traffic")
    freq = query_frequencies(n_queries, params.zipf_exponent, r)
    impressions = r.poisson(params.sessions * freq).astype(np.int64)
    old = [params.baseline, *params.history]
    shares = np.array([params.baseline_share] + [(1 - params.baseline_share) / max(len(params.history), 1)]
                      * len(params.history))
    serps = np.concatenate([top_k(z[name], offsets, params.serp_depth) for name in old])  # config-major
    serp_query = np.tile(np.arange(n_queries), len(old))
    config_of_session = r.choice(len(old), size=int(impressions.sum()), p=shares)
    query_of_session = np.repeat(np.arange(n_queries), impressions)
    row_serp = config_of_session * n_queries + query_of_session
    say(f"sampling {row_serp.size} sessions on {len(old)} old configurations")
    clicks = sample_sessions(serps, row_serp, attract, satisfy, params.gamma, named_rng(seed, "clicks", "sessions"))
    used = np.unique(row_serp)
    remap = np.full(serps.shape[0], -1, dtype=np.int64)
    remap[used] = np.arange(used.size)
    log = session_log(serps[used], serp_query[used], remap[row_serp], clicks).aggregate()
    shown_old = np.zeros(n_pairs, dtype=bool)
    shown_old[serps[used][serps[used] >= 0]] = True
    return attract, satisfy, impressions, log, shown_old


def _tests(grade, offsets, z, params: WorldParams, seed: int):
    """Tests: novel configurations over affected queries (stream 'tests') -> (row queries, novel
    top-k, baseline top-k, row offsets, per-test table)."""
    n_pairs, n_queries = grade.size, offsets.size - 1
    base_top_all = top_k(z[params.baseline], offsets, params.k)
    rt = named_rng(seed, "clicks", "tests")
    rows_q, rows_nov, rows_base, meta, row_offsets = [], [], [], [], [0]
    for t in range(params.n_tests):
        alt = params.alternatives[rt.integers(len(params.alternatives))]
        w = rt.uniform(*params.blend)
        A = float(np.exp(rt.uniform(np.log(params.noise[0]), np.log(params.noise[1]))))
        share = rt.uniform(*params.affected)
        alt_z = (per_query_zscores(grade + params.oracle_noise * rt.standard_normal(n_pairs), offsets)
                 if alt == "oracle" else z[alt])
        novel = z[params.baseline] + w * alt_z + A * rt.standard_normal(n_pairs)
        novel_top_all = top_k(novel, offsets, params.k)
        changed = np.nonzero(np.any(novel_top_all != base_top_all, axis=1))[0]
        n_aff = max(1, int(round(share * n_queries)))
        chosen = np.sort(rt.choice(changed, size=min(n_aff, changed.size), replace=False)) if changed.size else \
            np.zeros(0, np.int64)
        if chosen.size == 0:
            raise ValueError(f"test {t + 1}: the novel configuration changes no query's top {params.k}; "
                             f"raise ozertem2011.world.noise or blend")
        rows_q.append(chosen)
        rows_nov.append(novel_top_all[chosen])
        rows_base.append(base_top_all[chosen])
        row_offsets.append(row_offsets[-1] + chosen.size)
        meta.append({"test": t + 1, "alternative": alt, "blend": w, "noise": A, "affected_share": share,
                     "changed_queries": int(changed.size), "queries": int(chosen.size)})
    return (np.concatenate(rows_q).astype(np.int64), np.concatenate(rows_nov), np.concatenate(rows_base),
            np.asarray(row_offsets, dtype=np.int64), pd.DataFrame(meta))


def _editors(grade, C, needed_pairs, shown_old, params: WorldParams, seed: int):
    """Editors (stream 'editors'): the pre-existing partial set and the full sets, each judgment a
    draw from Table 1's row of the true grade -> DataFrame (pair, grade_index, set)."""
    R = agreement_pdfs(C)
    re = named_rng(seed, "clicks", "editors")
    cdf = np.cumsum(R, axis=1)
    cdf[:, -1] = 1.0

    def judge(pairs, stream):
        u = stream.random(pairs.size)
        return (u[:, None] >= cdf[grade[pairs]]).sum(axis=1).astype(np.int64)

    p_judged = _judged_probability(shown_old[needed_pairs], params.judged_fraction, params.shown_odds)
    pre = needed_pairs[re.random(needed_pairs.size) < p_judged]
    frames = [pd.DataFrame({"pair": pre, "grade_index": judge(pre, re), "set": "pre-existing"})]
    for s in range(1, params.full_sets + 1):
        frames.append(pd.DataFrame({"pair": needed_pairs, "grade_index": judge(needed_pairs, re), "set": f"full{s}"}))
    return pd.concat(frames, ignore_index=True), pre.size


def simulate_world(labels, offsets, qids, scores: dict, agreement, params: WorldParams, seed: int,
                   *, log_progress=None) -> World:
    """Draw the world (module docstring) from the pool (labels, offsets, qids),
    the rankers' pool scores ``scores[name]`` and the agreement matrix counts.

    Raises ValueError when a configured ranker has no scores, when labels fall
    outside the agreement matrix's grades, or when shapes disagree.
    """
    say = log_progress or (lambda msg: None)
    grade, offsets, C, z = _checked(labels, offsets, scores, agreement, params)
    qnames = np.asarray([str(q) for q in qids])
    url = np.concatenate([[f"d{j}" for j in range(m)] for m in np.diff(offsets)]).astype(str)
    qidx = segment_ids(offsets)
    attract, satisfy, impressions, log, shown_old = _users(grade, offsets, z, params, seed, say)
    row_query, novel_top, base_top, row_offsets, tests = _tests(grade, offsets, z, params, seed)
    needed_pairs = np.unique(np.concatenate([novel_top[novel_top >= 0], base_top[base_top >= 0]]))
    j, n_pre = _editors(grade, C, needed_pairs, shown_old, params, seed)
    judgments = pd.DataFrame({"query": qnames[qidx[j["pair"]]], "url": url[j["pair"]],
                              "grade_index": j["grade_index"].to_numpy(), "set": j["set"].to_numpy()})
    say(f"{params.n_tests} tests, {novel_top.shape[0]} test queries, {needed_pairs.size} needed pairs, "
        f"{n_pre} pre-existing judgments ({n_pre / needed_pairs.size:.1%})")
    return World(queries=qnames, offsets=offsets, pair_url=url, true_grade=grade, attract=attract, satisfy=satisfy,
                 impressions=impressions, row_offsets=row_offsets, row_query=row_query, novel_top=novel_top,
                 base_top=base_top, tests=tests, log=log, judgments=judgments)
