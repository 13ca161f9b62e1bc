"""Gradient boosted regression trees (Friedman 2001): pointwise L2 regression on the grades.

Dinçer, Macdonald & Ounis (2016, "Risk-sensitive evaluation and learning to
rank using multiple baselines", SIGIR, Sec. 6.1) pre-train four baseline
learners, among them "a plain gradient boosted regression trees learner
(also implemented by Jforests)": boosted regression trees fitted to the
relevance grades themselves (squared loss), i.e. LambdaMART's trees without
the listwise lambda gradients. It is the pointwise member of their baseline
set, next to the listwise LambdaMART and AdaRank and the linear AFS
(:mod:`evalrank.models.afs`).

Implementation: a subclass of :class:`~evalrank.models.lambdamart.LambdaMARTModel`
that swaps in the L2 objective through its ``_objective`` hook (gradient
``score - grade``, hessian 1), so that the LightGBM parameters, the
determinism settings, the early stopping on the validation half's mean
NDCG@10 under the model's convention (:meth:`RankingModel.metric`, a
LightGBM ``feval``), the grid comparison at each candidate's best iteration
and the score calibrator are LambdaMART's, unchanged. Boosting starts from
score 0 as Jforests' ``GradientBoosting`` does (its ``preprocess`` zeroes
the predictions); the trees are then bit-identical to LightGBM's built-in
``objective="regression"`` with ``boost_from_average=False`` (tested,
``feature_fraction=1``; with ``feature_fraction < 1`` LightGBM draws a
different feature subsample per tree for a custom objective than for the
built-in one, so the two differ only in that random draw). The constant
offset a regression model starts from cannot change a ranking, only the
trees that fit it in the first rounds.

Determinism: as LambdaMART (``deterministic=True``, ``force_row_wise=True``,
the seed ``seeds.int_seed(seed, "models", "gbrt")``, ``num_threads=n_jobs``):
scores are bit-identical for ``n_jobs`` 1 and 2 (tested). Probabilities
come from a :class:`~evalrank.models.calibrate.GradeCalibrator` fitted on
the validation half (the regression output is an expected-grade estimate,
but it is unbounded and not a distribution).
"""

from __future__ import annotations

import numpy as np

from evalrank.models.lambdamart import LambdaMARTModel

__all__ = ["GBRTModel", "L2Objective"]


class L2Objective:
    """Squared loss ``1/2 (score - grade)^2`` per document: gradient
    ``score - grade``, hessian 1 (LightGBM's ``RegressionL2loss``; the
    difference is taken in float64 and LightGBM rounds it to float32, as its
    built-in objective does)."""

    def __init__(self, labels):
        self.labels = np.asarray(labels, dtype=np.float64)

    def __call__(self, scores):
        grad = np.asarray(scores, dtype=np.float64) - self.labels
        return grad, np.ones_like(grad)


class GBRTModel(LambdaMARTModel):
    """Gradient boosted regression trees on the grades (LightGBM, L2 loss).

    Parameters (tunable): ``num_leaves``, ``learning_rate``,
    ``num_boost_round`` (upper limit), ``early_stopping_rounds``,
    ``min_data_in_leaf``, ``feature_fraction``, ``lambda_l2``,
    ``calibration_alpha`` -- LambdaMART's, without the lambda gradients'
    ``truncation_level``. After fitting, ``best_iteration_`` is the number
    of trees kept and ``booster_`` the ``lightgbm.Booster``.
    """

    name = "gbrt"
    param_names = tuple(p for p in LambdaMARTModel.param_names if p != "truncation_level")

    @classmethod
    def default_params(cls):
        params = LambdaMARTModel.default_params()
        del params["truncation_level"]
        return params

    def _objective(self, train, params):
        return L2Objective(train.labels)
