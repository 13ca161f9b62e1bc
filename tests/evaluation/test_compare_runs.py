"""evalrank.compare and ``evalrank compare`` as people call them: the baseline (and --test) by
path or by name, runs that share a file name, the intervals in the printed table and the
--out file, and the CLI's defaults equal to the library's."""

from __future__ import annotations

import io
import os

import numpy as np
import pandas as pd
import pytest
from cli_run import evalrank

import evalrank as er
from evalrank.cli import build_parser
from evalrank.evaluation import compare as cmp


@pytest.fixture
def files(tmp_path, monkeypatch):
    """qrels and runs/a.txt, runs/b.txt, runs/x/run.txt, runs/y/run.txt in tmp_path, the working directory."""
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(3)
    (tmp_path / "runs" / "x").mkdir(parents=True)
    (tmp_path / "runs" / "y").mkdir()
    (tmp_path / "qrels").write_text("".join(f"{q} 0 d{d} {rng.integers(0, 3)}\n" for q in range(25) for d in range(15)))
    for path, noise in [("runs/a.txt", 1.0), ("runs/b.txt", 0.3), ("runs/x/run.txt", 1.0), ("runs/y/run.txt", 0.5)]:
        (tmp_path / path).write_text("".join(f"{q} Q0 d{d} {d} {rng.normal() * noise - d * 0.1:.5f} t\n"
                                             for q in range(25) for d in range(15)))
    return tmp_path


def _table(baseline, runs=("runs/a.txt", "runs/b.txt"), **kw):
    return er.compare("qrels", list(runs) if isinstance(runs, tuple) else runs, ["map"], baseline=baseline,
                      permutations=200, **kw)


def test_baseline_by_path_or_by_name_gives_the_same_table(files):
    want = _table("a.txt")
    assert want["run"].tolist() == ["a.txt", "b.txt"]
    os.symlink(files / "runs" / "a.txt", files / "link.txt")
    for baseline in ("runs/a.txt", "./runs/a.txt", str(files / "runs" / "a.txt"), files / "runs" / "a.txt",
                     "runs/../runs/a.txt", "link.txt"):
        pd.testing.assert_frame_equal(_table(baseline), want, check_exact=True)
    other = _table("runs/b.txt")
    assert other["run"].tolist() == ["b.txt", "a.txt"] and other.attrs["baseline"] == "b.txt"
    # runs given as absolute paths, baseline as a relative one
    absolute = _table("runs/a.txt", runs=[str(files / "runs/a.txt"), str(files / "runs/b.txt")])
    pd.testing.assert_frame_equal(absolute, want, check_exact=True)


def test_tests_by_path_or_by_name(files):
    runs = ["runs/a.txt", "runs/b.txt", "runs/x/run.txt"]
    by_path = _table("runs/a.txt", runs=runs, test=["./runs/b.txt"])
    assert by_path["run"].tolist() == ["a.txt", "b.txt"]
    pd.testing.assert_frame_equal(_table("a.txt", runs=runs, test="b.txt"), by_path, check_exact=True)
    with pytest.raises(ValueError, match="tests names"):
        _table("a.txt", runs=runs, test=["b.txt", "runs/b.txt"])  # the same run twice


def test_runs_sharing_a_file_name(files):
    runs = ["runs/a.txt", "runs/x/run.txt", "runs/y/run.txt"]
    table = _table("runs/x/run.txt", runs=runs)
    assert table["run"].tolist() == ["x/run.txt", "a.txt", "y/run.txt"]  # named by the end that tells them apart
    pd.testing.assert_frame_equal(_table("x/run.txt", runs=runs), table, check_exact=True)  # the name shown
    pd.testing.assert_frame_equal(_table(str(files / "runs/x/run.txt"), runs=runs), table, check_exact=True)
    # the values are the runs' own
    alone = _table("runs/a.txt", runs=["runs/a.txt", "runs/y/run.txt"])
    assert table.loc[table.run == "y/run.txt", "mean"].item() == alone.loc[alone.run == "run.txt", "mean"].item()
    with pytest.raises(ValueError) as e:
        _table("run.txt", runs=runs)
    assert str(e.value) == ("baseline 'run.txt' is ambiguous: 2 runs have that file name, runs/x/run.txt and "
                            "runs/y/run.txt; give the path of the one you mean")
    with pytest.raises(ValueError, match="test 'run.txt' is ambiguous: 2 runs have that file name, runs/x/run.txt"):
        _table("a.txt", runs=runs, test="run.txt")


def test_names_for_shared_file_names_are_the_shortest_distinct_ends():
    runs, entries = cmp._named_runs(["e/bm25/run.txt", "f/bm25/run.txt", "dense/run.txt", "a.txt"])
    assert list(runs) == ["e/bm25/run.txt", "f/bm25/run.txt", "dense/run.txt", "a.txt"]
    runs, entries = cmp._named_runs(["run.txt", "x/run.txt", "b.txt"])
    assert entries == [("run.txt", "run.txt"), ("x/run.txt", "x/run.txt"), ("b.txt", "b.txt")]
    assert runs == {"run.txt": "run.txt", "x/run.txt": "x/run.txt", "b.txt": "b.txt"}
    same = ["runs/a.txt", "runs/b.txt"]
    assert cmp._named_runs(same)[0] is same  # nothing shared: handed on as they are


def test_unknown_and_repeated_runs(files):
    with pytest.raises(ValueError) as e:
        _table("runs/c.txt")
    assert str(e.value) == ("baseline 'runs/c.txt' is not one of the runs given; give a run's path or name: "
                            "runs/a.txt (a.txt), runs/b.txt (b.txt)")
    with pytest.raises(ValueError, match="baseline 'c' is not one of the runs given"):
        _table("c")
    # a file name without its extension selects that file (issue 50: --baseline bm25 for bm25.txt)
    pd.testing.assert_frame_equal(_table("a"), _table("runs/a.txt"), check_exact=True)
    with pytest.raises(ValueError, match="runs: the same run file is given twice, runs/a.txt and ./runs/a.txt"):
        _table("a.txt", runs=["runs/a.txt", "./runs/a.txt"])


def test_mapping_of_runs_by_name_or_path(files):
    runs = {"bm25": "runs/a.txt", "dense": "runs/b.txt"}
    table = _table("bm25", runs=runs)
    assert table["run"].tolist() == ["bm25", "dense"]
    pd.testing.assert_frame_equal(_table("./runs/a.txt", runs=runs), table, check_exact=True)
    with pytest.raises(ValueError, match="baseline 'tfidf' is not one of the runs given"):
        _table("tfidf", runs=runs)
    in_memory = {"mine": {"1": {"d1": 1.0, "d2": 0.5}, "2": {"d1": 0.2}},
                 "theirs": {"1": {"d1": 0.1, "d2": 0.5}, "2": {"d1": 0.9}}}
    t = er.compare("qrels", in_memory, ["P.1"], baseline="mine", permutations=50)
    assert t["run"].tolist() == ["mine", "theirs"]
    with pytest.raises(ValueError, match=r"baseline 'nope' is not a run of per_query \(runs: \['mine', 'theirs'\]\)"):
        er.compare("qrels", in_memory, ["P.1"], baseline="nope")


# ---------------------------------------------------------------------------
# the CLI
# ---------------------------------------------------------------------------
def test_cli_baseline_by_path_as_in_the_issue(files):
    """evalrank compare --baseline runs/a.txt qrels runs/a.txt runs/b.txt (issue 28)."""
    out = evalrank("compare", "--baseline", "runs/a.txt", "--format", "csv", "qrels", "runs/a.txt", "runs/b.txt")
    assert out.returncode == 0, out.stderr
    csv = pd.read_csv(io.StringIO(out.stdout))
    by_name = evalrank("compare", "--baseline", "a.txt", "--format", "csv", "qrels", "runs/a.txt", "runs/b.txt")
    assert by_name.stdout == out.stdout
    assert csv["run"].tolist() == ["a.txt", "b.txt"] * 2
    lib = er.compare("qrels", ["runs/a.txt", "runs/b.txt"], ["map", "ndcg_cut.10"], baseline="a.txt")
    for c in ("mean", "mean_ci_low", "mean_ci_high", "delta_ci_low", "delta_ci_high"):
        np.testing.assert_allclose(csv[c].to_numpy(), lib[c].to_numpy(), rtol=1e-5, atol=1e-7)
    assert (csv["interval"] == "t").all() and (csv["level"] == 0.95).all()


def test_cli_ambiguous_and_unknown_baselines_are_one_line(files):
    out = evalrank("compare", "--baseline", "run.txt", "qrels", "runs/a.txt", "runs/x/run.txt", "runs/y/run.txt")
    assert out.returncode == 1 and out.stdout == ""
    assert out.stderr == ("evalrank compare: error: baseline 'run.txt' is ambiguous: 2 runs have that file name, "
                          "runs/x/run.txt and runs/y/run.txt; give the path of the one you mean\n")
    out = evalrank("compare", "--baseline", "runs/c.txt", "qrels", "runs/a.txt", "runs/b.txt")
    assert out.returncode == 1 and out.stderr.count("\n") == 1 and "runs/a.txt (a.txt)" in out.stderr
    out = evalrank("compare", "--baseline", "runs/x/run.txt", "--test", "./runs/y/run.txt", "-m", "map",
                   "--format", "csv", "qrels", "runs/a.txt", "runs/x/run.txt", "runs/y/run.txt")
    assert out.returncode == 0, out.stderr
    assert pd.read_csv(io.StringIO(out.stdout))["run"].tolist() == ["x/run.txt", "y/run.txt"]


def test_cli_table_and_out_file_show_the_intervals(files):
    args = ("compare", "--baseline", "runs/a.txt", "-m", "map", "--interval", "bootstrap", "--level", "0.9",
            "--resamples", "500", "--seed", "4", "qrels", "runs/a.txt", "runs/b.txt")
    compact = evalrank(*args)
    assert compact.returncode == 0, compact.stderr
    assert compact.stdout.split("\n")[0].split() == ["measure", "run", "mean", "delta", "delta_ci", "p_corrected",
                                                     "sig", "w/l/t", "trisk"]
    assert max(map(len, compact.stdout.splitlines())) <= 100   # fits 100 columns (issue 50)
    out = evalrank(*args, "--wide")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].split()[:7] == ["measure", "run", "n_queries", "mean", "mean_ci", "delta", "delta_ci"]
    assert compact.stdout.split("\n")[2].split()[3] in lines[2]   # the same delta_ci
    lib = er.compare("qrels", ["runs/a.txt", "runs/b.txt"], ["map"], baseline="a.txt", interval="bootstrap",
                     level=0.9, resamples=500, seed=4)
    r = lib.iloc[1]
    assert f"[{r.mean_ci_low:.4f}, {r.mean_ci_high:.4f}]" in lines[2]
    assert f"[{r.delta_ci_low:.4f}, {r.delta_ci_high:.4f}]" in lines[2]
    assert "90% confidence intervals (BCa bootstrap, 500 resamples of the topics, seed 4)" in " ".join(out.stdout.split())
    res = evalrank("compare", "--baseline", "a.txt", "-m", "map", "--format", "csv", "-o", files / "cmp.csv",
                   "qrels", "runs/a.txt", "runs/b.txt")
    assert res.returncode == 0 and res.stdout == ""
    written = pd.read_csv(files / "cmp.csv")
    assert list(written.columns) == list(cmp.COLUMNS)
    assert written["delta_ci_low"].isna().tolist() == [True, False]
    text = evalrank("compare", "--baseline", "a.txt", "-m", "map", "-o", files / "cmp.txt", "qrels", "runs/a.txt",
                    "runs/b.txt")
    assert text.returncode == 0 and "95% confidence intervals (paired t)" in " ".join((files / "cmp.txt").read_text().split())


def test_cli_defaults_are_the_librarys():
    parser = build_parser()
    a = parser.parse_args(["compare", "--baseline", "a", "qrels", "a", "b"])
    assert a.interval == cmp.DEFAULT_INTERVAL and a.level == cmp.DEFAULT_LEVEL
    assert a.resamples == cmp.DEFAULT_RESAMPLES
    import inspect

    sig = inspect.signature(cmp.compare)
    for option in ("correction", "alpha", "permutations", "seed", "risk_alpha", "interval", "level", "resamples"):
        assert getattr(a, option) == sig.parameters[option].default, option
    assert set(parser._subparsers._group_actions[0].choices["compare"]._option_string_actions["--interval"].choices) \
        == set(cmp.INTERVALS)


# ---------------------------------------------------------------------------
# issue 49: no silent wrong number, one line naming the option
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("args, fragment", [
    (["--interval", "bootstrap", "--resamples", "1"], "--resamples 1 is too few for 95% intervals"),
    (["--interval", "bootstrap", "--resamples", "2"], "--resamples >= 10 / ((1 - level) / 2) = 400"),
    (["--interval", "bootstrap", "--level", "0.99", "--resamples", "1999"], "= 2000"),
    (["--resamples", str(10 ** 12)], "--resamples 1,000,000,000,000 is more than the most allowed, 10,000,000"),
    (["--permutations", str(10 ** 12)], "--permutations 1,000,000,000,000 is more than the most allowed, 10,000,000"),
    (["-m", "runid"], "-m 'runid' is text per topic (the run's name), not a number"),
    (["-m", "relstring"], "-m 'relstring' is text per topic"),
    (["-m", "map", "-m", "relstring.5"], "-m 'relstring.5' is text per topic"),
])
def test_cli_refuses_what_would_be_a_wrong_number_in_one_line(files, args, fragment):
    out = evalrank("compare", "--baseline", "a.txt", *args, "qrels", "runs/a.txt", "runs/b.txt")
    assert out.returncode == 1 and out.stdout == "" and out.stderr.count("\n") == 1, out
    assert out.stderr.startswith("evalrank compare: error: ") and fragment in out.stderr, out.stderr


def test_bootstrap_at_the_least_resamples_gives_intervals_that_hold_the_estimate(files):
    """400 resamples at 0.95 (the fewest allowed): each interval contains its estimate (1 or 2 gave a
    point beside it); resamples are not checked against the level for t intervals."""
    t = _table("a.txt", interval="bootstrap", resamples=400)
    assert ((t["mean_ci_low"] < t["mean"]) & (t["mean"] < t["mean_ci_high"])).all(), t
    d = t.iloc[1]
    assert d["delta_ci_low"] < d["delta"] < d["delta_ci_high"]
    assert _table("a.txt", resamples=1)["interval"].eq("t").all()
    with pytest.raises(ValueError, match="resamples 399 is too few for 95% intervals"):
        _table("a.txt", interval="bootstrap", resamples=399)


def test_a_constant_delta_leaves_trisk_blank_and_says_why(files):
    """P.1: run a has the relevant document first on every topic, run c never: delta -1 on each
    topic, SE 0, TRisk = URisk / 0 (printed as inf before)."""
    (files / "q1").write_text("".join(f"{q} 0 r{q} 1\n{q} 0 n{q} 0\n" for q in range(6)))
    (files / "runs" / "good.txt").write_text("".join(f"{q} Q0 r{q} 1 2 g\n{q} Q0 n{q} 2 1 g\n" for q in range(6)))
    (files / "runs" / "bad.txt").write_text("".join(f"{q} Q0 n{q} 1 2 b\n{q} Q0 r{q} 2 1 b\n" for q in range(6)))
    t = er.compare("q1", ["runs/good.txt", "runs/bad.txt"], ["P.1"], baseline="good.txt")
    r = t.iloc[1]
    assert r["delta"] == -1.0 and r["urisk"] == -2.0 and np.isnan(r["trisk"]) and np.isnan(r["ttest_p"]), r
    out = evalrank("compare", "--baseline", "good.txt", "-m", "P.1", "q1", "runs/good.txt", "runs/bad.txt")
    assert out.returncode == 0 and "inf" not in out.stdout, out.stdout
    assert "trisk blank: every topic's (risk-weighted) difference from the baseline is the same" in out.stdout


def test_renaming_the_runs_gives_the_same_numbers(files):
    """Issue 50 item 6: the randomization test's and the bootstrap's streams came from the run names."""
    import shutil

    shutil.copy("runs/a.txt", "runs/zz_base.txt")
    shutil.copy("runs/b.txt", "runs/other_name.txt")
    kw = dict(interval="bootstrap", resamples=1000, seed=2)
    one = _table("a.txt", **kw)
    two = _table("zz_base.txt", runs=("runs/zz_base.txt", "runs/other_name.txt"), **kw)
    assert two["run"].tolist() == ["zz_base.txt", "other_name.txt"]
    assert one.iloc[1]["randomization"] == "monte_carlo"
    pd.testing.assert_frame_equal(one.drop(columns="run"), two.drop(columns="run"))
