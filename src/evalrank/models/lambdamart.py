"""LambdaMART (Burges 2010) with LightGBM's ``lambdarank`` objective.

Not one of Sawade et al.'s (2012) Sec. 5 models, but the standard strong
learning-to-rank baseline of the later papers this project reproduces.
Boosting stops early on the validation half's NDCG@10 (LightGBM's own
``ndcg@10``, which scores queries without a relevant document as 1 instead
of our 0 -- a constant per query that does not move the stopping point);
the small grid over ``num_leaves`` and ``learning_rate`` is then compared
by our validation mean NDCG@10 (:func:`evalrank.metrics.ndcg`) at each
candidate's best iteration.

Determinism: ``deterministic=True``, ``force_row_wise=True``, a seed from
``seeds.int_seed(seed, "models", "lambdamart")`` and ``num_threads=n_jobs``;
scores are bit-identical for ``n_jobs`` 1 to 4 (tested for 1 and 2; the
trees themselves were checked identical for 1, 3 and 4 threads). Speed
caveat: with ``n_jobs > 1`` on oversubscribed cores, OpenMP's default
busy-waiting made training 5-10x *slower* in our measurements; set
``OMP_WAIT_POLICY=PASSIVE`` in the environment of such jobs (it must be set
before the process starts). Probabilities come
from a :class:`~evalrank.models.calibrate.GradeCalibrator` fitted on the
validation half.
"""

from __future__ import annotations

import numpy as np

from evalrank import seeds
from evalrank.models import RankingModel
from evalrank.models.calibrate import GradeCalibrator

__all__ = ["LambdaMARTModel"]


def _groups(offsets: np.ndarray) -> np.ndarray:
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
                   "min_data_in_leaf", "feature_fraction", "lambda_l2", "calibration_alpha")

    @classmethod
    def default_params(cls):
        return dict(num_leaves=31, learning_rate=0.1, num_boost_round=500, early_stopping_rounds=50,
                    min_data_in_leaf=20, feature_fraction=1.0, lambda_l2=0.0, calibration_alpha=1.0)

    def _lgb_params(self, params):
        return {
            "objective": "lambdarank",
            "metric": "ndcg",
            "eval_at": [10],
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

    def _fit_one(self, train, vali, params):
        import lightgbm as lgb

        p = self._lgb_params(params)
        dtrain = lgb.Dataset(train.features, label=train.labels.astype(np.int32),
                             group=_groups(train.offsets), params={"verbose": -1}, free_raw_data=True)
        dvali = lgb.Dataset(vali.features, label=vali.labels.astype(np.int32),
                            group=_groups(vali.offsets), reference=dtrain)
        booster = lgb.train(
            p, dtrain, num_boost_round=int(params["num_boost_round"]), valid_sets=[dvali], valid_names=["vali"],
            callbacks=[lgb.early_stopping(int(params["early_stopping_rounds"]), first_metric_only=True,
                                          verbose=False)],
        )
        best = booster.best_iteration if booster.best_iteration > 0 else booster.current_iteration()
        return {"booster": booster, "best_iteration": int(best)}

    def _tuning_extra(self, state):
        return {"best_iteration": state["best_iteration"]}

    def _predict_state(self, state, X, want_proba):
        scores = state["booster"].predict(X, num_iteration=state["best_iteration"], num_threads=self.n_jobs)
        scores = np.asarray(scores, dtype=np.float64)
        proba = self.calibrator_.predict_proba(scores) if want_proba else None
        return scores, proba

    def _finalize(self, train, vali):
        self.best_iteration_ = self.state_["best_iteration"]
        self.calibrator_ = GradeCalibrator(alpha=self.best_params_["calibration_alpha"], n_grades=self.n_grades)
        scores, _ = self._predict_chunked(self.state_, vali.features, False)
        self.calibrator_.fit(scores, vali.labels)

    @property
    def booster_(self):
        self._check_fitted()
        return self.state_["booster"]
