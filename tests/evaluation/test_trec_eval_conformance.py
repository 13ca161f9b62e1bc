"""evaluate() against trec_eval 9.0.8: pytrec_eval (its code in a wheel) on every measure, and
the trec_eval binary itself on whole outputs where it is given ($TREC_EVAL, or $TREC_EVAL_SRC built
at v9.0.8 by tests/trec_eval_binary.py; else those tests skip, saying why): on randomized files and
on trec_eval's own quicktest (its Makefile's target; it needs the source, whose test files are
never copied here). test_trec_eval_golden.py checks the CLI against stored trec_eval 9.0.8
outputs on every clone, with no binary.

Randomized files hold what trips tools up: tied scores (ties broken by document id, which must
compare as strings: d10 < d9), documents the qrels do not list, judged documents no run
retrieved, negative relevance, topics missing on either side, extra fields after the sixth of a
run line, runs not in rank order.
"""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

import numpy as np
import pytest
from trec_eval_binary import build, known_lines

from evalrank.cli import main
from evalrank.evaluation.evaluate import evaluate, evaluate_trec, format_trec

MEASURES = ["map", "P.1,5,10,30", "recall.5,10,100", "recip_rank", "Rprec", "ndcg", "ndcg_cut.5,10,20",
            "map_cut.5,10,100", "success.1,5,10"]
PYTREC = {"map", "P_1", "P_5", "P_10", "P_30", "recall_5", "recall_10", "recall_100", "recip_rank", "Rprec", "ndcg",
          "ndcg_cut_5", "ndcg_cut_10", "ndcg_cut_20", "map_cut_5", "map_cut_10", "map_cut_100", "success_1",
          "success_5", "success_10"}


def random_case(seed: int, n_topics: int = 25):
    """(qrels lines, run lines, qrels dict, run dict) with every awkward case above."""
    rng = np.random.default_rng(seed)
    qrels, run, qd, rd = [], [], {}, {}
    for t in range(n_topics):
        qid = f"{t + 1}"                      # string order: 1, 10, 11, ..., 2
        pool = [f"d{i}" for i in rng.choice(80, size=int(rng.integers(5, 40)), replace=False)]
        in_qrels = t % 7 != 3                 # some run topics without qrels
        in_run = t % 5 != 4                   # some qrels topics without a run
        if in_qrels:
            judged = rng.choice(pool, size=int(rng.integers(1, len(pool))), replace=False)
            extra = [f"x{i}" for i in range(int(rng.integers(0, 4)))]   # judged, never retrieved
            qd[qid] = {}
            for d in list(judged) + extra:
                g = int(rng.choice([-1, 0, 0, 1, 1, 2, 3]))
                qd[qid][d] = g
                qrels.append(f"{qid} 0 {d} {g}")
        if in_run:
            docs = list(pool)
            rng.shuffle(docs)
            scores = np.round(rng.random(len(docs)) * rng.choice([3, 10, 1000]), 0) / 10.0   # ties
            rd[qid] = {}
            for r, (d, s) in enumerate(zip(docs, scores)):
                rd[qid][d] = float(s)
                tail = " extra fields" if r % 9 == 0 else ""
                run.append(f"{qid}\tQ0 {d} {r + 1} {s:g} tag{tail}")
    rng.shuffle(run)                          # files need not be in rank or topic order
    return qrels, run, qd, rd


def write(trec_files, seed):
    qrels, run, qd, rd = random_case(seed)
    trec_files(qrels, run)
    return qd, rd


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("level", [1, 2])
def test_every_measure_equals_pytrec_eval(tmp_path, trec_files, seed, level):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qd, rd = write(trec_files, seed)
    df = evaluate(tmp_path / "qrels", tmp_path / "run", MEASURES, relevance_level=level)
    want = pytrec_eval.RelevanceEvaluator(qd, PYTREC, relevance_level=level).evaluate(rd)
    got = {(q, m): v for q, m, v in zip(df.qid, df.measure, df.value)}
    assert set(df.qid) == set(want)
    assert set(df.measure) == PYTREC
    bad = [(q, m, got[q, m], v) for q, vals in want.items() for m, v in vals.items() if abs(got[q, m] - v) > 1e-12]
    assert not bad, bad[:5]


def test_the_same_from_dicts_and_dataframes(tmp_path, trec_files):
    import pandas as pd

    qd, rd = write(trec_files, 11)
    from_files = evaluate(tmp_path / "qrels", tmp_path / "run", MEASURES)
    from_dicts = evaluate(qd, {"run": rd}, MEASURES)
    qdf = pd.DataFrame([(q, d, g) for q, docs in qd.items() for d, g in docs.items()],
                       columns=["query_id", "doc_id", "relevance"])
    rdf = pd.DataFrame([(q, d, s) for q, docs in rd.items() for d, s in docs.items()],
                       columns=["q_id", "doc_id", "score"])
    from_frames = evaluate(qdf, {"run": rdf}, MEASURES)
    for other in (from_dicts, from_frames):
        assert other.qid.tolist() == from_files.qid.tolist()
        assert other.measure.tolist() == from_files.measure.tolist()
        np.testing.assert_array_equal(other.value.to_numpy(), from_files.value.to_numpy())


def test_own_ndcg_under_the_trec_preset_equals_ndcg_cut(tmp_path, trec_files):
    write(trec_files, 3)
    df = evaluate(tmp_path / "qrels", tmp_path / "run", ["ndcg_cut.10", "ndcg@10", "ndcg(convention=gdeval)@10"])
    wide = df.pivot(index="qid", columns="measure", values="value")
    np.testing.assert_allclose(wide["ndcg@10"], wide["ndcg_cut_10"], rtol=0, atol=1e-12)
    assert not np.allclose(wide["ndcg(convention=gdeval)@10"], wide["ndcg_cut_10"])  # exp gains differ


@pytest.fixture(scope="module")
def trec_eval(tmp_path_factory):
    binary, why = build(tmp_path_factory.mktemp("trec_eval_build"))
    if binary is None:
        pytest.skip(why)
    return binary


OPTIONS = [[], ["-c"], ["-M", "7"], ["-l", "2"], ["-c", "-M", "3", "-l", "2"]]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("opts", OPTIONS, ids=lambda o: " ".join(o) or "default")
def test_output_is_trec_evals_byte_for_byte(tmp_path, trec_files, trec_eval, seed, opts):
    write(trec_files, 100 + seed)
    ms = ["num_q", "num_ret", "num_rel", "num_rel_ret"] + MEASURES
    args = [str(trec_eval), "-q", *opts, *[a for m in ms for a in ("-m", m)], str(tmp_path / "qrels"),
            str(tmp_path / "run")]
    want = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    kw = {"complete": "-c" in opts,
          "max_docs": int(opts[opts.index("-M") + 1]) if "-M" in opts else None,
          "relevance_level": int(opts[opts.index("-l") + 1]) if "-l" in opts else 1}
    res = evaluate_trec(tmp_path / "qrels", [tmp_path / "run"], ms, **kw)
    got = format_trec(res, per_query=True)
    if kw["complete"]:
        # trec_eval 9.0.8 prints no per-topic lines for the qrels topics a run lacks (10.0 does);
        # evalrank prints them (all 0): drop them here, the "all" lines must agree as they are
        missing = {q for q, m in zip(res[0].qids, res[0].missing) if m}
        got = "".join(line + "\n" for line in got.splitlines() if line.split("\t")[1] not in missing)
    assert got == want


def test_duplicates_and_malformed_lines_refused_as_trec_eval_refuses(tmp_path, trec_files, trec_eval):
    trec_files("1 0 a 1\n1 0 b 0\n", "1 Q0 a 1 0.5 t\n1 Q0 b 2 0.4 t\n1 Q0 a 3 0.3 t\n")
    te = subprocess.run([str(trec_eval), str(tmp_path / "qrels"), str(tmp_path / "run")], capture_output=True,
                        text=True)
    assert te.returncode != 0 and "duplicate" in te.stderr
    with pytest.raises(ValueError, match=r"run:3: document 'a' retrieved twice for topic '1'"):
        evaluate_trec(tmp_path / "qrels", [tmp_path / "run"], ["map"])
    # past -M the duplicate is never seen, by either
    te = subprocess.run([str(trec_eval), "-M", "2", "-m", "map", str(tmp_path / "qrels"), str(tmp_path / "run")],
                        capture_output=True, text=True, check=True)
    got = format_trec(evaluate_trec(tmp_path / "qrels", [tmp_path / "run"], ["map"], max_docs=2))
    assert got == te.stdout
    (tmp_path / "run").write_text("1 Q0 a 1 0.5\n")   # five fields: trec_eval says "Malformed line"
    te = subprocess.run([str(trec_eval), str(tmp_path / "qrels"), str(tmp_path / "run")], capture_output=True,
                        text=True)
    assert te.returncode != 0
    with pytest.raises(ValueError, match=r"run:1: a run line has 6 fields"):
        evaluate_trec(tmp_path / "qrels", [tmp_path / "run"], ["map"])


#: trec_eval 9.0.8's quicktest cases (named by their expected output in its test/ folder) whose
#: argv evalrank's CLI refuses: the preference measures (-R prefs, -R qrels_prefs) and z-scores
#: (-Z), which evalrank says it does not implement: out of its scope (issue 28 allows a clear
#: refusal that names the preference measures). Each passes while evalrank refuses it with a
#: message and is compared once evalrank takes its argv.
QUICKTEST_PENDING = {"out.test.prefs", "out.test.qrels_prefs", "out.test.aqZ"}


def quicktest_cases(makefile: Path) -> list[tuple[list[str], str]]:
    """(trec_eval's argv, the expected output's path) of each line of the Makefile's quicktest
    target: ``./trec_eval ARGS | diff - test/out.X``."""
    cases, inside = [], False
    for line in makefile.read_text().splitlines():
        if line.startswith("quicktest:"):
            inside = True
        elif inside and not line.startswith("\t"):
            break
        elif inside and "| diff - " in line:
            cmd, _, want = line.strip().partition("| diff - ")
            cases.append((shlex.split(cmd)[1:], want.strip()))
    return cases


def test_trec_evals_quicktest(trec_eval, monkeypatch, capsys):
    """Each quicktest case: the binary prints its expected file (the quicktest itself), and evalrank's
    CLI prints the same lines of the families it knows."""
    src = Path(trec_eval).parent
    if not (src / "Makefile").is_file() or not (src / "test").is_dir():
        pytest.skip(f"trec_eval's quicktest needs its source: set $TREC_EVAL_SRC (the binary {trec_eval} has no "
                    "Makefile and test/ beside it)")
    cases = quicktest_cases(src / "Makefile")
    assert len(cases) >= 10 and {want for _, want in cases} >= {f"test/{n}" for n in QUICKTEST_PENDING}
    monkeypatch.chdir(src)
    compared, bad = 0, []
    for argv, want_path in cases:
        want = (src / want_path).read_text()
        te = subprocess.run([str(trec_eval), *argv], capture_output=True, text=True)
        assert te.returncode == 0 and te.stdout == want, f"trec_eval {' '.join(argv)} (quicktest)"
        try:
            rc = main(["evaluate", *argv])
        except SystemExit as e:
            rc = e.code
        out, err = capsys.readouterr()
        assert "Traceback" not in err, err
        if rc != 0 and Path(want_path).name in QUICKTEST_PENDING and "EVALRANK_DEBUG" not in err:
            continue                  # evalrank does not take this argv yet (and says so: no crash)
        compared += 1
        if rc != 0 or known_lines(out) != known_lines(want):
            bad.append(f"{' '.join(argv)}: exit {rc} {err.strip()}")
    assert not bad, bad
    assert compared >= 1
