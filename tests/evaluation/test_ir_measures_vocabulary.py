"""ir_measures' measure names in evalrank.evaluate / evalrank evaluate, value for value against
ir_measures itself (ir-measures 0.4.3, a test dependency), per topic, on randomized files.

The files (seeded): numeric topics (gdeval.pl, ir_measures' ERR@k, takes no other), some only
in the qrels and some only in the run, grades 0-3 and a few negative judgments, unjudged
documents in the run, and scores of one decimal, so that many tie.

Which topics are compared: evalrank evaluates the run's topics that have qrels, as trec_eval
does. ir_measures' iter_calc reports every qrels topic: those its provider does not evaluate
(the run lacks them; msmarco and gdeval.pl also skip a topic without a relevant document) as 0,
as trec_eval's -c does (its aggregates checked below against ``complete=True``). Per topic, the
values are compared on the topics both report, the run's topics with qrels, and every
comparison checks that they share most topics, so that a provider that reports nothing cannot
pass.

Ties: trec_eval, and so evalrank for every measure, breaks score ties by document id
descending. ir_measures' pytrec_eval provider does too; its msmarco (RR@k) and judged
(Judged@k) providers sort ties by document id ascending. Those measures are compared on a
copy of the run whose scores are made distinct in trec_eval's order (evalrank reads the tied
run, ir_measures the copy), so that both rank the documents alike.
"""

from __future__ import annotations

import numpy as np
import pytest

ir_measures = pytest.importorskip("ir_measures")

import evalrank as er  # noqa: E402
from evalrank.evaluation.evaluate import evaluate_trec  # noqa: E402

#: measures of ir_measures' pytrec_eval provider (trec_eval's order of ties)
PYTREC = ["AP", "MAP", "AP@5", "AP@100", "AP(rel=2)", "AP(judged_only=True)", "AP(rel=2,judged_only=True)@10",
          "P@5", "P@10", "P@25", "P(rel=2)@5", "P(rel=3)@10", "P(judged_only=True)@10", "R@10", "R@100",
          "R(judged_only=True)@5", "RR", "MRR", "RR(rel=2)", "RR(judged_only=True)", "nDCG", "NDCG", "nDCG@3",
          "nDCG@10", "nDCG(judged_only=True)@10", "nDCG(judged_only=True)", "Rprec", "RPrec", "Rprec(rel=2)",
          "Rprec(judged_only=True)", "Bpref", "Bpref(rel=2)", "infAP", "infAP(rel=2)", "IPrec@0.0", "IPrec@0.5",
          "IPrec@1.0", "IPrec(rel=2)@0.3", "IPrec(judged_only=True)@0.2", "SetP", "SetP(rel=2)", "SetRelP",
          "SetP(judged_only=True)", "SetR", "SetR(rel=2)", "SetF", "SetF(beta=0.5)", "SetF(rel=2)", "SetAP",
          "SetAP(judged_only=True)", "NumQ", "NumRet", "NumRelRet", "NumRet(rel=2)", "NumRel", "Success@1",
          "Success@5", "Success(rel=3)@10", "Success(judged_only=True)@3"]
#: measures of its other providers: msmarco (RR@k), judged (Judged@k), gdeval.pl (ERR@k, exp-log2 nDCG@k)
OTHER = ["RR@5", "RR@10", "MRR@3", "RR(rel=2)@10", "Judged", "Judged@5", "Judged@10", "Judged@200", "ERR@10",
         "ERR@20", "nDCG(dcg='exp-log2')@10"]
#: gdeval.pl prints %.5f
GDEVAL = {"ERR@10", "ERR@20", "nDCG(dcg='exp-log2')@10"}


def _files(tmp_path, seed: int, *, n_topics: int = 24):
    """Random qrels + run (see the module docstring); returns their paths and the run's lines."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for t in range(1, n_topics + 1):
        pool = [f"d{rng.integers(0, 10 ** rng.integers(1, 4))}x{i}" for i in range(int(rng.integers(5, 40)))]
        in_qrels = t % 7 != 3                      # some topics only in the run
        in_run = t % 5 != 1                        # some only in the qrels
        if in_qrels:
            judged = rng.choice(len(pool), size=int(rng.integers(1, len(pool))), replace=False)
            for i in judged:
                g = int(rng.choice([0, 0, 1, 1, 2, 3, -1], p=[.3, .1, .25, .1, .12, .08, .05]))
                qrels.append(f"{t} 0 {pool[i]} {g}")
        if in_run:
            n = int(rng.integers(1, len(pool) + 1))
            for i, d in enumerate(rng.choice(len(pool), size=n, replace=False)):
                run.append(f"{t} Q0 {pool[d]} {i + 1} {int(rng.integers(0, 12)) / 10:.1f} r{seed}")
    (tmp_path / "qrels").write_text("\n".join(qrels) + "\n")
    (tmp_path / "run").write_text("\n".join(run) + "\n")
    return tmp_path / "qrels", tmp_path / "run", run


def _untied(tmp_path, run_lines) -> str:
    """The run with distinct scores in trec_eval's order (score, then docno descending)."""
    out = []
    by_topic: dict = {}
    for r in (line.split() for line in run_lines):
        by_topic.setdefault(r[0], []).append(r)
    for t, rs in by_topic.items():
        rs.sort(key=lambda r: (float(r[4]), r[2].encode()), reverse=True)
        out += [f"{t} Q0 {r[2]} {i + 1} {len(rs) - i} {r[5]}" for i, r in enumerate(rs)]
    path = tmp_path / "run.untied"
    path.write_text("\n".join(out) + "\n")
    return str(path)


def _ir(measures, qrels, run) -> dict:
    """{(label, qid): value} of ir_measures.iter_calc."""
    labels: dict = {}                   # AP and MAP are one measure to ir_measures
    for m in measures:
        labels.setdefault(str(ir_measures.parse_measure(m)), []).append(m)
    got = {}
    for x in ir_measures.iter_calc([ir_measures.parse_measure(m) for m in measures],
                                   ir_measures.read_trec_qrels(str(qrels)), ir_measures.read_trec_run(str(run))):
        for m in labels[str(x.measure)]:
            got[m, x.query_id] = x.value
    return got


def _ours(measures, qrels, run, **kw) -> dict:
    df = er.evaluate(str(qrels), {"run": str(run)}, measures, **kw)
    return {(m, q): v for m, q, v in zip(df.measure, df.qid, df.value)}


def _agree(ours: dict, theirs: dict, measures, tol=None):
    for m in measures:
        mine = {q: v for (mm, q), v in ours.items() if mm == m}
        other = {q: v for (mm, q), v in theirs.items() if mm == m}
        both = sorted(set(mine) & set(other))
        assert len(both) >= max(3, len(mine) // 2), (m, sorted(mine), sorted(other))
        for q in both:
            want = other[q]
            assert mine[q] == pytest.approx(want, abs=tol or 1e-12, rel=0 if tol else 1e-9, nan_ok=True), \
                (m, q, mine[q], want)       # nan: IPrec of a topic that judged_only leaves empty (C's -nan)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_pytrec_eval_measures_equal_ir_measures_per_topic(tmp_path, seed):
    qrels, run, _ = _files(tmp_path, seed)
    # ir_measures' pytrec_eval provider runs NumRet and NumQ in whichever trec_eval invocation it
    # made first, with that one's rel and judged_only (a set's order): they are asked for alone
    alone = ["NumRet", "NumQ"]
    theirs = _ir([m for m in PYTREC if m not in alone], qrels, run) | _ir(alone, qrels, run)
    _agree(_ours(PYTREC, qrels, run), theirs, PYTREC)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_other_providers_measures_equal_ir_measures_per_topic(tmp_path, seed):
    qrels, run, lines = _files(tmp_path, seed)
    untied = _untied(tmp_path, lines)
    ours, theirs = _ours(OTHER, qrels, run), _ir(OTHER, qrels, untied)
    _agree(ours, theirs, [m for m in OTHER if m not in GDEVAL])
    _agree(ours, theirs, [m for m in OTHER if m in GDEVAL], tol=5.1e-6)


@pytest.mark.parametrize("seed", [4, 5])
def test_the_calls_level_and_judged_only_are_the_defaults_of_rel_and_judged_only(tmp_path, seed):
    """A name without rel= / judged_only= follows relevance_level (-l) and judged_only (-J):
    P@5 under relevance_level=2 is ir_measures' P(rel=2)@5; a name that gives them keeps them."""
    qrels, run, _ = _files(tmp_path, seed)
    plain = ["AP", "P@5", "R@10", "RR", "Rprec", "Bpref", "infAP", "SetF", "NumRelRet", "Success@5", "IPrec@0.4"]
    at2 = [m.replace("@", "(rel=2)@", 1) if "@" in m else f"{m}(rel=2)" for m in plain]
    ours = _ours(plain + ["P(rel=1)@5"], qrels, run, relevance_level=2)
    theirs = _ir(at2 + ["P@5"], qrels, run)
    theirs = {(plain[at2.index(m)] if m in at2 else "P(rel=1)@5", q): v for (m, q), v in theirs.items()}
    _agree(ours, theirs, plain + ["P(rel=1)@5"])
    jo = ["AP", "P@10", "nDCG@10", "RR", "SetP"]
    jo_ir = [m.replace("@", "(judged_only=True)@", 1) if "@" in m else f"{m}(judged_only=True)" for m in jo]
    res = evaluate_trec(str(qrels), [str(run)], jo + ["P(judged_only=False)@10"], judged_only=True)[0]
    ours = {(c, q): res.values[i, j] for i, q in enumerate(res.qids) for j, c in enumerate(res.columns)}
    theirs = _ir(jo_ir + ["P@10"], qrels, run)
    theirs = {(jo[jo_ir.index(m)] if m in jo_ir else "P(judged_only=False)@10", q): v for (m, q), v in theirs.items()}
    _agree(ours, theirs, jo + ["P(judged_only=False)@10"])


def test_means_over_every_qrels_topic_equal_ir_measures_aggregates(tmp_path):
    """ir_measures' aggregate counts the qrels topics the run lacks as 0, as trec_eval -c does."""
    qrels, run, _ = _files(tmp_path, 6)
    means = ["AP", "P(rel=2)@5", "nDCG@10", "RR", "R@100", "Bpref", "SetF"]
    res = evaluate_trec(str(qrels), [str(run)], means, complete=True)[0]
    assert res.missing.any()
    got = res.means()
    agg = ir_measures.calc_aggregate([ir_measures.parse_measure(m) for m in means],
                                     ir_measures.read_trec_qrels(str(qrels)), ir_measures.read_trec_run(str(run)))
    for m in means:
        assert got[m] == pytest.approx(agg[ir_measures.parse_measure(m)], rel=1e-12), m


def test_ties_rr_at_k_is_trec_evals_recip_rank_of_the_first_k(tmp_path):
    """On the tied run itself: RR@k is trec_eval's recip_rank with -M k, i.e. ir_measures' RR
    (its pytrec_eval provider, trec_eval's tie order) when the first relevant document is in
    the top k, else 0; Judged@k counts the judged documents among trec_eval's first k."""
    qrels, run, lines = _files(tmp_path, 7)
    ours = _ours(["RR@3", "RR@10", "Judged@4"], qrels, run)
    rr = {q: v for (m, q), v in _ir(["RR"], qrels, run).items()}
    for k in (3, 10):
        vals = {q: v for (m, q), v in ours.items() if m == f"RR@{k}"}
        assert vals and all(v == (rr[q] if rr[q] >= 1 / k - 1e-15 else 0.0) for q, v in vals.items())
    judged = {}
    for line in qrels.read_text().splitlines():
        t, _, d, _ = line.split()
        judged.setdefault(t, set()).add(d)
    ranked = {}
    for r in (line.split() for line in lines):
        ranked.setdefault(r[0], []).append((float(np.float32(r[4])), r[2].encode(), r[2]))
    hits = {q: v for (m, q), v in ours.items() if m == "Judged@4"}
    for q, v in hits.items():
        top = sorted(ranked[q], reverse=True)[:4]
        assert v == sum(d in judged[q] for _, _, d in top) / len(top)
    assert any(0 < v < 1 for v in hits.values())


def test_rbp_is_trec_eval_10s_rbp(tmp_path):
    """ir_measures (0.4.3) computes RBP only through cwl_eval, which is not installed here; RBP(rel=l,
    p=x) is (1 - p) * sum over ranks i (0-based) of p^i for documents of grade >= l, RBP(p=x)
    the same with grade / (the topic's highest grade) as the gain (trec_eval 10's rbp.p=x)."""
    qrels, run, lines = _files(tmp_path, 8)
    ours = _ours(["RBP(rel=2,p=0.7)", "RBP(p=0.5)", "RBP(rel=1)@3"], qrels, run)
    grades, top = {}, {}
    for line in qrels.read_text().splitlines():
        t, _, d, g = line.split()
        grades[t, d] = int(g)
        top[t] = max(top.get(t, 0), int(g))
    ranked = {}
    for r in (line.split() for line in lines):
        ranked.setdefault(r[0], []).append((float(np.float32(r[4])), r[2].encode(), r[2]))
    n = 0
    for (m, q), v in ours.items():
        docs = [d for _, _, d in sorted(ranked[q], reverse=True)]
        g = [grades.get((q, d), -1) for d in docs]
        if m == "RBP(rel=2,p=0.7)":
            want = 0.3 * sum(0.7 ** i for i, x in enumerate(g) if x >= 2)
        elif m == "RBP(rel=1)@3":
            want = 0.2 * sum(0.8 ** i for i, x in enumerate(g[:3]) if x >= 1)
        else:
            scale = top[q] if top[q] > 1 else 1
            want = 0.5 * sum(0.5 ** i * x / scale for i, x in enumerate(g) if x > 0)
        assert v == pytest.approx(want, abs=1e-12), (m, q)
        n += want > 0
    assert n > 10


def test_the_output_is_named_as_written(tmp_path):
    from cli_run import evalrank

    qrels, run, _ = _files(tmp_path, 9)
    df = er.evaluate(str(qrels), str(run), ["P(rel=2)@5", "map", "AP@100", "P.5", "ERR@20", "ndcg@10"])
    assert list(dict.fromkeys(df.measure)) == ["map", "P_5", "P(rel=2)@5", "AP@100", "ERR@20", "ndcg@10"]
    out = evalrank("evaluate", "-q", "-m", "P(rel=2)@5", "-m", "map", "-m", "NumQ", "-m", "Judged@10", qrels, run)
    assert out.returncode == 0, out.stderr
    lines = [line.split("\t") for line in out.stdout.splitlines()]
    assert {c[0].strip() for c in lines} == {"map", "P(rel=2)@5", "NumQ", "Judged@10"}
    assert ["NumQ", "all"] in [[c[0].strip(), c[1]] for c in lines]          # counted, not shown per topic
    assert not any(c[0].strip() == "NumQ" and c[1] != "all" for c in lines)
    allmap = [c for c in lines if c[0].strip() == "map" and c[1] == "all"]
    assert len(allmap) == 1 and lines[0][0] == "map                   "    # trec_eval's %-22s


def test_an_unknown_measure_is_one_line_in_the_cli(tmp_path):
    from cli_run import evalrank

    qrels, run, _ = _files(tmp_path, 10)
    out = evalrank("evaluate", "-m", "ndcg_cutt.10", qrels, run)
    assert out.returncode != 0 and "Traceback" not in out.stderr
    assert out.stderr.startswith("evalrank ") and out.stderr.count("\n") == 1    # the prefix: tests/test_cli_errors.py
    assert out.stderr.endswith(" error: measure 'ndcg_cutt.10' is not known; nearest: ndcg_cut, ndcg, ndcg_rel\n")
    out = evalrank("evaluate", "-m", "SDCG@10", qrels, run)
    assert out.returncode != 0 and out.stderr.count("\n") == 1 and "not computed by evalrank" in out.stderr
