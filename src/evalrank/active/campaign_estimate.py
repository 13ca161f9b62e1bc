"""Estimating from a labelling campaign (Sawade et al. 2012): each labelled query's loss under the
rankings, the AIPW or eq. 6 estimate with a confidence sequence, t or betting interval after every
round (:func:`estimate`, :func:`estimate_from_draws`) and the label model's check (its predicted
variance against the realized squared errors). Step 2 of :mod:`evalrank.active.campaign`.
"""

from __future__ import annotations

import numpy as np

from evalrank.active.campaign_plan import _cumulative, round_draws
from evalrank.active.campaign_state import Plan, Pool, parse_campaign_measure, rankings_fingerprint

__all__ = ["OVERCONFIDENT", "INTERVALS", "estimate", "estimate_from_draws", "query_losses", "query_values", "measure_range",
           "term_bounds", "label_model_check", "predicted_term_variance"]

#: the label model is called badly overconfident when the realized squared errors exceed the
#: predicted variance by this factor (mean over the labelled queries)
OVERCONFIDENT = 3.0


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
    for a difference of DCGs its exact range (:func:`_dcg_difference_range`: 0 where the rankings
    agree), of ERRs or NDCGs ``[lo_a - hi_b, hi_a - lo_b]``."""
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
    if family == "dcg":
        return _dcg_difference_range(rankings, k, n_grades)
    lo_b, hi_b = one(rankings.offsets_b)
    return lo_a - hi_b, hi_a - lo_b


def _dcg_difference_range(rankings, k, n_grades: int) -> tuple[np.ndarray, np.ndarray]:
    """The exact range of ``DCG_a - DCG_b`` of each query over every labelling: the difference is
    ``sum_d gain(y_d) (disc_a(d) - disc_b(d))`` with each gain in ``[0, 2^(G-1) - 1]`` on its own,
    so its largest value puts the top grade on the documents ranker a discounts less and 0 on the
    others (and the reverse for the smallest): where the rankings agree the range is 0."""
    n_docs = int(rankings.offsets[-1])

    def discounts(order, offs):
        offs = np.asarray(offs, dtype=np.int64)
        rank = np.arange(order.size) - np.repeat(offs[:-1], np.diff(offs))
        d = 1.0 / np.log2(rank + 2.0)
        if k is not None:
            d = np.where(rank < k, d, 0.0)
        out = np.zeros(n_docs)
        out[np.asarray(order, dtype=np.int64)] = d
        return out

    diff = discounts(rankings.order_a, rankings.offsets_a) - discounts(rankings.order_b, rankings.offsets_b)
    seg = np.repeat(np.arange(rankings.n_queries), np.diff(np.asarray(rankings.offsets, dtype=np.int64)))
    top = 2.0 ** (int(n_grades) - 1) - 1.0
    hi = top * np.bincount(seg, weights=np.maximum(diff, 0.0), minlength=rankings.n_queries)
    lo = -top * np.bincount(seg, weights=np.maximum(-diff, 0.0), minlength=rankings.n_queries)
    return lo, hi


def term_bounds(p: Plan, lo, hi) -> tuple[float, float]:
    """The range of the AIPW terms ``psi = f_pool + w (L - f)`` over the queries ``q`` can draw,
    with ``L`` in ``[lo, hi]`` per query (:func:`measure_range`): the betting interval's bounds."""
    qmin = p.q_rounds.min(axis=0)
    ok = qmin > 0
    w = 1.0 / (len(p.qids) * qmin[ok])
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
    "finite": "a confidence sequence over the distinct labelled queries, each known exactly: it holds at every "
              "look at once, exact (from the measure's range and the largest importance weight) for the first "
              "looks and asymptotic later, and shrinks to the pool's value as the pool is labelled",
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


def query_values(p: Plan, rankings, labels) -> np.ndarray:
    """Each pool query's measure (or difference) under ``labels`` (-1: unknown; every planned
    query's documents must be labelled), checked against the plan's rankings."""
    if isinstance(rankings, Pool):
        rankings = rankings.rankings
    _check_rankings(p, rankings)
    return _values(p, rankings, labels)


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
        if p.whole_pool:
            d = round_draws(p.q_rounds[:first], p.costs, s["round_budgets"][:first], s["seed"], s["max_draws"])
            seq = d["queries"]
            rnd = np.minimum(np.searchsorted(np.asarray(d["ends"]), np.arange(seq.size), side="right"), first - 1)
        else:
            seq = p.draws[:s["round_draws"][first - 1]]
            rnd = p.draw_rounds[:seq.size]
        w = 1.0 / (len(p.qids) * p.q_rounds[rnd, seq])
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


def estimate(p: Plan, rankings, labels, *, estimator: str = "auto", interval: str = "cs",
             level: float = 0.95) -> dict:
    """The estimate and its interval from the labels of the planned queries
    (:func:`estimate_from_draws`; ``estimator`` auto, aipw, hajek, eq6 or finite, ``interval`` cs,
    t or betting). ``auto``: with the confidence sequence (the default) ``finite``
    (:mod:`evalrank.active.finite`: the pool as a finite population, a sequence that does not rest
    on the label model's variances); with ``t``
    :func:`evalrank.active.estimators.default_estimator` (hajek for one ranker, aipw for a
    difference); with ``betting`` aipw (it needs i.i.d. terms).

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
    from evalrank.active.estimators import ESTIMATORS, default_estimator

    if estimator not in ("auto", *ESTIMATORS, "finite"):
        raise ValueError(f"estimator must be one of {['auto', *ESTIMATORS, 'finite']}, got {estimator!r}")
    if estimator in ("hajek", "eq6") and interval == "betting":
        raise ValueError("the betting interval needs the aipw estimator (i.i.d. terms in a known range)")
    if estimator == "finite" and interval != "cs":
        raise ValueError("the finite estimator has its own confidence sequence (--interval cs)")
    if estimator == "eq6" and interval == "cs" and p.settings.get("method") == "passive":
        raise ValueError("eq6 with the confidence sequence is refused for a passive plan: its few-draws guard is "
                         "the label model's variance, which a passive plan's uniform sampling never checks (80 % "
                         "coverage measured at the second look); use the default estimator, or --interval t for "
                         "one look at a budget fixed in advance")
    if isinstance(rankings, Pool):
        rankings = rankings.rankings
    _check_rankings(p, rankings)
    if estimator == "auto" and interval == "cs":
        estimator = "finite"
    if estimator == "finite":
        return _finite(p, rankings, labels, level)
    if estimator == "auto":
        estimator = "aipw" if interval == "betting" else default_estimator(bool(rankings.difference))
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
    return _report(p, rankings, level, res, exact=bool(exact), rounds=res["rounds"],
                   label_model=label_model_check(p.f[need], p.var[need], values[need]),
                   warning=few_draws_warning(int(p.draws.size), bool(exact)) if interval == "t" else None,
                   note=None if exact else NOTES[interval])


def _report(p: Plan, rankings, level: float, res: dict, **fields) -> dict:
    """What :func:`estimate` returns: the plan's campaign (settings, labelled queries, draws, cost)
    with ``res``'s estimator, interval, estimate, stderr, ends and effective sample size, the
    rounds' rows and ``fields`` (exact, label_model, warning, note); for two rankers which is
    better."""
    s = p.settings
    out = {"measure": s["measure"], "method": s["method"], "estimator": res["estimator"],
           "interval": res["interval"], "estimate": res["estimate"], "stderr": res["stderr"],
           "ci_low": res["ci_low"], "ci_high": res["ci_high"], "level": level,
           "labelled_queries": int(p.labelled.size), "draws": int(p.draws.size), "cost_spent": float(p.spent),
           "budget": float(s["budget"]), "pool_queries": len(p.qids), "effective_sample_size": res["ess"],
           "exact": fields["exact"], "epsilon": s["epsilon"], "max_weight": s["max_weight"],
           "rounds": _per_round(p, fields["rounds"]), "label_model": fields["label_model"],
           "warning": fields["warning"], "note": fields["note"]}
    if rankings.difference:
        out["difference"] = "a - b"
        out["better"] = "a" if res["ci_low"] > 0 else ("b" if res["ci_high"] < 0 else "undecided")
    return out


def _finite(p: Plan, rankings, labels, level: float) -> dict:
    """:func:`estimate` with the finite-population estimator and its confidence sequence
    (:mod:`evalrank.active.finite`): the distinct labelled queries in the order first drawn, each
    known exactly; the interval at the end of every round."""
    from evalrank.active.finite import finite_estimate

    values = _values(p, rankings, labels)
    s = p.settings
    need = p.labelled
    lo, hi = measure_range(rankings, s["measure"], int(s["n_grades"]))
    m = len(p.qids)
    first = len(s["round_draws"])
    qs = p.q_rounds
    if p.whole_pool:
        # the rounds before the budget covered the pool on their own draws, then every other query
        first = next(k for k, b in enumerate(_cumulative(s["round_budgets"])) if b >= s["pool_cost"])
        prior = (round_draws(qs[:first], p.costs, s["round_budgets"][:first], s["seed"], s["max_draws"])
                 if first > 0 else {"queries": np.zeros(0, dtype=np.int64), "ends": []})
        rest = np.setdiff1d(np.arange(m), prior["queries"])
        draws = np.concatenate([prior["queries"], rest]).astype(np.int64)
        ends = np.asarray([*prior["ends"], draws.size], dtype=np.int64)
        draw_rounds = np.minimum(np.searchsorted(ends, np.arange(draws.size), side="right"), first)
    else:
        draws, draw_rounds = p.draws, p.draw_rounds
    qs = np.where(qs > 0, qs, 1e-300)
    res = finite_estimate(qs, draws, values, p.f, lo, hi, level=level, t_star=int(s["t_star"]),
                          draw_rounds=draw_rounds, adapted="round_mix" in s,
                          round_scale="labels" if "round_mix" in s else None,
                          round_shape=p.shape if "round_mix" in s else None)
    at = res["draws_at"]
    rows = []
    for r, n in enumerate(s["round_draws"]):
        k = int(np.searchsorted(at, n, side="right")) - 1 if r < first else m - 1
        rows.append({"draws": int(n), "estimate": float(res["estimate"][k]), "ci_low": float(res["ci_low"][k]),
                     "ci_high": float(res["ci_high"][k]), "labelled": k + 1})
    last = rows[-1]
    exact = bool(last["ci_low"] == last["ci_high"] == last["estimate"] and need.size == len(p.qids))
    slope = float(res["terms"]["slope"][-1])
    summary = {"estimator": "finite", "interval": "cs", "estimate": last["estimate"], "stderr": 0.0 if exact else None,
               "ci_low": last["ci_low"], "ci_high": last["ci_high"], "ess": None}
    return _report(p, rankings, level, summary, exact=exact, rounds=rows, warning=None,
                   label_model=_model_use(label_model_check(p.f[need], p.var[need], values[need]), p.f[need],
                                          values[need], slope),
                   note=None if exact else NOTES["finite"])


#: below this correlation of the label model's predicted measure with the labelled queries' values
#: (from :data:`USELESS_FROM` labels on), the finite estimator says the model is of little use
USELESS_CORRELATION = 0.3
USELESS_FROM = 10


def _model_use(check: dict, f, values, slope: float) -> dict:
    """The label-model check of the finite estimator: the correlation of the model's predicted
    measure with the labelled values and the control variate's slope, and one line where the model
    predicts the labelled values poorly (the estimate then leans on the labels alone, as random
    sampling would, and the interval does not depend on the model) -- in place of the
    overconfidence warning, which an overconfident but useful model also gets."""
    f, values = np.asarray(f, dtype=np.float64), np.asarray(values, dtype=np.float64)
    corr = float(np.corrcoef(f, values)[0, 1]) if f.size > 2 and f.std() > 0 and values.std() > 0 else float("nan")
    out = {**check, "correlation": corr, "slope": slope}
    if f.size >= USELESS_FROM and not corr >= USELESS_CORRELATION:
        out["warning"] = (f"the label model predicts the labelled queries' values poorly (correlation {corr:.2f} over "
                          f"{f.size} queries; its recalibrated weight {slope:.2f}): the estimate leans on the labels "
                          "alone, about as random sampling would, and its interval does not depend on the model")
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
    (:mod:`evalrank.active.estimators`). ``estimator``: ``aipw``, ``hajek`` (eq. 6 on the residual
    values ``L - f + f_pool``, with eq. 6's intervals) or ``eq6``;
    ``interval``: ``cs`` (the asymptotic confidence sequence, valid at every look,
    :func:`evalrank.active.confseq.asymptotic_cs`, tuned at ``t_star`` draws, with the few-draws
    floor ``var_floor``), ``t`` (Student's t: valid once, at a budget fixed in advance, no
    peeking; for eq6 and hajek the delta-method interval of :mod:`evalrank.active.interval`) or ``betting``
    (exact, for terms within ``bounds = (lo, hi)``; aipw only). ``rounds``: the draw counts at
    which earlier rounds ended; the interval is reported there too (``rounds`` rows, the last row
    the whole campaign). ``exact``: every pool query labelled, the estimate is the pool's value
    (interval of width 0): pass one value per pool query with weight 1.

    Returns ``estimate, stderr, ci_low, ci_high, estimator, interval, level, ess`` and
    ``rounds`` (a list of ``{draws, estimate, ci_low, ci_high}``).
    """
    from evalrank.active import confseq
    from evalrank.active.estimators import ESTIMATORS, aipw_terms, hajek_values
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
    if estimator in ("eq6", "hajek"):
        if interval == "betting":
            raise ValueError("the betting interval needs the aipw estimator (i.i.d. terms in a known range)")
        if estimator == "hajek":
            v = hajek_values(v, f_draws, f_pool)
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
