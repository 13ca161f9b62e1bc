"""Findings of Ozertem, Jones and Dumoulin (2011), "Evaluating new search engine configurations
with pre-existing judgments and clicks" (WWW 2011), on the simulated world of the clicks stage.

Claims covered (the paper's numbers are typed and cited; ours are read from ``ozertem2011/*.csv``):

- Sec. 3.3, Table 2 from Table 1 (``table2.csv``);
- Sec. 3.1, eq. 6 as printed (no output measures it: a note, "not tested");
- Sec. 2.1, the simplified DBN of eq. 1 vs the EM-fitted DBN (``dbn_recovery.csv``);
- Sec. 4, Table 4, the missing-data situation (``table4.csv``);
- Sec. 5.1, Table 5 and Fig. 6 (``table5.csv``), Fig. 7 (no table: "not tested");
- Sec. 4 / 5.2.1, the 10-view threshold of the click model (``min_views.csv``, ``table6.csv``);
- Sec. 5.2.1, Table 6, smoothed-DBN vs Carterette & Jones (``table6.csv``);
- Sec. 5.2.2, Table 8 (inter-annotator level, smoothed-DBN vs it, the single-source baselines;
  ``table8.csv``) and Table 7 (per-test calls; ``table7.csv``, ``table4.csv``, ``study.csv``);
- beyond the paper (the world is simulated, so the true ΔDCG is known): the test-level
  correlation with the truth (``study.csv``, Fig. 8) and the coverage of the stated variance.

Each verdict comes from the rule written next to it (its tolerance stated), so a changed
number can change it: Secs. 2-5.2.1 in :mod:`.rules`, Sec. 5.2.2 and the study in :mod:`.rules_sec522`;
``RULES`` here pairs each with its claim (:mod:`.claims`) and the files it reads.

What each claim resolves (issue 30 item 2, :class:`evalrank.papers.common.findings.Power`,
:func:`_power`): Table 2 is exact (recomputed from Table 1); the DBN recovery's Pearson r has the
standard error ``(1 − r²)/√(n − 1)`` over its query-URL pairs; Table 4's shares a binomial one
over the query-URLs; the per-query correlations (Tables 6, 8) state their queries and tests (the
outputs hold no standard error for them); the study's claims are "not tested" below
:data:`evalrank.papers.common.findings.MIN_TEST_N` tests, with the se of smoothed-DBN's r read off
its 95 % interval, and the coverage claim is "not tested" when the coverage lies within 2 binomial
se of its 90 % threshold.
"""

from __future__ import annotations

import math

from evalrank.papers.common.findings import MIN_TEST_N, Z_RESOLVE, Finding, Margin, Power, fmt, pct
from evalrank.papers.ozertem2011.claims import (C_APP, C_BASE, C_COV, C_DBN, C_EQ6, C_FIG7, C_IA, C_STUDY, C_T2, C_T4, C_T5, C_T6, C_T7, C_VIEWS)
from evalrank.papers.ozertem2011.rules import (PAPER_MIN_VIEWS, PAPER_T4_DBN, PAPER_T4_JUDGED, SIMPLIFIED_SLIGHT,
                                               T4_TOL, D, _dbn, _eq6, _fig7,
                                               _min_views, _missing, _row, _src, _table2, _table4, _table5, _table6)
from evalrank.papers.ozertem2011.rules_sec522 import (_approaches, _baselines, _coverage, _inter_annotator, _study,
                                                      _table7)

TITLE = "Ozertem et al. (2011), judgments and clicks"
FILES = ("table2.csv", "table4.csv", "table5.csv", "table6.csv", "table7.csv", "table8.csv", "study.csv",
         "min_views.csv", "dbn_recovery.csv")
REQUIRES = tuple(f"{D}/{f}" for f in FILES)

#: The findings in the paper's order (Secs. 2-5), then the study beyond the paper: (rule, claim of
#: :mod:`.claims`, the files of ``ozertem2011/`` it reads; one missing makes the claim "not tested").
RULES = (
    (_table2, C_T2, ("table2.csv",)),
    (_eq6, C_EQ6, ()),
    (_dbn, C_DBN, ("dbn_recovery.csv",)),
    (_table4, C_T4, ("table4.csv",)),
    (_table5, C_T5, ("table5.csv",)),
    (_fig7, C_FIG7, ()),
    (_min_views, C_VIEWS, ("min_views.csv",)),
    (_table6, C_T6, ("table6.csv",)),
    (_inter_annotator, C_IA, ("table8.csv",)),
    (_approaches, C_APP, ("table8.csv",)),
    (_baselines, C_BASE, ("table8.csv",)),
    (_table7, C_T7, ("table7.csv",)),
    (_study, C_STUDY, ("study.csv",)),
    (_coverage, C_COV, ("study.csv",)),
)


def findings(out):
    """The paper's claims in its order (Secs. 2-5), then the study beyond the paper (:data:`RULES`),
    each with what it resolves (:func:`_power`)."""
    items = []
    for rule, claim, files in RULES:
        f = _checked(out, rule, claim, files)
        if f.verdict != "not tested" and not _missing(out, *files):
            try:
                f = _power(out, rule, f)
            except KeyError:  # a table of an older run without the column: the power is not stated
                pass
        items.append(f)
    return items


#: :func:`_power`'s minimum for a claim over tests (the study's), and why
_WHY_TESTS = "a correlation or share over tests is a normal approximation"


def _r_se(r: float, n: float) -> float:
    """Large-sample standard error of a Pearson r over ``n`` pairs, ``(1 − r²)/√(n − 1)``."""
    return (1 - r * r) / math.sqrt(max(n - 1, 1))


def _power(out, rule, f: Finding) -> Finding:
    """``f`` with what its tables resolve attached, and re-judged where a rule compares a number with a
    known standard error to a tolerance (module docstring)."""
    if rule is _table2:
        return f.with_power(Power(n=len(out.csv(f"{D}/table2.csv")), unit="printed numbers",
                                  note="recomputed from Table 1: exact, no sampling error"))
    if rule is _dbn:
        t = out.csv(f"{D}/dbn_recovery.csv")
        rel = t[t["parameter"] == "relevance"]
        views = sorted(rel["min_views"].unique())
        at = rel[rel["min_views"] == (PAPER_MIN_VIEWS if PAPER_MIN_VIEWS in views else views[len(views) // 2])]
        n = int(at["pairs"].min())
        se = math.hypot(*(_r_se(float(r), n) for r in at["pearson"]))
        by = at.set_index("model")["pearson"]
        return f.with_power(Power(n=n, unit="query-URL pairs", se=se, of="EM's − simplified's r",
                                  how="(1 − r²)/√(n − 1) each, independent: an upper bound",
                                  value=float(by["em"] - by["simplified"]),
                                  thresholds=(SIMPLIFIED_SLIGHT, 3 * SIMPLIFIED_SLIGHT)), tol=SIMPLIFIED_SLIGHT)
    if rule is _table4:
        t = out.csv(f"{D}/table4.csv")
        n = int(t["unique_query_urls"].sum())
        p = float(t["judged_query_urls"].sum()) / max(n, 1)
        c = float(t["dbn_query_urls"].sum()) / max(n, 1)
        margins = tuple(Margin(f"the {what} share", x, paper + side * T4_TOL,
                               Z_RESOLVE * math.sqrt(x * (1 - x) / max(n, 1)), percent=True)
                        for what, x, paper in (("judged", p, PAPER_T4_JUDGED), ("click-estimated", c, PAPER_T4_DBN))
                        for side in (-1, 1))
        return f.with_power(Power(n=n, unit=f"query-URLs over {len(t)} tests", se=math.sqrt(p * (1 - p) / max(n, 1)),
                                  of="the judged share", how="binomial", percent=True, margins=margins), tol=T4_TOL)
    if rule is _table5:
        r = _row(out.csv(f"{D}/table5.csv"), "source", "ours")
        return f.with_power(Power(n=float(r["judged_pairs"]), unit="judged query-URL pairs",
                                  note="leave-one-out MSEs; the outputs hold no standard error for them"))
    if rule is _min_views:
        return f.with_power(Power(n=int(out.csv(f"{D}/min_views.csv")["targets"].max()), unit="leave-one-out targets",
                                  note="no standard error of the MSEs in the outputs"))
    if rule in (_table6, _inter_annotator, _approaches, _baselines):
        t = out.csv(f"{D}/table6.csv" if rule is _table6 else f"{D}/table8.csv")
        hi = t.loc[t["min_impressions"].idxmax()]
        return f.with_power(Power(n=int(t["queries"].max()), unit="queries", repetitions=None,
                                  note=f"per-query correlations averaged over {fmt(hi['tests_used'])} tests; "
                                       f"{fmt(hi['queries'])} queries at ≥ {fmt(hi['min_impressions'])} sessions; "
                                       "no standard error in the outputs"))
    if rule is _table7:
        return f.with_power(Power(n=len(out.csv(f"{D}/table7.csv").columns[1::2]), unit="tests (the paper's five)",
                                  note="each call a significance test of its own"))
    if rule is _study:
        st = out.csv(f"{D}/study.csv")
        s = st[(st["truth"] == "truth") & (st["method"] == "smoothed")].iloc[0]
        se = (float(s["ci_high"]) - float(s["ci_low"])) / (2 * 1.959964)
        t = st[st["truth"] == "truth"]
        fmin = float(t[t["method"].astype(str).str.startswith("full")]["pearson"].min())
        # the rule's thresholds: the worst full set's r − 0.05 and 0.7 (C&J's r, the third, has an se of its own)
        return f.with_power(Power(n=int(s["tests"]), unit="tests", se=se, of="smoothed-DBN's test-level r",
                                  how="from its 95 % interval", value=float(s["pearson"]),
                                  thresholds=(fmin - 0.05, 0.7)), tol=0.05, min_n=MIN_TEST_N, why=_WHY_TESTS)
    if rule is _coverage:
        return _coverage_power(out, f)
    return f


def _coverage_power(out, f: Finding) -> Finding:
    """The coverage rule's threshold is 90 %: a coverage within :data:`Z_RESOLVE` binomial se of it
    (over the study's tests) could fall on either side."""
    st = out.csv(f"{D}/study.csv")
    s = st[(st["truth"] == "truth") & (st["method"] == "smoothed")].iloc[0]
    n = int(s["tests"])
    se = math.sqrt(0.9 * 0.1 / max(n, 1))
    power = Power(n=n, unit="tests", se=se, of="a coverage share", how="binomial at 90 %", percent=True)
    g = f.with_power(power, min_n=MIN_TEST_N, why=_WHY_TESTS)
    # the rule reads the coverage of the true ΔDCG, and below 90 % that of the editorial-scale target
    e = st[(st["truth"] == "expected") & (st["method"] == "smoothed")]
    deciding = [("of the true ΔDCG", float(s["coverage"]))]
    if deciding[0][1] < 0.9 - Z_RESOLVE * se and not e.empty:
        deciding.append(("of the editorial-scale target", float(e["coverage"].iloc[0])))
    what, c = deciding[-1]
    if g.verdict != "not tested" and abs(c - 0.9) < Z_RESOLVE * se:
        return Finding(f.claim, f.ours, "not tested",
                       f"not tested: smoothed-DBN's coverage {what}, {pct(c, 1)}, lies within {Z_RESOLVE:g} se "
                       f"({pct(Z_RESOLVE * se)}) of the rule's 90 % over {n} tests. The numbers alone would read "
                       f"\"{f.verdict}\": {f.reason}", f.source, power)
    return g


def _checked(out, rule, claim: str, files) -> Finding:
    """``rule(out)``, or :meth:`Finding.not_tested` naming the files of ``files`` this run lacks."""
    if miss := _missing(out, *files):
        return Finding.not_tested(claim, "this run has no " + ", ".join(f"`{D}/{f}`" for f in miss), _src(*files))
    return rule(out)
