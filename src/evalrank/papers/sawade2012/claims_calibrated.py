"""Findings of the calibrated label model (issue 30 item 3; :mod:`evalrank.papers.sawade2012.calibrated`):
two claims, returned by :func:`calibrated_findings` for ``sawade2012/findings.py`` to list.

1. *Calibration.* The paper's label model (Theorem 3, independent labels) predicts too small a
   per-query variance for DCG; the query-level random effect, fitted on held-out training queries,
   predicts it (``label_model_split.csv``). Verdict: every calibrated experiment's realised /
   predicted ratio in :data:`RATIO_BAND` for every measure = reproduced; some = partly; none = not
   reproduced. Each ratio's standard error (``calibrated_ratio_se``: the pool's queries and the
   queries ``rho`` is fitted on, :func:`evalrank.papers.sawade2012.calibrated.calibrated_ratio_se`)
   is stated; a
   ratio within 2 se of a band edge is neither in nor out, and where such ratios could change the
   verdict it is "not tested". The cause is stated with the numbers: the within-document part of
   the realised error against the cross-document (covariance) part.
2. *DCG's savings.* Sawade et al. (Sec. 5.1) call DCG's savings "qualitatively similar" to ERR's.
   Both label models' Fig. 1 savings (``savings.csv``): the calibrated model's DCG saving positive
   and at least :data:`HALF` of its ERR saving = reproduced; DCG's saving better than with the
   paper's model but short of that = partly; else not reproduced. Beside it, what the best label
   model could give (``budget_factor_oracle``: q* from the true per-query losses), so a shortfall is
   explained by numbers. The power (pool size, Monte Carlo runs) is stated
   (:class:`evalrank.papers.common.findings.Power`); a pool below ``sawade2012.power.MIN_POOL``
   queries cannot resolve a saving: "not tested" (:func:`evalrank.papers.common.findings.powered`).
"""

from __future__ import annotations

from evalrank.papers.common.findings import Z_RESOLVE, Finding, Power, fmt, is_nan, pct, powered
from evalrank.papers.sawade2012.power import MIN_POOL, MIN_POOL_WHY, pool_queries, saving_se

__all__ = ["calibrated_findings", "dcg_ceiling", "DCG_CEILING", "RATIO_BAND", "HALF", "SPLIT", "SAVINGS", "CALIBRATION_CLAIM", "DCG_CLAIM"]

SPLIT = "sawade2012/label_model_split.csv"
SAVINGS = "sawade2012/savings.csv"
CURVES = "sawade2012/curves.csv"
#: realised / predicted variance of a calibrated model (issue 30's acceptance)
RATIO_BAND = (0.67, 1.5)
#: how a calibrated ratio's standard error is had (calibrated.calibrated_ratio_se)
HOW = "jackknife over pool queries and, through rho's moment equation, over the queries rho is fitted on"
#: DCG's saving must reach this share of ERR's to be "qualitatively similar"
HALF = 0.5

CALIBRATION_CLAIM = ("Ours, not the paper's: a label model whose per-query variance is calibrated on held-out queries "
                     f"(realised / predicted {RATIO_BAND[0]}–{RATIO_BAND[1]}, DCG and ERR), where Theorem 3's "
                     "independent labels are overconfident for DCG")
DCG_CLAIM = ("Sec. 5.1: DCG's savings are qualitatively similar to ERR's (here: the DCG saving positive and at "
             f"least {HALF:.0%} of ERR's), with the paper's label model and with the calibrated one")


#: What q* can save for DCG at all on the default config's data, measured by benchmarks/sawade_dcg_ceiling.py
#: (benchmarks/RESULTS.md, the section named): fig1 at Λ = 300, in % of passive's budget. ``check``: the
#: study's Monte Carlo reproduced these savings.csv values (fig1_rf DCG, paper's and calibrated model): a
#: run whose savings match them is the run the study measured, and only there is it quoted as this run's cause.
DCG_CEILING = dict(
    section="Sawade's DCG: what q* can save at all, measured against the generator's own label law",
    check={"fig1_rf": -0.00619, "fig1_rf_calibrated": 0.0761}, check_tol=5e-5,
    bayes={"fig1_rf": (0.123, 0.131, 0.021), "fig1_ordered_logit": (0.129, 0.116, 0.022)},  # expected, MC, se
    true_sq_err={"fig1_rf": 0.325, "fig1_ordered_logit": 0.330})


def dcg_ceiling(savings, experiments) -> str:
    """The measured ceiling of q*'s DCG saving (:data:`DCG_CEILING`) for ``experiments`` (fig1 names, the
    ``_calibrated`` suffix ignored), as a sentence; where this run is not the one measured (its savings.csv
    differs from the study's check values) the sentence says the cause is not measured on this run."""
    c = DCG_CEILING
    names = [e[:-len("_calibrated")] if e.endswith("_calibrated") else e for e in experiments]
    names = [e for e in dict.fromkeys(names) if e in c["bayes"]]
    if not names:
        return ""
    same = all(abs(_saving(savings, e, "dcg") - v) <= c["check_tol"] for e, v in c["check"].items()
               if not is_nan(_saving(savings, e, "dcg")))
    same = same and not any(is_nan(_saving(savings, e, "dcg")) for e in c["check"])
    if not same:
        return (f" The ceiling of q* on DCG was measured on the default config's run (benchmarks/RESULTS.md, "
                f"\"{c['section']}\"); this run's savings differ from that run's, so here its cause is not measured.")
    each = "; ".join(f"`{e}` {pct(c['bayes'][e][0])} expected, {pct(c['bayes'][e][1])} ± {pct(c['bayes'][e][2])} "
                     f"realised" for e in names)
    return (f" Measured cause (benchmarks/RESULTS.md, \"{c['section']}\", on this run: its fig1_rf DCG savings are the "
            f"study's): the synthetic grades carry a per-query offset that enters no feature, so even the generator's "
            f"own label law given the true utilities, the best label model there is, saves only {each} for DCG "
            "(of the label models of the features tried there, the calibrated copula saves the most); the "
            f"{pct(c['true_sq_err'][names[0]])} of putting each query's true squared error in q* needs each "
            "query's offset, which no label model of the features has.")


def _finding(claim, ours, verdict, reason, source, power, *, min_pool: bool = False) -> Finding:
    """:func:`powered`: a saving's verdict also needs sawade2012.power's ``MIN_POOL`` queries."""
    if min_pool:
        return powered(claim, ours, verdict, reason, source, power, min_n=MIN_POOL, why=MIN_POOL_WHY)
    return powered(claim, ours, verdict, reason, source, power)


def _band_rule(inside: int, total: int) -> str:
    """The calibration rule (module docstring): all ratios in the band = reproduced, some = partly."""
    return "reproduced" if inside == total else ("partly" if inside else "not reproduced")


def _calibration(split) -> Finding:
    """Claim 1. Each calibrated ratio is judged in or out of :data:`RATIO_BAND` only where its
    interval of :data:`~evalrank.papers.common.findings.Z_RESOLVE` standard errors
    (``calibrated_ratio_se``: pool and fit queries) stays on one side of the band's
    edges; where the unresolved ratios, counted in or out, would give different verdicts, the claim
    is "not tested" (:func:`powered`, the tolerance being the deciding ratio's distance to its
    nearest edge). A table without ``calibrated_ratio_se`` (written before it) is judged on the
    ratios alone."""
    lo, hi = RATIO_BAND
    ses = split["calibrated_ratio_se"] if "calibrated_ratio_se" in split else [float("nan")] * len(split)
    parts, cause, inside, unresolved = [], [], 0, []
    for r, se in zip(split.itertuples(), ses):
        ok = lo <= r.calibrated_ratio <= hi
        inside += ok
        dist = min(abs(r.calibrated_ratio - lo), abs(r.calibrated_ratio - hi))
        if not is_nan(se) and Z_RESOLVE * se > dist:
            unresolved.append((f"`{r.experiment}` {r.measure.upper()}", r.calibrated_ratio, float(se), dist, ok))
        pm = "" if is_nan(se) else f" ± {fmt(se, 2)}"
        parts.append(f"`{r.experiment}` {r.measure.upper()}: {fmt(r.ratio)} → {fmt(r.calibrated_ratio)}{pm} "
                     f"(ρ = {fmt(r.rho, 2)})")
        cause.append(f"`{r.experiment}` {r.measure.upper()}: within-document {fmt(r.ratio_within)}, "
                     f"cross-document {fmt(r.ratio_cross)}")
    total = len(split)
    verdict = _band_rule(inside, total)
    se_said = " (± 1 se over the pool's and the fit's queries)" if any(not is_nan(x) for x in ses) else ""
    ours = f"realised / predicted variance, paper's model → calibrated{se_said}: " + "; ".join(parts)
    reason = (f"{inside} of {total} calibrated ratios in {lo}–{hi}. The paper's model's realised squared error, "
              "over its predicted variance, split by the Doob martingale along the ranking into the part "
              "independent labels can produce and the covariance of errors within a query: " + "; ".join(cause)
              + ". The copula is fitted on "
              + ", ".join(sorted({f"{fmt(v)} held-out training queries" for v in split["fit_queries"]})) + ".")
    fitted = "fitted on " + fmt(int(split["fit_queries"].max())) + " held-out training queries"
    n = pool_queries(split)  # its different queries over the folds' pools
    if n != int(split["queries"].max()):  # the pools of several folds share queries
        fitted += f"; the pools of the folds hold {fmt(int(split['queries'].max()))} queries, {fmt(n)} distinct"
    sure = inside - sum(ok for *_, ok in unresolved)  # in the band beyond doubt
    if unresolved and _band_rule(sure, total) != _band_rule(sure + len(unresolved), total):
        name, ratio, se, dist, _ = max(unresolved, key=lambda u: u[2] / max(u[3], 1e-300))
        edge = lo if abs(ratio - lo) <= abs(ratio - hi) else hi
        power = Power(n=n, unit="held-out pool queries", se=se, of=f"{name}'s calibrated ratio",
                      how=HOW,
                      note=f"{len(unresolved)} of {total} ratios lie within {Z_RESOLVE:g} se of a band edge ("
                           + ", ".join(f"{u[0]} {fmt(u[1])} ± {fmt(Z_RESOLVE * u[2], 2)}" for u in unresolved)
                           + f"), enough to change the verdict; {name}'s distance to the edge {fmt(edge)} is "
                             f"{fmt(dist, 2)}; {fitted}")
        return powered(CALIBRATION_CLAIM, ours, verdict, reason, SPLIT, power, tol=dist)
    finite = [float(x) for x in ses if not is_nan(x)]
    power = Power(n=n, unit="held-out pool queries", se=max(finite) if finite else None, of="a calibrated ratio",
                  how=HOW + ", the largest",
                  note=fitted + (f"; {len(unresolved)} ratio(s) within {Z_RESOLVE:g} se of a band edge, not enough "
                                 "to change the verdict" if unresolved else ""))
    return _finding(CALIBRATION_CLAIM, ours, verdict, reason, SPLIT, power)


def _saving(savings, exp, m):
    r = savings[(savings.experiment == exp) & (savings.measure == m)]
    return float("nan") if r.empty else float(r["saving"].iloc[0])


def _saving_se(savings, curves, exp) -> float:
    """Monte Carlo standard error of ``exp``'s DCG saving (sawade2012.power.saving_se on the
    passive and active curves); NaN where the curves lack what it needs."""
    row = savings[(savings.experiment == exp) & (savings.measure == "dcg")]
    g = curves[(curves.experiment == exp) & (curves.measure == "dcg") & curves.method.isin(["passive", "active"])]
    if row.empty or g.empty or not {"mean_error", "se"} <= set(g.columns):
        return float("nan")
    mean = g.pivot(index="budget", columns="method", values="mean_error").sort_index()
    se = g.pivot(index="budget", columns="method", values="se").sort_index()
    if mean.shape[1] < 2 or mean.isna().any().any() or se.isna().any().any():
        return float("nan")
    try:
        return saving_se(mean.index.to_numpy(dtype=float), mean["passive"], se["passive"], mean["active"],
                         se["active"], float(row["reference_budget"].iloc[0]))
    except ValueError:  # the reference budget is not on the curves' grid
        return float("nan")


def _dcg(savings, curves, split) -> list[Finding]:
    out = []
    for twin in dict.fromkeys(split["experiment"]):
        base = twin[:-len("_calibrated")]
        s = {(k, m): _saving(savings, e, m) for k, e in (("paper", base), ("calibrated", twin)) for m in ("err", "dcg")}
        oracle = split[(split.experiment == twin) & (split.measure == "dcg")]
        best = float("nan") if oracle.empty else 1.0 - float(oracle["budget_factor_oracle"].iloc[0])
        expect = {k: float("nan") if oracle.empty or c not in oracle else 1.0 - float(oracle[c].iloc[0])
                  for k, c in (("paper", "budget_factor_independent"), ("calibrated", "budget_factor_calibrated"),
                               ("variance", "budget_factor_true_variance"))}
        d1, e1, d0 = s[("calibrated", "dcg")], s[("calibrated", "err")], s[("paper", "dcg")]
        if is_nan(d1) or is_nan(e1):
            out.append(Finding.not_tested(f"{DCG_CLAIM} (`{base}`)", f"no savings row of `{twin}` in this run",
                                          SAVINGS))
            continue
        if d1 > 0 and e1 > 0 and d1 >= HALF * e1:
            verdict = "reproduced"
        elif not is_nan(d0) and d1 > d0:
            verdict = "partly"
        else:
            verdict = "not reproduced"
        ours = (f"paper's model: DCG {pct(d0)}, ERR {pct(s[('paper', 'err')])}; calibrated: DCG {pct(d1)}, "
                f"ERR {pct(e1)}")
        reason = (f"DCG saving with the calibrated model {pct(d1)} against {pct(HALF * e1)} ({HALF:.0%} of its ERR "
                  f"saving). Asymptotic DCG savings with the true losses (label_model_split.csv, 1 - budget "
                  f"factor): paper's model {pct(expect['paper'])}, calibrated {pct(expect['calibrated'])}, the best "
                  f"variance model (each query's true squared error, the paper's mean) {pct(expect['variance'])}, "
                  f"a perfect label model (q* from each query's true |L - R|) {pct(best)}: what is left between "
                  "the calibrated model and the best variance is how well a model tells *which* queries deviate, "
                  "not how much they do on average; the rest is the predicted means." + dcg_ceiling(savings, [base]))
        runs = curves[(curves.experiment == twin) & (curves.measure == "dcg")]["n_runs"]
        se = _saving_se(savings, curves, twin)
        power = Power(n=pool_queries(oracle) if not oracle.empty else None, unit="queries in the pool",
                      repetitions=int(runs.min()) if len(runs) else None, se=None if is_nan(se) else se,
                      of="calibrated DCG saving", how="delta method on curves.csv", percent=True,
                      # the verdict's thresholds: 0, half the ERR saving, the paper's model's DCG saving
                      value=d1, thresholds=tuple(t for t in (0.0, HALF * e1, d0) if not is_nan(t)))
        out.append(_finding(f"{DCG_CLAIM} (`{base}`)", ours, verdict, reason, f"{SAVINGS}, {SPLIT}", power,
                            min_pool=True))
    return out


def calibrated_findings(out) -> list[Finding]:
    """The two claims (module docstring) from a run's outputs ``out``
    (:class:`evalrank.papers.common.findings.Outputs`); "not tested" where the run has no calibrated
    experiment (sawade2012.calibrated empty, or tables written before it)."""
    if not out.has(SPLIT, SAVINGS, CURVES):
        return [Finding.not_tested(CALIBRATION_CLAIM, f"no `{SPLIT}` in this run", SPLIT)]
    split = out.csv(SPLIT)
    if split.empty:
        return [Finding.not_tested(CALIBRATION_CLAIM, "no calibrated experiment in this config (sawade2012.calibrated: [])",
                                   SPLIT)]
    return [_calibration(split)] + _dcg(out.csv(SAVINGS), out.csv(CURVES), split)
