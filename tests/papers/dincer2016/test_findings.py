"""Findings of Dinçer et al. (2016) (evalrank.papers.dincer2016.findings) on crafted dincer2016/ tables: the numbers
shown are the tables', verdicts flip when a number crosses its rule, missing parts are 'not tested'."""

import pandas as pd
import pytest

from evalrank.papers.common.findings import Outputs, collect
from evalrank.papers.dincer2016 import findings as dincer

LEARNERS = ["lambdamart", "u-cro_a1", "u-cro_a5", "t-faro_a1", "t-faro_a5", "tstar-faro_a1", "tstar-faro_a5",
            "georisk_a1", "georisk_a5"]


def _write(root, rel, df):
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(p, index=False)


def _example(root, n4=84, n5=72, bad4=0):
    rows = [{"system": "s2", "baseline": "s1", "column": "t1", "ours": 0.3689, "printed": 0.3689,
             "match": i >= bad4, "table": "table4"} for i in range(n4)]
    rows += [{"system": "s1", "baseline": "", "column": "mean", "ours": 0.3, "printed": 0.3, "match": True,
              "table": "table5"} for _ in range(n5)]
    _write(root, "dincer2016/example/vs_paper.csv", pd.DataFrame(rows))
    z = {"s2": 0.114128, "s3": 0.142705, "s5": 0.070765, "s6": 0.100220}
    t4 = [{"system": s, "baseline": "s1", "zrisk": v} for s, v in z.items()]
    t4 += [{"system": "s1", "baseline": s, "zrisk": -v} for s, v in z.items()]
    _write(root, "dincer2016/example/table4.csv", pd.DataFrame(t4))
    t5 = pd.DataFrame({"system": [f"s{i}" for i in range(1, 9)],
                       "zrisk_a1": [-0.73, -0.31, -0.069, -0.063, -0.54, -0.54, -0.0077, -0.0098],
                       "zrisk_a5": [-3.44, -1.67, -0.368, -0.336, -2.73, -2.72, -0.036, -0.052],
                       "zrisk_a10": [-6.834746, -3.36, -0.74, -0.68, -5.46, -5.44, -0.072, -0.106],
                       "geo_a5": [0.27, 0.33, 0.376, 0.344, 0.296, 0.297, 0.373, 0.395]})
    _write(root, "dincer2016/example/table5.csv", t5)


def _population(root, trisk_tau=-0.4286):
    _write(root, "dincer2016/population/systems.csv",
           pd.DataFrame({"system": ["a", "b", "c", "f110"], "kind": ["lightgbm", "lightgbm", "pipeline model", "feature"]}))
    t6 = pd.DataFrame({"system": ["a", "b", "c", "f110"], "err@20": [0.37, 0.36, 0.35, 0.11],
                       "urisk_a0": [0.26, 0.25, 0.24, None], "R_trisk_a0": [3, 1, 2, None],
                       "zrisk_a0": [-1.0, 0.5, 0.0, -2.0], "georisk_a0": [0.43, 0.42, 0.41, 0.23],
                       "zrisk_a20": [-300.0, -100.0, -200.0, -400.0], "georisk_a20": [0.14, 0.18, 0.15, 0.07],
                       "R_georisk_a20": [3, 1, 2, 4]})
    _write(root, "dincer2016/population/table6.csv", t6)
    obs = pd.DataFrame({"claim": ["urisk orders the systems as mean err@20", "trisk orders the systems as mean err@20",
                                  "georisk orders the systems as mean err@20",
                                  "zrisk orders the systems unlike mean err@20", "zrisk orders the systems unlike urisk",
                                  "georisk moves away from the mean's order as alpha grows",
                                  "georisk approaches zrisk's order as alpha grows"],
                        "alpha": [0, 0, 0, 0, 0, 20, 20],
                        "kendall_tau": [1.0, trisk_tau, 1.0, -0.0556, -0.3571, -0.0556, 0.8333]})
    _write(root, "dincer2016/population/observations.csv", obs)


def _table7(root, p=0.1593, geo1_mean=0.5025, tstar_rr=(4.0526, 4.3152)):
    means = dict(zip(LEARNERS, [0.5066, 0.5078, 0.5023, 0.5071, 0.5060, 0.5073, 0.5062, geo1_mean, 0.5090]))
    rr = dict(zip(LEARNERS, [3.7773, 4.0291, 3.6990, 3.8715, 3.8495, *tstar_rr, 3.6570, 4.8099]))
    rows = []
    for half in ("vs BM25", "vs 4 learned baselines"):
        for i, lr in enumerate(LEARNERS):
            rows.append({"half": half, "learner": lr, "mean": means[lr], "reward": 0.1 + means[lr] - 0.5,
                         "risk": 0.03 - 0.001 * i, "reward_risk": rr[lr], "wins": 600 + i, "losses": 320 - i,
                         "win_loss": rr[lr] / 1.6, "big_losses": 140 - i,
                         "delta_vs_reference": means[lr] - means["lambdamart"],
                         "p_vs_reference": None if lr == "lambdamart" else p})
    _write(root, "dincer2016/learning/table7.csv", pd.DataFrame(rows))


def _by_claim(items, start):
    hits = [f for f in items if f.claim.startswith(start)]
    assert len(hits) == 1, [f.claim for f in items]
    return hits[0]


def test_default_like_run_numbers_and_verdicts(tmp_path):
    _example(tmp_path)
    _population(tmp_path)
    _table7(tmp_path)
    items = dincer.findings(Outputs(tmp_path))
    assert len(items) == 12
    t4 = _by_claim(items, "Table 4")
    assert t4.verdict == "reproduced" and "84 of 84" in t4.ours and "0.1141" in t4.ours and "−0.1141" in t4.ours
    t5 = _by_claim(items, "Table 5")
    assert t5.verdict == "reproduced" and "72 of 72" in t5.ours and "−6.835" in t5.ours
    assert _by_claim(items, "Table 6, α = 0: URisk").verdict == "reproduced"
    tr = _by_claim(items, "Table 6, α = 0: TRisk")
    assert tr.verdict == "not reproduced" and "−0.429" in tr.ours and "rank 3 of 3" in tr.ours
    assert _by_claim(items, "Table 6: ZRisk").verdict == "reproduced"
    geo = _by_claim(items, "Table 6 / Fig. 3")
    assert geo.verdict == "reproduced" and "0.833" in geo.ours
    g1 = _by_claim(items, "Table 7: GeoRisk α = 1")
    assert g1.verdict == "not reproduced" and "0.5025" in g1.ours and "rank 8 of 9" in g1.ours
    assert "GeoRisk α = 5's 0.509" in g1.ours
    assert _by_claim(items, "Table 7, bottom half: against").verdict == "not reproduced"
    concl = _by_claim(items, "Sec. 6.2")
    assert concl.verdict == "partly" and "4.81" in concl.ours
    ts = _by_claim(items, "Table 7, bottom half: T*-FARO")
    assert ts.verdict == "not reproduced" and "4.32 (rank 2 of 9)" in ts.ours
    sig = _by_claim(items, "Table 7 caption")
    assert sig.verdict == "not reproduced" and "0 of 8" in sig.ours and "0.16" in sig.ours
    # issue 51 item 2: a Table 7 claim that fails says plainly that its cause is not measured
    assert "Why GeoRisk α = 1 does not lead here: cause not measured." in g1.reason
    assert "Why its risk profile is not the best here: cause not measured." in _by_claim(
        items, "Table 7, bottom half: against").reason
    assert "Why T*-FARO ranks higher here than in the paper: cause not measured." in ts.reason
    for f in items:
        assert f.source and f.verdict != "not tested"


def test_verdicts_flip_when_numbers_cross_their_rules(tmp_path):
    _example(tmp_path, bad4=2)  # 82 of 84: >= 90 % -> partly
    _population(tmp_path, trisk_tau=1.0)
    _table7(tmp_path, p=0.01, geo1_mean=0.52, tstar_rr=(1.0, 1.1))
    items = dincer.findings(Outputs(tmp_path))
    t4 = _by_claim(items, "Table 4")
    assert t4.verdict == "partly" and "82 of 84" in t4.ours and "Mismatches" in t4.reason
    assert _by_claim(items, "Table 6, α = 0: TRisk").verdict == "reproduced"
    sig = _by_claim(items, "Table 7 caption")
    assert sig.verdict == "reproduced" and "8 of 8" in sig.ours
    g1 = _by_claim(items, "Table 7: GeoRisk α = 1")
    assert g1.verdict == "reproduced" and "rank 1 of 9" in g1.ours and "cause not measured" not in g1.reason
    ts = _by_claim(items, "Table 7, bottom half: T*-FARO")
    assert ts.verdict == "reproduced" and "cause not measured" not in ts.reason


def test_table4_mostly_wrong_is_not_reproduced(tmp_path):
    _example(tmp_path, bad4=40)
    assert _by_claim(dincer.findings(Outputs(tmp_path)), "Table 4").verdict == "not reproduced"


def test_missing_optional_parts_are_not_tested(tmp_path):
    _example(tmp_path)  # dincer2016.population and dincer2016.learning disabled
    items = dincer.findings(Outputs(tmp_path))
    assert len(items) == 12
    assert [f.verdict for f in items[:2]] == ["reproduced", "reproduced"]
    rest = items[2:]
    assert all(f.verdict == "not tested" for f in rest)
    assert "dincer2016.population" in rest[0].reason and "dincer2016.learning" in rest[-1].reason
    # the whole section through the framework: only the example there
    title, sec = [s for s in collect(tmp_path) if s[0] == dincer.TITLE][0]
    assert len(sec) == 12


def test_no_example_means_section_not_tested(tmp_path):
    _table7(tmp_path)
    (sec,) = [items for t, items in collect(tmp_path) if t == dincer.TITLE]
    assert [f.verdict for f in sec] == ["not tested"]


@pytest.mark.parametrize("drop", ["dincer2016/example/table4.csv", "dincer2016/example/table5.csv"])
def test_missing_example_table_is_not_tested(tmp_path, drop):
    _example(tmp_path)
    (tmp_path / drop).unlink()
    items = dincer.findings(Outputs(tmp_path))
    assert sum(f.verdict == "not tested" for f in items[:2]) == 1


def _trisk_table(root, urisk, trisk):
    """table6.csv's three systems with URisk and TRisk at α = 0 (se = URisk / TRisk)."""
    t6 = pd.read_csv(root / "dincer2016/population/table6.csv")
    t6.loc[:2, "urisk_a0"] = urisk
    t6["trisk_a0"] = list(trisk) + [None]
    _write(root, "dincer2016/population/table6.csv", t6)


def test_trisk_cause_is_measured_from_table6(tmp_path):
    """Issue 51 item 2: the TRisk finding's cause ("the standard errors differ more than the means") is
    the table's: se = URisk / TRisk, its coefficient of variation against URisk's, on either side."""
    _example(tmp_path)
    _population(tmp_path)
    # se 0.020, 0.0125, 0.010 (CV 37 %) against URisk 0.26, 0.25, 0.24 (CV 4 %): the cause holds
    _trisk_table(tmp_path, [0.26, 0.25, 0.24], [13.0, 20.0, 24.0])
    tr = _by_claim(dincer.findings(Outputs(tmp_path)), "Table 6, α = 0: TRisk")
    assert tr.verdict == "not reproduced"
    assert "Measured cause:" in tr.reason and "ranges 0.01–0.02 (coefficient of variation 37 %)" in tr.reason
    assert "URisk ranges 0.24–0.26 (4 %)" in tr.reason and "the better systems have the larger ones" in tr.reason
    # se 0.0104, 0.0100, 0.0100 (CV 2 %) against URisk 0.26, 0.25, 0.10 (CV 45 %): not the cause
    _trisk_table(tmp_path, [0.26, 0.25, 0.10], [25.0, 25.0, 10.0])
    tr = _by_claim(dincer.findings(Outputs(tmp_path)), "Table 6, α = 0: TRisk")
    assert "Measured cause:" not in tr.reason and "cause not measured" in tr.reason
    # no TRisk column: said plainly
    _population(tmp_path)
    tr = _by_claim(dincer.findings(Outputs(tmp_path)), "Table 6, α = 0: TRisk")
    assert "Cause not measured: table6.csv has no URisk/TRisk at α = 0." in tr.reason
