"""The simulated search world: determinism, shapes, the editors' Table 1 rows,
the judged share and the traffic."""

from pathlib import Path

import numpy as np
import pytest
from toy_data import toy_collection, toy_scores

from evalrank.papers.ozertem2011.grades import agreement_pdfs, read_agreement
from evalrank.papers.ozertem2011.simulate import WorldParams, per_query_zscores, simulate_world, top_k

TABLE1 = Path(__file__).resolve().parents[3] / "config/ozertem2011/ozertem2011_table1.csv"


@pytest.fixture(scope="module")
def pool():
    c = toy_collection(150, seed=3, min_docs=20, max_docs=60)
    scores = toy_scores(c, {"lambdamart": 0.8, "rf": 1.0, "ordinal_rf": 1.2, "ranksvm": 1.5}, seed=0)
    return c, scores


def _world(pool, seed=1, **kw):
    c, scores = pool
    params = WorldParams(history=("rf", "ordinal_rf"), alternatives=("rf", "ranksvm", "oracle"), sessions=20000,
                         n_tests=12, **kw)
    return simulate_world(c.labels, c.offsets, c.qids, scores, read_agreement(TABLE1), params, seed)


def test_deterministic_from_the_seed(pool):
    a, b, c = _world(pool), _world(pool), _world(pool, seed=2)
    for k, v in a.arrays().items():
        np.testing.assert_array_equal(v, b.arrays()[k])
    assert a.judgments.equals(b.judgments) and a.tests.equals(b.tests)
    np.testing.assert_array_equal(a.log.counts, b.log.counts)
    assert not np.array_equal(a.impressions, c.impressions)


def test_tests_change_the_top_k_and_the_baseline_is_the_baseline_ranker(pool):
    w = _world(pool)
    c, scores = pool
    assert np.all(np.any(w.novel_top != w.base_top, axis=1))
    base = top_k(per_query_zscores(scores["lambdamart"], c.offsets), c.offsets, 5)
    np.testing.assert_array_equal(w.base_top, base[w.row_query])
    assert w.row_offsets[-1] == w.novel_top.shape[0] and len(w.tests) == 12
    for t in range(12):   # a test's queries are distinct
        q = w.row_query[w.row_offsets[t]:w.row_offsets[t + 1]]
        assert np.unique(q).size == q.size


def test_top_k_against_argsort_with_ties():
    r = np.random.default_rng(4)
    offsets = np.array([0, 7, 9, 20])
    s = r.integers(0, 3, 20).astype(float)
    got = top_k(s, offsets, 4)
    for q in range(3):
        idx = np.arange(offsets[q], offsets[q + 1])
        order = idx[np.lexsort((idx, -s[idx]))][:4]
        np.testing.assert_array_equal(got[q, :order.size], order)
        assert np.all(got[q, order.size:] == -1)
    np.testing.assert_array_equal(top_k(s, offsets, 4, queries=[2, 0]), got[[2, 0]])


def test_editors_draw_from_table1_rows(pool):
    w = _world(pool, full_sets=3)
    R = agreement_pdfs(read_agreement(TABLE1))
    j = w.judgments
    qpos = {q: i for i, q in enumerate(w.queries)}
    pid = np.array([w.offsets[qpos[q]] + int(u[1:]) for q, u in zip(j["query"], j["url"])])
    true = w.true_grade[pid]
    for g in range(5):
        m = true == g
        if m.sum() < 200:
            continue
        freq = np.bincount(j["grade_index"].to_numpy()[m], minlength=5) / m.sum()
        se = np.sqrt(R[g] * (1 - R[g]) / m.sum())
        assert np.all(np.abs(freq - R[g]) < 5 * se + 1e-9), (g, freq, R[g])


def test_judged_share_and_shown_odds(pool):
    w = _world(pool, judged_fraction=0.35, shown_odds=4.0)
    j = w.judgments
    needed = np.unique(np.concatenate([w.novel_top[w.novel_top >= 0], w.base_top[w.base_top >= 0]]))
    pre = (j["set"] == "pre-existing").sum()
    full = (j["set"] == "full1").sum()
    assert full == needed.size
    p = pre / needed.size
    assert abs(p - 0.35) < 4 * np.sqrt(0.35 * 0.65 / needed.size)


def test_traffic_is_zipf_like(pool):
    w = _world(pool, zipf_exponent=1.5)
    imp = np.sort(w.impressions)[::-1]
    assert imp.sum() == w.log.n_sessions
    assert abs(imp.sum() - 20000) < 5 * np.sqrt(20000)
    assert imp[0] > 0.2 * imp.sum() and (imp < 10).sum() > imp.size / 3   # a head and a long tail


def test_errors(pool):
    c, scores = pool
    C = read_agreement(TABLE1)
    with pytest.raises(ValueError, match=r"scores: no pool scores for ranker\(s\) \['ordered_logit'\]"):
        simulate_world(c.labels, c.offsets, c.qids, scores, C, WorldParams(alternatives=("ordered_logit",)), 1)
    with pytest.raises(ValueError, match="labels: grades must lie in 0..4"):
        simulate_world(c.labels + 3, c.offsets, c.qids, scores, C, WorldParams(alternatives=("rf",)), 1)
    with pytest.raises(ValueError, match="baseline_share"):
        WorldParams(baseline_share=1.5)
    with pytest.raises(ValueError, match="serp_depth"):
        WorldParams(k=6, serp_depth=5)
