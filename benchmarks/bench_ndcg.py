"""NDCG@10 over 30,000 queries x 120 documents: evalrank vs ranx (after its
numba warm-up) vs pytrec_eval vs scikit-learn, same arrays, same run.

    .venv/bin/python benchmarks/bench_ndcg.py [--queries 30000] [--docs 120]

Scores are tie-free so that every tool computes the same numbers (checked).
ranx / pytrec_eval time their evaluate() call on prebuilt Qrels/Run
(dict) objects -- building those dicts costs extra and is reported apart.
scikit-learn gets a (queries x docs) matrix (equal list lengths).
"""

import argparse
import time

import numpy as np
from bench_active import best  # min wall time of repeated calls (run from benchmarks/)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--queries", type=int, default=30_000)
    ap.add_argument("--docs", type=int, default=120)
    a = ap.parse_args()
    from evalrank.metrics import ndcg

    rng = np.random.default_rng(0)
    nq, nd = a.queries, a.docs
    n = nq * nd
    offsets = np.arange(nq + 1, dtype=np.int64) * nd
    labels = np.minimum(rng.geometric(0.55, size=n) - 1, 4)
    scores = rng.permutation(n).astype(np.float64) / n
    rows = {}
    ndcg(scores[:1200], labels[:1200], offsets[:11], 10)  # warm
    t, ours = best(lambda: ndcg(scores, labels, offsets, 10, convention="trec", precision="float64", ties="stable"))
    rows["evalrank ndcg (trec, linear gain)"] = t
    t, ours_exp = best(lambda: ndcg(scores, labels, offsets, 10))
    rows["evalrank ndcg (default, exp gain)"] = t

    import ranx

    qids = [f"q{i}" for i in range(nq)]
    docs = [f"d{j}" for j in range(nd)]
    t0 = time.perf_counter()
    qrels_d = {q: {docs[j]: int(labels[i * nd + j]) for j in range(nd) if labels[i * nd + j] > 0} for i, q in enumerate(qids)}
    run_d = {q: {docs[j]: float(scores[i * nd + j]) for j in range(nd)} for i, q in enumerate(qids)}
    build = time.perf_counter() - t0
    qrels, run = ranx.Qrels(qrels_d), ranx.Run(run_d)
    ranx.evaluate(qrels, run, "ndcg@10")  # numba compile / warm-up
    t, rx = best(lambda: ranx.evaluate(qrels, run, "ndcg@10", return_mean=False))
    rows["ranx evaluate ndcg@10 (warm)"] = t
    order = np.argsort(qids)  # ranx returns queries in sorted-id order
    ranx_diff = np.abs(np.asarray(rx) - ours[order]).max() if np.ndim(rx) else np.nan

    import pytrec_eval

    ev = pytrec_eval.RelevanceEvaluator(qrels_d, {"ndcg_cut.10"})
    t, pt = best(lambda: ev.evaluate(run_d), repeats=1)
    rows["pytrec_eval evaluate ndcg_cut.10"] = t
    pt_diff = max(abs(pt[q]["ndcg_cut_10"] - ours[i]) for i, q in enumerate(qids))

    from sklearn.metrics import ndcg_score

    Y, S = labels.reshape(nq, nd).astype(float), scores.reshape(nq, nd)
    t, sk = best(lambda: ndcg_score(Y, S, k=10), repeats=1)
    rows["scikit-learn ndcg_score (ties averaged)"] = t
    sk_diff = abs(sk - ours.mean())

    base = rows["evalrank ndcg (trec, linear gain)"]
    print(f"{nq} queries x {nd} docs; ranx/pytrec_eval dict building: {build:.2f} s (not in their times)")
    print("| implementation | seconds | ratio to evalrank |")
    print("|---|---|---|")
    for name, sec in rows.items():
        print(f"| {name} | {sec:.3f} | {sec / base:.1f}x |")
    print(f"max |diff| vs evalrank: ranx {ranx_diff:.1e}, pytrec_eval {pt_diff:.1e} (float32 scores), "
          f"sklearn mean {sk_diff:.1e}")


if __name__ == "__main__":
    main()
