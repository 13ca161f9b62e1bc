"""The tiny config's DAG, run once per test session and shared by the test workers: the
per-stage checks (test_dag.py), the resume test (test_dag_rerun.py) and the report
(test_dag_report.py) run in different xdist workers, so the run lives in the directory all
workers share and the first worker to need it runs it under a file lock while the others wait."""

from __future__ import annotations

import fcntl

import pytest
from dagrun import snakemake


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory, worker_id):
    """The whole DAG on the tiny config, 2 cores (jobs run concurrently, with their declared threads)."""
    pytest.importorskip("snakemake")
    root = tmp_path_factory.getbasetemp()
    if worker_id != "master":
        root = root.parent  # .../pytest-N/popen-gwK -> .../pytest-N, the same for every worker
    wd, done = root / "dag_tiny", root / "dag_tiny.done"
    with open(root / "dag_tiny.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not done.exists():
            snakemake(wd, "--cores", "2")  # a failed run leaves no marker: the next worker resumes it
            done.touch()
    return wd
