"""config/mslr_excerpt.yaml end to end (issue 30): the real MSLR-WEB30K Fold1 excerpt of rankeval
0.8.2's sdist, fetched with pip, checksummed, extracted and dealt into S1..S5, then the model zoo,
the active stage and the findings (with tests/workflow/mslr_excerpt_small.yaml's small grids and
Monte Carlo sizes). Skipped where no package index answers (no network)."""

from __future__ import annotations

import subprocess
import sys

import pandas as pd
import pytest
from dagrun import REPO, jobs_run, snakemake

from evalrank.data.collection import Collection
from evalrank.data.datasets import get_spec
from evalrank.data.download import sha256_file

pytestmark = pytest.mark.slow

#: the overlay that keeps the test's CPU small (one grid point a model, 40 Monte Carlo runs)
SMALL = REPO / "tests" / "workflow" / "mslr_excerpt_small.yaml"


def _index_answers() -> str | None:
    """None if pip's package index lists rankeval 0.8.2, else why not (the skip reason)."""
    cmd = [sys.executable, "-m", "pip", "index", "versions", "rankeval", "--disable-pip-version-check"]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return "no package index answered `pip index versions rankeval` within 60 s"
    if out.returncode != 0 or "0.8.2" not in out.stdout:
        last = (out.stdout + out.stderr).strip().splitlines()[-1:] or ["no output"]
        return f"no package index lists rankeval 0.8.2 (pip index versions: {last[0]})"
    return None


def test_mslr_excerpt_runs_end_to_end(tmp_path):
    reason = _index_answers()
    if reason:
        pytest.skip(reason)
    # the config's data and stages, with the tiny config's grids and Monte Carlo sizes (SMALL)
    out = snakemake(tmp_path, "--cores", "2", configs=(REPO / "config" / "mslr_excerpt.yaml", SMALL), timeout=1500)
    jobs = jobs_run(out)
    assert jobs["download"] == 1 and jobs["derive_partitions"] == 1 and "parse_partition" not in jobs
    spec = get_spec("mslr-excerpt")
    data = tmp_path / "data" / "mslr-excerpt"
    assert sha256_file(data / spec.archive) == spec.sha256
    res = tmp_path / "results" / "mslr-excerpt"
    parts = [Collection.load(res / "data" / f"S{k}.npz") for k in range(1, 6)]
    assert sum(p.n_queries for p in parts) == 86 and sum(p.n_docs for p in parts) == 10_000
    assert all(p.n_features == 136 for p in parts) and max(int(p.labels.max()) for p in parts) == 4
    quality = pd.read_csv(res / "fold1" / "quality" / "quality.csv")
    assert set(quality["model"]) >= {"rf", "ordinal_rf", "ordered_logit", "ranksvm", "lambdamart"}
    assert (res / "sawade2012" / "savings.csv").is_file() and (res / "findings.md").is_file()
