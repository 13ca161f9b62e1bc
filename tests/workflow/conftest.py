"""Runs of the DAG for the workflow tests: the tiny config once per session (shared by the
per-stage checks, the resume test, the report and the Slurm comparison)."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TINY = REPO / "tests" / "workflow" / "tiny.yaml"
MATRIX = REPO / "tests" / "workflow" / "matrix"


def snakemake(workdir: Path, *args: str, configs=(TINY,), check: bool = True, timeout: int = 900,
              env_extra: dict | None = None) -> subprocess.CompletedProcess:
    """``snakemake`` on the repository's Snakefile in ``workdir`` with the given config files."""
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "config").mkdir(exist_ok=True)
    shutil.copy(REPO / "config" / "config.yaml", workdir / "config" / "config.yaml")
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["EVALRANK_PROGRESS"] = "0"
    env.update(env_extra or {})
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"), "--directory", str(workdir),
           "--configfile", *map(str, configs), *args]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    if check and out.returncode != 0:
        raise AssertionError(f"snakemake failed ({out.returncode}):\n{out.stdout[-4000:]}\n{out.stderr[-8000:]}")
    return out


def digests(workdir: Path, name: str = "tiny", under: tuple[str, ...] = ("",)) -> dict[str, str]:
    """sha256 of every result file (below the given sub-folders) except logs, benchmarks
    and model pickles. Logs and benchmarks hold timings; a pickled model records its fit
    time and thread count, so models are compared through what they produce (the pool
    predictions, tuning tables and quality tables, all digested here)."""
    root = workdir / "results" / name
    out = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if (p.is_file() and not rel.startswith(("logs/", "benchmarks/")) and p.suffix != ".pkl"
                and rel.startswith(under)):
            out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def jobs_run(proc: subprocess.CompletedProcess) -> dict[str, int]:
    """The 'Job stats' table of a run: rule -> jobs."""
    text = proc.stdout + proc.stderr
    if "Job stats" not in text:
        return {}
    table = text.split("Job stats:")[1].split("total")[0]
    out = {}
    for line in table.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit():
            out[parts[0]] = int(parts[1])
    return out


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory):
    """The whole DAG on the tiny config, 2 cores (jobs run concurrently, with their declared threads)."""
    pytest.importorskip("snakemake")
    wd = tmp_path_factory.mktemp("dag_tiny")
    snakemake(wd, "--cores", "2")
    return wd
