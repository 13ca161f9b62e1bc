"""Linear Ranking SVM (Herbrich et al. 2000) on subsampled within-query pairs.

Sawade et al. (2012), Sec. 5.2: "We additionally train linear Ranking SVM
[15]". The RankSVM objective

    min_w  1/2 |w|^2 + C sum_{(i, j): y_i > y_j, same query} max(0, 1 - w . (x_i - x_j))

is a linear SVM without intercept on difference vectors. Pairs are drawn
uniformly without replacement from all within-query pairs with different
grades, capped at ``max_pairs`` (stream ``seeds.rng(seed, "models",
"ranksvm", "pairs")``) -- all of them when there are fewer. Half of the
difference vectors (alternating in the random draw order) are negated with
label -1 so that scikit-learn's ``LinearSVC`` (liblinear, hinge loss, dual
coordinate descent, ``fit_intercept=False``) sees two classes; this leaves
the objective unchanged. ``C`` is tuned on the validation NDCG@10.

Features are transformed as for the ordered logit (signed log1p of
heavy-tailed non-negative columns, then z-scored with the training
statistics; :class:`evalrank.models.FeatureTransform`, option ``log1p``).
Score = ``w . x`` on the transformed features. Probabilities come from a
:class:`~evalrank.models.calibrate.GradeCalibrator` fitted on the
validation half.
"""

from __future__ import annotations

import warnings

import numpy as np

from evalrank import seeds
from evalrank.models import FeatureTransform, RankingModel

__all__ = ["RankSVMModel", "sample_pairs", "count_pairs"]


def count_pairs(labels: np.ndarray, offsets: np.ndarray, n_grades: int) -> int:
    """Number of within-query pairs ``(i, j)`` with ``y_i > y_j``."""
    sizes = np.diff(offsets)
    q = np.repeat(np.arange(sizes.size), sizes)
    per_grade = np.bincount(q * n_grades + labels, minlength=sizes.size * n_grades).reshape(-1, n_grades)
    return int(((sizes.astype(np.int64) ** 2).sum() - (per_grade.astype(np.int64) ** 2).sum()) // 2)


def _decode(k: np.ndarray, cum: np.ndarray, sizes: np.ndarray, offsets: np.ndarray):
    q = np.searchsorted(cum, k, side="right") - 1
    r = k - cum[q]
    n = sizes[q]
    return offsets[q] + r // n, offsets[q] + r % n


def sample_pairs(labels, offsets, max_pairs: int, rng: np.random.Generator, n_grades: int = 5,
                 chunk: int = 10_000_000) -> tuple[np.ndarray, np.ndarray]:
    """Row pairs ``(i, j)`` with ``y_i > y_j`` in the same query.

    Uniform without replacement among all such pairs, at most ``max_pairs``,
    in random order. Works on the space of ordered pairs of each query
    (``n_q^2`` entries) without materializing it: indices are drawn from it,
    decoded, and kept if ``y_i > y_j``.
    """
    labels = np.asarray(labels, dtype=np.int64)
    offsets = np.asarray(offsets, dtype=np.int64)
    sizes = np.diff(offsets)
    cum = np.concatenate([[0], np.cumsum(sizes**2)])
    total = int(cum[-1])
    n_valid = count_pairs(labels, offsets, n_grades)
    if n_valid == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    if n_valid <= max_pairs:
        parts_i, parts_j = [], []
        for start in range(0, total, chunk):
            k = np.arange(start, min(start + chunk, total), dtype=np.int64)
            i, j = _decode(k, cum, sizes, offsets)
            keep = labels[i] > labels[j]
            parts_i.append(i[keep])
            parts_j.append(j[keep])
        i, j = np.concatenate(parts_i), np.concatenate(parts_j)
        perm = rng.permutation(i.size)
        return i[perm], j[perm]
    factor = 1.1
    while True:
        m = min(total, int(np.ceil(max_pairs * total / n_valid * factor)) + 100)
        k = rng.choice(total, size=m, replace=False)
        i, j = _decode(k, cum, sizes, offsets)
        keep = labels[i] > labels[j]
        if keep.sum() >= max_pairs or m == total:
            i, j = i[keep][:max_pairs], j[keep][:max_pairs]
            return i, j
        factor *= 1.5


class RankSVMModel(RankingModel):
    """Linear RankSVM (Sawade Sec. 5.2, "Ranking SVM").

    Parameters (tunable): ``C``, ``max_pairs``, ``log1p``, ``max_iter``,
    ``tol`` (liblinear's), ``calibration_alpha`` (the calibrator's L2).
    After fitting, ``n_pairs_`` is the number of training pairs used and
    ``calibrator_`` maps scores to grade probabilities.
    """

    name = "ranksvm"
    param_names = ("C", "max_pairs", "log1p", "max_iter", "tol", "calibration_alpha")
    # sequential grid: scikit-learn's liblinear wrapper seeds the C library's
    # global rand() (srand), so concurrent fits in threads are not reproducible
    _parallel_grid = False
    # liblinear fits on one thread and the grid is sequential: a second thread would idle (0.95
    # CPU-s per wall second measured on 2 threads at paper scale, benchmarks/RESULTS.md)
    threads_used = 1

    @classmethod
    def default_params(cls):
        return dict(C=0.001, max_pairs=100_000, log1p="auto", max_iter=1000, tol=1e-4, calibration_alpha=1.0)

    def _prepare(self, train, vali, candidates):
        labels = train.labels.astype(np.int64)
        self._cache = {}
        for params in candidates:
            key = (params["log1p"], params["max_pairs"])
            if key in self._cache:
                continue
            mp = params["max_pairs"]
            if isinstance(mp, bool) or not isinstance(mp, (int, np.integer)) or mp < 1:
                raise ValueError(f"max_pairs must be a positive integer, got {mp!r}")
            tf = FeatureTransform(log1p=params["log1p"]).fit(train.features)
            X = tf.transform(train.features)
            i, j = sample_pairs(labels, train.offsets, int(mp),
                                seeds.rng(self.seed, "models", self.name, "pairs"), self.n_grades)
            if i.size == 0:
                raise ValueError("train has no within-query pair of documents with different grades")
            diff = X[i] - X[j]
            if diff.shape[0] == 1:
                diff = np.vstack([diff, -diff])
                sign = np.array([1, -1])
            else:
                sign = np.where(np.arange(diff.shape[0]) % 2 == 0, 1, -1)
                diff[sign < 0] *= -1.0
            self._cache[key] = (tf, diff, sign)

    def _fit_one(self, train, vali, params):
        from sklearn.svm import LinearSVC

        tf, diff, sign = self._cache[(params["log1p"], params["max_pairs"])]
        svm = LinearSVC(C=float(params["C"]), loss="hinge", dual=True, fit_intercept=False,
                        max_iter=int(params["max_iter"]), tol=float(params["tol"]),
                        random_state=seeds.int_seed(self.seed, "models", self.name, "liblinear"))
        svm.fit(diff, sign)
        n_iter = int(np.max(svm.n_iter_))
        return {"transform": tf, "coef": np.ascontiguousarray(svm.coef_[0], dtype=np.float64),
                "n_pairs": int(diff.shape[0]), "converged": n_iter < int(params["max_iter"])}

    def _fit_grid(self, train, vali, candidates):
        # liblinear's ConvergenceWarning is recorded in tuning_ ("converged")
        # instead; the filter is set here in the main thread, around the grid.
        from sklearn.exceptions import ConvergenceWarning

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            super()._fit_grid(train, vali, candidates)

    def _tuning_extra(self, state):
        return {"converged": state["converged"], "n_pairs": state["n_pairs"]}

    def _predict_state(self, state, X, want_proba):
        scores = state["transform"].transform(X) @ state["coef"]
        proba = self.calibrator_.predict_proba(scores) if want_proba else None
        return scores, proba

    def _finalize(self, train, vali):
        self.n_pairs_ = self.state_["n_pairs"]
        self._fit_calibrator(vali)

    def _cleanup(self):
        self._cache = {}

    @property
    def coef_(self):
        self._check_fitted()
        return self.state_["coef"]
