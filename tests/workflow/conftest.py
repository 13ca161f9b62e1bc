"""The tiny config's DAG, run once per session (shared by the per-stage checks, the resume
test, the report and the Slurm comparison)."""

from __future__ import annotations

import pytest
from dagrun import snakemake


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory):
    """The whole DAG on the tiny config, 2 cores (jobs run concurrently, with their declared threads)."""
    pytest.importorskip("snakemake")
    wd = tmp_path_factory.mktemp("dag_tiny")
    snakemake(wd, "--cores", "2")
    return wd
