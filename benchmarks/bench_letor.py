"""Benchmark the LETOR writer and reader against scikit-learn's SVMlight loader.

Usage::

    .venv/bin/python benchmarks/bench_letor.py --mb 60
    .venv/bin/python benchmarks/bench_letor.py --mb 500

Generates an MSLR-WEB30K-shaped file (136 features, ~120 documents per query,
a realistic mix of small integers, decimals with up to 6 digits and large
integers) under ``benchmarks/data/`` with :func:`write_letor`, then times
:func:`read_letor` and ``sklearn.datasets.load_svmlight_file(query_id=True,
dtype=np.float32)`` on the same file in the same run and checks that both give
identical values (bit for bit). Numba compile time is measured separately on a
small file with a fresh numba cache, so it is excluded from the throughput.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--mb", type=float, default=60.0, help="approximate file size in MB (default 60)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--repeats", type=int, default=3, help="read_letor timings (best is reported; default 3)")
    p.add_argument("--skip-sklearn", action="store_true", help="do not time sklearn (no speed-up ratio)")
    p.add_argument("--keep-cache", action="store_true",
                   help="use the normal numba cache (compile time then measures cache loading)")
    p.add_argument("--out-dir", type=Path, default=HERE / "data")
    args = p.parse_args(argv)
    if args.mb <= 0:
        p.error("--mb must be positive")
    if args.repeats < 1:
        p.error("--repeats must be >= 1")
    return args


def mslr_like(n_docs: int, rng, n_features: int = 136, docs_per_query: int = 120, column_seed: int = 0):
    """A Collection shaped like MSLR-WEB30K (values are random, not real).

    The kind of every column (small counts, decimals with 1-6 digits, large
    integers, mostly zero) depends only on ``column_seed``, so collections of
    different sizes have the same bytes per document on average.
    """
    import numpy as np

    from evalrank.data.collection import Collection

    sizes = []
    total = 0
    while total < n_docs:
        s = int(min(max(rng.normal(docs_per_query, 30), 5), 250, n_docs - total))
        sizes.append(s)
        total += s
    offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    # each column has a kind: small counts, decimals (1-6 digits), large ints, mostly-zero
    col_rng = np.random.default_rng(column_seed)
    kind = col_rng.choice(4, n_features, p=[0.4, 0.35, 0.15, 0.10])
    digits = col_rng.integers(1, 7, n_features)
    scale = 10.0 ** col_rng.integers(0, 3, n_features)
    feats = np.empty((n_docs, n_features), dtype=np.float32)
    for j in range(n_features):
        if kind[j] == 0:
            col = rng.geometric(0.35, n_docs) - 1.0
        elif kind[j] == 1:
            col = np.round(rng.gamma(1.5, scale[j], n_docs), digits[j])
        elif kind[j] == 2:
            col = np.floor(rng.lognormal(8, 2, n_docs))
        else:
            col = np.where(rng.random(n_docs) < 0.9, 0.0, np.round(rng.random(n_docs), 6))
        feats[:, j] = col
    labels = rng.choice(5, n_docs, p=[0.51, 0.32, 0.13, 0.03, 0.01]).astype(np.int8)
    qids = np.arange(1, len(sizes) + 1, dtype=np.int64) * 3 + 7
    return Collection(features=feats, labels=labels, offsets=offsets, qids=qids)


def _machine() -> str:
    model = platform.processor() or "unknown CPU"
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                model = line.split(":", 1)[1].strip()
    except (OSError, subprocess.CalledProcessError):
        pass
    return f"{model}, {os.cpu_count()} logical CPUs (nproc={len(os.sched_getaffinity(0))})"


class _Timer:
    """Wall-clock and CPU time (all threads of this process) of a block."""

    def __enter__(self):
        self.wall0, self.cpu0 = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc):
        self.wall = time.perf_counter() - self.wall0
        self.cpu = time.process_time() - self.cpu0


def _rate(mb: float, t: "_Timer") -> str:
    return f"wall {t.wall:.2f} s = {mb / t.wall:.1f} MB/s, CPU {t.cpu:.2f} s = {mb / t.cpu:.1f} MB/s per CPU-second"


def main(argv=None) -> int:
    args = _parse_args(argv)
    if not args.keep_cache:  # must happen before numba is imported
        os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="bench_letor_numba_")
    import numpy as np
    from sklearn.datasets import load_svmlight_file

    from evalrank.data.letor import read_letor, write_letor

    rng = np.random.default_rng(args.seed)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    print(f"machine: {_machine()}; python {platform.python_version()}, numpy {np.__version__}")

    # -- compile (small warm-up file) ------------------------------------------------
    tiny = args.out_dir / "warmup.txt"
    small = mslr_like(2000, rng, column_seed=args.seed)
    with _Timer() as t_wc:
        write_letor(tiny, small)
    with _Timer() as t_rc:
        read_letor(tiny, show_progress=False)
    what = "numba cache load" if args.keep_cache else "numba compile, fresh cache"
    print(f"first call on a small warm-up file ({what}): write_letor {t_wc.wall:.2f} s wall / {t_wc.cpu:.2f} s CPU, "
          f"read_letor {t_rc.wall:.2f} s wall / {t_rc.cpu:.2f} s CPU")

    # -- generate + time the writer ----------------------------------------
    bytes_per_doc = tiny.stat().st_size / small.n_docs
    n_docs = max(1000, int(1.01 * args.mb * 1e6 / bytes_per_doc))  # 1 % margin: at least --mb
    coll = mslr_like(n_docs, rng, column_seed=args.seed)
    path = args.out_dir / f"mslr_like_{args.mb:g}mb.txt"
    with _Timer() as t_w:
        write_letor(path, coll)
    mb = path.stat().st_size / 1e6
    print(f"file: {path} ({mb:.1f} MB, {coll.n_docs} docs, {coll.n_queries} queries, {coll.n_features} features)")
    print(f"write_letor ({len(os.sched_getaffinity(0))} CPUs available to its threads): {_rate(mb, t_w)}")

    # -- time the readers ----------------------------------------------------
    runs = []
    ours = None
    for _ in range(args.repeats):
        ours = None  # free the previous result before the next run
        with _Timer() as t:
            ours = read_letor(path, show_progress=False)
        runs.append(t)
    t_r = min(runs, key=lambda t: t.wall)
    print(f"read_letor (single thread), best of {args.repeats} by wall time: {_rate(mb, t_r)} "
          f"(all wall: {', '.join(f'{t.wall:.2f}' for t in runs)} s)")
    same_as_written = (np.array_equal(ours.features, coll.features) and np.array_equal(ours.labels, coll.labels)
                       and np.array_equal(ours.offsets, coll.offsets) and np.array_equal(ours.qids, coll.qids))
    print(f"read_letor == the written Collection: {same_as_written}")

    ok = same_as_written
    if not args.skip_sklearn:
        with _Timer() as t_s:
            X, y, q = load_svmlight_file(str(path), query_id=True, dtype=np.float32)
        print(f"sklearn load_svmlight_file(query_id=True, dtype=float32), once: {_rate(mb, t_s)} "
              "(CSR result; toarray() not timed)")
        print(f"speed-up read_letor vs sklearn: {t_s.wall / t_r.wall:.1f}x wall, {t_s.cpu / t_r.cpu:.1f}x CPU")
        dense = X.toarray()
        identical = (
            dense.shape == ours.features.shape
            and np.array_equal(dense.view(np.int32), ours.features.view(np.int32))
            and np.array_equal(y, ours.labels)
            and np.array_equal(q, np.repeat(ours.qids, ours.query_sizes))
        )
        print(f"identical values to sklearn (features bit for bit, labels, qids): {identical}")
        ok = ok and identical
    print("command: " + " ".join([".venv/bin/python", "benchmarks/bench_letor.py"] + sys.argv[1:]))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
