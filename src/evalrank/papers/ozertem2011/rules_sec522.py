"""The verdict rules of Ozertem, Jones and Dumoulin (2011)'s findings, Sec. 5.2.2 (Table 8's
inter-annotator level, smoothed-DBN against it and the single-source baselines; Table 7's calls) and the
study beyond the paper (Fig. 8: the test-level correlation with the simulator's true ΔDCG; the
coverage of the stated variance): one function per claim of :mod:`.claims`, each with its rule and
tolerance written next to it, for :mod:`.findings` to list (``RULES``).
"""

from __future__ import annotations

import re

from evalrank.papers.common.findings import Finding, fmt, pct, verdict_within
from evalrank.papers.ozertem2011.claims import C_APP, C_BASE, C_COV, C_IA, C_STUDY, C_T7
from evalrank.papers.ozertem2011.rules import (APPROACH, DEGRADE, PAPER_MIN_VIEWS, PAPER_SIGN, PAPER_T7, PAPER_T8, D,
                                               _row, _src)

# -- Table 8 ---------------------------------------------------------------------------------

def _t8(out):
    t = out.csv(f"{D}/table8.csv")
    q = t["quantity"] if "quantity" in t.columns else "delta_dcg"
    return t[q == "delta_dcg"].set_index("min_impressions"), t[q == "sign"].set_index("min_impressions")


def _inter_annotator(out):
    t, _ = _t8(out)
    ia = t["inter_annotator"]
    lo = min(t.index)
    # rule: verdict_within(ours over all queries, 0.81, abs 0.10): reproduced within 0.10, partly within 0.30
    verdict = verdict_within(float(ia[lo]), PAPER_T8[0][3], abs_=0.10)
    reason = ("Rule: within 0.10 of the paper's 0.81 over all queries (partly within 0.30). ")
    if "full1_vs_truth" in t.columns:
        r = float(t["full1_vs_truth"][lo])
        reason += (f"Our fully judged sets are the true grades seen through Table 1's editor disagreement: one set "
                   f"correlates {fmt(r)} per query with the true ΔDCG. Two sets with independent errors that each "
                   f"correlate r with the truth correlate about r² with each other: {fmt(r * r)}, close to the "
                   f"measured {fmt(ia[lo])}. So the low agreement is what Table 1's disagreement implies for our "
                   "per-query ΔDCGs, which are small next to it. The paper's 0.81 would need each set to "
                   "correlate about 0.9 with the truth: its per-query ΔDCGs vary much more than editor noise, "
                   "or its editors' errors are shared (Table 1 was measured on another data set, footnote 3).")
    return Finding(
        claim=C_IA,
        ours=f"inter-annotator per-query correlation {', '.join(fmt(ia[k]) for k in t.index)} "
             f"(≥ {'/'.join(str(int(k)) for k in t.index)} sessions)",
        verdict=verdict, reason=reason, source=_src("table8.csv"))


def _approaches(out):
    t, s = _t8(out)
    lo = min(t.index)
    rd = float(t["smoothed"][lo]) / float(t["inter_annotator"][lo])
    rs = float(s["smoothed"][lo]) / float(s["inter_annotator"][lo]) if lo in s.index else float("nan")
    paper = PAPER_T8[0][2] / PAPER_T8[0][3]
    # rule: reproduced if smoothed / inter-annotator >= 0.85 for ΔDCG and for its sign (paper: 0.91, 0.95);
    # partly if the ΔDCG ratio is >= 0.60; else not reproduced
    verdict = ("reproduced" if rd >= APPROACH and (rs != rs or rs >= APPROACH) else
               "partly" if rd >= 0.6 else "not reproduced")
    truth = ""
    if {"smoothed_vs_truth", "full1_vs_truth"} <= set(t.columns):
        truth = (f" Against the true ΔDCG, smoothed-DBN correlates {fmt(t['smoothed_vs_truth'][lo])} per query, "
                 f"a fully judged set {fmt(t['full1_vs_truth'][lo])}.")
    return Finding(
        claim=C_APP,
        ours=(f"over all queries: ΔDCG {fmt(t['smoothed'][lo])} vs {fmt(t['inter_annotator'][lo])} "
              f"(ratio {fmt(rd)}); sign {fmt(s['smoothed'][lo]) if lo in s.index else 'n/a'} vs "
              f"{fmt(s['inter_annotator'][lo]) if lo in s.index else 'n/a'} (ratio {fmt(rs)})"),
        verdict=verdict,
        reason=(f"Rule: the ratio smoothed / inter-annotator ≥ {fmt(APPROACH)} for both (the paper's: "
                f"{fmt(paper)} and {fmt(PAPER_SIGN[0] / PAPER_SIGN[1])}). The relation holds, at a much lower "
                "level than the paper's since the editors themselves agree little here (previous finding)."
                + truth),
        source=_src("table8.csv"))


def _baselines(out):
    t, _ = _t8(out)
    ks = list(t.index)
    hi, lo = max(ks), min(ks)
    c, e, sm = t["clicks_only"], t["editorial_only"], t["smoothed"]
    below_all = all(c[k] < sm[k] and e[k] < sm[k] for k in ks)
    below_lo = c[lo] < sm[lo] and e[lo] < sm[lo]
    drop = c[hi] - c[lo]
    # rule: reproduced if both baselines are below smoothed-DBN at every threshold and clicks-only
    # drops by >= 0.10 from the highest to the lowest; partly if both are below it over all queries;
    # not reproduced otherwise
    verdict = ("reproduced" if below_all and drop >= DEGRADE else "partly" if below_lo else "not reproduced")
    above = [str(int(k)) for k in ks if c[k] >= sm[k]]
    seq = lambda s: ", ".join(fmt(s[k]) for k in ks)  # noqa: E731
    return Finding(
        claim=C_BASE,
        ours=(f"≥ {'/'.join(str(int(k)) for k in ks)} sessions: clicks-only {seq(c)}; judgments-only {seq(e)}; "
              f"smoothed-DBN {seq(sm)}"),
        verdict=verdict,
        reason=(f"Rule: both baselines below smoothed-DBN at every threshold and clicks-only dropping by ≥ "
                f"{fmt(DEGRADE)}. Clicks-only drops by {fmt(drop)}, as in the paper"
                + (f", but it is at least as good as smoothed-DBN at ≥ {' and ≥ '.join(above)} sessions, the frequent "
                   "queries" if above else "")
                + f". Judgments-only is far below the paper's ({fmt(e[lo])} vs 0.51): " + _unjudged_cause(t, lo)),
        source=_src("table8.csv"))


def _unjudged_cause(t, lo) -> str:
    """Judgments-only's cause: its per-query correlation with the ΔDCG of "no pre-existing judgment"
    (``editorial_only_vs_unjudged`` of table8.csv), or "cause not measured" without it."""
    if "editorial_only_vs_unjudged" not in t.columns or t["editorial_only_vs_unjudged"][lo] != \
            t["editorial_only_vs_unjudged"][lo]:
        return "why is not in this run's outputs: cause not measured."
    u = float(t["editorial_only_vs_unjudged"][lo])
    return (f"with every unjudged pair counted as Bad, a query's judgments-only ΔDCG correlates {fmt(u)} per query "
            "(over all queries) with the ΔDCG of the indicator 'no pre-existing judgment', i.e. with how much more "
            "of the new ranking's top lacks judgments than the old's (pre-existing judgments cover the old "
            "configurations' results)"
            + (": it mostly measures which side's documents are unjudged." if abs(u) >= 0.5 else
               ", too weakly to explain it: cause not measured."))


# -- Table 7 ---------------------------------------------------------------------------------


_CELL = re.compile(r"^\s*([+?\-])\s*\(\s*([^)]*)\)\s*$")


def _calls(t, method, tests):
    r = _row(t, "method", method)
    if r is None:
        return None
    out = []
    for c in tests:
        m = _CELL.match(str(r[c]))
        out.append((m.group(1), float(m.group(2))) if m else ("?", float("nan")))
    return out


def _table7(out):
    t = out.csv(f"{D}/table7.csv")
    tests = [c for c in t.columns if re.fullmatch(r"test\d+", c)]
    full = sorted(m for m in t["method"] if str(m).startswith("full"))
    fc = {m: _calls(t, m, tests) for m in full}
    sm, tr = _calls(t, "smoothed", tests), _calls(t, "truth", tests)
    n_full = sum(c != "?" for m in full for c, _ in fc[m])
    n_sm = sum(c != "?" for c, _ in sm)
    paper_full = sum(c != "?" for m in ("full1", "full2", "full3") for c in PAPER_T7[m])
    paper_share = paper_full / 15
    share = n_full / max(1, len(full) * len(tests))
    # tests where every full set makes the same significant call, and whether smoothed-DBN agrees
    agreed = [i for i in range(len(tests)) if all(fc[m][i][0] == fc[full[0]][i][0] != "?" for m in full)]
    sm_agree = sum(sm[i][0] == fc[full[0]][i][0] for i in agreed)
    # rule: reproduced if the full sets' share of significant calls is at least half the paper's (9/15)
    # and smoothed-DBN agrees on every test where all full sets agree on a significant call; partly if
    # the full sets make some significant call; not reproduced if they make none (nothing to agree with)
    if n_full == 0:
        verdict = "not reproduced"
    elif share >= 0.5 * paper_share and agreed and sm_agree == len(agreed):
        verdict = "reproduced"
    else:
        verdict = "partly"
    ours = (f"first {len(tests)} tests: the {len(full)} full sets make {n_full} significant calls of "
            f"{len(full) * len(tests)}, smoothed-DBN {n_sm} of {len(tests)}"
            + (f"; the true ΔDCG is {', '.join(fmt(v) for _, v in tr)}" if tr else ""))
    reason = (f"Rule: the full sets' share of significant calls at least half the paper's ({paper_full} of 15), "
              "and smoothed-DBN agreeing wherever all full sets agree on a call. Our tests are other "
              "configurations than the paper's, so only the pattern of calls is comparable, not the values. ")
    if out.has(f"{D}/table4.csv"):
        t4 = out.csv(f"{D}/table4.csv")
        size = f"{fmt(t4['unique_queries'].min())}–{fmt(t4['unique_queries'].max())}"
        reason += (f"Our {len(t4)} tests are smaller ({size} "
                   "queries; the paper's 55–911) ")
    else:
        reason += "Our tests are small "
    reason += ("and their true changes are small, while a test's SD counts each query's grade uncertainty under "
               "Table 1's wide pdfs divided by the number of queries; so most tests stay '?'.")
    if out.has(f"{D}/study.csv"):
        st = out.csv(f"{D}/study.csv")
        st = st[st["truth"] == "truth"].set_index("method")
        fl = [m for m in st.index if str(m).startswith("full")]
        if fl and "smoothed" in st.index:
            reason += (f" Over all {fmt(st.loc['smoothed', 'tests'])} tests the full sets make "
                       f"{'–'.join(sorted({fmt(st.loc[m, 'significant_calls']) for m in fl}))} significant calls "
                       f"each, smoothed-DBN {fmt(st.loc['smoothed', 'significant_calls'])}; of these calls, "
                       f"{pct(st.loc[fl, 'significant_correct'].min())} (worst full set) and "
                       f"{pct(st.loc['smoothed', 'significant_correct'])} (smoothed-DBN) have the truth's sign, "
                       "so the calls are rare rather than wrong (`study.csv`).")
    return Finding(claim=C_T7, ours=ours, verdict=verdict, reason=reason, source=_src("table7.csv", "table4.csv",
                                                                                       "study.csv"))


# -- the study (beyond the paper) ------------------------------------------------------------


def _study(out):
    st = out.csv(f"{D}/study.csv")
    t = st[st["truth"] == "truth"].set_index("method")
    fl = [m for m in t.index if str(m).startswith("full")]
    s, cj = t.loc["smoothed"], t.loc["carterette_jones"] if "carterette_jones" in t.index else None
    fmin, fmax = t.loc[fl, "pearson"].min(), t.loc[fl, "pearson"].max()
    # rule: reproduced if smoothed-DBN's test-level r with the truth is within 0.05 of the worst full set
    # and not below C&J's; partly if r >= 0.7 otherwise; else not reproduced
    beats_cj = cj is None or s["pearson"] >= cj["pearson"]
    verdict = ("reproduced" if s["pearson"] >= fmin - 0.05 and beats_cj else
               "partly" if s["pearson"] >= 0.7 else "not reproduced")
    parts = [f"full sets {fmt(fmin)}–{fmt(fmax)}"]
    if cj is not None:
        parts.append(f"C&J {fmt(cj['pearson'])} [{fmt(cj['ci_low'], 2)}, {fmt(cj['ci_high'], 2)}]")
    parts.append(f"smoothed-DBN {fmt(s['pearson'])} [{fmt(s['ci_low'], 2)}, {fmt(s['ci_high'], 2)}]")
    for m, name in (("smoothed_paper_views", f"at {PAPER_MIN_VIEWS} views"), ("editorial_only", "editorial-only"),
                    ("clicks_only", "clicks-only")):
        if m in t.index:
            parts.append(f"{name} {fmt(t.loc[m, 'pearson'])}")
    sign = (f" Sign agreement with the truth: smoothed-DBN {pct(s['sign_agreement'], 0)}, "
            + (f"C&J {pct(cj['sign_agreement'], 0)}, " if cj is not None else "")
            + f"full sets {pct(t.loc[fl, 'sign_agreement'].min(), 0)}–{pct(t.loc[fl, 'sign_agreement'].max(), 0)}.")
    return Finding(
        claim=C_STUDY,
        ours=f"test-level Pearson r with the true ΔDCG over {fmt(s['tests'])} tests: " + "; ".join(parts),
        verdict=verdict,
        reason=("Rule: reproduced if smoothed-DBN is within 0.05 of the worst full set and not below C&J; partly "
                "if r ≥ 0.7. Smoothed-DBN "
                + ("tracks the truth well but below the full sets" if s["pearson"] < fmin - 0.05
                   else "tracks the truth about as well as the full sets")
                + (", and slightly below C&J (the 95 % intervals overlap): per query it is ahead (Table 6), per "
                   "test C&J is ahead" + _shrink(t, fl) if cj is not None and not beats_cj else "") + "." + sign),
        source=_src("study.csv"))


def _shrink(t, fl) -> str:
    """The study's cause of C&J's lead: the slopes on the truth (``slope`` of study.csv), which a Pearson r
    does not see; "cause not measured" either way."""
    if "slope" not in t.columns:
        return "; why is not measured: cause not measured"
    return (f". Both shrink towards the mean (slope of the test-level ΔDCG on the truth: smoothed-DBN "
            f"{fmt(t.loc['smoothed', 'slope'])}, C&J {fmt(t.loc['carterette_jones', 'slope'])}, full sets "
            f"{fmt(t.loc[fl, 'slope'].min())}–{fmt(t.loc[fl, 'slope'].max())}), but a shrinkage common to all tests "
            "leaves a Pearson r unchanged, so it does not explain the gap; what does is not measured: cause not "
            "measured")


def _coverage(out):
    st = out.csv(f"{D}/study.csv")
    t, e = (st[st["truth"] == x].set_index("method") for x in ("truth", "expected"))
    fl = [m for m in t.index if str(m).startswith("full")]
    ct, ce = float(t.loc["smoothed", "coverage"]), float(e.loc["smoothed", "coverage"]) if "smoothed" in e.index \
        else float("nan")
    # rule: nominal ±2 SD is 95 %; reproduced if coverage of the true ΔDCG >= 0.90; partly if only the
    # coverage of the editorial-scale target (truth = expected) is >= 0.90; else not reproduced
    verdict = "reproduced" if ct >= 0.90 else "partly" if ce >= 0.90 else "not reproduced"
    rng = lambda d: f"{pct(d.loc[fl, 'coverage'].min(), 0)}–{pct(d.loc[fl, 'coverage'].max(), 0)}"  # noqa: E731
    return Finding(
        claim=C_COV,
        ours=(f"share of tests with the true ΔDCG within the band (± `ozertem2011.coverage_z` SD): smoothed-DBN "
              f"{pct(ct, 0)}, full sets {rng(t)}; with the editorial-scale target: smoothed-DBN {pct(ce, 0)}, "
              f"full sets {rng(e)}"),
        verdict=verdict,
        reason=("Rule: reproduced if the truth is covered in ≥ 90 % of tests (nominal about 95 % at the default "
                "± 2 SD); "
                "partly if only the editorial-scale target is. The variance counts only each pdf's grade "
                "uncertainty: it leaves out the bias of smoothing and the shrinkage of editorial pdfs (an "
                "editor's \"Perfect\" has mean 3.48 by Table 2, not the top grade's value). Against the quantity "
                "the editorial scale estimates (the true grade's Table 1 row mean, the `truth = expected` rows), "
                "the method is near-calibrated on its own scale."),
        source=_src("study.csv"))
