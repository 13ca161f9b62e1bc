"""RankBoost (Freund, Iyer, Schapire & Singer, JMLR 2003) with decision stumps.

Busa-Fekete et al. (2012), Sec. 4 item 3: "a pairwise boosting approach ...
In each boosting iteration the weak classifier is chosen by maximizing the
weighted rank loss. For the weak learner we used decision stumps".

Algorithm (Freund et al. 2003, Sec. 3, Fig. 1). The crucial pairs are
``(x0, x1)`` of the same query with ``y(x1) > y(x0)`` (``x1`` should be
ranked above ``x0``); up to ``max_pairs`` of them are drawn uniformly
without replacement (stream ``seeds.rng(seed, "models", "rankboost",
"pairs")``). ``D_1`` is uniform over them. Round ``t``:

1. weak ranker ``h_t(x) = 1[x_f > theta]`` (a decision stump, Freund et
   al.'s weak learner of Sec. 4 without missing values) maximizing
   ``|r_t|``,
   ``r = sum_{(x0, x1)} D_t(x0, x1) (h(x1) - h(x0))`` (Sec. 3.2: the bound
   ``Z_t <= sqrt(1 - r_t^2)`` on the normalizer is smallest there);
2. ``alpha_t = 1/2 ln((1 + r_t) / (1 - r_t))`` (Sec. 3.2);
3. ``D_{t+1}(x0, x1) = D_t(x0, x1) exp(alpha_t (h_t(x0) - h_t(x1))) / Z_t``.

The final ranking is ``H(x) = sum_t alpha_t h_t(x)``.

Weak learner for all stumps at once (Freund et al. Sec. 4, the
"potential"): with ``pi(x) = sum_{x0} D(x0, x) - sum_{x1} D(x, x1)`` (mass
of pairs where ``x`` is preferred minus mass where it is not),
``r(f, theta) = sum_x h(x) pi(x) = sum_{x: x_f > theta} pi(x)``. The
features are binned once: feature ``f`` gets up to ``n_thresholds``
thresholds, the distinct training values (all but the largest) when there
are few, else quantiles of the training column (observed values, as
RankLib's threshold candidates); ``bin(x, f)`` = number of thresholds below
``x_f``, so ``x_f > theta_k  <=>  bin(x, f) > k``. Each round is then one
``bincount`` of ``D`` over pairs (``pi``), one sparse mat-vec summing
``pi`` per ``(feature, bin)`` cell and a reverse cumulative sum per
feature -- ``O(n_pairs + n_docs * n_features)``, no loop over pairs or
thresholds.
Ties in ``|r|`` go to the lowest (feature, threshold).

Number of rounds: early stopping on the validation mean
:meth:`~evalrank.models.RankingModel.metric` (NDCG@10 under the model's
``convention``, Busa-Fekete et al. Sec. 5), evaluated after every round
(``vali_curve_``); boosting stops after ``patience`` rounds without a
strict improvement, or when no stump has ``|r| > 1e-12``, and the first
``best_rounds_`` stumps (the best round, first on ties) are kept. A stump
with ``|r| = 1`` (it orders every remaining pair) would get an infinite
``alpha``; ``r`` is clipped to ``+-(1 - 1e-12)`` and boosting stops after it.

Probabilities come from a :class:`~evalrank.models.calibrate.GradeCalibrator`
fitted on the validation half.
"""

from __future__ import annotations

import numpy as np

from evalrank import seeds
from evalrank.models import RankingModel
from evalrank.models.pairs import check_float, check_int, training_pairs

__all__ = ["RankBoostModel", "stump_thresholds", "cell_matrix", "potential", "stump_r", "boost_alpha"]

_R_MIN = 1e-12
_R_CLIP = 1.0 - 1e-12


def stump_thresholds(features: np.ndarray, n_thresholds: int):
    """Per-feature thresholds and bins.

    Returns ``thresholds`` float64 ``(F, T)`` (padded with +inf),
    ``n_valid`` int ``(F,)`` (thresholds per feature) and ``bins`` int32
    ``(F, n)`` with ``bins[f, d] = #{k: thresholds[f, k] < features[d, f]}``.
    """
    X = np.asarray(features)
    n, F = X.shape
    levels = np.arange(1, n_thresholds + 1) / (n_thresholds + 1)
    per_feature = []
    for f in range(F):  # one loop per feature at preparation time
        col = X[:, f]
        values = np.unique(col)
        if values.size - 1 <= n_thresholds:
            thr = values[:-1]
        else:
            thr = np.unique(np.quantile(col, levels, method="inverted_cdf"))
            thr = thr[thr < values[-1]]
        per_feature.append(thr.astype(np.float64))
    T = max(1, max(t.size for t in per_feature))
    thresholds = np.full((F, T), np.inf)
    n_valid = np.zeros(F, dtype=np.int64)
    bins = np.empty((F, n), dtype=np.int32)
    for f, thr in enumerate(per_feature):
        thresholds[f, :thr.size] = thr
        n_valid[f] = thr.size
        bins[f] = np.searchsorted(thr, X[:, f].astype(np.float64), side="left")
    return thresholds, n_valid, bins


def potential(D: np.ndarray, hi: np.ndarray, lo: np.ndarray, n_docs: int) -> np.ndarray:
    """``pi(x) = sum_{pairs with x preferred} D - sum_{pairs with x not preferred} D``."""
    return np.bincount(hi, weights=D, minlength=n_docs) - np.bincount(lo, weights=D, minlength=n_docs)


def cell_matrix(bins: np.ndarray, n_bins: int):
    """Sparse ``(F * n_bins, n_docs)`` 0/1 matrix: row ``f * n_bins + b``
    holds the documents with ``bins[f, d] == b`` (in document order)."""
    import scipy.sparse as sp

    F, n = bins.shape
    cells = (bins.astype(np.int64) + (np.arange(F, dtype=np.int64) * n_bins)[:, None]).ravel()
    order = np.argsort(cells, kind="stable")
    indptr = np.concatenate([[0], np.cumsum(np.bincount(cells, minlength=F * n_bins))])
    docs = np.tile(np.arange(n, dtype=np.int64), F)[order]
    index_dtype = np.int32 if max(n, cells.size) < 2**31 else np.int64
    return sp.csr_matrix((np.ones(cells.size), docs.astype(index_dtype), indptr.astype(index_dtype)),
                         shape=(F * n_bins, n))


def stump_r(pi: np.ndarray, cells, n_features: int, n_bins: int) -> np.ndarray:
    """``r[f, k] = sum_{x: bin(x, f) > k} pi(x)`` for every feature and
    threshold, float64 ``(F, n_bins - 1)``.

    ``cells`` is :func:`cell_matrix`; ``cells @ pi`` is the histogram of
    ``pi`` over (feature, bin) cells (a sequential sparse mat-vec, summing
    each cell in document order), then a reverse cumulative sum per feature.
    Padding thresholds (``k >= n_valid[f]``) get ``r = 0`` exactly (no
    document has a bin above ``n_valid[f]``), so they are never chosen.
    """
    hist = (cells @ pi).reshape(n_features, n_bins)
    return np.cumsum(hist[:, :0:-1], axis=1)[:, ::-1]  # [:, k] = sum_{b > k} hist[:, b]


def boost_alpha(r: float) -> float:
    """``alpha = 1/2 ln((1 + r) / (1 - r))`` with ``|r|`` clipped below 1."""
    r = float(np.clip(r, -_R_CLIP, _R_CLIP))
    return 0.5 * np.log((1.0 + r) / (1.0 - r))


class RankBoostModel(RankingModel):
    """RankBoost with decision stumps (Busa-Fekete et al. 2012, Sec. 4 item 3).

    Parameters (tunable): ``max_rounds`` (upper limit), ``patience`` (early
    stopping on the validation mean NDCG@10 under ``convention``),
    ``n_thresholds`` (threshold candidates per feature), ``max_pairs``
    (crucial pairs sampled from the training half), ``calibration_alpha``.

    After fitting: ``best_rounds_`` (stumps kept), ``n_rounds_`` (rounds
    run), ``vali_curve_`` (validation mean NDCG@10 after each round),
    ``stumps_`` (``features``, ``thresholds``, ``alphas`` of the kept
    stumps), ``n_pairs_``, ``calibrator_``.
    """

    name = "rankboost"
    param_names = ("max_rounds", "patience", "n_thresholds", "max_pairs", "calibration_alpha")
    # pure NumPy on read-only caches
    _parallel_grid = True

    @classmethod
    def default_params(cls):
        return dict(max_rounds=1000, patience=100, n_thresholds=255, max_pairs=200_000, calibration_alpha=1.0)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._check_params(self.params)

    @staticmethod
    def _check_params(params) -> None:
        check_int(params, "max_rounds", 1)
        check_int(params, "patience", 1)
        check_int(params, "n_thresholds", 1, 65_535)
        check_int(params, "max_pairs", 1)
        check_float(params, "calibration_alpha", 0.0)

    def _prepare(self, train, vali, candidates):
        for params in candidates:
            self._check_params(params)
        labels = train.labels.astype(np.int64)
        self._pairs, self._bins = {}, {}
        for mp in dict.fromkeys(int(p["max_pairs"]) for p in candidates):
            self._pairs[mp] = training_pairs(labels, train.offsets, mp,
                                             seeds.rng(self.seed, "models", self.name, "pairs"), self.n_grades)
        for nt in dict.fromkeys(int(p["n_thresholds"]) for p in candidates):
            thresholds, n_valid, bins = stump_thresholds(train.features, nt)
            n_bins = thresholds.shape[1] + 1
            cells = cell_matrix(bins, n_bins)
            self._bins[nt] = (thresholds, bins, cells, n_bins)

    def _vali_value(self, scores, vali) -> float:
        values = self.metric(scores, vali.labels, vali.offsets)
        return float(np.nanmean(values)) if not np.isnan(values).all() else -np.inf

    def _fit_one(self, train, vali, params):
        hi, lo = self._pairs[int(params["max_pairs"])]
        thresholds, bins, cells, n_bins = self._bins[int(params["n_thresholds"])]
        F, n = bins.shape
        D = np.full(hi.size, 1.0 / hi.size)
        vscores = np.zeros(vali.n_docs)
        feats, thetas, alphas, curve = [], [], [], []
        best_value, best_rounds = -np.inf, 0
        for t in range(1, int(params["max_rounds"]) + 1):
            r = stump_r(potential(D, hi, lo, n), cells, F, n_bins)
            k = int(np.argmax(np.abs(r)))
            f, j = divmod(k, r.shape[1])
            r_best = float(r[f, j])
            if abs(r_best) <= _R_MIN:
                break
            alpha = boost_alpha(r_best)
            theta = float(thresholds[f, j])
            feats.append(f)
            thetas.append(theta)
            alphas.append(alpha)
            vscores += alpha * (vali.features[:, f] > theta)  # same order as _predict_state
            value = self._vali_value(vscores, vali)
            curve.append(value)
            if value > best_value or best_rounds == 0:
                best_value, best_rounds = value, t
            elif t - best_rounds >= int(params["patience"]):
                break
            if abs(r_best) >= _R_CLIP:
                break
            h = bins[f] > j
            # D(x0, x1) *= exp(alpha (h(x0) - h(x1))), x0 = lo, x1 = hi
            D = D * np.exp(alpha * (h[lo].astype(np.float64) - h[hi]))
            D /= D.sum()
        if best_rounds == 0:
            raise ValueError("RankBoost found no stump that orders any training pair (all |r| = 0)")
        return {"features": np.asarray(feats[:best_rounds], dtype=np.int64),
                "thresholds": np.asarray(thetas[:best_rounds], dtype=np.float64),
                "alphas": np.asarray(alphas[:best_rounds], dtype=np.float64),
                "best_rounds": best_rounds, "n_rounds": len(curve), "n_pairs": int(hi.size),
                "vali_curve": np.asarray(curve, dtype=np.float64)}

    def _tuning_extra(self, state):
        return {"best_rounds": state["best_rounds"], "n_rounds": state["n_rounds"]}

    @staticmethod
    def _score(state, X):
        """``H(x) = sum_t alpha_t 1[x_{f_t} > theta_t]``, summed in round order."""
        scores = np.zeros(X.shape[0])
        for f, theta, alpha in zip(state["features"].tolist(), state["thresholds"].tolist(),
                                   state["alphas"].tolist()):
            scores += alpha * (X[:, f] > theta)
        return scores

    def _predict_state(self, state, X, want_proba):
        scores = self._score(state, X)
        proba = self.calibrator_.predict_proba(scores) if want_proba else None
        return scores, proba

    def _finalize(self, train, vali):
        s = self.state_
        self.best_rounds_ = s["best_rounds"]
        self.n_rounds_ = s["n_rounds"]
        self.vali_curve_ = s["vali_curve"]
        self.n_pairs_ = s["n_pairs"]
        self.stumps_ = {k: s[k] for k in ("features", "thresholds", "alphas")}
        self._fit_calibrator(vali)

    def _cleanup(self):
        self._pairs, self._bins = {}, {}
