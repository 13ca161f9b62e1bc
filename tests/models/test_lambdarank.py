"""The convention-aware lambda objective: LightGBM's own lambdarank bit for
bit under LightGBM's convention, and zero gradient for the queries that the
LETOR 4.0 rule scores 0 (Busa-Fekete et al. 2012, Sec. 3)."""

import numpy as np
import pytest

lgb = pytest.importorskip("lightgbm")

from evalrank.data.collection import Collection  # noqa: E402
from evalrank.models.lambdamart import LambdaMARTModel  # noqa: E402
from evalrank.models.lambdarank import LambdaObjective, lambda_gradients  # noqa: E402


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
