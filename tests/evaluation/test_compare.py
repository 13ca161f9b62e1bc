"""evalrank.evaluation.compare against independent computations: scipy's
paired t-test, brute-force sign enumeration in exact rational arithmetic, an
exact subset-sum distribution for the Monte Carlo test, hand-worked
corrections, and evalrank.metrics.risk on hand-built matrices."""

from __future__ import annotations

import hashlib
import itertools
import math
import sys
import types
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from evalrank import seeds
from evalrank.evaluation import compare as cmp
from evalrank.metrics import risk


# ---------------------------------------------------------------------------
# helpers: tidy per-query tables from integer scores (value = k / 20, exact in the tests)
# ---------------------------------------------------------------------------
DEN = 20


def tidy(scores: dict[str, list[int]], measure: str = "m", qids=None) -> pd.DataFrame:
    """{run: [k_q]} -> rows run, qid, measure, value = k_q / DEN."""
    n = len(next(iter(scores.values())))
    qids = qids if qids is not None else [f"q{j:02d}" for j in range(n)]
    rows = [(run, q, measure, k / DEN) for run, ks in scores.items() for q, k in zip(qids, ks)]
    return pd.DataFrame(rows, columns=["run", "qid", "measure", "value"])


def row(table: pd.DataFrame, run: str, measure: str = "m") -> pd.Series:
    sel = table[(table["run"] == run) & (table["measure"] == measure)]
    assert len(sel) == 1
    return sel.iloc[0]


def brute_force_p(d_frac: list[Fraction]) -> Fraction:
    """Two-sided sign-flip p over all 2^n sign vectors (zeros included), exact arithmetic."""
    obs = abs(sum(d_frac))
    hits = sum(1 for signs in itertools.product((1, -1), repeat=len(d_frac))
               if abs(sum(s * x for s, x in zip(signs, d_frac))) >= obs)
    return Fraction(hits, 2 ** len(d_frac))


def subset_sum_p(k: list[int]) -> float:
    """Exact two-sided sign-flip p for integer differences by counting subset sums
    (T* = sum(k) - 2 * (sum of the flipped ones))."""
    total = sum(k)
    a = [abs(x) for x in k]
    # count[s] = number of sign vectors with sum of +|k_i| over the '+' ones = s
    count = {0: 1}
    for x in a:
        nxt: dict[int, int] = {}
        for s, c in count.items():
            nxt[s] = nxt.get(s, 0) + c
            nxt[s + x] = nxt.get(s + x, 0) + c
        count = nxt
    S = sum(a)
    # T* = (plus) - (S - plus) = 2 plus - S
    hits = sum(c for plus, c in count.items() if abs(2 * plus - S) >= abs(total))
    return hits / 2 ** len(k)


# ---------------------------------------------------------------------------
# paired t-test
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 7, 40])
def test_ttest_matches_scipy(n):
    rng = np.random.default_rng(n)
    base = rng.integers(0, DEN + 1, n)
    runs = {"b": base.tolist()}
    for name in ("x", "y"):
        runs[name] = np.clip(base + rng.integers(-6, 8, n), 0, DEN).tolist()
    if n == 2:
        runs["x"], runs["y"] = [base[0] + 1, base[1] + 3], [base[0], base[1] + 2]  # non-constant differences
    t = cmp.compare_table(tidy(runs), baseline="b", permutations=200)
    for name in ("x", "y"):
        want = stats.ttest_rel(np.array(runs[name]) / DEN, base / DEN).pvalue
        assert row(t, name)["ttest_p"] == want  # scipy's number, bit for bit (evaluation.stats.paired_t_test)


def test_ttest_undefined_without_variance():
    # all-zero differences (identical runs) and a constant non-zero difference: t = 0/0, c/0
    t = cmp.compare_table(tidy({"b": [1, 2, 3, 4], "same": [1, 2, 3, 4], "up": [2, 3, 4, 5]}), baseline="b")
    assert math.isnan(row(t, "same")["ttest_p"]) and math.isnan(row(t, "up")["ttest_p"])
    assert row(t, "same")["randomization_p"] == 1.0  # the randomization test stays defined
    assert row(t, "up")["randomization_p"] == pytest.approx(2 / 16)  # only +-(all) reach |T| = 4/20


# ---------------------------------------------------------------------------
# randomization test
# ---------------------------------------------------------------------------
EXACT_CASES = {
    "plain": [3, -1, 4, 1, -5, 9, 2, -6],
    "ties_in_magnitude": [2, -2, 2, 2, -2, 2, 1, 1, -1],  # many sign vectors reach |T| exactly
    "zeros": [0, 3, 0, -1, 2, 0, 2, 1, 0, 0],
    "all_zero": [0, 0, 0],
    "one_nonzero": [0, 0, 5, 0],
    "near_zero_mean": [1, -1, 2, -2, 3, -3, 1],  # T = 1/20
    "sixteen": [5, -3, 2, 7, -1, 4, 4, -4, 6, 1, -2, 3, 0, 2, -5, 8],  # with the zero: 15 flipped
}


@pytest.mark.parametrize("case", sorted(EXACT_CASES))
def test_exact_randomization_matches_brute_force(case):
    k = EXACT_CASES[case]
    n = len(k)
    base = [10] * n
    # the test run's per-query values are 10/20 + k/20: every difference is a float rounding of k/20
    runs = {"b": base, "s": [10 + x for x in k]}
    t = cmp.compare_table(tidy(runs), baseline="b", permutations=50)
    r = row(t, "s")
    want = brute_force_p([Fraction(x, DEN) for x in k])
    assert r["randomization"] == "exact"
    assert r["randomization_p"] == float(want), (case, r["randomization_p"], want)
    assert (r["wins"], r["losses"], r["ties"]) == (sum(x > 0 for x in k), sum(x < 0 for x in k),
                                                   sum(x == 0 for x in k))


def test_exact_randomization_with_unrounded_scores():
    """Real-valued scores whose differences are only equal up to rounding (0.3 - 0.1 vs 0.2):
    the test counts them as ties of |T*|, as exact arithmetic on the intended values does."""
    s = [0.3, 0.7, 0.2, 0.9, 0.6, 0.1]
    b = [0.1, 0.5, 0.4, 0.7, 0.8, 0.3]
    per_query = pd.DataFrame({"run": ["s"] * 6 + ["b"] * 6, "qid": list("abcdef") * 2, "measure": "m",
                              "value": s + b})
    want = brute_force_p([Fraction(str(x)) - Fraction(str(y)) for x, y in zip(s, b)])
    got = cmp.compare_table(per_query, baseline="b").iloc[1]["randomization_p"]
    assert got == float(want)


def test_randomization_switches_to_monte_carlo_after_16_nonzero():
    k16 = [1 + (j % 5) for j in range(16)] + [0] * 10  # 26 queries, 16 non-zero: still exact
    k17 = [1 + (j % 5) for j in range(17)]
    t16 = cmp.compare_table(tidy({"b": [0] * 26, "s": k16}), baseline="b")
    t17 = cmp.compare_table(tidy({"b": [0] * 17, "s": k17}), baseline="b", permutations=999)
    assert row(t16, "s")["randomization"] == "exact"
    assert row(t16, "s")["randomization_p"] == 2 / 2 ** 16
    assert row(t17, "s")["randomization"] == "monte_carlo"
    # every draw but the two extreme ones is below |T|: p = (b + 1) / (B + 1), never 0
    assert row(t17, "s")["randomization_p"] >= 1 / 1000
    assert row(t17, "s")["randomization_p"] <= 10 / 1000


@pytest.mark.parametrize("seed", [0, 1])
def test_monte_carlo_within_binomial_tolerance_of_exact(seed):
    k = [3, -1, 4, 1, -5, 9, 2, -6, 5, 3, -5, 8, 9, 7, -9, 3, 2, -3, 8, 4, -6]  # 21 non-zero
    exact = subset_sum_p(k)
    assert 0.02 < exact < 0.5  # a p-value the test can miss on either side
    B = 20_000
    t = cmp.compare_table(tidy({"b": [10] * len(k), "s": [10 + x for x in k]}), baseline="b",
                          permutations=B, seed=seed)
    r = row(t, "s")
    assert r["randomization"] == "monte_carlo"
    se = math.sqrt(exact * (1 - exact) / B)
    assert abs(r["randomization_p"] - exact) <= 4 * se + 1 / B, (r["randomization_p"], exact)


def test_subset_sum_reference_agrees_with_brute_force():
    for k in EXACT_CASES.values():
        if any(k):
            assert subset_sum_p(k) == float(brute_force_p([Fraction(x) for x in k]))


def test_monte_carlo_stream_is_per_run_and_seeded():
    rng = np.random.default_rng(7)
    n = 30
    runs = {"b": rng.integers(0, 21, n).tolist()}
    for name in ("x", "y", "z"):
        runs[name] = np.clip(np.array(runs["b"]) + rng.integers(-3, 4, n), 0, 20).tolist()
    per_query = tidy(runs)
    all3 = cmp.compare_table(per_query, baseline="b", permutations=500, seed=3)
    only_y = cmp.compare_table(per_query, baseline="b", tests=["y"], permutations=500, seed=3)
    assert row(all3, "y")["randomization"] == "monte_carlo"
    assert row(all3, "y")["randomization_p"] == row(only_y, "y")["randomization_p"]
    # the documented stream: content_stream(seed, d, "compare"), the sorted differences and their hash's stream
    d = np.array(runs["x"]) / DEN - np.array(runs["b"]) / DEN  # as the table subtracts the scores
    want, _ = cmp.randomization_p(np.sort(d), permutations=500, rng=cmp.content_stream(3, d, "compare")[1])
    assert 0.1 < want < 0.9 and row(all3, "x")["randomization_p"] == want
    assert cmp.content_stream(3, d, "compare")[1].integers(1 << 30) == seeds.rng(
        3, "compare", *np.frombuffer(hashlib.sha256(np.sort(d).astype("<f8").tobytes()).digest()[:16], "<u4").tolist()
    ).integers(1 << 30)
    reordered = cmp.compare_table(per_query, baseline="b", tests=["z", "y", "x"], permutations=500, seed=3)
    for name in ("x", "y", "z"):
        assert row(reordered, name)["randomization_p"] == row(all3, name)["randomization_p"]
    other_seed = cmp.compare_table(per_query, baseline="b", permutations=500, seed=4)
    assert not np.array_equal(all3["randomization_p"].to_numpy()[1:], other_seed["randomization_p"].to_numpy()[1:])


# ---------------------------------------------------------------------------
# multiple-testing corrections
# ---------------------------------------------------------------------------
HAND_P = [0.01, 0.04, 0.03, 0.005]
HAND = {
    # k = 4; sorted 0.005, 0.01, 0.03, 0.04
    "none": [0.01, 0.04, 0.03, 0.005],
    "bonferroni": [0.04, 0.16, 0.12, 0.02],
    # Holm: 4(.005) = .02, 3(.01) = .03, 2(.03) = .06, 1(.04) = .04 -> running max .02 .03 .06 .06
    "holm": [0.03, 0.06, 0.06, 0.02],
    # BH: 4(.005)/1 = .02, 4(.01)/2 = .02, 4(.03)/3 = .04, 4(.04)/4 = .04 -> running min from the top
    "bh": [0.02, 0.04, 0.04, 0.02],
}


@pytest.mark.parametrize("method", sorted(HAND))
def test_corrections_hand_worked(method):
    np.testing.assert_allclose(cmp.adjust_p(HAND_P, method), HAND[method], rtol=1e-12)
    # any order of the family gives the same corrected value to each p
    perm = [2, 0, 3, 1]
    np.testing.assert_allclose(cmp.adjust_p([HAND_P[i] for i in perm], method), [HAND[method][i] for i in perm],
                               rtol=1e-12)


def test_corrections_cap_and_ties():
    # k = 3, sorted .5 .5 .9; Holm: 1.5 -> 1, 2(.5) = 1, .9 -> running max 1 1 1
    np.testing.assert_allclose(cmp.adjust_p([0.5, 0.9, 0.5], "holm"), [1, 1, 1])
    # BH: 3(.5)/1 = 1.5 -> 1, 3(.5)/2 = .75, 3(.9)/3 = .9 -> running min from the top .75 .75 .9
    np.testing.assert_allclose(cmp.adjust_p([0.5, 0.9, 0.5], "bh"), [0.75, 0.9, 0.75])
    np.testing.assert_allclose(cmp.adjust_p([0.5, 0.9, 0.5], "bonferroni"), [1, 1, 1])


def test_benjamini_hochberg_1995_example():
    """The 15 p-values of Benjamini & Hochberg (1995), Sec. 4: at level .05 the Bonferroni-type
    procedures (Bonferroni, Holm) reject the first three hypotheses, BH the first four."""
    p = [0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344, 0.0459, 0.3240,
         0.4262, 0.5719, 0.6528, 0.7590, 1.000]
    assert (cmp.adjust_p(p, "bonferroni") < 0.05).sum() == 3
    assert (cmp.adjust_p(p, "holm") < 0.05).sum() == 3
    assert (cmp.adjust_p(p, "bh") < 0.05).sum() == 4
    assert cmp.adjust_p(p, "bh")[3] == pytest.approx(0.0095 * 15 / 4)


def _holm_reject(p, level):
    """Holm (1979) step-down: reject H_(1), H_(2), ... while p_(i) <= level / (k - i + 1)."""
    out = np.zeros(len(p), bool)
    for i, j in enumerate(np.argsort(p)):
        if p[j] > level / (len(p) - i):
            break
        out[j] = True
    return out


def _bh_reject(p, level):
    """BH (1995) step-up: the largest i with p_(i) <= i level / k; reject H_(1..i)."""
    order = np.argsort(p)
    ok = [i for i in range(1, len(p) + 1) if p[order[i - 1]] <= i * level / len(p)]
    out = np.zeros(len(p), bool)
    if ok:
        out[order[:max(ok)]] = True
    return out


def test_adjusted_p_agree_with_the_rejection_procedures():
    rng = np.random.default_rng(11)
    for _ in range(200):
        k = int(rng.integers(1, 12))
        p = np.where(rng.random(k) < 0.5, rng.random(k) * 0.03, rng.random(k))
        for level in (0.01, 0.05, 0.1):
            np.testing.assert_array_equal(cmp.adjust_p(p, "holm") <= level, _holm_reject(p, level))
            np.testing.assert_array_equal(cmp.adjust_p(p, "bh") <= level, _bh_reject(p, level))
            np.testing.assert_array_equal(cmp.adjust_p(p, "bonferroni") <= level, p <= level / k)


@pytest.mark.parametrize("correction", ["none", "bonferroni", "holm", "bh"])
def test_table_corrects_randomization_p_per_measure(correction):
    rng = np.random.default_rng(5)
    n = 12
    frames = []
    for measure in ("m1", "m2"):
        runs = {"b": rng.integers(0, 21, n).tolist()}
        for j, name in enumerate(("r1", "r2", "r3", "r4")):
            runs[name] = np.clip(np.array(runs["b"]) + rng.integers(-4, 4 + 2 * j, n), 0, 20).tolist()
        frames.append(tidy(runs, measure))
    t = cmp.compare_table(pd.concat(frames), baseline="b", correction=correction, alpha=0.1)
    for measure in ("m1", "m2"):
        tests = t[(t["measure"] == measure) & (t["run"] != "b")]
        p = tests["randomization_p"].to_numpy()
        want = {"none": p, "bonferroni": np.minimum(1, 4 * p)}.get(correction)
        if want is None:
            want = cmp.adjust_p(p, correction)  # checked against hand numbers above
        np.testing.assert_allclose(tests["p_corrected"].to_numpy(), want, rtol=1e-12)
        np.testing.assert_array_equal(tests["significant"].to_numpy(bool), want < 0.1)
    assert t.attrs["correction"] == correction and t.attrs["primary_test"] == "randomization"


# ---------------------------------------------------------------------------
# risk columns
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("risk_alpha", [0.0, 1.0, 5.0])
def test_risk_columns_equal_metrics_risk(risk_alpha):
    # 3 runs x 6 queries; query q5 scores 0 for every run (GeoRisk's zero column)
    X = np.array([[0.5, 0.2, 0.9, 0.4, 0.3, 0.0],   # baseline
                  [0.6, 0.1, 0.9, 0.7, 0.1, 0.0],   # s1
                  [0.2, 0.3, 0.5, 0.4, 0.6, 0.0]])  # s2
    names = ["base", "s1", "s2"]
    qids = [f"q{j}" for j in range(6)]
    per_query = pd.DataFrame([(names[i], qids[j], "ndcg", X[i, j]) for i in range(3) for j in range(6)],
                             columns=["run", "qid", "measure", "value"])
    t = cmp.compare_table(per_query, baseline="base", risk_alpha=risk_alpha)
    z_ok = X[:, :5]  # GeoRisk with the all-zero query kept in c but contributing z = 0
    for i, name in enumerate(names):
        r = row(t, name, "ndcg")
        assert r["georisk"] == pytest.approx(risk.georisk(X, i, risk_alpha, zero_totals="ignore"), rel=1e-12)
        # independent of the zero_totals rule: z of the zero column is 0, c stays 6
        zr = risk.zrisk(z_ok, i, risk_alpha)
        assert r["georisk"] == pytest.approx(math.sqrt(X[i].mean() * stats.norm.cdf(zr / 6)), rel=1e-12)
        if i == 0:
            assert r["urisk"] == 0.0 and math.isnan(r["trisk"])
            continue
        assert r["urisk"] == pytest.approx(risk.urisk(X[i], X[0], risk_alpha), rel=1e-12)
        assert r["trisk"] == pytest.approx(risk.trisk(X[i], X[0], risk_alpha), rel=1e-12)
        d = X[i] - X[0]
        w = np.where(d < 0, (1 + risk_alpha) * d, d)  # eq. 1 and 2 by hand
        assert r["urisk"] == pytest.approx(w.mean(), rel=1e-12)
        assert r["trisk"] == pytest.approx(w.mean() / (w.std(ddof=1) / math.sqrt(6)), rel=1e-12)
        assert r["delta"] == pytest.approx(X[i].mean() - X[0].mean(), abs=1e-15)


def test_trisk_at_alpha_zero_is_the_t_statistic():
    rng = np.random.default_rng(2)
    b = rng.integers(0, 21, 15)
    s = np.clip(b + rng.integers(-5, 6, 15), 0, 20)
    t = cmp.compare_table(tidy({"b": b.tolist(), "s": s.tolist()}), baseline="b", risk_alpha=0.0)
    assert row(t, "s")["trisk"] == pytest.approx(stats.ttest_rel(s / DEN, b / DEN).statistic, rel=1e-10)


# ---------------------------------------------------------------------------
# the table's shape, order and determinism
# ---------------------------------------------------------------------------
def _three_measures(n=25, seed=9):
    rng = np.random.default_rng(seed)
    frames = []
    for measure in ("p_10", "map", "ndcg"):
        runs = {"base": rng.integers(0, 21, n).tolist()}
        for name in ("zeta", "alpha", "mid"):
            runs[name] = np.clip(np.array(runs["base"]) + rng.integers(-5, 7, n), 0, 20).tolist()
        frames.append(tidy(runs, measure))
    return pd.concat(frames, ignore_index=True)


def test_table_layout():
    per_query = _three_measures()
    t = cmp.compare_table(per_query, baseline="base", measures=["ndcg", "map"], permutations=300)
    assert list(t.columns) == list(cmp.COLUMNS)
    assert list(zip(t["measure"], t["run"])) == [(m, r) for m in ("ndcg", "map")
                                                  for r in ("base", "alpha", "mid", "zeta")]
    base = t[t["run"] == "base"]
    assert (base["delta"] == 0).all() and (base["urisk"] == 0).all()
    for c in ("ttest_p", "randomization_p", "p_corrected", "trisk"):
        assert base[c].isna().all(), c
    for c in ("significant", "wins", "losses", "ties", "randomization"):
        assert base[c].isna().all(), c
    assert (t["n_queries"] == 25).all()
    tests = t[t["run"] != "base"]
    assert ((tests["wins"] + tests["losses"] + tests["ties"]) == 25).all()
    for _, r in t.iterrows():
        vals = per_query[(per_query["measure"] == r["measure"]) & (per_query["run"] == r["run"])]["value"]
        assert r["mean"] == pytest.approx(vals.mean(), rel=1e-12)
    # tests in the order given
    t2 = cmp.compare_table(per_query, baseline="base", tests=["zeta", "alpha"], measures="map", permutations=300)
    assert list(t2["run"]) == ["base", "zeta", "alpha"]


def test_deterministic_across_row_order():
    per_query = _three_measures(n=30)  # 30 queries: the Monte Carlo test
    t = cmp.compare_table(per_query, baseline="base", permutations=2000, seed=1)
    assert (t.loc[t["run"] != "base", "randomization"] == "monte_carlo").all()
    for s in range(3):
        shuffled = per_query.sample(frac=1.0, random_state=s).reset_index(drop=True)
        pd.testing.assert_frame_equal(cmp.compare_table(shuffled, baseline="base", permutations=2000, seed=1), t,
                                      check_exact=True)
    again = cmp.compare_table(per_query, baseline="base", permutations=2000, seed=1)
    pd.testing.assert_frame_equal(again, t, check_exact=True)


def test_integer_qids_and_extra_columns():
    per_query = tidy({"b": [1, 2, 3], "s": [2, 2, 5]}, qids=[101, 102, 103])
    per_query["note"] = "x"
    t = cmp.compare_table(per_query, baseline="b")
    assert row(t, "s")["wins"] == 2 and row(t, "s")["ties"] == 1


# ---------------------------------------------------------------------------
# validation
# ---------------------------------------------------------------------------
@pytest.fixture
def small():
    return tidy({"b": [1, 2, 3, 4], "s": [2, 2, 5, 1], "t": [0, 3, 3, 3]})


def test_refuses_missing_columns(small):
    with pytest.raises(ValueError, match=r"per_query lacks column\(s\) \['value'\]"):
        cmp.compare_table(small.drop(columns="value"), baseline="b")
    with pytest.raises(ValueError, match="per_query must be a pandas DataFrame"):
        cmp.compare_table(small.to_dict(), baseline="b")


def test_refuses_unknown_names(small):
    with pytest.raises(ValueError, match=r"baseline 'x' is not a run"):
        cmp.compare_table(small, baseline="x")
    with pytest.raises(ValueError, match=r"tests names run\(s\) \['u'\]"):
        cmp.compare_table(small, baseline="b", tests=["s", "u"])
    with pytest.raises(ValueError, match="tests includes the baseline"):
        cmp.compare_table(small, baseline="b", tests=["b", "s"])
    with pytest.raises(ValueError, match="measures names"):
        cmp.compare_table(small, baseline="b", measures=["ndcg"])
    with pytest.raises(ValueError, match="tests: nothing to compare"):
        cmp.compare_table(small[small["run"] == "b"], baseline="b")
    with pytest.raises(ValueError, match="tests names"):
        cmp.compare_table(small, baseline="b", tests=["s", "s"])


def test_refuses_different_query_sets(small):
    extra = pd.DataFrame([("t", "q99", "m", 0.5), ("t", "q98", "m", 0.5)], columns=small.columns)
    lacking = small.drop(index=small.index[(small["run"] == "t") & (small["qid"] == "q01")])
    with pytest.raises(ValueError, match=r"per_query: on measure 'm' run 't' has 2 queries the baseline lacks"):
        cmp.compare_table(pd.concat([small, extra]), baseline="b")
    with pytest.raises(ValueError, match=r"per_query: on measure 'm' run 't' lacks 1 of the baseline's queries"):
        cmp.compare_table(lacking, baseline="b")
    # a run that is not compared may have other queries
    cmp.compare_table(lacking, baseline="b", tests=["s"])
    other = tidy({"b": [1, 2, 3]}, measure="m2")
    with pytest.raises(ValueError, match=r"per_query has no rows for run\(s\) \['s', 't'\] on measure 'm2'"):
        cmp.compare_table(pd.concat([small, other]), baseline="b")


def test_refuses_nan_and_bad_values(small):
    nan = small.copy()
    nan.loc[5, "value"] = np.nan
    with pytest.raises(ValueError, match=r"per_query has 1 NaN or infinite value\(s\), e.g. run 's', query 'q01'"):
        cmp.compare_table(nan, baseline="b")
    neg = small.copy()
    neg.loc[0, "value"] = -0.1
    with pytest.raises(ValueError, match=r"per_query has 1 negative value"):
        cmp.compare_table(neg, baseline="b")
    with pytest.raises(ValueError, match=r"per_query has 2 rows that repeat a \(run, qid, measure\)"):
        cmp.compare_table(pd.concat([small, small.iloc[[0]]]), baseline="b")
    allrow = pd.concat([small, pd.DataFrame([("b", "all", "m", 0.1)], columns=small.columns)])
    with pytest.raises(ValueError, match="qid 'all'"):
        cmp.compare_table(allrow, baseline="b")
    text = small.assign(value=small["value"].astype(str))
    with pytest.raises(ValueError, match=r"per_query\['value'\] must be numeric"):
        cmp.compare_table(text, baseline="b")


def test_refuses_fewer_than_two_queries():
    with pytest.raises(ValueError, match="measure 'm' has 1 query; the paired tests need at least 2"):
        cmp.compare_table(tidy({"b": [1], "s": [2]}), baseline="b")


@pytest.mark.parametrize("kw, msg", [
    ({"correction": "fdr"}, "correction must be one of"),
    ({"alpha": 1.5}, "alpha must be a number in"),
    ({"permutations": 0}, "permutations must be a positive integer"),
    ({"seed": -1}, "seed must be a non-negative integer"),
    ({"risk_alpha": -1}, "risk_alpha must be"),
])
def test_refuses_bad_options(small, kw, msg):
    with pytest.raises(ValueError, match=msg):
        cmp.compare_table(small, baseline="b", **kw)


# ---------------------------------------------------------------------------
# compare(): evaluate, then compare_table
# ---------------------------------------------------------------------------
def test_compare_passes_through_to_evaluate(monkeypatch):
    calls = []
    per_query = _three_measures(n=8)

    def fake_evaluate(qrels, runs, measures, **options):
        calls.append((qrels, runs, measures, options))
        return per_query[per_query["measure"] != "p_10"]

    fake = types.ModuleType("evalrank.evaluation.evaluate")
    fake.evaluate = fake_evaluate
    monkeypatch.setitem(sys.modules, "evalrank.evaluation.evaluate", fake)
    t = cmp.compare(
        "QRELS", ["runs/base", "runs/alpha"], ["map", "ndcg_cut.10"], baseline="base", test=["alpha"],
        correction="bh", permutations=100, seed=2, relevance_level=2)
    assert calls == [("QRELS", ["runs/base", "runs/alpha"], ["map", "ndcg_cut.10"], {"relevance_level": 2})]
    assert list(zip(t["measure"], t["run"])) == [("map", "base"), ("map", "alpha"), ("ndcg", "base"),
                                                  ("ndcg", "alpha")]  # the measures in evaluate's order
    want = cmp.compare_table(per_query[per_query["measure"] != "p_10"], baseline="base", tests="alpha",
                             measures=["map", "ndcg"], correction="bh", permutations=100, seed=2)
    pd.testing.assert_frame_equal(t, want, check_exact=True)
    with pytest.raises(ValueError, match="correction must be one of"):
        cmp.compare("QRELS", [], ["map"], baseline="base", correction="fdr")
    assert len(calls) == 1  # options checked before evaluating
