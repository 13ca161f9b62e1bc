"""DCG / NDCG / ERR against independent computations: scikit-learn's
ndcg_score / dcg_score, trec_eval (pytrec_eval) and a brute-force loop."""

import numpy as np
import pytest
from sklearn.metrics import dcg_score, ndcg_score

from evalrank.metrics import dcg, err, ndcg


def random_collection(rng, n_queries=40, max_docs=30, max_grade=4, min_docs=1):
    sizes = rng.integers(min_docs, max_docs + 1, size=n_queries)
    offsets = np.concatenate(([0], np.cumsum(sizes)))
    n = offsets[-1]
    labels = rng.integers(0, max_grade + 1, size=n).astype(np.int8)
    scores = rng.permutation(n).astype(np.float64) / n  # distinct: no tie conventions involved
    return scores, labels, offsets


def err_brute(scores, labels, offsets, k, max_grade):
    out = []
    for q in range(len(offsets) - 1):
        s, y = scores[offsets[q]:offsets[q + 1]], labels[offsets[q]:offsets[q + 1]]
        order = sorted(range(len(s)), key=lambda i: -s[i])
        total, reach = 0.0, 1.0
        for pos, i in enumerate(order[: k or len(order)], start=1):
            r = (2.0 ** y[i] - 1) / 2.0 ** max_grade
            total += reach * r / pos
            reach *= 1 - r
        out.append(total)
    return np.array(out)


@pytest.mark.parametrize("k", [None, 1, 5, 10])
def test_dcg_and_ndcg_match_sklearn(k):
    rng = np.random.default_rng(1)
    scores, labels, offsets = random_collection(rng, min_docs=2)
    ours_dcg = dcg(scores, labels, offsets, k)
    ours_ndcg = ndcg(scores, labels, offsets, k)
    for q in range(len(offsets) - 1):
        sl = slice(offsets[q], offsets[q + 1])
        gains = (2.0 ** labels[sl] - 1)[None, :]
        s = scores[sl][None, :]
        assert ours_dcg[q] == pytest.approx(dcg_score(gains, s, k=k), rel=1e-12, abs=1e-12)
        if gains.sum() > 0:
            assert ours_ndcg[q] == pytest.approx(ndcg_score(gains, s, k=k), rel=1e-12)
        else:
            assert ours_ndcg[q] == 0.0


def test_ndcg_linear_gain_matches_trec_eval():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = np.random.default_rng(2)
    scores, labels, offsets = random_collection(rng, n_queries=60)
    qrel, run = {}, {}
    for q in range(len(offsets) - 1):
        qrel[f"q{q}"] = {f"d{i}": int(labels[i]) for i in range(offsets[q], offsets[q + 1])}
        run[f"q{q}"] = {f"d{i}": float(scores[i]) for i in range(offsets[q], offsets[q + 1])}
    res = pytrec_eval.RelevanceEvaluator(qrel, {"ndcg_cut_10", "ndcg"}).evaluate(run)
    ours10 = ndcg(scores, labels, offsets, 10, gain="linear")
    ours = ndcg(scores, labels, offsets, None, gain="linear")
    for q in range(len(offsets) - 1):
        assert ours10[q] == pytest.approx(res[f"q{q}"]["ndcg_cut_10"], abs=1e-12)
        assert ours[q] == pytest.approx(res[f"q{q}"]["ndcg"], abs=1e-12)


@pytest.mark.parametrize("k", [None, 3, 10])
def test_err_matches_brute_force(k):
    rng = np.random.default_rng(3)
    scores, labels, offsets = random_collection(rng, max_grade=4)
    np.testing.assert_allclose(err(scores, labels, offsets, k), err_brute(scores, labels, offsets, k, 4), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("k", [None, 3, 10, 64, 65])   # up to 64 a top-k selection, then a sort
@pytest.mark.parametrize("ties", ["stable", "pessimistic", "optimistic", "docid"])
def test_err_with_tied_scores_matches_brute_force(ties, k):
    rng = np.random.default_rng(4)
    scores, labels, offsets = random_collection(rng, max_grade=4)
    scores = np.round(scores, 1)                       # many ties
    ids = np.array([f"d{rng.integers(0, 10**6)}" for _ in scores])
    key = {"stable": lambda i: 0, "pessimistic": lambda i: labels[i], "optimistic": lambda i: -labels[i],
           "docid": lambda i: tuple(-ord(c) for c in ids[i]) + (1,)}[ties]   # strcmp descending
    want = []
    for q in range(len(offsets) - 1):
        rows = sorted(range(offsets[q], offsets[q + 1]), key=lambda i: (-scores[i], key(i), i))
        total, reach = 0.0, 1.0
        for pos, i in enumerate(rows[: k or len(rows)], start=1):
            r = (2.0 ** labels[i] - 1) / 16.0
            total += reach * r / pos
            reach *= 1 - r
        want.append(total)
    got = err(scores, labels, offsets, k, ties=ties, doc_ids=ids)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


def test_err_hand_value():
    # ranking: grade 0, grade 4, grade 2 -> 0 + (1/2)(15/16) + (1/3)(3/16)(1/16)
    got = err(np.array([0.9, 0.1, 0.5]), np.array([0, 2, 4]), np.array([0, 3]))
    assert got[0] == pytest.approx(15 / 32 + 1 / 256, rel=1e-15)


def test_empty_queries_and_options():
    scores = np.array([1.0, 0.0, 3.0])
    labels = np.array([0, 0, 2])
    offsets = np.array([0, 0, 2, 3])  # query 0 has no documents, query 1 no relevant one
    assert ndcg(scores, labels, offsets).tolist() == [0.0, 0.0, 1.0]
    assert ndcg(scores, labels, offsets, empty=1.0).tolist() == [1.0, 1.0, 1.0]
    assert np.isnan(ndcg(scores, labels, offsets, empty="skip")[:2]).all()
    assert err(scores, labels, offsets).tolist()[:2] == [0.0, 0.0]


def test_ties_keep_input_order():
    labels = np.array([0, 3])
    offsets = np.array([0, 2])
    assert dcg(np.array([1.0, 1.0]), labels, offsets)[0] == pytest.approx(7 / np.log2(3))
    assert dcg(np.array([1.0, 1.0]), labels[::-1].copy(), offsets)[0] == pytest.approx(7.0)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(k=0), "k must be"),
        (dict(gain="cubic"), "gain must be"),
        (dict(empty="maybe"), "empty must be"),
    ],
)
def test_bad_arguments_name_the_argument(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ndcg(np.zeros(2), np.zeros(2, int), np.array([0, 2]), **kwargs)


def test_bad_shapes():
    with pytest.raises(ValueError, match="labels must have the same shape"):
        ndcg(np.zeros(3), np.zeros(2, int), np.array([0, 2]))
    with pytest.raises(ValueError, match="offsets"):
        ndcg(np.zeros(2), np.zeros(2, int), np.array([0, 3]))
    with pytest.raises(ValueError, match="max_grade"):
        err(np.zeros(2), np.array([0, 5]), np.array([0, 2]), max_grade=4)


def test_err_precision_does_not_depend_on_position_in_the_flat_array():
    """ERR of a query far down a 3.6M-row array equals a plain per-query loop to
    rounding (a global cumulative sum of logs lost ~1e-10 relative there)."""
    from evalrank.metrics import err

    g = np.random.default_rng(0)
    nq, nd = 30000, 120
    offsets = np.arange(nq + 1) * nd
    labels = g.choice(5, size=nq * nd, p=[0.5, 0.3, 0.13, 0.05, 0.02])
    scores = g.random(nq * nd)
    got = err(scores, labels, offsets)
    for q in range(nq - 20, nq):
        s, y = scores[offsets[q]:offsets[q + 1]], labels[offsets[q]:offsets[q + 1]]
        r = (2.0 ** y[np.argsort(-s, kind="stable")] - 1) / 16
        total, reach = 0.0, 1.0
        for i, ri in enumerate(r):
            total += ri * reach / (i + 1)
            reach *= 1 - ri
        assert abs(got[q] - total) <= 1e-15 * total


@pytest.mark.parametrize("max_grade", [0, 1024, 10**6, 3.5, float("inf"), True])
def test_err_refuses_a_max_grade_whose_power_of_two_is_not_a_double(max_grade):
    """2**max_grade must be a finite double (issue 49: 1e400 ended in OverflowError)."""
    with pytest.raises(ValueError, match="max_grade must be an integer from 1 to 1023"):
        err(np.array([1.0, 0.5]), np.array([1, 0]), np.array([0, 2]), 2, max_grade=max_grade)
