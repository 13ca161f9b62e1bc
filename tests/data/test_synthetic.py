"""The synthetic MSLR-like generator: determinism, layout, MSLR-like statistics
and learnability (a forest learns a good but imperfect ranker)."""


import numpy as np
import pytest

from evalrank.data import synthetic
from evalrank.data.collection import Collection
from evalrank.data.letor import read_letor
from evalrank.metrics import ndcg

# MSLR's fold rotation, written out here independently of the package.
ROTATION = {
    1: ((1, 2, 3), 4, 5),
    2: ((2, 3, 4), 5, 1),
    3: ((3, 4, 5), 1, 2),
    4: ((4, 5, 1), 2, 3),
    5: ((5, 1, 2), 3, 4),
}
TARGET = np.array([0.52, 0.32, 0.13, 0.02, 0.01])


@pytest.fixture(scope="module")
def part300():
    return synthetic.generate(300, seed=11, partition=1)


def _same(a: Collection, b: Collection) -> bool:
    return (
        np.array_equal(a.features, b.features)
        and np.array_equal(a.labels, b.labels)
        and np.array_equal(a.offsets, b.offsets)
        and np.array_equal(a.qids, b.qids)
    )


def _per_query(c: Collection, values) -> np.ndarray:
    return np.bincount(np.repeat(np.arange(c.n_queries), c.query_sizes), weights=values, minlength=c.n_queries)


# -- determinism ---------------------------------------------------------------
def test_same_seed_same_arrays():
    a = synthetic.generate(40, seed=5, partition=2)
    b = synthetic.generate(40, seed=5, partition=2)
    assert _same(a, b)


def test_partition_and_seed_change_the_data():
    a = synthetic.generate(40, seed=5, partition=2)
    other_partition = synthetic.generate(40, seed=5, partition=3)
    other_seed = synthetic.generate(40, seed=6, partition=2)
    for c in (other_partition, other_seed):
        assert not np.array_equal(a.offsets, c.offsets) or not np.array_equal(a.features, c.features)
        n = min(a.n_docs, c.n_docs)
        assert not np.array_equal(a.features[:n], c.features[:n])
    assert not np.intersect1d(a.qids, other_partition.qids).size  # qids unique across partitions


# -- shape and types -------------------------------------------------------------
def test_shape_dtypes_and_qids(part300):
    c = part300
    assert c.n_queries == 300
    assert c.features.dtype == np.float32 and c.features.shape == (c.n_docs, 136)
    assert c.labels.dtype == np.int8 and c.labels.min() >= 0 and c.labels.max() == 4
    assert c.offsets.dtype == np.int64 and c.qids.dtype == np.int64
    assert np.array_equal(c.qids, 1_000_000 + np.arange(300))
    assert c.query_sizes.min() >= 1
    assert np.isfinite(c.features).all()
    assert len(synthetic.FEATURE_NAMES) == 136
    assert synthetic.FEATURE_NAMES[synthetic.WHOLE_LENGTH_COLUMN] == "stream_length_whole"


def test_n_features_other_than_136():
    base = synthetic.generate(20, seed=1, partition=4)
    fewer = synthetic.generate(20, seed=1, partition=4, n_features=20)
    more = synthetic.generate(20, seed=1, partition=4, n_features=140)
    assert fewer.n_features == 20 and more.n_features == 140
    assert np.array_equal(fewer.features, base.features[:, :20])
    assert np.array_equal(more.features[:, :136], base.features)
    assert np.array_equal(fewer.labels, base.labels)
    with pytest.raises(ValueError):
        synthetic.generate(5, seed=1, n_features=14)


# -- MSLR-like statistics ----------------------------------------------------------
def test_grade_marginals_near_mslr(part300):
    share = np.bincount(part300.labels, minlength=5) / part300.n_docs
    assert np.all(np.abs(share - TARGET) <= np.array([0.05, 0.03, 0.025, 0.008, 0.005])), share


def test_grades_vary_between_queries(part300):
    c = part300
    frac = _per_query(c, c.labels > 0) / c.query_sizes
    big = c.query_sizes >= 20
    assert np.mean(frac[big] >= 0.75) > 0.02  # queries with mostly relevant documents ...
    assert np.mean(frac[big] <= 0.25) > 0.02  # ... and queries with few
    n_top = _per_query(c, c.labels >= 3)
    assert np.mean(n_top[big] == 0) > 0.05 and n_top.max() >= 5


def test_queries_without_relevant_documents():
    n = 300
    for p in (0.03, 0.2):
        c = synthetic.generate(n, seed=2, partition=1, p_no_relevant=p)
        empty = np.mean(_per_query(c, c.labels >= 1) == 0)
        tol = 3.5 * np.sqrt(p * (1 - p) / n) + 0.01  # binomial sampling error
        assert 0 < empty and abs(empty - p) < tol, (p, empty)
    share = np.bincount(c.labels, minlength=5) / c.n_docs  # forced queries are compensated for
    assert abs(share[0] - TARGET[0]) < 0.05, share


def test_documents_per_query_heavy_tailed():
    c = synthetic.generate(1000, seed=3, partition=5)
    sizes = c.query_sizes
    assert 105 <= sizes.mean() <= 135
    assert np.median(sizes) < sizes.mean()
    assert 0.01 <= np.mean(sizes < 10) <= 0.08
    assert sizes.max() >= 500 and sizes.max() <= 1251
    assert np.percentile(sizes, 95) > 2 * np.median(sizes)


def test_length_features_heavy_tailed_integers(part300):
    L = part300.features[:, list(synthetic.LENGTH_COLUMNS)].astype(np.float64)
    assert (L >= 0).all() and np.array_equal(L, np.round(L))
    body, anchor, title, url, whole = L.T
    assert np.array_equal(whole, body + anchor + title + url)
    assert np.median(body / np.maximum(whole, 1)) > 0.8  # body dominates
    assert 0.3 < np.mean(anchor == 0) < 0.8  # anchor often empty
    assert np.percentile(whole, 99) > 5 * np.median(whole)  # heavy tail
    assert whole.max() > 20 * np.median(whole)


def _python_calls(n_queries: int) -> int:
    """Function calls (Python and C) made from Python while generating ``n_queries`` queries."""
    import sys

    count = [0]

    def profile(frame, event, arg):
        if event in ("call", "c_call"):   # Python functions and C functions (numpy, rng) alike
            count[0] += 1

    synthetic.generate(20, seed=0, partition=1)   # first-call costs (imports, caches) out of the count
    sys.setprofile(profile)
    try:
        c = synthetic.generate(n_queries, seed=0, partition=1)
    finally:
        sys.setprofile(None)
    assert c.n_queries == n_queries
    return count[0]


def test_generation_is_vectorised():
    """No Python loop over queries or documents: ten times the queries make no more Python
    calls (a per-query loop would make about ten times as many). Counted, not timed."""
    small, large = _python_calls(150), _python_calls(1500)
    assert large <= small + 50, (small, large)


# -- MSLR folder layout -------------------------------------------------------------
def test_synthesize_writes_mslr_rotation(tmp_path):
    written = synthetic.synthesize(tmp_path, n_queries_per_partition=6, seed=4, mean_docs=15)
    assert len(written) == 15
    parts = {k: synthetic.generate(6, seed=4, partition=k, mean_docs=15) for k in range(1, 6)}
    tested = []
    for fold, (train, vali, test) in ROTATION.items():
        for split, members in (("train", train), ("vali", (vali,)), ("test", (test,))):
            got = read_letor(tmp_path / f"Fold{fold}" / f"{split}.txt", n_features=136, max_grade=4,
                             show_progress=False)
            want = Collection.concat([parts[m] for m in members])
            assert _same(got, want), (fold, split)
        tested.append(test)
    assert sorted(tested) == [1, 2, 3, 4, 5]  # every partition is a test set exactly once
    # the workflow's layout: each partition once, where partition_file looks for it
    from evalrank.data.datasets import partition_file

    only = synthetic.synthesize(tmp_path / "p", n_queries_per_partition=6, seed=4, mean_docs=15, layout="partitions")
    assert sorted(only) == sorted(partition_file(tmp_path / "p", k) for k in range(1, 6))
    for k in range(1, 6):
        got = read_letor(partition_file(tmp_path / "p", k), n_features=136, max_grade=4, show_progress=False)
        assert _same(got, parts[k])


def test_query_level_norm_is_letor4_shaped():
    raw = synthetic.generate(20, seed=2, partition=1, n_features=46)
    c = synthetic.generate(20, seed=2, partition=1, n_features=46, feature_norm="query")
    np.testing.assert_array_equal(c.labels, raw.labels)
    X = c.features.astype(np.float64)
    assert X.min() >= 0 and X.max() <= 1
    for q in range(c.n_queries):
        block = X[c.offsets[q]:c.offsets[q + 1]]
        span = np.ptp(raw.features[c.offsets[q]:c.offsets[q + 1]], axis=0) > 0
        np.testing.assert_allclose(block.max(axis=0)[span], 1.0, atol=1e-6)
        np.testing.assert_allclose(block.min(axis=0), 0.0, atol=1e-6)
    assert not np.all(X[:, 14] == np.floor(X[:, 14]))  # the whole-document length is no longer a length


# -- learnability ------------------------------------------------------------------------
def test_forest_learns_a_good_but_imperfect_ranker():
    from sklearn.ensemble import RandomForestRegressor
    from sklearn.linear_model import Ridge
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    train = synthetic.generate(100, seed=0, partition=1)  # ~12k query-document pairs
    test = synthetic.generate(300, seed=0, partition=2)
    forest = RandomForestRegressor(
        n_estimators=40, min_samples_leaf=30, max_features=0.3, n_jobs=2, random_state=0
    ).fit(train.features, train.labels)
    linear = make_pipeline(StandardScaler(), Ridge(alpha=1.0)).fit(train.features, train.labels)

    def score(s):
        return ndcg(s, test.labels, test.offsets, k=10).mean()

    rf = score(forest.predict(test.features))
    lin = score(linear.predict(test.features))
    rand = score(np.random.default_rng(0).random(test.n_docs))
    assert 0.35 <= rf <= 0.55, rf
    assert lin <= rf - 0.03, (rf, lin)
    assert lin >= rand + 0.1, (lin, rand)
    assert 0.12 <= rand <= 0.25, rand


def test_generator_defaults_are_the_config_schema_defaults():
    """generate / partition_query_sizes take their keyword defaults from the config schema (read once,
    SCHEMA_DEFAULTS), not from literals: a config that leaves a key out and a call that leaves the
    keyword out get the same value."""
    import ast
    import inspect

    from evalrank.config import schema_default

    syn = schema_default("dataset.synthetic")
    expected = {"n_features": schema_default("dataset.n_features"),
                **{k: v for k, v in syn.items() if k != "queries_per_partition"}}
    assert synthetic.SCHEMA_DEFAULTS == expected
    for fn in (synthetic.generate, synthetic.partition_query_sizes):
        params = inspect.signature(fn).parameters
        shared = [k for k in expected if k in params]
        assert shared and all(params[k].default == expected[k] for k in shared), fn.__name__
        tree = ast.parse(inspect.getsource(fn).split(":\n", 1)[0] + ":\n    pass")  # the signature only
        literal = [a.arg for a, d in zip(tree.body[0].args.kwonlyargs, tree.body[0].args.kw_defaults)
                   if a.arg in expected and isinstance(d, ast.Constant)]
        assert literal == [], f"{fn.__name__} restates the schema's default of {literal}"


def test_default_grade_marginals_are_mslr_s():
    """grade_marginals None (the schema's default) is MSLR-WEB30K's marginals, as passing them."""
    a = synthetic.generate(30, seed=3, partition=1)
    b = synthetic.generate(30, seed=3, partition=1, grade_marginals=synthetic.DEFAULT_GRADE_MARGINALS)
    np.testing.assert_array_equal(a.labels, b.labels)
    np.testing.assert_array_equal(a.features, b.features)


@pytest.mark.parametrize("kwargs, n_docs, digest", [
    (dict(seed=1, partition=1), 990, "915e6eab68314cb4feb0852e"),
    (dict(seed=7, partition=3, grade_marginals=(0.5, 0.3, 0.2), feature_norm="query"), 1735,
     "258ce0665c65cddf4efb0700"),
    (dict(seed=2, partition=2, p_small=0.5, max_docs=5, n_features=140, p_no_relevant=0.4), 60,
     "e3f09dc8ea1baa08b33be35d"),
])
def test_generate_draws_the_same_numbers(kwargs, n_docs, digest):
    """The partition's random stream draws the same numbers in the same order as when the
    digests were recorded (2026-11-26, numpy 2.4): a refactoring of generate that reorders
    draws, or a change of the generator, changes every derived dataset and shows here."""
    import hashlib

    c = synthetic.generate(12, **kwargs)
    h = hashlib.sha256()
    for a in (c.features, c.labels, c.offsets, c.qids):
        h.update(np.ascontiguousarray(a).tobytes())
    assert (c.n_docs, h.hexdigest()[:24]) == (n_docs, digest)
