"""Snakemake's HTML report renders on a copy of the session's tiny run (conftest.tiny_run); a
module of its own so that it runs on another test worker than test_dag_rerun.py.

What a reader must find in it (issue 19): every stage's result tables (the tables the findings
rule reads: every .csv of stage_outputs()), every figure, each with a caption of its own that
renders cleanly (no docutils error, no NDCG@k turned into a mailto link), and the findings page."""

from __future__ import annotations

import base64
import json
import re
import shutil
from pathlib import Path

import pytest
from dagrun import snakemake

pytest.importorskip("snakemake")

pytestmark = pytest.mark.slow


def report_parts(html: str) -> tuple[dict, dict]:
    """The report's results (path -> name, caption, mime type ...) and categories (category ->
    subcategory -> paths), as the page's scripts hold them."""

    def script(name):
        m = re.search(rf'<script id="{name}">\s*var {name} = (\{{.*?\}});\s*</script>', html, re.S)
        assert m, f"no {name} in the report"
        return json.loads(m.group(1))

    return script("results"), script("categories")


def findings_inputs(wd: Path, name: str) -> list[str]:
    """The tables the findings rule read (Snakemake's record of the job's input)."""
    target = f"results/{name}/findings.md"
    meta = wd / ".snakemake" / "metadata" / base64.urlsafe_b64encode(target.encode()).decode()
    return json.loads(meta.read_text())["input"]


def figure_kind(path: str) -> str:
    """Figures that differ only in the measure (active fig1_err / fig1_dcg) or the model
    (quality/reliability/<model>.png) share a caption; every other figure has its own."""
    p = Path(path)
    if p.parent.name == "reliability":
        return str(p.parent)
    return str(p.parent / re.sub(r"_(err|dcg)$", "", p.stem))


def check_report(report: Path, wd: Path, name: str) -> None:
    results, categories = report_parts(report.read_text(encoding="utf-8"))
    tables = [f for f in findings_inputs(wd, name) if f.endswith(".csv")]  # not risk's population.npz
    figures = sorted(str(p.relative_to(wd)) for p in (wd / "results" / name).rglob("*.png")
                     if not {"logs", "benchmarks"} & set(p.relative_to(wd).parts))
    assert tables and figures
    missing = [f for f in tables + figures + [f"results/{name}/findings.html"] if f not in results]
    assert not missing, f"not in the report: {missing}"
    for path, res in results.items():
        caption = res["caption"]
        assert len(re.sub(r"<[^>]+>", "", caption).strip()) > 40, f"{path}: no caption"
        assert "system-message" not in caption and "mailto:" not in caption, f"{path}: caption renders badly"
    for t in tables:
        assert results[t]["mime_type"] == "text/csv"
    # one caption per figure: each kind of figure has one caption, which no other kind shares
    kinds_of = {}
    for f in figures:
        kinds_of.setdefault(results[f]["caption"], set()).add(figure_kind(f))
    shared = sorted(sorted(k) for k in kinds_of.values() if len(k) > 1)
    assert not shared, f"figures sharing a caption: {shared}"
    assert len(kinds_of) == len({figure_kind(f) for f in figures}), "a kind of figure with several captions"
    assert categories["Findings"], "no Findings category"
    assert any(f"results/{name}/findings.html" in paths for paths in categories["Findings"].values())


def test_report_renders(tiny_run, tmp_path):
    wd = tmp_path / "report"
    shutil.copytree(tiny_run, wd, symlinks=True)
    report = wd / "report.html"
    snakemake(wd, "--cores", "1", "--report", str(report))
    assert report.stat().st_size > 10_000
    check_report(report, wd, "tiny")
    text = report.read_text(encoding="utf-8")
    assert "report-mq2008_synthetic.html" in text  # the workflow page links the other config's report
