"""Findings of Ozertem et al. (2011) (evalrank.papers.ozertem2011.findings) on crafted ozertem2011/ tables: the
numbers shown are the tables', verdicts flip when a number crosses its tolerance, a missing
file gives 'not tested'."""

import pandas as pd
import pytest

from evalrank.papers.common.findings import VERDICTS, Outputs, collect
from evalrank.papers.ozertem2011 import findings as ozertem


def _write(root, name, df):
    d = root / "ozertem2011"
    d.mkdir(parents=True, exist_ok=True)
    df.to_csv(d / name, index=False)


def _tables(root, *, hybrid=1.0339, ia0=0.3710, smoothed_r=0.8332, cov=0.70, cov_exp=0.96, full_call="?",
            cj0=0.2830):
    _write(root, "table2.csv", pd.DataFrame({
        "statistic": ["mean", "mean", "var"], "grade": ["P", "G", "B"], "ours": [3.478114, 1.916856, 0.636396],
        "printed": [3.48, 1.91, 0.64], "difference": [-0.001886, 0.006856, -0.003604],
        "matches": [True, False, True]}))
    _write(root, "table4.csv", pd.DataFrame({
        "test": [1, 2], "unique_queries": [76, 313], "unique_query_urls": [463, 1959],
        "judged_query_urls": [206, 847], "dbn_query_urls": [229, 998]}))
    _write(root, "table5.csv", pd.DataFrame({
        "source": ["ours", "paper"], "query": [1.0698, 0.9452], "position": [1.0524, 0.9911],
        "hybrid": [hybrid, 0.7286], "sigma": [0.5957, 0.55], "judged_pairs": [79299, None]}))
    ks = [200, 50, 10, 0]
    _write(root, "table6.csv", pd.DataFrame({
        "min_impressions": ks, "carterette_jones": [0.2483, 0.2814, 0.2818, cj0],
        "smoothed": [0.3294, 0.3845, 0.3715, 0.3522], "tests_used": [120] * 4,
        "queries": [2399, 6340, 18938, 28841], "carterette_jones_vs_truth": [0.4897, 0.4896, 0.4775, 0.4763],
        "smoothed_vs_truth": [0.5916, 0.6035, 0.5654, 0.5422],
        "smoothed_paper_views_vs_truth": [0.6168, 0.6126, 0.5011, 0.4607]}))
    _write(root, "table7.csv", pd.DataFrame({
        "method": ["full1", "full2", "clicks_only", "smoothed", "truth"],
        "test1": [f"{full_call} (0.1362)", f"{full_call} (0.0140)", "? (0.0809)", "? (0.0374)", "+ (0.2332)"],
        "paper_test1": ["+ (0.0487)", "? (-0.0290)", "? (0.0062)", "? (0.0955)", ""],
        "test2": ["? (0.0439)", "? (0.0113)", "- (-0.1332)", "+ (0.0011)", "+ (0.0323)"],
        "paper_test2": ["? (0.0159)", "+ (0.0753)", "? (0.0196)", "+ (0.1564)", ""]}))
    _write(root, "table8.csv", pd.DataFrame({
        "min_impressions": ks * 2, "clicks_only": [0.3919, 0.3861, 0.3066, 0.2282] + [0.28, 0.24, 0.20, 0.17],
        "editorial_only": [0.0089, 0.0779, 0.0740, 0.0735] + [0.0] * 4,
        "smoothed": [0.3294, 0.3845, 0.3715, 0.3522] + [0.20, 0.21, 0.20, 0.1886],
        "inter_annotator": [0.2996, 0.3596, 0.3639, ia0] + [0.20, 0.20, 0.21, 0.2114],
        "smoothed_vs_truth": [0.59, 0.60, 0.57, 0.5422] + [0.4] * 4,
        "full1_vs_truth": [0.50, 0.55, 0.56, 0.5781] + [0.37] * 4,
        "quantity": ["delta_dcg"] * 4 + ["sign"] * 4}))
    rows = []
    for truth, c in (("truth", cov), ("expected", cov_exp)):
        for m, r in (("full1", 0.9208), ("full2", 0.9011), ("carterette_jones", 0.8751), ("smoothed", smoothed_r),
                     ("clicks_only", 0.0796)):
            rows.append({"truth": truth, "method": m, "tests": 120, "pearson": r, "ci_low": r - 0.05,
                         "ci_high": r + 0.04, "sign_agreement": 0.8, "significant_calls": 16,
                         "significant_correct": 1.0, "coverage": c if m == "smoothed" else 0.67})
    _write(root, "study.csv", pd.DataFrame(rows))
    _write(root, "min_views.csv", pd.DataFrame({
        "model": ["em"] * 3 + ["simplified"] * 3, "min_views": [1, 10, 50] * 2,
        "loo_mse": [0.8869, 0.9583, 1.0268, 1.0009, 0.9863, 1.0361],
        "chosen": [True, False, False, False, True, False]}))
    recs = []
    for v, rs, re_ in ((1, 0.4335, 0.6440), (10, 0.7069, 0.8890), (50, 0.7558, 0.9659)):
        for model, r in (("simplified", rs), ("em", re_)):
            recs += [{"min_views": v, "model": model, "parameter": "relevance", "pairs": 3343, "pearson": r,
                      "mean_error": 0.1},
                     {"min_views": v, "model": model, "parameter": "satisfy", "pairs": 3343, "pearson": 0.5,
                      "mean_error": 0.278 if model == "simplified" else 0.144}]
    _write(root, "dbn_recovery.csv", pd.DataFrame(recs))


def _find(items, start):
    hits = [f for f in items if f.claim.startswith(start)]
    assert len(hits) == 1, [f.claim for f in items]
    return hits[0]


def test_numbers_are_the_tables_and_verdicts(tmp_path):
    _tables(tmp_path)
    items = ozertem.findings(Outputs(tmp_path))
    assert all(f.verdict in VERDICTS for f in items)
    t5 = _find(items, "Table 5")
    assert "1.034" in t5.ours and "0.596" in t5.ours and "79,299" in t5.ours and t5.verdict == "partly"
    t2 = _find(items, "Table 2")
    assert "2 of 3" in t2.ours and "0.0069" in t2.ours and t2.verdict == "reproduced"
    ia = _find(items, "Table 8: two fully")
    assert "0.371" in ia.ours and ia.verdict == "not reproduced" and "0.578" in ia.reason
    t6 = _find(items, "Table 6")
    assert "0.352" in t6.ours and "0.283" in t6.ours and t6.verdict == "partly"
    t7 = _find(items, "Table 7")
    assert "0 significant calls of 4" in t7.ours and t7.verdict == "not reproduced"
    assert "76–313" in t7.reason
    st = _find(items, "Sec. 5.2.2 / Fig. 8")
    # 0.833 lies 0.018 below the rule's threshold 0.851 (the worst full set − 0.05), under 2 se (0.046)
    assert "0.833" in st.ours and st.verdict == "not tested" and '"partly"' in st.reason
    assert st.reason.startswith("not tested (resolution 0.0459): smoothed-DBN's test-level r 0.833")
    cov = _find(items, "Secs. 3.1")
    assert "70 %" in cov.ours and cov.verdict == "partly"
    mv = _find(items, "Sec. 4 / 5.2.1")
    assert "0.958 at 10" in mv.ours and mv.verdict == "partly"
    dbn = _find(items, "Sec. 2.1")
    assert "0.707" in dbn.ours and "0.889" in dbn.ours and dbn.verdict == "not reproduced"
    t4 = _find(items, "Table 4")
    # the judged share 43.5 % lies 1 point inside the band's edge 44.5 %, under 2 binomial se (2.0 points)
    assert "2,422" in t4.ours and t4.verdict == "not tested" and "the judged share 43.5 %" in t4.reason
    assert _find(items, "Eq. 6").verdict == "not tested" and _find(items, "Fig. 7").verdict == "not tested"


@pytest.mark.parametrize("kw, claim, before, after", [
    (dict(hybrid=0.80), "Table 5", "partly", "reproduced"),
    (dict(hybrid=1.06), "Table 5", "partly", "not reproduced"),
    (dict(ia0=0.75), "Table 8: two fully", "not reproduced", "reproduced"),
    (dict(ia0=0.50), "Table 8 / Sec. 5.2.2", "reproduced", "partly"),
    (dict(cj0=0.40), "Table 6", "partly", "not reproduced"),
    (dict(full_call="+"), "Table 7", "not reproduced", "partly"),
    (dict(smoothed_r=0.95), "Sec. 5.2.2 / Fig. 8", "not tested", "reproduced"),  # 0.833: 0.018 from 0.851
    (dict(smoothed_r=0.78), "Sec. 5.2.2 / Fig. 8", "not tested", "partly"),
    (dict(cov=0.97), "Secs. 3.1", "partly", "reproduced"),
    (dict(cov=0.93), "Secs. 3.1", "partly", "not tested"),      # within 2 binomial se (5.5 %) of 90 % on 120 tests
    (dict(cov_exp=0.80), "Secs. 3.1", "partly", "not reproduced"),
    (dict(cov_exp=0.90), "Secs. 3.1", "partly", "not tested"),  # the editorial-scale coverage at the threshold
])
def test_verdicts_flip(tmp_path, kw, claim, before, after):
    _tables(tmp_path / "a")
    _tables(tmp_path / "b", **kw)
    assert _find(ozertem.findings(Outputs(tmp_path / "a")), claim).verdict == before
    assert _find(ozertem.findings(Outputs(tmp_path / "b")), claim).verdict == after


def test_missing_file_gives_not_tested(tmp_path):
    _tables(tmp_path)
    (tmp_path / "ozertem2011" / "dbn_recovery.csv").unlink()
    (tmp_path / "ozertem2011" / "table7.csv").unlink()
    items = ozertem.findings(Outputs(tmp_path))
    assert _find(items, "Sec. 2.1").verdict == "not tested" and "dbn_recovery.csv" in _find(items, "Sec. 2.1").reason
    assert _find(items, "Table 7").verdict == "not tested"
    assert _find(items, "Table 5").verdict == "partly"
    # through collect, a REQUIRES file missing makes the whole section 'not tested'
    title, sec = [s for s in collect(tmp_path) if s[0] == ozertem.TITLE][0]
    assert [f.verdict for f in sec] == ["not tested"]


def test_no_number_of_ours_is_typed():
    """Our numbers come from the tables: the crafted values must not appear in the modules."""
    from evalrank.papers.ozertem2011 import rules, rules_sec522

    src = "".join(open(m.__file__, encoding="utf-8").read() for m in (ozertem, rules, rules_sec522))
    assert "def _table2" in src and "def _study" in src
    for ours in ("1.034", "0.371", "0.352", "0.833", "0.578", "0.889", "0.707", "18,807", "17,849"):
        assert ours not in src
