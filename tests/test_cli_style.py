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
