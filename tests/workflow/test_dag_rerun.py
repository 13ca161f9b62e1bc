"""On a copy of the session's tiny run (conftest.tiny_run): a run interrupted mid-DAG resumes with
only the missing jobs, a damaged intermediate file is rebuilt, and every output has the bytes of
the uninterrupted run at 1 core as at 2. A module of its own so that it runs on another test
worker than the per-stage checks (test_dag.py)."""

from __future__ import annotations

import shutil

import pytest
from dagrun import digests, jobs_run, snakemake

pytest.importorskip("snakemake")

pytestmark = pytest.mark.slow

NAME = "tiny"


def _downstream_outputs(wd, target):
    """The output files of ``target``'s job and of every job after it (a forced dry run's plan)."""
    plan = snakemake(wd, "-n", "--cores", "1", "--forcerun", target)
    files = []
    for line in (plan.stdout + plan.stderr).splitlines():
        if line.strip().startswith("output:"):
            files += [f.strip() for f in line.split("output:", 1)[1].split(",")]
    return files


def test_interrupted_run_resumes_and_a_damaged_file_is_rebuilt(tiny_run, tmp_path):
    """A copy of the finished run is put back to what a run killed while training ListNet
    leaves: no model and none of the outputs after it (outputs are written atomically, so a
    killed job leaves none); and a Monte Carlo shard elsewhere is truncated while the summary
    that reads it has to run again (it used to fail on the damaged file). A run stopped
    after the training (--until train_model) and a second run finish the rest on one core:
    only the missing jobs and the damaged shard's run, and every output has the bytes of the
    2-core run."""
    wd = tmp_path / "resume"
    shutil.copytree(tiny_run, wd, symlinks=True)
    res = wd / "results" / NAME
    gone = _downstream_outputs(wd, f"results/{NAME}/fold2/models/listnet.skops")
    assert any("lists_fig1" in f for f in gone)
    for f in gone:
        (wd / f).unlink(missing_ok=True)
    shard = res / "fold2" / "sawade2012" / "fig1_rf" / "shard0.npz"
    shard.write_bytes(shard.read_bytes()[:1000])
    (res / "sawade2012" / "savings.csv").unlink()  # so that the summary, which reads the shard, runs again
    cut = shard.read_bytes()
    plan = snakemake(wd, "-n", "--cores", "1")  # a dry run names the damaged shard and changes nothing
    assert shard.read_bytes() == cut and "shard0.npz is damaged" in plan.stdout + plan.stderr
    first = snakemake(wd, "--cores", "1", "--until", "train_model")
    assert jobs_run(first) == {"train_model": 1}, jobs_run(first)
    assert "shard0.npz is damaged" in first.stdout + first.stderr and not shard.exists()
    second = snakemake(wd, "--cores", "1")
    # the findings page reads the tables active_summary rewrote
    assert jobs_run(second) == {"theory_lists": 1, "active_mc": 1, "active_summary": 1, "findings": 1}, jobs_run(second)
    assert digests(wd) == digests(tiny_run)
    assert "Nothing to be done" in (lambda o: o.stdout + o.stderr)(snakemake(wd, "--cores", "1", "-n"))
