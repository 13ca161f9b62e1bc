"""``evalrank evaluate`` against trec_eval 9.0.8's own output, on every clone: the golden files
in ``golden/`` (written by ``golden/make_golden.py`` from trec_eval built at tag v9.0.8). No
binary is needed here and nothing skips.

Each case of ``golden/manifest.json`` names trec_eval's argv (flags, then the qrels and the run
by their names in ``golden/``), its standard output and its exit status. evalrank's CLI runs the
same argv in this process, in that folder:

* trec_eval exited 0: evalrank exits 0 and prints the same lines, byte for byte, restricted to
  the measure families evalrank knows (``trec_eval_binary.known_lines``; as families are added to
  ``evalrank.metrics.names.TREC_MEASURES`` the comparison covers them with no change here);
* trec_eval exited non-zero (a bad cut-off, an unknown measure, a measure its -R format cannot
  give): evalrank exits non-zero too, with a one-line message and no traceback.

``PENDING_FLAGS_CASES``: the cases whose argv evalrank's CLI may still refuse (a flag or a measure
name it does not take yet). Such a case passes while evalrank refuses it with a message (not
an unexpected error: "EVALRANK_DEBUG=1 shows the traceback"); as soon as evalrank takes its argv
it is compared like any other.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from trec_eval_binary import family, known_lines

from evalrank.cli import main

GOLDEN = Path(__file__).resolve().parent / "golden"
MANIFEST = json.loads((GOLDEN / "manifest.json").read_text())
CASES = {c["name"]: c for c in MANIFEST["cases"]}

#: Cases whose argv evalrank's CLI refuses although trec_eval runs them: each passes while
#: evalrank refuses it with a message, and is compared like every other case once evalrank takes
#: its argv. Only evalrank's deliberate differences stay here (README, "evaluate").
PENDING_FLAGS_CASES = {
    # -m P.5 -m P.10: trec_eval keeps the first (prints P_5 only, silently); evalrank refuses a
    # measure given twice with different parameters on purpose (metrics.names.parse_measures)
    "a-P.5-then-P.10-q",
}


def golden_output(case) -> str:
    return gzip.decompress((GOLDEN / case["output"]).read_bytes()).decode()


def run_evalrank(argv, capsys, monkeypatch) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of ``evalrank evaluate ARGV``, in the golden folder."""
    monkeypatch.chdir(GOLDEN)
    try:
        rc = main(["evaluate", *argv])
    except SystemExit as e:        # argparse: an option evalrank does not have
        rc = e.code
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.mark.parametrize("name", list(CASES))
def test_evalrank_prints_what_trec_eval_printed(name, capsys, monkeypatch):
    case = CASES[name]
    argv = " ".join(case["argv"])
    rc, out, err = run_evalrank(case["argv"], capsys, monkeypatch)
    assert "Traceback" not in err, err
    if rc != 0 and name in PENDING_FLAGS_CASES and "EVALRANK_DEBUG" not in err:
        return                     # evalrank does not take this argv yet (and says so: no crash)
    if case["exit_status"] == 0:
        assert rc == 0, f"trec_eval {argv} exits 0; evalrank: {err}"
    else:
        assert rc != 0, f"trec_eval {argv} exits {case['exit_status']} ({case['stderr'].strip()}); evalrank 0"
        assert len(err.splitlines()) == 1, err
    want, got = known_lines(golden_output(case)), known_lines(out)
    if got != want:                # the first difference, readable
        i = next((i for i, (g, w) in enumerate(zip(got, want)) if g != w), min(len(got), len(want)))
        pytest.fail(f"trec_eval {argv}: known line {i + 1} of {len(want)}: trec_eval {want[i:i + 1]!r}, "
                    f"evalrank {got[i:i + 1]!r}")
    if case["exit_status"] == 0:
        assert want, f"trec_eval {argv}: no line of a family evalrank knows: the case compares nothing"


def test_every_golden_family_is_known():
    """Every measure family trec_eval printed in a golden output is one evalrank knows, so that
    ``known_lines`` drops nothing and every case is compared whole."""
    from evalrank.metrics.names import TREC_MEASURES

    seen = {family(line.split("\t", 1)[0].rstrip())
            for case in CASES.values() for line in golden_output(case).splitlines()}
    assert sorted(seen - set(TREC_MEASURES)) == []


def test_pending_cases_are_cases():
    assert PENDING_FLAGS_CASES <= set(CASES), PENDING_FLAGS_CASES - set(CASES)


def test_family_and_known_lines():
    names = ("P_5", "iprec_at_recall_0.10", "ndcg_cut_10", "ndcg", "ndcg_0=-1,4=2.5", "utility_2,-1,0,0",
             "Rprec_mult_avgjg_0.20", "P_avgjg_5", "num_rel_ret", "runid", "11pt_avg", "relative_P_5", "gm_map",
             "set_F_0.5", "success_1")
    assert [family(m) for m in names] == [
        "P", "iprec_at_recall", "ndcg_cut", "ndcg", "ndcg", "utility", "Rprec_mult_avgjg", "P_avgjg",
        "num_rel_ret", "runid", "11pt_avg", "relative_P", "gm_map", "set_F", "success"]
    text = ("runid                 \tall\tt\nP_5                   \t1\t0.2000\nP_avgjg_5             \t1\t0.1\n"
            "relative_P_5          \tall\t0.1\nP_10                  \tall\t0.1")
    lines = text.splitlines(keepends=True)
    assert known_lines(text, {"P"}) == [lines[1], lines[4]]
    assert known_lines(text, {"runid", "P_avgjg"}) == [lines[0], lines[2]]


def test_the_golden_folder_is_whole():
    """Every case's output and inputs are there, named relative to the folder; every file there is
    an input or an output of a case or the script (nothing stray, no trec_eval file); the flags the
    issue asks for are all there."""
    used = {"manifest.json", "make_golden.py"}
    for case in CASES.values():
        assert not any(a.startswith("/") for a in case["argv"]), case
        assert case["output"].startswith("out/") and (GOLDEN / case["output"]).is_file(), case
        assert case["argv"][-1].endswith(".run") and case["argv"][-2].rsplit(".", 1)[-1] in ("qrels", "qrels_jg")
        used.add(case["output"])
        used.update(case["argv"][-2:])
    files = {p.relative_to(GOLDEN).as_posix() for p in GOLDEN.rglob("*")
             if p.is_file() and "__pycache__" not in p.parts}
    assert files == used
    assert sum((GOLDEN / f).stat().st_size for f in files) < 500_000
    flags = {a for c in CASES.values() for a in c["argv"] if a.startswith("-")}
    assert {"-q", "-c", "-M", "-l", "-J", "-N", "-n", "-R", "-m"} <= flags
    assert any("-m" not in c["argv"] for c in CASES.values())   # trec_eval's default set
