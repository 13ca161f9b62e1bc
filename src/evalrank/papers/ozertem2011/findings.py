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
over the query-URLs; Table 5's hybrid gain and the view threshold's MSE excess the delta-method se
of paired leave-one-out errors; the per-query correlations (Tables 6, 8) the se over tests of each
judged number (``*_se`` columns, :mod:`.precision`), each verdict judged on the margins that decide
it; the study's claims are "not tested" below
:data:`evalrank.papers.common.findings.MIN_TEST_N` tests, with the se of smoothed-DBN's r read off
its 95 % interval, and the coverage claim is "not tested" when the coverage lies within 2 binomial
se of its 90 % threshold.
"""

from __future__ import annotations

import math

from evalrank.papers.common.findings import MIN_TEST_N, Z_RESOLVE, Finding, Margin, Power, fmt, pct
from evalrank.papers.ozertem2011.claims import (C_APP, C_BASE, C_COV, C_DBN, C_EQ6, C_FIG7, C_IA, C_STUDY, C_T2, C_T4, C_T5, C_T6, C_T7, C_VIEWS)
from evalrank.papers.ozertem2011.rules import (APPROACH, DEGRADE, PAPER_MIN_VIEWS, PAPER_T4_DBN, PAPER_T4_JUDGED,
                                               PAPER_T5, PAPER_T8, SIMPLIFIED_SLIGHT, T4_TOL, T5_GAIN_SHARE, VIEWS_NEAR,
                                               D, _dbn, _eq6, _fig7,
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
        n = float(r["judged_pairs"])
        if "hybrid_gain_se" not in r.index or r["hybrid_gain_se"] != r["hybrid_gain_se"]:
            return f.with_power(Power(n=n, unit="judged query-URL pairs",
                                      note="leave-one-out MSEs; the outputs hold no standard error for them"))
        paper_gain = 1 - PAPER_T5["hybrid"] / min(PAPER_T5["query"], PAPER_T5["position"])
        return f.with_power(Power(n=n, unit="judged query-URL pairs", se=float(r["hybrid_gain_se"]),
                                  of="hybrid's gain over the better single smoothing",
                                  how="delta method on the paired squared leave-one-out errors, i.i.d. over pairs",
                                  percent=True, value=float(r["hybrid_gain"]),
                                  thresholds=(0.0, T5_GAIN_SHARE * paper_gain)))
    if rule is _min_views:
        t = out.csv(f"{D}/min_views.csv")
        n = int(t["targets"].max())
        if "excess_se" not in t.columns:
            return f.with_power(Power(n=n, unit="leave-one-out targets",
                                      note="no standard error of the MSEs in the outputs"))
        at = t[t["min_views"] == PAPER_MIN_VIEWS]
        margins = tuple(Margin(f"the {_model_name(r.model)}'s MSE at {PAPER_MIN_VIEWS} views over its minimum",
                               float(r.excess), VIEWS_NEAR, Z_RESOLVE * float(r.excess_se), percent=True)
                        for r in at.itertuples())
        return f.with_power(Power(n=n, unit="leave-one-out targets", se=float(at["excess_se"].max()),
                                  of="an MSE excess over the minimum", percent=True,
                                  how="delta method on the paired squared errors, i.i.d. over targets; the largest",
                                  margins=margins))
    if rule in (_table6, _inter_annotator, _approaches, _baselines):
        return _correlation_power(out, rule, f)
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


def _model_name(model) -> str:
    return {"em": "EM-fitted DBN", "simplified": "simplified DBN"}.get(str(model), str(model))


def _correlation_power(out, rule, f: Finding) -> Finding:
    """Tables 6 and 8: each number a mean over tests of a per-query correlation, its se the spread over
    tests (``*_se`` columns, :mod:`.precision`); judged on the margins that decide each verdict."""
    t = out.csv(f"{D}/table6.csv" if rule is _table6 else f"{D}/table8.csv")
    hi = t.loc[t["min_impressions"].idxmax()]
    base = dict(n=int(t["queries"].max()), unit="queries", repetitions=None)
    about = (f"per-query correlations averaged over {fmt(hi['tests_used'])} tests; {fmt(hi['queries'])} queries at "
             f"≥ {fmt(hi['min_impressions'])} sessions")
    if not any(c.endswith("_se") for c in t.columns):
        return f.with_power(Power(**base, note=about + "; no standard error in the outputs"))
    if rule is not _table6:
        q = t["quantity"] if "quantity" in t.columns else "delta_dcg"
        t, sg = t[q == "delta_dcg"], t[q == "sign"]
        sg = sg.set_index("min_impressions")
    t = t.set_index("min_impressions")
    lo, hi_k = min(t.index), max(t.index)
    how = "sd over tests / √tests, differences paired by test"

    def m(of, value, threshold, se):
        return Margin(of, float(value), float(threshold), Z_RESOLVE * float(se))

    if rule is _table6:
        d = t["smoothed"][lo] - t["carterette_jones"][lo]
        gap = (t["carterette_jones"][hi_k] - t["carterette_jones"][lo]) - (t["smoothed"][hi_k] - t["smoothed"][lo])
        margins = (m("smoothed-DBN − C&J over all queries", d, 0.0, t["smoothed_minus_carterette_jones_se"][lo]),)
        if d > 0:  # the drop decides reproduced / partly only where smoothed-DBN is ahead
            margins += (m(f"C&J's drop from ≥ {hi_k} minus smoothed-DBN's", gap, DEGRADE, t["drop_gap_se"][lo]),)
        se, of = t["smoothed_minus_carterette_jones_se"][lo], "smoothed-DBN − C&J over all queries"
    elif rule is _inter_annotator:
        paper = PAPER_T8[0][3]
        margins = tuple(m("the inter-annotator correlation over all queries", t["inter_annotator"][lo], paper + x,
                          t["inter_annotator_se"][lo]) for x in (-0.30, -0.10, 0.10, 0.30))
        se, of = t["inter_annotator_se"][lo], "the inter-annotator correlation over all queries"
    elif rule is _approaches:
        rd = t["smoothed"][lo] / t["inter_annotator"][lo]
        margins = tuple(m("smoothed-DBN / inter-annotator (ΔDCG)", rd, x, t["smoothed_over_inter_annotator_se"][lo])
                        for x in (0.6, APPROACH))
        if rd >= APPROACH and lo in sg.index:  # the sign's ratio decides only where the ΔDCG ratio passes
            margins += (m("smoothed-DBN / inter-annotator (sign)", sg["smoothed"][lo] / sg["inter_annotator"][lo],
                          APPROACH, sg["smoothed_over_inter_annotator_se"][lo]),)
        se, of = t["smoothed_over_inter_annotator_se"][lo], "smoothed-DBN / inter-annotator (ΔDCG)"
    else:
        margins = _baseline_margins(t, m)
        se, of = t["clicks_only_minus_smoothed_se"][lo], "clicks-only − smoothed-DBN over all queries"
    return f.with_power(Power(**base, se=float(se), of=of, how=how, note=about, margins=margins))


def _baseline_margins(t, m) -> tuple:
    """The margins that decide the baselines' verdict: both baselines − smoothed-DBN over all queries
    (partly / not reproduced); then, where both are below everywhere, every threshold's and
    clicks-only's drop (reproduced / partly), else the clearest threshold where one is not below."""
    lo, hi = min(t.index), max(t.index)
    diffs = [(f"{name} − smoothed-DBN at ≥ {int(k)} sessions", t[c][k] - t["smoothed"][k],
              t[f"{c}_minus_smoothed_se"][k])
             for k in t.index for c, name in (("clicks_only", "clicks-only"), ("editorial_only", "judgments-only"))]
    at_lo = [x for x in diffs if x[0].endswith(f"≥ {int(lo)} sessions")]
    out = tuple(m(of, v, 0.0, se) for of, v, se in at_lo)
    if not all(v < 0 for _, v, _ in at_lo):
        return out
    above = [x for x in diffs if x[1] >= 0]
    if above:
        of, v, se = max(above, key=lambda x: x[1] / x[2] if x[2] > 0 else float("inf"))
        return out + (m(of, v, 0.0, se),)
    return out + tuple(m(of, v, 0.0, se) for of, v, se in diffs if _not_lo(of, lo)) + (
        m(f"clicks-only's drop from ≥ {int(hi)} sessions", t["clicks_only"][hi] - t["clicks_only"][lo], DEGRADE,
          t["clicks_only_drop_se"][lo]),)


def _not_lo(of: str, lo) -> bool:
    return not of.endswith(f"≥ {int(lo)} sessions")


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
