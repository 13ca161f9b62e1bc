"""AdaRank (Xu & Li, SIGIR 2007) with single-feature weak rankers, as in RankLib,
under an NDCG convention.

Xu & Li (2007), "AdaRank: a boosting algorithm for information retrieval",
the algorithm of their Fig. 1, with ``E`` = per-query training NDCG@k
under the model's convention (:meth:`RankingModel.metric`):

* ``P_1(q) = 1/m`` over the ``m`` training queries;
* round ``t``: the weak ranker ``h_t`` is the single feature ``x_j``
  (score = feature value: Xu & Li's weak rankers are single features, as
  RankLib's ``WeakRanker``) maximizing ``sum_q P_t(q) E(x_j, q)``;
* ``alpha_t = 1/2 ln( sum_q P_t(q) (1 + E(h_t, q)) / sum_q P_t(q) (1 - E(h_t, q)) )``;
* ``f_t = f_{t-1} + alpha_t h_t``;
* ``P_{t+1}(q) = exp(-E(f_t, q)) / sum_q' exp(-E(f_t, q'))``
  (the paper's update; RankLib instead multiplies ``P_t`` by
  ``exp(-alpha_t E(f_t, q))``).

The ``(features x queries)`` matrix of per-feature weak-ranker metrics is
computed once per fit (:class:`evalrank.models.coordinate_ascent.BatchMetric`,
exactly :meth:`RankingModel.metric`). A query whose metric is NaN (an
``empty="skip"``-style convention) has weight 0 throughout.

Busa-Fekete et al. (2012, Sec. 4 item 1, Sec. 3 and 5) point out that with
the LETOR 4.0 / MS convention a query with fewer than ``k`` documents has
NDCG@k = 0 for every ranker, so its content never influences the chosen
weak rankers or their coefficients -- the model learns from fewer queries.
This implementation reproduces that exactly (tested): such a query only
adds the same constant ``P(q)`` to both sums of ``alpha_t`` (shrinking
every ``alpha_t``). Busa-Fekete et al. add that the weights of such queries
converge to zero; with Xu & Li's update they get the *largest* weight,
``exp(-0)``, since no ranker can lift their ``E`` -- up-weighted, yet
teaching nothing.

RankLib details kept: the feature chosen in the previous round is not
eligible (RankLib's "enqueue" trick, simplified: picking it again only
rescales the last step), and a feature whose round left every training
query's metric unchanged -- hence ``P`` unchanged, e.g. a feature that
orders documents like an earlier one, such as a count and its ratio to a
per-query constant -- stays ineligible until some round changes the
metrics (RankLib's ``usedFeatures`` removal, without its count of 5
consecutive selections); training stops when ``alpha_t`` is not positive
(the weighted metric of every eligible feature is 0, or none is eligible)
or when the training mean metric falls by more than ``tolerance``
(RankLib's stop rule; that round is dropped; ``tolerance=1`` disables it). ``alpha_t`` is capped at ``1/2 ln(1e12)`` when the chosen
feature ranks every weighted query perfectly (zero denominator).

Early stopping: after each round the validation mean metric (NDCG@``metric_k``,
convention of the model) is recorded; training stops after ``patience``
rounds without a strict improvement or at ``max_rounds``, and the model is
cut back to its best validation round (Busa-Fekete: "the only
hyperparameter of ADARANK is the number of boosting iterations which we
optimized by using early-stopping on the validation set").

Features: signed ``log1p`` of heavy-tailed columns and z-scoring
(:class:`evalrank.models.FeatureTransform`, option ``log1p``), fitted on the
documents of the informative training queries only
(:func:`evalrank.models.coordinate_ascent.informative_queries`). The
transform is monotone per column, so the weak rankers' orders are those of
the raw features; it sets the scale at which they are combined. Queries of
the scoring pool need no query context (a global, not per-query,
normalization). Probabilities come from a
:class:`~evalrank.models.calibrate.GradeCalibrator` fitted on the
validation half.
"""

from __future__ import annotations

import numpy as np

from evalrank.models import RankingModel
from evalrank.models.coordinate_ascent import BatchMetric, check_float, check_int, check_log1p, prepare_linear

__all__ = ["AdaRankModel"]

#: alpha cap: 1/2 ln(num/den) with den >= num * 1e-12
_MIN_DEN_RATIO = 1e-12


class AdaRankModel(RankingModel):
    """AdaRank.NDCG with single-feature weak rankers (Xu & Li 2007; RankLib).

    Parameters (tunable)
    --------------------
    max_rounds : maximum boosting rounds (default 100).
    patience : stop after this many rounds without a validation improvement
        (default 20).
    tolerance : stop when the training mean NDCG@k drops by more than this
        (RankLib's 0.002).
    log1p : feature transform (:class:`evalrank.models.FeatureTransform`).
    metric_k : the cut-off ``k`` of the optimized NDCG@k (10).
    calibration_alpha : L2 of the score-to-grade calibrator.

    After fitting: ``rounds_`` (rounds trained), ``best_round_`` (rounds
    kept), ``features_`` and ``alphas_`` (the kept weak rankers, in order),
    ``coef_`` (their summed weights per transformed feature),
    ``trained_features_``/``trained_alphas_`` (every trained round, also
    those after the best validation round),
    ``train_curve_``/``vali_curve_`` (mean metric after each trained round),
    ``query_weights_`` (``P_t`` of the training queries in the last kept
    round ``t``), ``stop_reason_`` ("max_rounds", "patience", "tolerance",
    or "alpha": no eligible feature with a positive weighted metric).
    """

    name = "adarank"
    param_names = ("max_rounds", "patience", "tolerance", "log1p", "metric_k", "calibration_alpha")
    _parallel_grid = True

    @classmethod
    def default_params(cls):
        return dict(max_rounds=100, patience=20, tolerance=0.002, log1p="auto", metric_k=10, calibration_alpha=1.0)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._check_params(self.params)

    @staticmethod
    def _check_params(params: dict) -> None:
        check_int(params, "max_rounds", 1)
        check_int(params, "patience", 1)
        check_float(params, "tolerance", at_least=0.0)
        check_log1p(params)
        check_int(params, "metric_k", 1)
        check_float(params, "calibration_alpha", at_least=0.0)

    def _prepare(self, train, vali, candidates):
        def build(tf, X, Xv, k):
            XT = np.ascontiguousarray(X.T)
            weak = BatchMetric(self, train.labels, train.offsets, k)(XT)  # (features, queries), once
            return {"transform": tf, "XT": XT, "XvT": np.ascontiguousarray(Xv.T), "weak": weak}

        self._cache = prepare_linear(self, train, vali, candidates, build)

    def weak_metrics(self, collection) -> np.ndarray:
        """``(n_features, n_queries)``: per-query NDCG@``metric_k`` (model's
        convention) of every single-feature weak ranker on ``collection``,
        with the fitted feature transform: the matrix ``E(x_j, q)`` of
        Xu & Li's weak-ranker choice."""
        self._check_fitted()
        X = self.state_["transform"].transform(collection.features)
        bm = BatchMetric(self, collection.labels, collection.offsets, int(self.best_params_["metric_k"]))
        return bm(np.ascontiguousarray(X.T))

    def _fit_one(self, train, vali, params):
        c = self._cache[(params["log1p"], int(params["metric_k"]))]
        XT, XvT, weak = c["XT"], c["XvT"], c["weak"]
        k = int(params["metric_k"])
        tol = float(params["tolerance"])
        patience = int(params["patience"])
        counted = ~np.isnan(weak).any(axis=0)  # NaN = not counted: weight 0
        E = np.where(np.isnan(weak), 0.0, weak)
        P = counted / counted.sum() if counted.any() else np.zeros(counted.size)
        f = np.zeros(XT.shape[1])
        fv = np.zeros(XvT.shape[1])
        feats, alphas, train_curve, vali_curve = [], [], [], []
        best_value, best_round, since_best = -np.inf, 0, 0
        best_P = P.copy()
        last, prev_train, prev_e = -1, -np.inf, None
        blocked = np.zeros(E.shape[0], dtype=bool)
        stop = "max_rounds"
        for t in range(1, int(params["max_rounds"]) + 1):
            weighted = (E * P[None, :]).sum(axis=1)
            weighted[blocked] = -np.inf
            if last >= 0:
                weighted[last] = -np.inf
            h = int(np.argmax(weighted))
            e_h = E[h]
            num = float((P * (1.0 + e_h)).sum())
            den = float((P * (1.0 - e_h)).sum())
            if not (weighted[h] > 0 and num > den):
                stop = "alpha"
                break
            alpha = 0.5 * np.log(num / max(den, num * _MIN_DEN_RATIO))
            f_new = f + alpha * XT[h]
            e_f = self.metric(f_new, train.labels, train.offsets, k=k)
            train_value = float(BatchMetric.mean(e_f)[0])
            if train_value + tol <= prev_train:
                stop = "tolerance"
                break
            f = f_new
            fv = fv + alpha * XvT[h]
            feats.append(h)
            alphas.append(float(alpha))
            train_curve.append(train_value)
            value = float(BatchMetric.mean(self.metric(fv, vali.labels, vali.offsets, k=k))[0])
            vali_curve.append(value)
            if value > best_value:
                best_value, best_round, since_best = value, t, 0
                best_P = P.copy()
            else:
                since_best += 1
            prev_train = train_value
            last = h
            # a round that leaves every training query's metric unchanged leaves
            # P unchanged too: block its feature until the metrics move again
            if prev_e is not None and np.array_equal(e_f, prev_e, equal_nan=True):
                blocked[h] = True
            else:
                blocked[:] = False
            prev_e = e_f
            w = np.where(counted, np.exp(-np.where(np.isnan(e_f), 0.0, e_f)), 0.0)
            P = w / w.sum() if w.sum() > 0 else w
            if since_best >= patience:
                stop = "patience"
                break
        return {"transform": c["transform"], "features": feats[:best_round], "alphas": alphas[:best_round],
                "trained_features": feats, "trained_alphas": alphas,
                "rounds": len(feats), "best_round": best_round, "train_curve": train_curve,
                "vali_curve": vali_curve, "stop": stop, "query_weights": best_P}

    def _tuning_extra(self, state):
        return {"rounds": state["rounds"], "best_round": state["best_round"]}

    def _predict_state(self, state, X, want_proba):
        Z = state["transform"].transform(X)
        scores = np.zeros(X.shape[0])
        for j, a in zip(state["features"], state["alphas"]):  # the training order: identical sums
            scores = scores + a * Z[:, j]
        proba = self.calibrator_.predict_proba(scores) if want_proba else None
        return scores, proba

    def _finalize(self, train, vali):
        s = self.state_
        self.rounds_ = s["rounds"]
        self.best_round_ = s["best_round"]
        self.features_ = np.asarray(s["features"], dtype=np.int64)
        self.alphas_ = np.asarray(s["alphas"], dtype=np.float64)
        self.trained_features_ = np.asarray(s["trained_features"], dtype=np.int64)
        self.trained_alphas_ = np.asarray(s["trained_alphas"], dtype=np.float64)
        self.train_curve_ = np.asarray(s["train_curve"])
        self.vali_curve_ = np.asarray(s["vali_curve"])
        self.stop_reason_ = s["stop"]
        self.query_weights_ = s["query_weights"]
        self._fit_calibrator(vali)

    def _cleanup(self):
        self._cache = {}

    @property
    def coef_(self):
        """Summed ``alpha`` per transformed feature (a feature may be chosen
        in several non-consecutive rounds)."""
        self._check_fitted()
        coef = np.zeros(self.n_features_in_)
        np.add.at(coef, self.features_, self.alphas_)
        return coef
