"""The findings page's framework (evalrank.papers.common.findings): sections, verdict counts, not-tested
papers, rendering; the papers' own claims are tested in test_<paper>.py."""

import importlib

import pytest

from evalrank.papers.common import findings
from evalrank.papers.common.findings import Finding, Outputs, collect, fmt, pct, render_html, render_markdown, verdict_within


def test_every_paper_module_has_the_interface():
    for name in findings.PAPERS:
        m = importlib.import_module(name)
        assert isinstance(m.TITLE, str) and m.TITLE
        assert m.REQUIRES and all(isinstance(r, str) and not r.startswith("/") for r in m.REQUIRES)
        assert callable(m.findings)


def test_empty_results_dir_makes_every_paper_not_tested(tmp_path):
    sections = collect(tmp_path)
    assert [t for t, _ in sections] == [importlib.import_module(n).TITLE for n in findings.PAPERS]
    for _, items in sections:
        assert [f.verdict for f in items] == ["not tested"]
        assert "not part of this config" in items[0].reason
    md = render_markdown(sections, name="x", seed=7)
    assert md.startswith("# Findings: `x` (seed 7)")
    # the summary table counts one 'not tested' per paper
    rows = [line for line in md.splitlines() if line.startswith("| ") and "reproduced |" not in line]
    assert len(rows) == len(findings.PAPERS) and all(r.endswith("| 0 | 0 | 0 | 1 |") for r in rows)


def test_render_counts_verdicts_and_escapes_html():
    items = [Finding("a <b> claim", "1", "reproduced", "r", "t.csv"),
             Finding("c", "2", "partly", "`code` **bold**"),
             Finding("d", "3", "not reproduced", "r")]
    md = render_markdown([("P", items)], name="n", seed=1)
    assert "| P | 1 | 1 | 1 | 0 |" in md and "(`t.csv`)" in md
    h = render_html([("P", items)], name="n", seed=1)
    assert "a &lt;b&gt; claim" in h and "<code>code</code> <b>bold</b>" in h
    assert "<td>1</td><td>1</td><td>1</td><td>0</td>" in h


def test_finding_rejects_an_unknown_verdict():
    with pytest.raises(ValueError, match="verdict"):
        Finding("c", "1", "maybe", "r")


def test_outputs_names_a_missing_file(tmp_path):
    out = Outputs(tmp_path)
    assert not out.has("a.csv")
    with pytest.raises(FileNotFoundError, match="a.csv"):
        out.csv("a.csv")
    (tmp_path / "a.csv").write_text("x,y\n1,2\n")
    assert out.csv("a.csv")["y"].tolist() == [2]


def test_formatting_helpers():
    assert fmt(0.123456) == "0.123" and fmt(18807.0) == "18,807" and fmt(float("nan")) == "n/a"
    assert fmt(-0.5) == "−0.5" and pct(0.0545, 2) == "5.45 %"


@pytest.mark.parametrize("ours,verdict", [(0.105, "reproduced"), (0.125, "partly"), (0.2, "not reproduced"),
                                          (float("nan"), "not tested")])
def test_verdict_within(ours, verdict):
    assert verdict_within(ours, 0.1, abs_=0.01) == verdict


def test_not_tested_is_the_one_way_to_say_it():
    f = Finding.not_tested("c", "no such table in this config", ("a.csv", "b.csv"))
    assert (f.claim, f.ours, f.verdict, f.reason, f.source) == ("c", "—", "not tested", "no such table in this config",
                                                                 "a.csv, b.csv")
    assert Finding.not_tested("c", "r", "a.csv").source == "a.csv" and Finding.not_tested("c", "r").source == ""


def test_no_paper_builds_a_not_tested_finding_by_hand():
    """Every "—" / "not tested" finding goes through Finding.not_tested (papers/*/findings.py)."""
    import inspect
    import re

    for name in findings.PAPERS:
        src = inspect.getsource(importlib.import_module(name))
        assert not re.search(r"Finding\(\s*[^()]*?,\s*\"—\",\s*\"not tested\"", src), name
        assert not re.search(r"ours=\"—\",\s*verdict=\"not tested\"", src), name


def test_the_page_speaks_without_the_projects_issue_numbers():
    """findings.md is read by users: no "issue 27" or "(before)" in any text a paper's findings modules
    put on the page (string literals, docstrings and comments aside), nor in the page's header."""
    import ast
    import re
    from pathlib import Path

    papers = Path(findings.__file__).resolve().parents[1]
    bad = re.compile(r"\b[Ii]ssue \d+|\(before\)|the tool before")
    assert not bad.search(findings.HEADER)
    hits = []
    for path in sorted(papers.glob("*/*.py")):
        if not (path.name.startswith(("findings", "claims", "rules", "power")) or path.name == "plots.py"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = {id(n.body[0].value) for n in ast.walk(tree)
                if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef)) and n.body
                and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
        for n in ast.walk(tree):
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs and bad.search(n.value):
                hits.append(f"{path.relative_to(papers)}:{n.lineno}: {n.value[:60]}")
    assert not hits, hits
