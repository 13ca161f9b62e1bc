"""End-to-end runs of the whole DAG on the tiny config (tests/workflow/tiny.yaml).

One run per session, shared by the test workers (conftest.tiny_run, 2 cores); each stage's
outputs are checked by a test of their own, so a failure names its stage. Also: a bad config
value fails naming its key. On copies of the same run: resume and a damaged file
(test_dag_rerun.py), the HTML report (test_dag_report.py). Batch execution: test_slurm.py.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from dagrun import snakemake

pytest.importorskip("snakemake")

pytestmark = pytest.mark.slow  # make test runs a module's tests on one worker (--dist loadscope): one tiny run

NAME = "tiny"
MODELS = ["rf", "ordinal_rf", "ordered_logit", "ranksvm", "lambdamart"]


@pytest.fixture(scope="module")
def res(tiny_run):
    return tiny_run / "results" / NAME


def test_data_stage(res):
    for rule in ("synthesize", "describe"):
        assert (res / "logs" / f"{rule}.log").exists()
        assert (res / "benchmarks" / f"{rule}.tsv").exists()
    assert len(pd.read_csv(res / "data" / "summary.csv")) >= 5
    assert (res / "data" / "facts.json").exists()


def test_model_stage(res):
    quality = pd.read_csv(res / "fold2" / "quality" / "quality.csv")
    assert set(quality["model"]) == set(MODELS) | {"random"}
    for m in MODELS:
        p = np.load(res / "fold2" / "predictions" / f"{m}.npz")
        assert p["probs"].shape == (len(p["labels"]), 5)
        np.testing.assert_allclose(p["probs"].sum(axis=1), 1.0, atol=1e-9)
        assert (res / "fold2" / "quality" / "reliability" / f"{m}.png").stat().st_size > 1000


def test_active_stage(res):
    # every experiment x measure in savings.csv, every figure written
    savings = pd.read_csv(res / "sawade2012" / "savings.csv")
    assert list(savings.columns) == ["experiment", "measure", "reference_budget", "passive_error",
                                     "active_budget_needed", "saving", "paper_saving"]
    # the paper's 8 experiments and Fig. 1's two calibrated twins (sawade2012.calibrated: rf, ordered_logit)
    assert len(savings) == 2 * 10 and set(savings["measure"]) == {"err", "dcg"}
    assert {"fig1_rf_calibrated", "fig1_ordered_logit_calibrated"} <= set(savings["experiment"])
    curves = pd.read_csv(res / "sawade2012" / "curves.csv")
    assert set(curves["method"]) == {"passive", "active", "active_uniD", "active_uniC"}
    assert (curves["n_runs"] + curves["n_undefined"] == 40).all()
    assert (curves["pool_cost"] == 64).all() and (curves["n_whole_pool"] == 0).all()  # budgets 2..20 < 64
    # Fig. 3's larger RF reuses the base RF's tuning: one grid point
    assert len(pd.read_csv(res / "fold2" / "models" / "rf_n150.tuning.csv")) == 1
    for f in ("costs", "fig1_err", "fig2_dcg", "fig3_err", "fig3_train_size_dcg", "coverage"):
        assert (res / "sawade2012" / f"{f}.png").stat().st_size > 5000
    # the interval's coverage: every experiment x measure x method x budget over the 40 runs
    cov = pd.read_csv(res / "sawade2012" / "coverage.csv")
    assert len(cov) == 10 * 2 * 4 * 4 and (cov["campaigns"] + cov["n_no_interval"] == 40).all()
    assert cov["coverage"].between(0, 1).all() and (cov["level"] == 0.95).all()
    # the labelling tool's campaign study: 7 experiments (not the training-size series, not the calibrated twins) x 2 measures x
    # (2 floors x 5 (estimator, interval) + the tool's default at its floor, with one plan and continued with
    # the labels) x 4 budgets over the 40 campaigns (rounds_repetitions 2,000: all of them)
    camp = pd.read_csv(res / "sawade2012" / "campaign_coverage.csv")
    assert len(camp) == 7 * 2 * (2 * 5 + 2) * 4 and (camp["campaigns"] == 40).all()
    assert (camp["estimator"] == "finite_rounds").sum() == 7 * 2 * 4
    assert camp["coverage"].between(0, 1).all() and (camp["simultaneous"] <= camp["coverage"] + 1e-12).all()
    assert camp["default"].sum() == 7 * 2 * 4
    # the tool's default: the finite-population estimator with its confidence sequence, at the default floor
    d = camp[camp["default"]]
    assert set(zip(d["quantity"], d["estimator"], d["interval"])) == {("ranker", "finite", "cs"),
                                                                      ("difference", "finite", "cs")}
    check = pd.read_csv(res / "sawade2012" / "label_model_check.csv")
    assert len(check) == 10 * 2 and (check["ratio"] > 0).all()
    # the calibrated label model's split of the realised error: one row per twin and measure
    split = pd.read_csv(res / "sawade2012" / "label_model_split.csv")
    assert len(split) == 2 * 2 and (split["calibrated_ratio"] > 0).all() and (split["calibrated_ratio_se"] >= 0).all()
    # cross-fitted (sawade2012.crossfit): rho is fitted on both halves of the fold's training partition
    from evalrank.data.collection import Collection

    halves = sum(Collection.load(res / "fold2" / f"{h}.npz").n_queries for h in ("train", "vali"))
    assert (split["fit_queries"] == halves).all()
    for m in ("rf", "ordered_logit"):
        assert (res / "fold2" / "swap" / f"{m}.skops").is_file() and (res / "fold2" / "swap" / f"{m}_train.npz").is_file()


def test_ndcg_stage(res):
    # 2 folds x (2 fig-1 learners x 2 training conventions + ranksvm)
    runs = sorted((res / "busafekete2012" / "runs").rglob("*.npz"))
    assert len(runs) == 2 * (2 * 2 + 1)
    order = pd.read_csv(res / "busafekete2012" / "ordering.csv")
    assert set(order["learner"]) == {"adarank", "lambdamart", "ranksvm"} and len(order) == 10 * 3
    audit = pd.read_csv(res / "busafekete2012" / "tool_conventions.csv")
    assert "LETOR 4.0 (Perl)" in set(audit["tool"])
    curves = pd.read_csv(res / "busafekete2012" / "curves.csv")
    assert set(curves["k"]) == set(range(1, 11)) and (curves["folds"] == 2).all()
    for f in ("fig1_by_training_tool", "fig2_by_evaluation_tool"):
        assert (res / "busafekete2012" / f"{f}.png").stat().st_size > 5000


def test_risk_stage(res):
    # the paper's example to the printed precision, Table 6 over 3 features + 1 variant + 5 models,
    # Table 7 with both halves
    assert pd.read_csv(res / "dincer2016" / "example" / "vs_paper.csv")["match"].all()
    t6 = pd.read_csv(res / "dincer2016" / "population" / "table6.csv")
    assert len(pd.read_csv(res / "dincer2016" / "population" / "systems.csv")) == 3 + 1 + 5 and "f110" in set(t6["system"])
    t7 = pd.read_csv(res / "dincer2016" / "learning" / "table7.csv")
    assert set(t7["learner"]) == {"lambdamart", "georisk_a1"} and len(t7) == 4  # 2 learners x 2 halves
    low = t7[t7["half"] != "vs BM25"]
    assert (low["wins"] + low["losses"] > 0).all()  # the learned LambdaMART baseline is not the fold's LambdaMART
    for f in ("example/fig1_profiles.png", "example/fig2_georisk_example.png", "population/fig3_georisk_population.png"):
        assert (res / "dincer2016" / f).stat().st_size > 5000


def test_clicks_stage(res):
    # Table 2 beside the print (one rounding digit), 6 tests by every estimator, Figs. 1-8
    t2 = pd.read_csv(res / "ozertem2011" / "table2.csv")
    assert (~t2["matches"]).sum() == 1
    study = pd.read_csv(res / "ozertem2011" / "study.csv")
    assert (study["tests"] == 6).all() and {"smoothed", "carterette_jones", "full1"} <= set(study["method"])
    assert len(pd.read_csv(res / "ozertem2011" / "table7.csv")) == 3 + 5
    views = pd.read_csv(res / "ozertem2011" / "min_views.csv")   # chosen by leave-one-out, per click model
    assert set(views["model"]) == {"em", "simplified"} and views.groupby("model")["chosen"].sum().eq(1).all()
    assert {"smoothed_paper_views", "smoothed_simplified"} <= set(study["method"])
    from evalrank.papers.ozertem2011.plots import FIGURES

    for f in FIGURES:
        assert (res / "ozertem2011" / f).stat().st_size > 5000


def test_theory_stage(res):
    # 2 sizes x 5 scorers x 4 measures, the limits beside, shares per pair
    conv = pd.read_csv(res / "wang2013" / "convergence.csv")
    assert len(conv) == 2 * 5 * 4 and (conv["R"] == 12).all()
    assert conv.loc[conv.measure == "poly:2", "limit"].isna().all() and conv.loc[conv.measure == "log2", "limit"].eq(1).all()
    assert set(pd.read_csv(res / "wang2013" / "distinguishability.csv")["n"]) == {100, 1000}
    for f in ("convergence.png", "distinguishability.png", "lists_fig1.png", "lists_fig2.png"):
        assert (res / "wang2013" / f).stat().st_size > 5000
    lists = pd.read_csv(res / "wang2013" / "lists.csv")     # ranksvm, listnet, random x 3 sizes x 2 measures
    assert len(lists) == 3 * 3 * 2 and set(lists["ranker"]) == {"ranksvm", "listnet", "random"}


def test_findings_stage(res):
    # the last rule: every paper's section rendered from this run's tables (all five stages run in
    # the tiny config, so no section may say its stage is missing), the HTML twin beside
    from evalrank.papers.common.findings import PAPERS, VERDICTS

    md = (res / "findings.md").read_text()
    assert md.startswith("# Findings: `tiny`")
    sections = md.split("\n## ")[1:]
    assert len(sections) == len(PAPERS)
    for sec in sections:
        verdicts = [line.split(":** ", 1)[1] for line in sec.splitlines() if line.startswith("- **verdict:**")]
        assert len(verdicts) >= 2 and set(verdicts) <= set(VERDICTS), sec[:200]
        assert "not part of this config" not in sec
    assert "<h2>" in (res / "findings.html").read_text()


def test_bad_config_names_its_key(tmp_path):
    out = snakemake(tmp_path / "bad", "--cores", "1", "-n", "--config", "seed=-1", check=False)
    assert out.returncode != 0
    assert "config key 'seed'" in out.stdout + out.stderr
