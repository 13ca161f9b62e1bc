"""The experiments of Sawade et al. (2012), Sec. 5, on a pool of model predictions.

Every experiment estimates one quantity from labelled pool queries:

``estimate``  ``R[r]`` of one ranking function (Fig. 1 centre/right); error ``|R_hat - R|``;
``select``    which of two ranking functions is better (Fig. 2); error = the share of runs
              whose ``Delta_hat`` has the wrong sign ("model selection error");
``compare``   ``Delta = R[r_1] - R[r_2]`` (Fig. 3: index update, training-set size); error
              ``|Delta_hat - Delta|``.

The truth is the pool's own labels (``R`` = mean over all pool queries, as in the
paper: "True performance is taken to be the performance over all test queries").
Label model: a model's own ``p(y | x, z; theta)``; for two models the equal mixture
of both (Sec. 5.2, "a mixture model is employed as proposed in [4]"). Costs:
:func:`evalrank.active.costs.query_costs` over the documents that must be labelled
(the union of both rankings).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from evalrank import seeds
from evalrank.active.costs import query_costs
from evalrank.active.sampling import METHODS, q_star_difference_methods, q_star_methods
from evalrank.active.theorem3_correlated import true_losses
from evalrank.data.collection import segment_ids
from evalrank.metrics.dcg import gain_values
from evalrank.metrics.ranking import positions, rank_order
from evalrank.papers.sawade2012.printed import SAVINGS, saving_label

__all__ = ["Experiment", "experiments", "true_losses", "drop_documents", "dcg_document_residuals",
           "setup_experiment", "setup_file", "find_experiment", "errors", "savings_row", "PAPER_SAVINGS"]

#: Name suffix of the twin of a Fig. 1 experiment whose label model is the query-level random effect
#: (:mod:`evalrank.papers.sawade2012.calibrated`).
CALIBRATED_SUFFIX = "_calibrated"

#: Savings reported by Sawade et al. (Sec. 5) at the reference budget, as savings.csv prints them.
PAPER_SAVINGS = {name: saving_label(lo, hi) for name, (lo, hi) in SAVINGS.items()}


@dataclass(frozen=True)
class Experiment:
    """One experiment: ``kind`` in {estimate, select, compare}; models ``a`` (and ``b``)
    name prediction files; ``b_drop`` makes ``r_2`` = ``r_1`` with a share of every
    result list removed (index update)."""

    name: str
    kind: str
    a: str
    b: str | None = None
    b_drop: float = 0.0
    train_pairs: int | None = None
    calibrated: bool = False

    @property
    def base(self) -> str:
        """The experiment whose truth, costs and random streams a calibrated twin shares (itself
        otherwise)."""
        return self.name[:-len(CALIBRATED_SUFFIX)] if self.calibrated else self.name

    @property
    def metric(self) -> str:
        return "selection_error" if self.kind == "select" else "abs_error"

    @property
    def models(self) -> list[str]:
        return [self.a] + ([self.b] if self.b and self.b != self.a else [])


def experiments(model_names, *, drop: float = 0.1, base_pairs: int | None = None, sizes=(),
                base_model: str | None = None, calibrated=()) -> list[Experiment]:
    """The paper's experiments that the trained models allow, in figure order.

    ``sizes`` (with ``base_pairs``) add Fig. 3 centre/right: an RF trained on
    ``base_pairs`` pairs (prediction name ``base_model``, default ``rf_n{base}``;
    the workflow passes ``rf`` when the model stage's RF has that size) against
    RFs trained on each size (``rf_n{size}``). ``calibrated`` (models, sawade2012.calibrated) adds,
    last, ``fig1_<model>_calibrated`` for each of them that has a Fig. 1 experiment: the same
    estimate with q* from the calibrated label model (:mod:`evalrank.papers.sawade2012.calibrated`).
    """
    have = set(model_names)
    out = []
    for m in ("rf", "ordered_logit"):
        if m in have:
            out.append(Experiment(f"fig1_{m}", "estimate", m))
    for a, b in (("rf", "ordinal_rf"), ("ordered_logit", "ranksvm"), ("ordered_logit", "rf"), ("lambdamart", "rf")):
        if a in have and b in have:
            out.append(Experiment(f"fig2_{a}_vs_{b}", "select", a, b))
    if "rf" in have and drop > 0:
        out.append(Experiment("fig3_index_update", "compare", "rf", "rf", b_drop=float(drop)))
    if sizes:
        if base_pairs is None:
            raise ValueError("base_pairs is required with sizes")
        base = base_model or f"rf_n{int(base_pairs)}"
        for n in sizes:
            out.append(Experiment(f"fig3_train_size_{int(n)}", "compare", f"rf_n{int(n)}", base, train_pairs=int(n)))
    if isinstance(calibrated, str):
        raise TypeError("calibrated must be a list of model names, got a str")
    for m in calibrated:
        if m in have and m in ("rf", "ordered_logit"):
            out.append(Experiment(f"fig1_{m}{CALIBRATED_SUFFIX}", "estimate", m, calibrated=True))
    return out


def dcg_document_residuals(labels, probs, offsets, order_a, offsets_b=None, order_b=None) -> np.ndarray:
    """Per query ``sum_z c_z^2 (g(y_z) - E_theta[g(y_z)])^2``: the squared errors of the label
    model's expected gains, each weighted by the document's coefficient ``c_z`` in DCG (eq. 1:
    its discount in ``r_1``, minus its discount in ``r_2`` for a difference; 0 where absent).
    DCG is linear in the gains, so ``(L_x - E_theta[L | x])^2`` is the square of the sum of the
    terms ``c_z (g - E g)``; this is the part without the cross terms, whose expectation under the
    label model is Theorem 3's variance (eq. 3's independence). The rest of the realized squared
    error is the cross terms: errors of the model that go the same way within a query."""
    labels, probs = np.asarray(labels), np.asarray(probs, dtype=np.float64)
    n = labels.size
    coef = np.zeros(n)
    coef[order_a] = 1.0 / np.log2(positions(offsets) + 2.0)
    if order_b is not None:
        coef[order_b] -= 1.0 / np.log2(positions(offsets_b) + 2.0)
    gains = gain_values(np.arange(probs.shape[1]))
    res = coef * (gain_values(labels) - probs @ gains)
    return np.bincount(segment_ids(offsets), weights=res * res, minlength=len(offsets) - 1)


def drop_documents(offsets, order, share: float, rng: np.random.Generator):
    """Remove ``round(share * n)`` documents at random from every result list (keeping
    the rank order of the rest): the outdated index of Sawade Sec. 5.2."""
    if not 0.0 <= share < 1.0:
        raise ValueError(f"share must be in [0, 1), got {share!r}")
    sizes = np.diff(offsets)
    n_drop = np.rint(share * sizes).astype(np.int64)
    # rank documents within each query by a random key; drop the n_drop smallest
    key = rng.random(order.size)
    seg = segment_ids(offsets)
    by_key = np.lexsort((key, seg))
    rank_in_query = np.empty(order.size, dtype=np.int64)
    rank_in_query[by_key] = positions(offsets)
    keep = rank_in_query >= n_drop[seg]
    new_sizes = np.bincount(seg[keep], minlength=len(sizes))
    new_offsets = np.concatenate([[0], np.cumsum(new_sizes)]).astype(np.int64)
    return new_offsets, order[keep]


def setup_experiment(exp: Experiment, preds: dict, lengths, measures, *, seed: int, fold: int,
                     max_grade: int = 4, methods=METHODS) -> dict:
    """Everything a Monte Carlo run needs, per measure: q of every method, costs,
    each query's true loss (or difference) and the truth ``R`` (or ``Delta``).

    ``preds[name]`` holds ``scores``, ``probs``, ``labels``, ``offsets``, ``qids`` of the
    pool (as written by ``python -m evalrank stage predict``); ``lengths`` are the pool
    documents' lengths in the same row order, or None for unit costs (every query
    costs 1: datasets without a length feature). Returns a flat dict of arrays
    (``costs``, ``values_<m>``, ``q_<m>_<method>``, ``truth_<m>``, ``pred_mean_<m>`` and
    ``pred_var_<m>``: the label model's mean and variance of each query's loss or difference,
    Theorem 3, for the label-model check; for DCG ``doc_sq_dcg``,
    :func:`dcg_document_residuals`; ``seconds_<m>``: time of all q* of measure m; ``range_lo_<m>``, ``range_hi_<m>``: each query's range of the measure over every labelling, :func:`evalrank.active.campaign_estimate.measure_range`).
    """
    pa = preds[exp.a]
    labels, offsets = pa["labels"], pa["offsets"]
    for name in exp.models:
        p = preds[name]
        if not (np.array_equal(p["offsets"], offsets) and np.array_equal(p["qids"], pa["qids"])
                and np.array_equal(p["labels"], labels)):
            raise ValueError(f"predictions of {name!r} and {exp.a!r} are not over the same pool")
    order_a = rank_order(pa["scores"], offsets)
    # union of both rankings = the pool's documents
    out = {"costs": np.ones(len(offsets) - 1) if lengths is None else query_costs(lengths, offsets)}
    if exp.kind == "estimate":
        probs = pa["probs"]
    else:
        probs = 0.5 * (pa["probs"] + preds[exp.b]["probs"]) if exp.b != exp.a else pa["probs"]
        if exp.b_drop > 0:
            off_b, order_b = drop_documents(offsets, order_a, exp.b_drop, seeds.rng(seed, "index_update", fold))
            # documents removed from the outdated index still need labels for r_1: costs stay
        else:
            off_b, order_b = offsets, rank_order(preds[exp.b]["scores"], offsets)
    from evalrank.active.campaign_estimate import measure_range
    from evalrank.active.campaign_state import Rankings

    rankings = Rankings(list(range(len(offsets) - 1)), offsets, order_a,
                        None if exp.kind == "estimate" else order_b, None, None if exp.kind == "estimate" else off_b)
    for m in measures:
        # each query's range of the measure over every labelling (the labelling tool's design bounds)
        out[f"range_lo_{m}"], out[f"range_hi_{m}"] = measure_range(rankings, m, max_grade + 1)
        la = true_losses(labels, offsets, order_a, m, max_grade=max_grade)
        values = la if exp.kind == "estimate" else la - true_losses(labels, off_b, order_b, m, max_grade=max_grade)
        out[f"values_{m}"] = values
        out[f"truth_{m}"] = np.float64(values.mean())
        t0 = time.perf_counter()
        keep = {}
        if exp.kind == "estimate":
            qs = q_star_methods(probs, offsets, order_a, m, out["costs"], methods=methods, keep=keep)
        else:
            qs = q_star_difference_methods(probs, offsets, order_a, off_b, order_b, m, out["costs"], methods=methods,
                                           keep=keep)
        out[f"seconds_{m}"] = np.float64(time.perf_counter() - t0)
        out[f"pred_mean_{m}"], out[f"pred_var_{m}"] = keep["mean"], keep["var"]
        if m == "dcg":
            out["doc_sq_dcg"] = (dcg_document_residuals(labels, probs, offsets, order_a) if exp.kind == "estimate"
                                 else dcg_document_residuals(labels, probs, offsets, order_a, off_b, order_b))
        for method, q in qs.items():
            out[f"q_{m}_{method}"] = q
    return out


def find_experiment(name: str, models, *, drop: float, base_pairs, base_model=None, sizes=(),
                    calibrated=()) -> Experiment:
    """The experiment ``name`` of :func:`experiments` (ValueError naming the choices otherwise)."""
    exps = {e.name: e for e in experiments(models, drop=drop, base_pairs=base_pairs, sizes=sizes or (),
                                           base_model=base_model, calibrated=calibrated or ())}
    if name not in exps:
        raise ValueError(f"experiment must be one of {sorted(exps)}, got {name!r}")
    return exps[name]


def setup_file(experiment: str, *, models, drop: float, base_pairs, base_model, sizes, predictions: dict, pool,
               cost_feature, measures, max_grade: int, seed: int, fold: int, output, log=None, calibrated=(),
               vali_predictions: dict | None = None, swap_predictions: dict | None = None) -> None:
    """q* of every method, the costs and the truth of the experiment named ``experiment``
    (:func:`find_experiment` with ``models``, ``drop``, ``base_pairs``, ``base_model``, ``sizes``)
    and one fold (:func:`setup_experiment`; Sec. 5) from the pool predictions (``predictions``: name -> .npz)
    and the pool partitions (``pool``: .npz paths in prediction order) -> ``output`` (setup.npz).
    ``cost_feature``: 1-based feature id of the document length (None: every query costs one unit).
    Timings go to ``log`` only, so the file is byte-identical across runs. A calibrated experiment
    (``calibrated``: the models of sawade2012.calibrated) also needs ``vali_predictions`` (name -> .npz:
    the model's predictions on the fold's validation queries, where the label model is fitted;
    :func:`evalrank.papers.sawade2012.calibrated.calibrate_setup`), and takes ``swap_predictions``
    (name -> .npz: the swapped model's predictions on the training half, cross-fitting; None: the
    validation queries alone)."""
    import json

    from evalrank import io
    from evalrank.data.collection import Collection

    exp = find_experiment(experiment, models, drop=drop, base_pairs=base_pairs, base_model=base_model, sizes=sizes,
                          calibrated=calibrated)
    preds = {name: io.load_arrays(path) for name, path in predictions.items()}
    missing = [m for m in exp.models if m not in preds]
    if missing:
        raise ValueError(f"experiment {exp.name} needs predictions of {missing}")
    pool = Collection.concat([Collection.load(p) for p in pool])
    if not np.array_equal(pool.qids, preds[exp.a]["qids"]):
        raise ValueError("--pool partitions do not match the predictions' queries (order or content)")
    if cost_feature is None:
        lengths = None  # every query costs one unit
    elif not 1 <= cost_feature <= pool.n_features:
        raise ValueError(f"--cost-feature {cost_feature} is outside the pool's features 1..{pool.n_features}")
    else:
        lengths = pool.features[:, cost_feature - 1].astype(np.float64)
    out = setup_experiment(exp, preds, lengths, measures, seed=seed, fold=fold, max_grade=max_grade)
    out["pool_qids"] = pool.qids.astype(np.int64)  # the folds' pools share queries (label_model_table, split_table)
    meta = {"experiment": exp.name, "kind": exp.kind, "metric": exp.metric, "fold": fold,
            "measures": list(measures), "train_pairs": exp.train_pairs}
    if exp.calibrated:
        from evalrank.papers.sawade2012.calibrated import calibrate_setup

        vali = {name: io.load_arrays(path) for name, path in (vali_predictions or {}).items()}
        if exp.a not in vali:
            raise ValueError(f"experiment {exp.name} needs --vali-predictions of {exp.a!r} (its validation queries)")
        swap = {name: io.load_arrays(path) for name, path in (swap_predictions or {}).items()}
        out.update(calibrate_setup(out, preds[exp.a], vali[exp.a], measures, max_grade=max_grade, swap=swap.get(exp.a)))
        meta.update(calibrated=True, base=exp.base, crossfit=exp.a in swap)
    secs = {k[len("seconds_"):]: round(float(out.pop(k)), 3) for k in [k for k in out if k.startswith("seconds_")]}
    io.save_arrays(output, meta=np.array(json.dumps(meta, sort_keys=True)), **out)
    if log is not None:
        log(f"{exp.name} fold {fold}: q* computed ({secs}); truth " +
            ", ".join(f"{m}={float(out[f'truth_{m}']):.6g}" for m in measures))


def errors(estimates, truth: float, metric: str) -> np.ndarray:
    """Per-run error: ``|estimate - truth|`` or, for model selection, 1 where the sign of
    ``Delta_hat`` differs from that of ``Delta`` (a zero estimate counts as wrong) else 0.
    NaN (no query labelled) stays NaN."""
    est = np.asarray(estimates, dtype=np.float64)
    if metric == "abs_error":
        return np.abs(est - truth)
    if metric == "selection_error":
        wrong = (np.sign(est) != np.sign(truth)) | (est == 0)
        return np.where(np.isnan(est), np.nan, wrong.astype(np.float64))
    raise ValueError(f"metric must be 'abs_error' or 'selection_error', got {metric!r}")


def savings_row(budgets, passive, active, reference_budget: float) -> dict:
    """Budget active needs to reach passive's error at ``reference_budget``.

    ``passive``/``active``: mean errors on the budget grid. The crossing is
    interpolated linearly in (log budget, error) between grid points; if active is
    already at or below the target at the smallest budget, that budget is reported
    (the saving is then a lower bound); if it never gets there, or passive's error
    at the reference budget is 0 (nothing to save), NaN.
    """
    budgets = np.asarray(budgets, dtype=np.float64)
    passive = np.asarray(passive, dtype=np.float64)
    active = np.asarray(active, dtype=np.float64)
    hit = np.flatnonzero(np.isclose(budgets, reference_budget))
    if hit.size == 0:
        raise ValueError(f"reference_budget {reference_budget} is not on the budget grid {budgets.tolist()}")
    target = passive[hit[0]]
    needed = np.nan
    if not target > 0:
        pass  # passive is already exact at the reference budget: no saving is defined
    elif active[0] <= target:
        needed = budgets[0]
    else:
        for i in range(1, budgets.size):
            if active[i] <= target:
                x0, x1 = np.log(budgets[i - 1]), np.log(budgets[i])
                y0, y1 = active[i - 1], active[i]
                t = (y0 - target) / (y0 - y1) if y0 != y1 else 1.0
                needed = float(np.exp(x0 + t * (x1 - x0)))
                break
    return {
        "reference_budget": float(reference_budget),
        "passive_error": float(target),
        "active_budget_needed": float(needed),
        "saving": float(1.0 - needed / reference_budget) if np.isfinite(needed) else float("nan"),
    }
