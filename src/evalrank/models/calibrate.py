"""Score-to-grade calibration for rankers without a probability model.

Active evaluation needs ``p(y | x, z; theta)`` for every pool document
(Sawade et al. 2012, Sec. 4: "such a model can typically be derived from the
graded relevance predictor"). RankSVM and LambdaMART only output scores, so
a one-dimensional ordered logit maps the score to grade probabilities:

    P(y <= k | s) = sigmoid(theta_k - w * (s - mean) / sd),

fitted with ``mord.LogisticAT`` on the *validation* half (the ranker never
trained on it). With ``w >= 0`` the expected grade is non-decreasing in the
score. A negative fitted ``w`` (a ranker that anti-correlates with the
validation grades) is replaced by ``w = 0`` with thresholds at the logits of
the validation grade frequencies -- the marginal grade distribution for
every document -- so the calibrated model never reverses the ranking.
Grades absent from the validation data get probability 0.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logit

from evalrank.models import N_GRADES, check_labels, expected_grade
from evalrank.models.ordered_logit import cumulative_logit_proba, fit_logistic_at, quiet_mord

__all__ = ["GradeCalibrator"]


class GradeCalibrator:
    """One-dimensional ordered logit on the standardized ranking score.

    Parameters
    ----------
    alpha : L2 strength on ``w`` (mord's scale: relative to the number of
        examples; the default is negligible for thousands of examples).
    n_grades : number of grades (columns of ``predict_proba``).
    """

    def __init__(self, alpha: float = 1.0, n_grades: int = N_GRADES, max_iter: int = 1000):
        if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.number)) or alpha < 0:
            raise ValueError(f"alpha must be a non-negative number, got {alpha!r}")
        if isinstance(n_grades, bool) or not isinstance(n_grades, (int, np.integer)) or n_grades < 2:
            raise ValueError(f"n_grades must be an integer >= 2, got {n_grades!r}")
        self.alpha = float(alpha)
        self.n_grades = int(n_grades)
        self.max_iter = int(max_iter)

    @staticmethod
    def _check_scores(scores, name="scores") -> np.ndarray:
        scores = np.asarray(scores)
        if scores.ndim != 1:
            raise ValueError(f"{name} must be 1-d, got shape {scores.shape}")
        if not np.issubdtype(scores.dtype, np.number):
            raise TypeError(f"{name} must be numeric, got dtype {scores.dtype}")
        scores = scores.astype(np.float64, copy=False)
        if not np.isfinite(scores).all():
            raise ValueError(f"{name} contain NaN or infinite values")
        return scores

    def fit(self, scores, labels) -> "GradeCalibrator":
        """Fit on validation scores and their true grades."""
        from evalrank.models import single_threaded_blas

        scores = self._check_scores(scores)
        labels = check_labels(labels, self.n_grades)
        if labels.shape != scores.shape:
            raise ValueError(f"labels must have the same shape as scores {scores.shape}, got {labels.shape}")
        if scores.size == 0:
            raise ValueError("scores must not be empty")
        self.mean_ = float(scores.mean())
        sd = float(scores.std())
        self.scale_ = sd if sd > 0 else 1.0
        z = ((scores - self.mean_) / self.scale_)[:, None]
        with single_threaded_blas(), quiet_mord():
            w, theta, grades = fit_logistic_at(z, labels, self.alpha, self.max_iter)
        self.reversed_ = bool(w[0] < 0)
        if self.reversed_:
            freq = np.bincount(np.searchsorted(grades, labels), minlength=grades.size) / labels.size
            cum = np.clip(np.cumsum(freq)[:-1], 1e-12, 1 - 1e-12)
            w, theta = np.zeros(1), logit(cum)
        self.coef_ = float(w[0])
        self.theta_ = theta
        self.grades_ = grades
        return self

    def predict_proba(self, scores) -> np.ndarray:
        """Grade probabilities, float64 ``(n, n_grades)``, rows sum to 1."""
        if not hasattr(self, "theta_"):
            raise RuntimeError("GradeCalibrator is not fitted; call fit() first")
        scores = self._check_scores(scores)
        eta = self.coef_ * ((scores - self.mean_) / self.scale_)
        return cumulative_logit_proba(eta, self.theta_, self.grades_, self.n_grades)

    def expected_grade(self, scores) -> np.ndarray:
        return expected_grade(self.predict_proba(scores))
