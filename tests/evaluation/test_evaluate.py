"""evaluate(): inputs, reading rules, errors, the CLI's evaluate and compare (the measures
themselves are checked against trec_eval in test_trec_eval_conformance.py)."""

from __future__ import annotations

import gzip

import numpy as np
import pandas as pd
import pytest
from cli_run import evalrank

import evalrank as er
from evalrank.evaluation.evaluate import evaluate_trec, format_trec, summarize

QRELS = "1 0 a 2\n1 0 b 1\n1 0 c 0\n1 0 x 1\n2 0 a 1\n3 0 z 1\n"
RUN = "1 Q0 b 1 0.9 t\n1 Q0 a 2 0.5 t\n1 Q0 d 3 0.5 t\n2 Q0 a 1 1 t\n4 Q0 a 1 1 t\n"


@pytest.fixture
def files(trec_files):
    return trec_files(QRELS, RUN)


def test_hand_computed_values(files):
    df = er.evaluate(*files, ["map", "P.2", "recip_rank", "ndcg_cut.3", "num_rel", "num_ret"])
    v = {(q, m): x for q, m, x in zip(df.qid, df.measure, df.value)}
    # topic 1, trec_eval's order: b (0.9), then the tie a/d at 0.5 broken by docno descending: d, a
    assert v["1", "map"] == pytest.approx((1 / 1 + 2 / 3) / 3)      # relevant: a, b, x (x never retrieved)
    assert v["1", "P_2"] == 0.5 and v["1", "recip_rank"] == 1.0
    dcg = 1 / np.log2(2) + 0 + 2 / np.log2(4)
    idcg = 2 / np.log2(2) + 1 / np.log2(3) + 1 / np.log2(4)
    assert v["1", "ndcg_cut_3"] == pytest.approx(dcg / idcg)
    assert v["1", "num_rel"] == 3 and v["1", "num_ret"] == 3
    assert sorted(set(df.qid)) == ["1", "2"]                          # 3: no run; 4: no qrels
    full = er.evaluate(*files, ["map"], complete=True)
    assert sorted(full.qid) == ["1", "2", "3"] and full.value[full.qid == "3"].item() == 0.0


def test_inputs_of_every_shape_agree(files):
    qrels, run = files
    want = er.evaluate(qrels, run, ["map", "ndcg_cut.10"])
    qd = {"1": {"a": 2, "b": 1, "c": 0, "x": 1}, "2": {"a": 1}, "3": {"z": 1}}
    rd = {"1": {"b": 0.9, "a": 0.5, "d": 0.5}, "2": {"a": 1.0}, "4": {"a": 1.0}}
    cols = {"query_id": np.array(["1", "1", "1", "2", "4"]), "doc_id": np.array(["b", "a", "d", "a", "a"]),
            "score": np.array([0.9, 0.5, 0.5, 1.0, 1.0])}
    for q, r in [(qd, rd), (qd, cols), (qd, pd.DataFrame(cols))]:
        got = er.evaluate(q, r, ["map", "ndcg_cut.10"])
        assert got.run.unique().tolist() == ["run"]
        np.testing.assert_array_equal(got.value.to_numpy(), want.value.to_numpy())
    named = er.evaluate(qd, {"mine": rd, "theirs": str(run)}, ["map"])
    assert named.run.unique().tolist() == ["mine", "theirs"]
    with pytest.raises(TypeError, match="name in-memory runs with a mapping"):
        er.evaluate(qd, [rd], ["map"])
    with pytest.raises(ValueError, match="r: no score column"):
        er.evaluate(qd, {"r": {"query_id": ["1"], "doc_id": ["a"], "rank": [1]}}, ["map"])


def test_files_as_users_have_them(tmp_path, files):
    qrels, run = files
    want = format_trec(evaluate_trec(qrels, [run], ["map", "P.5"], ), per_query=True)
    text = "\ufeff# a comment\n" + RUN.replace("\n", "\r\n").replace(" t\r\n", " t extra fields\r\n") + "\n\n"
    (tmp_path / "run.gz").write_bytes(gzip.compress(text.encode()))
    got = format_trec(evaluate_trec(qrels, [tmp_path / "run.gz"], ["map", "P.5"]), per_query=True)
    assert got == want


@pytest.mark.parametrize("qrels, run, match", [
    ("1 0 a 1\n1 0 a 0\n", "1 Q0 a 1 1 t\n", r"qrels:2: document 'a' judged twice for topic '1' \(first on line 1"),
    ("1 0 a 1\n1 0 a 1 x\n", "1 Q0 a 1 1 t\n", r"qrels:2: a qrels line has 4 fields"),
    ("1 0 a high\n", "1 Q0 a 1 1 t\n", r"qrels:1: relevance 'high' is not an integer"),
    ("1 0 a 1\n", "1 Q0 a 1 1 t\n1 Q0 b 2 x t\n", r"run:2: score 'x' is not a number"),
    ("1 0 a 1\n", "1 Q0 a 1 inf t\n", r"run:1: score 'inf' is not finite"),
    ("1 0 a 1\n", "1 Q0 a 1 1 t\n1 Q0 a 2 0 t\n", r"run:2: document 'a' retrieved twice for topic '1'"),
    ("1 0 a 1\n", "2 Q0 a 1 1 t\n", r"no topic of the run has qrels"),
    ("1 0 a 1\n", "# nothing\n", r"run: no run lines"),
])
def test_bad_files_are_refused_naming_file_and_line(trec_files, qrels, run, match):
    files = trec_files(qrels, run)
    with pytest.raises(ValueError, match=match):
        er.evaluate(*files, ["map"])
    out = evalrank("evaluate", "-m", "map", *files)
    assert out.returncode == 1 and out.stdout == ""
    assert out.stderr.startswith("evalrank evaluate: error: ") and "Traceback" not in out.stderr


def test_a_duplicate_judgment_of_a_topic_not_evaluated_is_read_as_trec_eval_reads_it(trec_files):
    files = trec_files("1 0 a 1\n2 0 b 1\n2 0 b 0\n", "1 Q0 a 1 1 t\n")
    assert er.evaluate(*files, ["map"]).value.tolist() == [1.0]


@pytest.mark.parametrize("bad, match", [
    (["P.5", "P.10"], "measure P given twice"), (["nope"], "measure 'nope' is not known"), (["map.5"], "takes no parameters"),
])
def test_bad_measures(files, bad, match):
    with pytest.raises(ValueError, match=match):
        er.evaluate(*files, bad)


def test_cli_evaluate_prints_trec_evals_lines_and_names_runs(tmp_path, files):
    qrels, run = files
    out = evalrank("evaluate", "-q", "-m", "map", "-m", "P.5", "-m", "err@20", qrels, run)
    assert out.returncode == 0, out.stderr
    assert out.stdout == format_trec(evaluate_trec(qrels, [run], ["map", "P.5", "err@20"]), per_query=True)
    lines = out.stdout.splitlines()
    assert lines[0] == "map                   \t1\t0.5556" and lines[-1].startswith("err@20                \tall\t")
    (tmp_path / "run2").write_text(RUN)
    out = evalrank("evaluate", "-m", "map", "-o", tmp_path / "out.txt", qrels, run, tmp_path / "run2")
    assert out.returncode == 0 and out.stdout == ""
    assert (tmp_path / "out.txt").read_text().splitlines() == ["run\tmap                   \tall\t0.7778",
                                                               "run2\tmap                   \tall\t0.7778"]
    summary = summarize(er.evaluate(qrels, [run, tmp_path / "run2"], ["map"]))
    assert summary.value.round(4).tolist() == [0.7778, 0.7778]


def test_compare_end_to_end(tmp_path):
    rng = np.random.default_rng(3)
    qrels = [f"{q} 0 d{d} {rng.integers(0, 3)}" for q in range(30) for d in range(20)]
    (tmp_path / "qrels").write_text("\n".join(qrels) + "\n")
    runs = []
    for name, noise in [("base", 1.0), ("better", 0.3), ("same", 1.0)]:
        lines = [f"{q} Q0 d{d} {d} {rng.normal() * noise - d * 0.1:.5f} {name}" for q in range(30) for d in range(20)]
        (tmp_path / name).write_text("\n".join(lines) + "\n")
        runs.append(tmp_path / name)
    per_query = er.evaluate(tmp_path / "qrels", runs, ["map", "ndcg_cut.10"])
    table = er.compare(tmp_path / "qrels", runs, ["map", "ndcg_cut.10"], baseline="base", seed=1)
    assert table.measure.tolist() == ["map"] * 3 + ["ndcg_cut_10"] * 3
    means = per_query.groupby(["measure", "run"]).value.mean()
    for row in table.itertuples():
        assert row.mean == pytest.approx(means[row.measure, row.run])
        assert row.delta == pytest.approx(means[row.measure, row.run] - means[row.measure, "base"])
    out = evalrank("compare", "--baseline", "base", "--format", "csv", "-m", "map", "--seed", "1",
                   tmp_path / "qrels", *runs)
    assert out.returncode == 0, out.stderr
    csv = pd.read_csv(pd.io.common.StringIO(out.stdout))
    assert csv.randomization_p.round(6).tolist()[1:] == table[table.measure == "map"].randomization_p.round(6).tolist()[1:]
    bad = evalrank("compare", "--baseline", "nope", tmp_path / "qrels", *runs)
    assert bad.returncode == 1 and "baseline" in bad.stderr and "Traceback" not in bad.stderr


def test_startup_on_files_imports_no_pandas(files):
    """evaluate on files never imports pandas (start-up time); the DataFrame API does."""
    import subprocess
    import sys

    code = ("import sys; from evalrank.cli import main; main(['evaluate', '-m', 'map', %r, %r]); "
            "print('PANDAS' if 'pandas' in sys.modules else 'NO-PANDAS')" % tuple(map(str, files)))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[-1] == "NO-PANDAS", out


def test_summarize_sums_up_each_measure_as_the_all_line_does(tmp_path):
    """summarize() on evaluate()'s frame gives format_trec's all line: means, sums for counts under
    either vocabulary (num_ret, NumRet), geometric means for gm_map; -c's missing topics count 0."""
    from evalrank.evaluation.evaluate import evaluate

    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n2 0 d 1\n3 0 e 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n2 Q0 d 1 3 t\n2 Q0 x 2 2 t\n2 Q0 c 3 1 t\n")
    ms = ["map", "gm_map", "num_ret", "NumRet", "P.2", "runid"]
    for complete in (False, True):
        df = evaluate(tmp_path / "q", tmp_path / "r", ms, complete=complete)
        assert "runid" not in set(df.measure)                  # text, not a number
        got = dict(zip(summarize(df).measure, summarize(df).value))
        (res,) = evaluate_trec(tmp_path / "q", [tmp_path / "r"], ms, complete=complete)
        want = res.means()
        for m in ("map", "gm_map", "num_ret", "NumRet", "P_2"):
            assert got[m] == pytest.approx(want[m], rel=1e-12), (complete, m)
    assert want["gm_map"] < want["map"] and want["NumRet"] == 5
