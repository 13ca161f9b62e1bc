"""One command-line style across the user commands (issue 50, item 3): ``QRELS RUN...``
positionals, a baseline by path or by name, ``-m``, ``--format text|csv|tsv|json`` wherever a
table is printed, an example in every ``--help``; old spellings work for one release and say so
in one line on stderr."""

from __future__ import annotations

import io
import json

import pandas as pd
import pytest

from cli_run import evalrank


def run(*args, rc=0):
    ran = evalrank(*args)
    assert ran.returncode == rc, (ran.returncode, ran.stdout[-2000:], ran.stderr[-2000:])
    assert "Traceback" not in ran.stderr, ran.stderr
    return ran


@pytest.fixture
def trec(tmp_path):
    """qrels and three runs in runs/ (bm25.txt, dense.txt, mixed.txt) on 6 topics."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 d{q}{i} {g}\n" for q in range(1, 7) for i, g in enumerate((2, 1, 0, 1, 0))))
    runs = tmp_path / "runs"
    runs.mkdir()
    orders = {"bm25": (0, 1, 2, 3, 4), "dense": (2, 0, 1, 4, 3), "mixed": (1, 3, 0, 2, 4)}
    for name, order in orders.items():
        lines = []
        for q in range(1, 7):
            o = order if q % 2 else order[::-1]
            lines += [f"{q} Q0 d{q}{i} {r + 1} {10 - r} {name}\n" for r, i in enumerate(o)]
        (runs / f"{name}.txt").write_text("".join(lines))
    return qrels, runs, sorted(runs.iterdir())


# -- risk: QRELS RUN... like evaluate and compare ---------------------------------------------
def test_risk_takes_qrels_and_run_files_like_evaluate(trec):
    qrels, runs, files = trec
    by_files = run("risk", "--baseline", "bm25", "--format", "tsv", qrels, *files)
    assert by_files.stderr.count("evalrank risk:") == 0
    table = pd.read_csv(io.StringIO(by_files.stdout), sep="\t")
    assert sorted(table.system) == ["bm25.txt", "dense.txt", "mixed.txt"]
    # a folder stands for its files; the baseline by path, file name or name without extension
    for baseline in ("bm25", "bm25.txt", str(runs / "bm25.txt")):
        assert run("risk", "--baseline", baseline, "--format", "tsv", qrels, runs).stdout == by_files.stdout
    # -m like evaluate's and compare's
    assert "\tmap\t" in run("risk", "--baseline", "bm25", "-m", "map", "--format", "tsv", qrels, *files).stdout


def test_risk_old_spellings_work_for_one_release_and_say_so(trec):
    qrels, runs, files = trec
    new = run("risk", "--baseline", "bm25.txt", "-m", "map", "--format", "tsv", qrels, runs)
    old = run("risk", "--qrels", qrels, "--runs", runs, "--baseline", "bm25.txt", "--measure", "map")
    assert old.stdout == new.stdout   # the old spelling's default output: TSV, as it printed
    notes = [line for line in old.stderr.splitlines() if "deprecated" in line]
    assert [n.split()[2] for n in notes] == ["--qrels", "--runs", "--measure"], old.stderr
    assert all(n.startswith("evalrank risk: ") for n in notes)


def test_risk_errors_are_one_line(trec):
    qrels, runs, files = trec
    err = run("risk", "--baseline", "bm25", qrels, files[0], rc=1).stderr
    assert err.splitlines()[-1].startswith("evalrank risk: error: RUN: 1 run file(s) given")
    err = run("risk", "--baseline", "bm25", rc=1).stderr
    assert err == "evalrank risk: error: QRELS and RUN...: give the qrels file and the run files " \
                  "(evalrank risk QRELS RUN...)\n"
    err = run("risk", "--baseline", "bm26", qrels, runs, rc=1).stderr
    assert "evalrank risk: error: --baseline 'bm26' is not one of the runs given" in err
    err = run("risk", "--baseline", "bm25", qrels, runs / "nowhere.txt", *files, rc=1).stderr
    assert err.endswith(f"RUN {runs / 'nowhere.txt'}: no such file or directory\n"), err


# -- a baseline by path or by name ------------------------------------------------------------
def test_compare_finds_the_baseline_by_its_name_without_extension(trec):
    qrels, runs, files = trec
    args = ("-m", "map", "--format", "csv", qrels, *files)
    by_path = run("compare", "--baseline", files[0], *args).stdout
    assert run("compare", "--baseline", "bm25", *args).stdout == by_path
    assert run("compare", "--baseline", "bm25.txt", *args).stdout == by_path
    # two files of that stem: refused, naming both
    (runs / "bm25.run").write_text(files[0].read_text())
    err = run("compare", "--baseline", "bm25", "-m", "map", qrels, *files, runs / "bm25.run", rc=1).stderr
    assert "ambiguous" in err and "bm25.txt" in err and "bm25.run" in err, err


# -- --format text|csv|tsv|json wherever a table is printed -----------------------------------
def _parsed(fmt: str, text: str) -> pd.DataFrame:
    if fmt == "json":
        return pd.DataFrame(json.loads(text))
    return pd.read_csv(io.StringIO(text), sep="," if fmt == "csv" else "\t")


@pytest.mark.parametrize("fmt", ["csv", "tsv", "json"])
def test_every_table_command_takes_the_same_formats(trec, fmt):
    qrels, runs, files = trec
    ev = _parsed(fmt, run("evaluate", "-q", "-m", "map", "-m", "num_ret", "--format", fmt, qrels, *files).stdout)
    assert list(ev.columns) == ["run", "measure", "qid", "value"]
    text = run("evaluate", "-q", "-m", "map", "-m", "num_ret", qrels, files[1]).stdout   # trec_eval's lines
    one = ev[ev.run == "dense.txt"]
    assert len(one) == len(text.splitlines())
    for line, (_, row) in zip(text.splitlines(), one.iterrows()):
        measure, qid, value = line.split("\t")
        assert (measure.strip(), qid) == (row.measure, str(row.qid)) and float(value) == pytest.approx(row.value, abs=5e-5)
    cmp = _parsed(fmt, run("compare", "--baseline", "bm25", "-m", "map", "--format", fmt, qrels, *files).stdout)
    assert cmp["run"].tolist() == ["bm25.txt", "dense.txt", "mixed.txt"] and "randomization_p" in cmp.columns
    risk = _parsed(fmt, run("risk", "--baseline", "bm25", "--format", fmt, qrels, *files).stdout)
    assert sorted(risk["system"]) == ["bm25.txt", "dense.txt", "mixed.txt"] and "georisk_a5" in risk.columns


def test_compare_text_fits_100_columns_and_wide_has_every_column(trec):
    qrels, runs, files = trec
    args = ("compare", "--baseline", "bm25", "-m", "map", "-m", "ndcg_cut.10", qrels, *files)
    text = run(*args).stdout
    assert max(len(line) for line in text.splitlines()) <= 100, text
    wide = run(*args, "--wide").stdout
    for column in ("n_queries", "mean_ci", "ttest_p", "randomization_p", "urisk", "georisk"):
        assert column in wide.splitlines()[0] and column not in text.splitlines()[0]
    assert "--wide" in text   # the note says where the rest is


def test_measures_print_as_asked(trec):
    qrels, runs, files = trec
    out = run("evaluate", "-m", "mrr", "-m", "MRR@10", "-m", "recip_rank", "-m", "P.5,10", "-m", "p@5", qrels,
              files[0]).stdout
    assert [line.split("\t")[0].strip() for line in out.splitlines()] == ["recip_rank", "P_5", "P_10", "mrr",
                                                                         "MRR@10", "p@5"]
    cmp = _parsed("csv", run("compare", "--baseline", "bm25", "-m", "mrr", "--format", "csv", qrels, *files).stdout)
    assert set(cmp["measure"]) == {"mrr"}


def test_standard_input_once(trec):
    """'-' is standard input for QRELS or one RUN of every command (evaluate's is tested with its
    reader), once."""
    import subprocess
    import sys

    qrels, runs, files = trec
    want = run("compare", "--baseline", "bm25", "-m", "map", "--format", "csv", qrels, *files).stdout
    got = subprocess.run([sys.executable, "-m", "evalrank", "compare", "--baseline", "bm25", "-m", "map", "--format",
                          "csv", "-", *map(str, files)], input=qrels.read_text(), capture_output=True, text=True,
                         timeout=300)
    assert (got.returncode, got.stdout) == (0, want), got.stderr
    got = subprocess.run([sys.executable, "-m", "evalrank", "risk", "--baseline", "bm25", "--format", "csv",
                          str(qrels), *map(str, files[:2]), "-"], input=files[2].read_text(), capture_output=True,
                         text=True, timeout=300)
    assert got.returncode == 0 and "\n-," in got.stdout, got.stderr   # the run read from stdin, named '-'
    for command in ("compare", "risk"):
        err = run(command, "--baseline", "bm25", "-", "-", *files, rc=1).stderr
        assert err == f"evalrank {command}: error: '-' (standard input) is given more than once: it can be read " \
                      "once, as one file\n"


# -- an example in every --help ---------------------------------------------------------------
def test_every_user_command_has_examples_in_its_help():
    from evalrank.cli import build_parser

    parser = build_parser()
    assert "examples:\n  evalrank " in parser.format_help()
    subs = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction").choices
    for name in ("evaluate", "compare", "risk", "validate-config", "ndcg", "active"):
        assert "examples:\n  " in subs[name].format_help(), name
    active = next(a for a in subs["active"]._actions if a.__class__.__name__ == "_SubParsersAction").choices
    for name in ("plan", "estimate"):
        assert "examples:\n  evalrank active " in active[name].format_help(), name


def test_risk_writes_to_out_as_evaluate_and_compare_do(trec, tmp_path):
    qrels, runs, files = trec
    shown = run("risk", "--baseline", "bm25", qrels, *files).stdout
    assert run("risk", "--baseline", "bm25", "-o", tmp_path / "t.txt", qrels, *files).stdout == ""
    assert (tmp_path / "t.txt").read_text() == shown
    err = run("risk", "--baseline", "bm25", "-o", files[1], qrels, *files, rc=1).stderr
    assert err == f"evalrank risk: error: -o {files[1]}: that is the input {files[1]}; writing there would replace it\n"


def test_compare_refuses_an_output_over_an_input_as_evaluate_and_risk_do(trec):
    """compare's -o naming the qrels or a run: refused before anything is read, the file intact
    (evaluate, compare and risk share cli.common.check_inputs_and_out)."""
    qrels, runs, files = trec
    before = qrels.read_text()
    err = run("compare", "--baseline", "bm25", "-o", qrels, qrels, *files, rc=1).stderr
    assert err == f"evalrank compare: error: -o {qrels}: that is the input {qrels}; writing there would replace it\n"
    assert qrels.read_text() == before
    err = run("compare", "--baseline", "bm25", "-o", "", qrels, *files, rc=1).stderr
    assert err == "evalrank compare: error: -o '': an empty file name\n"
