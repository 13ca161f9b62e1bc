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

Backends (``backend``)
----------------------
``"sklearn"`` (default)
    scikit-learn's ``RandomForestRegressor``: exact thresholds, its own bags.
``"lightgbm"``
    LightGBM's histogram tree learner grows the same kind of forest
    (:func:`fit_lightgbm_forest`). LightGBM does not expose the bags of its own
    ``boosting="rf"`` mode (a subsample without replacement), so the bags are
    drawn here, exactly as scikit-learn's: tree ``t`` gets ``n_draws`` row
    indices drawn with replacement from its own seeded stream (below) and
    weights every training row by its multiplicity ``w`` (0 out of bag). A
    ``Booster`` grows tree after tree from per-tree gradients ``g = -w y``,
    ``h = w`` (learning rate 1, no shrinkage, no initial score, L2 0): a leaf's
    output ``-sum g / sum h`` is then the ``w``-weighted mean label of its
    in-bag rows -- the tree a bagged regression forest grows, LightGBM's ``rf``
    boosting without its bagging (``g`` and ``h`` are small integers, summed
    exactly in the histograms). The
    leaf histograms count the training rows with the same ``w``, so their mean
    is the leaf's output and the expected grade equals the score (the forest's
    mean prediction, from LightGBM), as with scikit-learn. The parameters map
    to LightGBM's (:func:`lightgbm_params`):

    * ``max_features`` -> ``feature_fraction_bynode`` (features tried per split,
      scikit-learn's count: a share ``f`` is ``int(f * n_features)``, ``sqrt``,
      ``log2``, null = all), as a share of the non-constant features
      (LightGBM samples among those; it tries at least 2);
    * ``min_samples_leaf`` (``m`` distinct in-bag rows per leaf for scikit-learn;
      a share is ``ceil(share * n_rows)``) -> ``min_sum_hessian_in_leaf`` =
      ``m`` times the expected number of draws per distinct in-bag row
      (``n_draws / (n (1 - (1 - 1/n)^n_draws))``, 1.58 for a full bootstrap):
      LightGBM counts a leaf's data by its hessian, here its draws; its
      ``min_data_in_leaf`` (1) would count out-of-bag rows too;
    * ``max_samples`` -> ``n_draws`` as scikit-learn (null = n rows, a share
      ``int(share * n)``); LightGBM's own bagging stays off;
    * ``max_depth`` -> ``max_depth`` (null = -1) and ``num_leaves`` = the most
      leaves the tree can have: ``n_draws / min_sum_hessian_in_leaf``, at most
      ``2^max_depth`` and LightGBM's limit 131,072 (reached only by
      ``min_samples_leaf`` 1 on more than about 200,000 rows: there the largest
      gains are split first and the rest stays unsplit);
    * threads: the trees grow in fixed groups of :data:`TREES_PER_BOOSTER`, one
      single-threaded booster per group (``num_threads`` 1, ``deterministic``,
      ``force_col_wise``; ``seed`` -- the per-split feature draws --
      ``seeds.int_seed(seed, "models", name, [k,] "lightgbm", group)``), the
      model's ``n_jobs`` groups at a time, as scikit-learn spreads trees over
      its jobs. LightGBM's own threads would meet at each of a deep tree's
      thousands of splits: 2 of them fitted slower than 1 on a busy 2-core
      machine. The groups, bags and seeds do not depend on ``n_jobs``, so the
      forest does not either; the bag of tree ``t`` comes from
      ``seeds.rng(seed, "models", name, [k,] "bootstrap", t)``.

    Features are binned (LightGBM's ``max_bin`` 255), so thresholds are bin
    boundaries instead of midpoints between values. Issue 30 measured equal
    quality on 196k MSLR rows; ``tests/models/test_forest_backends.py`` checks
    it on held-out data, ``benchmarks/bench_forest.py`` measures both. LightGBM
    pays a fixed cost per split (full-width histograms), so it gains most on
    large leaves and many features per split, and loses on tiny leaves.
    Predictions walk the boosters' trees once, in compiled code
    (:mod:`evalrank.models.lgb_trees`: LightGBM's leaf ids and raw scores, bit for bit), for
    the scores and the leaf histograms together.
"""

from __future__ import annotations

import math
import threading

import numpy as np

from evalrank import seeds
from evalrank.models import RankingModel, normalize_rows
from evalrank.models._omp import import_lightgbm  # sets OMP_WAIT_POLICY=PASSIVE (see there)

__all__ = ["RandomForestModel", "BACKENDS", "leaf_histograms", "search_with_fewer_trees", "refit_with_all_trees",
           "check_backend", "lightgbm_params", "fit_lightgbm_forest", "lightgbm_forest_mean",
           "lightgbm_forest_predict",
           "bootstrap_weights"]

#: the forests' ``backend`` values; absent = ``"sklearn"``
BACKENDS = ("sklearn", "lightgbm")
#: LightGBM's largest ``num_leaves``
LIGHTGBM_MAX_LEAVES = 131_072
#: MB of a LightGBM booster's histogram cache (a deep tree would take one ~0.4 MB histogram per leaf);
#: a parent's histogram evicted from it is rebuilt from the rows instead of subtracted. Paper scale
#: (200,000 rows, rf's tuned point, 10 trees): 128 MB 24.1 CPU s and 0.6 GB peak, 1,024 MB 19.7 s and
#: 1.5 GB, 2,048 MB 19.4 s. The size is part of the model: not every tree is the same under another
#: size (rf's 200 trees on 100,000 rows, 128 vs 1,024 MB: 7 of 3,038,172 pool scores differ, each by
#: 0.0017, a leaf value of 0.34 over 200 trees; benchmarks/RESULTS.md, "Paper scale, fourth projection")
LIGHTGBM_HISTOGRAM_POOL_MB = 1024
#: trees per LightGBM booster (fit_lightgbm_forest): boosters grow in parallel, their trees in sequence
TREES_PER_BOOSTER = 10


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
    smaller than ``n_estimators``, and grown by ``tune_backend`` when that is set and differs
    from ``backend`` (the winner is then refit with all trees, by ``backend``, in
    :func:`refit_with_all_trees`). Validation NDCG ranks the capacity settings
    (``max_features``, ``min_samples_leaf``) with a fraction of the trees nearly as it
    does with all of them, at a fraction of the cost: the paper-scale grids search
    with 40 of 200 trees (config/paper.yaml). ``tune_backend`` lets a grid whose small
    leaves suit scikit-learn (LightGBM pays a fixed cost per split) refit its winner, whose
    leaves are large, on LightGBM (the module docstring's backends)."""
    tune = params.get("tune_n_estimators")
    tune_backend = params.get("tune_backend")
    if tune_backend is not None and tune_backend not in BACKENDS:
        raise ValueError(f"tune_backend must be one of {list(BACKENDS)} or None, got {tune_backend!r}")
    out = params
    if tune is not None and tune < params["n_estimators"]:
        if isinstance(tune, bool) or not isinstance(tune, (int, np.integer)) or tune < 1:
            raise ValueError(f"tune_n_estimators must be a positive integer or None, got {tune!r}")
        out = dict(out, n_estimators=int(tune), _all_trees=params["n_estimators"])
    refit_backend = check_backend(params)
    if tune_backend is not None and tune_backend != refit_backend:
        out = dict(out, backend=tune_backend, _refit_backend=refit_backend)
    return out


def refit_with_all_trees(params: dict) -> dict:
    """The winning grid point with the full ``n_estimators`` and the refit ``backend`` (see
    :func:`search_with_fewer_trees`)."""
    out = dict(params)
    if "_all_trees" in out:
        out["n_estimators"] = out.pop("_all_trees")
    if "_refit_backend" in out:
        out["backend"] = out.pop("_refit_backend")
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


def check_backend(params: dict) -> str:
    """The forest's ``backend`` (absent: ``"sklearn"``, the default)."""
    backend = params.get("backend", "sklearn")
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {list(BACKENDS)}, got {backend!r}")
    return backend


# ---------------------------------------------------------------------------
# the lightgbm backend (module docstring)
# ---------------------------------------------------------------------------
def _n_draws(max_samples, n: int) -> int:
    """Bootstrap draws per tree, as scikit-learn counts them (``_get_n_samples_bootstrap``)."""
    if max_samples is None:
        return n
    if isinstance(max_samples, (int, np.integer)) and not isinstance(max_samples, bool):
        if not 1 <= max_samples:
            raise ValueError(f"max_samples must be >= 1, got {max_samples!r}")
        return int(max_samples)
    if isinstance(max_samples, float) and 0 < max_samples <= 1:
        return max(int(max_samples * n), 1)
    raise ValueError(f"max_samples must be None, a count >= 1 or a share in (0, 1], got {max_samples!r}")


def _features_per_split(max_features, n_features: int) -> int:
    """Features tried per split, as scikit-learn counts them."""
    if max_features is None:
        return n_features
    if max_features == "sqrt":
        return max(1, int(np.sqrt(n_features)))
    if max_features == "log2":
        return max(1, int(np.log2(n_features)))
    if isinstance(max_features, (int, np.integer)) and not isinstance(max_features, bool) and max_features >= 1:
        return min(int(max_features), n_features)
    if isinstance(max_features, float) and 0 < max_features <= 1:
        return max(1, int(max_features * n_features))
    raise ValueError(f"max_features must be a count, a share in (0, 1], 'sqrt', 'log2' or None, got {max_features!r}")


def _rows_per_leaf(min_samples_leaf, n: int) -> int:
    """Fewest distinct training rows per leaf, as scikit-learn counts them."""
    if isinstance(min_samples_leaf, (int, np.integer)) and not isinstance(min_samples_leaf, bool) \
            and min_samples_leaf >= 1:
        return int(min_samples_leaf)
    if isinstance(min_samples_leaf, float) and 0 < min_samples_leaf < 1:
        return int(math.ceil(min_samples_leaf * n))
    raise ValueError(f"min_samples_leaf must be a count >= 1 or a share in (0, 1), got {min_samples_leaf!r}")


def lightgbm_params(params: dict, *, n_rows: int, n_features: int, n_valid_features: int) -> tuple[dict, int]:
    """LightGBM's tree-learner parameters for a forest's ``params`` and the bootstrap
    draws per tree, ``(lgb_params, n_draws)`` (the mapping: module docstring; the caller
    adds each booster's ``seed``)."""
    n_draws = _n_draws(params["max_samples"], n_rows)
    k = _features_per_split(params["max_features"], n_features)
    m = _rows_per_leaf(params["min_samples_leaf"], n_rows)
    distinct = n_rows * -math.expm1(n_draws * math.log1p(-1.0 / n_rows)) if n_rows > 1 else 1.0
    min_hessian = m * n_draws / distinct  # m distinct in-bag rows, counted in expected draws
    num_leaves = int(n_draws // min_hessian) if min_hessian > 1 else n_draws
    max_depth = params["max_depth"]
    if max_depth is not None:
        if isinstance(max_depth, bool) or not isinstance(max_depth, (int, np.integer)) or max_depth < 1:
            raise ValueError(f"max_depth must be a positive integer or None, got {max_depth!r}")
        num_leaves = min(num_leaves, 2 ** min(int(max_depth), 17))
    num_leaves = int(min(max(num_leaves, 2), LIGHTGBM_MAX_LEAVES))
    lgb_params = {
        "objective": "none", "boosting": "gbdt", "learning_rate": 1.0, "boost_from_average": False,
        "num_leaves": num_leaves, "max_depth": -1 if max_depth is None else int(max_depth),
        "min_data_in_leaf": 1, "min_sum_hessian_in_leaf": float(min_hessian),
        "lambda_l1": 0.0, "lambda_l2": 0.0, "min_gain_to_split": 0.0,
        "feature_fraction": 1.0, "feature_fraction_bynode": min(1.0, k / max(n_valid_features, 1)),
        "bagging_freq": 0, "bagging_fraction": 1.0,
        "num_threads": 1, "deterministic": True, "force_col_wise": True,
        "histogram_pool_size": LIGHTGBM_HISTOGRAM_POOL_MB, "feature_pre_filter": False, "verbosity": -1,
    }
    return lgb_params, n_draws


def bootstrap_weights(seed: int, stream: tuple, tree: int, n_rows: int, n_draws: int) -> np.ndarray:
    """Tree ``tree``'s bag: the multiplicity of every training row, float64 ``(n_rows,)``,
    ``n_draws`` draws with replacement from ``seeds.rng(seed, *stream, "bootstrap", tree)``."""
    rng = seeds.rng(seed, *stream, "bootstrap", tree)
    return np.bincount(rng.integers(0, n_rows, n_draws), minlength=n_rows).astype(np.float64)


def fit_lightgbm_forest(X: np.ndarray, target: np.ndarray, params: dict, *, seed: int, stream: tuple,
                        n_jobs: int, labels: np.ndarray | None = None, n_grades: int = 0) -> dict:
    """Grow ``params["n_estimators"]`` bagged regression trees of ``target`` with LightGBM
    (module docstring). ``stream`` names the forest's random streams (``("models", name)``,
    plus ``k`` for a cumulative forest). With ``labels`` (ints ``0..n_grades-1``) every
    tree also gets its leaves' label histograms (``params["leaf_counts"]``: in-bag rows
    weighted by multiplicity, or all rows once).

    The trees are grown in fixed groups of :data:`TREES_PER_BOOSTER`, one single-threaded
    ``Booster`` each (seed ``seeds.int_seed(seed, *stream, "lightgbm", group)``), ``n_jobs``
    groups at a time in threads (LightGBM releases the GIL): a forest's trees are
    independent, and LightGBM's own threads would meet at every split of trees with
    thousands of leaves. The groups do not depend on ``n_jobs``, so neither do the trees.

    Returns ``{"boosters", "trees", "constant"[, "tables"]}``: tree ``t`` is tree
    ``trees[t]`` of ``boosters[t // TREES_PER_BOOSTER]``, or -1 where its bag cannot be split
    at all (one leaf: LightGBM keeps no such tree, or a 0 tree when it is a booster's first);
    ``constant[t]`` that tree's value (0 otherwise); with ``labels``, ``tables[t]`` its
    ``(n_leaves, n_grades)`` leaf histograms.
    """
    from concurrent.futures import ThreadPoolExecutor

    lgb = import_lightgbm()
    X = np.ascontiguousarray(X, dtype=np.float32)
    y = np.asarray(target, dtype=np.float64)
    n, d = X.shape
    n_valid = int(np.count_nonzero(X.max(axis=0) > X.min(axis=0)))
    n_trees = int(params["n_estimators"])
    lgb_params, n_draws = lightgbm_params(params, n_rows=n, n_features=d, n_valid_features=n_valid)
    data = lgb.Dataset(X, label=y.astype(np.float32), free_raw_data=True,
                       params={"verbosity": -1, "feature_pre_filter": False, "min_data_in_leaf": 1,
                               "num_threads": int(n_jobs)}).construct()
    groups = [range(g, min(g + TREES_PER_BOOSTER, n_trees)) for g in range(0, n_trees, TREES_PER_BOOSTER)]
    trees = np.full(n_trees, -1, dtype=np.int64)
    constant = np.zeros(n_trees, dtype=np.float64)
    lock = threading.Lock()

    def grow(group: int):
        with lock:  # the Python side of Booster(train_set) touches the shared Dataset
            booster = lgb.Booster(dict(lgb_params, seed=seeds.int_seed(seed, *stream, "lightgbm", group)), data)
        junk = -1
        for t in groups[group]:
            w = bootstrap_weights(seed, stream, t, n, n_draws)
            grad = (-w * y).astype(np.float32)  # small integers (w y): exact in float32, summed exactly
            hess = w.astype(np.float32)
            before = booster.num_trees()
            empty = booster.update(fobj=lambda _preds, _data: (grad, hess))
            after = booster.num_trees()
            if not empty and after == before + 1:
                trees[t] = before
                continue
            if after == before + 1:  # a booster keeps its first tree as a constant 0
                junk = before
            constant[t] = float(w @ y / w.sum())
        # a predictor without the training data (as lgb.train leaves it)
        booster = lgb.Booster(model_str=booster.model_to_string())
        if junk >= 0 and booster.get_leaf_output(junk, 0) != 0.0:  # pragma: no cover - LightGBM's behaviour
            raise RuntimeError("LightGBM kept an unsplit tree with a non-zero value")
        return booster

    if n_jobs > 1 and len(groups) > 1:
        with ThreadPoolExecutor(max_workers=min(int(n_jobs), len(groups))) as pool:
            boosters = list(pool.map(grow, range(len(groups))))
    else:
        boosters = [grow(g) for g in range(len(groups))]
    data = None  # the binned training rows go
    state = {"boosters": boosters, "trees": trees, "constant": constant}
    if labels is not None:
        labels = np.asarray(labels, dtype=np.int64)
        all_rows = params.get("leaf_counts", "inbag") == "all"
        tables = state["tables"] = [None] * n_trees
        for t, leaves in _tree_leaves(state, X, n_jobs):
            weights = None if all_rows else bootstrap_weights(seed, stream, t, n, n_draws)
            if leaves is None:  # one leaf
                leaves = np.zeros(n, dtype=np.int64)
            tables[t] = leaf_histograms(leaves, labels, weights, int(leaves.max()) + 1, n_grades)
    return state


def _booster_walk(booster, X: np.ndarray, n_jobs: int, want_leaves: bool, want_raw: bool, compiled: bool):
    """``(leaves, raw)`` of the rows of ``X`` in ``booster``'s trees: int32 ``(n, n_trees)`` leaf ids
    (None unless ``want_leaves``) and the float64 raw scores (None unless ``want_raw``).
    ``compiled``: one pass of :func:`evalrank.models.lgb_trees.walk` for both (the same leaves and
    the same doubles as LightGBM's predictor); else LightGBM's predictor, one call for each wanted."""
    if compiled:
        from evalrank.models.lgb_trees import walk

        leaves, raw = walk(booster, X, n_jobs)
        return (leaves if want_leaves else None), raw
    raw = booster.predict(X, raw_score=True, num_threads=n_jobs) if want_raw else None
    leaves = booster.predict(X, pred_leaf=True, num_threads=n_jobs).reshape(X.shape[0], -1) if want_leaves else None
    return leaves, raw


def _forest_pass(state: dict, X: np.ndarray, n_jobs: int, want_leaves: bool = True, want_raw: bool = True):
    """Per booster in order: ``(first tree t of the booster, leaves, raw)`` (:func:`_booster_walk`;
    None, None for a booster without trees). The trees are walked in compiled code where evalrank's
    kernels run compiled, as they do from rows x trees x :data:`evalrank._jit.LINE_BYTES` of
    :data:`~evalrank._jit.THRESHOLD` on (a pool, a training set: numba's start-up then pays); on
    small inputs, or where ``EVALRANK_JIT=python`` keeps the kernels interpreted, LightGBM's own
    predictor is the faster."""
    from evalrank import _jit

    X = np.ascontiguousarray(X, dtype=np.float32)
    _jit.need(X.shape[0] * len(state["trees"]) * _jit.LINE_BYTES)
    compiled = _jit.compiled()
    for g, booster in enumerate(state["boosters"]):
        if booster.num_trees():
            yield g * TREES_PER_BOOSTER, *_booster_walk(booster, X, n_jobs, want_leaves, want_raw, compiled)
        else:
            yield g * TREES_PER_BOOSTER, None, None


def _tree_leaves_of(state: dict, first: int, block):
    """``(t, leaf ids of tree t)`` for the forest trees of the booster whose first tree is ``first``."""
    trees = state["trees"]
    for t in range(first, min(first + TREES_PER_BOOSTER, len(trees))):
        yield t, (None if trees[t] < 0 else block[:, trees[t]])


def _tree_leaves(state: dict, X: np.ndarray, n_jobs: int):
    """``(t, leaf ids of the rows of X in tree t)`` in tree order; None for a tree kept
    as a constant."""
    for first, block, _ in _forest_pass(state, X, n_jobs, want_raw=False):
        yield from _tree_leaves_of(state, first, block)


def lightgbm_forest_mean(state: dict, X: np.ndarray, n_jobs: int) -> np.ndarray:
    """The forest's mean prediction: the sums over the trees of its boosters (LightGBM's raw
    scores; a kept 0 tree adds nothing), plus the constant trees, over the number of trees."""
    return lightgbm_forest_predict(state, X, n_jobs, 0, False)[0]


def lightgbm_forest_predict(state: dict, X: np.ndarray, n_jobs: int, n_grades: int, want_proba: bool):
    """``(mean, proba)``: :func:`lightgbm_forest_mean` and (``want_proba``, else None) the trees'
    leaf histograms at ``X``, averaged in tree order, from one walk of the trees."""
    total = np.zeros(X.shape[0], dtype=np.float64)
    proba = np.zeros((X.shape[0], n_grades), dtype=np.float64) if want_proba else None
    for first, block, raw in _forest_pass(state, X, n_jobs, want_proba):
        if raw is not None:
            total += raw
        if want_proba:
            for t, leaves in _tree_leaves_of(state, first, block):
                proba += state["tables"][t][0 if leaves is None else leaves]
    if want_proba:
        proba /= len(state["trees"])
    return (total + state["constant"].sum()) / len(state["trees"]), proba


class RandomForestModel(RankingModel):
    """Random-forest regression ranker (Sawade Sec. 5.1, "Random Forest").

    Parameters (all tunable through the grid): ``n_estimators``,
    ``max_features``, ``min_samples_leaf``, ``max_depth``, ``max_samples``
    (as in scikit-learn's ``RandomForestRegressor``; ``bootstrap`` is always
    on), ``leaf_counts`` (``"inbag"`` or ``"all"``, see module docstring),
    ``tune_n_estimators`` (:func:`search_with_fewer_trees`), ``backend``
    (``"sklearn"`` or ``"lightgbm"``, module docstring) and ``tune_backend`` (the grid
    search's backend when it differs from the refit's, :func:`search_with_fewer_trees`).
    ``backend`` and ``tune_backend`` are not among :meth:`default_params`: left out they mean
    ``"sklearn"`` and "as ``backend``", and the tuning table (every parameter a column) stays
    as it was.
    """

    name = "rf"
    param_names = ("n_estimators", "max_features", "min_samples_leaf", "max_depth", "max_samples", "leaf_counts",
                   "tune_n_estimators", "backend", "tune_backend")

    @classmethod
    def default_params(cls):
        return dict(n_estimators=100, max_features=0.1, min_samples_leaf=10, max_depth=None,
                    max_samples=None, leaf_counts="inbag", tune_n_estimators=None)

    _search_params = staticmethod(search_with_fewer_trees)
    _final_params = staticmethod(refit_with_all_trees)

    def _fit_one(self, train, vali, params):
        if params["leaf_counts"] not in ("inbag", "all"):
            raise ValueError(f"leaf_counts must be 'inbag' or 'all', got {params['leaf_counts']!r}")
        if check_backend(params) == "lightgbm":
            y = train.labels.astype(np.int64)
            return fit_lightgbm_forest(train.features, y, params, seed=self.seed, stream=("models", self.name),
                                       n_jobs=self.n_jobs, labels=y, n_grades=self.n_grades)
        from sklearn.ensemble import RandomForestRegressor

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
        if "boosters" in state:  # backend lightgbm: one walk of the trees for both
            scores, proba = lightgbm_forest_predict(state, X, self.n_jobs, self.n_grades, want_proba)
            return scores, (normalize_rows(proba) if want_proba else None)
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
        """The fitted scikit-learn ``RandomForestRegressor`` (backend sklearn) or the list of
        LightGBM ``Booster`` objects (backend lightgbm, :func:`fit_lightgbm_forest`)."""
        self._check_fitted()
        return self.state_["forest"] if "forest" in self.state_ else self.state_["boosters"]
