"""Sec. 4 of Wang et al. (2013) on our data (``wang2013/lists.csv``; only when
``wang2013.lists.enabled``): Figs. 1-4's claims on three rankers (two trained, one random) over
lists of growing length n, one finding per figure (:func:`lists_findings`) with its verdict rule
(:func:`_fig1_rule`, :func:`_fig24_rule`, :func:`_fig3_rule`; the rules and their tolerances are in
:mod:`evalrank.papers.wang2013.findings`' docstring), and what the lists resolve
(:func:`lists_power`), for :mod:`evalrank.papers.wang2013.findings` to list.
"""

from __future__ import annotations

from types import SimpleNamespace

import math

from evalrank.papers.common.findings import Z_RESOLVE, Finding, Margin, Power, fmt

__all__ = ["lists_findings", "lists_power", "FIGS", "LISTS", "CLOSE", "APART", "SETTLED"]

LISTS = "wang2013/lists.csv"  # optional: wang2013.lists.enabled
#: Sec. 4: spread of the three rankers that counts as "very close" (Fig. 1).
CLOSE = 0.02
#: Sec. 4: the random scorer this far below the lower trained ranker counts as separated.
APART = 0.05
#: Sec. 4: a curve that moved at most this over the last size step has settled.
SETTLED = 0.02


FIGS = (
    (1, "Fig. 1 (standard NDCG): the three rankers' NDCG are very close and seem to converge to the same "
        "limit, yet, enlarged, the measure distinguishes them well."),
    (2, "Fig. 2 (r^−β): the three rankers converge to different limits and are distinguished very well."),
    (3, "Fig. 3 (a smooth discount that decays too fast): the measure cannot distinguish the rankers; even "
        "the random function scores like RankSVM and ListNet."),
    (4, "Fig. 4 (standard NDCG@k, k = c·n): the rankers converge to different limits, unlike standard NDCG."),
)


def _fig_of(measure: str):
    """Which of Figs. 1–4 a lists measure stands for (None: none)."""
    # the discount's family as evalrank.papers.wang2013.limits.family (without its scipy import)
    from evalrank.metrics.cutoffs import parse_cutoff
    from evalrank.metrics.discounts import parse_discount
    from evalrank.papers.wang2013.experiments import theory_measure

    try:
        m = theory_measure(measure)
        d = parse_discount(m.discount)
        cut = parse_cutoff(m.k)
    except (ValueError, TypeError):
        return None
    if d.summable:
        fam = "summable"
    elif d.name in ("log", "log2"):
        fam = "log"
    elif d.name == "zipf" or (d.name == "poly" and d.param == 1.0):
        fam = "zipf"
    else:
        fam = "poly"
    if cut is None:
        return {"log": 1, "poly": 2, "summable": 3}.get(fam)
    if fam == "log" and isinstance(cut, tuple) and cut[0] == "frac":
        return 4
    return None


def lists_findings(out) -> list[Finding]:
    """Sec. 4 on our data: one finding per figure of :data:`FIGS`, from the first lists measure that
    stands for it (:func:`_fig_of`); the verdict rules are :func:`_fig1_rule`, :func:`_fig24_rule` and
    :func:`_fig3_rule`."""
    if not out.has(LISTS):
        return [Finding.not_tested(claim, f"Sec. 4 on our data is disabled in this config "
                                          f"(wang2013.lists.enabled; no {LISTS})", LISTS) for _, claim in FIGS]
    lists = out.csv(LISTS)
    by_fig = {}
    for m in dict.fromkeys(lists["measure"].astype(str)):
        f = _fig_of(m)
        if f is not None and f not in by_fig:
            by_fig[f] = m
    rankers = list(dict.fromkeys(lists["ranker"].astype(str)))
    return [_lists_finding(lists, fig, claim, by_fig.get(fig), rankers) for fig, claim in FIGS]


def _lists_finding(lists, fig: int, claim: str, m, rankers) -> Finding:
    """The finding of Fig. ``fig`` on lists measure ``m``: the rankers' means at the largest n, then
    the figure's rule."""
    trained = [r for r in rankers if r != "random"]
    if m is None or "random" not in rankers or not trained:
        return Finding.not_tested(claim, "wang2013.lists has no such measure (or no random and "
                                         "trained rankers)", LISTS)
    d = lists[lists["measure"].astype(str) == m]
    piv = d.pivot_table(index="n", columns="ranker", values="mean").sort_index()
    sizes = list(piv.index)
    last = piv.iloc[-1]
    c = SimpleNamespace(d=d, piv=piv, sizes=sizes, n1=int(sizes[-1]), n0=int(sizes[0]), last=last, trained=trained,
                        gap=float(last[trained].min()) - float(last["random"]), q=int(d["queries"].iloc[0]), fig=fig)
    vals = " / ".join(f"{r} {fmt(last[r], 3)}" for r in rankers)
    ours = f"`{m}`, mean over {c.q} queries at n = {fmt(c.n1)}: {vals}"
    more, verdict, reason = {1: _fig1_rule, 2: _fig24_rule, 3: _fig3_rule, 4: _fig24_rule}[fig](c)
    return Finding(claim, ours + more, verdict, reason, LISTS, Power(margins=_lists_margins(c, fig)))


def _diff_resolution(d, n, a, b) -> float:
    """:data:`Z_RESOLVE` se of ranker ``a``'s mean minus ``b``'s at list length ``n``: the two means'
    se in quadrature (lists.csv holds no paired se; on the same queries a positive correlation makes
    the paired one smaller, so this errs towards "not tested")."""
    se = d[d["n"] == n].set_index("ranker")["se"]
    return Z_RESOLVE * math.hypot(float(se.get(a, float("nan"))), float(se.get(b, float("nan"))))


def _lists_margins(c, fig: int) -> tuple:
    """The numbers each figure's rule judges, against its thresholds, each at its own resolution
    (:func:`_diff_resolution`): the random scorer's gap to the lower trained ranker (Fig. 1: against
    0; Figs. 2, 4: against :data:`APART`; Fig. 3: |gap| against :data:`APART`), Fig. 1's spread
    against :data:`CLOSE` and Figs. 2, 4's largest move over the last size step against
    :data:`SETTLED`, at its paired se (lists.csv's ``step_se``; older outputs without it: not judged)."""
    last, piv, n1 = c.last, c.piv, c.n1
    low = min(c.trained, key=lambda r: float(last[r]))
    res = _diff_resolution(c.d, n1, low, "random")
    gap = f"random's gap to {low} at n = {fmt(n1)}"
    if fig == 1:
        hi_r, lo_r = last.idxmax(), last.idxmin()
        return (Margin(gap, c.gap, 0.0, res),
                Margin(f"spread ({hi_r} − {lo_r}) at n = {fmt(n1)}", float(last[hi_r] - last[lo_r]), CLOSE,
                       _diff_resolution(c.d, n1, hi_r, lo_r)))
    if fig == 3:
        return (Margin(f"|{gap}|", abs(c.gap), APART, res),)
    margins = [Margin(gap, c.gap, APART, res)]
    # the moves over the last size step are of the same queries' lists (a prefix and its extension):
    # judged at their paired se (lists.csv's step_se), the largest move against SETTLED
    last_rows = c.d[c.d["n"] == n1].set_index("ranker")
    if "step_se" in last_rows:
        step = (piv.iloc[-1] - piv.iloc[-2]).abs()
        r = step.idxmax()
        margins.append(Margin(f"{r}'s move over the last size step ({fmt(c.sizes[-2])} → {fmt(n1)})",
                              float(step[r]), SETTLED, Z_RESOLVE * float(last_rows["step_se"].get(r, float("nan")))))
    return tuple(margins)


def _fig1_rule(c) -> tuple[str, str, str]:
    """Fig. 1: very close (spread <= :data:`CLOSE`) and ordered (random below both trained) at the largest n."""
    piv, gap, n1 = c.piv, c.gap, c.n1
    spread = piv.max(axis=1) - piv.min(axis=1)
    close = float(spread.iloc[-1]) <= CLOSE
    ordered = gap > 0
    verdict = {2: "reproduced", 1: "partly", 0: "not reproduced"}[int(close) + int(ordered)]
    n_dip = int(piv.mean(axis=1).idxmin())
    n_wide = int(spread.idxmax())
    more = f"; spread {fmt(spread.max(), 2)} at n = {fmt(n_wide)}, {fmt(spread.iloc[-1], 2)} at n = {fmt(n1)}"
    rising = bool((piv.iloc[-1] > piv.loc[n_dip]).all()) and n_dip < n1
    reason = (f"Rule: very close = spread ≤ {fmt(CLOSE)}, ordered = random below both trained rankers, "
              f"at the largest n. {'Close' if close else 'Not close'} and "
              f"{'ordered' if ordered else 'not ordered'}: the random scorer is "
              f"{fmt(abs(gap), 2)} {'below' if ordered else 'above'} the lower trained ranker. "
              + (f"All curves dip (lowest mean at n = {fmt(n_dip)}) and then rise towards 1. "
                 if rising else f"The mean over rankers is lowest at n = {fmt(n_dip)}. ")
              + ("The spread shrinks from its widest" if spread.iloc[-1] < spread.max()
                 else "The spread is widest at the largest n")
              + ("" if close else f", but at {fmt(n1)} documents the curves are far from meeting: "
                 "Theorem 1's common limit is approached only like 1/log n (the rate finding), far "
                 "beyond these list lengths") + ".")
    return more, verdict, reason


def _fig24_rule(c) -> tuple[str, str, str]:
    """Figs. 2 and 4: separated (random :data:`APART` below) and settled (moves <= :data:`SETTLED`)."""
    piv, gap, n1, d, last, trained, sizes, fig = c.piv, c.gap, c.n1, c.d, c.last, c.trained, c.sizes, c.fig
    step = (piv.iloc[-1] - piv.iloc[-2]).abs()
    separated = gap >= APART
    settled = bool((step <= SETTLED).all())
    verdict = {2: "reproduced", 1: "partly", 0: "not reproduced"}[int(separated) + int(settled)]
    tr_gap = float(last[trained].max() - last[trained].min())
    se_last = d[d["n"] == n1].set_index("ranker")["se"]
    se_tr = float(se_last.reindex(trained).max())
    more = f"; largest move over the last step ({fmt(sizes[-2])} → {fmt(n1)}): {fmt(step.max(), 2)}"
    reason = (f"Rule: separated = random at least {fmt(APART)} below the lower trained ranker, settled = "
              f"every ranker moved at most {fmt(SETTLED)} over the last size step. The random scorer is "
              f"{fmt(gap, 2)} below the lower trained ranker ({'separated' if separated else 'not separated'}); "
              f"the curves {'have' if settled else 'have not'} settled"
              + (", as the limits of Theorems 3 and 10 predict" if fig == 2 and settled else
                 ", nearly flat in n as Theorem 8's limits predict (standard NDCG has one limit, 1, "
                 "for all)" if settled else "")
              + f". The two trained rankers are {fmt(tr_gap, 3)} apart, against a standard error over "
              f"queries of up to {fmt(se_tr, 3)} each: "
              + ("these means alone (no paired test in the table) do not show whether they differ, "
                 "so the paper's claim is checked here only between the trained rankers and the random "
                 "scorer." if tr_gap < 2 * se_tr else "they too are apart."))
    return more, verdict, reason


def _fig3_rule(c) -> tuple[str, str, str]:
    """Fig. 3: level (random within :data:`APART` of the lower trained ranker) at the largest n."""
    piv, gap, trained, q, n0, n1 = c.piv, c.gap, c.trained, c.q, c.n0, c.n1
    level = abs(gap) <= APART
    verdict = "reproduced" if level else "not reproduced"
    sign = (piv[trained[0]] - piv[trained[1]]).apply(lambda x: 1 if x > 0 else -1) if len(trained) > 1 else None
    crossings = int((sign.diff().fillna(0) != 0).sum()) if sign is not None else 0
    reason = (f"Rule: level = random within {fmt(APART)} of the lower trained ranker at the largest n. "
              f"The random scorer is {fmt(abs(gap), 2)} {'below' if gap > 0 else 'above'} it, so "
              + ("it scores like the trained rankers, as in the paper. " if level else
                 f"unlike the paper, it is not level with them: over {q} queries the trained rankers' "
                 "advantage at the very top still shows. ")
              + f"The two trained rankers' order changes {crossings} time(s) over n = {fmt(n0)}…{fmt(n1)}.")
    return "", verdict, reason


def lists_power(out):
    """The lists' :class:`Power` (queries per list, the largest se of a ranker's mean at the largest
    n), or None where the run has no ``lists.csv``."""
    if not out.has(LISTS):
        return None
    d = out.csv(LISTS)
    d = d[d["n"] == d["n"].max()]
    return Power(n=int(d["queries"].min()), unit="queries per list", se=float(d["se"].max()),
                 of="a ranker's mean", how="the largest at the largest n",
                 note="the se of two rankers' difference on the same queries is not in lists.csv (a gap is "
                      "judged at the two means' se in quadrature, an upper bound); a ranker's move over the last "
                      "size step is judged at its paired se (step_se)")
