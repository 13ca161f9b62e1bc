"""Ordinal classification forest, McRank style (Li et al. 2007).

Sawade et al. (2012), Sec. 5.2: "the ordinal classification extension to
Random Forests [12,6]". Following McRank (Li, Burges & Wu 2007), the
ordinal problem is split into ``K - 1`` cumulative binary problems
``y > k`` (k = 0..K-2), each solved by a scikit-learn
``RandomForestClassifier``; the forest's estimate ``c_k(x) = P(y > k | x)``
is the mean over trees of the leaf class frequencies (the trees' in-bag
weighted fractions), summed in tree order so results do not depend on
``n_jobs``.

Independent forests need not give non-increasing ``c_0 >= c_1 >= ...``.
They are made monotone by averaging the running minimum from the left and
the running maximum from the right (both non-increasing sequences that
bracket ``c``; their midpoint is symmetric in the direction of the repair
and leaves a monotone ``c`` unchanged). Then

    P(y = 0) = 1 - c_0,  P(y = k) = c_{k-1} - c_k,  P(y = K-1) = c_{K-2},

which is non-negative by construction; rows are renormalized to remove
rounding. Score = the expected grade ``sum_k c_k`` (McRank's ranking
score). A threshold with only one class in the training data (e.g. no
grade-4 example) gets the constant ``c_k`` 0 or 1, no forest.

``backend="lightgbm"`` grows each cumulative forest with LightGBM instead
(:func:`evalrank.models.forest.fit_lightgbm_forest`, the same bags, parameter
mapping and seeds as ``rf``'s, streams ``("models", "ordinal_rf", k)``): a
regression forest on the 0/1 target ``y > k``. For a 0/1 target the squared
error's decrease is half the Gini decrease, so the trees split as a Gini
classification forest does, and a leaf's output is its in-bag weighted share of
``y > k``, scikit-learn's leaf class frequency; ``c_k`` is the forest's mean
prediction (LightGBM's).
"""

from __future__ import annotations

import numpy as np

from evalrank import seeds
from evalrank.models import RankingModel, check_features, normalize_rows
from evalrank.models.forest import (
    check_backend,
    fit_lightgbm_forest,
    forest_kwargs,
    lightgbm_forest_mean,
    refit_with_all_trees,
    search_with_fewer_trees,
)
from evalrank.progress import progress

__all__ = ["OrdinalForestModel", "monotone_cumulative", "cumulative_to_proba"]


def monotone_cumulative(c: np.ndarray) -> np.ndarray:
    """Make rows of ``c`` (n, K-1) non-increasing and clipped to [0, 1]."""
    c = np.clip(c, 0.0, 1.0)
    left = np.minimum.accumulate(c, axis=1)
    right = np.maximum.accumulate(c[:, ::-1], axis=1)[:, ::-1]
    return 0.5 * (left + right)


def cumulative_to_proba(c: np.ndarray) -> np.ndarray:
    """Grade probabilities from non-increasing ``c_k = P(y > k)``, (n, K)."""
    n = c.shape[0]
    ext = np.concatenate([np.ones((n, 1)), c, np.zeros((n, 1))], axis=1)
    p = ext[:, :-1] - ext[:, 1:]
    return normalize_rows(p)


class OrdinalForestModel(RankingModel):
    """K-1 cumulative random-forest classifiers (Sawade Sec. 5.2).

    Parameters (tunable): ``n_estimators`` (trees per cumulative forest),
    ``max_features``, ``min_samples_leaf``, ``max_depth``, ``max_samples``,
    ``tune_n_estimators`` (:func:`evalrank.models.forest.search_with_fewer_trees`),
    ``backend`` (``"sklearn"``, the default when left out, or ``"lightgbm"``; module docstring),
    ``tune_backend`` (the grid search's backend when it differs, as the random forest's).
    """

    name = "ordinal_rf"
    param_names = ("n_estimators", "max_features", "min_samples_leaf", "max_depth", "max_samples", "tune_n_estimators",
                   "backend", "tune_backend")

    @classmethod
    def default_params(cls):
        return dict(n_estimators=30, max_features=0.1, min_samples_leaf=10, max_depth=None, max_samples=None,
                    tune_n_estimators=None)

    _search_params = staticmethod(search_with_fewer_trees)
    _final_params = staticmethod(refit_with_all_trees)

    def _fit_one(self, train, vali, params):
        from sklearn.ensemble import RandomForestClassifier

        lightgbm = check_backend(params) == "lightgbm"
        X = np.asarray(train.features, dtype=np.float32)
        y = train.labels.astype(np.int64)
        parts = []
        for k in progress(range(self.n_grades - 1), total=self.n_grades - 1, desc=f"{self.name}: y>k"):
            target = y > k
            if target.all() or not target.any():
                parts.append(float(target[0]))
                continue
            if lightgbm:
                parts.append(fit_lightgbm_forest(X, target.astype(np.float64), params, seed=self.seed,
                                                 stream=("models", self.name, k), n_jobs=self.n_jobs))
                continue
            forest = RandomForestClassifier(
                **forest_kwargs(params),
                random_state=seeds.int_seed(self.seed, "models", self.name, k),
                n_jobs=self.n_jobs,
            )
            forest.fit(X, target)
            pos = int(np.flatnonzero(forest.classes_)[0])  # column of class True
            tables = []
            for tree in forest.estimators_:
                v = tree.tree_.value[:, 0, :].astype(np.float64)
                tot = v.sum(axis=1)
                tables.append(np.divide(v[:, pos], tot, out=np.zeros_like(tot), where=tot > 0))
            parts.append({"forest": forest, "tables": tables})
        return {"parts": parts}

    def cumulative(self, features) -> np.ndarray:
        """Raw (not yet monotone) estimates ``c_k = P(y > k)``, (n, K-1)."""
        self._check_fitted()
        X = check_features(features, self.n_features_in_)
        return self._cumulative(self.state_, X)

    def _cumulative(self, state, X):
        X = np.asarray(X, dtype=np.float32)
        c = np.empty((X.shape[0], self.n_grades - 1), dtype=np.float64)
        for k, part in enumerate(state["parts"]):
            if isinstance(part, float):
                c[:, k] = part
                continue
            if "boosters" in part:  # backend lightgbm
                c[:, k] = lightgbm_forest_mean(part, X, self.n_jobs)
                continue
            forest = part["forest"]
            forest.n_jobs = self.n_jobs
            leaves = forest.apply(X)
            acc = np.zeros(X.shape[0], dtype=np.float64)
            for t, table in enumerate(part["tables"]):
                acc += table[leaves[:, t]]
            c[:, k] = acc / leaves.shape[1]
        return c

    def _predict_state(self, state, X, want_proba):
        c = monotone_cumulative(self._cumulative(state, X))
        scores = c.sum(axis=1)
        return scores, (cumulative_to_proba(c) if want_proba else None)
