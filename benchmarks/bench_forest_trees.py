"""How many trees the paper-scale forests need: quality of the first k trees of one forest
(issue 30, item 4).

    cd benchmarks && nice ../.venv/bin/python bench_forest_trees.py [--sizes 20000 80000]
        [--trees 500] [--keep 50 100 200 300 500] [--seeds 1 2] [--models rf ordinal_rf]
        [--max-samples none 0.5] [--backends sklearn lightgbm] [--out out/forest_trees.md]

A forest's trees are independent draws: the first ``k`` trees of a ``--trees``-tree forest *are*
a ``k``-tree forest with the same seed (scikit-learn grows tree ``t`` from the ``t``-th random
state whatever the forest's size). So one fit per seed gives every ``k``; fit and prediction
cost grow linearly in ``k`` (the fit's CPU seconds are reported for the whole forest).

Settings: the paper-scale tuned point (``max_features`` 0.3, ``min_samples_leaf`` 20, what
``config/paper.yaml``'s rf grid chose on fold 1 at MSLR-WEB30K size), backend sklearn, in-bag leaf
histograms, 2 threads, synthetic MSLR-like data (``bench_forest.synthetic``: partition 1 to
train, 300 queries of partition 3 to test, data seed 1 as in bench_forest). ``ordinal_rf`` (4 cumulative forests) keeps
``k`` trees in each forest.

Columns (``bench_forest.quality``): log-loss, NDCG@10, top-label ECE, the largest per-grade ECE
and the DCG@10 variance ratio (realised over Theorem 3's predicted per-query variance). Two
seeds show how far two full forests differ: a ``k`` whose columns move less than that is of
equal quality.

``--max-samples``: each tree's bootstrap sample as a share of the training rows (scikit-learn's
``max_samples``; ``none`` = as many draws as rows, the pipeline's default). Tree building costs
about in proportion to the distinct rows a tree sees (63 % of the rows with ``none``, 39 % with
0.5), prediction does not change. ``--backends``: the forests' ``backend`` (``lightgbm``: LightGBM's
``rf`` mode with the same in-bag leaf histograms; ``--keep`` then only the full forest).
"""

from __future__ import annotations

import argparse
import copy
import datetime
import os
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("EVALRANK_PROGRESS", "0")

from _machine import cpu_model  # noqa: E402
from bench_forest import quality, synthetic  # noqa: E402

PARAMS = {"max_features": 0.3, "min_samples_leaf": 20}


def first_trees(model, k: int):
    """A copy of the fitted ``rf`` / ``ordinal_rf`` ``model`` that keeps its first ``k`` trees
    (the model itself when it has ``k``: any backend)."""
    if k == model.best_params_["n_estimators"]:
        return model
    out = copy.copy(model)
    out.state_ = _cut(model.state_, k)
    return out


def _cut(state, k: int):
    if isinstance(state, list):  # ordinal_rf: one state per cumulative forest (a float: a constant one)
        return [s if isinstance(s, float) else _cut(s, k) for s in state]
    if isinstance(state, dict) and "forest" in state:
        forest = copy.copy(state["forest"])
        forest.estimators_ = forest.estimators_[:k]
        forest.n_estimators = k
        out = dict(state, forest=forest, tables=state["tables"][:k])
        if "values" in state:
            out["values"] = state["values"][:k]
        return out
    if isinstance(state, dict):
        return {key: _cut(value, k) if isinstance(value, (dict, list)) else value for key, value in state.items()}
    raise TypeError(f"unexpected forest state {type(state).__name__}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[20_000])
    ap.add_argument("--trees", type=int, default=500)
    ap.add_argument("--keep", type=int, nargs="+", default=[50, 100, 200, 300, 500])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--models", nargs="+", default=["rf"])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--max-samples", nargs="+", default=["none"], help="bootstrap shares to compare (none = the default)")
    ap.add_argument("--backends", nargs="+", default=["sklearn"], choices=["sklearn", "lightgbm"])
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "out" / "forest_trees.md")
    args = ap.parse_args()
    shares = [None if m.lower() == "none" else float(m) for m in args.max_samples]
    from evalrank.data.synthetic import generate
    from evalrank.models import zoo

    test = generate(300, seed=1, partition=3)  # bench_forest's held-out queries
    lines = []

    def say(text=""):
        print(text, flush=True)
        lines.append(text)

    say(f"- Date: {datetime.datetime.now():%Y-%m-%d %H:%M}; command: `bench_forest_trees.py "
        f"{' '.join(sys.argv[1:])}`")
    say(f"- Machine: {cpu_model()}, {os.cpu_count()} logical CPUs; Python {platform.python_version()}; "
        f"load average at start {os.getloadavg()[0]:.1f}")
    say(f"- Settings: {PARAMS}, {args.threads} threads, in-bag leaf histograms")
    say()
    say("| data (training rows) | model | backend | max_samples | seed | trees | log-loss | NDCG@10 | top-label ECE | per-grade ECE (max) "
        "| DCG@10 var. ratio | fit CPU s (all trees) |")
    say("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for size in args.sizes:
        train = synthetic(size, 1)
        for name in args.models:
            for backend, share in [(b, m) for b in args.backends for m in shares]:
                for seed in args.seeds:
                    model = zoo.make_model(name, n_estimators=args.trees, max_samples=share, backend=backend, **PARAMS)
                    c0 = time.process_time()
                    model.fit(train, train, grid={}, seed=seed, n_jobs=args.threads)
                    cpu = time.process_time() - c0
                    for k in sorted(set(args.keep)):
                        if k > args.trees or (backend != "sklearn" and k != args.trees):
                            continue
                        scores, proba = first_trees(model, k).score_and_proba(test.features)
                        q = quality(scores, proba, test)
                        say(f"| synthetic ({train.n_docs:,}) | {name} | {backend} | {share or 'none'} | {seed} | {k} | "
                            f"{q['log_loss']:.4f} | {q['ndcg10']:.4f} | {q['top_ece']:.4f} | {q['grade_ece']:.4f} | "
                            f"{q['ratio']:.3f} | {cpu:.0f} |")
    say(f"- Load average at end {os.getloadavg()[0]:.1f}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
