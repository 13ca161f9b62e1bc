"""Ranking models with graded-relevance probabilities (Sawade et al. 2012, Sec. 4-5).

Active evaluation (Sawade et al. 2012, Sec. 4, Derivation 1) needs, besides
the ranking function ``r`` itself, a model ``p(y | x, z; theta)`` of graded
relevance for every query-document pair of the pool. Every model in this
package therefore offers both:

``fit(train, vali, *, grid, seed, n_jobs=1)``
    Tune hyperparameters on a small grid by the validation mean NDCG@10
    (Sawade Sec. 5.1: half of the training fold trains, the other half is the
    validation set that tunes hyperparameters) and keep the best model (it is
    *not* refitted on train + validation: the validation half stays unseen by
    the model so that score calibrators can be fitted on it).
``score(features)``
    float64 ranking scores, higher = more relevant.
``predict_proba(features)``
    float64 ``(n, n_grades)`` grade probabilities; rows are >= 0 and sum to 1,
    and there is always one column per grade 0..n_grades-1, also for grades
    that never occurred in training (those get probability 0 unless the
    model smooths).

The learners live in one module each (imported lazily, so
``import evalrank.models`` stays cheap); probabilities come from

* ``rf`` (:mod:`evalrank.models.forest`): leaf label histograms;
* ``ordinal_rf`` (:mod:`evalrank.models.ordinal_forest`): cumulative classifiers;
* ``ordered_logit`` (:mod:`evalrank.models.ordered_logit`): the ordered logit;
* ``ranksvm`` (:mod:`evalrank.models.ranksvm`) and ``lambdamart``
  (:mod:`evalrank.models.lambdamart`): a score calibrator
  (:mod:`evalrank.models.calibrate`) fitted on the validation half.

Use :func:`evalrank.models.zoo.make_model` to build one by name.

Determinism: every random stream comes from :mod:`evalrank.seeds`; every
reduction over trees runs in a fixed order; BLAS is pinned to one thread
during ``fit`` and prediction (a BLAS reduction split over threads may sum in
a thread-count-dependent order); grid points run concurrently only where the
learner is thread-safe (the ordered logit). Scores and probabilities are
therefore bit-identical for any ``n_jobs`` (tested in
``tests/models/test_models.py``).
"""

from __future__ import annotations

import contextlib
import itertools
import time
from typing import Any, Iterable

import numpy as np

from evalrank.data.collection import Collection
from evalrank.models._omp import passive_wait

# OpenMP's passive wait policy before any LightGBM can load (models/_omp.py): the zoo imports its
# learners lazily, so the package sets it, whatever learner a process later asks for
passive_wait()

__all__ = [
    "N_GRADES",
    "RankingModel",
    "FeatureTransform",
    "expand_grid",
    "searched_keys",
    "check_features",
    "check_collection",
    "check_seed",
    "check_n_jobs",
    "single_threaded_blas",
]

#: Number of relevance grades of MSLR-WEB30K (0 = irrelevant .. 4 = perfect).
N_GRADES = 5
#: Rows per block when scoring large pools (bounds memory of ``apply`` etc.).
CHUNK_ROWS = 65_536


# ---------------------------------------------------------------------------
# argument checks (public edge)
# ---------------------------------------------------------------------------
def check_collection(c, name: str) -> Collection:
    if not isinstance(c, Collection):
        raise TypeError(f"{name} must be an evalrank Collection, got {type(c).__name__}")
    if c.n_docs == 0:
        raise ValueError(f"{name} must contain at least one document")
    return c


def check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return int(seed)


def check_n_jobs(n_jobs) -> int:
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs < 1:
        raise ValueError(f"n_jobs must be a positive integer, got {n_jobs!r}")
    return int(n_jobs)


def check_labels(labels, n_grades: int, name: str = "labels") -> np.ndarray:
    labels = np.asarray(labels)
    if labels.ndim != 1:
        raise ValueError(f"{name} must be 1-d, got shape {labels.shape}")
    if not np.issubdtype(labels.dtype, np.integer):
        raise TypeError(f"{name} must be integer grades, got dtype {labels.dtype}")
    if labels.size and (labels.min() < 0 or labels.max() >= n_grades):
        raise ValueError(
            f"{name} must lie in 0..{n_grades - 1}, found {labels.min()}..{labels.max()}"
        )
    return labels.astype(np.int64, copy=False)


def check_features(features, n_features: int | None = None, name: str = "features") -> np.ndarray:
    """2-d, numeric, finite, with ``n_features`` columns if given."""
    features = np.asarray(features)
    if features.ndim != 2:
        raise ValueError(f"{name} must be 2-d (n_docs, n_features), got shape {features.shape}")
    if not (np.issubdtype(features.dtype, np.floating) or np.issubdtype(features.dtype, np.integer)):
        raise TypeError(f"{name} must be numeric, got dtype {features.dtype}")
    if n_features is not None and features.shape[1] != n_features:
        raise ValueError(f"{name} must have {n_features} columns (as in training), got {features.shape[1]}")
    if np.issubdtype(features.dtype, np.floating) and not np.isfinite(features).all():
        raise ValueError(f"{name} contain NaN or infinite values")
    return features


def expand_grid(grid, allowed: Iterable[str]) -> list[dict[str, Any]]:
    """All combinations of a ``{name: [values]}`` grid, in a fixed order.

    Keys are sorted; values keep the given order, the last key varies fastest.
    ``None`` or ``{}`` gives one empty combination (no tuning).
    """
    if grid is None:
        return [{}]
    if not isinstance(grid, dict):
        raise TypeError(f"grid must be a dict mapping parameter names to lists, got {type(grid).__name__}")
    allowed = set(allowed)
    keys = sorted(grid)
    for key in keys:
        if key not in allowed:
            raise ValueError(f"grid key {key!r} is not a parameter of this model; allowed: {sorted(allowed)}")
        values = grid[key]
        if isinstance(values, (str, bytes)) or not isinstance(values, (list, tuple)) or len(values) == 0:
            raise ValueError(f"grid[{key!r}] must be a non-empty list of values, got {values!r}")
    return [dict(zip(keys, combo)) for combo in itertools.product(*(list(grid[k]) for k in keys))]


def searched_keys(grid) -> list[str]:
    """The keys a ``{name: [values]}`` grid searches: those with several values (a one-value key
    is a fixed setting)."""
    return [key for key, values in (grid or {}).items() if len(values) > 1]


@contextlib.contextmanager
def single_threaded_blas():
    """Pin BLAS to one thread: a BLAS reduction split over threads can sum in
    a thread-count-dependent order, which would break bit-identical results
    across ``n_jobs`` and machines. Only enter this from the main thread."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        yield


def chunks(n: int, size: int = CHUNK_ROWS):
    for start in range(0, n, size):
        yield slice(start, min(start + size, n))


def normalize_rows(p: np.ndarray) -> np.ndarray:
    """Clip to >= 0 and rescale rows to sum 1 (in place, returns ``p``)."""
    np.maximum(p, 0.0, out=p)
    p /= p.sum(axis=1, keepdims=True)
    return p


# ---------------------------------------------------------------------------
# feature transform shared by the linear models
# ---------------------------------------------------------------------------
class FeatureTransform:
    """Optional signed log1p of heavy-tailed columns, then z-scoring.

    ``log1p="auto"``: a column is log-transformed when it is non-negative on
    the training data and its sample skewness exceeds ``skew_threshold``
    (MSLR's raw counts, stream lengths, PageRank, click counts). The transform
    applied is ``sign(x) * log1p(|x|)``, which equals ``log1p(x)`` on the
    training range and stays finite for any pool value. ``log1p="none"``
    only z-scores; ``log1p="all"`` log-transforms every non-negative column.
    Constant columns get scale 1 (they become 0).
    """

    def __init__(self, log1p: str = "auto", skew_threshold: float = 2.0):
        if log1p not in ("auto", "none", "all"):
            raise ValueError(f"log1p must be 'auto', 'none' or 'all', got {log1p!r}")
        self.log1p = log1p
        self.skew_threshold = float(skew_threshold)

    def fit(self, features: np.ndarray) -> "FeatureTransform":
        x = np.asarray(features, dtype=np.float64)
        nonneg = x.min(axis=0) >= 0
        if self.log1p == "none":
            logcols = np.zeros(x.shape[1], dtype=bool)
        elif self.log1p == "all":
            logcols = nonneg
        else:
            mu = x.mean(axis=0)
            d = x - mu
            sd = np.sqrt((d**2).mean(axis=0))
            with np.errstate(invalid="ignore", divide="ignore"):
                skew = np.where(sd > 0, (d**3).mean(axis=0) / np.where(sd > 0, sd, 1.0) ** 3, 0.0)
            logcols = nonneg & (skew > self.skew_threshold)
        self.log_columns_ = logcols
        z = self._log(x)
        self.mean_ = z.mean(axis=0)
        sd = z.std(axis=0)
        self.scale_ = np.where(sd > 0, sd, 1.0)
        return self

    def _log(self, x: np.ndarray) -> np.ndarray:
        if self.log_columns_.any():
            x = x.copy()
            cols = x[:, self.log_columns_]
            x[:, self.log_columns_] = np.sign(cols) * np.log1p(np.abs(cols))
        return x

    def transform(self, features: np.ndarray) -> np.ndarray:
        x = self._log(np.asarray(features, dtype=np.float64))
        return (x - self.mean_) / self.scale_


# ---------------------------------------------------------------------------
# the common model interface
# ---------------------------------------------------------------------------
class _NoCalibrator:
    """``calibrator_`` of a model fitted with ``calibrate=False``: no grade probabilities."""

    def __init__(self, model: str):
        self.model = model

    def predict_proba(self, scores):
        raise RuntimeError(f"{self.model} was fitted with calibrate=False: it has scores but no grade "
                           "probabilities; fit it with calibrate=True")


class RankingModel:
    """Base class: grid search by validation NDCG@10, chunked prediction.

    ``convention`` (a preset of :mod:`evalrank.metrics.conventions`, default
    None = exp gain, empty 0, pad) is the NDCG convention of every training
    and model-selection step: :meth:`metric`.

    Subclasses set ``name``, ``param_names`` (tunable constructor arguments)
    and implement ``_prepare(train, vali, candidates)`` (optional), ``_fit_one(params) -> state``,
    ``_predict_state(state, X, want_proba) -> (scores, proba or None)`` and
    ``_finalize`` (optional, e.g. fit a calibrator on the validation set).

    After ``fit``: ``best_params_`` (the winning grid point), ``tuning_``
    (one dict per grid point: its parameters and ``vali_ndcg10``, in grid
    order), ``n_grades``, ``n_features_in_``, ``fit_seconds_``. Ties in
    validation NDCG@10 go to the earlier grid point.
    """

    name: str = "model"
    param_names: tuple[str, ...] = ()
    #: grid points may be fitted concurrently in threads (linear models).
    _parallel_grid: bool = False
    #: the most threads ``fit`` and ``predict`` keep busy, whatever ``n_jobs`` (None: ``n_jobs``);
    #: a pipeline job declares no more to its scheduler (workflow ``model_threads``)
    threads_used: int | None = None

    def __init__(self, *, n_grades: int = N_GRADES, convention: str | None = None, **params):
        if isinstance(n_grades, bool) or not isinstance(n_grades, (int, np.integer)) or n_grades < 2:
            raise ValueError(f"n_grades must be an integer >= 2, got {n_grades!r}")
        self.n_grades = int(n_grades)
        from evalrank.metrics.conventions import resolve

        resolve(convention)  # validates the name
        self.convention = convention
        unknown = set(params) - set(self.param_names)
        if unknown:
            raise TypeError(f"{type(self).__name__} got unknown parameter(s) {sorted(unknown)}; "
                            f"allowed: {list(self.param_names)}")
        self.params = dict(self.default_params())
        self.params.update(params)
        self.n_jobs = 1

    @classmethod
    def default_params(cls) -> dict[str, Any]:
        return {}

    def __repr__(self) -> str:
        fitted = "fitted" if hasattr(self, "best_params_") else "unfitted"
        return f"{type(self).__name__}({fitted}, params={self.params})"

    # -- fitting -------------------------------------------------------------
    def fit(self, train: Collection, vali: Collection, *, grid: dict | None, seed: int, n_jobs: int = 1,
            calibrate: bool = True):
        """Tune on ``grid`` by validation mean NDCG@10 and keep the best model.

        Parameters
        ----------
        train, vali : the two halves of the training partition (Sawade Sec. 5.1,
            see :func:`evalrank.models.split.split_training_part`).
        grid : ``{parameter: [values]}``; parameters not in the grid keep the
            constructor values. ``{}``/``None`` = no tuning.
        seed : config seed; the model's random streams are derived from it.
        n_jobs : threads; results are bit-identical for every value.
        calibrate : fit the score-only learners' grade calibrator (their probabilities); False
            when only scores are wanted (the NDCG-conventions study): ``predict_proba`` then
            raises. Scores, tuning and the chosen model are the same either way.
        """
        if not isinstance(calibrate, bool):
            raise TypeError(f"calibrate must be True or False, got {calibrate!r}")
        check_collection(train, "train")
        check_collection(vali, "vali")
        if train.n_features != vali.n_features:
            raise ValueError(f"train has {train.n_features} features but vali has {vali.n_features}")
        check_features(train.features, name="train.features")
        check_features(vali.features, name="vali.features")
        check_labels(train.labels, self.n_grades, "train.labels")
        check_labels(vali.labels, self.n_grades, "vali.labels")
        self.seed = check_seed(seed)
        self.n_jobs = check_n_jobs(n_jobs)
        self._calibrate = calibrate
        candidates = [dict(self.params, **g) for g in expand_grid(grid, self.param_names)]
        self.n_features_in_ = train.n_features

        t0 = time.perf_counter()
        with single_threaded_blas():
            self._fit_grid(train, vali, candidates)
        self.fit_seconds_ = time.perf_counter() - t0
        return self

    def _fit_grid(self, train, vali, candidates):
        from evalrank.progress import progress

        if len(candidates) > 1:  # nothing to choose between: fit the one point as it is
            candidates = [self._search_params(c) for c in candidates]
        self._prepare(train, vali, candidates)

        def evaluate(params):
            state = self._fit_one(train, vali, params)
            scores, _ = self._predict_chunked(state, vali.features, False)
            value = float(np.nanmean(self.metric(scores, vali.labels, vali.offsets)))
            return state, value

        desc = f"{self.name}: grid"
        if self._parallel_grid and self.n_jobs > 1 and len(candidates) > 1:
            from joblib import Parallel, delayed

            runner = Parallel(n_jobs=self.n_jobs, backend="threading", return_as="generator")
            results = runner(delayed(evaluate)(p) for p in candidates)
        else:
            results = (evaluate(p) for p in candidates)

        self.tuning_ = []
        best_state, best_value, best_params = None, -np.inf, None
        for params, (state, value) in zip(candidates, progress(results, total=len(candidates), desc=desc)):
            row = {k: params[k] for k in sorted(params) if not k.startswith("_")}
            row.update(self._tuning_extra(state))
            row["vali_ndcg10"] = value
            self.tuning_.append(row)
            if value > best_value:
                best_state, best_value, best_params = state, value, params
        final = self._final_params(best_params)
        if final != best_params:
            # the grid was searched with a cheaper setting (e.g. fewer trees): refit the winner
            best_state, best_value = evaluate(final)
            best_params = final
            row = {k: final[k] for k in sorted(final)}
            row.update(self._tuning_extra(best_state))
            row["vali_ndcg10"] = best_value
            row["refit"] = True
            self.tuning_.append(row)
        self.best_params_ = dict(best_params)
        self.best_vali_ndcg10_ = best_value
        self.state_ = best_state
        self._finalize(train, vali)
        self._cleanup()

    def metric(self, scores, labels, offsets, k: int = 10) -> np.ndarray:
        """Per-query NDCG@k under the model's training ``convention``: the
        measure that model selection, early stopping and the listwise
        learners optimize (Busa-Fekete et al. 2012, Sec. 5). The mean over
        queries is a nan-mean, so ``empty="skip"``-style conventions leave
        empty queries out."""
        from evalrank.metrics import ndcg
        from evalrank.metrics.conventions import resolve

        doc_ids = None
        if resolve(self.convention)["ties"] == "docid":  # trec_eval's rule; ids = row within the query
            from evalrank.metrics.ranking import position_ids

            doc_ids = position_ids(np.asarray(offsets, dtype=np.int64))
        return ndcg(scores, labels, offsets, k, convention=self.convention, doc_ids=doc_ids)

    # hooks ------------------------------------------------------------------
    def _prepare(self, train: Collection, vali: Collection, candidates: list[dict]) -> None:
        pass

    def _search_params(self, params: dict) -> dict:
        """The parameters a grid point is searched with (default: as given)."""
        return params

    def _final_params(self, params: dict) -> dict:
        """The parameters the model keeps, from the winning grid point (default: as searched)."""
        return params

    def _fit_one(self, train: Collection, vali: Collection, params: dict):  # pragma: no cover
        raise NotImplementedError

    def _predict_state(self, state, X: np.ndarray, want_proba: bool):  # pragma: no cover
        raise NotImplementedError

    def _tuning_extra(self, state) -> dict:
        return {}

    def _finalize(self, train: Collection, vali: Collection) -> None:
        pass

    def _cleanup(self) -> None:
        """Drop training-time caches before the model is stored."""

    def _fit_calibrator(self, vali: Collection) -> None:
        """``calibrator_``: a :class:`~evalrank.models.calibrate.GradeCalibrator`
        (strength ``calibration_alpha``) from the fitted model's validation
        scores to grades -- the probabilities of the score-only learners. Not with
        ``fit(calibrate=False)``: then a stand-in that refuses ``predict_proba``."""
        if not getattr(self, "_calibrate", True):
            self.calibrator_ = _NoCalibrator(type(self).__name__)
            return
        from evalrank.models.calibrate import GradeCalibrator

        self.calibrator_ = GradeCalibrator(alpha=self.best_params_["calibration_alpha"], n_grades=self.n_grades)
        scores, _ = self._predict_chunked(self.state_, vali.features, False)
        self.calibrator_.fit(scores, vali.labels)

    # -- prediction ----------------------------------------------------------
    def _check_fitted(self):
        if not hasattr(self, "state_"):
            raise RuntimeError(f"{type(self).__name__} is not fitted; call fit() first")

    def _predict(self, features, want_proba: bool):
        self._check_fitted()
        X = check_features(features, self.n_features_in_)
        with single_threaded_blas():
            return self._predict_chunked(self.state_, X, want_proba)

    def _predict_chunked(self, state, X: np.ndarray, want_proba: bool):
        n = X.shape[0]
        scores = np.empty(n, dtype=np.float64)
        proba = np.empty((n, self.n_grades), dtype=np.float64) if want_proba else None
        for sl in chunks(n):
            s, p = self._predict_state(state, X[sl], want_proba)
            scores[sl] = s
            if want_proba:
                proba[sl] = p
        return scores, proba

    def score(self, features) -> np.ndarray:
        """Ranking scores, float64 ``(n,)``; higher = more relevant."""
        return self._predict(features, False)[0]

    def predict_proba(self, features) -> np.ndarray:
        """Grade probabilities ``p(y | x, z; theta)`` (Sawade Sec. 4), float64
        ``(n, n_grades)``, rows >= 0 summing to 1."""
        return self._predict(features, True)[1]

    def score_and_proba(self, features) -> tuple[np.ndarray, np.ndarray]:
        """Both in one pass (cheaper for the forests)."""
        return self._predict(features, True)

    def expected_grade(self, features) -> np.ndarray:
        return expected_grade(self.predict_proba(features))


def expected_grade(proba: np.ndarray) -> np.ndarray:
    """``sum_k k p_k`` per row (a fixed-order numpy reduction, no BLAS)."""
    proba = np.asarray(proba, dtype=np.float64)
    return (proba * np.arange(proba.shape[1], dtype=np.float64)).sum(axis=1)
