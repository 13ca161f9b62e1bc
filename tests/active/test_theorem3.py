"""Exact moments of DCG / ERR under a label model (evalrank.active.theorem3)
against brute-force enumeration of every label vector, Monte Carlo on long
lists, the batched/per-query equivalence and the input checks."""

import itertools

import numpy as np
import pytest

from evalrank.active import batch_difference_moments, batch_moments, difference_moments, moments
from evalrank.metrics import dcg, err, rank_order

MEASURES = ("dcg", "err")
CENTERS = (0.0, 0.35, -1.25, 4.0)


def random_probs(rng, n_docs, n_grades, special=True):
    """Dirichlet rows; with ``special`` some rows get a zero entry and one row is one-hot."""
    p = rng.dirichlet(np.full(n_grades, 0.8), size=n_docs)
    if special and n_docs >= 3:
        p[0, rng.integers(n_grades)] = 0.0
        p[0] /= p[0].sum()
        p[1] = 0.0
        p[1, rng.integers(n_grades)] = 1.0
        p[2, 0] = 0.0
        p[2] /= p[2].sum()
    return p


def measure_values(measure, label_matrix, ranking, k, max_grade):
    """L(ranking, y) for every row y of label_matrix, via evalrank.metrics."""
    n_vec = label_matrix.shape[0]
    n = len(ranking)
    if n == 0:
        return np.zeros(n_vec)
    labels = label_matrix[:, ranking].ravel()
    scores = np.tile(np.arange(n, 0, -1, dtype=np.float64), n_vec)  # keeps `ranking`'s order
    offsets = np.arange(n_vec + 1) * n
    if measure == "dcg":
        return dcg(scores, labels, offsets, k)
    return err(scores, labels, offsets, k, max_grade=max_grade)


def brute_force(probs, rankings, measure, k):
    """Every label vector over all rows of probs: (values per ranking, probability)."""
    n_docs, n_grades = probs.shape
    ys = np.array(list(itertools.product(range(n_grades), repeat=n_docs)), dtype=np.int64)
    weight = np.prod(probs[np.arange(n_docs), ys], axis=1)
    values = [measure_values(measure, ys, np.asarray(r, dtype=np.int64), k, n_grades - 1) for r in rankings]
    return values, weight


def assert_close(got, want, scale):
    assert got == pytest.approx(want, rel=1e-12, abs=1e-13 * max(scale, 1.0))


@pytest.mark.parametrize("measure", MEASURES)
@pytest.mark.parametrize("k", [None, 1, 3])
@pytest.mark.parametrize("n_docs,n_grades,seed", [(6, 3, 0), (5, 4, 1), (5, 5, 2), (1, 3, 3), (4, 2, 4)])
def test_single_matches_brute_force(measure, k, n_docs, n_grades, seed):
    rng = np.random.default_rng(seed)
    probs = random_probs(rng, n_docs, n_grades)
    ranking = rng.permutation(n_docs)
    for ranked in (ranking, ranking[: max(1, n_docs - 2)]):  # all documents, or a subset of the rows
        (vals,), w = brute_force(probs, [ranked], measure, k)
        want_mean = float(w @ vals)
        for c in CENTERS:
            mean, second = moments(probs, ranked, measure, center=c, k=k)
            want_second = float(w @ (vals - c) ** 2)
            assert_close(mean, want_mean, abs(want_mean))
            assert_close(second, want_second, want_second)


def difference_cases(rng, n_docs):
    perm = rng.permutation(n_docs)
    half = n_docs // 2
    return {
        "identical": (perm, perm.copy()),
        "reversed": (perm, perm[::-1].copy()),
        "b_drops_docs": (perm, np.delete(perm, [1, n_docs - 2])),
        "b_has_extra_docs": (perm[:-2], rng.permutation(n_docs)),
        "disjoint": (perm[:half], perm[half:]),
        "partial_overlap_shuffled": (perm[:-1], rng.permutation(perm[1:])),
        "b_empty": (perm, perm[:0]),
        "a_single_doc_in_b": (perm[2:3], perm),
    }


@pytest.mark.parametrize("measure", MEASURES)
@pytest.mark.parametrize("k", [None, 2, 4])
@pytest.mark.parametrize("n_docs,n_grades,seed", [(6, 3, 10), (5, 5, 11), (6, 4, 12)])
def test_difference_matches_brute_force(measure, k, n_docs, n_grades, seed):
    rng = np.random.default_rng(seed)
    probs = random_probs(rng, n_docs, n_grades)
    for name, (ra, rb) in difference_cases(rng, n_docs).items():
        (va, vb), w = brute_force(probs, [ra, rb], measure, k)
        delta = va - vb
        want_mean = float(w @ delta)
        scale = float(w @ (va**2 + vb**2))
        for c in CENTERS:
            mean, second = difference_moments(probs, ra, rb, measure, center=c, k=k)
            want_second = float(w @ (delta - c) ** 2)
            assert_close(mean, want_mean, scale)
            assert_close(second, want_second, scale + c * c)
            if name == "identical":
                assert mean == 0.0 and second == c * c


@pytest.mark.parametrize("k", [None, 3])
def test_deterministic_labels_agree_with_metrics(k):
    """One-hot probs: mean equals evalrank.metrics (DCG bit for bit), zero variance."""
    rng = np.random.default_rng(5)
    sizes = rng.integers(1, 25, size=30)
    offsets = np.concatenate(([0], np.cumsum(sizes)))
    n = int(offsets[-1])
    labels = rng.integers(0, 5, size=n)
    scores = rng.normal(size=n)
    probs = np.eye(5)[labels]
    order = rank_order(scores, offsets)
    mean, second = batch_moments(probs, offsets, order, "dcg", k=k)
    want = dcg(scores, labels, offsets, k)
    np.testing.assert_array_equal(mean, want)
    np.testing.assert_array_equal(second, want**2)
    mean, second = batch_moments(probs, offsets, order, "err", center=0.2, k=k)
    want = err(scores, labels, offsets, k, max_grade=4)
    np.testing.assert_allclose(mean, want, rtol=1e-13, atol=0)
    np.testing.assert_allclose(second, (want - 0.2) ** 2, rtol=1e-12, atol=1e-16)
    # and the difference of two rankings of the same documents
    order_b = rank_order(-scores, offsets)
    for measure, fn in (("dcg", dcg), ("err", err)):
        mean, second = batch_difference_moments(probs, offsets, order, offsets, order_b, measure, k=k)
        want = fn(scores, labels, offsets, k) - fn(-scores, labels, offsets, k)
        np.testing.assert_allclose(mean, want, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(second, want**2, rtol=1e-11, atol=1e-14)


def sample_labels(rng, probs, n_draws):
    cum = np.cumsum(probs, axis=1)
    u = rng.random((n_draws, probs.shape[0], 1))
    return (u > cum[None, :, :-1]).sum(axis=2)


def dcg_rows(labels, ranking, k):
    r = ranking[:k]
    w = 1.0 / np.log2(np.arange(len(r)) + 2.0)
    return (np.exp2(labels[:, r]) - 1.0) @ w


def err_rows(labels, ranking, k, max_grade):
    r = ranking[:k]
    stop = (np.exp2(labels[:, r]) - 1.0) / 2.0**max_grade
    reach = np.cumprod(1.0 - stop, axis=1)
    reach = np.concatenate([np.ones((len(labels), 1)), reach[:, :-1]], axis=1)
    return (stop * reach) @ (1.0 / np.arange(1, len(r) + 1))


def within_5_se(samples, mean_got, second_got, c):
    n = len(samples)
    m = samples.mean()
    assert abs(mean_got - m) <= 5 * samples.std() / np.sqrt(n) + 1e-12
    sq = (samples - c) ** 2
    assert abs(second_got - sq.mean()) <= 5 * sq.std() / np.sqrt(n) + 1e-12


@pytest.mark.parametrize("measure", MEASURES)
def test_monte_carlo_long_lists(measure):
    rng = np.random.default_rng(7)
    n_docs, n_grades, n_draws = 110, 5, 200_000
    probs = random_probs(rng, n_docs, n_grades)
    ra = rng.permutation(n_docs)[:100]
    rb_drop = np.delete(ra, rng.choice(100, 10, replace=False))
    rb_reorder = rng.permutation(np.concatenate([ra[5:], np.arange(n_docs)[~np.isin(np.arange(n_docs), ra)]]))
    k = None if measure == "dcg" else 60
    values = {"a": [], "drop": [], "reorder": []}
    for chunk in range(4):
        y = sample_labels(rng, probs, n_draws // 4)
        for key, r in (("a", ra), ("drop", rb_drop), ("reorder", rb_reorder)):
            values[key].append(dcg_rows(y, r, k) if measure == "dcg" else err_rows(y, r, k, n_grades - 1))
    values = {key: np.concatenate(v) for key, v in values.items()}
    c = float(values["a"].mean()) * 0.8
    within_5_se(values["a"], *moments(probs, ra, measure, center=c, k=k), c)
    for key, rb in (("drop", rb_drop), ("reorder", rb_reorder)):
        delta = values["a"] - values[key]
        within_5_se(delta, *difference_moments(probs, ra, rb, measure, center=0.01, k=k), 0.01)


def random_pool(rng, n_queries=50, n_grades=5):
    sizes = rng.integers(0, 40, size=n_queries)
    sizes[3], sizes[7] = 1, 0
    offsets = np.concatenate(([0], np.cumsum(sizes)))
    n = int(offsets[-1])
    probs = random_probs(rng, n, n_grades)
    order_a = rank_order(rng.normal(size=n), offsets)
    # b: per query drop ~10% and shuffle half of the queries; one query borrows rows of another
    parts, sizes_b = [], []
    for q in range(n_queries):
        a = order_a[offsets[q]:offsets[q + 1]]
        b = a[rng.random(len(a)) > 0.1]
        if q % 2:
            b = rng.permutation(b)
        if q == 10:
            b = np.concatenate([b, order_a[offsets[11]:offsets[11] + 3]])
        parts.append(b)
        sizes_b.append(len(b))
    offsets_b = np.concatenate(([0], np.cumsum(sizes_b)))
    return probs, offsets, order_a, offsets_b, np.concatenate(parts).astype(np.int64)


@pytest.mark.parametrize("measure", MEASURES)
@pytest.mark.parametrize("k", [None, 5])
def test_batched_equals_per_query(measure, k):
    rng = np.random.default_rng(8)
    probs, off_a, order_a, off_b, order_b = random_pool(rng)
    nq = len(off_a) - 1
    centers = rng.normal(size=nq)
    mean, second = batch_moments(probs, off_a, order_a, measure, center=centers, k=k)
    dmean, dsecond = batch_difference_moments(probs, off_a, order_a, off_b, order_b, measure, center=centers, k=k)
    smean, ssecond = batch_moments(probs, off_a, order_a, measure, center=0.5, k=k)
    for q in range(nq):
        ra, rb = order_a[off_a[q]:off_a[q + 1]], order_b[off_b[q]:off_b[q + 1]]
        assert (mean[q], second[q]) == pytest.approx(moments(probs, ra, measure, centers[q], k), rel=1e-14)
        assert (smean[q], ssecond[q]) == pytest.approx(moments(probs, ra, measure, 0.5, k), rel=1e-14)
        got = difference_moments(probs, ra, rb, measure, centers[q], k)
        assert (dmean[q], dsecond[q]) == pytest.approx(got, rel=1e-14, abs=1e-300)
    assert mean[7] == 0.0 and second[7] == centers[7] ** 2  # the empty query
    assert moments(probs, [], measure, center=-2.0) == (0.0, 4.0)
    assert difference_moments(probs, [], [], measure, center=3.0) == (0.0, 9.0)


def test_batched_single_doc_query_by_hand():
    probs = np.array([[0.5, 0.25, 0.25]])
    # DCG: G in {0, 1, 3}; E = 1, E[G^2] = 2.5; ERR: R = G / 4
    assert moments(probs, [0], "dcg") == pytest.approx((1.0, 2.5))
    assert moments(probs, [0], "err", center=0.25) == pytest.approx((0.25, 2.5 / 16 - 1 / 16))


@pytest.mark.parametrize("measure", MEASURES)
def test_long_lists_do_not_underflow(measure):
    rng = np.random.default_rng(9)
    n, n_grades = 1000, 5
    probs = np.full((n, n_grades), 1e-9)
    probs[:, -1] = 1.0 - 1e-9 * (n_grades - 1)  # nearly certain perfectly relevant
    probs[::7] = rng.dirichlet(np.ones(n_grades), size=len(probs[::7]))
    probs[5] = np.eye(n_grades)[0]  # E[R] = 0 for one document
    ra = rng.permutation(n)
    rb = np.delete(ra, rng.choice(n, 100, replace=False))
    for center in (0.0, 0.9):
        mean, second = moments(probs, ra, measure, center=center)
        assert np.isfinite(mean) and np.isfinite(second) and second >= 0
        for rb_ in (rb, rng.permutation(ra), ra[::-1]):
            dm, ds = difference_moments(probs, ra, rb_, measure, center=center)
            assert np.isfinite(dm) and np.isfinite(ds) and ds >= 0
    if measure == "err":
        # the first document is almost surely "stopping": ERR ~ R(y_max) = 15/16 at most
        mean, second = moments(probs, ra, "err")
        assert 0 < mean < 1 and second <= mean
    # all-irrelevant certainties: no 0/0 anywhere
    zero = np.tile(np.eye(n_grades)[0], (n, 1))
    assert moments(zero, ra, measure, center=1.0) == (0.0, 1.0)
    assert difference_moments(zero, ra, rb, measure) == (0.0, 0.0)


def test_input_errors():
    probs = np.full((4, 3), 1 / 3)
    r = np.arange(4)
    with pytest.raises(ValueError, match="probs must be a 2-d"):
        moments(np.ones(3) / 3, r, "dcg")
    with pytest.raises(TypeError, match="probs must be a numeric"):
        moments(np.full((4, 3), "a"), r, "dcg")
    with pytest.raises(ValueError, match="at least 2 grade"):
        moments(np.ones((4, 1)), r, "dcg")
    bad = probs.copy()
    bad[2] = [1.5, -0.5, 0.0]
    with pytest.raises(ValueError, match="non-negative; row 2"):
        moments(bad, r, "dcg")
    bad = probs.copy()
    bad[3] = [0.5, 0.2, 0.2]
    with pytest.raises(ValueError, match="row 3 sums to 0.9"):
        moments(bad, r, "err")
    bad = probs.copy()
    bad[1, 1] = np.nan
    with pytest.raises(ValueError, match="row 1 contains a non-finite"):
        moments(bad, r, "err")
    with pytest.raises(ValueError, match="ranking must be a 1-d"):
        moments(probs, r[None, :], "dcg")
    with pytest.raises(TypeError, match="ranking must contain integer"):
        moments(probs, r.astype(float), "dcg")
    with pytest.raises(ValueError, match=r"ranking\[1\] = 4 is out of range for probs with 4 rows"):
        moments(probs, [0, 4], "dcg")
    with pytest.raises(ValueError, match=r"ranking\[0\] = -1 is out of range"):
        moments(probs, [-1, 2], "dcg")
    with pytest.raises(ValueError, match=r"ranking lists document \(probs row\) 2 more than once"):
        moments(probs, [2, 0, 2], "dcg")
    with pytest.raises(ValueError, match=r"ranking_b lists document \(probs row\) 1 more than once"):
        difference_moments(probs, [0, 1], [1, 1], "err")
    with pytest.raises(ValueError, match=r"ranking_a\[0\] = 9"):
        difference_moments(probs, [9], [1], "err")
    with pytest.raises(ValueError, match="measure must be one of 'dcg', 'err'; got 'ndcg'"):
        moments(probs, r, "ndcg")
    with pytest.raises(ValueError, match="measure must be one of"):
        difference_moments(probs, r, r, None)
    for k in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="k must be a positive integer or None"):
            moments(probs, r, "dcg", k=k)
    with pytest.raises(ValueError, match="center must be finite"):
        moments(probs, r, "dcg", center=np.inf)
    with pytest.raises(TypeError, match="center must be a real number"):
        difference_moments(probs, r, r, "dcg", center="0")
    with pytest.raises(TypeError, match="center must be a real number"):
        moments(probs, r, "dcg", center=np.zeros(2))


def test_batched_input_errors():
    probs = np.full((6, 3), 1 / 3)
    offsets = np.array([0, 2, 6])
    order = np.array([1, 0, 2, 3, 4, 5])
    with pytest.raises(ValueError, match=r"order lists document \(probs row\) 3 more than once in query 1"):
        batch_moments(probs, offsets, [1, 0, 3, 3, 4, 5], "dcg")
    # the same row in two different queries is fine
    batch_moments(probs, offsets, [1, 0, 1, 0, 4, 5], "dcg")
    with pytest.raises(ValueError, match=r"offsets\[-1\] must equal"):
        batch_moments(probs, [0, 2, 5], order, "dcg")
    with pytest.raises(TypeError, match="offsets must be integers"):
        batch_moments(probs, [0.0, 2.0, 6.0], order, "dcg")
    with pytest.raises(ValueError, match=r"order\[5\] = 6 is out of range"):
        batch_moments(probs, offsets, [1, 0, 2, 3, 4, 6], "err")
    with pytest.raises(ValueError, match=r"center must be a scalar or have shape \(n_queries,\) = \(2,\)"):
        batch_moments(probs, offsets, order, "err", center=np.zeros(3))
    with pytest.raises(ValueError, match=r"center\[1\] is nan"):
        batch_moments(probs, offsets, order, "err", center=np.array([0.0, np.nan]))
    with pytest.raises(ValueError, match="same number of queries"):
        batch_difference_moments(probs, offsets, order, [0, 6], order, "err")
    with pytest.raises(ValueError, match=r"offsets_b\[0\] must be 0"):
        batch_difference_moments(probs, offsets, order, [1, 2, 6], order, "err")
    with pytest.raises(ValueError, match=r"order_b lists document \(probs row\) 0 more than once in query 0"):
        batch_difference_moments(probs, offsets, order, offsets, [0, 0, 2, 3, 4, 5], "dcg")
    with pytest.raises(ValueError, match="measure must be one of"):
        batch_difference_moments(probs, offsets, order, offsets, order, "map")
