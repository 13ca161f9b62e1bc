"""MAP ordered logit (McCullagh 1980) fitted with ``mord.LogisticAT``.

Sawade et al. (2012), Sec. 5.1: "As an alternative graded relevance model,
we also study a MAP version of Ordered Logit [13]; this model directly
provides probability estimates p(y_z | x, z; theta)".

Model: ``P(y <= k | x) = sigmoid(theta_k - w . x)`` with ordered thresholds
``theta_0 <= ... <= theta_{K-2}`` and a Gaussian prior on ``w`` (L2
strength ``alpha``, tuned on the validation set). ``mord.LogisticAT``
(Rennie & Srebro 2005) estimates ``(w, theta)`` by minimizing
``sum_i sum_k logloss(1[y_i > k], w . x_i - theta_k) + alpha/2 |w|^2``: a
sum of binary logistic losses, one per threshold, i.e. a composite
(pseudo-)likelihood of the same cumulative-logit model. Note that ``mord``
sums the loss over examples, so ``alpha`` acts relative to the training-set
size. Probabilities are the model's ``P(y <= k) - P(y <= k-1)``.

Features: heavy-tailed non-negative columns (skewness > 2 on the training
half: MSLR's raw term counts, stream lengths, PageRank, click counts) are
mapped by ``sign(x) log1p(|x|)``, then every column is z-scored with the
training mean and sd (:class:`evalrank.models.FeatureTransform`; option
``log1p`` = ``"auto" | "none" | "all"``).

Score: the linear predictor ``w . x``. The expected grade
``sum_k sigmoid(w . x - theta_k)`` is a strictly increasing function of it,
so both give the same ranking, but the linear predictor does not saturate
into ties for extreme documents.

Grades absent from the training half get probability 0 (mord needs
consecutive classes; present grades are mapped to 0..m-1 and back).
"""

from __future__ import annotations

import contextlib
import warnings

import numpy as np
from scipy.special import expit

from evalrank.models import FeatureTransform, RankingModel, normalize_rows

__all__ = ["OrderedLogitModel", "cumulative_logit_proba", "fit_logistic_at"]


def cumulative_logit_proba(eta: np.ndarray, theta: np.ndarray, grades: np.ndarray, n_grades: int) -> np.ndarray:
    """``P(y = g)`` for all ``n_grades`` grades from the linear predictor ``eta``.

    ``theta`` are the ``m - 1`` thresholds between the ``m`` present
    ``grades`` (sorted); other grades get 0.
    """
    n = eta.shape[0]
    out = np.zeros((n, n_grades), dtype=np.float64)
    if grades.size == 1:
        out[:, grades[0]] = 1.0
        return out
    cdf = expit(theta[None, :] - eta[:, None])  # P(y <= present grade j), (n, m-1)
    ext = np.concatenate([np.zeros((n, 1)), cdf, np.ones((n, 1))], axis=1)
    out[:, grades] = np.diff(ext, axis=1)
    return normalize_rows(out)


@contextlib.contextmanager
def quiet_mord():
    """Silence mord 0.7's call of L-BFGS-B with the deprecated ``disp`` option.
    ``warnings`` filters are process-global: enter only from the main thread."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*`disp` and `iprint` options", category=DeprecationWarning)
        yield


def fit_logistic_at(X: np.ndarray, y: np.ndarray, alpha: float, max_iter: int):
    """Fit ``mord.LogisticAT`` on the present grades; returns (w, theta, grades)."""
    import mord

    grades = np.unique(y)
    if grades.size == 1:
        return np.zeros(X.shape[1]), np.zeros(0), grades
    ranks = np.searchsorted(grades, y)
    est = mord.LogisticAT(alpha=float(alpha), max_iter=int(max_iter))
    est.fit(X, ranks)
    return np.asarray(est.coef_, dtype=np.float64), np.asarray(est.theta_, dtype=np.float64), grades


class OrderedLogitModel(RankingModel):
    """MAP ordered logit (Sawade Sec. 5.1).

    Parameters (tunable): ``alpha`` (L2 strength, mord's scale),
    ``log1p`` (feature transform, see module docstring), ``max_iter``
    (L-BFGS iterations).
    """

    name = "ordered_logit"
    param_names = ("alpha", "log1p", "max_iter")
    _parallel_grid = True

    @classmethod
    def default_params(cls):
        return dict(alpha=100.0, log1p="auto", max_iter=1000)

    def _fit_grid(self, train, vali, candidates):
        with quiet_mord():
            super()._fit_grid(train, vali, candidates)

    def _prepare(self, train, vali, candidates):
        # transformed design matrices, computed once per log1p option (before
        # the grid may run in threads)
        self._cache = {}
        for params in candidates:
            log1p = params["log1p"]
            if log1p not in self._cache:
                tf = FeatureTransform(log1p=log1p).fit(train.features)
                self._cache[log1p] = (tf, tf.transform(train.features))

    def _fit_one(self, train, vali, params):
        alpha = params["alpha"]
        if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.number)) or alpha < 0:
            raise ValueError(f"alpha must be a non-negative number, got {alpha!r}")
        tf, X = self._cache[params["log1p"]]
        w, theta, grades = fit_logistic_at(X, train.labels.astype(np.int64), alpha, params["max_iter"])
        return {"transform": tf, "coef": w, "theta": theta, "grades": grades}

    def _cleanup(self):
        self._cache = {}

    def _predict_state(self, state, X, want_proba):
        eta = state["transform"].transform(X) @ state["coef"]
        proba = cumulative_logit_proba(eta, state["theta"], state["grades"], self.n_grades) if want_proba else None
        return eta, proba

    @property
    def coef_(self):
        self._check_fitted()
        return self.state_["coef"]

    @property
    def theta_(self):
        self._check_fitted()
        return self.state_["theta"]
