"""TREC qrels/run reading and `python -m evalrank ndcg` against pytrec_eval."""

import json

import numpy as np
import pytest
from cli_run import evalrank

from evalrank.data.trec import TrecFormatError, align, read_qrels, read_run


def write_case(trec_files, seed=0, n_queries=30):
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    qrel_d, run_d = {}, {}
    for q in range(n_queries):
        qid = f"q{q}"
        judged = {f"D{rng.integers(0, 60)}": int(rng.integers(-1, 3)) for _ in range(rng.integers(1, 15))}
        qrel_d[qid] = judged
        qrels += [f"{qid} 0 {d} {g}" for d, g in judged.items()]
        docs = {f"D{rng.integers(0, 60)}": float(rng.integers(0, 6)) for _ in range(rng.integers(1, 20))}
        run_d[qid] = docs
        run += [f"{qid} Q0 {d} {r} {s} tag" for r, (d, s) in enumerate(docs.items(), start=1)]
    run += ["extra Q0 D1 1 1.0 tag"]  # a query without qrels
    trec_files(qrels, run)
    return qrel_d, run_d


def test_cli_matches_pytrec_eval_with_unretrieved_and_unjudged_documents(tmp_path, trec_files):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrel_d, run_d = write_case(trec_files)
    out = evalrank("ndcg", "--qrels", tmp_path / "qrels", "--run", tmp_path / "run", "-k", "5", "--format", "json")
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    want = pytrec_eval.RelevanceEvaluator({q: {d: g for d, g in j.items()} for q, j in qrel_d.items()},
                                          {"ndcg_cut.5"}).evaluate(run_d)
    assert set(got["per_query"]) == set(want)
    for q, v in want.items():
        assert got["per_query"][q] == pytest.approx(v["ndcg_cut_5"], abs=1e-12)
    assert got["mean"] == pytest.approx(np.mean([v["ndcg_cut_5"] for v in want.values()]), abs=1e-12)
    assert "count as non-relevant" in out.stderr and "have no qrels" in out.stderr


def test_align_counts_and_ideal_from_all_judgments(trec_files):
    qrels, run = trec_files("1 0 a 1\n1 0 b 2\n1 0 c -1\n2 0 x 1\n", "1 Q0 a 1 0.5 t\n1 Q0 z 2 0.9 t\n3 Q0 a 1 0.1 t\n")
    t = align(read_qrels(qrels), read_run(run))
    assert t.qids.tolist() == ["1"] and t.unjudged == 1
    assert t.run_only == ["3"] and t.qrels_only == ["2"]
    assert t.labels.tolist() == [1, 0] and sorted(t.ideal_labels.tolist()) == [0, 1, 2]


@pytest.mark.parametrize("which, text, match", [
    ("qrels", "1 0 a\n", r"qrels:1: a qrels line has 4 fields"),
    ("qrels", "1 0 a 1\n1 0 a x\n", r"qrels:2: relevance 'x' is not an integer"),
    ("qrels", "1 0 a 1\n\n1 0 a 2\n", r"qrels:3: document 'a' judged twice"),
    ("run", "1 Q0 a 1\n", r"run:1: a run line has 6 fields"),
    ("run", "1 Q0 a 1 high t\n", r"run:1: score 'high' is not a number"),
    ("run", "1 Q0 a 1 nan t\n", r"run:1: score 'nan' is not finite"),
])
def test_malformed_lines_name_file_and_line(tmp_path, which, text, match):
    path = tmp_path / which
    path.write_text(text)
    reader = read_qrels if which == "qrels" else read_run
    with pytest.raises(TrecFormatError, match=match):
        reader(path)


def test_cli_letor_mode_and_errors(tmp_path):
    (tmp_path / "f.txt").write_text("2 qid:1 1:0.1\n0 qid:1 1:0.2\n0 qid:2 1:0.3\n")
    (tmp_path / "s.txt").write_text("0.1\n0.9\n0.5\n")
    run = lambda *args: evalrank("ndcg", *args)  # noqa: E731
    ok = run("--letor", str(tmp_path / "f.txt"), "--scores", str(tmp_path / "s.txt"), "--convention", "yahoo")
    assert ok.returncode == 0, ok.stderr
    lines = ok.stdout.strip().splitlines()
    assert lines[0].split("\t")[2] == f"{1 / np.log2(3):.6f}" and lines[1].split("\t")[2] == "1.000000"
    bad = run("--qrels", str(tmp_path / "f.txt"))
    assert bad.returncode == 1 and "--qrels and --run go together" in bad.stderr
    (tmp_path / "s2.txt").write_text("0.1\n")
    short = run("--letor", str(tmp_path / "f.txt"), "--scores", str(tmp_path / "s2.txt"))
    assert short.returncode == 1 and "has 1 scores but" in short.stderr
