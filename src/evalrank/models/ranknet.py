"""RankNet (Burges et al., ICML 2005): a small neural net trained on pairs.

Busa-Fekete et al. (2012), Sec. 4 item 2: "a neural-net-based method which
employs a loss based on pairwise cross entropy ... We validated the number
of hidden layers ranging from 1 to 3 and the number of neurons in the hidden
layers ranging from 10 to 500. For the number of training epochs we applied
early stopping."

Model. ``f(x)``: ``hidden_layers`` tanh layers of ``hidden_units`` units and
one linear output unit (no output bias: a constant does not change a
ranking and gets no pairwise gradient), on features transformed by
:class:`evalrank.models.FeatureTransform` (signed log1p of heavy-tailed
columns, then z-scores of the training half).

Cost (Burges et al. 2005, Sec. 3, "A probabilistic ranking cost
function"): for a pair ``(i, j)`` of the same query,
``o_ij = f(x_i) - f(x_j)``, ``P_ij = e^{o_ij} / (1 + e^{o_ij})`` and the
cross entropy ``C_ij = -Pbar_ij o_ij + log(1 + e^{o_ij})``. With target
probability ``Pbar_ij = 1`` for ``y_i > y_j`` (pairs with equal grades are
not used) and ``sigma = 1`` this is ``C_ij = log(1 + exp(-o_ij))``, with
``dC_ij / do_ij = -1 / (1 + exp(o_ij))``. The training objective of a
mini-batch ``B`` of pairs is

    L = 1/|B| sum_{(i, j) in B} C_ij  +  l2/2 * sum_layers |W|_F^2

(weights only, biases are not penalized).

Gradients (Burges et al. 2005, backpropagation on pairs:
``dC_ij/dw = C'(o_ij) (df(x_i)/dw - df(x_j)/dw)``) are computed by hand
and vectorised: the documents of a
batch are forwarded once, the pair derivatives ``lambda_ij = dC_ij/do_ij``
are accumulated per document (``dL/df(x_d) = sum_{pairs with d on top}
lambda - sum_{pairs with d below} lambda``, one ``np.bincount``) and
back-propagated once (cf. Burges 2010, "From RankNet to LambdaRank to
LambdaMART", Sec. 2.1, for this factorization). :func:`loss_and_grad` is
checked against finite differences in ``tests/models/test_ranknet.py``.

Optimization: Adam (Kingma & Ba 2015) on mini-batches of ``batch_pairs``
pairs. Each epoch draws up to ``max_pairs_per_epoch`` within-query pairs
with different grades uniformly without replacement (all of them, shuffled,
when there are fewer), from the stream ``seeds.rng(seed, "models",
"ranknet", "epoch", e)``; initial weights (Glorot uniform) come from
``seeds.rng(seed, "models", "ranknet", "init")``.

Early stopping and model selection use the model's NDCG convention
(Busa-Fekete et al. 2012, Sec. 5: the NDCG variant used *during training*
changes the learnt model): after every epoch the validation mean
:meth:`~evalrank.models.RankingModel.metric` (NDCG@10 under
``convention``, a nan-mean over queries) is recorded in ``vali_curve_``;
training stops after ``patience`` epochs without a strict improvement and
the weights of the best epoch (the first one on ties) are kept.

Probabilities come from a :class:`~evalrank.models.calibrate.GradeCalibrator`
fitted on the validation half, as for RankSVM.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit

from evalrank import seeds
from evalrank.models import FeatureTransform, RankingModel
from evalrank.models.pairs import check_choice, check_float, check_int, training_pairs

__all__ = ["RankNetModel", "EpochTrainedModel", "adam_step", "init_net", "forward", "loss_and_grad", "pair_loss"]

_ADAM_B1, _ADAM_B2, _ADAM_EPS = 0.9, 0.999, 1e-8


# ---------------------------------------------------------------------------
# the network: params = [W_1, b_1, ..., W_L, b_L, w_out]
# ---------------------------------------------------------------------------
def init_net(n_in: int, hidden_layers: int, hidden_units: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Glorot-uniform weights, zero biases, as ``[W_1, b_1, ..., W_L, b_L, w_out]``."""
    params = []
    fan_in = n_in
    for _ in range(hidden_layers):
        bound = np.sqrt(6.0 / (fan_in + hidden_units))
        params.append(rng.uniform(-bound, bound, size=(fan_in, hidden_units)))
        params.append(np.zeros(hidden_units))
        fan_in = hidden_units
    bound = np.sqrt(6.0 / (fan_in + 1))
    params.append(rng.uniform(-bound, bound, size=fan_in))
    return params


def forward(params: list[np.ndarray], X: np.ndarray, keep: bool = False):
    """Scores ``f(X)`` (float64 ``(n,)``); with ``keep`` also the layer
    activations ``[X, a_1, ..., a_L]`` for :func:`backward`."""
    a = X
    acts = [a] if keep else None
    for layer in range(0, len(params) - 1, 2):
        a = np.tanh(a @ params[layer] + params[layer + 1])
        if keep:
            acts.append(a)
    scores = a @ params[-1]
    return (scores, acts) if keep else scores


def backward(params: list[np.ndarray], acts: list[np.ndarray], dscores: np.ndarray) -> list[np.ndarray]:
    """Gradients of ``sum_d dscores[d] * f(x_d)`` w.r.t. every parameter."""
    grads = [None] * len(params)
    grads[-1] = acts[-1].T @ dscores
    delta = np.multiply.outer(dscores, params[-1])  # dL/da_L
    for layer in range(len(params) - 3, -1, -2):
        a = acts[layer // 2 + 1]
        delta = delta * (1.0 - a * a)  # through tanh: dL/dz
        grads[layer] = acts[layer // 2].T @ delta
        grads[layer + 1] = delta.sum(axis=0)
        if layer > 0:
            delta = delta @ params[layer].T
    return grads


def pair_loss(scores: np.ndarray, hi: np.ndarray, lo: np.ndarray) -> float:
    """Mean RankNet cross entropy ``log(1 + exp(-(s_hi - s_lo)))`` (stable)."""
    return float(np.logaddexp(0.0, -(scores[hi] - scores[lo])).mean())


def loss_and_grad(params: list[np.ndarray], X: np.ndarray, hi: np.ndarray, lo: np.ndarray,
                  l2: float = 0.0) -> tuple[float, list[np.ndarray]]:
    """Objective ``L`` of a batch (module docstring) and its gradient.

    ``X`` holds the batch's documents, each once; ``hi``/``lo`` index rows of
    ``X`` with ``hi`` the preferred document of each pair.
    """
    scores, acts = forward(params, X, keep=True)
    o = scores[hi] - scores[lo]
    m = hi.size
    lam = expit(-o) / m  # -dC/do, divided by the batch size
    loss = float(np.logaddexp(0.0, -o).mean())
    # dL/ds_d: -lam for the preferred document, +lam for the other (one bincount)
    dscores = np.bincount(np.concatenate([hi, lo]), weights=np.concatenate([-lam, lam]), minlength=X.shape[0])
    grads = backward(params, acts, dscores)
    if l2 > 0:
        for k in _weight_indices(params):
            loss += 0.5 * l2 * float(np.sum(params[k] * params[k]))
            grads[k] = grads[k] + l2 * params[k]
    return loss, grads


def _weight_indices(params) -> list[int]:
    return list(range(0, len(params) - 1, 2)) + [len(params) - 1]


def adam_step(params, grads, m1, m2, step: int, lr: float) -> None:
    """One Adam update (Kingma & Ba 2015) of the arrays ``params`` in place,
    with first/second moment arrays ``m1``/``m2`` (also updated in place) and
    the 1-based ``step`` for the bias corrections. Shared with ListNet."""
    c1, c2 = 1.0 - _ADAM_B1**step, 1.0 - _ADAM_B2**step
    for p, g, a, b in zip(params, grads, m1, m2):
        a *= _ADAM_B1
        a += (1.0 - _ADAM_B1) * g
        b *= _ADAM_B2
        b += (1.0 - _ADAM_B2) * (g * g)
        p -= lr * (a / c1) / (np.sqrt(b / c2) + _ADAM_EPS)


class EpochTrainedModel(RankingModel):
    """What RankNet and ListNet share: the transformed features of each
    ``log1p`` candidate cached once per fit, the validation value (mean
    NDCG@10 under the model's convention) that early stopping follows, the
    early-stopping loop, and the fitted epoch attributes + calibrator."""

    def _prepare(self, train, vali, candidates):
        for params in candidates:
            self._check_params(params)
        self._cache = {}
        for log1p in dict.fromkeys(p["log1p"] for p in candidates):
            tf = FeatureTransform(log1p=log1p).fit(train.features)
            self._cache[log1p] = (tf, tf.transform(train.features), tf.transform(vali.features))

    def _vali_value(self, scores, vali) -> float:
        values = self.metric(scores, vali.labels, vali.offsets)
        return float(np.nanmean(values)) if not np.isnan(values).all() else -np.inf

    def _early_stopping(self, params, vali, run_epoch, snapshot, label: str):
        """Epochs 1..``max_epochs``: ``run_epoch(epoch)`` trains one epoch and
        returns the validation scores; after ``patience`` epochs without a
        strict improvement of :meth:`_vali_value` training stops, and
        ``snapshot()`` taken at the best epoch (the first on ties) is kept.
        Non-finite validation scores end training at the best epoch so far.
        Returns ``(best snapshot, best epoch, validation curve)``."""
        curve: list[float] = []
        best_value, best_epoch, best = -np.inf, 0, None
        for epoch in range(1, int(params["max_epochs"]) + 1):
            vscores = run_epoch(epoch)
            if not np.isfinite(vscores).all():  # diverged: keep the best epoch so far
                break
            value = self._vali_value(vscores, vali)
            curve.append(value)
            if value > best_value or best is None:
                best_value, best_epoch, best = value, epoch, snapshot()
            elif epoch - best_epoch >= int(params["patience"]):
                break
        if best is None:
            raise ValueError(f"{label} diverged in the first epoch (non-finite scores); "
                             f"lower learning_rate (got {params['learning_rate']})")
        return best, best_epoch, np.asarray(curve, dtype=np.float64)

    def _tuning_extra(self, state):
        return {"best_epoch": state["best_epoch"], "n_epochs": state["n_epochs"]}

    def _finalize(self, train, vali):
        self.best_epoch_ = self.state_["best_epoch"]
        self.n_epochs_ = self.state_["n_epochs"]
        self.vali_curve_ = self.state_["vali_curve"]
        self._fit_calibrator(vali)

    def _cleanup(self):
        self._cache = {}


# ---------------------------------------------------------------------------
# the model
# ---------------------------------------------------------------------------
class RankNetModel(EpochTrainedModel):
    """RankNet (Busa-Fekete et al. 2012, Sec. 4 item 2; Burges et al. 2005).

    Parameters (tunable): ``hidden_layers`` (1..3), ``hidden_units``
    (10..500, the ranges Busa-Fekete et al. validate), ``learning_rate``
    (Adam), ``max_epochs``, ``patience`` (early stopping on the validation
    mean NDCG@10 under ``convention``), ``max_pairs_per_epoch``,
    ``batch_pairs``, ``l2``, ``log1p`` (:class:`FeatureTransform`),
    ``calibration_alpha`` (the score calibrator's L2).

    After fitting: ``best_epoch_`` (epochs of the kept weights),
    ``n_epochs_`` (epochs run), ``vali_curve_`` (validation mean NDCG@10
    after each epoch 1..n_epochs_), ``calibrator_``.
    """

    name = "ranknet"
    param_names = ("hidden_layers", "hidden_units", "learning_rate", "max_epochs", "patience",
                   "max_pairs_per_epoch", "batch_pairs", "l2", "log1p", "calibration_alpha")
    # pure NumPy, no shared mutable state; BLAS is pinned to one thread
    _parallel_grid = True

    @classmethod
    def default_params(cls):
        return dict(hidden_layers=1, hidden_units=20, learning_rate=0.002, max_epochs=100, patience=10,
                    max_pairs_per_epoch=50_000, batch_pairs=512, l2=1e-4, log1p="auto",
                    calibration_alpha=1.0)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._check_params(self.params)

    @staticmethod
    def _check_params(params) -> None:
        check_int(params, "hidden_layers", 1, 3)
        check_int(params, "hidden_units", 10, 500)
        check_float(params, "learning_rate", 0.0, 10.0, lo_open=True)
        check_int(params, "max_epochs", 1)
        check_int(params, "patience", 1)
        check_int(params, "max_pairs_per_epoch", 1)
        check_int(params, "batch_pairs", 1)
        check_float(params, "l2", 0.0)
        check_choice(params, "log1p", ("auto", "none", "all"))
        check_float(params, "calibration_alpha", 0.0)

    def _fit_one(self, train, vali, params):
        tf, X, Xv = self._cache[params["log1p"]]
        labels = train.labels.astype(np.int64)
        net = init_net(X.shape[1], int(params["hidden_layers"]), int(params["hidden_units"]),
                       seeds.rng(self.seed, "models", self.name, "init"))
        lr, l2 = float(params["learning_rate"]), float(params["l2"])
        batch = int(params["batch_pairs"])
        m1 = [np.zeros_like(p) for p in net]
        m2 = [np.zeros_like(p) for p in net]
        step = 0

        def run_epoch(epoch):
            nonlocal step
            hi, lo = training_pairs(labels, train.offsets, int(params["max_pairs_per_epoch"]),
                                    seeds.rng(self.seed, "models", self.name, "epoch", epoch), self.n_grades)
            for start in range(0, hi.size, batch):
                bh, bl = hi[start:start + batch], lo[start:start + batch]
                docs, inv = np.unique(np.concatenate([bh, bl]), return_inverse=True)
                _, grads = loss_and_grad(net, X[docs], inv[:bh.size], inv[bh.size:], l2)
                step += 1
                adam_step(net, grads, m1, m2, step, lr)
            return forward(net, Xv)

        best_net, best_epoch, curve = self._early_stopping(params, vali, run_epoch, lambda: [p.copy() for p in net],
                                                           "RankNet")
        return {"transform": tf, "net": best_net, "best_epoch": best_epoch, "n_epochs": len(curve),
                "vali_curve": curve}

    def _predict_state(self, state, X, want_proba):
        scores = forward(state["net"], state["transform"].transform(X))
        proba = self.calibrator_.predict_proba(scores) if want_proba else None
        return scores, proba
