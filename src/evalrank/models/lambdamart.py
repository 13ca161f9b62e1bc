"""LambdaMART (Burges 2010; Wu et al. 2010) on LightGBM with a convention-aware lambda objective.

The standard strong learning-to-rank baseline of the later papers this
project reproduces, and one of Busa-Fekete et al.'s (2012) six learners
(Sec. 4 item 6: "We validated the number of boosting iterations. The number
of leaves were set to 10 and the learning rate to 0.1").

Gradients come from :class:`evalrank.models.lambdarank.LambdaObjective`, a
custom LightGBM objective that equals LightGBM's built-in ``lambdarank``
bit for bit under the default convention (tested: identical trees) and
follows the model's NDCG ``convention`` otherwise (gain, discount, and
zero gradient for queries that the LETOR 4.0 rule scores 0). Boosting stops
early on the validation half's mean NDCG@10 under the same convention
(:meth:`RankingModel.metric`, a LightGBM ``feval``); the small grid over
``num_leaves`` and ``learning_rate`` is compared by the same measure at each
candidate's best iteration.

Determinism: ``deterministic=True``, ``force_row_wise=True``, a seed from
``seeds.int_seed(seed, "models", "lambdamart")`` and ``num_threads=n_jobs``;
the gradients are computed on ``n_jobs`` threads too, a chunk of queries each.
Scores are bit-identical for ``n_jobs`` 1 to 4 (tested for 1 and 2). Speed
caveat: with ``n_jobs > 1`` on oversubscribed cores, OpenMP's default
busy-waiting made training 5-10x *slower* in our measurements; set
``OMP_WAIT_POLICY=PASSIVE`` in the
environment of such jobs (the CLI does). Probabilities come from a
:class:`~evalrank.models.calibrate.GradeCalibrator` fitted on the validation
half.
"""

from __future__ import annotations

import numpy as np

from evalrank import seeds
from evalrank.models import RankingModel
from evalrank.models._omp import import_lightgbm  # sets OMP_WAIT_POLICY=PASSIVE (see there)

__all__ = ["LambdaMARTModel", "lightgbm_groups", "TREE_ONLY_PARAMS"]

#: LightGBM parameters of :meth:`LambdaMARTModel._lgb_params` that grow the trees but do not bin the
#: data: Datasets binned under parameters that differ only in these are the same (LightGBM's
#: ``Dataset`` accepts them changed after construction; ``min_data_in_leaf`` bins, through
#: ``feature_pre_filter``)
TREE_ONLY_PARAMS = frozenset({"objective", "metric", "num_leaves", "learning_rate", "feature_fraction", "lambda_l2"})


def lightgbm_groups(offsets: np.ndarray) -> np.ndarray:
    """LightGBM's ``group`` argument from query offsets."""
    sizes = np.diff(offsets)
    return sizes[sizes > 0]  # LightGBM groups own rows; empty queries own none


class LambdaMARTModel(RankingModel):
    """LightGBM lambdarank ranker.

    Parameters (tunable): ``num_leaves``, ``learning_rate``,
    ``num_boost_round`` (upper limit), ``early_stopping_rounds``,
    ``min_data_in_leaf``, ``feature_fraction``, ``lambda_l2``,
    ``calibration_alpha``. After fitting, ``best_iteration_`` is the number
    of trees kept, and ``booster_`` the ``lightgbm.Booster``.
    """

    name = "lambdamart"
    param_names = ("num_leaves", "learning_rate", "num_boost_round", "early_stopping_rounds",
                   "min_data_in_leaf", "feature_fraction", "lambda_l2", "truncation_level", "calibration_alpha")

    @classmethod
    def default_params(cls):
        return dict(num_leaves=31, learning_rate=0.1, num_boost_round=500, early_stopping_rounds=50,
                    min_data_in_leaf=20, feature_fraction=1.0, lambda_l2=0.0, truncation_level=30,
                    calibration_alpha=1.0)

    def _lgb_params(self, params):
        return {
            "metric": "None",
            "num_leaves": int(params["num_leaves"]),
            "learning_rate": float(params["learning_rate"]),
            "min_data_in_leaf": int(params["min_data_in_leaf"]),
            "feature_fraction": float(params["feature_fraction"]),
            "lambda_l2": float(params["lambda_l2"]),
            "deterministic": True,
            "force_row_wise": True,
            "seed": seeds.int_seed(self.seed, "models", self.name),
            "num_threads": self.n_jobs,
            "verbose": -1,
        }

    def _objective(self, train, params):
        """The gradient function ``scores -> (grad, hess)`` on ``train`` (a hook:
        :class:`~evalrank.papers.dincer2016.risk_lambdamart.RiskLambdaMARTModel` swaps in
        its risk-sensitive objective)."""
        from evalrank.models.lambdarank import LambdaObjective

        return LambdaObjective(train.labels, train.offsets, convention=self.convention, k=10,
                               truncation_level=int(params["truncation_level"]), n_jobs=self.n_jobs)

    def _fit_one(self, train, vali, params):
        lgb = import_lightgbm()

        p = self._lgb_params(params)
        objective = self._objective(train, params)
        p["objective"] = lambda preds, _data: objective(preds)
        vali_labels, vali_offsets = vali.labels, vali.offsets

        def feval(preds, _data):
            value = float(np.nanmean(self.metric(preds, vali_labels, vali_offsets, k=10)))
            return "ndcg@10", value, True

        dtrain, dvali = self._datasets(lgb, train, vali, p)
        booster = lgb.train(
            p, dtrain, num_boost_round=int(params["num_boost_round"]), valid_sets=[dvali], valid_names=["vali"],
            feval=feval, callbacks=[lgb.early_stopping(int(params["early_stopping_rounds"]), first_metric_only=True,
                                          verbose=False)],
        )
        booster.params.pop("objective", None)  # a closure: not part of the stored model
        best = booster.best_iteration if booster.best_iteration > 0 else booster.current_iteration()
        return {"booster": booster, "best_iteration": int(best)}

    def _fit_grid(self, train, vali, candidates):
        # the grid's points share their binned Datasets (_datasets), unless a caller shares its own
        own = getattr(self, "_dataset_cache", None) is None
        if own:
            self._dataset_cache = {}
        try:
            super()._fit_grid(train, vali, candidates)
        finally:
            if own:
                del self._dataset_cache

    def _datasets(self, lgb, train, vali, p):
        """The LightGBM Datasets of ``train`` and ``vali`` (the validation set binned with the
        training set's bin boundaries). LightGBM bins them on first use with the training
        parameters ``p``; only some of those bin (:data:`TREE_ONLY_PARAMS` do not), so a
        Dataset depends only on the collection and the others. The points of a grid share
        their Datasets, and a caller that fits several models on the same collections (e.g. the
        risk-sensitive learners of one fold,
        :func:`evalrank.papers.dincer2016.risk_lambdamart.learn_files`) may set
        ``_dataset_cache`` to a dict shared by the models: a fit whose ``(train, vali, p)`` --
        the same collection objects and equal binning parameters -- is already in it reuses
        those Datasets instead of binning the same data again (the same bins, so the same
        trees)."""
        cache = getattr(self, "_dataset_cache", None)
        key = (id(train), id(vali), tuple(sorted((k, repr(v)) for k, v in p.items() if k not in TREE_ONLY_PARAMS)))
        if cache is not None and key in cache:
            return cache[key][2:]
        dtrain = lgb.Dataset(train.features, label=train.labels.astype(np.int32),
                             group=lightgbm_groups(train.offsets), params={"verbose": -1}, free_raw_data=True)
        dvali = lgb.Dataset(vali.features, label=vali.labels.astype(np.int32),
                            group=lightgbm_groups(vali.offsets), reference=dtrain)
        if cache is not None:
            cache[key] = (train, vali, dtrain, dvali)  # the collections held: their ids stay theirs
        return dtrain, dvali

    def _tuning_extra(self, state):
        return {"best_iteration": state["best_iteration"]}

    def _predict_state(self, state, X, want_proba):
        scores = state["booster"].predict(X, num_iteration=state["best_iteration"], num_threads=self.n_jobs)
        scores = np.asarray(scores, dtype=np.float64)
        proba = self.calibrator_.predict_proba(scores) if want_proba else None
        return scores, proba

    def _finalize(self, train, vali):
        self.best_iteration_ = self.state_["best_iteration"]
        self._fit_calibrator(vali)

    @property
    def booster_(self):
        self._check_fitted()
        return self.state_["booster"]
