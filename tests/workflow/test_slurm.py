"""The SLURM profile on a real Slurm: a one-node cluster from Debian's packages
(tests/workflow/slurm_cluster.sh, as root; the packages are installed if missing), first
without an accounting database (sacct answers "accounting storage is disabled"), then with
one (MariaDB + slurmdbd). Each time the tiny config's data and model stages go through
workflow/profiles/slurm with nothing on the command line but the configs and the partition,
and every output has the bytes of the local run (tests/workflow/conftest.py::tiny_run).

Skipped where no cluster can be started: not root, or the packages can neither be found nor
installed (no apt, no registry)."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from conftest import REPO, TINY, digests, jobs_run, snakemake

pytestmark = [pytest.mark.slow, pytest.mark.slurm]

SCRIPT = REPO / "tests" / "workflow" / "slurm_cluster.sh"
STAGES = REPO / "tests" / "workflow" / "slurm_stages.yaml"
PROFILE = REPO / "workflow" / "profiles" / "slurm"


def _start(*flags) -> None:
    if os.geteuid() != 0:
        pytest.skip("starting a Slurm cluster needs root")
    if not shutil.which("apt-get") and not shutil.which("slurmctld"):
        pytest.skip("no Slurm packages and no apt-get to install them")
    out = subprocess.run([str(SCRIPT), "start", "--install", *flags], capture_output=True, text=True, timeout=900)
    if out.returncode != 0:
        if "installing" in out.stderr and not shutil.which("slurmctld"):
            pytest.skip(f"the Slurm packages could not be installed:\n{out.stderr[-2000:]}")
        raise AssertionError(f"the one-node Slurm did not start:\n{out.stdout}\n{out.stderr[-4000:]}")


@pytest.fixture
def slurm():
    yield _start
    subprocess.run([str(SCRIPT), "stop"], capture_output=True, text=True, timeout=120)


def _run_on_slurm(wd):
    out = snakemake(wd, "--profile", str(PROFILE), "--default-resources", "slurm_partition=debug",
                    configs=(TINY, STAGES), timeout=900)
    assert jobs_run(out)["train_model"] == 5
    return out


@pytest.mark.parametrize("accounting", [False, True], ids=["no-accounting-db", "slurmdbd"])
def test_data_and_model_stages_run_on_slurm(slurm, tiny_run, tmp_path, accounting):
    slurm(*(["--accounting"] if accounting else []))
    if accounting:
        assert subprocess.run(["sacct", "-n"], capture_output=True, text=True).returncode == 0
    else:
        assert "accounting storage is disabled" in subprocess.run(["sacct"], capture_output=True, text=True).stdout
    wd = tmp_path / "slurm"
    _run_on_slurm(wd)
    slurm_logs = list((wd / ".snakemake" / "slurm_logs").rglob("*.log"))
    assert len(slurm_logs) >= 20  # every job went through sbatch
    mine = digests(wd)
    local = digests(tiny_run, under=("data/", "fold2/train", "fold2/vali", "fold2/models/", "fold2/predictions/",
                                     "fold2/quality/"))
    local = {k: v for k, v in local.items() if not k.startswith("fold2/models/rf_n")  # Fig. 3's models: active stage
             and not k.startswith("fold2/predictions/rf_n") and not k.startswith("fold2/models/listnet")}
    assert mine == local
