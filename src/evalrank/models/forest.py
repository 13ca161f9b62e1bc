"""Random-forest regression with leaf-histogram grade probabilities.

Sawade et al. (2012), Sec. 5.1: "we choose a pointwise ranking approach and
employ Random Forest regression [Breiman 2001] to train graded relevance
models on query-document pairs. [...] We apply the approach from [12,6]
(Li et al. 2007; Mohan et al. 2011) to obtain the probability estimates
p(y_z | x, z; theta)".

Ranking score: the forest's regression prediction (mean over trees of the
leaf means).

Probabilities: every tree leaf holds the training examples that reach it;
its normalized label histogram is that tree's distribution over grades
0..4, and the forest's ``p(y | x, z; theta)`` is the mean of the trees'
distributions for the leaves that ``x`` reaches. Computed vectorized from
``apply()`` leaf ids: per tree an ``(n_nodes, n_grades)`` table built with
one ``bincount``, looked up for the whole pool, summed over trees in tree
order (fixed, so bit-identical for any ``n_jobs``).

Which training examples are counted (``leaf_counts``):

``"inbag"`` (default)
    each tree's bootstrap sample, with its multiplicities -- exactly the
    examples and weights the tree was grown on. The leaf histogram's mean
    then *is* the leaf's regression value, so the expected grade under
    ``predict_proba`` equals the ranking score (up to rounding): the
    probability model and the ranking function agree.
``"all"``
    every training row, each once (out-of-bag rows included). Slightly
    "honest" (less overconfident) leaves, but the expected grade no longer
    equals the score.
"""

from __future__ import annotations

import numpy as np

from evalrank import seeds
from evalrank.models import RankingModel, normalize_rows

__all__ = ["RandomForestModel", "leaf_histograms", "search_with_fewer_trees", "refit_with_all_trees"]


def leaf_histograms(leaves: np.ndarray, labels: np.ndarray, weights: np.ndarray | None,
                    n_nodes: int, n_grades: int) -> np.ndarray:
    """Normalized label histogram per tree node, ``(n_nodes, n_grades)``.

    ``leaves`` are the node ids (``tree.apply``) of the training rows;
    nodes no training row reaches (internal nodes) stay all-zero.
    """
    flat = np.bincount(leaves.astype(np.int64) * n_grades + labels, weights=weights,
                       minlength=n_nodes * n_grades).astype(np.float64, copy=False)
    table = flat.reshape(n_nodes, n_grades)
    total = table.sum(axis=1, keepdims=True)
    np.divide(table, total, out=table, where=total > 0)
    return table


def search_with_fewer_trees(params: dict) -> dict:
    """A grid point as searched: with ``tune_n_estimators`` trees when that is set and
    smaller than ``n_estimators`` (the winner is then refit with all trees by
    :func:`refit_with_all_trees`). Validation NDCG ranks the capacity settings
    (``max_features``, ``min_samples_leaf``) with a fraction of the trees nearly as it
    does with all of them, at a fraction of the cost: the paper-scale grids search
    with 100 of 500 trees (config/paper.yaml)."""
    tune = params.get("tune_n_estimators")
    if tune is None or tune >= params["n_estimators"]:
        return params
    if isinstance(tune, bool) or not isinstance(tune, (int, np.integer)) or tune < 1:
        raise ValueError(f"tune_n_estimators must be a positive integer or None, got {tune!r}")
    return dict(params, n_estimators=int(tune), _all_trees=params["n_estimators"])


def refit_with_all_trees(params: dict) -> dict:
    """The winning grid point with the full ``n_estimators`` (see :func:`search_with_fewer_trees`)."""
    if "_all_trees" not in params:
        return params
    out = dict(params, n_estimators=params["_all_trees"])
    del out["_all_trees"]
    return out


def forest_kwargs(params: dict) -> dict:
    """The scikit-learn forest arguments shared by ``rf`` and ``ordinal_rf``
    (bootstrap on; the random state and thread count are set by the caller)."""
    return dict(
        n_estimators=params["n_estimators"],
        max_features=params["max_features"],
        min_samples_leaf=params["min_samples_leaf"],
        max_depth=params["max_depth"],
        max_samples=params["max_samples"],
        bootstrap=True,
    )


class RandomForestModel(RankingModel):
    """Random-forest regression ranker (Sawade Sec. 5.1, "Random Forest").

    Parameters (all tunable through the grid): ``n_estimators``,
    ``max_features``, ``min_samples_leaf``, ``max_depth``, ``max_samples``
    (as in scikit-learn's ``RandomForestRegressor``; ``bootstrap`` is always
    on), ``leaf_counts`` (``"inbag"`` or ``"all"``, see module docstring) and
    ``tune_n_estimators`` (:func:`search_with_fewer_trees`).
    """

    name = "rf"
    param_names = ("n_estimators", "max_features", "min_samples_leaf", "max_depth", "max_samples", "leaf_counts",
                   "tune_n_estimators")

    @classmethod
    def default_params(cls):
        return dict(n_estimators=100, max_features=0.1, min_samples_leaf=10, max_depth=None,
                    max_samples=None, leaf_counts="inbag", tune_n_estimators=None)

    _search_params = staticmethod(search_with_fewer_trees)
    _final_params = staticmethod(refit_with_all_trees)

    def _fit_one(self, train, vali, params):
        from sklearn.ensemble import RandomForestRegressor

        if params["leaf_counts"] not in ("inbag", "all"):
            raise ValueError(f"leaf_counts must be 'inbag' or 'all', got {params['leaf_counts']!r}")
        forest = RandomForestRegressor(
            **forest_kwargs(params),
            random_state=seeds.int_seed(self.seed, "models", self.name),
            n_jobs=self.n_jobs,
        )
        X = np.asarray(train.features, dtype=np.float32)
        y = train.labels.astype(np.int64)
        forest.fit(X, y.astype(np.float64))
        leaves = forest.apply(X)  # (n_train, n_trees) node ids
        if params["leaf_counts"] == "inbag":
            weight_list = [np.bincount(idx, minlength=len(y)).astype(np.float64)
                           for idx in forest.estimators_samples_]
        else:
            weight_list = [None] * len(forest.estimators_)
        tables, values = [], []
        for t, tree in enumerate(forest.estimators_):
            n_nodes = tree.tree_.node_count
            tables.append(leaf_histograms(leaves[:, t], y, weight_list[t], n_nodes, self.n_grades))
            values.append(np.ascontiguousarray(tree.tree_.value[:, 0, 0], dtype=np.float64))
        return {"forest": forest, "tables": tables, "values": values}

    def _predict_state(self, state, X, want_proba):
        forest = state["forest"]
        forest.n_jobs = self.n_jobs
        leaves = forest.apply(np.asarray(X, dtype=np.float32))
        n, n_trees = leaves.shape
        scores = np.zeros(n, dtype=np.float64)
        for t in range(n_trees):
            scores += state["values"][t][leaves[:, t]]
        scores /= n_trees
        proba = None
        if want_proba:
            proba = np.zeros((n, self.n_grades), dtype=np.float64)
            for t in range(n_trees):
                proba += state["tables"][t][leaves[:, t]]
            proba /= n_trees
            normalize_rows(proba)
        return scores, proba

    @property
    def forest_(self):
        """The fitted scikit-learn ``RandomForestRegressor``."""
        self._check_fitted()
        return self.state_["forest"]
