"""The forests' two backends side by side: fit time and quality (issue 30, item 4).

    cd benchmarks && nice ../.venv/bin/python bench_forest.py [--sizes 20000 80000] [--threads 2]
        [--mslr DIR] [--sweep] [--out out/forest_section.md]

``rf`` and ``ordinal_rf`` (evalrank.models.forest / ordinal_forest) with ``backend="sklearn"``
(scikit-learn's forests) and ``backend="lightgbm"`` (LightGBM's tree learner, the same bags and
in-bag leaf histograms), the same parameters and seed, fitted one after the other on the same
rows:

* synthetic MSLR-like data (``evalrank.data.synthetic``, 136 features), training sets of about
  ``--sizes`` rows (partition 1), scored on 300 held-out queries (partition 3);
* ``--mslr DIR``: real MSLR-WEB30K Fold1 lines, ``DIR/msn1.fold1.{train,test}.5k.txt`` from the
  sdist of rankeval 0.8.2 (43 queries each; ``pip download rankeval==0.8.2 --no-deps
  --no-binary :all: -d DIR``, then extract the two files; never committed);
* ``--sweep``: rf at the smallest size over ``min_samples_leaf`` x ``max_features`` (LightGBM pays
  a fixed cost per split, scikit-learn per row and feature tried: the leaf size decides).

Columns: wall and CPU seconds of ``fit`` (one grid point), log-loss, NDCG@10, top-label ECE, the
largest per-grade ECE (15 bins of each ``p_g``), and the DCG@10 variance ratio: mean realised
squared error of the per-query DCG@10 predicted by Theorem 3 (independent labels) over the
mean predicted variance (what ``label_model_check`` reports; 1 = calibrated per query).
The section is printed and written to ``--out`` (git-ignored).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _machine import cpu_model  # noqa: E402

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("EVALRANK_PROGRESS", "0")

TREES = {"rf": 50, "ordinal_rf": 15}  # ordinal_rf: per cumulative forest (4 forests)
PARAMS = {"max_features": 0.1, "min_samples_leaf": 20}


def quality(scores, proba, collection) -> dict:
    from evalrank.active.theorem3 import batch_mean_var
    from evalrank.metrics import ndcg
    from evalrank.metrics.ranking import rank_order
    from evalrank.models.quality import log_loss, top_label_ece

    y = collection.labels.astype(np.int64)
    ece = []
    for g in range(proba.shape[1]):
        b = np.clip(np.ceil(proba[:, g] * 15).astype(np.int64) - 1, 0, 14)
        gap = np.bincount(b, weights=(y == g).astype(np.float64), minlength=15) - np.bincount(
            b, weights=proba[:, g], minlength=15)
        ece.append(np.abs(gap).sum() / y.size)
    order = rank_order(scores, collection.offsets)
    mean, var = batch_mean_var(proba, collection.offsets, order, "dcg", k=10)
    realised, _ = batch_mean_var(np.eye(proba.shape[1])[y], collection.offsets, order, "dcg", k=10)
    return {
        "log_loss": log_loss(proba, y),
        "ndcg10": float(np.mean(ndcg(scores, y, collection.offsets, k=10))),
        "top_ece": top_label_ece(proba, y),
        "grade_ece": float(max(ece)),
        "ratio": float(np.mean((realised - mean) ** 2) / np.mean(var)),
    }


def fit_one(name, backend, train, vali, test, threads, seed, params):
    from evalrank.models import zoo

    model = zoo.make_model(name, n_estimators=TREES[name], backend=backend, **params)
    w0, c0 = time.perf_counter(), time.process_time()
    model.fit(train, vali, grid={}, seed=seed, n_jobs=threads)
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    scores, proba = model.score_and_proba(test.features)
    return {"fit_s": wall, "cpu_s": cpu, **quality(scores, proba, test)}


def synthetic(size, seed):
    from evalrank.data.synthetic import generate

    n_queries = max(10, round(size / 118))  # ~118 documents per query
    return generate(n_queries, seed=seed, partition=1)


def row(label, name, backend, r):
    return (f"| {label} | {name} | {backend} | {r['fit_s']:.1f} | {r['cpu_s']:.1f} | {r['log_loss']:.3f} | "
            f"{r['ndcg10']:.3f} | {r['top_ece']:.3f} | {r['grade_ece']:.3f} | {r['ratio']:.2f} |")


HEADER = ("| data (training rows) | model | backend | fit s | CPU s | log-loss | NDCG@10 | top-label ECE | "
          "per-grade ECE (max) | DCG@10 var. ratio |\n|---|---|---|---:|---:|---:|---:|---:|---:|---:|")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[20_000, 80_000])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--models", nargs="+", default=["rf", "ordinal_rf"])
    ap.add_argument("--mslr", type=Path, default=None, help="folder with msn1.fold1.{train,test}.5k.txt")
    ap.add_argument("--sweep", action="store_true", help="rf over min_samples_leaf x max_features at the first size")
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "out" / "forest_section.md")
    a = ap.parse_args()

    import lightgbm
    import sklearn

    from evalrank.data.synthetic import generate

    lines = []

    def say(text=""):
        print(text, flush=True)
        lines.append(text)

    load0 = os.getloadavg()
    start = datetime.datetime.now()
    vali = generate(20, seed=a.seed, partition=2)
    test = generate(300, seed=a.seed, partition=3)
    sets = []
    for size in a.sizes:
        train = synthetic(size, a.seed)
        sets.append((f"synthetic ({train.n_docs:,})", train, vali, test))
    if a.mslr is not None:
        from evalrank.data.letor import read_letor

        tr = read_letor(a.mslr / "msn1.fold1.train.5k.txt", n_features=136, show_progress=False)
        te = read_letor(a.mslr / "msn1.fold1.test.5k.txt", n_features=136, show_progress=False)
        sets.append((f"MSLR-WEB30K Fold1 excerpt ({tr.n_docs:,}; test {te.n_docs:,})", tr,
                     tr.select_queries(np.arange(5)), te))
    results = []
    say(HEADER)
    for label, train, v, te in sets:
        for name in a.models:
            for backend in ("sklearn", "lightgbm"):
                r = fit_one(name, backend, train, v, te, a.threads, a.seed, PARAMS)
                results.append((label, name, backend, r))
                say(row(label, name, backend, r))
    sweep = []
    if a.sweep:
        train = synthetic(a.sizes[0], a.seed)
        say()
        say(f"rf, synthetic ({train.n_docs:,} rows), {TREES['rf']} trees:")
        say()
        say("| min_samples_leaf | max_features | sklearn fit s | lightgbm fit s | sklearn / lightgbm | "
            "log-loss sklearn | log-loss lightgbm |\n|---:|---:|---:|---:|---:|---:|---:|")
        for msl in (1, 5, 50):
            for mf in (0.1, 0.3):
                p = {"min_samples_leaf": msl, "max_features": mf}
                s = fit_one("rf", "sklearn", train, vali, test, a.threads, a.seed, p)
                g = fit_one("rf", "lightgbm", train, vali, test, a.threads, a.seed, p)
                sweep.append((msl, mf, s, g))
                say(f"| {msl} | {mf} | {s['fit_s']:.1f} | {g['fit_s']:.1f} | {s['fit_s'] / g['fit_s']:.2f} | "
                    f"{s['log_loss']:.3f} | {g['log_loss']:.3f} |")
    load1 = os.getloadavg()
    table = "\n".join(lines)
    cmd = "cd benchmarks && nice ../.venv/bin/python bench_forest.py " + " ".join(sys.argv[1:])
    section = f"""## Forests: scikit-learn vs LightGBM backend (issue 30, item 4)

- Date: {start:%Y-%m-%d %H:%M}; command: `{cmd.strip()}`
- Machine: {cpu_model()}, {os.cpu_count()} logical CPUs; Python {platform.python_version()}, NumPy {np.__version__},
  scikit-learn {sklearn.__version__}, LightGBM {lightgbm.__version__}; `OMP_WAIT_POLICY={os.environ['OMP_WAIT_POLICY']}`
- Load average (1/5/15 min) at start {load0[0]:.1f}/{load0[1]:.1f}/{load0[2]:.1f}, at end \
{load1[0]:.1f}/{load1[1]:.1f}/{load1[2]:.1f} (a shared machine: wall times carry that noise;
  CPU s is both threads' CPU time)
- Settings: {a.threads} threads, seed {a.seed}, {TREES['rf']} trees (rf), {TREES['ordinal_rf']} trees per cumulative
  forest (ordinal_rf, 4 forests), max_features {PARAMS['max_features']}, min_samples_leaf {PARAMS['min_samples_leaf']},
  in-bag leaf histograms; one grid point. Synthetic: test = 300 held-out queries ({test.n_docs:,} rows).

{table}
"""
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(section)
    print(f"\nwritten to {a.out}")


if __name__ == "__main__":
    main()
