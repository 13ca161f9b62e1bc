"""The claims of Ozertem, Jones and Dumoulin (2011) that the findings page checks, as data: each
text in the paper's words, with the paper's numbers from :mod:`.printed`. The rules that give each
claim its verdict are in :mod:`.rules` and :mod:`.rules_sec522`; :mod:`.findings`' ``RULES`` pairs
them."""

from __future__ import annotations

from evalrank.papers.common.findings import fmt, pct
from evalrank.papers.ozertem2011.printed import MIN_VIEWS as PAPER_MIN_VIEWS
from evalrank.papers.ozertem2011.printed import T4_DBN_SHARE as PAPER_T4_DBN
from evalrank.papers.ozertem2011.printed import T4_JUDGED_SHARE as PAPER_T4_JUDGED
from evalrank.papers.ozertem2011.printed import TABLE5 as PAPER_T5

C_T2 = ("Table 2 follows from Table 1: normalising each row of the inter-editor matrix gives each grade's "
        "E(g) and Var(g) (P 3.48/0.59, E 2.27/0.61, G 1.91/0.65, F 1.42/0.69, B 0.86/0.64)")

C_EQ6 = "Eq. 6: Var{DCG_n} = Σ Var{g_i}/log2(i+1)² − E{DCG_n}² (independent grades)"

C_DBN = ("Sec. 2.1: the simplified DBN of eq. 1 (counting views, clicks and last clicks) performs only "
         "slightly worse than the DBN fitted by EM")

C_T4 = (f"Table 4 / Sec. 4: of the query-URLs the tests need, {pct(PAPER_T4_JUDGED)} have a pre-existing "
        f"judgment and about {pct(PAPER_T4_DBN)} more have only a DBN estimate (so about a third must be smoothed)")

C_T5 = ("Table 5 / Fig. 6: hybrid query/position smoothing has the lowest leave-one-out MSE, "
        f"{fmt(PAPER_T5['hybrid'], 4)} at σ = {fmt(PAPER_T5['sigma'])}, 23–26 % below query "
        f"({fmt(PAPER_T5['query'], 4)}) and position ({fmt(PAPER_T5['position'], 4)}) smoothing")

C_FIG7 = ("Fig. 7: query and position smoothing make systematic errors (error pdfs with peaks away from "
           "zero); the hybrid's errors have one peak at zero")

C_VIEWS = (f"Sec. 4 / 5.2.1: a click estimate needs ≥ {PAPER_MIN_VIEWS} views (N_view ≥ {PAPER_MIN_VIEWS}, "
           "\"reliable relevance estimates with as few as 10 impressions\")")

C_T6 = ("Table 6: per-query correlation with the fully judged ΔDCG; Carterette & Jones degrade on rare "
        "queries (0.79, 0.63, 0.37, 0.29 for ≥ 200/50/10/0 impressions) while smoothed-DBN stays "
        "(0.78, 0.77, 0.74, 0.74)")

C_IA = ("Table 8: two fully judged sets (independent editors) give ΔDCG that correlate 0.81–0.83 per query, "
        "the upper bound for any click-based estimate")

C_APP = ("Table 8 / Sec. 5.2.2: smoothed-DBN approaches inter-annotator agreement: 0.74 vs 0.81 for ΔDCG, "
         "0.69 vs 0.73 for sign(ΔDCG), over all queries")

C_BASE = ("Table 8: the single-source baselines (unjudged or unclicked = Bad) are worse than smoothed-DBN; "
          "clicks-only falls from 0.61 to 0.18 as rare queries enter, judgments-only stays at 0.51–0.57")

C_T7 = ("Table 7: on its five tests the fully judged sets make significant calls (9 of 15: '+' on Test 3 "
        "and '−' on Test 5 by all three sets), and smoothed-DBN agrees with them on Tests 3-5")

C_STUDY = ("Sec. 5.2.2 / Fig. 8 (our many-test study): smoothed-DBN estimates a test's ΔDCG nearly as well as a "
           "fully judged set (the paper: 0.74 vs 0.81 against fully judged data; no truth was available to it)")

C_COV = ("Secs. 3.1, 5.2.2: the stated Var{ΔDCG} (grade uncertainty of each pdf) measures the error, so a test's "
         "significance call can be trusted (implied: the truth lies within the nominal band)")
