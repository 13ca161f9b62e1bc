"""``ties="stable"`` in evaluate's own measures: tied scores keep the run's order of lines (as a
stable sort of the file would, RankLib's rule), not trec_eval's order (score, then docno
descending). Checked against a brute force written here with Python's stable ``sorted``."""

from __future__ import annotations

import math

import numpy as np
import pytest

from evalrank.evaluation.evaluate import evaluate


def _brute_ndcg(lines, judged, k, gain):
    """NDCG@k of one topic: ``lines`` [(doc, score)] in file order, ``judged`` {doc: grade};
    a stable sort by score (ties keep file order), the ideal from every judgment, padded."""
    g = (lambda y: 2.0 ** y - 1) if gain == "exp" else float
    ranked = sorted(lines, key=lambda ds: -ds[1])[:k]
    dcg = sum(g(max(judged.get(d, 0), 0)) / math.log2(i + 2) for i, (d, _) in enumerate(ranked))
    ideal = sorted((max(v, 0) for v in judged.values()), reverse=True)[:k]
    idcg = sum(g(y) / math.log2(i + 2) for i, y in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("measure,gain", [("ndcg(convention=letor3)@5", "exp"),
                                          ("ndcg(convention=trec,ties=stable)@5", "linear")])
def test_stable_ties_follow_the_file_order(tmp_path, seed, measure, gain):
    rng = np.random.default_rng(seed)
    qrels, run, want = [], [], {}
    for t in range(8):
        qid = f"q{t}"
        n = int(rng.integers(3, 15))
        docs = [f"d{j:02d}" for j in rng.permutation(n)]        # neither sorted up nor down
        grades = {d: int(rng.integers(0, 4)) for d in docs}
        grades[docs[0]] = max(grades[docs[0]], 1)                # a relevant document in every topic
        scores = rng.integers(0, 3, n).astype(float)           # many ties
        qrels += [f"{qid} 0 {d} {g}" for d, g in grades.items()]
        run += [f"{qid} Q0 {d} {i + 1} {s} tag" for i, (d, s) in enumerate(zip(docs, scores))]
        want[qid] = _brute_ndcg(list(zip(docs, scores)), grades, 5, gain)
    (tmp_path / "qrels").write_text("\n".join(qrels) + "\n")
    (tmp_path / "run").write_text("\n".join(run) + "\n")
    df = evaluate(tmp_path / "qrels", tmp_path / "run", [measure], precision=None)
    got = dict(zip(df["qid"], df["value"]))
    assert got.keys() == want.keys()
    for q in want:
        assert got[q] == pytest.approx(want[q], abs=1e-12), q
    # the rule matters on this input: trec_eval's order (docno descending among ties) differs somewhere
    docid = evaluate(tmp_path / "qrels", tmp_path / "run", [measure.replace("stable", "docid") if "stable" in measure
                                                             else measure.replace(")@", ",ties=docid)@")],
                     precision=None)
    assert not np.allclose(docid["value"].to_numpy(), df["value"].to_numpy())


def test_a_skipped_topic_is_left_out_of_the_all_line(tmp_path):
    """gdeval's empty='skip': a topic without a relevant document is NaN and leaves the mean
    (and its count), in the CLI's 'all' line as in summarize() of the frame."""
    from cli_run import evalrank

    from evalrank.evaluation.evaluate import summarize

    (tmp_path / "qrels").write_text("1 0 a 1\n1 0 b 0\n2 0 c 0\n3 0 d 2\n3 0 e 1\n")
    (tmp_path / "run").write_text("1 Q0 b 1 2.0 r\n1 Q0 a 2 1.0 r\n2 Q0 c 1 1.0 r\n3 Q0 e 1 2.0 r\n3 Q0 d 2 1.0 r\n")
    m = "ndcg(convention=gdeval)@10"
    out = evalrank("evaluate", "-q", "-m", m, tmp_path / "qrels", tmp_path / "run")
    lines = {q: v for _, q, v in (line.split("\t") for line in out.stdout.splitlines())}
    assert lines["2"].strip() == "nan"
    # topic 1: a at rank 2 -> 1/log2(3); topic 3: (1 + 3/log2(3)) / (3 + 1/log2(3))
    import math

    want = (1 / math.log2(3) + (1 + 3 / math.log2(3)) / (3 + 1 / math.log2(3))) / 2
    assert float(lines["all"]) == pytest.approx(want, abs=5e-5)
    df = summarize(evaluate(tmp_path / "qrels", tmp_path / "run", [m]))
    assert df["value"].iloc[0] == pytest.approx(want, abs=1e-12)
