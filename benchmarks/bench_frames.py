"""``evalrank.evaluate`` on in-memory qrels and runs, as users call it, against the peers'
public calls on the same data (issue 28, item 4).

    .venv/bin/python benchmarks/bench_frames.py [--queries 30000] [--docs 120] [--repeats 3]
                                                [--cases object,string,int,U,S,flat-object]

Every case evaluates ``map`` and ``ndcg_cut.10`` (trec_eval's names; ``AP`` and ``nDCG@10`` in
ir_measures, ``map`` and ``ndcg@10`` in ranx) from the same qrels and run, and every tool starts
from the same in-memory input, so whatever a tool needs to build from it is inside its time:

* DataFrames (ir_measures' column names ``query_id``, ``doc_id``, ``relevance`` / ``score``),
  ids as object-dtype columns (``object``) or pandas' string dtype (``string``):
  ``evalrank.evaluate(qrels_df, run_df, ["map", "ndcg_cut.10"])`` against pytrec_eval
  (its ``{qid: {docno: value}}`` dicts built from the DataFrame's columns, then
  ``RelevanceEvaluator(...).evaluate``), ir_measures (``iter_calc([AP, nDCG@10], qrels_df,
  run_df)``, every per-topic value collected) and ranx (``Qrels.from_df`` / ``Run.from_df``,
  then ``evaluate(..., return_mean=False)``; string-dtype id columns made object columns first,
  which ranx requires);
* flat arrays: the same columns as a dict of numpy arrays, ids as int64 (``int``), numpy
  unicode (``U``), bytes (``S``) or object str (``flat-object``):
  ``evalrank.evaluate({"query_id": ..., "doc_id": ..., "relevance": ...}, {...}, ...)``
  against pytrec_eval with its dicts built from the arrays (``tolist()``; ints made ``str``,
  bytes decoded).

Timing: tools interleaved in each round (evalrank, then each peer), one warm-up round, then the
best of ``--repeats`` rounds of wall time (``time.perf_counter``; the ratios) and, beside it, of
the process's CPU time (``time.process_time``, all threads: on a machine shared with other jobs
it moves less than wall time), in one process; numba's threads as the environment sets them
(``NUMBA_NUM_THREADS``). Values: every tool's per-topic
values are compared with evalrank's (max |diff|), and the script exits 1 where one differs by
more than 1e-12 (ranx: 1e-9).

Data (seeded): ``--queries`` topics, ``--docs`` retrieved documents each, scores a random
permutation (no tie, also in float32), rows of a topic together but not in rank order; ids like
``msmarco_doc_12_3456789`` (int case: 9-digit numbers); qrels: about half of the retrieved
documents judged (grades 0-4, geometric) plus 10 unretrieved judged documents per topic.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _machine import cpu_model  # noqa: E402

MEASURES = ["map", "ndcg_cut.10"]
CASES = ("object", "string", "int", "U", "S", "flat-object")


# ---------------------------------------------------------------------------
# data
# ---------------------------------------------------------------------------
def make_data(nq: int, nd: int, seed: int = 0) -> dict:
    """Integer ids and values of the run and the qrels (made into the cases' inputs by ``inputs``)."""
    rng = np.random.default_rng(seed)
    n = nq * nd
    qnum = rng.choice(10 ** 6, size=nq, replace=False)
    base = rng.integers(0, 10 ** 9 - 10 ** 7, size=nq)
    # per topic nd + 10 distinct documents: the run retrieves the first nd
    slots = (np.arange(nd + 10) * 7919) % 10 ** 7
    pool = base[:, None] + slots[None, :]
    r_q = np.repeat(qnum, nd)
    r_d = pool[:, :nd].ravel()
    r_s = rng.permutation(n).astype(np.float64) / n
    grade = np.minimum(rng.geometric(0.55, size=(nq, nd + 10)) - 1, 4)
    judged = np.concatenate([rng.random((nq, nd)) < 0.5, np.ones((nq, 10), dtype=bool)], axis=1)
    q_q = np.repeat(qnum, nd + 10).reshape(nq, nd + 10)[judged]
    q_d = pool[judged]
    q_r = grade[judged]
    return dict(run=(r_q, r_d, r_s), qrels=(q_q, q_d, q_r))


def _ids(a: np.ndarray, kind: str, prefix: str) -> np.ndarray:
    """The ids of ``a`` (ints) as the case's dtype."""
    if kind == "int":
        return a.astype(np.int64)
    if prefix == "q":
        u = np.char.add("q", a.astype("U9"))
    else:  # msmarco_doc_NN_NNNNNNN
        u = np.char.add(np.char.add("msmarco_doc_", np.char.zfill((a // 10 ** 7).astype("U2"), 2)),
                        np.char.add("_", (a % 10 ** 7).astype("U7")))
    if kind == "U":
        return u
    if kind == "S":
        return u.astype("S")
    return u.astype(object)


def inputs(data: dict, case: str):
    """(qrels, run) as the user has them in ``case``."""
    import pandas as pd

    kind = {"object": "object", "string": "object", "flat-object": "object"}.get(case, case)
    out = []
    for what, vname in (("qrels", "relevance"), ("run", "score")):
        q, d, v = data[what]
        cols = {"query_id": _ids(q, kind, "q"), "doc_id": _ids(d, kind, "d"), vname: v}
        if case == "object":
            cols = pd.DataFrame({k: pd.Series(x, dtype=object) if x.dtype == object else x for k, x in cols.items()})
        elif case == "string":
            cols = pd.DataFrame({k: pd.array(x, dtype="string") if x.dtype == object else x for k, x in cols.items()})
        out.append(cols)
    return out[0], out[1]


# ---------------------------------------------------------------------------
# the tools, each from the case's input
# ---------------------------------------------------------------------------
def _strings(a) -> list:
    """A column as a list of str (what pytrec_eval needs)."""
    if hasattr(a, "to_numpy"):
        a = a.to_numpy()
    if a.dtype.kind == "S":
        return [x.decode() for x in a.tolist()]
    if a.dtype.kind in "iu":
        return list(map(str, a.tolist()))
    return a.tolist()


def _nested(q, d, v) -> dict:
    out: dict = {}
    for a, b, c in zip(q, d, v):
        try:
            out[a][b] = c
        except KeyError:
            out[a] = {b: c}
    return out


def t_evalrank(qrels, run):
    import evalrank

    df = evalrank.evaluate(qrels, run, MEASURES)
    return {(q, m): v for q, m, v in zip(df.qid.tolist(), df.measure.tolist(), df.value.tolist())}


def t_pytrec_eval(qrels, run):
    import pytrec_eval

    qd = _nested(_strings(qrels["query_id"]), _strings(qrels["doc_id"]),
                 np.asarray(qrels["relevance"]).astype(int).tolist())
    rd = _nested(_strings(run["query_id"]), _strings(run["doc_id"]), np.asarray(run["score"], dtype=float).tolist())
    res = pytrec_eval.RelevanceEvaluator(qd, {"map", "ndcg_cut.10"}).evaluate(rd)
    return {(q, m): v[m] for q, v in res.items() for m in ("map", "ndcg_cut_10")}


def t_ir_measures(qrels, run):
    import ir_measures
    from ir_measures import AP, nDCG

    names = {str(AP): "map", str(nDCG @ 10): "ndcg_cut_10"}
    return {(m.query_id, names[str(m.measure)]): m.value for m in ir_measures.iter_calc([AP, nDCG @ 10], qrels, run)}


def t_ranx(qrels, run):
    import ranx

    # ranx refuses id columns of pandas' string dtype: made object columns first, as a user must
    qrels = qrels.astype({c: object for c in ("query_id", "doc_id") if qrels[c].dtype != object})
    run = run.astype({c: object for c in ("query_id", "doc_id") if run[c].dtype != object})
    qr = ranx.Qrels.from_df(qrels, q_id_col="query_id", doc_id_col="doc_id", score_col="relevance")
    rr = ranx.Run.from_df(run, q_id_col="query_id", doc_id_col="doc_id", score_col="score")
    res = ranx.evaluate(qr, rr, ["map", "ndcg@10"], return_mean=False)
    qids = list(rr.keys())
    return {**{(q, "map"): float(v) for q, v in zip(qids, res["map"])},
            **{(q, "ndcg_cut_10"): float(v) for q, v in zip(qids, res["ndcg@10"])}}


TOOLS = {"evalrank": ("`evalrank.evaluate(qrels, run, [\"map\", \"ndcg_cut.10\"])`", t_evalrank),
         "pytrec_eval": ("pytrec_eval: dicts from the columns + `RelevanceEvaluator.evaluate`", t_pytrec_eval),
         "ir_measures": ("ir_measures `iter_calc([AP, nDCG@10], qrels_df, run_df)`", t_ir_measures),
         "ranx": ("ranx `Qrels.from_df` / `Run.from_df` + `evaluate(..., return_mean=False)`", t_ranx)}


def compare(ref: dict, got: dict) -> tuple[float, int]:
    """Max |diff| over the (topic, measure) pairs of ``ref`` (ids as str) and how many are missing."""
    g = {(str(q), m): v for (q, m), v in got.items()}
    diff, missing = 0.0, 0
    for (q, m), v in ref.items():
        w = g.get((str(q), m))
        if w is None:
            missing += 1
        else:
            diff = max(diff, abs(w - v))
    return diff, missing


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--queries", type=int, default=30_000)
    ap.add_argument("--docs", type=int, default=120)
    ap.add_argument("--repeats", type=int, default=3, help="timed rounds after the warm-up round, best taken")
    ap.add_argument("--cases", default=",".join(CASES), help=f"comma-separated, of {', '.join(CASES)}")
    ap.add_argument("--tools", default="evalrank,pytrec_eval,ir_measures,ranx",
                    help="peers for the DataFrame cases (flat arrays: evalrank and pytrec_eval)")
    a = ap.parse_args()
    import numba
    import pandas as pd

    cases = a.cases.split(",")
    unknown = set(cases) - set(CASES)
    if unknown:
        raise SystemExit(f"unknown cases {sorted(unknown)}")
    print(f"machine: {cpu_model()}, {os.cpu_count()} logical CPUs, numba threads {numba.get_num_threads()}; Python "
          f"{platform.python_version()}, numpy {np.__version__}, pandas {pd.__version__}, numba {numba.__version__}; "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"{a.queries} topics x {a.docs} documents; measures {MEASURES}; tools interleaved, one warm-up round, "
          f"best of {a.repeats}")
    data = make_data(a.queries, a.docs)
    nj = data["qrels"][0].size
    print(f"run rows {a.queries * a.docs:,}, qrels rows {nj:,}")
    problems, summary = [], []
    for case in cases:
        qrels, run = inputs(data, case)
        frame = case in ("object", "string")
        tools = [t for t in a.tools.split(",") if frame or t in ("evalrank", "pytrec_eval")]
        times = {t: [] for t in tools}
        cpu = {t: [] for t in tools}
        vals = {}
        for r in range(a.repeats + 1):
            for t in tools:
                c0, t0 = time.process_time(), time.perf_counter()
                out = TOOLS[t][1](qrels, run)
                dt, dc = time.perf_counter() - t0, time.process_time() - c0
                if r:
                    times[t].append(dt)
                    cpu[t].append(dc)
                else:
                    vals[t] = out
        dtype = (f"DataFrame, ids {qrels['doc_id'].dtype}" if frame else
                 f"dict of numpy arrays, ids {np.asarray(qrels['doc_id']).dtype}")
        print(f"\n### {case}: {dtype}\n")
        print("| tool | seconds (best) | all rounds | its time / evalrank's | CPU seconds (best) | "
              "max abs diff vs evalrank |")
        print("|---|---|---|---|---|---|")
        er = min(times["evalrank"])
        for t in tools:
            d, miss = compare(vals["evalrank"], vals[t]) if t != "evalrank" else (0.0, 0)
            tol = 1e-9 if t == "ranx" else 1e-12
            if miss or d > tol:
                problems.append(f"{case}, {t}: max |diff| {d:.1e}, {miss} values missing")
            best = min(times[t])
            print(f"| {TOOLS[t][0]} | {best:.3f} | {', '.join(f'{x:.2f}' for x in times[t])} | {best / er:.2f}x | "
                  f"{min(cpu[t]):.3f} | "
                  + (f"{d:.1e}" + (f" ({miss} missing)" if miss else "") if t != "evalrank" else "") + " |")
            if t != "evalrank":
                summary.append((case, t, best / er))
    print("\n| case | peer | evalrank's speed-up |\n|---|---|---|")
    for case, t, r in summary:
        print(f"| {case} | {t} | {r:.2f}x |")
    print(f"\nload average at the end: {os.getloadavg()[0]:.2f}")
    if problems:
        print("\n**DIFFERENCES:**\n" + "\n".join(f"- {p}" for p in problems))
        sys.exit(1)


if __name__ == "__main__":
    main()
