"""Every NDCG option against a brute-force per-query reference that ranks with
Python's ``sorted`` and averages ties by enumerating every permutation."""

import itertools
import math

import numpy as np
import pytest

from evalrank.metrics import dcg, ndcg
from evalrank.metrics.conventions import CONVENTIONS, resolve
from evalrank.metrics.dcg import ideal_dcg


def tied_collection(seed, n_queries=60, max_docs=9):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(0, max_docs + 1, size=n_queries)
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    n = int(offsets[-1])
    labels = rng.integers(0, 3, size=n) * (rng.random(n) < 0.6)  # many empty queries
    scores = rng.integers(0, 4, size=n).astype(np.float64)  # many ties
    doc_ids = np.array([f"d{rng.integers(0, 10**6)}" for _ in range(n)])
    return scores, labels, offsets, doc_ids


def brute_dcg(s, y, ids, k, gain, disc, ties):
    g = [(2.0**v - 1) if gain == "exp" else float(v) for v in y]
    c = lambda r: disc(r)  # noqa: E731
    idx = range(len(s))
    if ties == "average":
        groups = [list(grp) for _, grp in itertools.groupby(sorted(idx, key=lambda i: -s[i]), key=lambda i: s[i])]
        totals = []
        for perm in itertools.product(*(itertools.permutations(grp) for grp in groups)):
            order = [i for p in perm for i in p]
            totals.append(sum(g[i] * c(r + 1) for r, i in enumerate(order[: k or len(order)])))
        return sum(totals) / len(totals)
    key = {
        "stable": lambda i: -s[i],
        "pessimistic": lambda i: (-s[i], y[i]),
        "optimistic": lambda i: (-s[i], -y[i]),
    }.get(ties)
    if ties == "docid":
        order = sorted(idx, key=lambda i: (s[i], ids[i]), reverse=True)
    else:
        order = sorted(idx, key=key)
    return sum(g[i] * c(r + 1) for r, i in enumerate(order[: k or len(order)]))


def brute_ndcg(scores, labels, offsets, doc_ids, k, *, gain, disc, ties, empty, short):
    out = []
    for q in range(len(offsets) - 1):
        sl = slice(offsets[q], offsets[q + 1])
        s, y, ids = list(scores[sl]), list(labels[sl]), list(doc_ids[sl])
        ideal = brute_dcg(sorted(y, reverse=True), sorted(y, reverse=True), [""] * len(y), k, gain, disc, "stable")
        if ideal == 0:
            out.append(np.nan if empty == "skip" else empty)
        elif short == "zero" and k is not None and len(s) < k:
            out.append(0.0)
        else:
            out.append(brute_dcg(s, y, ids, k, gain, disc, ties) / ideal)
    return np.array(out)


LOG2 = lambda r: 1.0 / math.log2(r + 1)  # noqa: E731


@pytest.mark.parametrize("ties", ["stable", "pessimistic", "optimistic", "docid", "average"])
@pytest.mark.parametrize("k", [None, 1, 3, 5, 12, 100])  # 100 > TOPK_MAX: the sort path
def test_ties_and_cutoffs_match_brute_force(ties, k):
    scores, labels, offsets, ids = tied_collection(1)
    for gain in ("exp", "linear"):
        got = ndcg(scores, labels, offsets, k, gain=gain, ties=ties, doc_ids=ids)
        want = brute_ndcg(scores, labels, offsets, ids, k, gain=gain, disc=LOG2, ties=ties, empty=0.0, short="pad")
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
        got_dcg = dcg(scores, labels, offsets, k, gain=gain, ties=ties, doc_ids=ids)
        want_dcg = [brute_dcg(list(scores[a:b]), list(labels[a:b]), list(ids[a:b]), k, gain, LOG2, ties)
                    for a, b in zip(offsets[:-1], offsets[1:])]
        np.testing.assert_allclose(got_dcg, want_dcg, rtol=1e-12, atol=1e-14)


def mixed_ties_collection(seed, n_queries=300, max_docs=40):
    """Distinct scores except in some queries, where a document's score is copied onto 1-3
    others at random ranks: ties inside the top k, across its edge and below it, next to
    queries without ties (ids drawn from a small set, so some repeat within a query)."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_docs + 1, size=n_queries)
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    n = int(offsets[-1])
    scores = rng.permutation(n).astype(np.float64) / n
    for q in np.flatnonzero(rng.random(n_queries) < 0.4):
        a, b = offsets[q], offsets[q + 1]
        if b - a > 1:
            src = rng.integers(a, b)
            scores[rng.choice(np.arange(a, b), size=min(b - a, rng.integers(1, 4)), replace=False)] = scores[src]
    labels = rng.integers(0, 5, size=n)
    doc_ids = np.array([f"d{rng.integers(0, 60)}" for _ in range(n)])
    return scores, labels, offsets, doc_ids


@pytest.mark.parametrize("k", [1, 2, 5, 10, 64])
def test_docid_ties_where_only_some_queries_tie(k):
    """The top-k path ranks by input order first and again by the ids only for the queries
    whose top k met a tie: every query must still equal the brute force."""
    scores, labels, offsets, ids = mixed_ties_collection(5)
    got = ndcg(scores, labels, offsets, k, gain="linear", ties="docid", doc_ids=ids)
    want = brute_ndcg(scores, labels, offsets, ids, k, gain="linear", disc=LOG2, ties="docid", empty=0.0, short="pad")
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    stable = ndcg(scores, labels, offsets, k, gain="linear", ties="stable")
    assert np.any(stable != want) and np.any(stable == want)  # ties that matter, and queries without


def test_tie_rules_bracket_the_average():
    scores, labels, offsets, ids = tied_collection(2)
    lo = ndcg(scores, labels, offsets, 5, ties="pessimistic")
    hi = ndcg(scores, labels, offsets, 5, ties="optimistic")
    avg = ndcg(scores, labels, offsets, 5, ties="average")
    assert np.all(lo <= avg + 1e-15) and np.all(avg <= hi + 1e-15)
    assert np.any(lo < hi)  # the data really has ties that matter


@pytest.mark.parametrize("empty", [0.0, 1.0, "skip"])
@pytest.mark.parametrize("short", ["pad", "zero", "truncate-ideal"])
@pytest.mark.parametrize("k", [None, 2, 5, 10])
def test_empty_and_short_rules(empty, short, k):
    scores, labels, offsets, ids = tied_collection(3)
    got = ndcg(scores, labels, offsets, k, empty=empty, short=short)
    want = brute_ndcg(scores, labels, offsets, ids, k, gain="exp", disc=LOG2, ties="stable", empty=empty,
                      short="zero" if short == "zero" else "pad")
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    sizes = np.diff(offsets)
    if short == "zero" and k is not None:
        assert np.any((sizes < k) & (got == 0) & (want == 0))


def test_callable_discount_matches_brute_force():
    scores, labels, offsets, ids = tied_collection(4)
    zipf = lambda r: 1.0 / r  # noqa: E731
    got = ndcg(scores, labels, offsets, 4, discount=zipf, ties="pessimistic")
    want = brute_ndcg(scores, labels, offsets, ids, 4, gain="exp", disc=zipf, ties="pessimistic", empty=0.0,
                      short="pad")
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_gain_table_and_non_monotone_ideal():
    scores = np.array([3.0, 2.0, 1.0])
    labels = np.array([0, 1, 2])
    offsets = np.array([0, 3])
    table = np.array([0.0, 5.0, 1.0])  # grade 1 more valuable than grade 2
    want_ideal = 5.0 + 1.0 / math.log2(3)
    assert ideal_dcg(labels, offsets, gain=table)[0] == pytest.approx(want_ideal, rel=1e-15)
    got = ndcg(scores, labels, offsets, gain=table)[0]
    assert got == pytest.approx((5.0 / math.log2(3) + 1.0 / 2.0) / want_ideal, rel=1e-15)


def test_ideal_from_judged_set_pad_vs_truncate_ideal():
    # the run ranks 2 documents, the judged set of the query has 4 (2 unretrieved relevant ones)
    scores = np.array([2.0, 1.0])
    labels = np.array([1, 0])
    offsets = np.array([0, 2])
    judged = np.array([1, 0, 2, 1])
    j_off = np.array([0, 4])
    pad = ndcg(scores, labels, offsets, 5, gain="linear", ideal_labels=judged, ideal_offsets=j_off)[0]
    trunc = ndcg(scores, labels, offsets, 5, gain="linear", short="truncate-ideal", ideal_labels=judged,
                 ideal_offsets=j_off)[0]
    assert pad == pytest.approx(1.0 / (2 + 1 / math.log2(3) + 0.5), rel=1e-15)
    assert trunc == pytest.approx(1.0 / (2 + 1 / math.log2(3)), rel=1e-15)
    # without a separate judged set the two rules coincide
    a = ndcg(scores, labels, offsets, 5, short="pad")
    b = ndcg(scores, labels, offsets, 5, short="truncate-ideal")
    np.testing.assert_array_equal(a, b)


def test_float32_precision_creates_ties():
    scores = np.array([1.0, 1.0 + 1e-12])
    labels = np.array([1, 0])
    offsets = np.array([0, 2])
    assert ndcg(scores, labels, offsets)[0] < 1.0  # float64: the irrelevant doc is first
    assert ndcg(scores, labels, offsets, precision="float32")[0] == 1.0  # tie, input order


def test_presets_resolve_and_keywords_override():
    assert resolve("trec")["gain"] == "linear"
    assert resolve("trec", gain="exp")["gain"] == "exp"
    assert resolve("yahoo")["empty"] == 1.0 and resolve("letor4")["short"] == "zero"
    assert set(CONVENTIONS) == {"trec", "gdeval", "ranklib", "letor3", "letor4", "ms", "yahoo", "sklearn", "lightgbm",
                                "xgboost"}
    scores, labels, offsets, ids = tied_collection(5)
    for name in CONVENTIONS:
        opts = resolve(name)
        got = ndcg(scores, labels, offsets, 5, convention=name, doc_ids=ids)
        want = ndcg(scores, labels, offsets, 5, doc_ids=ids, **opts)
        np.testing.assert_array_equal(got, want)
    yahoo = ndcg(scores, labels, offsets, 5, convention="yahoo")
    letor3 = ndcg(scores, labels, offsets, 5, convention="letor3")
    empty = ideal_dcg(labels, offsets, 5) == 0
    assert empty.any()
    np.testing.assert_array_equal(yahoo[empty], 1.0)
    np.testing.assert_array_equal(letor3[empty], 0.0)
    np.testing.assert_array_equal(yahoo[~empty], letor3[~empty])


@pytest.mark.parametrize("kwargs, match", [
    (dict(convention="trec_eval"), "convention must be one of"),
    (dict(short="drop"), "short must be one of"),
    (dict(empty="none"), "empty must be a number or 'skip'"),
    (dict(ties="random"), "ties must be one of"),
    (dict(ties="docid"), "needs doc_ids"),
    (dict(gain="log"), "gain must be"),
    (dict(discount="ln"), "discount: unknown discount"),
    (dict(precision="half"), "precision must be"),
    (dict(ideal_offsets=np.array([0, 1])), "ideal_offsets given without ideal_labels"),
])
def test_bad_options_name_the_argument(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ndcg(np.array([1.0, 0.5]), np.array([1, 0]), np.array([0, 2]), 1, **kwargs)


def test_discount_callable_must_be_sane():
    with pytest.raises(ValueError, match="discount callable"):
        ndcg(np.array([1.0, 0.5]), np.array([1, 0]), np.array([0, 2]), discount=lambda r: -r)
    with pytest.raises(TypeError, match="unknown NDCG option"):
        resolve(None, cutoff=3)


def test_convention_names_come_from_the_registry():
    """Every place that lists the presets follows metrics.conventions.CONVENTIONS (issue 29)."""
    import yaml

    from evalrank.config import schema_path
    from evalrank.metrics.conventions import names_text

    schema = yaml.safe_load(schema_path().read_text())
    assert schema["$defs"]["convention"]["enum"] == list(CONVENTIONS)   # the config schema (kept by hand)
    text = names_text()
    assert text == "trec, gdeval, ranklib, letor3, letor4, ms, yahoo, sklearn, lightgbm or xgboost"
    assert [w.strip() for w in text.replace(" or ", ", ").split(",")] == list(CONVENTIONS)


def test_ndcg_help_lists_every_preset():
    import argparse

    from evalrank.cli import ndcg as cli_ndcg

    parser = argparse.ArgumentParser()
    cli_ndcg.add_parsers(parser.add_subparsers())
    sub = parser._subparsers._group_actions[0].choices["ndcg"]
    (conv,) = [a for a in sub._actions if "--convention" in a.option_strings]
    for name in CONVENTIONS:
        assert name in conv.help.replace(",", " ").split(), name
