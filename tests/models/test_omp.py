"""OMP_WAIT_POLICY=PASSIVE in every process that runs LightGBM (evalrank.models._omp): set by
``python -m evalrank`` and by importing the model modules before LightGBM is loaded, a
user's own value kept. GNU OpenMP shows what it read (``OMP_DISPLAY_ENV=VERBOSE``): its
spin count is 0 under the passive policy, 300,000 by default."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest


def run(code: str, **env) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    environ.update(env)
    return subprocess.run([sys.executable, "-c", code], env=environ, capture_output=True, text=True, timeout=120,
                          check=True)


LIBRARY = """
import os, sys
import evalrank.models.zoo  # every learner, LightGBM's included, not imported yet
assert "lightgbm" not in sys.modules
print(os.environ.get("OMP_WAIT_POLICY"))
import lightgbm
"""

MAIN = """
import os, runpy, sys
sys.argv = ["evalrank", "--help"]
try:
    runpy.run_module("evalrank", run_name="__main__")
except SystemExit:
    pass
print(os.environ.get("OMP_WAIT_POLICY"))
"""


def spin_counts(stderr: str) -> set[str]:
    """GNU OpenMP's spin counts as it printed them (none: another OpenMP runtime)."""
    return {line.split("=")[1].strip().strip("'") for line in stderr.splitlines() if "GOMP_SPINCOUNT" in line}


def test_library_import_sets_passive_before_lightgbm():
    pytest.importorskip("lightgbm")
    out = run(LIBRARY, OMP_DISPLAY_ENV="VERBOSE")
    assert out.stdout.split()[-1] == "PASSIVE"
    spins = spin_counts(out.stderr)
    assert spins in (set(), {"0"}), out.stderr  # libgomp read it: no busy-waiting


def test_user_value_kept():
    out = run(LIBRARY.replace("import lightgbm", ""), OMP_WAIT_POLICY="ACTIVE")
    assert out.stdout.split()[-1] == "ACTIVE"


def test_python_m_evalrank_sets_passive():
    out = run(MAIN)
    assert "usage" in out.stdout and out.stdout.split()[-1] == "PASSIVE"
    assert run(MAIN, OMP_WAIT_POLICY="active").stdout.split()[-1] == "active"


def test_lightgbm_alone_would_spin():
    """The check above can fail: without the variable libgomp spins (else this test file proves nothing)."""
    pytest.importorskip("lightgbm")
    spins = spin_counts(run("import lightgbm", OMP_DISPLAY_ENV="VERBOSE").stderr)
    if not spins:
        pytest.skip("LightGBM's OpenMP is not GNU OpenMP (no GOMP_SPINCOUNT shown)")
    assert spins != {"0"}
