"""The command line's start-up (issue 28, item 4): ``evalrank evaluate`` and ``compare`` build
only their own module's parsers (evalrank.cli.FAST), which must be the whole parser's. That a
small ``evaluate`` imports no numba, scipy or pandas is tests/test_jit.py's."""

from __future__ import annotations

import argparse
import contextlib
import io

import pytest

from evalrank.cli import FAST, build_parser, main


def _commands(parser) -> dict:
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices


@pytest.mark.parametrize("command", sorted(FAST))
def test_a_fast_command_is_the_whole_parsers_command(command):
    whole = _commands(build_parser())[command]
    fast = _commands(build_parser(command))[command]
    assert whole.get_default("func").__module__ == FAST[command]
    assert fast.format_help() == whole.format_help()
    assert fast.get_default("func") is whole.get_default("func")


@pytest.mark.parametrize("argv", [["evaluate", "--no-such-option", "q", "r"], ["evaluate"], ["compare", "q"]])
def test_a_fast_commands_errors_are_the_whole_parsers(argv):
    def stderr_of(parser):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), pytest.raises(SystemExit) as e:
            parser.parse_args(argv)
        return e.value.code, err.getvalue()

    fast, whole = stderr_of(build_parser(argv[0])), stderr_of(build_parser())
    assert fast == whole and fast[0] == 2 and "error:" in fast[1]


def test_main_takes_the_fast_path_only_for_fast_commands(monkeypatch):
    seen = []
    real = build_parser

    def spy(command=None):
        seen.append(command)
        return real(command)

    monkeypatch.setattr("evalrank.cli.build_parser", spy)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        for argv in (["evaluate", "--help"], ["--help"], ["validate-config", "--help"]):
            with pytest.raises(SystemExit):
                main(argv)
    assert seen == ["evaluate", "--help", "validate-config"]
