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
