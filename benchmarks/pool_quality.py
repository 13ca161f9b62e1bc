"""Quality of pool predictions (``evalrank stage predict``'s .npz files) in bench_forest's columns:
log-loss, NDCG@10, top-label ECE, the largest per-grade ECE and the DCG@10 variance ratio
(realised over Theorem 3's predicted per-query variance). For two backends or settings of one
model on the same pool (benchmarks/RESULTS.md, issue 30 item 4)::

    .venv/bin/python benchmarks/pool_quality.py sklearn=A.npz lightgbm=B.npz
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_forest import quality  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("predictions", nargs="+", help="NAME=file.npz")
    args = ap.parse_args()
    from evalrank import io
    from evalrank.cli.common import named_paths

    try:
        predictions = named_paths(args.predictions, "predictions")
    except ValueError as e:
        ap.error(str(e))

    print("| predictions | documents | queries | log-loss | NDCG@10 | top-label ECE | per-grade ECE (max) "
          "| DCG@10 var. ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, path in predictions.items():
        d = io.load_arrays(path)
        pool = SimpleNamespace(labels=d["labels"], offsets=d["offsets"])
        q = quality(d["scores"], d["probs"], pool)
        print(f"| {name} | {d['labels'].size:,} | {d['offsets'].size - 1:,} | {q['log_loss']:.4f} | "
              f"{q['ndcg10']:.4f} | {q['top_ece']:.4f} | {q['grade_ece']:.4f} | {q['ratio']:.3f} |")


if __name__ == "__main__":
    main()
