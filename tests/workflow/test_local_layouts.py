"""A LETOR dataset of one fold (Fold1/train.txt + Fold1/test.txt, no vali.txt) or of one file runs
by config alone (issue 30): the workflow deals its queries into the five partitions S1..S5
(evalrank.data.layout) instead of reading them from a five-fold release.

The one-fold run is also the dataset matrix's small pool (issue 16): its evaluation pool (4 x 16
= 64 queries) costs less than most of the default active budgets (10..400, kept), so the budgets
at or above the pool's cost label the whole pool (error 0) and no Monte Carlo run is unbounded.
Only the data, model (two models: Figs. 1-3 left's 4 experiments) and active stages and the
findings run; the whole zoo and the NDCG, risk and clicks stages, which do not look at the pool's
cost, run on the tiny config's MSLR-shaped dataset of 16 queries a partition (test_dag.py). (The
MQ2008-shaped dataset: test_matrix_mq2008.py.)"""

from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest
import yaml
from dagrun import TINY, jobs_run, snakemake

from evalrank.data.collection import Collection
from evalrank.data.datasets import fold_file, partition_file
from evalrank.data.layout import deal_queries, read_sources

pytestmark = pytest.mark.slow  # snakemake runs: a dry run is ~10 s, the one-fold DAG a minute or two

SEED = 7


def _one_fold_dataset(root):
    """MSLR-shaped synthetic data (16 queries x 5, ~30 documents each) written as one LETOR fold:
    train.txt holds four of the generator's partitions, test.txt the fifth; no vali.txt."""
    from evalrank.data.synthetic import synthesize

    gen = root.parent / "generated"
    synthesize(gen, n_queries_per_partition=16, seed=SEED, mean_docs=30, layout="partitions")
    parts = [partition_file(gen, k).read_bytes() for k in range(1, 6)]
    fold_file(root, 1, "train").parent.mkdir(parents=True)
    fold_file(root, 1, "train").write_bytes(b"".join(parts[:4]))
    fold_file(root, 1, "test").write_bytes(parts[4])
    shutil.rmtree(gen)


def _config(tmp_path, dataset: dict, name: str):
    """The tiny config on the given dataset, with two models, the active stage and the findings only,
    and the default active budgets (10..400: above the pool's cost from 100 on)."""
    cfg = yaml.safe_load(TINY.read_text())
    cfg.update(name=name, dataset=dict(dataset, n_features=136, max_grade=4), folds=[1])
    cfg["models"]["names"] = ["rf", "ordered_logit"]  # two models: Figs. 1-3 left still run, few jobs
    cfg["sawade2012"]["train_sizes"].update(sizes=[], budget=10)  # budget: on the default grid
    cfg["sawade2012"]["calibrated"] = []  # the calibrated twins: tiny.yaml's run
    del cfg["sawade2012"]["budgets"]  # the schema's default budgets, most of them above the pool's cost
    for paper in ("busafekete2012", "dincer2016", "ozertem2011", "wang2013"):  # ndcg, risk, clicks, theory
        cfg[paper] = {"enabled": False}
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def test_one_fold_without_vali_runs_by_config_alone_and_its_small_pool_is_whole(tmp_path):
    data = tmp_path / "wd" / "data" / "onefold"
    _one_fold_dataset(data)
    cfg = _config(tmp_path, {"kind": "local", "root": "data/onefold"}, "onefold")
    out = snakemake(tmp_path / "wd", "--cores", "2", configs=(cfg,))
    jobs = jobs_run(out)
    assert jobs["derive_partitions"] == 1 and "parse_partition" not in jobs
    res = tmp_path / "wd" / "results" / "onefold"
    # the parsed partitions are the seeded deal of the two files' queries, each query whole
    pooled = read_sources([fold_file(data, 1, "train"), fold_file(data, 1, "test")], n_features=136, max_grade=4)
    parts = [Collection.load(res / "data" / f"S{k}.npz") for k in range(1, 6)]
    for part, ids in zip(parts, deal_queries(pooled.qids, SEED)):
        assert np.array_equal(part.qids, ids) and part.n_queries == 16
    assert sum(p.n_docs for p in parts) == pooled.n_docs
    for f in ("fold1/quality/quality.csv", "sawade2012/savings.csv", "sawade2012/curves.csv", "findings.md"):
        assert (res / f).is_file(), f
    # the small pool: 64 queries, cheaper than the default budgets from 100 on
    reps = yaml.safe_load(cfg.read_text())["sawade2012"]["repetitions"]
    curves = pd.read_csv(res / "sawade2012" / "curves.csv")
    assert (curves["pool_cost"] == 64).all()
    whole = curves[curves["budget"] >= 64]
    assert set(whole["budget"]) == {100, 150, 200, 300, 400}
    assert (whole["n_whole_pool"] == whole["n_runs"]).all() and (whole["mean_error"] == 0).all()
    assert (whole["mean_spent"] == 64).all()
    below = curves[curves["budget"] < 64]
    assert set(below["budget"]) == {10, 20, 50}
    assert (below["n_whole_pool"] == 0).all() and (below["mean_error"] > 0).any()
    assert (curves["n_runs"] + curves["n_undefined"] == reps).all()
    savings = pd.read_csv(res / "sawade2012" / "savings.csv")
    assert (savings["reference_budget"] == 10).all() and savings["passive_error"].gt(0).all()
    for stage in ("ndcg", "risk", "clicks", "theory"):  # off in _config
        assert not (res / stage).exists(), stage


def test_a_single_file_plans_the_deal_not_the_rotation(tmp_path):
    (tmp_path / "wd" / "data").mkdir(parents=True)
    (tmp_path / "wd" / "data" / "all.txt").write_text("1 qid:1 1:0.5\n")
    cfg = _config(tmp_path, {"kind": "local", "root": "data", "file": "all.txt"}, "onefile")
    out = snakemake(tmp_path / "wd", "-n", "--quiet", "rules", configs=(cfg,))
    assert "derive_partitions" in out.stdout and "parse_partition" not in out.stdout


def test_an_incomplete_folder_is_named_with_its_config_key(tmp_path):
    fold_file(tmp_path / "wd" / "data", 2, "train").parent.mkdir(parents=True)
    fold_file(tmp_path / "wd" / "data", 2, "train").write_text("1 qid:1 1:0.5\n")
    cfg = _config(tmp_path, {"kind": "local", "root": "data"}, "broken")
    out = snakemake(tmp_path / "wd", "-n", configs=(cfg,), check=False)
    text = out.stdout + out.stderr
    assert out.returncode != 0
    assert "dataset.root: no LETOR layout under data" in text and "Fold1/train.txt" in text
    assert "Traceback" not in text
