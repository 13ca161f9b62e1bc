"""Risk-sensitive LambdaMART (Dinçer, Macdonald & Ounis 2016, Sec. 6): the
kernel's ΔM' for U-CRO, T-SARO, T-FARO, T*-FARO and GeoRisk against an
independent per-pair reference built on evalrank.metrics.risk, bit-identity
with plain LambdaRank at alpha = 0, and the model on LightGBM."""

import math
import pickle

import numpy as np
import pytest
from scipy.stats import norm as normal
from toy_data import toy_collection

lgb = pytest.importorskip("lightgbm")

from evalrank.metrics import ndcg  # noqa: E402
from evalrank.metrics import risk  # noqa: E402
from evalrank.models.lambdamart import LambdaMARTModel  # noqa: E402
from evalrank.models.lambdarank import LambdaObjective, _georisk_delta, sigmoid_table  # noqa: E402
from evalrank.papers.dincer2016.risk_objective import RiskObjective  # noqa: E402
from evalrank.papers.dincer2016.risk_lambdamart import RiskLambdaMARTModel  # noqa: E402

CONV = "lightgbm"
METHODS = ("u-cro", "t-saro", "t-faro", "t*-faro", "georisk")


@pytest.fixture(scope="module")
def data():
    """30 queries x 15 documents, a BM25-like single baseline (heavy-tailed
    column 4) and three 'learned' baselines."""
    c = toy_collection(30, 11, min_docs=15, max_docs=16)
    X = c.features.astype(np.float64)
    rng = np.random.default_rng(5)
    B = np.stack([X[:, 0] + 0.8 * rng.normal(size=c.n_docs),
                  1.2 * X[:, 0] + 0.8 * X[:, 1] + rng.normal(size=c.n_docs),
                  X[:, 0] + X[:, 1] - 0.6 * X[:, 2]])
    tied = np.round(rng.normal(size=c.n_docs), 1)  # ties: the stable order applies
    good = c.labels + 1.5 * rng.normal(size=c.n_docs)  # some queries above, some below the baselines
    return dict(c=c, y=c.labels.astype(np.int64), off=c.offsets, base=X[:, 4].copy(), B=B,
                scores={"tied": tied, "good": good, "zero": np.zeros(c.n_docs)})


def baseline_kw(method, d):
    if method in ("u-cro", "t-saro", "t-faro"):
        return {"baseline": d["base"]}
    if method in ("t*-faro", "georisk"):
        return {"baselines": d["B"]}
    return {}


# ---------------------------------------------------------------------------
# independent reference: LightGBM's lambdarank pair loop in pure Python with a
# pluggable ΔM' (weight(q, signed ΔM)), float64 throughout
# ---------------------------------------------------------------------------
TABLE, LO, HI, FACTOR = sigmoid_table(1.0)
F32_001 = float(np.float32(0.01))


def reference_gradients(scores, labels, offsets, *, trunc, norm, weight):
    grad = np.zeros(scores.size)
    hess = np.zeros(scores.size)
    for q in range(offsets.size - 1):
        a, b = int(offsets[q]), int(offsets[q + 1])
        s, y, cnt = scores[a:b], labels[a:b], b - a
        order = sorted(range(cnt), key=lambda t: -s[t])  # Python's sort is stable
        gain = 2.0 ** y - 1.0
        disc = [1.0 / math.log2(2.0 + r) for r in range(cnt)]
        idcg = sum(g * disc[r] for r, g in enumerate(sorted(gain, reverse=True)[:trunc]))
        best, worst = s[order[0]], s[order[-1]]
        lam_sum = 0.0
        for i in range(min(cnt - 1, trunc)):
            for j in range(i + 1, cnt):
                u, v = order[i], order[j]
                if y[u] == y[v]:
                    continue
                (hi, hr), (lo, lr) = ((u, i), (v, j)) if y[u] > y[v] else ((v, j), (u, i))
                dm = (gain[hi] - gain[lo]) * abs(disc[hr] - disc[lr]) / idcg
                w = abs(weight(q, dm if hr > lr else -dm))
                ds = s[hi] - s[lo]
                if norm and best != worst:
                    w /= F32_001 + abs(ds)
                rho = TABLE[0] if ds <= LO else TABLE[-1] if ds >= HI else TABLE[int((ds - LO) * FACTOR)]
                grad[a + hi] -= rho * w
                grad[a + lo] += rho * w
                hess[a + hi] += rho * (1 - rho) * w
                hess[a + lo] += rho * (1 - rho) * w
                lam_sum += 2 * rho * w
        if norm and lam_sum > 0:
            f = math.log2(1 + lam_sum) / lam_sum
            grad[a:b] *= f
            hess[a:b] *= f
    return grad, hess


def u(d, a):
    """URisk's utility of one topic's difference."""
    return d if d > 0 else (1.0 + a) * d


def reference_weight(method, alpha, scores, d, *, risk_k, trisk_scale="sd", full_georisk=False):
    """ΔM'(q, signed ΔM) from evalrank.metrics.risk, written from the paper's
    definitions (u-difference for U-CRO/T-SARO, (1 + β)ΔM for FARO)."""
    y, off = d["y"], d["off"]
    mm = ndcg(scores, y, off, risk_k, convention=CONV)
    if method == "lambdamart":
        return lambda q, dm: dm
    if method == "georisk":
        Bq = np.stack([ndcg(b, y, off, risk_k, convention=CONV) for b in d["B"]])
        X = np.vstack([mm, Bq])
        c = X.shape[1]
        Z = risk.standardized_residuals(X, zero_totals="ignore")[0]
        G = risk.georisk(X, 0, alpha, zero_totals="ignore")

        def geo(q, dm):
            X1 = X.copy()
            X1[0, q] += dm
            if full_georisk:
                return c * (risk.georisk(X1, 0, alpha, zero_totals="ignore") - G)
            z = Z.copy()  # only cell (0, q)'s z is recomputed
            z[q] = risk.standardized_residuals(X1, zero_totals="ignore")[0, q]
            zr = sum(u(v, alpha) for v in z)
            return c * (math.sqrt(X1[0].sum() / c * normal.cdf(zr / c)) - G)
        return geo
    if method == "t*-faro":
        mb = np.mean([ndcg(b, y, off, risk_k, convention=CONV) for b in d["B"]], axis=0)
    else:
        mb = ndcg(d["base"], y, off, risk_k, convention=CONV)
    D = mm - mb
    if method == "u-cro":
        return lambda q, dm: u(D[q] + dm, alpha) - u(D[q], alpha)
    _, se = risk.trisk(mm, mb, alpha, return_se=True)
    scale = se * math.sqrt(D.size) if trisk_scale == "sd" else se
    tr = D / scale if scale > 0 else np.zeros_like(D)
    beta = (1.0 - normal.cdf(tr)) * alpha
    if method == "t-saro":
        return lambda q, dm: u(D[q] + dm, beta[q]) - u(D[q], beta[q])
    return lambda q, dm: (1.0 + beta[q]) * dm  # t-faro, t*-faro


def close(got, want):
    scale = np.abs(want).max()
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-6 * scale)


# ---------------------------------------------------------------------------
# gradients
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["lambdamart", "u-cro", "t-saro", "t-faro", "t*-faro"])
@pytest.mark.parametrize("trunc,norm", [(30, True), (5, False), (5, True)])
def test_alpha_zero_is_lambdarank_bit_for_bit(data, method, trunc, norm):
    plain = LambdaObjective(data["y"], data["off"], convention=CONV, truncation_level=trunc, norm=norm)
    obj = RiskObjective(data["y"], data["off"], method=method, alpha=0.0, convention=CONV, truncation_level=trunc,
                        norm=norm, **baseline_kw(method, data))
    for s in data["scores"].values():
        g0, h0 = plain(s)
        g, h = obj(s)
        np.testing.assert_array_equal(g, g0)
        np.testing.assert_array_equal(h, h0)


@pytest.mark.parametrize("method,trisk_scale", [(m, "sd") for m in METHODS] + [("t-saro", "se")])
@pytest.mark.parametrize("trunc,norm", [(30, True), (5, False)])
def test_gradients_match_the_per_pair_reference(data, method, trisk_scale, trunc, norm):
    alpha = 2.0
    # GeoRisk: risk_k = truncation_level keeps x_ij + ΔM >= 0 (risk.* accepts no negative scores)
    risk_k = trunc if method == "georisk" else 10
    obj = RiskObjective(data["y"], data["off"], method=method, alpha=alpha, risk_k=risk_k, trisk_scale=trisk_scale,
                        convention=CONV, truncation_level=trunc, norm=norm, **baseline_kw(method, data))
    plain = LambdaObjective(data["y"], data["off"], convention=CONV, truncation_level=trunc, norm=norm)
    for name, s in data["scores"].items():
        if name == "zero" and not (trunc == 30 and norm):
            continue
        weight = reference_weight(method, alpha, s, data, risk_k=risk_k, trisk_scale=trisk_scale)
        g_ref, h_ref = reference_gradients(s, data["y"], data["off"], trunc=trunc, norm=norm, weight=weight)
        g, h = obj(s)
        close(g, g_ref)
        close(h, h_ref)
        assert not np.allclose(g, plain(s)[0])  # the risk weighting does something


def test_ucro_reference_covers_every_scenario(data):
    """The 'good' scores put queries on both sides of the baseline, and pairs
    cross it in both directions (Jforests' A2/B1 second branches)."""
    mm = ndcg(data["scores"]["good"], data["y"], data["off"], 10, convention=CONV)
    mb = ndcg(data["base"], data["y"], data["off"], 10, convention=CONV)
    D = mm - mb
    assert (D > 0).sum() >= 5 and (D <= 0).sum() >= 5
    seen = set()

    def spy(q, dm):
        seen.add(("A" if D[q] <= 0 else "B", dm > 0, (D[q] + dm > 0) != (D[q] > 0)))
        return dm
    reference_gradients(data["scores"]["good"], data["y"], data["off"], trunc=30, norm=True, weight=spy)
    assert {("A", False, False), ("A", True, False), ("A", True, True), ("B", False, False), ("B", False, True),
            ("B", True, False)} <= seen


def georisk_deltas(data, alpha, dm):
    """Per query (both signs of ``dm``): the kernel's retained-summand
    ``c ΔGeoRisk`` and the full recomputation ``c (GeoRisk(X') - GeoRisk(X))``."""
    obj = RiskObjective(data["y"], data["off"], method="georisk", alpha=alpha, convention=CONV,
                        baselines=data["B"])
    st = obj.state(data["scores"]["good"])
    X = np.vstack([st["mm"], obj.baseline_ndcg])
    c = X.shape[1]
    G = risk.georisk(X, 0, alpha)
    assert st["georisk"] == pytest.approx(G, rel=1e-12)
    kept, full, signs = [], [], []
    for q in range(c):
        for sign in (1.0, -1.0):
            X1 = X.copy()
            X1[0, q] += sign * dm
            full.append(c * (risk.georisk(X1, 0, alpha) - G))
            kept.append(_georisk_delta(sign * dm, X[0, q], st["T"][q], st["z"][q], st["S"], st["N"], st["zrisk"],
                                       st["georisk"], float(c), alpha))
            signs.append(sign)
    return np.array(kept), np.array(full), np.array(signs)


def test_georisk_retained_summand_against_full_recomputation(data):
    """The paper's shortcut (only z_ij recomputed) is *not* a small-ΔM
    approximation of c (GeoRisk(X') - GeoRisk(X)): moving S_i and N moves
    every e_ik by O(ΔM / N), and the c - 1 neglected changes of z_ik add up
    to the same order as the retained one (residuals x - e sum to 0 over a
    row). Measured on this data (c = 30, 3 baselines, every query, ΔM =
    +-1e-4, 1e-2, 0.1): kept/full is 1.49-1.55 at alpha = 0 -- nearly a
    constant rescale, the same for every ΔM; 1.51-2.13 at alpha = 1; at
    alpha = 5 the full recomputation is not even consistent (for 27-33 of the
    60 changes, raising one query's NDCG lowers GeoRisk, through the
    6x-weighted negative z of the other queries) while the shortcut always
    moves with ΔM."""
    ratios = {}
    for dm in (1e-4, 1e-2):
        kept, full, signs = georisk_deltas(data, 0.0, dm)
        assert np.all(np.sign(kept) == signs) and np.all(np.sign(full) == signs)
        ratios[dm] = kept / full
        assert 1.3 < ratios[dm].min() and ratios[dm].max() < 1.8
        assert ratios[dm].max() / ratios[dm].min() < 1.1  # about the same factor for every query
    np.testing.assert_allclose(ratios[1e-4], ratios[1e-2], rtol=1e-2)  # no convergence as ΔM -> 0
    kept, full, signs = georisk_deltas(data, 5.0, 1e-3)
    assert np.all(np.sign(kept) == signs)  # the shortcut is consistent (Sec. 6)
    assert np.any(np.sign(full) != signs)  # the full recomputation is not


def test_georisk_at_alpha_zero_is_not_plain_lambdamart(data):
    s = data["scores"]["good"]
    g0 = LambdaObjective(data["y"], data["off"], convention=CONV, norm=False)(s)[0]
    g = RiskObjective(data["y"], data["off"], method="georisk", alpha=0.0, convention=CONV, baselines=data["B"],
                      norm=False)(s)[0]
    k = g @ g0 / (g0 @ g0)
    assert np.linalg.norm(g - k * g0) / np.linalg.norm(g) > 1e-3  # not a constant rescale of LambdaRank


def test_first_iteration_uses_the_stable_tie_order(data):
    obj = RiskObjective(data["y"], data["off"], method="t-faro", alpha=1.0, convention=CONV, baseline=data["base"])
    descending = -np.arange(data["y"].size, dtype=float)  # input order
    np.testing.assert_array_equal(obj.state(np.zeros(data["y"].size))["mm"],
                                  ndcg(descending, data["y"], data["off"], 10, convention=CONV))


def test_georisk_guards_keep_gradients_finite():
    """ΔM (IDCG@truncation_level, no cut-off) can exceed the cell's NDCG@risk_k:
    x' < 0 and e' <= 0 must not give NaN."""
    y = np.array([0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0])
    off = np.array([0, 12, 14])
    s = np.linspace(1, 0, 14)  # the relevant document sits at rank 5, outside NDCG@3
    B = np.vstack([np.zeros(14), np.zeros(14)])
    g, h = RiskObjective(y, off, method="georisk", alpha=5.0, risk_k=3, convention=CONV, baselines=B)(s)
    assert np.all(np.isfinite(g)) and np.all(np.isfinite(h))
    assert np.all(np.isfinite(_georisk_delta(-0.5, 0.1, 0.1, 0.0, 0.2, 0.3, 0.0, 0.3, 2.0, 5.0)))


# ---------------------------------------------------------------------------
# arguments
# ---------------------------------------------------------------------------
def test_bad_arguments(data):
    y, off, b, B = data["y"], data["off"], data["base"], data["B"]
    with pytest.raises(ValueError, match="method"):
        RiskObjective(y, off, method="geo-risk", alpha=1.0)
    with pytest.raises(TypeError, match="method"):
        RiskObjective(y, off, method=3, alpha=1.0)
    with pytest.raises(ValueError, match="alpha"):
        RiskObjective(y, off, method="u-cro", alpha=-1.0, baseline=b)
    with pytest.raises(TypeError, match="alpha"):
        RiskObjective(y, off, method="u-cro", alpha="1", baseline=b)
    with pytest.raises(ValueError, match="needs baseline"):
        RiskObjective(y, off, method="t-faro", alpha=1.0)
    with pytest.raises(ValueError, match="needs baselines"):
        RiskObjective(y, off, method="georisk", alpha=1.0)
    with pytest.raises(ValueError, match="baseline must have shape"):
        RiskObjective(y, off, method="u-cro", alpha=1.0, baseline=b[:-1])
    with pytest.raises(ValueError, match="baselines must have shape"):
        RiskObjective(y, off, method="georisk", alpha=1.0, baselines=b)
    with pytest.raises(ValueError, match="baselines is used only"):
        RiskObjective(y, off, method="u-cro", alpha=1.0, baseline=b, baselines=B)
    with pytest.raises(ValueError, match="baseline is used only"):
        RiskObjective(y, off, method="t*-faro", alpha=1.0, baseline=b, baselines=B)
    with pytest.raises(ValueError, match="baseline contains NaN"):
        RiskObjective(y, off, method="u-cro", alpha=1.0, baseline=np.full(y.size, np.nan))
    with pytest.raises(ValueError, match="risk_k"):
        RiskObjective(y, off, method="u-cro", alpha=1.0, baseline=b, risk_k=0)
    with pytest.raises(ValueError, match="trisk_scale"):
        RiskObjective(y, off, method="t-saro", alpha=1.0, baseline=b, trisk_scale="var")
    with pytest.raises(ValueError, match="method"):
        RiskLambdaMARTModel(method="faro")
    with pytest.raises(ValueError, match="alpha"):
        RiskLambdaMARTModel(alpha=-0.5)
    c = data["c"]
    with pytest.raises(ValueError, match="needs? baselines"):
        RiskLambdaMARTModel(method="georisk").fit(c, c, seed=0)
    with pytest.raises(ValueError, match="baselines must have shape"):
        RiskLambdaMARTModel(method="georisk").fit(c, c, seed=0, baselines=B[:, :-1])
    with pytest.raises(ValueError, match="baselines is used only"):
        RiskLambdaMARTModel(method="u-cro", baseline_feature=5).fit(c, c, seed=0, baselines=B)
    with pytest.raises(ValueError, match="baseline_feature"):
        RiskLambdaMARTModel(method="u-cro").fit(c, c, seed=0)  # 110 > 8 toy features


# ---------------------------------------------------------------------------
# the model
# ---------------------------------------------------------------------------
SMALL = dict(convention=CONV, num_leaves=10, min_data_in_leaf=20, num_boost_round=15, early_stopping_rounds=15,
             baseline_feature=5)


@pytest.fixture(scope="module")
def split():
    train, vali = toy_collection(80, 21), toy_collection(30, 22)
    rng = np.random.default_rng(3)
    X = train.features.astype(np.float64)
    B = np.stack([X[:, 0] + rng.normal(size=train.n_docs), X[:, 0] + X[:, 1] + 0.5 * rng.normal(size=train.n_docs)])
    return train, vali, B


@pytest.mark.parametrize("norm", [True, False])
def test_alpha_zero_t_faro_trains_lightgbms_lambdarank_bit_for_bit(split, norm):
    train, vali, _ = split
    model = RiskLambdaMARTModel(method="t-faro", alpha=0.0, norm=norm, **SMALL).fit(train, vali, seed=0)
    p = dict(model._lgb_params(model.best_params_), objective="lambdarank", lambdarank_truncation_level=30,
             lambdarank_norm=norm)
    builtin = lgb.train(p, lgb.Dataset(train.features, train.labels.astype(np.int32), group=np.diff(train.offsets)),
                        num_boost_round=model.best_iteration_)
    np.testing.assert_array_equal(model.score(vali.features), builtin.predict(vali.features))
    np.testing.assert_array_equal(ndcg(model.score(vali.features), vali.labels, vali.offsets, 10, convention=CONV),
                                  ndcg(builtin.predict(vali.features), vali.labels, vali.offsets, 10,
                                       convention=CONV))


@pytest.mark.parametrize("method", METHODS)
def test_risk_sensitive_models_differ_from_lambdamart_and_are_deterministic(split, method):
    train, vali, B = split
    kw = {"baselines": B} if method in ("t*-faro", "georisk") else {}
    small = {k: v for k, v in SMALL.items() if k != "baseline_feature"}
    plain = LambdaMARTModel(**small).fit(train, vali, grid=None, seed=0)
    m1 = RiskLambdaMARTModel(method=method, alpha=5.0, **SMALL).fit(train, vali, seed=0, **kw)
    m2 = RiskLambdaMARTModel(method=method, alpha=5.0, **SMALL).fit(train, vali, seed=0, **kw)
    s1 = m1.score(vali.features)
    assert not np.array_equal(s1, plain.score(vali.features))
    np.testing.assert_array_equal(s1, m2.score(vali.features))
    # the stored model holds neither the objective closure nor the baselines
    assert not hasattr(m1, "_baselines") and "objective" not in m1.booster_.params
    restored = pickle.loads(pickle.dumps(m1))
    np.testing.assert_array_equal(restored.score(vali.features), s1)


def test_models_sharing_binned_datasets_grow_the_same_trees(split, lightgbm_datasets_made):
    """learn_files' learners share one LightGBM Dataset pair (``_dataset_cache``): each grows the
    trees it grows when it bins train/vali itself, and other LightGBM parameters bin anew."""
    train, vali, B = split
    cache = {}
    made = lightgbm_datasets_made
    for method, alpha, kw in (("lambdamart", 0.0, {}), ("t-faro", 5.0, {}), ("u-cro", 1.0, {}),
                              ("georisk", 1.0, {"baselines": B})):
        alone = RiskLambdaMARTModel(method=method, alpha=alpha, **SMALL).fit(train, vali, seed=0, **kw)
        shared = RiskLambdaMARTModel(method=method, alpha=alpha, **SMALL)
        shared._dataset_cache = cache
        before = len(made)
        shared.fit(train, vali, seed=0, calibrate=False, **kw)
        assert len(made) - before == (2 if method == "lambdamart" else 0)  # train + vali, by the first model only
        assert shared.booster_.model_to_string() == alone.booster_.model_to_string()
        np.testing.assert_array_equal(shared.score(vali.features), alone.score(vali.features))
        assert len(cache) == 1
    other = RiskLambdaMARTModel(method="t-faro", alpha=5.0, **dict(SMALL, min_data_in_leaf=5))
    other._dataset_cache = cache
    before = len(made)
    other.fit(train, vali, seed=0, calibrate=False)
    assert len(cache) == 2 and len(made) - before == 2
    with pytest.raises(RuntimeError):  # calibrate=False: scores only
        other.predict_proba(vali.features)
