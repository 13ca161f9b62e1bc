"""Snakemake's HTML report renders on a copy of the session's tiny run (conftest.tiny_run); a
module of its own so that it runs on another test worker than test_dag_rerun.py."""

from __future__ import annotations

import shutil

import pytest
from dagrun import snakemake

pytest.importorskip("snakemake")

pytestmark = pytest.mark.slow


def test_report_renders(tiny_run, tmp_path):
    wd = tmp_path / "report"
    shutil.copytree(tiny_run, wd, symlinks=True)
    report = wd / "report.html"
    snakemake(wd, "--cores", "1", "--report", str(report))
    assert report.stat().st_size > 10_000
