"""ListNet (Cao et al., ICML 2007): a linear listwise ranker.

Cao, Qin, Liu, Tsai and Li (2007), "Learning to rank: from pairwise approach
to listwise approach". Wang et al. (2013), Sec. 4, compare RankSVM, ListNet
and a random scorer under NDCG-type measures; this module supplies the
ListNet of that comparison (RankSVM is :mod:`evalrank.models.ranksvm`, the
random scorer :func:`evalrank.models.quality.random_baseline`).

Model. A linear score ``f(x) = w . x`` (no bias: a constant does not change
a ranking and gets no listwise gradient) on features transformed by
:class:`evalrank.models.FeatureTransform` (signed log1p of heavy-tailed
columns, then z-scores of the training half), as for RankNet. Cao et al.
use a linear neural net too (Sec. 5: "we use a linear Neural Network
model").

Top-one probability (Cao et al. 2007, Sec. 4.3, Definition 6 and
Theorem 6): for the scores ``s`` of one query's ``n`` documents,
``P_s(j) = phi(s_j) / sum_k phi(s_k)``; with ``phi = exp`` (Sec. 5) this is
the softmax of the scores within the query. The target distribution is the
top-one probability of the labels with the same exponential, i.e.
``P_y = softmax(y)`` within the query (here ``phi(y) = y`` is the identity
before the exponential; the grades are used as they are).

Loss (Cao et al. 2007, Sec. 4.4, the cross entropy of the top-one
probabilities; Sec. 5 for ``phi = exp``), per query ``q``::

    L_q(w) = - sum_{i in q} P_y(i) log P_s(i),     s = X_q w,

and the training objective of a set ``Q`` of queries is the mean over
queries plus an L2 penalty::

    L(w) = 1/|Q| sum_q L_q(w)  +  l2/2 * |w|^2.

Gradient (Cao et al. 2007, Sec. 5, the gradient ``Delta w`` of the
ListNet algorithm): ``dL_q/ds_i = P_s(i) - P_y(i)``, hence
``dL/dw = X^T (P_s - P_y) / |Q| + l2 w``. :func:`listnet_loss_and_grad`
computes both without a Python loop over queries: the documents are flat
arrays cut by query ``offsets``; the segment softmax subtracts each query's
maximum (``np.maximum.reduceat``) and sums with ``np.bincount`` on segment
ids. A query of one document has ``P_s = P_y = 1``: loss and gradient 0.
It is checked against finite differences and a per-query loop in
``tests/models/test_listnet.py``.

Optimization: Adam (Kingma & Ba 2015; Cao et al. use plain gradient
descent) on mini-batches of ``batch_queries`` whole queries. Each epoch
shuffles the training queries with the stream ``seeds.rng(seed, "models",
"listnet", "epoch", e)``; the weights start at zero (the objective is
convex in ``w``, so no random initialization is needed).

Early stopping and model selection, as for RankNet
(:mod:`evalrank.models.ranknet`): after every epoch the validation mean
:meth:`~evalrank.models.RankingModel.metric` (NDCG@10 under
``convention``, a nan-mean over queries) is recorded in ``vali_curve_``;
training stops after ``patience`` epochs without a strict improvement and
the weights of the best epoch (the first one on ties) are kept.

Probabilities come from a :class:`~evalrank.models.calibrate.GradeCalibrator`
fitted on the validation half, as for RankSVM and RankNet.
"""

from __future__ import annotations

import numpy as np

from evalrank import seeds
from evalrank.data.collection import check_offsets, query_rows, segment_ids
from evalrank.models.pairs import check_choice, check_float, check_int
from evalrank.models.ranknet import EpochTrainedModel, adam_step

__all__ = ["ListNetModel", "listnet_loss_and_grad", "segment_log_softmax"]


# ---------------------------------------------------------------------------
# the loss: segment softmax over flat arrays cut by query offsets
# ---------------------------------------------------------------------------
def segment_log_softmax(z: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """``log softmax`` of ``z`` within each query ``offsets[q]:offsets[q+1]``
    (stable: each query's maximum is subtracted first). Empty queries are
    allowed (they hold no element)."""
    z = np.asarray(z, dtype=np.float64)
    offsets = np.asarray(offsets, dtype=np.int64)
    sizes = np.diff(offsets)
    nq = sizes.size
    seg = segment_ids(offsets)
    nonempty = sizes > 0
    qmax = np.zeros(nq)
    if z.size:
        qmax[nonempty] = np.maximum.reduceat(z, offsets[:-1][nonempty])
    shifted = z - qmax[seg]
    sums = np.bincount(seg, weights=np.exp(shifted), minlength=nq)  # >= 1 on non-empty queries
    log_sums = np.log(np.where(nonempty, sums, 1.0))
    return shifted - log_sums[seg]


def listnet_loss_and_grad(w: np.ndarray, X: np.ndarray, labels: np.ndarray, offsets: np.ndarray,
                          l2: float = 0.0) -> tuple[float, np.ndarray]:
    """ListNet objective ``L(w)`` of the queries ``offsets`` (module
    docstring: mean top-one cross entropy over the non-empty queries plus
    ``l2/2 |w|^2``) and its gradient ``X^T (P_s - P_y) / |Q| + l2 w``.

    ``X`` ``(n, d)`` holds the documents of the queries in order, ``labels``
    ``(n,)`` their relevance (``P_y = softmax(labels)`` within each query;
    pass ``phi(labels)`` for another label map), ``offsets`` ``(|Q| + 1,)``
    the query boundaries (``offsets[0] == 0``, ``offsets[-1] == n``).
    """
    w = np.asarray(w, dtype=np.float64)
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or w.shape != (X.shape[1],):
        raise ValueError(f"w must have shape ({X.shape[1] if X.ndim == 2 else '?'},), got {w.shape}")
    offsets = check_offsets(offsets, X.shape[0])
    labels = np.asarray(labels, dtype=np.float64)
    if labels.shape != (X.shape[0],):
        raise ValueError(f"labels must have shape ({X.shape[0]},), got {labels.shape}")
    n_queries = max(int(np.count_nonzero(np.diff(offsets))), 1)
    log_ps = segment_log_softmax(X @ w, offsets)
    p_y = np.exp(segment_log_softmax(labels, offsets))
    loss = -float(p_y @ log_ps) / n_queries
    grad = X.T @ ((np.exp(log_ps) - p_y) / n_queries)
    if l2 > 0:
        loss += 0.5 * l2 * float(w @ w)
        grad = grad + l2 * w
    return loss, grad


# ---------------------------------------------------------------------------
# the model
# ---------------------------------------------------------------------------
class ListNetModel(EpochTrainedModel):
    """Linear ListNet (Cao et al. 2007; Wang et al. 2013, Sec. 4).

    Parameters (tunable): ``learning_rate`` (Adam), ``max_epochs``,
    ``patience`` (early stopping on the validation mean NDCG@10 under
    ``convention``), ``batch_queries`` (queries per Adam step), ``l2``,
    ``log1p`` (:class:`FeatureTransform`), ``calibration_alpha`` (the score
    calibrator's L2).

    After fitting: ``coef_`` (the weights on transformed features),
    ``best_epoch_`` (epochs of the kept weights), ``n_epochs_`` (epochs
    run), ``vali_curve_`` (validation mean NDCG@10 after each epoch
    1..n_epochs_), ``calibrator_``.
    """

    name = "listnet"
    param_names = ("learning_rate", "max_epochs", "patience", "batch_queries", "l2", "log1p",
                   "calibration_alpha")
    # pure NumPy, no shared mutable state; BLAS is pinned to one thread
    _parallel_grid = True

    @classmethod
    def default_params(cls):
        return dict(learning_rate=0.01, max_epochs=100, patience=10, batch_queries=16, l2=1e-4,
                    log1p="auto", calibration_alpha=1.0)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._check_params(self.params)

    @staticmethod
    def _check_params(params) -> None:
        check_float(params, "learning_rate", 0.0, 10.0, lo_open=True)
        check_int(params, "max_epochs", 1)
        check_int(params, "patience", 1)
        check_int(params, "batch_queries", 1)
        check_float(params, "l2", 0.0)
        check_choice(params, "log1p", ("auto", "none", "all"))
        check_float(params, "calibration_alpha", 0.0)

    def _fit_one(self, train, vali, params):
        tf, X, Xv = self._cache[params["log1p"]]
        labels = train.labels.astype(np.float64)  # phi(y) = y: P_y = softmax(y) per query
        offsets = np.asarray(train.offsets, dtype=np.int64)
        n_queries = offsets.size - 1
        w = np.zeros(X.shape[1])
        lr, l2 = float(params["learning_rate"]), float(params["l2"])
        batch = int(params["batch_queries"])
        m1, m2 = np.zeros_like(w), np.zeros_like(w)
        step = 0

        def run_epoch(epoch):
            nonlocal step
            order = seeds.rng(self.seed, "models", self.name, "epoch", epoch).permutation(n_queries)
            rows, offs = query_rows(offsets, order)
            Xe, ye = X[rows], labels[rows]
            for q0 in range(0, n_queries, batch):
                q1 = min(q0 + batch, n_queries)
                a, b = offs[q0], offs[q1]
                _, g = listnet_loss_and_grad(w, Xe[a:b], ye[a:b], offs[q0:q1 + 1] - a, l2)
                step += 1
                adam_step((w,), (g,), (m1,), (m2,), step, lr)
            return Xv @ w

        best_w, best_epoch, curve = self._early_stopping(params, vali, run_epoch, w.copy, "ListNet")
        return {"transform": tf, "w": best_w, "best_epoch": best_epoch, "n_epochs": len(curve),
                "vali_curve": curve}

    def _predict_state(self, state, X, want_proba):
        scores = state["transform"].transform(X) @ state["w"]
        proba = self.calibrator_.predict_proba(scores) if want_proba else None
        return scores, proba

    def _finalize(self, train, vali):
        self.coef_ = self.state_["w"]
        super()._finalize(train, vali)
