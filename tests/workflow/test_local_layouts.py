"""A LETOR dataset of one fold (Fold1/train.txt + Fold1/test.txt, no vali.txt) or of one file runs
by config alone (issue 30): the workflow deals its queries into the five partitions S1..S5
(evalrank.data.layout) instead of reading them from a five-fold release."""

from __future__ import annotations

import shutil

import numpy as np
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
    """The tiny config on the given dataset, with two models, the active stage and the findings only."""
    cfg = yaml.safe_load(TINY.read_text())
    cfg.update(name=name, dataset=dict(dataset, n_features=136, max_grade=4), folds=[1])
    cfg["models"]["names"] = ["rf", "ordered_logit"]  # two models: Figs. 1-3 left still run, few jobs
    cfg["sawade2012"]["train_sizes"]["sizes"] = []
    cfg["sawade2012"]["calibrated"] = []  # the calibrated twins: tiny.yaml's run
    for stage in ("ndcg", "risk", "clicks", "theory"):
        cfg[stage] = {"enabled": False}
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def test_one_fold_without_vali_runs_by_config_alone(tmp_path):
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
    for f in ("fold1/quality/quality.csv", "active/savings.csv", "active/curves.csv", "findings.md"):
        assert (res / f).is_file(), f


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
