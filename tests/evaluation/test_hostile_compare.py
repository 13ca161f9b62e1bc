"""Hostile input to `evalrank compare` and `evalrank risk` (issue 49, beyond its list): every flag
out of its range, files that hold nothing to compare, runs that are copies or renames of each
other. A refusal is one line naming the option (or the file), exit status 1, nothing on stdout, no
traceback; an acceptance is checked for its numbers. In-process (tests/cli_run.py), small files."""

from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest
from cli_run import evalrank

from evalrank.evaluation import compare as cmp


@pytest.fixture
def files(tmp_path, monkeypatch):
    """qrels, runs/a.txt, runs/b.txt (25 topics) and the folder pop/ with both as sysA, sysB."""
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(5)
    (tmp_path / "runs").mkdir()
    (tmp_path / "qrels").write_text("".join(f"{q} 0 d{d} {rng.integers(0, 3)}\n" for q in range(25) for d in range(12)))
    for path, noise in [("runs/a.txt", 1.0), ("runs/b.txt", 0.3)]:
        (tmp_path / path).write_text("".join(f"{q} Q0 d{d} {d} {rng.normal() * noise - d * 0.1:.5f} t\n"
                                             for q in range(25) for d in range(12)))
    (tmp_path / "pop").mkdir()
    shutil.copy(tmp_path / "runs" / "a.txt", tmp_path / "pop" / "sysA")
    shutil.copy(tmp_path / "runs" / "b.txt", tmp_path / "pop" / "sysB")
    (tmp_path / "empty").write_text("")
    return tmp_path


RUNS = ("qrels", "runs/a.txt", "runs/b.txt")

COMPARE_REFUSED = {
    "level above 1": (["--level", "1.5"], "--level must be a number in (0, 1), got 1.5"),
    "level nan": (["--level", "nan"], "--level must be a number in (0, 1), got nan"),
    "level 0": (["--level", "0"], "--level must be a number in (0, 1)"),
    "alpha 0": (["--alpha", "0"], "--alpha must be a number in (0, 1)"),
    "alpha 1": (["--alpha", "1"], "--alpha must be a number in (0, 1)"),
    "negative risk alpha": (["--risk-alpha", "-1"], "--risk-alpha must be a finite number >= 0"),
    "infinite risk alpha": (["--risk-alpha", "inf"], "--risk-alpha must be a finite number >= 0"),
    "nan risk alpha": (["--risk-alpha", "nan"], "--risk-alpha must be a finite number >= 0"),
    "negative seed": (["--seed", "-1"], "--seed must be a non-negative integer"),
    "no permutations": (["--permutations", "0"], "--permutations must be a positive integer, got 0"),
    "negative permutations": (["--permutations", "-5"], "--permutations must be a positive integer"),
    "no resamples, t intervals": (["--resamples", "0"], "--resamples must be a positive integer, got 0"),
    "399 resamples at 0.95": (["--interval", "bootstrap", "--resamples", "399"], "--resamples 399 is too few"),
    "resamples one over the bound": (["--resamples", "10000001"], "is more than the most allowed, 10,000,000"),
    "permutations one over the bound": (["--permutations", "10000001"], "is more than the most allowed"),
    "the baseline as a test": (["--test", "a.txt"], "tests includes the baseline 'a.txt'"),
    "an unknown test": (["--test", "c.txt"], "test 'c.txt' is not one of the runs given"),
    "an unknown measure": (["-m", "mapp"], "measure 'mapp' is not known; nearest: map"),
    "an empty measure": (["-m", ""], "measure: an empty name"),
    "runid among others": (["-m", "map", "-m", "runid"], "-m 'runid' is text per topic"),
    "a negative measure": (["-m", "utility"], "measure 'utility' = -2; the risk measures"),
}


@pytest.mark.parametrize("case", sorted(COMPARE_REFUSED))
def test_compare_refuses_in_one_line_naming_the_option(files, case):
    args, fragment = COMPARE_REFUSED[case]
    out = evalrank("compare", "--baseline", "a.txt", "--permutations", "100", *args, *RUNS)
    assert out.returncode == 1 and out.stdout == "", (case, out)
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr, (case, out.stderr)
    assert out.stderr.startswith("evalrank compare: error: ") and fragment in out.stderr, (case, out.stderr)


@pytest.mark.parametrize("case, argv, fragment", [
    ("one run only", ["qrels", "runs/a.txt"], "tests: nothing to compare with baseline 'a.txt'"),
    ("the same file twice", ["qrels", "runs/a.txt", "runs/a.txt"], "the same run file is given twice"),
    ("an empty qrels file", ["empty", "runs/a.txt", "runs/b.txt"], "empty: no qrels lines"),
    ("an empty run file", ["qrels", "runs/a.txt", "empty"], "empty: no run lines"),
    ("a missing run file", ["qrels", "runs/a.txt", "runs/nope.txt"], "runs/nope.txt"),
])
def test_compare_refuses_files_with_nothing_to_compare(files, case, argv, fragment):
    out = evalrank("compare", "--baseline", "a.txt", *argv)
    assert out.returncode == 1 and out.stderr.count("\n") == 1 and fragment in out.stderr, (case, out.stderr)


def test_a_copy_of_the_baseline_is_no_different_and_says_why_trisk_is_blank(files):
    shutil.copy("runs/a.txt", "runs/copy.txt")
    out = evalrank("compare", "--baseline", "a.txt", "-m", "map", "--format", "csv", "qrels", "runs/a.txt",
                   "runs/copy.txt")
    row = pd.read_csv(__import__("io").StringIO(out.stdout)).iloc[1]
    assert row["delta"] == 0 and row["randomization_p"] == 1.0 and row["ties"] == 25, row
    assert np.isnan(row["trisk"]) and np.isnan(row["ttest_p"])
    text = evalrank("compare", "--baseline", "a.txt", "-m", "map", "qrels", "runs/a.txt", "runs/copy.txt").stdout
    assert "trisk blank" in text and "inf" not in text


def test_a_measure_named_twice_is_compared_once(files):
    t = cmp.compare("qrels", ["runs/a.txt", "runs/b.txt"], ["map", "map"], baseline="a.txt", permutations=100)
    assert t["measure"].tolist() == ["map", "map"] and t["run"].tolist() == ["a.txt", "b.txt"]


def test_renamed_topics_give_the_same_table(files):
    """The streams are keyed by the values, not names: topic ids renamed (and so reordered) leave
    every number as it was, bootstrap intervals included."""
    pq = cmp_per_query()
    renamed = pq.assign(qid="topic-" + (99 - pq["qid"].astype(int)).astype(str))
    kw = dict(baseline="base", permutations=2000, interval="bootstrap", resamples=1000, seed=4)
    a, b = cmp.compare_table(pq, **kw), cmp.compare_table(renamed, **kw)
    assert (a["randomization"] == "monte_carlo").iloc[1:].all()
    pd.testing.assert_frame_equal(a, b)


def test_one_run_compared_alone_or_with_others_and_under_other_names(files):
    pq = cmp_per_query()
    alone = cmp.compare_table(pq[pq["run"].isin(["base", "s1"])], baseline="base", permutations=3000)
    both = cmp.compare_table(pq, baseline="base", permutations=3000)
    renamed = cmp.compare_table(pq.replace({"run": {"s1": "zzz", "base": "aaa"}}), baseline="aaa", permutations=3000)
    p = [t.set_index("run").loc[name, "randomization_p"] for t, name in ((alone, "s1"), (both, "s1"), (renamed, "zzz"))]
    assert p[0] == p[1] == p[2] and 0 < p[0] < 1, p


def cmp_per_query():
    rng = np.random.default_rng(11)
    base = rng.uniform(0, 1, 30)
    runs = {"base": base, "s1": np.clip(base + rng.normal(0.03, 0.1, 30), 0, 1),
            "s2": np.clip(base + rng.normal(-0.02, 0.1, 30), 0, 1)}
    return pd.DataFrame([(r, str(q), "m", float(v[q])) for r, v in runs.items() for q in range(30)],
                        columns=["run", "qid", "measure", "value"])


@pytest.mark.parametrize("kw, msg", [
    ({"permutations": True}, "permutations must be a positive integer"),
    ({"permutations": 2.5}, "permutations must be a positive integer"),
    ({"resamples": np.int64(-1)}, "resamples must be a positive integer"),
    ({"interval": "bootstrap", "resamples": 100, "level": 0.9}, "resamples 100 is too few for 90% intervals"),
    ({"risk_alpha": True}, "risk_alpha must be a finite number"),
    ({"seed": 1.0}, "seed must be a non-negative integer"),
])
def test_the_library_names_its_keyword(kw, msg):
    with pytest.raises(ValueError, match=msg):
        cmp.compare_table(cmp_per_query(), baseline="base", **kw)


def test_check_numeric_measures_takes_names_objects_and_nicknames():
    from evalrank.metrics.names import parse_measure

    cmp.check_numeric_measures(["map", "all_trec", "ndcg@10", "P.5,10"])
    with pytest.raises(ValueError, match="measures 'relstring.20' is text per topic"):
        cmp.check_numeric_measures("relstring.20")
    with pytest.raises(ValueError, match="is text per topic"):
        cmp.check_numeric_measures([parse_measure("runid")], "--measure")


# -- risk ----------------------------------------------------------------------------------------
RISK = ("risk", "qrels", "pop", "--baseline", "sysA")

RISK_REFUSED = {
    "runid": (["-m", "runid"], "-m 'runid' is text per topic (the run's name)"),
    "relstring": (["-m", "relstring"], "-m 'relstring' is text per topic"),
    "nan alpha": (["--alphas", "nan"], "--alphas must be finite numbers >= 0, got nan"),
    "infinite alpha": (["--alphas", "0", "inf"], "--alphas must be finite numbers >= 0, got 0.0, inf"),
    "negative alpha": (["--alphas", "-1"], "--alphas must be finite numbers >= 0"),
    "unknown convention": (["--convention", "bogus"], "--convention 'bogus' is not one of trec, gdeval"),
    "top 0": (["--top", "0"], "--top must be >= 1"),
    "unknown baseline": (["--baseline", "sysZ"], "--baseline 'sysZ' is not one of the runs given"),
}


@pytest.mark.parametrize("case", sorted(RISK_REFUSED))
def test_risk_refuses_in_one_line_naming_the_option(files, case):
    args, fragment = RISK_REFUSED[case]
    out_dir = files / "out"
    out = evalrank(*RISK, *args, "--out-dir", out_dir)
    assert out.returncode == 1 and out.stdout == "", (case, out)
    assert out.stderr.count("\n") == 1 and fragment in out.stderr, (case, out.stderr)
    assert not out_dir.exists()  # checked before anything is read or written


def test_risk_needs_a_population(files):
    out = evalrank("risk", "qrels", "runs/a.txt", "--baseline", "a.txt")
    assert out.returncode == 1 and out.stderr == ("evalrank risk: error: RUN: 1 run file(s) given (runs/a.txt); "
                                                  "risk needs a population (>= 2)\n"), out.stderr
