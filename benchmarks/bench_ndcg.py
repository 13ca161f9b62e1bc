"""A kernel figure: NDCG@10 over 30,000 queries x 120 documents, evalrank's metric kernel
(``evalrank.metrics.ndcg`` on flat arrays already grouped by query) against pytrec_eval's, ranx's
and scikit-learn's evaluation calls on inputs built before the timing, every tool timed the same
way (one warm-up call, then the best of ``--repeats`` calls), values compared.

This is not what a user of ``evalrank.evaluate`` gets: here evalrank reads no ids and matches no
judgments (the labels come aligned with the scores), while pytrec_eval and ranx still walk their
nested dicts. Its ratio is a kernel's, not a user path's; ``evalrank.evaluate`` on DataFrames and
column arrays against the peers' whole calls from the same input is ``bench_frames.py``.

    .venv/bin/python benchmarks/bench_ndcg.py [--queries 30000] [--docs 120] [--repeats 3]

evalrank is timed as a user gets it for trec_eval's numbers: ``ndcg(..., convention="trec",
doc_ids=<the documents' string ids>)`` -- the ``trec`` preset (linear gain, trec_eval's rule of
ordering tied scores by document id, float32 scores). Two score sets: tie-free (a permutation)
and heavy ties (the same scores rounded to one decimal, so nearly every document shares its
score with others of its query). pytrec_eval / ranx time their evaluate() call on prebuilt
dicts (building them costs extra and is reported apart); scikit-learn gets a (queries x docs)
matrix. pytrec_eval must equal evalrank's trec preset on both sets; ranx (ties by its own order)
and scikit-learn (ties averaged) are compared on the tie-free set only.
"""

import argparse
import time

import numpy as np
from bench_active import best  # min wall time of repeated calls (run from benchmarks/)


def timed(fn, repeats):
    fn()  # the same warm-up for every tool (ranx compiles its numba kernels here)
    return best(fn, repeats=repeats)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--queries", type=int, default=30_000)
    ap.add_argument("--docs", type=int, default=120)
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()
    from evalrank.metrics import ndcg

    rng = np.random.default_rng(0)
    nq, nd, rep = a.queries, a.docs, a.repeats
    n = nq * nd
    offsets = np.arange(nq + 1, dtype=np.int64) * nd
    labels = np.minimum(rng.geometric(0.55, size=n) - 1, 4)
    tie_free = rng.permutation(n).astype(np.float64) / n
    cases = {"tie-free": tie_free, "heavy ties (one decimal)": np.round(tie_free, 1)}
    qids = [f"q{i}" for i in range(nq)]
    docs = [f"d{j}" for j in range(nd)]
    doc_ids = np.array(docs * nq)

    import pytrec_eval
    import ranx
    from sklearn.metrics import ndcg_score

    qrels_d = {q: {docs[j]: int(labels[i * nd + j]) for j in range(nd) if labels[i * nd + j] > 0}
               for i, q in enumerate(qids)}
    order = np.argsort(qids)  # ranx returns queries in sorted-id order
    print(f"{nq} queries x {nd} docs; every tool: one warm-up call, then the best of {rep}")
    for case, scores in cases.items():
        rows, notes = {}, []
        t, ours = timed(lambda: ndcg(scores, labels, offsets, 10, convention="trec", doc_ids=doc_ids), rep)
        rows['evalrank `ndcg(..., convention="trec", doc_ids=ids)`'] = t
        t, _ = timed(lambda: ndcg(scores, labels, offsets, 10, convention="trec", precision="float64",
                                  ties="stable"), rep)
        rows['evalrank `ndcg(..., convention="trec", precision="float64", ties="stable")` (not trec_eval\'s ties)'] = t

        t0 = time.perf_counter()
        run_d = {q: {docs[j]: float(scores[i * nd + j]) for j in range(nd)} for i, q in enumerate(qids)}
        build = time.perf_counter() - t0
        ev = pytrec_eval.RelevanceEvaluator(qrels_d, {"ndcg_cut.10"})
        t, pt = timed(lambda: ev.evaluate(run_d), rep)
        rows["pytrec_eval `RelevanceEvaluator.evaluate` (`ndcg_cut.10`)"] = t
        notes.append(f"pytrec_eval vs evalrank trec: max |diff| "
                     f"{max(abs(pt[q]['ndcg_cut_10'] - ours[i]) for i, q in enumerate(qids)):.1e}")

        qrels, run = ranx.Qrels(qrels_d), ranx.Run(run_d)
        t, rx = timed(lambda: ranx.evaluate(qrels, run, "ndcg@10", return_mean=False), rep)
        rows['ranx `evaluate(qrels, run, "ndcg@10")`'] = t
        Y, S = labels.reshape(nq, nd).astype(float), scores.reshape(nq, nd)
        t, sk = timed(lambda: ndcg_score(Y, S, k=10), rep)
        rows["scikit-learn `ndcg_score(k=10)` (ties averaged; one mean)"] = t
        if case == "tie-free":
            notes.append(f"ranx: max |diff| {np.abs(np.asarray(rx) - ours[order]).max():.1e}; "
                         f"scikit-learn mean: |diff| {abs(sk - ours.mean()):.1e}")
        notes.append(f"building pytrec_eval's / ranx's dicts: {build:.2f} s (not in their times)")

        base = rows['evalrank `ndcg(..., convention="trec", doc_ids=ids)`']
        peer = rows["pytrec_eval `RelevanceEvaluator.evaluate` (`ndcg_cut.10`)"]
        print(f"\n### {case} (kernel figure: evalrank's metrics.ndcg on pre-grouped arrays, peers on prebuilt "
              f"inputs; not evaluate())\n\n| implementation | seconds | time / evalrank trec | speed vs pytrec_eval |")
        print("|---|---|---|---|")
        for name, sec in rows.items():
            print(f"| {name} | {sec:.3f} | {sec / base:.2f} | {peer / sec:.2f}x |")
        print()
        for note in notes:
            print(f"- {note}")


if __name__ == "__main__":
    main()
