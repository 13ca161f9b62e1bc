"""The convention-aware lambda objective: LightGBM's own lambdarank bit for
bit under LightGBM's convention, and zero gradient for the queries that the
LETOR 4.0 rule scores 0 (Busa-Fekete et al. 2012, Sec. 3)."""

import numpy as np
import pytest

lgb = pytest.importorskip("lightgbm")

from evalrank.data.collection import Collection  # noqa: E402
from evalrank.models.lambdamart import LambdaMARTModel  # noqa: E402
from evalrank.models.lambdarank import LambdaObjective, exp_matches_table, lambda_gradients, sigmoid_table  # noqa: E402


def ranking_data(seed, n_queries=150, max_docs=40, n_features=6):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_docs, size=n_queries)
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    n = int(offsets[-1])
    X = rng.normal(size=(n, n_features))
    y = np.clip(np.round(X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=n)).astype(int) + 1, 0, 4)
    return X, y, offsets


LGB_COMMON = dict(num_leaves=10, learning_rate=0.1, deterministic=True, force_row_wise=True, num_threads=1,
                  verbose=-1, min_data_in_leaf=20, seed=1)


@pytest.mark.parametrize("convention", ["lightgbm", None])
@pytest.mark.parametrize("truncation_level", [30, 5])
def test_custom_objective_trains_lightgbms_lambdarank_bit_for_bit(convention, truncation_level):
    X, y, offsets = ranking_data(0)
    sizes = np.diff(offsets)
    params = dict(LGB_COMMON, lambdarank_truncation_level=truncation_level)
    builtin = lgb.train(dict(params, objective="lambdarank"), lgb.Dataset(X, y, group=sizes), num_boost_round=15)
    obj = LambdaObjective(y, offsets, convention=convention, truncation_level=truncation_level)
    custom = lgb.train(dict(params, objective=lambda p, d: obj(p)), lgb.Dataset(X, y, group=sizes),
                       num_boost_round=15)
    np.testing.assert_array_equal(builtin.predict(X), custom.predict(X))


def test_letor4_gives_zero_gradient_to_queries_shorter_than_k():
    X, y, offsets = ranking_data(1)
    scores = np.random.default_rng(2).normal(size=y.size)
    sizes = np.diff(offsets)
    seg = np.repeat(np.arange(sizes.size), sizes)
    short = (sizes < 10)[seg]
    informative = np.array([len(set(y[a:b])) > 1 for a, b in zip(offsets[:-1], offsets[1:])])[seg]
    g4, h4 = lambda_gradients(scores, y, offsets, convention="letor4", k=10)
    g3, h3 = lambda_gradients(scores, y, offsets, convention="letor3", k=10)
    assert np.all(g4[short] == 0) and np.all(h4[short] == 0)
    assert np.any(g3[short & informative] != 0)  # the standard convention does learn from them
    np.testing.assert_array_equal(g4[~short], g3[~short])  # elsewhere the two agree
    gl, _ = lambda_gradients(scores, y, offsets, convention="trec", k=10)  # linear gain
    assert np.any(gl[~short & informative] != g3[~short & informative])


def test_lambdas_sum_to_zero_and_push_relevant_documents_up():
    X, y, offsets = ranking_data(3)
    g, h = lambda_gradients(np.zeros(y.size), y, offsets, norm=False)
    for a, b in zip(offsets[:-1], offsets[1:]):
        assert abs(g[a:b].sum()) < 1e-5
    assert np.all(h >= 0)
    top = y == 4
    assert np.mean(g[top]) < 0 < np.mean(g[y == 0])  # LightGBM's sign: gradient of a loss


def collection(X, y, offsets):
    return Collection(features=X.astype(np.float32), labels=y.astype(np.int8), offsets=offsets,
                      qids=np.arange(len(offsets) - 1, dtype=np.int64))


def test_lambdamart_under_letor4_ignores_the_content_of_short_queries():
    X, y, offsets = ranking_data(4, n_queries=120)
    Xv, yv, ov = ranking_data(5, n_queries=60)
    sizes = np.diff(offsets)
    seg = np.repeat(np.arange(sizes.size), sizes)
    short = (sizes < 10)[seg]
    y_alt = y.copy()
    y_alt[short] = np.random.default_rng(6).permutation(y[short])  # scramble the short queries' labels
    X_alt = X.copy()

    def fit(labels, convention):
        # min_data_in_leaf=1 and no row subsampling, so that rows with zero gradient cannot move a split
        m = LambdaMARTModel(convention=convention, num_boost_round=15, early_stopping_rounds=15,
                            num_leaves=10, min_data_in_leaf=1)
        m.fit(collection(X_alt, labels, offsets), collection(Xv, yv, ov), grid=None, seed=0)
        return m.score(Xv)

    # under LETOR 4.0 the short queries have zero gradient *and* zero hessian: the trees do not see them
    np.testing.assert_array_equal(fit(y, "letor4"), fit(y_alt, "letor4"))
    assert not np.array_equal(fit(y, "letor3"), fit(y_alt, "letor3"))


def test_bad_arguments():
    y = np.array([1, 0, 2])
    off = np.array([0, 3])
    with pytest.raises(ValueError, match="truncation_level"):
        LambdaObjective(y, off, truncation_level=0)
    with pytest.raises(ValueError, match="sigmoid"):
        LambdaObjective(y, off, sigmoid=0.0)
    with pytest.raises(ValueError, match="convention"):
        LambdaObjective(y, off, convention="letor")
    with pytest.raises(ValueError, match="scores must have shape"):
        LambdaObjective(y, off)(np.zeros(2))


# ---------------------------------------------------------------------------
# the compiled kernel against a literal pure-Python transcription of LightGBM's
# GetGradientsForOneQuery (float32 sums per document, in LightGBM's pair order)
# ---------------------------------------------------------------------------
def _lightgbm_loop(scores, labels, offsets, gain, disc, inv_max_dcg, *, trunc, norm, faro_alpha=None):
    table, lo, hi, factor = sigmoid_table(1.0)
    f32 = np.float32
    grad = np.zeros(scores.size, dtype=np.float32)
    hess = np.zeros(scores.size, dtype=np.float32)
    for q in range(offsets.size - 1):
        a, cnt = int(offsets[q]), int(offsets[q + 1] - offsets[q])
        if cnt == 0:
            continue
        s = [float(v) for v in scores[a:a + cnt]]
        order = sorted(range(cnt), key=lambda t: -s[t])  # Python's sort is stable
        best = s[order[0]]
        w = cnt - 1
        if w > 0 and s[order[w]] == -np.inf:
            w -= 1
        worst = s[order[w]]
        lam_sum = 0.0
        i = 0
        while i < cnt - 1 and i < trunc:
            if s[order[i]] != -np.inf:
                for j in range(i + 1, cnt):
                    u, v = order[i], order[j]
                    if s[v] == -np.inf or labels[a + u] == labels[a + v]:
                        continue
                    (hd, hr), (ld, lr) = ((u, i), (v, j)) if labels[a + u] > labels[a + v] else ((v, j), (u, i))
                    ds = s[hd] - s[ld]
                    delta = (gain[labels[a + hd]] - gain[labels[a + ld]]) * abs(disc[hr] - disc[lr]) * inv_max_dcg[q]
                    if faro_alpha is not None:  # T-FARO's (1 + beta_j) |dM|, signed and back
                        delta = abs((1.0 + faro_alpha[q]) * (delta if hr > lr else -delta))
                    if norm and best != worst:
                        delta /= float(f32(0.01)) + abs(ds)
                    p = table[0] if ds <= lo else table[-1] if ds >= hi else table[int((ds - lo) * factor)]
                    p_hess = p * (1.0 - p)
                    p_lam = p * (-1.0 * delta)
                    p_hess *= 1.0 * 1.0 * delta
                    grad[a + ld] = f32(grad[a + ld] - f32(p_lam))
                    hess[a + ld] = f32(hess[a + ld] + f32(p_hess))
                    grad[a + hd] = f32(grad[a + hd] + f32(p_lam))
                    hess[a + hd] = f32(hess[a + hd] + f32(p_hess))
                    lam_sum -= 2.0 * p_lam
            i += 1
        if norm and lam_sum > 0:
            f = np.log2(1.0 + lam_sum) / lam_sum
            for t in range(a, a + cnt):
                grad[t] = f32(float(grad[t]) * f)
                hess[t] = f32(float(hess[t]) * f)
    return grad.astype(np.float64), hess.astype(np.float64)


def _kernel_case(seed):
    """Queries of 0 to 70 documents (the kernel's sort merges runs of 16), tied scores, -inf scores."""
    rng = np.random.default_rng(seed)
    sizes = np.concatenate(([0, 1, 2, 17, 33, 70], rng.integers(0, 70, size=20)))
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    n = int(offsets[-1])
    y = rng.integers(0, 5, size=n)
    scores = np.round(rng.normal(size=n), 1)  # many ties: the stable order matters
    scores[rng.random(n) < 0.05] = -np.inf
    return scores, y, offsets


@pytest.mark.parametrize("trunc,norm", [(30, True), (30, False), (5, True)])
@pytest.mark.parametrize("seed", [0, 1])
def test_kernel_equals_the_python_transcription_bit_for_bit(trunc, norm, seed):
    from evalrank.models.lambdarank import _MODE_FARO, _Q_ALPHA, _lambda_kernel

    scores, y, offsets = _kernel_case(seed)
    obj = LambdaObjective(y, offsets, convention="lightgbm", truncation_level=trunc, norm=norm)
    g, h = obj(scores)
    g_ref, h_ref = _lightgbm_loop(scores, y, offsets, obj.gain, obj.disc, obj.inv_max_dcg, trunc=trunc, norm=norm)
    np.testing.assert_array_equal(g, g_ref)
    np.testing.assert_array_equal(h, h_ref)
    assert np.count_nonzero(g) > y.size // 2
    # a per-query pair weight (the risk kernel's T-FARO mode) goes through the same loop
    alpha = np.random.default_rng(seed).uniform(0, 5, size=offsets.size - 1)
    qstate = np.zeros((5, offsets.size - 1))
    qstate[_Q_ALPHA] = alpha
    g2_ref, h2_ref = _lightgbm_loop(scores, y, offsets, obj.gain, obj.disc, obj.inv_max_dcg, trunc=trunc, norm=norm,
                                    faro_alpha=alpha)
    # the sigmoid read from the table, and recomputed where that gives the table's bits
    for recompute in sorted({False, exp_matches_table()}):
        g2, h2 = _lambda_kernel(scores, obj.labels, obj.offsets, obj.gain, obj.disc, obj.inv_max_dcg, obj.active,
                                obj.trunc, obj.sigmoid, obj.norm, obj.table, obj.lo, obj.hi, obj.factor, _MODE_FARO,
                                qstate, np.zeros(6), recompute)
        np.testing.assert_array_equal(g2, g2_ref)
        np.testing.assert_array_equal(h2, h2_ref)
    assert not np.array_equal(g2, g)


def test_the_kernels_query_chunks_on_two_threads_give_the_same_bits():
    """More queries than the kernel's parallel chunks (several queries a chunk, chunk edges between
    queries of every size), on one thread and on two: the Python transcription's gradients both times."""
    from evalrank.models.lambdarank import _CHUNKS

    rng = np.random.default_rng(4)
    sizes = rng.integers(0, 40, size=2 * _CHUNKS + 37)
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    y = rng.integers(0, 5, size=int(offsets[-1]))
    scores = np.round(rng.normal(size=y.size), 1)
    want = None
    for n_jobs in (1, 2):
        obj = LambdaObjective(y, offsets, convention="lightgbm", n_jobs=n_jobs)
        if want is None:
            want = _lightgbm_loop(scores, y, offsets, obj.gain, obj.disc, obj.inv_max_dcg, trunc=30, norm=True)
        g, h = obj(scores)
        np.testing.assert_array_equal(g, want[0])
        np.testing.assert_array_equal(h, want[1])
    with pytest.raises(ValueError, match="n_jobs"):
        LambdaObjective(y, offsets, n_jobs=0)


def test_the_objective_times_both_sigmoid_ways_then_keeps_one_with_the_same_gradients(monkeypatch):
    from evalrank.models import lambdarank as lr

    table, lo, _, factor = sigmoid_table(1.0)
    entries = lr._sigmoid_entries(table.size, lo, factor, 1.0)
    assert np.abs(entries - table).max() <= 1e-15  # the same function (bitwise equality is the machine's)
    both = lr.exp_matches_table()
    assert both is bool(np.array_equal(entries, table))
    scores, y, offsets = _kernel_case(3)
    table_only = LambdaObjective(y, offsets)
    table_only.recompute = False
    want = table_only(scores)
    used, kernel = [], lr._lambda_kernel
    monkeypatch.setattr(lr, "_lambda_kernel", lambda *a: (used.append(a[-1]), kernel(*a))[1])
    obj = LambdaObjective(y, offsets)
    assert obj.recompute is (None if both else False)
    n_calls = 2 * lr.SIGMOID_TRIALS + 4
    for _ in range(n_calls):
        g, h = obj(scores)
        np.testing.assert_array_equal(g, want[0])
        np.testing.assert_array_equal(h, want[1])
    if both:  # one untimed call, then both ways in turn, then the faster one only
        trials = 1 + 2 * lr.SIGMOID_TRIALS
        assert used[:trials] == [False] + [False, True] * lr.SIGMOID_TRIALS
        assert obj.recompute in (False, True) and used[trials:] == [obj.recompute] * (n_calls - trials)
    else:
        assert used == [False] * n_calls
    monkeypatch.setitem(lr._EXP_MATCHES, 1.0, False)  # a machine whose exp differs from NumPy's: the table only
    assert LambdaObjective(y, offsets).recompute is False


def test_stable_order_is_numpys_stable_argsort():
    from evalrank.models.lambdarank import _stable_order_desc

    rng = np.random.default_rng(7)
    for n in [1, 2, 15, 16, 17, 31, 32, 33, 64, 100, 257]:
        for _ in range(5):
            s = np.round(rng.normal(size=n), 1)
            s[rng.random(n) < 0.1] = -np.inf
            s[rng.random(n) < 0.05] = np.inf
            s[rng.random(n) < 0.1] = -0.0  # equal to 0.0: a tie
            order = np.full(n, -1, dtype=np.int64)
            _stable_order_desc(s, order, np.empty(n, dtype=np.int64))
            np.testing.assert_array_equal(order, np.argsort(-s, kind="mergesort"))
