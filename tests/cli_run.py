"""``python -m evalrank ARGS`` inside the test process (evalrank.cli.main with stdout and stderr
captured): the same code path as the module without a Python start and imports per call.
tests/test_cli.py runs the real module."""

from __future__ import annotations

import contextlib
import io
from dataclasses import dataclass


@dataclass
class Ran:
    returncode: int
    stdout: str
    stderr: str


def evalrank(*args) -> Ran:
    from evalrank.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main([str(a) for a in args])
        except SystemExit as e:  # argparse
            rc = e.code
    return Ran(rc, out.getvalue(), err.getvalue())
