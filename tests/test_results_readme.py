"""results/README.md explains how each study is set up and says so: it states no measured number
(the numbers are the findings page's, read from the run's tables, and benchmarks/RESULTS.md's), so
none can drift from the outputs (issue 51 item 5)."""

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "results" / "README.md"


def test_results_readme_states_no_measured_number():
    text = README.read_text(encoding="utf-8")
    assert "states no measured number" in text
    # no table of numbers, no decimal number, no percentage but the nominal 95 % of an interval
    assert not [ln for ln in text.splitlines() if ln.startswith("|") and re.search(r"\d", ln)]
    assert not re.findall(r"(?<![\w.])\d+\.\d+", text.replace("eq. ", "eq "))
    assert set(re.findall(r"\d+ ?%", text)) <= {"95 %"}


def test_readme_shows_the_verdict_counts_of_the_findings_page():
    """README.md's 'Reproduce the papers' shows the head of results/synthetic/findings.md: its
    verdict table is the page's (checked where a make run has written the page)."""
    import pytest

    page = README.parents[0] / "synthetic" / "findings.md"
    if not page.is_file():
        pytest.skip("no results/synthetic/findings.md: make run has not run here")
    rows = [ln for ln in page.read_text(encoding="utf-8").splitlines()[:11] if ln.startswith("| ")]
    front = (README.parents[1] / "README.md").read_text(encoding="utf-8")
    assert rows and all(r in front.splitlines() for r in rows), rows
