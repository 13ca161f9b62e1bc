"""Test-only: tests/dagrun.py puts this folder on the PYTHONPATH of the workflow tests' snakemake
runs, so that their jobs compile numba kernels under the test session's lock (tests/numba_lock.py)
and load what another process compiled instead of compiling it again. Does nothing outside a
test session (no ``$EVALRANK_TEST_NUMBA_LOCK``)."""

import os
import sys

if os.environ.get("EVALRANK_TEST_NUMBA_LOCK"):
    _tests = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.path.insert(0, _tests)
    try:
        import numba_lock

        numba_lock.install()
    finally:
        sys.path.remove(_tests)
