"""What the Sawade et al. findings can resolve (issue 30 item 2): the Monte Carlo standard error of a
saving (evalrank.papers.sawade2012.findings.saving_se) against a Monte Carlo of the same curves, and
verdicts that turn "not tested" when repetitions or the pool shrink."""

import math

import numpy as np
import pandas as pd
import pytest

from evalrank.papers.common.findings import Outputs, render_markdown
from evalrank.papers.sawade2012 import findings as sawade
from evalrank.papers.sawade2012.experiments import savings_row

BUDGETS = np.array([10.0, 50.0, 100.0, 300.0, 500.0])
PASSIVE = np.array([0.060, 0.027, 0.019, 0.0110, 0.0085])
ACTIVE = np.array([0.055, 0.024, 0.017, 0.0093, 0.0072])
#: per-run sd of |error| at each budget (se = SD / sqrt(runs))
SD_P, SD_A = PASSIVE * 0.75, ACTIVE * 0.75


def test_saving_se_matches_a_monte_carlo_of_the_curves():
    """Perturb the stored means by their standard errors (passive independent, active's budgets
    perfectly correlated, as the delta method's bound assumes), recompute savings_row: the sd of the
    saving equals saving_se; with active's budgets independent it is smaller (the bound holds)."""
    runs = 5000
    sp, sa = SD_P / math.sqrt(runs), SD_A / math.sqrt(runs)
    se = sawade.saving_se(BUDGETS, PASSIVE, sp, ACTIVE, sa, 300)
    rng = np.random.default_rng(np.random.SeedSequence(30))
    n = 20000
    corr, indep = np.empty(n), np.empty(n)
    for i in range(n):
        p = PASSIVE + sp * rng.standard_normal(BUDGETS.size)
        corr[i] = savings_row(BUDGETS, p, ACTIVE + sa * rng.standard_normal(), 300)["saving"]
        indep[i] = savings_row(BUDGETS, p, ACTIVE + sa * rng.standard_normal(BUDGETS.size), 300)["saving"]
    assert np.isfinite(se) and se > 0
    # sd of an sd estimate over 20,000 draws: ~0.5 %; the delta method is linear: allow 4 %
    assert corr.std() == pytest.approx(se, rel=0.04)
    assert indep.std() < se


def test_saving_se_undefined_cases():
    sp = sa = np.full(BUDGETS.size, 1e-4)
    assert math.isnan(sawade.saving_se(BUDGETS, PASSIVE, sp, PASSIVE * 2, sa, 300))  # never reached
    assert math.isnan(sawade.saving_se(BUDGETS, PASSIVE, sp, PASSIVE * 0.1, sa, 300))  # below at once: a bound
    assert math.isnan(sawade.saving_se(BUDGETS, np.zeros(5), sp, ACTIVE, sa, 300))  # passive exact: nothing to save
    with pytest.raises(ValueError, match="reference_budget"):
        sawade.saving_se(BUDGETS, PASSIVE, sp, ACTIVE, sa, 301)
    with pytest.raises(ValueError, match="1-d arrays"):
        sawade.saving_se(BUDGETS, PASSIVE[:3], sp, ACTIVE, sa, 300)


def _tables(tmp_path, runs=5000, pool=1000, dcg_factor=None):
    """fig1_rf alone, on a full grid: curves with se = sd/sqrt(runs), savings.csv from them, a pool of
    ``pool`` queries in label_model_check.csv; with ``dcg_factor`` a DCG curve too, active's =
    passive's times it."""
    rows, sav, lab = [], [], []
    curves_of = {"err": (PASSIVE, ACTIVE)}
    if dcg_factor is not None:
        curves_of["dcg"] = (PASSIVE, PASSIVE * dcg_factor)
    for measure, (pm, am) in curves_of.items():
        for m, mean in (("passive", pm), ("active", am)):
            for b, e in zip(BUDGETS, mean):
                rows.append(("fig1_rf", measure, m, b, "abs_error", e, 0.75 * e / math.sqrt(runs), runs, 0.3, None))
        sav.append({"experiment": "fig1_rf", "measure": measure, **savings_row(BUDGETS, pm, am, 300)})
        lab.append(("fig1_rf", "ranker", measure, pool, 0.03, 0.04, 1.3, float("nan"), 0.2, 0.85, 0.45))
    curves = pd.DataFrame(rows, columns=["experiment", "measure", "method", "budget", "metric", "mean_error", "se",
                                         "n_runs", "truth", "train_pairs"])
    savings = pd.DataFrame(sav)
    row = sav[0]
    labels = pd.DataFrame(lab,
                          columns=["experiment", "quantity", "measure", "queries", "predicted_variance",
                                   "realized_squared_error", "ratio", "realized_documents", "corr_abs_deviation",
                                   "budget_factor_active", "budget_factor_oracle"])
    d = tmp_path / "sawade2012"
    d.mkdir(parents=True)
    for name, t in (("curves.csv", curves), ("savings.csv", savings), ("label_model_check.csv", labels)):
        t.to_csv(d / name, index=False)
    return Outputs(tmp_path), row["saving"]


def _rf(items):
    (f,) = [f for f in items if "Random Forest regression ranker" in f.claim]
    return f


def test_saving_verdict_needs_its_repetitions_and_its_pool(tmp_path):
    out, s = _tables(tmp_path / "a", runs=20000)
    f = _rf(sawade.findings(out))
    assert 0.15 <= s <= 0.25 and f.verdict == "reproduced"  # within 5 points of the paper's 20 %
    se = f.power.se
    assert se == pytest.approx(sawade.curve_se(out.csv(sawade.CURVES), "fig1_rf", "err", 300))
    assert "1,000 queries in the pool" in f.resolves and "20,000 Monte Carlo repetitions" in f.resolves
    assert f"± {100 * se:.1f} %" in f.resolves
    # 4x fewer repetitions: 2 se (3.7 points) reach past the band's edge at 25 % (3.5 points away)
    near, _ = _tables(tmp_path / "n", runs=5000)
    n = _rf(sawade.findings(near))
    assert n.verdict == "not tested" and n.reason.startswith("not tested (resolution 3.7 %): ERR saving 21.5 %")
    assert "threshold 25.0 %" in n.reason
    # 400x fewer repetitions: the se grows 20x, 2 se exceed the 5-point tolerance
    few, _ = _tables(tmp_path / "b", runs=50)
    g = _rf(sawade.findings(few))
    assert g.power.se == pytest.approx(20 * se, rel=1e-9)
    assert 2 * g.power.se > sawade.TOL and g.verdict == "not tested"
    assert "exceed the tolerance 5.0 %" in g.reason and '"reproduced"' in g.reason
    # a pool below MIN_POOL
    small, _ = _tables(tmp_path / "c", pool=68, runs=20000)
    h = _rf(sawade.findings(small))
    assert h.verdict == "not tested" and "68 queries in the pool cannot resolve" in h.reason
    assert f"at least {sawade.MIN_POOL}" in h.reason
    edge, _ = _tables(tmp_path / "d", pool=sawade.MIN_POOL, runs=20000)
    assert _rf(sawade.findings(edge)).verdict == "reproduced"


def test_every_finding_states_what_it_resolves(tmp_path):
    out, _ = _tables(tmp_path)
    md = render_markdown([("S", sawade.findings(out))], name="n", seed=1)
    claims = md.count("\n### ")
    assert claims > 5 and md.count("- **resolves:** ") == claims


def _dcg(items):
    (f,) = [f for f in items if "qualitatively similar" in f.claim]
    return f


def test_dcg_verdict_stands_only_where_no_saving_near_the_threshold_could_change_it(tmp_path):
    far, _ = _tables(tmp_path / "a", dcg_factor=0.9)  # a DCG saving of 15.5 %
    f = _dcg(sawade.findings(far))
    assert f.verdict == "reproduced" and f.power.se < (0.155 - sawade.NO_SAVING) / 2
    # the same saving on 50 repetitions: 2 se reach below 5 %, either verdict is possible
    g = _dcg(sawade.findings(_tables(tmp_path / "b", dcg_factor=0.9, runs=50)[0]))
    assert 2 * g.power.se > 0.155 - sawade.NO_SAVING
    assert g.verdict == "not tested" and "within 2 se of 5 %" in g.reason and '"reproduced"' in g.reason
    # 5.3 %: within 2 se of the threshold even on 5,000 repetitions
    h = _dcg(sawade.findings(_tables(tmp_path / "c", dcg_factor=0.965)[0]))
    assert h.verdict == "not tested" and "`fig1_rf` 5.3 %" in h.resolves
    # a pool below MIN_POOL
    k = _dcg(sawade.findings(_tables(tmp_path / "d", dcg_factor=0.9, pool=68)[0]))
    assert k.verdict == "not tested" and "68 queries in the pool cannot resolve" in k.reason
