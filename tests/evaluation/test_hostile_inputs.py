"""``evalrank evaluate`` (and ``risk``, which reads runs with the same reader) under hostile input:
files and flags a careless or hostile user gives (issue 49). Each refusal is one line on stderr
naming the file:line or the option, exit status 1 (2: argparse), no traceback; each acceptance
prints what trec_eval 9.0.8 prints, no warning on stderr.

``CASES`` (refusals) and ``ACCEPTED`` are counted by the closing note of issue 49; the tests
after them check what a table cannot say (outputs, the input left as it was).
"""

from __future__ import annotations

import gzip
import io
import os
import sys

import pytest
from cli_run import evalrank

QRELS = b"1 0 d1 1\n1 0 d2 0\n1 0 d3 2\n2 0 a 1\n2 0 b 0\n"
RUN = b"1 Q0 d1 1 0.9 t\n1 Q0 d2 2 0.8 t\n1 Q0 d3 3 0.7 t\n2 Q0 a 1 0.5 t\n2 Q0 b 2 0.6 t\n"


def _one_line_error(r, *parts, rc=1):
    assert r.returncode == rc, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr and "EVALRANK_DEBUG" not in r.stderr, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 or rc == 2, r.stderr          # argparse prints its usage first
    for p in parts:
        assert p in lines[-1], (p, r.stderr)


@pytest.fixture
def d(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "q").write_bytes(QRELS)
    (tmp_path / "r").write_bytes(RUN)
    return tmp_path


#: (what, files {name: bytes} written over q / r or added, argv after 'evaluate', words of the message)
CASES = [
    # NUL bytes: trec_eval crashes; evalrank gave wrong numbers (issue 49)
    ("NUL in a run's document id", {"r": RUN.replace(b"d2 2", b"d\x002 2")}, ["-q", "-m", "map", "q", "r"],
     ["r:2: a NUL byte"]),
    ("NUL in a qrels document id", {"q": QRELS.replace(b"d3 2", b"d\x003 2")}, ["-m", "map", "q", "r"],
     ["q:3: a NUL byte"]),
    ("NUL as a run's first byte", {"r": b"\x00" + RUN}, ["-q", "-m", "map", "q", "r"], ["r:1: a NUL byte"]),
    ("NUL in a query id", {"r": RUN.replace(b"2 Q0 a", b"2\x00 Q0 a")}, ["-m", "map", "q", "r"],
     ["r:4: a NUL byte"]),
    ("UTF-16 run", {"r": "\ufeff1 Q0 d1 1 0.9 t\n".encode("utf-16-le")}, ["q", "r"], ["r:1: a NUL byte", "UTF-16"]),
    ("gzip holding a NUL", {"r": gzip.compress(RUN + b"2 Q0 c\x00 3 0.1 t\n")}, ["q", "r"], ["r:6: a NUL byte"]),
    # blank qrels lines: trec_eval 'Malformed line N'
    ("blank qrels line", {"q": QRELS.replace(b"\n", b"\n\n", 1)}, ["q", "r"], ["q:2: a blank line in qrels"]),
    ("blanks alone ending qrels", {"q": QRELS + b"  \t"}, ["q", "r"], ["q:6: a blank line in qrels"]),
    # binary files
    ("an executable as the run", {"r": b"\x7fELF\x02\x01\x01\x03\r\n\x01\x02"}, ["q", "r"],
     ["r:1: control byte 0x7f: not a text file"]),
    ("control bytes and a lone CR", {"r": b"1 Q0 d1 1 0.9 t\x01\r1 Q0 d2 2 0.8 t\n"}, ["q", "r"],
     ["r:1: control byte 0x01"]),
    # duplicates: the repeat's line, and the first's
    ("run document twice, the repeat ranks first", {"r": RUN + b"1 Q0 d2 9 5.0 t\n"}, ["q", "r"],
     ["r:6: document 'd2' retrieved twice", "first on line 2"]),
    ("qrels document twice", {"q": QRELS + b"2 0 a 2\n"}, ["q", "r"], ["q:6: document 'a' judged twice",
                                                                       "first on line 4"]),
    # flags
    ("-M -1", {}, ["-M", "-1", "q", "r"], ["-M -1: must be 0 or more"]),
    ("-N -1", {}, ["-N", "-1", "q", "r"], ["-N -1: "]),
    ("--convention bogus, trec_eval measures only", {}, ["--convention", "bogus", "-m", "map", "q", "r"],
     ["--convention 'bogus': not a convention"]),
    ("-o ''", {}, ["-o", "", "q", "r"], ["-o '': an empty file name"]),
    ("-o the run", {}, ["-o", "./r", "q", "r"], ["-o ./r: that is the input r"]),
    ("-o the qrels", {}, ["-o", "q", "-m", "map", "q", "r"], ["-o q: that is the input q"]),
    ("'-' twice", {}, ["-", "-"], ["'-' (standard input) is given more than once"]),
    ("err(max_grade=1e400)", {}, ["-m", "err(max_grade=1e400)@20", "q", "r"], ["max_grade must be an integer"]),
    ("err(max_grade=3.5)", {}, ["-m", "err(max_grade=3.5)@20", "q", "r"], ["max_grade must be an integer"]),
    ("err(max_grade=5000)", {}, ["-m", "err(max_grade=5000)@20", "q", "r"], ["from 1 to 1023"]),
    ("5,000 nested parentheses", {}, ["-m=P(rel=" + "(" * 5000 + "1)@10", "q", "r"], ["not ir_measures' syntax"]),
    ("5,000 signs in a parameter", {}, ["-m=P(rel=" + "-" * 5000 + "1)@10", "q", "r"], ["measure 'P(rel=---"]),
    ("100,000 signs in a cut-off", {}, ["-m=P@" + "-" * 100000 + "1", "q", "r"], ["measure 'P@---"]),
    ("5,000 signs before a name", {}, ["-m=" + "-" * 5000 + "map", "q", "r"], ["measure '---"]),
    ("an empty measure", {}, ["-m", "", "q", "r"], ["an empty name"]),
    ("a cut-off beyond a long", {}, ["-m", "P.99999999999999999999", "q", "r"], ["is too large"]),
    ("an unknown measure", {}, ["-m", "mapp", "q", "r"], ["mapp"]),
    # files
    ("a directory as the run", {}, ["q", "."], [". is a directory"]),
    ("a missing run", {}, ["q", "nothere"], ["nothere does not exist"]),
    ("an empty run", {"r": b""}, ["q", "r"], ["r: no run lines"]),
    ("a run of comments and blanks", {"r": b"# x\n\n  \n"}, ["q", "r"], ["r: no run lines"]),
    ("a damaged gzip", {"r": gzip.compress(RUN)[:-12]}, ["q", "r"], ["damaged gzip"]),
    ("a qrels line of five fields", {"q": QRELS + b"2 0 c 1 x\n"}, ["q", "r"], ["q:6: a qrels line has 4 fields"]),
    ("a relevance of 19 digits", {"q": QRELS + b"2 0 c 1234567890123456789\n"}, ["q", "r"],
     ["q:6: relevance '1234567890123456789' is not an integer"]),
    ("a score 'nan'", {"r": RUN + b"2 Q0 c 3 nan t\n"}, ["q", "r"], ["r:6: score 'nan' is not finite"]),
    ("a score 1e400", {"r": RUN + b"2 Q0 c 3 1e400 t\n"}, ["q", "r"], ["r:6: score '1e400' is not finite"]),
    ("a score '0,5'", {"r": RUN + b"2 Q0 c 3 0,5 t\n"}, ["q", "r"], ["r:6: score '0,5' is not a number"]),
    ("old-Mac line ends", {"r": RUN.replace(b"\n", b"\r")}, ["q", "r"], ["r:1: a carriage return (CR)"]),
    ("no topic in common", {"r": b"9 Q0 d1 1 0.9 t\n"}, ["q", "r"], ["no topic of the run has qrels"]),
    ("the same run twice", {}, ["q", "r", "r"], ["run names (file names) must be unique"]),
    ("-R prefs", {}, ["-R", "prefs", "q", "r"], ["-R prefs: trec_eval's preference formats"]),
    ("-Z", {}, ["-Z", "z", "q", "r"], ["-Z: trec_eval's z-scores"]),
    ("-o a directory", {}, ["-o", ".", "q", "r"], ["-o"]),
]

#: argparse's refusals (exit status 2): the option named
ARGPARSE = [
    ("-M abc", ["-M", "abc", "q", "r"], ["-M"]),
    ("-l 1.5", ["-l", "1.5", "q", "r"], ["-l"]),
    ("-m without a value", ["q", "r", "-m"], ["-m"]),
    ("no run", ["q"], ["RUN"]),
]


@pytest.mark.parametrize("what, files, argv, words", CASES, ids=[c[0] for c in CASES])
def test_refused_in_one_line(d, what, files, argv, words):
    for name, data in files.items():
        (d / name).write_bytes(data)
    _one_line_error(evalrank("evaluate", *argv), *words)


@pytest.mark.parametrize("what, argv, words", ARGPARSE, ids=[c[0] for c in ARGPARSE])
def test_argparse_refusals_name_the_option(d, what, argv, words):
    _one_line_error(evalrank("evaluate", *argv), *words, rc=2)


def _stdin(monkeypatch, data: bytes):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(io.BytesIO(data))))


#: (what, argv, stdin bytes or None): accepted, printing what the plain files print
ACCEPTED = [
    ("the run on standard input", ["-q", "q", "-"], RUN),
    ("the qrels on standard input", ["-q", "-", "r"], QRELS),
    ("a gzipped run on standard input", ["-q", "q", "-"], gzip.compress(RUN)),
    ("-M beyond a C long (trec_eval's atol saturates)", ["-q", "-M", "99999999999999999999", "q", "r"], None),
    ("-l beyond a C long", ["-q", "-l", "99999999999999999999", "-m", "num_rel", "q", "r"], None),
    ("blank lines in the run (trec_eval skips them)", ["-q", "q", "r"], None),
]


@pytest.mark.parametrize("what, argv, data", ACCEPTED, ids=[c[0] for c in ACCEPTED])
def test_accepted_as_trec_eval_reads_them(d, monkeypatch, what, argv, data):
    want = evalrank("evaluate", "-q", "q", "r")   # the plain files, as they are given
    if data is not None:
        _stdin(monkeypatch, data)
    if what.startswith("blank"):
        (d / "r").write_bytes(b"\n" + RUN.replace(b"\n", b"\n \n"))
    got = evalrank("evaluate", *argv)
    assert got.returncode == 0 and got.stderr == "", got.stderr
    if what.startswith("-l"):
        assert got.stdout.splitlines()[-1].split() == ["num_rel", "all", "0"]   # nothing is that relevant
    else:
        assert got.stdout == want.stdout, (got.stdout, want.stdout)


def test_stdin_errors_say_stdin(d, monkeypatch):
    _stdin(monkeypatch, RUN + b"2 Q0 c 3 x t\n")
    _one_line_error(evalrank("evaluate", "q", "-"), "<stdin>:6: score 'x' is not a number")


def test_minus_M_0_keeps_no_document(d):
    """trec_eval -M 0: every topic evaluated with no document, num_ret 0 (golden: *-M0)."""
    out = evalrank("evaluate", "-q", "-M", "0", "-m", "num_ret", "-m", "map", "-m", "num_rel", "q", "r")
    assert out.returncode == 0, out.stderr
    assert [line.split() for line in out.stdout.splitlines()] == [
        ["num_ret", "1", "0"], ["num_rel", "1", "2"], ["map", "1", "0.0000"],
        ["num_ret", "2", "0"], ["num_rel", "2", "1"], ["map", "2", "0.0000"],
        ["num_ret", "all", "0"], ["num_rel", "all", "3"], ["map", "all", "0.0000"]]


def test_minus_l_minus_1_counts_num_rel_ret_as_trec_eval(d):
    """-l -1: unjudged retrieved documents count in map & co. but not in num_rel_ret (trec_eval
    9.0.8 prints 3 here, evalrank printed 5)."""
    (d / "r").write_bytes(RUN + b"1 Q0 u1 4 0.1 t\n2 Q0 u2 3 0.1 t\n")
    out = evalrank("evaluate", "-l", "-1", "-m", "num_rel_ret", "-m", "num_rel", "-m", "num_ret", "q", "r")
    assert out.returncode == 0, out.stderr
    assert [line.split()[2] for line in out.stdout.splitlines()] == ["7", "5", "5"]


def test_scores_beyond_float32_rank_as_infinity_without_a_warning(d):
    """3.5e38 and 1e39 are +inf as trec_eval's float holds them: tied, broken by document id;
    no NumPy 'overflow encountered in cast' on stderr (interpreted kernels)."""
    import warnings

    (d / "r").write_bytes(b"1 Q0 d1 1 3.5e38 t\n1 Q0 d2 2 1e39 t\n1 Q0 d3 3 -1e39 t\n2 Q0 a 1 0.5 t\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # a warning would be printed on stderr by the command
        out = evalrank("evaluate", "-q", "-m", "map", "-m", "ndcg@10", "-m", "relstring", "q", "r")
    assert out.returncode == 0 and out.stderr == "", out.stderr
    assert "relstring             \t1\t'012'" in out.stdout   # d2 before d1 (docid descending), d3 last


def test_minus_o_refused_leaves_the_input_as_it_was(d):
    os.link(d / "r", d / "hard")
    _one_line_error(evalrank("evaluate", "-o", "hard", "q", "r"), "-o hard: that is the input r")
    assert (d / "r").read_bytes() == RUN and (d / "hard").read_bytes() == RUN


def test_help_says_what_minus_o_does_to_a_hard_link():
    out = evalrank("evaluate", "--help").stdout
    assert "hard link" in " ".join(out.split())


def test_risk_refuses_a_nul_byte_in_a_run(tmp_path):
    """``risk`` reads the runs with the same reader: the same refusal, naming the file and line."""
    runs = tmp_path / "runs"
    runs.mkdir()
    (tmp_path / "q").write_bytes(QRELS)
    (runs / "sysA").write_bytes(RUN)
    (runs / "sysB").write_bytes(RUN.replace(b"d1 1", b"d\x001 1"))
    r = evalrank("risk", tmp_path / "q", runs, "--baseline", "sysA")
    _one_line_error(r, "sysB:1: a NUL byte")
