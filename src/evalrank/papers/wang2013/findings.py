"""Findings of Wang, Wang, Li, He, Chen and Liu (2013), *A theoretical analysis of NDCG type
ranking measures* (COLT 2013), against the theory stage (``results/<name>/wang2013/``).

The paper's claims checked here (``wang2013-ndcg-theory.md``; the limits restated in
``wang2013-limits.md``, since the extracted text lost its formulas):

- the limits of NDCG as the list grows, one finding per row of the limits table: standard NDCG
  (1 / log(1 + r)) → 1 (Theorem 1); r^−β, 0 < β < 1 (Theorems 3, 10); Zipf 1/r → g(1)/max gain
  (Theorem 5); log with k = c·n (Theorems 8, 12); r^−β with k = c·n (Theorems 9, 13); k → ∞,
  k/n → 0 (Theorems 7, 11); a summable discount or a fixed k: no limit (Theorem 6);
- the rate of Theorem 1: the gap to 1 is of order 1/log n (proof of Theorem 1, eq. 40, via
  li(n) ~ n / ln n), i.e. γ = 1 in C (ln n)^−γ;
- consistent distinguishability (Definition 3): standard NDCG distinguishes two rankers that
  differ although both tend to 1 (Theorem 2); so do r^−β and the k = c·n versions (Theorem 4,
  Sec. 3.3); summable discounts and a fixed k cannot (Theorem 6); Zipf and k/n → 0 are "not
  clear" (Sec. 3.2, 3.3); rankers with the same g(s) are not told apart (Theorem 2's "unless");
- Sec. 4, Figs. 1–4 (three rankers on 40 real queries, the first n documents): on our generated
  lists (``wang2013/lists.csv``; only when ``wang2013.lists.enabled``).

Our numbers: ``wang2013/gaps.csv`` (empirical NDCG at the largest n against the quadrature limit),
``wang2013/convergence.csv`` (the same at every n), ``wang2013/rate.csv`` (the fitted γ),
``wang2013/limits.csv`` (which theorem gives each measure's limit; two scorers whose limits agree
for every measure form an "equal" pair), ``wang2013/distinguishability.csv`` (share of the R samples
with M(f1) > M(f2)) and ``wang2013/lists.csv``.

Verdict rules (tolerances):

- a limit (rows with one): a scorer is *within* when its relative gap to the limit at the
  largest n is at most ``TOL_REL`` (2 %); reproduced if every scorer is within; partly if some
  are, or none is but the mean |relative gap| over scorers shrank from the smallest to the
  largest n (converging, too slowly for the tolerance at this n); else not reproduced. The gap
  in standard errors is reported (above ``Z_SE`` SE the residual is a real finite-n bias, not
  noise) but does not decide the verdict: the theorems are about n → ∞.
- no limit (Theorem 6): a (scorer, measure) does *not concentrate* when its per-sample SD
  (se·√R) at the largest n is at least ``SD_KEEP`` (½) of the SD at the smallest n (a converging
  measure's SD falls by orders of magnitude); reproduced if all do not concentrate, partly if
  some, else not reproduced.
- the rate: γ within ``TOL_GAMMA`` (0.25) of the paper's 1 for every scorer = reproduced,
  within 3× that = partly, else not reproduced.
- distinguishing (Theorems 2, 4, 8, 9): a (measure, pair) distinguishes when max(share,
  1 − share) ≥ ``SURE`` (0.95) at the largest n; all = reproduced, some = partly, none = not
  reproduced. Theorem 6 (cannot distinguish): |share − ½| ≤ ``COIN`` (0.15, 3 SE at R = 100) at
  the largest n; all / some / none as before. Borderline (Theorems 5, 7; the paper suspects Zipf
  has no strong distinguishability): reproduced when no borderline measure distinguishes every
  differing pair at the largest n, not reproduced when all do, partly otherwise. Equal pairs:
  |share − ½| ≤ ``COIN`` at every n for every measure = reproduced, at the largest n only =
  partly, else not reproduced.
- Sec. 4 (lists.csv), with the trained rankers vs the random scorer at the largest n: Fig. 1:
  *close* = spread of the three ≤ ``CLOSE`` (0.02), *ordered* = random below both trained;
  both = reproduced, one = partly, none = not reproduced. Figs. 2 and 4: *separated* = random
  at least ``APART`` (0.05) below the lower trained ranker, *settled* = every ranker moved at
  most ``SETTLED`` (0.02) over the last size step; both / one / none. Fig. 3 (cannot
  distinguish): random within ``APART`` of the lower trained ranker = reproduced, else not
  reproduced (:mod:`evalrank.papers.wang2013.claims_lists`, which holds Sec. 4's claims, rules and
  tolerances).

What each claim resolves (issue 30 item 2, :class:`evalrank.papers.common.findings.Power`): the
limits, the list length n and the R samples with the largest standard error of a mean relative to
its limit (``gaps.csv``), "not tested" when 2 of them exceed ``TOL_REL``; the shares, R samples
and the binomial se at ½ (``COIN`` is 3 of them at R = 100), "not tested" when 2 se exceed
``COIN``; the rate, R (the outputs hold no se of γ); Sec. 4, the queries per list with the largest
se of a ranker's mean, "not tested" below
:data:`evalrank.papers.common.findings.MIN_TEST_N` queries (the se of a difference of two rankers
on the same queries is not in ``lists.csv``: the rules' ``CLOSE`` and ``APART`` are not re-judged).
"""

from __future__ import annotations

import math
import re

import numpy as np

from evalrank.papers.common.findings import MIN_TEST_N, Z_RESOLVE, Finding, Margin, Power, fmt, pct
from evalrank.papers.wang2013.claims_lists import lists_findings, lists_power

TITLE = "Wang et al. (2013), NDCG as lists grow"
LIMITS = "wang2013/limits.csv"
CONV = "wang2013/convergence.csv"
GAPS = "wang2013/gaps.csv"
RATE = "wang2013/rate.csv"
DIST = "wang2013/distinguishability.csv"
REQUIRES = (LIMITS, CONV, GAPS, RATE, DIST, )

#: A limit is met when the relative gap at the largest n is at most this.
TOL_REL = 0.02
#: Gaps beyond this many SE are a real (finite-n) bias, not noise.
Z_SE = 3.0
#: Theorem 6: the per-sample SD at the largest n keeps at least this share of the smallest n's.
SD_KEEP = 0.5
#: The paper's order of the gap of standard NDCG to 1: (ln n)^-1.
PAPER_GAMMA = 1.0
TOL_GAMMA = 0.25
#: A pair is told apart when max(share, 1 - share) is at least this.
SURE = 0.95
#: A coin flip: |share - 1/2| at most this (3 SE of a share of 1/2 at R = 100).
COIN = 0.15

#: The limits table's rows (``theorem`` column of limits.csv), in the note's order, with the
#: paper's claim.
ROWS = (
    ("Theorem 1", "Standard NDCG (discount 1/log(1+r), no cut-off) converges to 1 for every ranking "
                  "function (Theorem 1)."),
    ("Theorems 3, 10", "With discount r^−β, 0 < β < 1, NDCG converges to ∫g(s)(1−s)^−β ds / ∫Q(1−t) t^−β dt, "
                       "a limit that differs between rankers (Theorems 3, 10)."),
    ("Theorem 5", "With the Zipfian discount 1/r, NDCG converges to g(1) / max gain: only the top of the "
                  "ranking counts (Theorem 5)."),
    ("Theorems 8, 12", "Standard NDCG@k with k = c·n converges to ∫_{1−c}^1 g(s) ds / ∫_0^c Q(1−t) dt "
                       "(Theorems 8, 12)."),
    ("Theorems 9, 13", "NDCG@k with r^−β and k = c·n converges to ∫_{1−c}^1 g(s)(1−s)^−β ds / "
                       "∫_0^c Q(1−t) t^−β dt (Theorems 9, 13)."),
    ("Theorems 7, 11", "NDCG@k with k → ∞ and k/n → 0 converges to g(1) / max gain, as Zipf does "
                       "(Theorems 7, 11)."),
)
NO_LIMIT = "Theorem 6"
FEASIBLE = ("Theorem 1", "Theorems 3, 10", "Theorems 8, 12", "Theorems 9, 13")
BORDERLINE = ("Theorem 5", "Theorems 7, 11")

#: Extra explanation per row (no numbers of ours: those are added where they are computed).
WHY = {
    "Theorem 1": ("Theorem 1 is about n → ∞ and the gap to 1 shrinks only like 1/log n (next finding), "
                  "so at any size a real system sees the values compress towards 1. Values of standard "
                  "NDCG from collections with different list lengths are therefore not comparable: "
                  "report differences or paired tests, not levels."),
    "Theorems 3, 10": "r^−β converges fast to limits that differ between rankers.",
    "Theorem 5": ("Zipf weights the very top so heavily that a few top objects decide the value, and the "
                  "convergence to g(1)/max gain is slow."),
    "Theorems 8, 12": ("The log discount inside the cut-off converges slowly (as without a cut-off), so a "
                       "finite-n bias remains at this n although it is small."),
    "Theorems 9, 13": "r^−β inside k = c·n converges as fast as without the cut-off.",
    "Theorems 7, 11": ("k/n → 0 slowly (k = n^a), so the limit g(1)/max gain, which depends on the very top "
                       "only, is approached slowly."),
}


def _rel(x) -> str:
    """A relative gap in percent, signed, two significant digits."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    s = fmt(100 * float(x), 2)
    return ("+" + s if float(x) > 0 else s) + " %"


def _sized(df):
    """``df`` at its largest n, and that n."""
    n = int(df["n"].max())
    return df[df["n"] == n], n


def _theorem_of(out) -> dict:
    lim = out.csv(LIMITS)
    return dict(zip(lim["measure"].astype(str), lim["theorem"].astype(str)))


def _limit_finding(out, theorem: str, claim: str) -> Finding:
    src = f"{GAPS}, {CONV}"
    gaps = out.csv(GAPS)
    g = gaps[gaps["theorem"].astype(str) == theorem]
    if g.empty:
        return Finding.not_tested(claim, f"no measure of this config falls under {theorem} "
                                  "(wang2013.measures)", GAPS)
    g, n = _sized(g)
    R = int(g["R"].iloc[0])
    measures = list(dict.fromkeys(g["measure"].astype(str)))
    parts = []
    for m in measures:
        gm = g[g["measure"].astype(str) == m]
        cells = ", ".join(f"{r.scorer} {fmt(r['mean'], 4)} vs {fmt(r['limit'], 4)}, {_rel(r.rel_gap)} "
                          f"({fmt(r.gap_in_se, 2)} SE)" for _, r in gm.iterrows())
        parts.append(f"`{m}` at n = {fmt(n)}, R = {R} (mean vs limit, relative gap, gap in SE): {cells}")
    ours = "; ".join(parts)
    absg = g["rel_gap"].abs()
    within = absg <= TOL_REL
    k, N = int(within.sum()), len(g)
    # convergence: mean |relative gap| over scorers at the smallest vs the largest n
    conv = out.csv(CONV)
    c = conv[conv["theorem"].astype(str) == theorem]
    if c.empty:  # not in the per-n table: no trend to judge
        c = g
    n0 = int(c["n"].min())
    gap0 = float(c[c["n"] == n0]["rel_gap"].abs().mean())
    gap1 = float(c[c["n"] == int(c["n"].max())]["rel_gap"].abs().mean())
    shrinking = bool(gap1 < gap0)
    if k == N:
        verdict = "reproduced"
    elif k > 0 or shrinking:
        verdict = "partly"
    else:
        verdict = "not reproduced"
    worst = g.loc[absg.idxmax()]
    lo_se, hi_se = float(g["gap_in_se"].min()), float(g["gap_in_se"].max())
    se_note = (f"every gap is at most {fmt(hi_se, 2)} SE, so the means are statistically indistinguishable "
               "from the limit" if hi_se <= Z_SE else
               f"the gaps are {fmt(lo_se, 2)}–{fmt(hi_se, 2)} SE, so a real finite-n bias remains")
    reason = (f"Rule: within = |relative gap| ≤ {pct(TOL_REL, 0)} at the largest n. {k} of {N} "
              f"(scorer, measure) are within; the largest gap is {_rel(worst.rel_gap)} ({worst.scorer}, "
              f"`{worst.measure}`); {se_note}. The mean |relative gap| over scorers went from "
              f"{_rel(gap0).lstrip('+')} at n = {fmt(n0)} to {_rel(gap1).lstrip('+')} at n = {fmt(n)}"
              f" ({'shrinking' if shrinking else 'not shrinking'}).")
    if theorem in ("Theorem 5", "Theorems 7, 11"):
        lims = g["limit"].astype(float)
        if lims.max() - lims.min() < 1e-9:
            reason += (f" The limit is {fmt(lims.iloc[0], 3)} for every scorer: each puts the objects with u "
                       "near 1 first, so g(1) is the same for all.")
        cw = c[(c["scorer"] == worst.scorer) & (c["measure"].astype(str) == worst.measure)].sort_values("n")
        reason += (f" {worst.scorer} rises from {fmt(cw['mean'].iloc[0], 3)} at n = {fmt(n0)} to "
                   f"{fmt(cw['mean'].iloc[-1], 3)} at n = {fmt(n)}.")
    reason += " " + WHY[theorem]
    lim = g["limit"].astype(float).abs()
    margins = tuple(Margin(f"{r.scorer} `{r.measure}` |relative gap|", abs(float(r.rel_gap)), TOL_REL,
                           Z_RESOLVE * float(r.se) / float(lim[i]), percent=True)
                    for i, r in g.iterrows() if float(lim[i]) > 0)
    return Finding(claim, ours, verdict, reason, src, Power(margins=margins))


def _no_limit_finding(out) -> Finding:
    claim = ("A summable discount (e.g. r^−2, 2^−r) or a fixed cut-off k: NDCG does not converge "
             "(Theorem 6; Sec. 3.3: k must grow with n).")
    conv = out.csv(CONV)
    c = conv[conv["theorem"].astype(str) == NO_LIMIT].copy()
    if c.empty:
        return Finding.not_tested(claim, "no measure of this config falls under Theorem 6 "
                                  "(wang2013.measures)", CONV)
    c["sd"] = c["se"] * c["R"] ** 0.5
    n0, n1 = int(c["n"].min()), int(c["n"].max())
    first = c[c["n"] == n0].set_index(["scorer", "measure"])["sd"]
    last = c[c["n"] == n1].set_index(["scorer", "measure"])["sd"]
    keeps = (last >= SD_KEEP * first.reindex(last.index))
    k, N = int(keeps.sum()), len(keeps)
    verdict = "reproduced" if k == N else ("partly" if k > 0 else "not reproduced")
    measures = list(dict.fromkeys(c["measure"].astype(str)))
    means1 = c[c["n"] == n1]["mean"]
    ours = (f"{', '.join(f'`{m}`' for m in measures)}: per-sample SD (se·√R) {fmt(first.min(), 2)}–"
            f"{fmt(first.max(), 2)} at n = {fmt(n0)} and {fmt(last.min(), 2)}–{fmt(last.max(), 2)} at "
            f"n = {fmt(n1)}; means at n = {fmt(n1)} {fmt(means1.min(), 3)}–{fmt(means1.max(), 3)}")
    # contrast: the SD of the converging measures at the largest n
    conv_ok = conv[(conv["theorem"].astype(str) != NO_LIMIT) & (conv["n"] == n1)]
    contrast = ""
    if not conv_ok.empty:
        sd_ok = (conv_ok["se"] * conv_ok["R"] ** 0.5).max()
        contrast = (f" For contrast, the converging measures' SD at n = {fmt(n1)} is at most "
                    f"{fmt(sd_ok, 2)}.")
    reason = (f"Rule: no concentration = SD at the largest n ≥ {fmt(SD_KEEP)} × SD at the smallest n. "
              f"{k} of {N} (scorer, measure) do not concentrate: the value of one sample stays as "
              f"uncertain at n = {fmt(n1)} as at n = {fmt(n0)}, because these measures look only at the "
              f"first few ranks, whose labels are random at every n.{contrast}")
    return Finding(claim, ours, verdict, reason, CONV)


def _rate_finding(out) -> Finding:
    claim = ("Standard NDCG's gap to 1 shrinks like 1/log n (the order in the proof of Theorem 1, eq. 40), "
             "i.e. γ = 1 in C (ln n)^−γ.")
    rate = out.csv(RATE)
    r = rate[rate["measure"].astype(str).isin([m for m, t in _theorem_of(out).items() if t == "Theorem 1"])]
    if r.empty:
        return Finding.not_tested(claim, "no standard NDCG in wang2013.measures", RATE)
    conv = out.csv(CONV)
    n0, n1 = int(conv["n"].min()), int(conv["n"].max())
    d = (r["gamma"] - PAPER_GAMMA).abs()
    if (d <= TOL_GAMMA).all():
        verdict = "reproduced"
    elif (d <= 3 * TOL_GAMMA).all():
        verdict = "partly"
    else:
        verdict = "not reproduced"
    cells = ", ".join(f"{x.scorer} γ = {fmt(x.gamma, 3)} (C = {fmt(x.C, 3)}, gap {pct(x.gap_at_largest_n)})"
                      for _, x in r.iterrows())
    ours = f"fit over n = {fmt(n0)}…{fmt(n1)}, gap to 1 at n = {fmt(n1)}: {cells}"
    best = r.loc[r["gap_at_largest_n"].idxmin()]
    reach = ""
    if best.gamma > 0 and best.C > TOL_REL:
        n_star = math.exp((best.C / TOL_REL) ** (1 / best.gamma))
        reach = (f" At that rate the best scorer's ({best.scorer}) gap falls to {pct(TOL_REL, 0)} only near "
                 f"n ≈ {fmt(n_star, 1)}.")
    lo, hi = float(r["gamma"].min()), float(r["gamma"].max())
    side = ("slightly faster than" if lo > PAPER_GAMMA else "slightly slower than" if hi < PAPER_GAMMA
            else "around")
    reason = (f"Rule: |γ − {fmt(PAPER_GAMMA)}| ≤ {fmt(TOL_GAMMA)} for every scorer. γ ranges "
              f"{fmt(lo, 3)}–{fmt(hi, 3)}, {'close to' if verdict == 'reproduced' else 'compared with'} the "
              f"claimed order 1/log n ({side} it).{reach}")
    margins = []
    for _, x in r.iterrows():
        se = gamma_se(conv, str(x.measure), str(x.scorer))
        for t in (TOL_GAMMA, 3 * TOL_GAMMA):
            margins.append(Margin(f"{x.scorer} |γ − {fmt(PAPER_GAMMA)}|", abs(float(x.gamma) - PAPER_GAMMA), t,
                                  Z_RESOLVE * se))
    return Finding(claim, ours, verdict, reason, f"{RATE}, {CONV}", Power(margins=tuple(margins)))


def gamma_se(conv, measure: str, scorer: str) -> float:
    """The Monte Carlo standard error of the fitted rate γ (``gap_rate``: least squares of log gap on
    log ln n): each size's log gap has the se ``se / gap`` of its mean (delta method), and the slope
    of a least-squares fit with independent errors has variance ``Σ (x − x̄)² σ² / (Σ (x − x̄)²)²``.
    NaN where fewer than two sizes have a positive gap."""
    t = conv[(conv["measure"].astype(str) == measure) & (conv["scorer"].astype(str) == scorer)]
    gap = 1.0 - t["mean"].to_numpy(dtype=float)
    n = t["n"].to_numpy(dtype=float)
    ok = (gap > 0) & (n > 1)
    if ok.sum() < 2:
        return float("nan")
    x = np.log(np.log(n[ok]))
    sig = t["se"].to_numpy(dtype=float)[ok] / gap[ok]
    dx = x - x.mean()
    return float(np.sqrt(np.sum(dx ** 2 * sig ** 2)) / np.sum(dx ** 2))


_PAIR = re.compile(r"^\s*(.*?)\s*:\s*(\S+)\s+vs\s+(\S+)\s*$")


def _pairs(out):
    """``{pair label: equal_in_the_limit}``: two scorers whose limits agree for every measure with a
    limit are equal (the same g(s)); a label that names no scorers counts as differing."""
    lim = out.csv(LIMITS).dropna(subset=["limit"])
    by = {s: dict(zip(d["measure"].astype(str), d["limit"].astype(float))) for s, d in lim.groupby("scorer")}
    res = {}
    for label in dict.fromkeys(out.csv(DIST)["pair"].astype(str)):
        m = _PAIR.match(label)
        equal = False
        if m and m.group(2) in by and m.group(3) in by:
            a, b = by[m.group(2)], by[m.group(3)]
            equal = a.keys() == b.keys() and all(abs(a[k] - b[k]) <= 1e-9 for k in a)
        res[label] = equal
    return res


def _share_cells(d) -> str:
    return ", ".join(f"{r.pair.split(':')[0]} {fmt(r.share, 3)}" for _, r in d.iterrows())


def _span(x) -> str:
    """The range of shares (3 significant digits: shares are multiples of 1/(2R))."""
    return f"{fmt(x.min(), 3)}–{fmt(x.max(), 3)}"


def _dist_subset(out, theorems):
    dist = out.csv(DIST)
    th = _theorem_of(out)
    pairs = _pairs(out)
    d = dist[dist["measure"].astype(str).map(lambda m: th.get(m) in theorems)]
    differ = d[d["pair"].astype(str).map(lambda p: not pairs.get(p, False))]
    equal = d[d["pair"].astype(str).map(lambda p: pairs.get(p, False))]
    return differ, equal


def _share_margins(d, *, coin: bool) -> tuple:
    """Each (measure, pair) share of ``d`` against the rule's threshold at its binomial resolution
    (:data:`Z_RESOLVE` · √(s(1 − s)/R), at least that of one sample in R): ``coin``: |share − ½|
    against :data:`COIN`; else max(share, 1 − share) against :data:`SURE`."""
    out = []
    for _, r in d.iterrows():
        s, R = float(r["share"]), max(int(r["R"]), 1)
        res = Z_RESOLVE * math.sqrt(max(s * (1 - s), (R - 1) / R ** 2) / R)
        name = f"`{r['measure']}` {str(r['pair']).split(':')[0]} at n = {fmt(r['n'])}"
        out.append(Margin(f"{name} |share − ½|", abs(s - 0.5), COIN, res) if coin else
                   Margin(f"{name} max(share, 1 − share)", max(s, 1 - s), SURE, res))
    return tuple(out)


def _sure(s):
    return (s.where(s >= 0.5, 1 - s)) >= SURE


def _distinguish_finding(out, theorems, claim, why) -> Finding:
    differ, _ = _dist_subset(out, theorems)
    if differ.empty:
        return Finding.not_tested(claim, "no such measure or no differing pair in this config "
                                  "(wang2013.measures, wang2013.pairs)", DIST)
    last, n1 = _sized(differ)
    ok = _sure(last["share"])
    k, N = int(ok.sum()), len(last)
    verdict = "reproduced" if k == N else ("partly" if k > 0 else "not reproduced")
    # the first n from which every (measure, pair) stays told apart
    sizes = sorted(differ["n"].unique())
    good = {n: bool(_sure(differ[differ["n"] == n]["share"]).all()) for n in sizes}
    since = None
    for n in reversed(sizes):
        if not good[n]:
            break
        since = n
    parts = []
    for m, dm in last.groupby(last["measure"].astype(str), sort=False):
        parts.append(f"`{m}` {_share_cells(dm)}")
    ours = f"share of R = {int(last['R'].iloc[0])} samples with M(f1) > M(f2) at n = {fmt(n1)}: " + "; ".join(parts)
    since_txt = (f"every share is at least {fmt(SURE)} (or at most {fmt(1 - SURE, 1)}) from n = {fmt(since)} on"
                 if since is not None else f"the shares are not all beyond {fmt(SURE)} at the largest n")
    reason = (f"Rule: told apart = max(share, 1 − share) ≥ {fmt(SURE)} at the largest n. {k} of {N} "
              f"(measure, differing pair) are told apart; {since_txt}. {why}")
    return Finding(claim, ours, verdict, reason, f"{DIST}, {LIMITS}", Power(margins=_share_margins(last, coin=False)))


def _thm2_why(out) -> str:
    differ, _ = _dist_subset(out, ("Theorem 1",))
    if differ.empty:
        return ""
    last, n1 = _sized(differ)
    md = last["mean_difference"].abs()
    return (f"Standard NDCG tells the pairs apart although both of each pair tend to 1: at n = {fmt(n1)} the "
            f"mean difference is only {fmt(md.min(), 2)}–{fmt(md.max(), 2)}, but the sample-to-sample noise "
            "shrinks faster than the gap (Theorem 2). It still ranks rankers correctly; only its levels "
            "compress.")


def _coin_finding(out) -> Finding:
    claim = ("With a summable discount or a fixed k, no pair of rankers is consistently distinguishable "
             "(Theorem 6): which one wins is a coin flip on large samples.")
    differ, _ = _dist_subset(out, (NO_LIMIT,))
    if differ.empty:
        return Finding.not_tested(claim, "no such measure or no differing pair in this config", DIST)
    last, n1 = _sized(differ)
    first = differ[differ["n"] == differ["n"].min()]
    n0 = int(differ["n"].min())
    coin = (last["share"] - 0.5).abs() <= COIN
    k, N = int(coin.sum()), len(last)
    verdict = "reproduced" if k == N else ("partly" if k > 0 else "not reproduced")
    sizes = sorted(differ["n"].unique())
    n_mid = sizes[len(sizes) // 2]
    upper = differ[differ["n"] >= n_mid]["share"]
    parts = [f"`{m}` {_share_cells(dm)}" for m, dm in last.groupby(last["measure"].astype(str), sort=False)]
    ours = (f"shares at n = {fmt(n1)}: " + "; ".join(parts) +
            f"; at n ≥ {fmt(n_mid)} all in {_span(upper)}; at n = {fmt(n0)} {_span(first['share'])}")
    reason = (f"Rule: coin flip = |share − ½| ≤ {fmt(COIN)} (3 SE at R = 100) at the largest n. {k} of {N} "
              f"(measure, differing pair) are coin flips. At small n the better ranker still wins more "
              f"often (up to {fmt(first['share'].max(), 3)} at n = {fmt(n0)}); as n grows, these measures "
              "see only the first few ranks, whose labels are random, so the sign of the difference stops "
              "meaning anything. Avoid fast-decaying smooth discounts and a fixed k on long lists.")
    return Finding(claim, ours, verdict, reason, f"{DIST}, {LIMITS}", Power(margins=_share_margins(last, coin=True)))


def _borderline_finding(out) -> Finding:
    claim = ("Zipf (1/r) is the borderline discount and NDCG@k with k/n → 0 behaves like it: whether they "
             "distinguish rankers consistently is \"not clear\"; the authors suspect Zipf does not "
             "strongly (Sec. 3.2, Theorems 5, 7).")
    differ, _ = _dist_subset(out, BORDERLINE)
    if differ.empty:
        return Finding.not_tested(claim, "no such measure or no differing pair in this config", DIST)
    last, n1 = _sized(differ)
    per = {m: bool(_sure(d["share"]).all()) for m, d in last.groupby(last["measure"].astype(str), sort=False)}
    n_cons = sum(per.values())
    verdict = ("reproduced" if n_cons == 0 else "not reproduced" if n_cons == len(per) else "partly")
    parts = []
    for m, dm in differ.groupby(differ["measure"].astype(str), sort=False):
        parts.append(f"`{m}` {_span(dm['share'])}")
    ours = (f"shares over every n ({fmt(differ['n'].min())}…{fmt(n1)}), differing pairs: " + "; ".join(parts))
    reason = (f"Rule: a measure distinguishes consistently when every differing pair has max(share, 1 − share) "
              f"≥ {fmt(SURE)} at the largest n; {n_cons} of {len(per)} borderline measures do. They mostly "
              "pick the better ranker but do not approach certainty as n grows, between the feasible "
              "discounts (share → 1) and the summable ones (share → ½), which fits the paper's \"not clear\". "
              "They also converge slowly, to a value that depends only on the very top (g(1)).")
    return Finding(claim, ours, verdict, reason, f"{DIST}, {LIMITS}", Power(margins=_share_margins(last, coin=False)))


def _equal_finding(out) -> Finding:
    claim = ("Rankers with the same g(s) (\"unless g1 = g2 almost everywhere\", Theorem 2) are not told apart "
             "by any measure.")
    _, eq = _dist_subset(out, FEASIBLE + BORDERLINE + (NO_LIMIT,))
    if eq.empty:
        return Finding.not_tested(claim, "wang2013.pairs has no pair of scorers with equal limits", DIST)
    last, n1 = _sized(eq)
    all_coin = bool(((eq["share"] - 0.5).abs() <= COIN).all())
    last_coin = bool(((last["share"] - 0.5).abs() <= COIN).all())
    verdict = "reproduced" if all_coin else ("partly" if last_coin else "not reproduced")
    labels = ", ".join(dict.fromkeys(p.split(":")[0] for p in eq["pair"].astype(str)))
    ours = (f"pair(s) {labels}: shares {_span(eq['share'])} over "
            f"{eq['measure'].nunique()} measures and n = {fmt(eq['n'].min())}…{fmt(n1)}")
    reason = (f"Rule: |share − ½| ≤ {fmt(COIN)} for every measure at every n. The pair's limits agree for "
              "every measure (`limits.csv`), and every measure treats it as a coin flip, as it should: the "
              "shares that go to 1 for the differing pairs come from a real difference, not from a bias of "
              "the sampling.")
    return Finding(claim, ours, verdict, reason, f"{DIST}, {LIMITS}", Power(margins=_share_margins(eq, coin=True)))


def _powers(out, theorem=None):
    """(limits, shares, rate) :class:`Power` of the simulation: list length, R, standard errors; the
    limits' se is the largest se of a mean relative to its limit (of ``theorem``'s rows if given)."""
    g, n = _sized(out.csv(GAPS))
    if theorem is not None and (g["theorem"].astype(str) == theorem).any():
        g = g[g["theorem"].astype(str) == theorem]
    R = int(g["R"].max())
    lim = g["limit"].astype(float).abs()
    rel_se = float((g["se"] / lim.where(lim > 0)).max())
    unit = "documents per list (the largest n)"
    return (Power(n=n, unit=unit, repetitions=R, se=rel_se, of="a mean relative to its limit",
                  how="the largest at the largest n", percent=True),
            Power(n=n, unit=unit, repetitions=(Rd := int(out.csv(DIST)["R"].min())), se=0.5 / math.sqrt(max(Rd, 1)),
                  of="a share", how="binomial at ½"),
            Power(n=n, unit=unit, repetitions=R, note="γ judged at its Monte Carlo se (gamma_se: the fit's slope under the means' se); the fit's misspecification is not in it"))


def findings(out):
    items = _findings(out)
    limits, shares, rate = _powers(out)
    n_lim = len(ROWS)  # ROWS[:1], the rate, ROWS[1:]
    out_items = []
    for i, f in enumerate(items):
        if f.verdict == "not tested" and f.power is None and f.ours == "—":
            out_items.append(f)
        elif i == 1:
            out_items.append(f.with_power(rate))
        elif i <= n_lim:
            theorem = ROWS[0 if i == 0 else i - 1][0]
            out_items.append(f.with_power(_powers(out, theorem)[0], tol=TOL_REL))
        elif i == n_lim + 1:  # no limit: per-sample SDs
            out_items.append(f.with_power(Power(n=limits.n, unit=limits.unit, repetitions=limits.repetitions,
                                                note="per-sample SDs (se·√R)")))
        elif i <= n_lim + 6:  # the shares: distinguish x2, coin, borderline, equal
            out_items.append(f.with_power(shares, tol=COIN))
        else:
            lp = lists_power(out)
            out_items.append(f.with_power(lp, min_n=MIN_TEST_N, why="a mean over queries is a normal "
                                                                       "approximation") if lp is not None else f)
    return out_items


def _findings(out):
    items = [_limit_finding(out, th, claim) for th, claim in ROWS[:1]]
    items.append(_rate_finding(out))
    items += [_limit_finding(out, th, claim) for th, claim in ROWS[1:]]
    items.append(_no_limit_finding(out))
    items.append(_distinguish_finding(
        out, ("Theorem 1",),
        "Standard NDCG consistently distinguishes every pair of substantially different rankers, although "
        "it converges to 1 for all (Theorem 2, Definition 3).", _thm2_why(out)))
    items.append(_distinguish_finding(
        out, ("Theorems 3, 10", "Theorems 8, 12", "Theorems 9, 13"),
        "r^−β (0 < β < 1) and the k = c·n versions (log and r^−β) are feasible: they distinguish rankers "
        "consistently (Theorem 4; Sec. 3.3 after Theorem 9).",
        "To compare rankers on long and growing lists, these are the measures to use: they converge fast "
        "to limits that differ between rankers."))
    items.append(_coin_finding(out))
    items.append(_borderline_finding(out))
    items.append(_equal_finding(out))
    items += lists_findings(out)
    return items
