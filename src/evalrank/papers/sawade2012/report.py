"""Merge Monte Carlo shards into error curves and the savings table (Sawade et al. Sec. 5), the
coverage study of the interval (:func:`coverage_table`) and the label-model check
(:func:`label_model_table`)."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import numpy as np

from evalrank import io
from evalrank.papers.sawade2012.experiments import PAPER_SAVINGS, errors, savings_row
from evalrank.active.interval import half_width
from evalrank.papers.sawade2012.montecarlo import STOP_CAPPED, STOP_EXHAUSTED, STOP_WHOLE_POOL
from evalrank.papers.sawade2012.printed import TRAIN_SIZE_SAVING, saving_label
from evalrank.active.sampling import METHODS

__all__ = ["summarize", "savings_table", "coverage_table", "label_model_table", "half_width", "campaign_table",
           "summary_files"]

SAVINGS_COLUMNS = ["experiment", "measure", "reference_budget", "passive_error", "active_budget_needed",
                   "saving", "paper_saving"]


def _shards(shard_paths, setups):
    """``(path, shard, (experiment, fold))`` of every shard, checked: its setup exists and every
    shard used the first shard's budgets."""
    budgets = None
    for p in shard_paths:
        sh = io.load_arrays(p)
        meta = json.loads(str(sh["meta"]))
        key = (meta["experiment"], int(meta["fold"]))
        if key not in setups:
            raise ValueError(f"shard {p} belongs to {key}, which has no setup")
        if budgets is None:
            budgets = sh["budgets"]
        elif not np.array_equal(budgets, sh["budgets"]):
            raise ValueError(f"shard {p} used other budgets than the first shard")
        yield p, sh, key


def summarize(setup_paths, shard_paths):
    """Error curves over folds x repetitions.

    Returns ``(curves, costs)``: a DataFrame with one row per (experiment, measure,
    method, budget) -- ``metric``, ``mean_error``, ``se`` (standard error over all
    runs of all folds), ``n_runs``, ``n_undefined`` (runs that labelled nothing;
    left out of the mean), ``mean_queries``, ``mean_spent``, ``n_whole_pool`` (runs
    whose budget covered the whole pool: every query labelled, error 0),
    ``n_capped`` (runs stopped by the draw cap), ``pool_cost`` (the pool's
    labelling cost, mean over folds), ``truth`` (mean over folds), ``train_pairs``
    -- and the query costs of every fold's pool (for Fig. 1 left). Shards written
    before the stop codes existed count as neither whole-pool nor capped.
    Checks that the shards of each (experiment, fold) cover every repetition once.
    """
    import pandas as pd

    setups, order = _setups(setup_paths)
    acc = defaultdict(list)
    covered = defaultdict(list)
    truths = defaultdict(dict)
    budgets = None
    for p, sh, key in _shards(shard_paths, setups):
        budgets = sh["budgets"]
        covered[key].append((sh["repetition"], int(sh["n_repetitions"])))
        smeta, s = setups[key]
        for m in smeta["measures"]:
            truth = float(s[f"truth_{m}"])
            for method in METHODS:
                err = errors(sh[f"estimate_{m}_{method}"], truth, smeta["metric"])
                stop = sh.get(f"stop_{m}_{method}", np.zeros(err.shape, dtype=np.int8))
                acc[(key[0], m, method)].append((err, sh[f"n_{m}_{method}"], sh[f"spent_{m}_{method}"], stop))
                truths[(key[0], m)][key[1]] = truth
    for key, parts in covered.items():
        reps = np.sort(np.concatenate([r for r, _ in parts]))
        n = parts[0][1]
        if not np.array_equal(reps, np.arange(n)):
            raise ValueError(f"shards of experiment {key[0]} fold {key[1]} do not cover repetitions 0..{n - 1} exactly once")
    missing = set(setups) - set(covered)
    if missing:
        raise ValueError(f"no shards for {sorted(missing)}")
    rows = []
    for exp in order:
        meta0 = next(meta for (e, _), (meta, _) in setups.items() if e == exp)
        for m in meta0["measures"]:
            for method in METHODS:
                parts = acc[(exp, m, method)]
                err = np.concatenate([p[0] for p in parts])
                nq = np.concatenate([p[1] for p in parts])
                spent = np.concatenate([p[2] for p in parts])
                stop = np.concatenate([p[3] for p in parts])
                truth = float(np.mean(list(truths[(exp, m)].values())))  # mean over folds
                pool_cost = float(np.mean([float(s["costs"].sum()) for (e, _), (_, s) in setups.items() if e == exp]))
                for j, b in enumerate(budgets):
                    e = err[:, j]
                    ok = ~np.isnan(e)
                    k = int(ok.sum())
                    rows.append({
                        "experiment": exp, "measure": m, "method": method, "budget": float(b),
                        "metric": meta0["metric"],
                        "mean_error": float(e[ok].mean()) if k else float("nan"),
                        "se": float(e[ok].std(ddof=1) / np.sqrt(k)) if k > 1 else float("nan"),
                        "n_runs": k, "n_undefined": int(e.size - k),
                        "mean_queries": float(nq[:, j].mean()), "mean_spent": float(spent[:, j].mean()),
                        "n_whole_pool": int((stop[:, j] == STOP_WHOLE_POOL).sum()),
                        "n_capped": int((stop[:, j] == STOP_CAPPED).sum()),
                        "pool_cost": pool_cost,
                        "truth": truth,
                        "train_pairs": meta0.get("train_pairs"),
                    })
    curves = pd.DataFrame(rows)
    folds = sorted({f for (_, f) in setups})
    costs = np.concatenate([next(s["costs"] for (e, f), (_, s) in setups.items() if f == fold) for fold in folds])
    return curves, costs


def savings_table(curves, *, reference_budget: float, train_size_budget: float):
    """One row per experiment and measure: the budget active needs to reach passive's
    error at the reference budget (the largest training size of Fig. 3 uses the
    reference budget too; the other sizes, only shown in Fig. 3 right, use
    ``train_size_budget``), with the saving Sawade et al. report beside it (on the ERR rows: the
    paper reports ERR's, Sec. 5)."""
    import pandas as pd

    sizes = sorted({e for e in curves["experiment"] if e.startswith("fig3_train_size_")},
                   key=lambda e: int(e.rsplit("_", 1)[1]))
    rows = []
    for (exp, m), g in curves.groupby(["experiment", "measure"], sort=False):
        piv = g.pivot(index="budget", columns="method", values="mean_error").sort_index()
        ref = train_size_budget if (exp in sizes and exp != sizes[-1]) else reference_budget
        row = savings_row(piv.index.to_numpy(), piv["passive"].to_numpy(), piv["active"].to_numpy(), ref)
        paper = PAPER_SAVINGS.get(exp, saving_label(TRAIN_SIZE_SAVING, TRAIN_SIZE_SAVING) if sizes and exp == sizes[-1] else "")
        # the paper's savings are ERR's ("we present results for the ERR measure", Sec. 5): none for DCG
        rows.append({"experiment": exp, "measure": m, **row, "paper_saving": paper if m == "err" else ""})
    return pd.DataFrame(rows, columns=SAVINGS_COLUMNS)


COVERAGE_COLUMNS = ["experiment", "quantity", "measure", "method", "budget", "level", "campaigns", "coverage",
                    "coverage_se", "miss_low", "miss_high", "mean_width", "mean_stderr", "sd_estimate", "bias",
                    "mean_draws", "n_exact", "n_infinite", "n_no_interval"]


def _setups(setup_paths):
    setups, order = {}, []
    for p in setup_paths:
        s = io.load_arrays(p)
        meta = json.loads(str(s["meta"]))
        key = (meta["experiment"], int(meta["fold"]))
        if key in setups:
            raise ValueError(f"two setups for experiment {key[0]} fold {key[1]}")
        setups[key] = (meta, s)
        if meta["experiment"] not in order:
            order.append(meta["experiment"])
    return setups, order


def coverage_table(setup_paths, shard_paths, *, level: float = 0.95):
    """The coverage study: how often the nominal ``level`` interval of eq. 6
    (:mod:`evalrank.active.interval`) covers the truth, over the Monte Carlo's campaigns.

    One row per (experiment, measure, method, budget), over all repetitions of all folds
    (each fold's interval judged against its own truth): ``campaigns`` (runs with an
    interval), ``coverage`` (share covering the truth) and its binomial standard error
    ``coverage_se``, ``miss_low`` / ``miss_high`` (share with the truth below / above the
    interval), ``mean_width`` (of the finite intervals), ``mean_stderr`` beside
    ``sd_estimate`` (the empirical sd of ``estimate - truth``: what the standard error
    estimates), ``bias`` (mean ``estimate - truth``), ``mean_draws``; ``n_exact`` (whole pool or
    every query labelled: standard error 0, covered iff the estimate is the truth),
    ``n_infinite`` (fewer than two draws: an infinite interval, counted as covering) and
    ``n_no_interval`` (left out: no draw, or an exhausted run with undrawable queries; see
    :func:`evalrank.papers.sawade2012.montecarlo.standard_errors`). ``quantity`` is ``ranker`` (R of one
    ranker) or ``difference`` (Delta of two; the model-selection experiments too).
    """
    import pandas as pd

    setups, order = _setups(setup_paths)
    acc = defaultdict(list)
    budgets = None
    for p, sh, key in _shards(shard_paths, setups):
        budgets = sh["budgets"]
        smeta, s = setups[key]
        for m in smeta["measures"]:
            truth = float(s[f"truth_{m}"])
            for method in METHODS:
                if f"stderr_{m}_{method}" not in sh:
                    raise ValueError(f"shard {p} has no standard errors (written before the coverage study): "
                                     "delete the active stage's shard*.npz files and run again")
                est, se, n = sh[f"estimate_{m}_{method}"], sh[f"stderr_{m}_{method}"], sh[f"n_{m}_{method}"]
                half = half_width(se, n, level)
                stop = sh[f"stop_{m}_{method}"]
                # exact: the whole pool, or every query labelled (montecarlo.standard_errors gave 0)
                exact = (stop == STOP_WHOLE_POOL) | ((stop == STOP_EXHAUSTED) & (se == 0.0))
                err = est - truth
                tol = 1e-12 * max(1.0, abs(truth))
                covered = np.where(exact, np.abs(err) <= tol, np.abs(err) <= half)
                acc[(key[0], m, method)].append((err, se, half, n, exact, covered))
    if budgets is None:
        raise ValueError("no shards")
    rows = []
    for exp in order:
        meta0 = next(meta for (e, _), (meta, _) in setups.items() if e == exp)
        for m in meta0["measures"]:
            for method in METHODS:
                err, se, half, n, exact, covered = (np.concatenate(parts) for parts in zip(*acc[(exp, m, method)]))
                for j, b in enumerate(budgets):
                    ok = ~np.isnan(se[:, j])
                    k = int(ok.sum())
                    e, h, c = err[ok, j], half[ok, j], covered[ok, j]
                    cov = float(c.mean()) if k else float("nan")
                    fin = np.isfinite(h)
                    rows.append({
                        "experiment": exp, "quantity": "ranker" if meta0["kind"] == "estimate" else "difference",
                        "measure": m, "method": method, "budget": float(b), "level": float(level),
                        "campaigns": k, "coverage": cov,
                        "coverage_se": float(np.sqrt(cov * (1 - cov) / k)) if k else float("nan"),
                        "miss_low": float(np.mean(e - h > 0) if k else np.nan),
                        "miss_high": float(np.mean(e + h < 0) if k else np.nan),
                        "mean_width": float(2 * h[fin].mean()) if fin.any() else float("nan"),
                        "mean_stderr": float(se[ok, j].mean()) if k else float("nan"),
                        "sd_estimate": float(e.std(ddof=1)) if k > 1 else float("nan"),
                        "bias": float(e.mean()) if k else float("nan"),
                        "mean_draws": float(n[ok, j].mean()) if k else float("nan"),
                        "n_exact": int(exact[ok, j].sum()), "n_infinite": int(np.isinf(h).sum()),
                        "n_no_interval": int(err.shape[0] - k),
                    })
    return pd.DataFrame(rows, columns=COVERAGE_COLUMNS)


LABEL_CHECK_COLUMNS = ["experiment", "quantity", "measure", "queries", "predicted_variance", "realized_squared_error",
                       "ratio", "realized_documents", "overconfident", "corr_abs_deviation", "corr_second_moment",
                       "budget_factor_active", "budget_factor_oracle", "distinct_queries"]


def _budget_factor(q, values, costs) -> float:
    """Budget ``q`` needs relative to passive sampling for the same asymptotic variance of eq. 6,
    with the true losses: ``[sum_x (L_x - R)^2 / (m^2 q(x))] [sum_x q(x) lambda(x)]`` over
    ``[sum_x (L_x - R)^2 / m] [mean lambda]`` (the objective of Theorem 1, n Var x expected cost
    per draw). Infinite when ``q`` is 0 on a query whose loss differs from ``R``."""
    m = values.size
    d2 = (values - values.mean()) ** 2
    passive = d2.mean() * costs.mean()
    if passive == 0:
        return float("nan")
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(d2 > 0, d2 / (m * m * q), 0.0)
    return float(terms.sum() * np.dot(q, costs) / passive)


def label_model_table(setup_paths):
    """The label-model check of every experiment and measure, over the pool queries of all folds.

    The label model (a model's ``p(y | x, z)``, for two rankers the mixture of theirs, as the
    stage's q* uses it) predicts each query's loss (or difference) with mean ``E_theta[L | x]`` and
    variance ``Var_theta[L | x]`` (Theorem 3); the true labels give ``L_x``.
    ``predicted_variance`` = mean ``Var_theta``, ``realized_squared_error`` = mean
    ``(L_x - E_theta[L | x])^2``, ``ratio`` their quotient and ``overconfident`` whether it exceeds
    :data:`evalrank.active.campaign.OVERCONFIDENT` (:func:`evalrank.active.campaign.label_model_check`,
    what ``evalrank active estimate`` reports). For DCG, ``realized_documents`` is the part of
    the realized squared error without cross terms between documents
    (:func:`evalrank.papers.sawade2012.experiments.dcg_document_residuals`: what it would be if the model's
    errors were independent across a query's documents, as eq. 3 assumes; its expectation is the
    predicted variance); NaN for ERR. How well q* follows the truth:
    ``corr_abs_deviation``, the correlation over queries of q*'s cost-free factor
    ``sqrt(E_theta[(L - R_theta)^2 | x])`` with the actual ``|L_x - R|``; ``corr_second_moment``,
    of ``E_theta[(L - R_theta)^2 | x]`` with ``(L_x - R)^2``; ``budget_factor_active`` the budget
    active needs relative to passive for the same asymptotic variance with the true labels
    (:func:`_budget_factor`; 1 - it is the saving to expect), ``budget_factor_oracle`` the same
    for the q* a perfect label model would give (``q ∝ |L_x - R| / sqrt(lambda(x))``). Mean over
    folds for the budget factors. ``queries``: the pools' queries summed over folds;
    ``distinct_queries``: how many different queries they are (each query is in the pool of all
    folds but its own; NaN for setups written without ``pool_qids``).
    """
    import pandas as pd

    from evalrank.active.campaign_estimate import OVERCONFIDENT, label_model_check

    setups, order = _setups(setup_paths)
    rows = []
    for exp in order:
        folds = [(meta, s) for (e, _), (meta, s) in sorted(setups.items()) if e == exp]
        meta0 = folds[0][0]
        for m in meta0["measures"]:
            if any(f"pred_mean_{m}" not in s for _, s in folds):
                raise ValueError(f"setup of {exp} has no label-model moments (written before the label-model "
                                 "check): delete the active stage's setup.npz files and run again")
            mean = np.concatenate([s[f"pred_mean_{m}"] for _, s in folds])
            var = np.concatenate([s[f"pred_var_{m}"] for _, s in folds])
            values = np.concatenate([s[f"values_{m}"] for _, s in folds])
            dev_pred = np.concatenate([s[f"pred_var_{m}"] + (s[f"pred_mean_{m}"] - s[f"pred_mean_{m}"].mean()) ** 2
                                       for _, s in folds])
            dev_true = np.concatenate([(s[f"values_{m}"] - s[f"values_{m}"].mean()) ** 2 for _, s in folds])
            check = label_model_check(mean, var, values)
            docs = (float(np.concatenate([s["doc_sq_dcg"] for _, s in folds]).mean())
                    if m == "dcg" and all("doc_sq_dcg" in s for _, s in folds) else float("nan"))
            fa, fo = [], []
            for _, s in folds:
                v, c = s[f"values_{m}"], s["costs"]
                fa.append(_budget_factor(s[f"q_{m}_active"], v, c))
                oracle = np.abs(v - v.mean()) / np.sqrt(c)
                fo.append(_budget_factor(oracle / oracle.sum(), v, c) if oracle.sum() > 0 else float("nan"))
            distinct = (np.unique(np.concatenate([s["pool_qids"] for _, s in folds])).size
                        if all("pool_qids" in s for _, s in folds) else float("nan"))
            rows.append({
                "experiment": exp, "quantity": "ranker" if meta0["kind"] == "estimate" else "difference",
                "measure": m, "queries": check["queries"], "distinct_queries": distinct,
                "predicted_variance": check["predicted_variance"],
                "realized_squared_error": check["realized_squared_error"], "ratio": check["ratio"],
                "realized_documents": docs,
                "overconfident": bool(check["ratio"] > OVERCONFIDENT),
                "corr_abs_deviation": _corr(np.sqrt(dev_pred), np.sqrt(dev_true)),
                "corr_second_moment": _corr(dev_pred, dev_true),
                "budget_factor_active": float(np.mean(fa)), "budget_factor_oracle": float(np.mean(fo)),
            })
    return pd.DataFrame(rows, columns=LABEL_CHECK_COLUMNS)


def _corr(a, b) -> float:
    """Pearson correlation, NaN when either side is constant."""
    if a.size < 2 or np.std(a) == 0 or np.std(b) == 0:
        return float("nan")
    return float(np.corrcoef(a, b)[0, 1])


CAMPAIGN_COLUMNS = ["experiment", "quantity", "measure", "epsilon", "max_weight", "offset_share", "estimator",
                    "interval", "default", "first_order_vs_eq6",
                    "budget", "campaigns", "coverage", "simultaneous", "mean_width", "width_vs_today", "rmse",
                    "rmse_vs_eq6", "rmse_vs_today", "bias", "mean_draws"]


def campaign_table(setup_paths, shard_paths):
    """The labelling tool's coverage study (:mod:`evalrank.papers.sawade2012.campaignstudy`), one row per
    (experiment, measure, epsilon, estimator, interval, budget) over every campaign of every fold
    (each judged against its own fold's truth): ``coverage`` (the interval at that budget covers
    the truth), ``simultaneous`` (every look after every draw from that budget up to the largest
    budget covers: what a team that looks after each round and may stop at any time relies on),
    ``mean_width``, ``rmse`` and ``bias`` of the estimate, ``mean_draws``; ``max_weight`` the
    largest importance weight under that epsilon and ``offset_share`` the share of an AIPW term's
    variance due to the label model's mean missing the pool's
    (:func:`evalrank.papers.sawade2012.campaignstudy.offset_share`; both mean over folds);
    ``first_order_vs_eq6`` the estimator's large-sample variance over eq. 6's, exact over each
    fold's pool (:func:`evalrank.papers.sawade2012.campaignstudy.first_order_ratio`, mean over
    folds: above 1 the label model is no useful control variate there); ``default`` marks the
    tool's default (:data:`evalrank.active.campaign.DEFAULT_EPSILON`, the finite-population
    estimator ``finite`` with its confidence sequence, on the plan's q: rows of the default floor
    only; ``max_weight``, ``offset_share`` there are the floor's under eq. 11/12's q*); rows of the
    estimator ``finite_rounds`` are the same default continued with the labels at each budget
    (``plan --continue --qrels``: :func:`evalrank.papers.sawade2012.campaignstudy.simulate_rounds`,
    not marked default: a plan without labels is the tool's default). Ratios against the same campaigns' eq. 6 (same draws: ``rmse_vs_eq6``) and
    against today's tool before the floor and the new estimator (epsilon 0, eq. 6 with the t interval: ``width_vs_today``,
    ``rmse_vs_today``). Empty when the shards hold no campaigns."""
    import pandas as pd

    from evalrank.active.campaign_plan import DEFAULT_EPSILON
    from evalrank.active.estimators import ESTIMATORS
    from evalrank.active.sampling import defensive
    from evalrank.papers.sawade2012.campaignstudy import COMBOS, FINITE, ROUNDS, first_order_ratio

    setups, order = _setups(setup_paths)
    acc, budgets, epsilons, weights, offsets = _campaign_parts(setups, shard_paths)
    if budgets is None:
        return pd.DataFrame(columns=CAMPAIGN_COLUMNS)
    rows = []
    for exp in order:
        meta0 = next(meta for (e, _), (meta, _) in setups.items() if e == exp)
        quantity = "ranker" if meta0["kind"] == "estimate" else "difference"
        for m in meta0["measures"]:
            if (exp, m, 0, *COMBOS[0]) not in acc:
                continue
            cells = {}
            for ei in range(len(epsilons)):
                for est, interval in COMBOS:
                    cells[(ei, est, interval)] = _campaign_cell(acc[(exp, m, ei, est, interval)])
            fin = [i for i, e in enumerate(epsilons.tolist()) if np.isclose(e, DEFAULT_EPSILON)]
            for design in (FINITE, ROUNDS):
                if (exp, m, None, *design) in acc and fin:
                    cells[(fin[0], *design)] = _campaign_cell(acc[(exp, m, None, *design)])
            first = defaultdict(list)   # (epsilon index, estimator) -> each fold's ratio
            for (e, _), (_, s) in setups.items():
                if e != exp:
                    continue
                for ei, eps in enumerate(epsilons.tolist()):
                    q = defensive(s[f"q_{m}_active"], float(eps))
                    for est in ESTIMATORS:
                        first[(ei, est)].append(first_order_ratio(q, s[f"values_{m}"], s[f"pred_mean_{m}"], est))
            zero = [i for i, e in enumerate(epsilons.tolist()) if e == 0.0]
            today = cells[(zero[0], "eq6", "t")] if zero else None
            for (ei, est, interval), c in cells.items():
                same = cells[(ei, "eq6", interval)]
                for j, b in enumerate(budgets.tolist()):
                    def ratio(a, ref):
                        return float(a[j] / ref[j]) if ref is not None and ref[j] > 0 else float("nan")
                    rows.append({
                        "experiment": exp, "quantity": quantity,
                        "measure": m, "epsilon": float(epsilons[ei]), "max_weight": float(np.mean(weights[(exp, m, ei)])),
                        "offset_share": float(np.mean(offsets[(exp, m, ei)])),
                        "estimator": est, "interval": interval,
                        "default": bool(np.isclose(epsilons[ei], DEFAULT_EPSILON) and (est, interval) == FINITE),
                        "first_order_vs_eq6": float(np.mean(first[(ei, est)])) if est in ESTIMATORS else float("nan"),
                        "budget": float(b), "campaigns": int(c["campaigns"]), "coverage": float(c["coverage"][j]),
                        "simultaneous": float(c["simultaneous"][j]), "mean_width": float(c["mean_width"][j]),
                        "width_vs_today": ratio(c["mean_width"], today["mean_width"] if today else None),
                        "rmse": float(c["rmse"][j]), "rmse_vs_eq6": ratio(c["rmse"], same["rmse"]),
                        "rmse_vs_today": ratio(c["rmse"], today["rmse"] if today else None),
                        "bias": float(c["bias"][j]), "mean_draws": float(c["mean_draws"][j]),
                    })
    return pd.DataFrame(rows, columns=CAMPAIGN_COLUMNS)


def _campaign_parts(setups, shard_paths):
    """The campaign arrays of every shard, gathered per (experiment, measure, epsilon index,
    estimator, interval) as (error, width, miss_at, miss_since, draws) parts; the budgets and
    epsilons; max_weight and offset_share per (experiment, measure, epsilon index). Checks that
    each experiment and fold's shards cover every campaign once. Budgets None: no campaigns. The
    tool's default (the finite-population estimator, at the default floor only) and the same
    continued with the labels at each budget (:data:`~evalrank.papers.sawade2012.campaignstudy.ROUNDS`)
    have the epsilon index None."""
    from evalrank.papers.sawade2012.campaignstudy import COMBOS, FINITE, ROUNDS

    acc = defaultdict(list)
    budgets = epsilons = None
    covered = defaultdict(list)
    weights = defaultdict(list)
    offsets = defaultdict(list)
    for p, sh, key in _shards(shard_paths, setups):
        if "campaign_budgets" not in sh:
            continue
        budgets, epsilons = sh["campaign_budgets"], sh["epsilons"]
        covered[key].append((sh["campaign_repetition"], int(sh["n_campaigns"])))
        smeta, s = setups[key]
        for m in smeta["measures"]:
            truth = float(s[f"truth_{m}"])
            for ei, eps in enumerate(epsilons.tolist()):
                weights[(key[0], m, ei)].append(float(sh[f"camp_{m}_max_weight"][ei]))
                offsets[(key[0], m, ei)].append(float(sh[f"camp_{m}_offset_share"][ei]))
                draws = sh[f"camp_{m}_draws_{ei}"]
                for est, interval in COMBOS:
                    k = f"camp_{m}_{{}}_{ei}_{est}_{interval}"
                    e = sh[k.format("estimate")]
                    acc[(key[0], m, ei, est, interval)].append(
                        (e - truth, sh[k.format("high")] - sh[k.format("low")], sh[k.format("miss_at")],
                         sh[k.format("miss_since")], draws))
            for design in (FINITE, ROUNDS):   # the tool's default, at the default floor, and it continued
                k = f"camp_{m}_{{}}_{design[0]}_{design[1]}"
                if k.format("estimate") in sh:
                    acc[(key[0], m, None, *design)].append(
                        (sh[k.format("estimate")] - truth, sh[k.format("high")] - sh[k.format("low")],
                         sh[k.format("miss_at")], sh[k.format("miss_since")], sh[f"camp_{m}_draws_{design[0]}"]))
    for key, parts in covered.items():
        reps = np.sort(np.concatenate([r for r, _ in parts]))
        if not np.array_equal(reps, np.arange(parts[0][1])):
            raise ValueError(f"campaign shards of experiment {key[0]} fold {key[1]} do not cover every campaign once")
    return acc, budgets, epsilons, weights, offsets


def _campaign_cell(parts) -> dict:
    """Per budget, one combination's coverage, simultaneous coverage, mean width, RMSE, bias and
    mean draws over the campaigns of ``parts`` (:func:`_campaign_parts`)."""
    err, width, at, since, draws = (np.concatenate(x) for x in zip(*parts))
    # simultaneous from budget j: no miss at j's look nor at any look after it
    later = np.logical_or.accumulate(since[:, ::-1], axis=1)[:, ::-1]
    later = np.concatenate([later[:, 1:], np.zeros((later.shape[0], 1), dtype=bool)], axis=1)
    return {"coverage": 1.0 - at.mean(axis=0), "simultaneous": 1.0 - (at | later).mean(axis=0),
            "mean_width": np.where(np.isfinite(width), width, np.nan).mean(axis=0),
            "rmse": np.sqrt(np.nanmean(err ** 2, axis=0)), "bias": np.nanmean(err, axis=0),
            "mean_draws": draws.mean(axis=0), "campaigns": err.shape[0]}



def _error_figures(curves, costs, out: Path, train_size_budget: float) -> None:
    """Figs. 1-3 (and Fig. 3 right, the training-size series) of every measure; Fig. 1 draws a
    calibrated twin's ``active`` curve as ``active_calibrated`` in its base experiment's panel."""
    import pandas as pd

    from evalrank.papers.sawade2012.plots import plot_error_curves, plot_train_size

    from evalrank.papers.sawade2012.experiments import CALIBRATED_SUFFIX

    exps = list(dict.fromkeys(curves["experiment"]))
    sizes = [e for e in exps if e.startswith("fig3_train_size_")]
    twins = [e for e in exps if e.startswith("fig1_") and e.endswith(CALIBRATED_SUFFIX)]
    exps = [e for e in exps if e not in twins]
    if twins:  # a twin's active curve goes into its base experiment's panel
        extra = curves[curves["experiment"].isin(twins) & (curves["method"] == "active")].copy()
        extra["experiment"] = extra["experiment"].str[:-len(CALIBRATED_SUFFIX)]
        extra["method"] = "active_calibrated"
        curves = pd.concat([curves[~curves["experiment"].isin(twins)], extra], ignore_index=True)
    for m in sorted(set(curves["measure"])):
        fig1 = [e for e in exps if e.startswith("fig1_")]
        if fig1:
            plot_error_curves(curves, fig1, m, out / f"fig1_{m}.png", costs=costs,
                              suptitle=f"Fig. 1: estimating {m.upper()}")
        fig2 = [e for e in exps if e.startswith("fig2_")]
        if fig2:
            plot_error_curves(curves, fig2, m, out / f"fig2_{m}.png", suptitle=f"Fig. 2: model selection by {m.upper()}")
        fig3 = [e for e in exps if e == "fig3_index_update"] + sizes[-1:]
        if fig3:
            plot_error_curves(curves, fig3, m, out / f"fig3_{m}.png", suptitle=f"Fig. 3: estimating a {m.upper()} difference")
        if sizes:
            plot_train_size(curves, m, train_size_budget, out / f"fig3_train_size_{m}.png",
                            title=f"Fig. 3 right: {m.upper()} difference at Λ = {train_size_budget:g}")


def summary_files(*, setups, shards, reference_budget: float, train_size_budget: float, level: float, out_dir,
                  log=None) -> None:
    """Merge the Monte Carlo shards of every experiment and fold (Sec. 5) -> in ``out_dir``:
    ``curves.csv`` (:func:`summarize`), ``savings.csv`` (:func:`savings_table`, the savings Sec. 5
    reports), Figs. 1-3 and the costs figure, ``coverage.csv`` (:func:`coverage_table`),
    ``campaign_coverage.csv`` (:func:`campaign_table`) with ``coverage.png``,
    ``label_model_check.csv`` (:func:`label_model_table`) and ``label_model_split.csv``
    (:func:`evalrank.papers.sawade2012.calibrated.split_table`; no rows without a calibrated experiment).
    A calibrated twin's curves are drawn in its base experiment's Fig. 1 panel."""
    from evalrank.papers.sawade2012.plots import plot_campaign_coverage, plot_costs, plot_coverage

    say = log or (lambda message: None)
    out = Path(out_dir)
    curves, costs = summarize(setups, shards)
    io.write_table(curves, out / "curves.csv")
    sav = savings_table(curves, reference_budget=reference_budget, train_size_budget=train_size_budget)
    io.write_table(sav, out / "savings.csv")
    _error_figures(curves, costs, out, train_size_budget)
    plot_costs(costs, out / "costs.png")
    say("savings:\n" + sav.to_string(index=False))
    cov = coverage_table(setups, shards, level=level)
    io.write_table(cov, out / "coverage.csv")
    # the figure: one ranker and two differences (a model pair of Sec. 5.2, the index update)
    exps = list(dict.fromkeys(curves["experiment"]))
    shown = [next((e for e in exps if e.startswith(p)), None) for p in ("fig1_", "fig2_", "fig3_index_update")]
    shown = [e for e in shown if e is not None] or exps[:3]
    main = cov[cov["method"].isin(["passive", "active"]) & (cov["campaigns"] > 0)]
    outside = main[(main["coverage"] < level - 0.02) | (main["coverage"] > level + 0.02)]
    say(f"coverage of the nominal {level:.0%} interval, passive and active: {main['coverage'].min():.4f} .. "
        f"{main['coverage'].max():.4f} over {len(main)} cells; {len(outside)} outside {level - 0.02:.0%}.."
        f"{level + 0.02:.0%}" + ((":\n" + outside.to_string(index=False)) if len(outside) else ""))
    camp = campaign_table(setups, shards)
    io.write_table(camp, out / "campaign_coverage.csv")
    if len(camp):
        plot_campaign_coverage(camp, [e for e in shown if (camp["experiment"] == e).any()], out / "coverage.png",
                               level=level)
    else:
        plot_coverage(cov, shown, out / "coverage.png")
    lm = label_model_table(setups)
    io.write_table(lm, out / "label_model_check.csv")
    say("label-model check:\n" + lm.to_string(index=False))
    from evalrank.papers.sawade2012.calibrated import split_table

    split = split_table(setups)
    io.write_table(split, out / "label_model_split.csv")
    if len(split):
        say("label-model variance split (calibrated experiments):\n" + split.to_string(index=False))
