"""The SLURM profile on a real Slurm: a one-node cluster from Debian's packages
(tests/workflow/slurm_cluster.sh, as root; the packages are installed if missing), first
without an accounting database (sacct answers "accounting storage is disabled"), then with
one (MariaDB + slurmdbd). The tiny config's data and model stages, and then its data stage,
go through workflow/profiles/slurm with nothing on the command line but the configs and the
partition; every job is an sbatch job and every output is written. (That jobs give the same
bytes wherever and on however many threads they run: test_dag.py.) The node offers 8 CPUs
so that the tiny jobs, which mostly wait on Python's start, run side by side.

Skipped where no cluster can be started: not root, or the packages can neither be found nor
installed (no apt, no registry)."""

from __future__ import annotations

import os
import shutil
import subprocess

import pandas as pd
import pytest
from dagrun import REPO, TINY, jobs_run, snakemake

pytestmark = [pytest.mark.slow, pytest.mark.slurm]

SCRIPT = REPO / "tests" / "workflow" / "slurm_cluster.sh"
STAGES = REPO / "tests" / "workflow" / "slurm_stages.yaml"
DATA_ONLY = REPO / "tests" / "workflow" / "data_stage.yaml"
PROFILE = REPO / "workflow" / "profiles" / "slurm"


def _start(*flags) -> None:
    if os.geteuid() != 0:
        pytest.skip("starting a Slurm cluster needs root")
    if not shutil.which("apt-get") and not shutil.which("slurmctld"):
        pytest.skip("no Slurm packages and no apt-get to install them")
    out = subprocess.run([str(SCRIPT), "start", "--install", "--cpus", "8", *flags], capture_output=True, text=True,
                         timeout=900)
    if out.returncode != 0:
        if "installing" in out.stderr and not shutil.which("slurmctld"):
            pytest.skip(f"the Slurm packages could not be installed:\n{out.stderr[-2000:]}")
        raise AssertionError(f"the one-node Slurm did not start:\n{out.stdout}\n{out.stderr[-4000:]}")


@pytest.fixture
def slurm():
    yield _start
    subprocess.run([str(SCRIPT), "stop"], capture_output=True, text=True, timeout=120)


def _submitted(out) -> int:
    return (out.stdout + out.stderr).count("has been submitted with SLURM jobid")


def test_data_and_model_stages_run_on_slurm_without_accounting(slurm, tmp_path):
    slurm()
    sacct = subprocess.run(["sacct"], capture_output=True, text=True)
    assert "accounting storage is disabled" in sacct.stdout + sacct.stderr  # the case that hung Snakemake
    wd = tmp_path / "slurm"
    out = snakemake(wd, "--profile", str(PROFILE), "--default-resources", "slurm_partition=debug",
                    configs=(TINY, STAGES), timeout=900)
    planned = jobs_run(out)
    assert planned["train_model"] == 2 and planned["predict_pool"] == 2  # slurm_stages.yaml's two models
    assert _submitted(out) == sum(planned.values())  # every job went through sbatch
    res = wd / "results" / "tiny"
    quality = pd.read_csv(res / "fold2" / "quality" / "quality.csv")
    assert set(quality["model"]) == {"rf", "ordered_logit", "random"}
    assert (res / "data" / "facts.json").exists() and (res / "data" / "dataset.png").stat().st_size > 5000


def test_the_profile_works_with_an_accounting_database(slurm, tmp_path):
    """With slurmdbd the profile works as well (sacct answers, the profile still asks squeue): the
    data stage's first two jobs, synthesize and parsing S1."""
    slurm("--accounting")
    assert subprocess.run(["sacct", "-n"], capture_output=True, text=True).returncode == 0
    wd = tmp_path / "slurm_acct"
    out = snakemake(wd, "results/tiny/data/S1.npz", "--profile", str(PROFILE), "--default-resources",
                    "slurm_partition=debug", configs=(TINY, STAGES, DATA_ONLY), timeout=900)
    assert jobs_run(out) == {"synthesize": 1, "parse_partition": 1}
    assert _submitted(out) == 2
    assert (wd / "results" / "tiny" / "data" / "S1.npz").stat().st_size > 1000
    ids = subprocess.run(["sacct", "-n", "-X", "-o", "State"], capture_output=True, text=True).stdout
    assert "COMPLETED" in ids  # the accounting database saw the jobs
