"""End-to-end runs of the whole DAG on the tiny config (tests/workflow/tiny.yaml).

Proves: the DAG runs from scratch; outputs are byte-identical for --cores 1 and
when every job is submitted through a batch executor (cluster-generic with a
local submit script, 4 jobs at once, each with its declared threads); an interrupted run resumes; the
HTML report renders; a bad config value fails naming its key.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("snakemake")

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
TINY = REPO / "tests" / "workflow" / "tiny.yaml"
NAME = "tiny"


def snakemake(workdir: Path, *args: str, check: bool = True, timeout: int = 600) -> subprocess.CompletedProcess:
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "config").mkdir(exist_ok=True)
    shutil.copy(REPO / "config" / "config.yaml", workdir / "config" / "config.yaml")
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["EVALRANK_PROGRESS"] = "0"
    cmd = [
        sys.executable, "-m", "snakemake",
        "--snakefile", str(REPO / "Snakefile"),
        "--directory", str(workdir),
        "--configfile", str(TINY),
        *args,
    ]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    if check and out.returncode != 0:
        raise AssertionError(f"snakemake failed ({out.returncode}):\n{out.stdout[-4000:]}\n{out.stderr[-8000:]}")
    return out


def digests(workdir: Path) -> dict[str, str]:
    """sha256 of every result file except logs, benchmarks and model pickles.

    Logs and benchmarks hold timings; a pickled model records its fit time and
    thread count, so models are compared through what they produce (the pool
    predictions, tuning tables and quality tables, all digested here).
    """
    root = workdir / "results" / NAME
    out = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if p.is_file() and not rel.startswith(("logs/", "benchmarks/")) and p.suffix != ".pkl":
            out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


@pytest.fixture(scope="module")
def run_one_core(tmp_path_factory):
    wd = tmp_path_factory.mktemp("dag_cores1")
    snakemake(wd, "--cores", "1")
    return wd


def test_outputs_exist_and_are_sane(run_one_core):
    import numpy as np
    import pandas as pd

    res = run_one_core / "results" / NAME
    models = ["rf", "ordinal_rf", "ordered_logit", "ranksvm", "lambdamart"]
    quality = pd.read_csv(res / "fold2" / "quality" / "quality.csv")
    assert set(quality["model"]) == set(models) | {"random"}
    for m in models:
        p = np.load(res / "fold2" / "predictions" / f"{m}.npz")
        assert p["probs"].shape == (len(p["labels"]), 5)
        np.testing.assert_allclose(p["probs"].sum(axis=1), 1.0, atol=1e-9)
        assert (res / "fold2" / "quality" / "reliability" / f"{m}.png").stat().st_size > 1000
    for rule in ("synthesize", "describe"):
        assert (res / "logs" / f"{rule}.log").exists()
        assert (res / "benchmarks" / f"{rule}.tsv").exists()
    summary = pd.read_csv(res / "data" / "summary.csv")
    assert len(summary) >= 5
    # active evaluation: every experiment x measure in savings.csv, every figure written
    savings = pd.read_csv(res / "active" / "savings.csv")
    assert list(savings.columns) == ["experiment", "measure", "reference_budget", "passive_error",
                                     "active_budget_needed", "saving", "paper_saving"]
    assert len(savings) == 2 * 8 and set(savings["measure"]) == {"err", "dcg"}
    curves = pd.read_csv(res / "active" / "curves.csv")
    assert set(curves["method"]) == {"passive", "active", "active_uniD", "active_uniC"}
    assert (curves["n_runs"] + curves["n_undefined"] == 40).all()
    for f in ("costs", "fig1_err", "fig2_dcg", "fig3_err", "fig3_train_size_dcg"):
        assert (res / "active" / f"{f}.png").stat().st_size > 5000
    # NDCG conventions: 2 folds x (2 fig-1 learners x 2 training conventions + ranksvm)
    runs = sorted((res / "ndcg" / "runs").rglob("*.npz"))
    assert len(runs) == 2 * (2 * 2 + 1)
    order = pd.read_csv(res / "ndcg" / "ordering.csv")
    assert set(order["learner"]) == {"adarank", "lambdamart", "ranksvm"} and len(order) == 10 * 3
    audit = pd.read_csv(res / "ndcg" / "tool_conventions.csv")
    assert "LETOR 4.0 (Perl)" in set(audit["tool"])
    curves = pd.read_csv(res / "ndcg" / "curves.csv")
    assert set(curves["k"]) == set(range(1, 11)) and (curves["folds"] == 2).all()
    for f in ("fig1", "fig2"):
        assert (res / "ndcg" / f"{f}.png").stat().st_size > 5000
    # risk: the paper's example to the printed precision, Table 6 over 3 features + 1 variant + 5 models,
    # Table 7 with both halves
    assert pd.read_csv(res / "risk" / "example" / "vs_paper.csv")["match"].all()
    t6 = pd.read_csv(res / "risk" / "population" / "table6.csv")
    assert len(pd.read_csv(res / "risk" / "population" / "systems.csv")) == 3 + 1 + 5 and "f110" in set(t6["system"])
    t7 = pd.read_csv(res / "risk" / "learning" / "table7.csv")
    assert set(t7["learner"]) == {"lambdamart", "georisk_a1"} and len(t7) == 4  # 2 learners x 2 halves
    low = t7[t7["half"] != "vs BM25"]
    assert (low["wins"] + low["losses"] > 0).all()  # the learned LambdaMART baseline is not the fold's LambdaMART
    for f in ("example/fig1.png", "example/fig2.png", "population/fig3.png"):
        assert (res / "risk" / f).stat().st_size > 5000
    # clicks: Table 2 beside the print (one rounding digit), 6 tests by every estimator, Figs. 1-8
    t2 = pd.read_csv(res / "clicks" / "table2.csv")
    assert (~t2["matches"]).sum() == 1
    study = pd.read_csv(res / "clicks" / "study.csv")
    assert (study["tests"] == 6).all() and {"smoothed", "carterette_jones", "full1"} <= set(study["method"])
    assert len(pd.read_csv(res / "clicks" / "table7.csv")) == 3 + 5
    # theory: 2 sizes x 5 scorers x 4 measures, the limits beside, shares per pair
    conv = pd.read_csv(res / "theory" / "convergence.csv")
    assert len(conv) == 2 * 5 * 4 and (conv["R"] == 12).all()
    assert conv.loc[conv.measure == "poly:2", "limit"].isna().all() and conv.loc[conv.measure == "log2", "limit"].eq(1).all()
    assert set(pd.read_csv(res / "theory" / "distinguishability.csv")["n"]) == {100, 1000}
    for f in ("convergence.png", "distinguishability.png", "lists_fig1.png", "lists_fig2.png"):
        assert (res / "theory" / f).stat().st_size > 5000
    lists = pd.read_csv(res / "theory" / "lists.csv")     # ranksvm, listnet, random x 3 sizes x 2 measures
    assert len(lists) == 3 * 3 * 2 and set(lists["ranker"]) == {"ranksvm", "listnet", "random"}
    views = pd.read_csv(res / "clicks" / "min_views.csv")   # chosen by leave-one-out, per click model
    assert set(views["model"]) == {"em", "simplified"} and views.groupby("model")["chosen"].sum().eq(1).all()
    assert {"smoothed_paper_views", "smoothed_simplified"} <= set(study["method"])
    for i in range(1, 9):
        assert (res / "clicks" / f"fig{i}.png").stat().st_size > 5000


def test_every_job_runs_self_contained_through_a_batch_executor(run_one_core, tmp_path):
    """Also the core-count test: here 4 jobs run at once and every job gets its declared
    threads (2 for the model, NDCG and risk jobs), against 1 core and 1 thread in run_one_core.
    (A separate --cores 2 run of the whole DAG proved the same and was dropped for test time.)"""
    pytest.importorskip("snakemake_executor_plugin_cluster_generic")
    wd = tmp_path / "dag_cluster"
    out = snakemake(
        wd,
        "--executor", "cluster-generic",
        "--cluster-generic-submit-cmd", str(REPO / "tests" / "workflow" / "local_submit.sh"),
        "--jobs", "4",
        "--latency-wait", "30",
        "--seconds-between-status-checks", "1",
    )
    assert digests(wd) == digests(run_one_core)


def test_interrupted_run_resumes(run_one_core, tmp_path):
    wd = tmp_path / "dag_resume"
    # First run stops after training (as if killed); the second finishes the rest
    # without redoing any finished job and ends with the same bytes.
    snakemake(wd, "--cores", "2", "--until", "train_model")
    assert not (wd / "results" / NAME / "fold2" / "quality" / "quality.csv").exists()
    second = snakemake(wd, "--cores", "2")
    log = second.stdout + second.stderr
    assert "synthesize" not in log.split("Job stats")[1].split("total")[0]
    assert digests(wd) == digests(run_one_core)
    # Nothing left to do afterwards.
    again = snakemake(wd, "--cores", "1", "-n")
    assert "Nothing to be done" in again.stdout + again.stderr


def test_report_renders(run_one_core):
    report = run_one_core / "report.html"
    snakemake(run_one_core, "--cores", "1", "--report", str(report))
    assert report.stat().st_size > 10_000


def test_bad_config_names_its_key(tmp_path):
    out = snakemake(tmp_path / "bad", "--cores", "1", "-n", "--config", "seed=-1", check=False)
    assert out.returncode != 0
    assert "config key 'seed'" in out.stdout + out.stderr
