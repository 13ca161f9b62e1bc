"""The ranking kernel (evaluation.engine.rank_run) against trec_eval's rule written out in
Python: score decreasing (float32 as trec_eval 9 stores it, or float64), then document id
decreasing (strcmp), then file order; relevance -1 unjudged, -2 judged negative. Lines of a
topic together (used in place) or spread (counting sort), in rank order (not sorted again)
or not (radix sort + ties by id), ties of float32 rounding, 0.0 and -0.0, -M."""

from __future__ import annotations

import numpy as np
import pytest

from evalrank import _jit
from evalrank.evaluation.engine import index_qrels, rank_run
from evalrank.evaluation.inputs import as_trec


def _case(seed: int):
    rng = np.random.default_rng(seed)
    rows = []
    for q in range(12):
        m = int(rng.integers(1, 90))
        docs = rng.choice(400, size=m, replace=False)
        kind = q % 4
        if kind == 0:
            s = rng.random(m)
        elif kind == 1:
            s = np.round(rng.random(m), 1)                               # heavy ties
        elif kind == 2:
            s = 1.0 + rng.integers(0, 3, m) * 2.0 ** -30                 # equal in float32 only
        else:
            s = rng.choice([0.0, -0.0, 1e-300, -1e-300, 3.5, -2.0], m)   # 0 == -0; tiny ones
        rows += [(f"t{q:02d}", f"D{d}", float(v)) for d, v in zip(docs, s)]
    qrels = [(f"t{q:02d}", f"D{d}", int(rng.integers(-2, 4))) for q in range(12)
             for d in rng.choice(400, size=int(rng.integers(1, 60)), replace=False)]
    return rows, qrels


def _reference(rows, qrels, f32: bool, max_docs):
    rel = {(q, d): r for q, d, r in qrels}
    out = {}
    for q in sorted({q for q, _, _ in rows} & {q for q, _, _ in qrels}):
        mine = [(j, d, s) for j, (qq, d, s) in enumerate(rows) if qq == q]
        key = (lambda x: float(np.float32(x))) if f32 else float
        ranked = sorted(mine, key=lambda t: (-key(t[2]), [-b for b in t[1].encode()] + [1], t[0]))
        ranked = ranked[:max_docs]
        out[q] = ([j for j, _, _ in ranked],
                  [(-1 if (q, d) not in rel else (rel[(q, d)] if rel[(q, d)] >= 0 else -2)) for _, d, _ in ranked])
    return out


def _columns(rows):
    q, d, s = zip(*rows)
    return {"query_id": np.array(q, dtype=object), "doc_id": np.array(d, dtype=object), "score": np.array(s)}


@pytest.mark.parametrize("mode", ["python", "numba"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rank_run_is_trec_evals_order(mode, seed):
    rows, qrels = _case(seed)
    rng = np.random.default_rng(seed + 100)
    layouts = {
        "together, unsorted": rows,
        "together, in rank order": [rows[j] for j in np.lexsort(([r[2] for r in rows], [r[0] for r in rows]))[::-1]],
        "spread": [rows[j] for j in rng.permutation(len(rows))],
    }
    q = {"query_id": np.array([x[0] for x in qrels], dtype=object), "doc_id": np.array([x[1] for x in qrels], dtype=object),
         "relevance": np.array([x[2] for x in qrels])}
    with _jit.mode(mode):
        index = index_qrels(as_trec(q, "qrels"))
        for name, layout in layouts.items():
            run = as_trec(_columns(layout), "run")
            for precision, f32 in (("float32", True), (None, False)):
                for max_docs in (None, 7):
                    got = rank_run(run, index, name="r", precision=precision, max_docs=max_docs)
                    want = _reference(layout, qrels, f32, max_docs or 10 ** 9)
                    assert got.qids == sorted(want), name
                    for i, t in enumerate(got.qids):
                        lo, hi = got.offsets[i], got.offsets[i + 1]
                        assert got.rows[lo:hi].tolist() == want[t][0], (name, precision, max_docs, t)
                        assert got.rels[lo:hi].tolist() == want[t][1], (name, precision, max_docs, t)


def test_a_document_retrieved_twice_or_judged_twice_is_refused_naming_the_line():
    run = {"query_id": np.array(["a", "a", "b", "a"]), "doc_id": np.array(["x", "y", "x", "x"]),
           "score": np.array([0.3, 0.2, 0.1, 0.05])}
    q = {"query_id": np.array(["a", "b"]), "doc_id": np.array(["x", "x"]), "relevance": np.array([1, 1])}
    with pytest.raises(ValueError, match="run:4: document 'x' retrieved twice for topic 'a'"):
        rank_run(as_trec(run, "run"), index_qrels(as_trec(q, "qrels")), name="run")
    q2 = {"query_id": np.array(["b", "a", "a", "a"]), "doc_id": np.array(["x", "x", "y", "x"]),
          "relevance": np.array([1, 1, 0, 2])}
    run["doc_id"] = np.array(["x", "y", "x", "z"])
    with pytest.raises(ValueError, match=r"qrels:4: document 'x' judged twice for topic 'a' \(first on line 2"):
        rank_run(as_trec(run, "run"), index_qrels(as_trec(q2, "qrels")), name="run")
