"""Findings of Sawade, Bickel, von Oertzen, Scheffer and Landwehr (2012), *Active evaluation of
ranking functions based on graded relevance* (ECML PKDD 2012), Sec. 5 (experiments on
MSLR-WEB30k), against the active stage's Monte Carlo on our data.

The paper's numbers (typed, they are the paper's) are the labelling savings of active over
passive estimation read off its figures: Fig. 1 centre/right (ERR of one ranker, Random Forest
regression about 20 %, Ordered Logit about 10 %, from Λ = 300; Sec. 5.1), Fig. 2 (model
selection between two rankers, "between 30 % and 55 %" over its three pairs; Sec. 5.2), Fig. 3
left (index update, about 75 %) and centre (RF on 100,000 vs 200,000 training pairs, about 45 %);
Fig. 3 right (Λ = 100: active reduces the error for every training size); Sec. 5.1: DCG results
"qualitatively similar" to ERR. Ours are read from ``sawade2012/savings.csv`` (the budget active needs
to reach passive's error at the reference budget, :func:`evalrank.papers.sawade2012.report.savings_table`),
``sawade2012/curves.csv`` (error over budget per method), ``sawade2012/label_model_check.csv`` (the label
model's predicted vs realized per-query variance, Theorem 3 / eq. 3) and ``sawade2012/coverage.csv``
(our own claim: the 95 % interval of ``evalrank active estimate``, issue 18).

Verdict rules (tolerances):

- a saving: within ``TOL`` (5 points) of the paper's number (or of its range) = reproduced;
  at least ``NO_SAVING`` (5 points) but outside that = partly (right sign, other size);
  below ``NO_SAVING`` = not reproduced; undefined (passive already exact at the reference budget,
  so nothing can be saved) = not tested.
- Fig. 3 right: active's mean error below passive's by more than ``Z`` (2) combined standard
  errors for every training size = reproduced; below for all but not always by ``Z`` = partly;
  any size with active not below = not reproduced.
- DCG like ERR: DCG saving at least ``NO_SAVING`` in every experiment with a paper number =
  reproduced, in some = partly, in none = not reproduced.
- the interval: every passive/active cell in the band 93–97 % = reproduced; every cell with a
  budget above ``FEW_DRAWS`` (where ``evalrank active estimate`` stops warning) in the band but
  not all smaller ones = partly; a cell above ``FEW_DRAWS`` outside the band = not reproduced.

What the run resolves (issue 30 item 2; :class:`evalrank.papers.common.findings.Power`, printed on
every claim): the pool's queries (``label_model_check.csv``'s ``queries``, all folds), the Monte
Carlo campaigns per method and budget (``curves.csv``'s ``n_runs``) and the Monte Carlo standard
error of each saving (:func:`evalrank.papers.sawade2012.power.saving_se`, the delta method on
``curves.csv``'s per-budget means and standard errors; re-exported here). A saving's verdict (and the
DCG claim's) is "not tested" when 2 se exceed ``TOL`` or the pool holds fewer than
:data:`~evalrank.papers.sawade2012.power.MIN_POOL` queries; and, by the rule every finding goes
through (:func:`evalrank.papers.common.findings.within_resolution`), when the saving lies within 2 se
of a threshold of :func:`saving_verdict` (``NO_SAVING``, the band's edges), or, for Fig. 3 right,
when a size's passive − active difference lies within 2 se (of that difference) of 0.

Listed after the paper's claims: the calibrated label model's
(:mod:`~evalrank.papers.sawade2012.claims_calibrated`, issue 30), the t interval's coverage (issue
18, here) and the labelling tool's defaults (:mod:`~evalrank.papers.sawade2012.claims_campaign`,
issue 27).
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from evalrank.papers.common.findings import Z_RESOLVE, Finding, Margin, Power, fmt, is_nan, pct, powered
from evalrank.papers.sawade2012.printed import SAVINGS as _SAVINGS
from evalrank.papers.sawade2012.printed import TRAIN_SIZE_BUDGET, TRAIN_SIZE_SAVING
from evalrank.papers.sawade2012.claims_calibrated import calibrated_findings, dcg_ceiling
from evalrank.papers.sawade2012.claims_campaign import campaign_findings
from evalrank.papers.sawade2012.power import (MIN_POOL, MIN_POOL_WHY, curve_se, first_row, n_runs, pool_queries,
                                              saving_power)
from evalrank.papers.sawade2012.power import saving_se  # noqa: F401  (re-exported: the findings' API)

TITLE = "Sawade et al. (2012), active evaluation of ranking functions"
REQUIRES = ("sawade2012/savings.csv", "sawade2012/curves.csv", "sawade2012/coverage.csv", "sawade2012/label_model_check.csv", )

SAVINGS = "sawade2012/savings.csv"
CURVES = "sawade2012/curves.csv"
COVERAGE = "sawade2012/coverage.csv"
LABELS = "sawade2012/label_model_check.csv"

#: A saving within this many points of the paper's (or of its range) reproduces it.
TOL = 0.05
#: A saving below this counts as none.
NO_SAVING = 0.05
#: Fig. 3 right: active below passive by more than Z combined standard errors.
Z = 2.0
#: Fig. 2 right: a comparison counts as solved at a budget where every method's selection
#: error is at most this.
SOLVED = 0.02
#: The interval's acceptance band (issue 18) around the nominal 95 %.
BAND = (0.93, 0.97)
#: Sawade et al., Fig. 3 right: the budget of the training-size comparison.
PAPER_TRAIN_SIZE_BUDGET = TRAIN_SIZE_BUDGET

#: (experiment, claim); the paper's savings (low, high) are printed.SAVINGS.
_CLAIMS = (
    ("fig1_rf",
     "Fig. 1 (centre), Sec. 5.1: estimating the ERR of a Random Forest regression ranker, active sampling "
     "cuts the labelling budget Λ = 300 by about **20 %** against passive"),
    ("fig1_ordered_logit",
     "Fig. 1 (right), Sec. 5.1: for an Ordered Logit ranker, active sampling cuts Λ = 300 by about **10 %**"),
    ("fig2_rf_vs_ordinal_rf",
     "Fig. 2 (left), Sec. 5.2: selecting the better of Random Forest regression vs classification (ERR), "
     "active sampling saves **30–55 %** of the labelling effort (the paper's range over its three pairs)"),
    ("fig2_ordered_logit_vs_ranksvm",
     "Fig. 2 (centre), Sec. 5.2: selecting the better of Ordered Logit vs Ranking SVM (ERR), active "
     "sampling saves **30–55 %**"),
    ("fig2_ordered_logit_vs_rf",
     "Fig. 2 (right), Sec. 5.2: selecting the better of Ordered Logit vs Random Forest regression (ERR), "
     "active sampling saves **30–55 %**"),
    ("fig3_index_update",
     "Fig. 3 (left), Sec. 5.2: estimating the ERR difference of an index update (10 % of each result list "
     "removed), active sampling saves about **75 %**"),
)
#: (experiment, the paper's saving low, high, claim), Sec. 5.
PAPER = tuple((e, *_SAVINGS[e], claim) for e, claim in _CLAIMS)


def saving_verdict(s, lo: float, hi: float) -> str:
    """The rule for a saving ``s`` against the paper's ``lo``–``hi`` (module docstring)."""
    if is_nan(s):
        return "not tested"
    s = float(s)
    if s < NO_SAVING:
        return "not reproduced"
    if lo - TOL <= s <= hi + TOL:
        return "reproduced"
    return "partly"


def _paper_range(lo, hi) -> str:
    return pct(lo, 0) if lo == hi else f"{pct(lo, 0)}–{pct(hi, 0)}"


def _campaigns(curves, exp, measure, budget) -> str:
    r = curves[(curves.experiment == exp) & (curves.measure == measure) & (curves.budget == budget)]
    if r.empty:
        return ""
    return f"; {fmt(r['n_runs'].min())} campaigns per method and budget"


def _label_reason(labels, exp, measure) -> str:
    """What the label model lets q* save here (label_model_check.csv), or ''."""
    if labels is None:
        return ""
    r = first_row(labels, experiment=exp, measure=measure)
    if r is None:
        return ""
    return (f" With the true labels our q* needs {fmt(r['budget_factor_active'])} times passive's budget for the "
            f"same asymptotic variance (a saving of {pct(1 - r['budget_factor_active'])} to expect), the q* of a "
            f"perfect label model {fmt(r['budget_factor_oracle'])} ({pct(1 - r['budget_factor_oracle'])}): q*'s "
            f"weights correlate {fmt(r['corr_abs_deviation'], 2)} with the actual per-query deviations "
            f"(`label_model_check.csv`), so the size of the saving is set by how well our label model predicts "
            f"each query's loss.")


def _saving_finding(savings, curves, labels, exp, lo, hi, claim) -> Finding:
    src = f"{SAVINGS}, {CURVES}" + (f", {LABELS}" if labels is not None else "")
    r = first_row(savings, experiment=exp, measure="err")
    if r is None:
        return Finding.not_tested(claim, f"this config runs no `{exp}` experiment with ERR", SAVINGS)
    s, ref, perr = r["saving"], r["reference_budget"], r["passive_error"]
    d = first_row(savings, experiment=exp, measure="dcg")
    dcg = f"; DCG: {pct(d['saving'])}" if d is not None and not is_nan(d["saving"]) else ""
    if is_nan(s) and not perr > 0:
        return _solved_finding(curves, exp, claim, ref, perr, labels)
    mc = curves[(curves.experiment == exp) & (curves.measure == "err")]
    metric = {"abs_error": "mean |error|", "selection_error": "model-selection error"}.get(
        mc["metric"].iloc[0] if "metric" in mc and not mc.empty else "", "error")
    ours = (f"ERR saving **{pct(s)}**: active reaches passive's {metric} {fmt(perr)} at Λ = "
            f"{fmt(r['active_budget_needed'])} instead of Λ = {fmt(ref)}{dcg}{_campaigns(curves, exp, 'err', ref)}")
    if is_nan(s):
        ours = f"ERR: active never reaches passive's error {fmt(perr)} at Λ = {fmt(ref)} on the budget grid{dcg}"
        v = "not reproduced"
    else:
        v = saving_verdict(s, lo, hi)
    paper = _paper_range(lo, hi)
    why = {
        "reproduced": f"within {fmt(100 * TOL)} points of the paper's {paper}.",
        "partly": (f"active saves, but {'less' if float(s) < lo else 'more'} than the paper's {paper} "
                   f"(more than {fmt(100 * TOL)} points off)." if not is_nan(s) else ""),
        "not reproduced": f"a saving below {pct(NO_SAVING, 0)} counts as none; the paper reports {paper}.",
    }[v]
    power = saving_power(savings, curves, labels, exp, "err", ref)
    if not is_nan(s):  # the saving against the thresholds of saving_verdict, at its own resolution
        power = replace(power, value=float(s), thresholds=(NO_SAVING, lo - TOL, hi + TOL))
    return powered(claim, ours, v, why + _label_reason(labels, exp, "err"), src,
                   power, tol=TOL, min_n=MIN_POOL, why=MIN_POOL_WHY)


def _solved_finding(curves, exp, claim, ref, perr, labels=None) -> Finding:
    """A comparison passive already gets right at the reference budget: no saving is defined."""
    parts = []
    for m, g in curves[curves.experiment == exp].groupby("measure", sort=False):
        worst = g.groupby("budget")["mean_error"].max().sort_index()
        ok = worst[worst <= SOLVED]
        at = fmt(ok.index[0]) if not ok.empty else "never"
        gap = f", true difference {fmt(g['truth'].iloc[0])}" if "truth" in g else ""
        parts.append(f"{m.upper()}{gap}: every method's selection error ≤ {pct(SOLVED, 0)} from Λ = {at} on, "
                     f"the largest at Λ = {fmt(ref)} is {pct(worst.get(ref, float('nan')))}")
    n = _campaigns(curves, exp, "err", ref)
    return Finding(claim, "; ".join(parts) + n, "not tested",
                   f"on our data this pair is too easy to tell the methods apart: passive's selection error at the "
                   f"reference budget Λ = {fmt(ref)} is {fmt(perr)}, so there is nothing to save and no saving is "
                   f"defined (`savings.csv` leaves it empty); the gap between the two rankers is resolved by every "
                   f"method long before the budgets at which the paper measured its saving.",
                   SAVINGS + ", " + CURVES,
                   Power(n=pool_queries(labels, exp), unit="queries in the pool", repetitions=n_runs(curves, exp, "err", ref)))


def _train_size_findings(savings, curves, labels) -> list[Finding]:
    sizes = curves[curves.experiment.str.startswith("fig3_train_size_")]
    c45 = ("Fig. 3 (centre), Sec. 5.2: estimating the ERR gain of a Random Forest trained on twice the pairs "
           "(100,000 vs 200,000), active sampling saves about **45 %**")
    c_right = (f"Fig. 3 (right), Sec. 5.2: at Λ = {PAPER_TRAIN_SIZE_BUDGET}, active estimation significantly "
               "reduces the ERR estimation error against passive for **every** training size of the second model")
    if sizes.empty:
        return [Finding.not_tested(c, "this config trains no models of several sizes (no "
                                   "`fig3_train_size_*` experiment)", CURVES) for c in (c45, c_right)]
    largest = sizes.loc[sizes["train_pairs"].idxmax(), "experiment"]
    out = [_saving_finding(savings, curves, labels, largest, TRAIN_SIZE_SAVING, TRAIN_SIZE_SAVING, c45)]
    g = sizes[(sizes.measure == "err") & (sizes.budget == PAPER_TRAIN_SIZE_BUDGET)]
    rows, ses, se_of = [], [], {}
    for exp, e in g.groupby("experiment", sort=False):
        p, a = first_row(e, method="passive"), first_row(e, method="active")
        if p is None or a is None:
            continue
        ses.append(math.hypot(p["se"], a["se"]))
        z = (p["mean_error"] - a["mean_error"]) / ses[-1]
        rows.append((int(p["train_pairs"]), p["mean_error"], a["mean_error"], z, int(p["n_runs"])))
        se_of[int(p["train_pairs"])] = ses[-1]
    if not rows:
        out.append(Finding.not_tested(
            c_right, f"no ERR curve at Λ = {PAPER_TRAIN_SIZE_BUDGET} on this config's budget grid", CURVES))
        return out
    rows.sort()
    ours = "; ".join(f"{fmt(n)} pairs: {fmt(pe)} → {fmt(ae)} ({pct(1 - ae / pe)} lower, {fmt(z, 2)} se)"
                     for n, pe, ae, z, _ in rows) + f" (passive → active mean |error|, {fmt(rows[0][4])} campaigns)"
    if all(z > Z for *_, z, _ in rows):
        v, why = "reproduced", f"active's error is below passive's by more than {fmt(Z)} standard errors for every size."
    elif all(ae < pe for _, pe, ae, _, _ in rows):
        v, why = "partly", f"active is below passive for every size, but not always by {fmt(Z)} standard errors."
    else:
        v, why = "not reproduced", "for some size active's error is not below passive's."
    why += (" Our training sizes are a few thousand pairs against the paper's 120,000–200,000; the second model is "
            "compared with a base Random Forest trained on fewer pairs, as in the paper.")
    # each size's passive − active difference against 0 (partly vs not reproduced) at its own resolution;
    # "reproduced" asks for Z se, so it is resolved by construction
    margins = tuple(Margin(f"{fmt(n)} pairs: passive − active mean |error|", pe - ae, 0.0, Z_RESOLVE * se_of[n])
                    for n, pe, ae, _, _ in rows)
    if any(m.value <= -m.resolution for m in margins):  # active resolved above passive somewhere: decided
        margins = ()
    power = Power(n=pool_queries(labels, largest), unit="queries in the pool", repetitions=rows[0][4], se=max(ses),
                  of="passive − active mean |error|", how=f"the largest over sizes; the rule asks for {fmt(Z)} se",
                  note="a sign claim, judged on this pool (no pool minimum)", margins=margins)
    out.append(Finding(c_right, ours, v, why, CURVES, power))
    return out


def _dcg_rule(n_none: int, n: int) -> str:
    """DCG like ERR (module docstring): no experiment without a saving = reproduced, all = not
    reproduced, else partly."""
    return "reproduced" if n_none == 0 else "not reproduced" if n_none == n else "partly"


def _dcg_power(d, curves, labels):
    """The DCG claim's :class:`Power` (the smallest pool, fewest repetitions, largest saving se) and
    each experiment's saving se (:func:`curve_se`, NaN where the curves lack it)."""
    ses = np.array([curve_se(curves, r.experiment, "dcg", r.reference_budget) for r in d.itertuples()])
    pools = [p for p in (pool_queries(labels, e, "dcg") for e in d.experiment) if p is not None]
    runs = [x for x in (n_runs(curves, r.experiment, "dcg", r.reference_budget) for r in d.itertuples()) if x is not None]
    return Power(n=min(pools) if pools else None, unit="queries in the pool", repetitions=min(runs, default=None),
                 se=float(np.nanmax(ses)) if np.isfinite(ses).any() else None, of="DCG saving",
                 how="the largest, delta method on curves.csv", percent=True), ses


def _dcg_unresolved(d, ses, n_none: int):
    """The experiments whose saving lies within :data:`Z_RESOLVE` se of :data:`NO_SAVING`, where
    counting them on one side or the other changes :func:`_dcg_rule`'s verdict (else empty)."""
    near = d[np.isfinite(ses) & (np.abs(d["saving"].to_numpy() - NO_SAVING) < Z_RESOLVE * np.nan_to_num(ses))]
    if near.empty or _dcg_rule(n_none - int((near["saving"] < NO_SAVING).sum()), len(d)) == \
            _dcg_rule(n_none + int((near["saving"] >= NO_SAVING).sum()), len(d)):
        return near.iloc[:0], ses[:0]
    return near, ses[d.index.get_indexer(near.index)]


def _dcg_finding(savings, curves, labels) -> Finding:
    claim = ("Sec. 5.1: results for DCG are **qualitatively similar** to those for ERR (active saves labelling "
             "effort for DCG too)")
    exps = [e for e, *_ in PAPER] + sorted({e for e in savings.experiment if e.startswith("fig3_train_size_")},
                                           key=lambda e: int(e.rsplit("_", 1)[1]))[-1:]
    d = savings[(savings.measure == "dcg") & savings.experiment.isin(exps)]
    d = d[d["saving"].notna()]
    if d.empty:
        return Finding.not_tested(claim, "this config estimates no DCG (or no saving is defined)", SAVINGS)
    ours = "; ".join(f"`{r.experiment}` {pct(r.saving)}" for r in d.itertuples()) + " (DCG savings)"
    power, ses = _dcg_power(d, curves, labels)
    none = d[d["saving"] < NO_SAVING]
    v = v_alone = _dcg_rule(len(none), len(d))
    why = (f"a DCG saving of at least {pct(NO_SAVING, 0)} in {len(d) - len(none)} of {len(d)} experiments."
           if v_alone != "reproduced" else f"every DCG saving is at least {pct(NO_SAVING, 0)}.")
    near, near_se = _dcg_unresolved(d, ses, len(none))
    if not near.empty:
        power = replace(power, note=f"within {Z_RESOLVE:g} se of {pct(NO_SAVING, 0)}: " + ", ".join(
            f"`{e}` {pct(x)} ± {pct(Z_RESOLVE * se)}" for e, x, se in zip(near.experiment, near.saving, near_se)))
        v = "not tested"
        why = (f"not tested: {len(near)} DCG saving(s) lie within {Z_RESOLVE:g} se of {pct(NO_SAVING, 0)} "
               f"({power.note}), enough to change the verdict. The numbers alone would read \"{v_alone}\": " + why)
    why += _dcg_label_reason(labels, none, savings)
    return powered(claim, ours, v, why, SAVINGS + f", {CURVES}" + (f", {LABELS}" if labels is not None else ""),
                   power, min_n=MIN_POOL, why=MIN_POOL_WHY)


def _dcg_label_reason(labels, none, savings=None) -> str:
    """Where DCG saves nothing: what the label model predicts against what it realises
    (``label_model_check.csv``), or ''."""
    if none.empty:
        return ""
    if labels is None:
        return dcg_ceiling(savings, list(none.experiment)) if savings is not None else ""
    from evalrank.active.campaign_estimate import OVERCONFIDENT

    why, bits, over = "", [], 0
    for e in none.experiment:
        r, r_err = first_row(labels, experiment=e, measure="dcg"), first_row(labels, experiment=e, measure="err")
        if r is None:
            continue
        flagged = bool(r["ratio"] > OVERCONFIDENT)
        over += flagged
        bits.append(
            f"`{e}`: the label model predicts a per-query DCG variance of {fmt(r['predicted_variance'])} on average, "
            f"the realized squared errors of its predicted DCG average {fmt(r['realized_squared_error'])} "
            f"(ratio {fmt(r['ratio'])}" + (f", above the overconfidence threshold {fmt(OVERCONFIDENT)}" if flagged
                                          else "")
            + (f"; ERR {fmt(r_err['ratio'])}" if r_err is not None else "")
            + f"); without the cross terms between a query's documents it would be "
            f"{fmt(r['realized_documents'])}. q*'s weights correlate {fmt(r['corr_abs_deviation'], 2)} with the "
            f"actual |L_x − R|, and with the true labels q* needs {fmt(r['budget_factor_active'])} times passive's "
            f"budget (a perfect label model's q*: {fmt(r['budget_factor_oracle'])})")
    if bits:
        why += " Where DCG saves nothing (`label_model_check.csv`): " + "; ".join(bits) + "."
    if over:
        why += (" Each document's grade distribution is roughly calibrated, but the model's errors go the same "
                "way across a query's documents (it misses how relevant a query is as a whole), which the "
                "independence of eq. 3, and so Theorem 3's variance, cannot express; DCG over the whole list "
                "adds up every document, ERR is decided by the first relevant ones, and in a difference of two "
                "rankers the common part cancels. So active ≈ passive for a single ranker's DCG is a property of "
                "our label model, not of the method.")
    return why + (dcg_ceiling(savings, list(none.experiment)) if savings is not None else "")


def _coverage_margins(c, verdict: str, big, small) -> tuple:
    """The cells whose side of the band decides ``verdict``, each against its nearer band edge at
    :data:`Z_RESOLVE` binomial se of its coverage: the cells that must be in the band (all for
    "reproduced", those above ``FEW_DRAWS`` for "partly": their lowest and highest), and the cell
    furthest out among those that must not all be (below ``FEW_DRAWS`` for "partly", above it for
    "not reproduced")."""
    def edge(r):
        return BAND[0] if abs(r["coverage"] - BAND[0]) <= abs(r["coverage"] - BAND[1]) else BAND[1]

    def margin(r):
        return Margin(f"coverage of `{r['experiment']}` {r['measure'].upper()} {r['method']} at Λ = {fmt(r['budget'])}",
                      float(r["coverage"]), edge(r), Z_RESOLVE * float(r["coverage_se"]), percent=True)

    def outside(g):
        return (g["coverage"] - g["coverage"].clip(*BAND)).abs()

    keep = {"reproduced": c, "partly": c[big]}.get(verdict)
    out = [] if keep is None or keep.empty else [margin(keep.loc[keep["coverage"].idxmin()]),
                                                 margin(keep.loc[keep["coverage"].idxmax()])]
    off = {"partly": c[small], "not reproduced": c[big]}.get(verdict)
    if off is not None and not off.empty:
        out.append(margin(off.loc[outside(off).idxmax()]))
    return tuple(out)


def _coverage_finding(out) -> Finding:
    from evalrank.active.interval import FEW_DRAWS

    claim = ("Ours, not the paper's: the t interval of eq. 6 (`evalrank active estimate --estimator eq6 "
             "--interval t`, with a fixed budget) covers **95 %** "
             f"(acceptance band {pct(BAND[0], 0)}–{pct(BAND[1], 0)} per cell, passive and active sampling)")
    if not out.has(COVERAGE):
        return Finding.not_tested(claim, f"no `{COVERAGE}` in this config", COVERAGE)
    c = out.csv(COVERAGE)
    c = c[c.method.isin(["passive", "active"])]
    if c.empty:
        return Finding.not_tested(claim, "no passive or active cell in the coverage study", COVERAGE)
    inb = c["coverage"].between(*BAND)
    big, small = c["budget"] > FEW_DRAWS, c["budget"] <= FEW_DRAWS

    def cell(r):
        return (f"{pct(r['coverage'])} (`{r['experiment']}`, {r['measure'].upper()}, {r['method']}, "
                f"Λ = {fmt(r['budget'])}, {fmt(r['mean_draws'])} draws)")

    parts = []
    for mask, label in ((big, f"Λ ≥ {fmt(c.loc[big, 'budget'].min())}" if big.any() else ""),
                        (small, f"Λ ≤ {fmt(FEW_DRAWS)}")):
        g = c[mask]
        if g.empty:
            continue
        lo, hi = (g["coverage"] < BAND[0]).sum(), (g["coverage"] > BAND[1]).sum()
        parts.append(f"{label}: **{inb[mask].sum()} of {len(g)}** cells in the band ({pct(inb[mask].mean())}; "
                     f"{lo} below, {hi} above), lowest {cell(g.loc[g['coverage'].idxmin()])}, highest "
                     f"{cell(g.loc[g['coverage'].idxmax()])}")
    n_lo, n_hi = fmt(c["campaigns"].min()), fmt(c["campaigns"].max())
    ours = "; ".join(parts) + (f". {n_lo if n_lo == n_hi else n_lo + '–' + n_hi} campaigns per cell "
                               f"(binomial se ≤ {pct(c['coverage_se'].max(), 2)})")
    if inb.all():
        v, why = "reproduced", "every cell is in the band."
    elif not big.any():
        v, why = "not tested", (f"every budget of this study is at most Λ = {fmt(FEW_DRAWS)}, where `evalrank active "
                                f"estimate` warns; the rule judges the cells above it, and this study has none.")
    elif inb[big].all():
        v, why = "partly", (f"every cell above Λ = {fmt(FEW_DRAWS)} is in the band, but not every smaller one; "
                            f"`evalrank active estimate` warns at {fmt(FEW_DRAWS)} draws or fewer.")
    else:
        v, why = "not reproduced", f"some cell above Λ = {fmt(FEW_DRAWS)} lies outside the band."
    labels = out.csv(LABELS) if out.has(LABELS) else None
    power = Power(n=pool_queries(labels), unit="queries in the pool", repetitions=int(c["campaigns"].min()),
                  se=float(c["coverage_se"].max()), of="a cell's coverage", how="binomial, the largest", percent=True,
                  note="coverage of this pool's truth (no pool minimum)", margins=_coverage_margins(c, v, big, small))
    under = c[c["coverage"] < BAND[0]]
    if not under.empty:
        share = under["miss_high"].sum() / (under["miss_high"].sum() + under["miss_low"].sum())
        ratio = under["mean_stderr"] / under["sd_estimate"]
        why += (f" Too low: small samples of skewed losses; in the under-covering cells {pct(share, 0)} of the "
                f"misses have the truth above the interval (a sample that misses the pool's few high-loss queries "
                f"has both a low estimate and a small standard error), and the mean standard error is "
                f"{fmt(ratio.min(), 2)}–{fmt(ratio.max(), 2)} of the estimates' actual sd.")
    over = c[c["coverage"] > BAND[1]]
    if not over.empty:
        kinds = sorted(set(over["quantity"])) if "quantity" in over else []
        what = ("all differences of two rankers" if kinds == ["difference"]
                else f"{(over['quantity'] == 'difference').sum()} of them differences of two rankers" if kinds else "")
        why += (f" Too high: {len(over)} cells{', ' + what if what else ''}, at "
                f"{fmt(over['mean_draws'].min())}–{fmt(over['mean_draws'].max())} draws, where the t quantile is large"
                + (" and the differences are heavy-tailed around 0." if kinds == ["difference"] else "."))
    return powered(claim, ours, v, why, COVERAGE, power, tol=(BAND[1] - BAND[0]) / 2)


def findings(out):
    if not out.has(SAVINGS, CURVES):
        return [Finding.not_tested("the paper's claims", f"no `{SAVINGS}` / `{CURVES}` in this config")]
    savings, curves = out.csv(SAVINGS), out.csv(CURVES)
    labels = out.csv(LABELS) if out.has(LABELS) else None
    items = [_saving_finding(savings, curves, labels, exp, lo, hi, claim) for exp, lo, hi, claim in PAPER]
    items += _train_size_findings(savings, curves, labels)
    items.append(_dcg_finding(savings, curves, labels))
    items += calibrated_findings(out)
    items.append(_coverage_finding(out))
    items += campaign_findings(out)
    return items
