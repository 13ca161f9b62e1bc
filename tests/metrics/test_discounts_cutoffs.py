"""Discount families and growing cut-offs (Wang et al. 2013) against closed
forms and a per-query brute-force NDCG loop."""

import numpy as np
import pytest

from evalrank.metrics import dcg, ndcg
from evalrank.metrics.cutoffs import parse_cutoff, resolve_cutoff
from evalrank.metrics.dcg import ideal_dcg
from evalrank.metrics.discounts import discount_weights, is_summable, parse_discount

R = np.arange(1, 8, dtype=float)


@pytest.mark.parametrize("spec, expect", [
    ("log2", 1 / np.log2(1 + R)),
    ("log", 1 / np.log(1 + R)),
    ("log:10", 1 / np.log10(1 + R)),
    ("log(10)", 1 / np.log10(1 + R)),
    ("poly:0.5", R ** -0.5),
    ("poly(2)", R ** -2.0),
    ("zipf", 1 / R),
    ("geometric:0.5", 0.5 ** (R - 1)),
])
def test_named_discounts_match_closed_forms(spec, expect):
    np.testing.assert_allclose(discount_weights(R, spec), expect, rtol=1e-14)


def test_summable_discounts_are_the_fast_decaying_ones():
    assert [is_summable(s) for s in ("log2", "log", "poly:0.5", "poly:1", "zipf", "poly:2", "geometric:0.5")] == \
        [False, False, False, False, False, True, True]
    assert str(parse_discount("poly(0.50)")) == "poly:0.5"


@pytest.mark.parametrize("spec, match", [
    ("ln", "unknown discount"), ("poly", "needs a parameter"), ("zipf:2", "takes no parameter"),
    ("log:1", "base"), ("poly:-1", "beta"), ("geometric:1.5", "p of"), ("poly:x", "not a number"),
])
def test_bad_discount_names_the_argument(spec, match):
    with pytest.raises(ValueError, match=f"discount: .*{match}|discount: {match}"):
        parse_discount(spec)
    with pytest.raises(TypeError, match="discount"):
        parse_discount(2.0)


def test_resolve_cutoff_rules():
    sizes = np.array([0, 1, 10, 30, 100, 1000])
    np.testing.assert_array_equal(resolve_cutoff("frac:0.1", sizes), [1, 1, 1, 3, 10, 100])   # 0.1 * 30 = 3
    np.testing.assert_array_equal(resolve_cutoff("frac(1)", sizes), [1, 1, 10, 30, 100, 1000])
    np.testing.assert_array_equal(resolve_cutoff("pow:0.5", sizes), [1, 1, 3, 5, 10, 31])
    assert resolve_cutoff(7, sizes) == 7 and resolve_cutoff(None, sizes) is None
    for bad, match in (("frac:0", "c of"), ("frac:1.5", "c of"), ("pow:1", "a of"), ("top5", "expected"),
                       (0, "positive integer"), (2.5, "positive integer")):
        with pytest.raises(ValueError, match=match):
            parse_cutoff(bad)
    with pytest.raises(ValueError, match="k: per-query"):
        resolve_cutoff(np.array([1, 0]), np.array([3, 3]))
    with pytest.raises(ValueError, match="k: a per-query array"):
        resolve_cutoff(np.array([1, 2, 3]), np.array([3, 3]))


def _brute_ndcg(scores, labels, offsets, k, discount):
    out = []
    D = lambda r: discount_weights(np.asarray([r], float), discount)[0]
    for q in range(len(offsets) - 1):
        s, y = scores[offsets[q]:offsets[q + 1]], labels[offsets[q]:offsets[q + 1]]
        n = len(s)
        kq = n if k is None else (k if isinstance(k, int) else int(resolve_cutoff(k, np.array([n]))[0]))
        order = sorted(range(n), key=lambda i: (-s[i], i))
        g = 2.0 ** y - 1
        d = sum(g[i] * D(r + 1) for r, i in enumerate(order[:kq]))
        best = sorted(g, reverse=True)
        ideal = sum(v * D(r + 1) for r, v in enumerate(best[:kq]))
        out.append(d / ideal if ideal > 0 else 0.0)
    return np.array(out)


@pytest.mark.parametrize("discount", ["log2", "log", "poly:0.5", "zipf", "poly:2", "geometric:0.7"])
@pytest.mark.parametrize("k", [None, 5, 100, "frac:0.3", "pow:0.5"])
def test_ndcg_with_discounts_and_rules_against_brute_force(discount, k):
    rng = np.random.default_rng(7)
    sizes = rng.integers(1, 200, 40)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    labels = rng.integers(0, 5, offsets[-1])
    scores = np.round(labels + rng.normal(0, 2, offsets[-1]), 1)      # ties
    np.testing.assert_allclose(ndcg(scores, labels, offsets, k, discount=discount),
                               _brute_ndcg(scores, labels, offsets, k, discount), rtol=1e-12, atol=1e-15)


def test_log_base_cancels_in_ndcg_not_in_dcg():
    rng = np.random.default_rng(3)
    offsets = np.array([0, 50, 120])
    labels = rng.integers(0, 3, 120)
    scores = rng.normal(size=120)
    ref = ndcg(scores, labels, offsets, "frac:0.5", discount="log2")
    for d in ("log", "log:10"):
        np.testing.assert_allclose(ndcg(scores, labels, offsets, "frac:0.5", discount=d), ref, rtol=1e-12)
    np.testing.assert_allclose(dcg(scores, labels, offsets, discount="log"),
                               dcg(scores, labels, offsets, discount="log2") / np.log(2), rtol=1e-12)


def test_per_query_cutoff_array_equals_the_rule_and_the_ideal_paths_agree():
    rng = np.random.default_rng(4)
    sizes = rng.integers(1, 300, 30)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    labels = rng.integers(0, 4, offsets[-1])
    scores = rng.normal(size=offsets[-1])
    karr = resolve_cutoff("pow:0.6", sizes)
    np.testing.assert_array_equal(ndcg(scores, labels, offsets, karr, discount="poly:0.5"),
                                  ndcg(scores, labels, offsets, "pow:0.6", discount="poly:0.5"))
    # grade-count ideal (labels < 256) vs the sorting path (labels shifted by 256, linear gain):
    # the shift adds 256 x the sum of the first min(k, n) discounts
    small = ideal_dcg(labels, offsets, karr, gain="linear", discount="zipf")
    big = ideal_dcg(labels + 256, offsets, karr, gain="linear", discount="zipf")
    shift = np.array([256 * np.sum(1 / np.arange(1, min(kq, n) + 1)) for kq, n in zip(karr, sizes)])
    np.testing.assert_allclose(big, small + shift, rtol=1e-12)


@pytest.mark.parametrize("k", [None, 7, "frac:0.3", "pow:0.5"])
def test_equal_length_fast_path_equals_the_general_path(k):
    """Equal-length queries take a tiled-discount path; adding one query of another
    length forces the general path, and the shared queries' values must agree."""
    rng = np.random.default_rng(8)
    L, Q = 40, 6
    labels = rng.integers(0, 5, L * Q + 13)
    scores = np.round(rng.normal(size=L * Q + 13), 1)           # ties
    equal = np.arange(0, L * Q + 1, L)
    mixed = np.r_[equal, L * Q + 13]
    for d in ("log2", "poly:0.5", "zipf"):
        a = ndcg(scores[:L * Q], labels[:L * Q], equal, k, discount=d)
        b = ndcg(scores, labels, mixed, k, discount=d)[:Q]
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=0)


def test_descending_rows_is_the_stable_descending_argsort():
    from evalrank.metrics.ranking import descending_rows

    rng = np.random.default_rng(12)
    S = rng.normal(size=(50, 300))
    S[::3] = np.round(S[::3], 1)          # every third row has ties
    S[1, :] = 0.0                          # all tied
    np.testing.assert_array_equal(descending_rows(S), np.argsort(-S, axis=1, kind="stable"))
