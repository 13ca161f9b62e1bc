"""Automatic Feature Selection (Metzler 2007): a greedily grown linear ranker, under an NDCG convention.

Metzler (2007), "Automatic feature selection in the Markov random field
model for information retrieval", CIKM: a linear ranking function is grown
one feature at a time; each step adds the candidate feature, with the
weight found by a line search, that raises the training metric the most,
and the procedure stops when no candidate improves it enough. Dinçer,
Macdonald & Ounis (2016, "Risk-sensitive evaluation and learning to rank
using multiple baselines", SIGIR, Sec. 6.1) use AFS as the linear learner
among the four baseline learners they pre-train (with LambdaMART
(:mod:`evalrank.models.lambdamart`), AdaRank (:mod:`evalrank.models.adarank`)
and plain gradient boosted regression trees (:mod:`evalrank.models.gbrt`)).

Algorithm
---------
Every metric value is :meth:`RankingModel.metric` (NDCG@``metric_k`` under
the model's ``convention``), averaged over the training queries (nan-mean).

1. start: the single feature ``f_1`` with the highest training mean metric,
   weight 1 (the score is the transformed feature itself; ties go to the
   lower feature index).
2. step ``t``: with current scores ``s = sum_{i<t} w_i x_{f_i}``, every
   not-yet-selected feature ``f`` and every weight ``lambda`` of the
   symmetric geometric grid ``+-W step_base step_scale**j``,
   ``j = 0 .. n_steps - 1`` (``W = sum_i |w_i|``, so that the grid keeps its
   meaning as the model grows: ``lambda`` is relative to the current
   weights' scale) is scored as ``s + lambda x_f``; the pair with the
   highest training mean metric is added (ties: lower feature index, then
   the grid order ``+`` magnitudes ascending, then ``-``). Only the new
   feature's weight is trained; earlier weights are not revisited
   (Metzler's basic algorithm; he also describes retraining all weights
   after each addition, an option he found to make little difference,
   which is not implemented here).
3. stop when the best pair raises the training mean metric by less than
   ``tolerance`` (or not at all), or when ``max_features`` features are
   selected. The training metric along the path is therefore strictly
   increasing.
4. model selection: every prefix ``f_1 .. f_m`` of the greedy path is a
   model; the one with the highest validation mean metric is kept (ties:
   the shorter prefix). ``path_`` lists the whole path.

Speed: each step scores all ``(F - t) x 2 n_steps`` candidate score vectors
with :class:`~evalrank.models.coordinate_ascent.BatchMetric` (the compiled
NDCG@k kernel, exactly :meth:`RankingModel.metric`; tested), built in place
in blocks of whole features of at most ``_MAX_CELLS`` floats (32 MB); with
``n_jobs > 1`` and a single grid point the blocks of a step are shared among
threads (the kernel releases the GIL; the pick does not change), with
several grid points the grid points run in threads instead. Measured with
200 training + 200 validation queries x 120 documents x 136 features and the
defaults (``max_features=10``, ``n_steps=10``: up to 2,720 candidates x
24,000 documents per step), ``n_jobs=1``, on a shared 2-core machine (load
~2.7): 0.5 s per step, 4.8-5.1 s per fit (10 features selected); the kernel
takes ~80% of it. ``n_jobs=2`` was no faster there (no idle core).

Features: signed ``log1p`` of heavy-tailed columns and z-scoring
(:class:`evalrank.models.FeatureTransform`, option ``log1p``), fitted on the
documents of the *informative* training queries only
(:func:`evalrank.models.coordinate_ascent.informative_queries`), as for
Coordinate Ascent and AdaRank: a query that cannot move NDCG@k under the
convention (e.g. LETOR 4.0's queries shorter than ``k``) has no influence on
the model. Scores are accumulated in selection order (``s = w_1 x_{f_1};
s = s + w_i x_{f_i}``), exactly as during training, so the recorded path
values are reproduced bit for bit by :meth:`score`. Probabilities come from
a :class:`~evalrank.models.calibrate.GradeCalibrator` fitted on the
validation half.
"""

from __future__ import annotations

import numpy as np

from evalrank.models import RankingModel
from evalrank.models.coordinate_ascent import BatchMetric, check_float, check_int, check_log1p, prepare_linear

__all__ = ["AFSModel", "best_addition"]

#: Candidate score vectors are built and scored in blocks of at most this
#: many float64 cells (32 MB).
_MAX_CELLS = 1 << 22


def best_addition(batch: BatchMetric, s: np.ndarray, XT: np.ndarray, features, lambdas, *,
                  max_cells: int = _MAX_CELLS, n_threads: int = 1) -> tuple[int, float, float]:
    """One greedy AFS step: the ``(feature, lambda)`` maximizing the mean
    ``batch`` metric of ``s + lambda * XT[feature]``.

    ``XT`` is ``(n_features, n_docs)``; ``features`` the candidate feature
    indices (in the order that breaks ties), ``lambdas`` the candidate
    weights. Candidates are scored in blocks of whole features (at most
    ``max_cells`` floats, at least one feature); with ``n_threads > 1`` the
    blocks are shared among threads (the kernel releases the GIL) and the
    result does not change. Returns ``(feature, lambda, mean)``; ties go to
    the earlier feature, then the earlier lambda.
    """
    features = np.asarray(features, dtype=np.int64)
    lambdas = np.asarray(lambdas, dtype=np.float64)
    n_lam, n = lambdas.size, s.size
    per_block = max(1, int(max_cells) // max(1, n_lam * n))
    starts = list(range(0, features.size, per_block))

    def work(my_starts):
        buf = np.empty((min(per_block, features.size), n_lam, n), dtype=np.float64)
        found = []
        for start in my_starts:
            fs = features[start:start + per_block]
            S = buf[:fs.size]
            np.multiply(lambdas[None, :, None], XT[fs][:, None, :], out=S)
            S += s  # = s + lambda x, elementwise (IEEE addition commutes)
            means = BatchMetric.mean(batch(S.reshape(fs.size * n_lam, n)))
            pick = int(np.argmax(means))  # first max
            found.append((start, int(fs[pick // n_lam]), float(lambdas[pick % n_lam]), float(means[pick])))
        return found

    n_threads = max(1, min(int(n_threads), len(starts)))
    if n_threads == 1:
        found = work(starts)
    else:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=n_threads) as pool:
            parts = pool.map(work, [starts[i::n_threads] for i in range(n_threads)])
            found = sorted(row for part in parts for row in part)  # block order
    best = (-1, 0.0, -np.inf)
    for _, f, lam, value in found:
        if value > best[2]:
            best = (f, lam, value)
    return best


class AFSModel(RankingModel):
    """Automatic Feature Selection linear ranker (Metzler 2007).

    Parameters (tunable)
    --------------------
    max_features : at most this many features are selected (default 10).
    step_base, step_scale, n_steps : the weight grid of a step,
        ``+-W step_base step_scale**j``, ``j < n_steps``, ``W`` the L1 norm
        of the current weights (defaults 0.01, 2, 10: 0.01 W to 5.12 W).
    tolerance : stop when the best addition raises the training mean
        NDCG@k by less than this (default 1e-4; an addition must always
        raise it).
    log1p : feature transform (:class:`evalrank.models.FeatureTransform`).
    metric_k : the cut-off ``k`` of the optimized NDCG@k (10).
    calibration_alpha : L2 of the score-to-grade calibrator.

    After fitting: ``selected_`` (feature indices in selection order, the
    kept prefix), ``weights_`` (their weights, on the transformed
    features), ``coef_`` (the same as a dense ``(n_features,)`` vector),
    ``n_selected_`` and ``path_`` (one dict per greedy step of the kept grid
    point: ``feature``, ``weight``, training ``train`` and validation
    ``vali`` mean metric of the prefix ending there).
    """

    name = "afs"
    param_names = ("max_features", "step_base", "step_scale", "n_steps", "tolerance", "log1p", "metric_k",
                   "calibration_alpha")
    # pure numpy + the nogil kernel, no shared mutable state: grid points may
    # run in threads (results do not depend on n_jobs)
    _parallel_grid = True

    @classmethod
    def default_params(cls):
        return dict(max_features=10, step_base=0.01, step_scale=2.0, n_steps=10, tolerance=1e-4, log1p="auto",
                    metric_k=10, calibration_alpha=1.0)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._check_params(self.params)

    @staticmethod
    def _check_params(params: dict) -> None:
        check_int(params, "max_features", 1)
        check_float(params, "step_base", above=0.0)
        check_float(params, "step_scale", above=1.0)
        check_int(params, "n_steps", 1)
        check_float(params, "tolerance", at_least=0.0)
        check_log1p(params)
        check_int(params, "metric_k", 1)
        check_float(params, "calibration_alpha", at_least=0.0)

    def _prepare(self, train, vali, candidates):
        # threads: over grid points when the base class runs them concurrently, else within each step
        self._step_threads = 1 if len(candidates) > 1 else self.n_jobs
        self._cache = prepare_linear(self, train, vali, candidates, lambda tf, X, Xv, k: {
            "transform": tf, "XT": np.ascontiguousarray(X.T), "XvT": np.ascontiguousarray(Xv.T),
            "batch": BatchMetric(self, train.labels, train.offsets, k)})

    def _fit_one(self, train, vali, params):
        c = self._cache[(params["log1p"], int(params["metric_k"]))]
        XT, XvT, batch = c["XT"], c["XvT"], c["batch"]
        k = int(params["metric_k"])
        n_features = XT.shape[0]
        n_steps = int(params["n_steps"])
        mags = float(params["step_base"]) * float(params["step_scale"]) ** np.arange(n_steps, dtype=np.float64)
        grid = np.concatenate([mags, -mags])
        tol = float(params["tolerance"])
        max_features = min(int(params["max_features"]), n_features)

        def vali_mean(sv):
            return float(BatchMetric.mean(self.metric(sv, vali.labels, vali.offsets, k=k))[0])

        # step 1: the best single feature, weight 1 (lambda = 0 from empty scores)
        f, lam, current = best_addition(batch, np.zeros(XT.shape[1]), XT, np.arange(n_features), [1.0],
                                       n_threads=self._step_threads)
        s = XT[f] * lam
        sv = XvT[f] * lam
        selected, weights = [f], [lam]
        path = [{"feature": f, "weight": lam, "train": current, "vali": vali_mean(sv)}]
        remaining = np.ones(n_features, dtype=bool)
        remaining[f] = False
        while len(selected) < max_features:
            scale = float(np.abs(weights).sum())
            f, lam, value = best_addition(batch, s, XT, np.flatnonzero(remaining), grid * scale,
                                          n_threads=self._step_threads)
            gain = value - current
            if not gain > 0 or gain < tol:
                break
            s = s + lam * XT[f]
            sv = sv + lam * XvT[f]
            current = value
            selected.append(f)
            weights.append(lam)
            remaining[f] = False
            path.append({"feature": f, "weight": lam, "train": current, "vali": vali_mean(sv)})
        m = 1 + int(np.argmax([row["vali"] for row in path]))  # first max: the shorter prefix
        return {"transform": c["transform"], "features": np.array(selected[:m], dtype=np.int64),
                "weights": np.array(weights[:m], dtype=np.float64), "path": path, "n_features": n_features}

    def _tuning_extra(self, state):
        m = state["features"].size
        return {"n_selected": m, "path_length": len(state["path"]), "train_ndcg": state["path"][m - 1]["train"]}

    def _predict_state(self, state, X, want_proba):
        Z = state["transform"].transform(X)
        feats, weights = state["features"], state["weights"]
        scores = Z[:, feats[0]] * weights[0]
        for f, w in zip(feats[1:], weights[1:]):  # selection order, as in training (<= max_features columns)
            scores = scores + w * Z[:, f]
        proba = self.calibrator_.predict_proba(scores) if want_proba else None
        return scores, proba

    def _finalize(self, train, vali):
        self.path_ = [dict(row) for row in self.state_["path"]]
        self.n_selected_ = int(self.state_["features"].size)
        self._fit_calibrator(vali)

    def _cleanup(self):
        self._cache = {}

    @property
    def selected_(self) -> np.ndarray:
        self._check_fitted()
        return self.state_["features"].copy()

    @property
    def weights_(self) -> np.ndarray:
        self._check_fitted()
        return self.state_["weights"].copy()

    @property
    def coef_(self) -> np.ndarray:
        self._check_fitted()
        coef = np.zeros(self.state_["n_features"], dtype=np.float64)
        coef[self.state_["features"]] = self.state_["weights"]
        return coef
