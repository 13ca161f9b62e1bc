"""Risk-sensitive LambdaMART (Dinçer, Macdonald & Ounis 2016, Sec. 6).

:class:`~evalrank.models.lambdamart.LambdaMARTModel` with its gradients from
:class:`evalrank.papers.dincer2016.risk_objective.RiskObjective`: LambdaRank whose pair
weights ``|ΔNDCG|`` become a risk-sensitive ``|ΔM'|`` -- U-CRO (Wang et al.
2012), T-SARO / T-FARO (Dinçer et al. 2014, as implemented in Jforests),
T*-FARO and GeoRisk (Dinçer et al. 2016). Everything else is LambdaMART's:
LightGBM trees, early stopping on the validation mean NDCG@10 under the
model's convention, the grid search, the calibrated probabilities.

Baselines (Sec. 6.1): U-CRO, T-SARO and T-FARO compare every training query
with a single baseline, the ranking by one feature (``baseline_feature``, a
1-based LETOR feature id; default 110, MSLR's BM25 of the whole document).
T*-FARO and GeoRisk use several *learned* baselines, passed to :meth:`fit`
as their scores on the training documents (``baselines``, ``(m, n_docs)``;
the paper pre-learns them on held-out queries). Per-query effectiveness is
NDCG@``risk_k`` (10) under the model's convention.

Extra parameters (all tunable like LambdaMART's): ``method`` ("lambdamart",
"u-cro", "t-saro", "t-faro", "t*-faro", "georisk"; default "t-faro"),
``alpha`` (default 1, the paper's recommended setting), ``baseline_feature``,
``risk_k``, ``trisk_scale`` ("sd" as Jforests, or "se" as the paper's eq.
10) and ``norm`` (LightGBM's ``lambdarank_norm``, default True as in
:class:`LambdaMARTModel`; its per-query ``log2(1 + Σλ) / Σλ`` rescaling
largely cancels per-query risk weights such as T-FARO's ``1 + β_j``, and
Jforests has no such step -- ``norm=False``, also for the plain LambdaMART
it is compared with (``method="lambdamart"``), is the closer reproduction;
see :class:`~evalrank.papers.dincer2016.risk_objective.RiskObjective`).

The LightGBM seed is LambdaMART's (``seeds.int_seed(seed, "models",
"lambdamart")``): a risk-sensitive model and plain LambdaMART with the same
config seed differ only in their gradients (common random numbers), and
``method="t-faro", alpha=0`` trains LightGBM's own lambdarank bit for bit
(tested). The stored model holds neither the objective nor the baselines.
"""

from __future__ import annotations

import numpy as np

from evalrank import seeds
from evalrank.models import check_collection, expand_grid
from evalrank.models.lambdamart import LambdaMARTModel
from evalrank.papers.dincer2016.risk_objective import _MANY_BASELINES, _ONE_BASELINE, RISK_METHODS, RiskObjective

__all__ = ["RiskLambdaMARTModel", "learn_file", "learn_files"]


def _check_risk_params(params: dict) -> None:
    method = params["method"]
    if not isinstance(method, str) or method not in RISK_METHODS:
        raise ValueError(f"method must be one of {list(RISK_METHODS)}, got {method!r}")
    alpha = params["alpha"]
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.integer, np.floating)) \
            or not np.isfinite(alpha) or alpha < 0:
        raise ValueError(f"alpha must be a finite number >= 0, got {alpha!r}")
    for key in ("baseline_feature", "risk_k"):
        v = params[key]
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{key} must be a positive integer, got {v!r}")
    if params["trisk_scale"] not in ("sd", "se"):
        raise ValueError(f"trisk_scale must be 'sd' or 'se', got {params['trisk_scale']!r}")
    if not isinstance(params["norm"], (bool, np.bool_)):
        raise ValueError(f"norm must be True or False, got {params['norm']!r}")


class RiskLambdaMARTModel(LambdaMARTModel):
    """Risk-sensitive LambdaMART (U-CRO, T-SARO, T-FARO, T*-FARO, GeoRisk).

    ``fit(train, vali, *, grid=None, seed, n_jobs=1, baselines=None)``:
    ``baselines`` is the ``(m, train.n_docs)`` array of the learned
    baselines' scores on ``train`` (required by "t*-faro" and "georisk",
    rejected by the others). It is used only while fitting. ``calibrate`` as
    :meth:`RankingModel.fit <evalrank.models.RankingModel.fit>` (False: scores only).
    """

    name = "risk_lambdamart"
    param_names = LambdaMARTModel.param_names + ("method", "alpha", "baseline_feature", "risk_k", "trisk_scale",
                                                 "norm")

    @classmethod
    def default_params(cls):
        return dict(super().default_params(), method="t-faro", alpha=1.0, baseline_feature=110, risk_k=10,
                    trisk_scale="sd", norm=True)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        _check_risk_params(self.params)

    def fit(self, train, vali, *, grid=None, seed, n_jobs=1, baselines=None, calibrate=True):
        check_collection(train, "train")
        candidates = [dict(self.params, **g) for g in expand_grid(grid, self.param_names)]
        for params in candidates:
            _check_risk_params(params)
            if params["method"] in _ONE_BASELINE and params["baseline_feature"] > train.n_features:
                raise ValueError(f"baseline_feature must be a 1-based feature id in 1..{train.n_features}, "
                                 f"got {params['baseline_feature']}")
        methods = {p["method"] for p in candidates}
        if baselines is None:
            if methods & set(_MANY_BASELINES):
                raise ValueError(f"method(s) {sorted(methods & set(_MANY_BASELINES))} need baselines: the "
                                 "(m, n_train_docs) scores of the learned baselines on train")
        else:
            if not methods <= set(_MANY_BASELINES):
                raise ValueError(f"baselines is used only by {list(_MANY_BASELINES)}, not by "
                                 f"{sorted(methods - set(_MANY_BASELINES))}")
            B = np.asarray(baselines)
            if B.dtype == object or not (np.issubdtype(B.dtype, np.floating) or np.issubdtype(B.dtype, np.integer)):
                raise TypeError(f"baselines must be a numeric array, got dtype {B.dtype}")
            if B.ndim != 2 or B.shape[1] != train.n_docs or B.shape[0] < 1:
                raise ValueError(f"baselines must have shape (m, {train.n_docs}) (m baselines x the training "
                                 f"documents), got {B.shape}")
        self._baselines = baselines
        try:
            return super().fit(train, vali, grid=grid, seed=seed, n_jobs=n_jobs, calibrate=calibrate)
        finally:
            del self._baselines  # never stored with the model

    def _lgb_params(self, params):
        p = super()._lgb_params(params)
        p["seed"] = seeds.int_seed(self.seed, "models", LambdaMARTModel.name)  # common random numbers
        return p

    def _objective(self, train, params):
        method = params["method"]
        extra = {}
        if method in _ONE_BASELINE:
            extra["baseline"] = np.asarray(train.features[:, int(params["baseline_feature"]) - 1], dtype=np.float64)
        elif method in _MANY_BASELINES:
            extra["baselines"] = self._baselines
        return RiskObjective(train.labels, train.offsets, method=method, alpha=float(params["alpha"]),
                             risk_k=int(params["risk_k"]), trisk_scale=params["trisk_scale"],
                             convention=self.convention, k=10, truncation_level=int(params["truncation_level"]),
                             norm=bool(params["norm"]), n_jobs=self.n_jobs, **extra)


def learn_file(*, partitions, holdout: float, n_folds: int, seed: int, convention: str, fold: int, method: str,
               alpha: float, baseline_feature: int, baselines, params: dict, threads: int, output, log=None) -> None:
    """One learner of Sec. 6 on one fold of Sec. 6.1's protocol
    (:func:`evalrank.papers.dincer2016.tables.risk_protocol`): :class:`RiskLambdaMARTModel` with
    ``method`` and risk weight ``alpha`` against the single baseline feature and, for t*-faro and
    georisk, the learned ``baselines`` (model files) -> ``output`` (fold<k>.npz: qids, ndcg10, scores
    of the fold's test queries). :func:`learn_files` with one learner."""
    if baselines and method not in _MANY_BASELINES:
        raise ValueError(f"baselines is used only by {list(_MANY_BASELINES)}, not by {method!r}")
    learn_files(partitions=partitions, holdout=holdout, n_folds=n_folds, seed=seed, convention=convention, fold=fold,
                learners=[(method, alpha, output)], baseline_feature=baseline_feature, baselines=baselines,
                params=params, threads=threads, log=log)


def learn_files(*, partitions, holdout: float, n_folds: int, seed: int, convention: str, fold: int, learners,
                baseline_feature: int, baselines, params: dict, threads: int, log=None) -> None:
    """Several learners of Sec. 6 on one fold, in one process: ``learners`` is a list of
    ``(method, alpha, output)``, each written as :func:`learn_file` writes it (the same file, byte
    for byte: every fit starts from the same inputs and seed). The partitions, the fold's split and
    the learned ``baselines``' scores on the training queries (model files; used by the t*-faro and
    georisk learners only) are loaded or computed once for all of them -- a pipeline job's start-up,
    data loading and baseline scoring paid once per fold instead of once per learner -- and so are
    LightGBM's binned training and validation Datasets (every learner has the same LightGBM
    parameters, so the same bins: :meth:`LambdaMARTModel._datasets
    <evalrank.models.lambdamart.LambdaMARTModel._datasets>`). Only scores are written, so no
    grade calibrator is fitted (``fit(calibrate=False)``)."""
    import time

    from evalrank import io
    from evalrank.models.zoo import load_model
    from evalrank.papers.dincer2016.learning import fold_collections
    from evalrank.papers.dincer2016.tables import risk_protocol

    learners = list(learners)
    if not learners:
        raise ValueError("learners must name at least one (method, alpha, output)")
    for item in learners:
        if not isinstance(item, (tuple, list)) or len(item) != 3:
            raise ValueError(f"learners must be (method, alpha, output) triples, got {item!r}")
    pool, split = risk_protocol(partitions, holdout=holdout, n_folds=n_folds, seed=seed)
    train, vali, test = fold_collections(pool, split, fold)
    models = [RiskLambdaMARTModel(convention=convention, method=method, alpha=alpha,
                                  baseline_feature=baseline_feature, **params) for method, alpha, _ in learners]
    B = None
    if baselines and any(method in _MANY_BASELINES for method, _, _ in learners):
        B = np.vstack([load_model(p).score(train.features) for p in baselines])
    datasets = {}  # LightGBM's binned train/vali, built by the first fit and shared by the others
    for model, (method, alpha, output) in zip(models, learners):
        extra = {"baselines": B} if B is not None and method in _MANY_BASELINES else {}
        t0 = time.perf_counter()
        model._dataset_cache = datasets
        try:  # scores only: no grade calibrator (probabilities) is fitted
            model.fit(train, vali, grid=None, seed=seed, n_jobs=threads, calibrate=False, **extra)
        finally:
            del model._dataset_cache
        scores = model.score(test.features)
        values = model.metric(scores, test.labels, test.offsets, k=10)
        if log is not None:
            log(f"{method} alpha={alpha:g} fold {fold}: {train.n_queries}/{vali.n_queries}/{test.n_queries} "
                f"queries, {time.perf_counter() - t0:.1f} s, {getattr(model, 'best_iteration_', '?')} trees, "
                f"test NDCG@10 {np.nanmean(values):.4f}")
        io.save_arrays(output, qids=test.qids, ndcg10=np.asarray(values, dtype=np.float64), scores=scores)
