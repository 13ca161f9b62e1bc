"""Peak memory of ``evalrank evaluate -m ndcg_cut.10 QRELS RUN`` against trec_eval 9.0.8 on one large
run file (issue 28, item 4), whole processes, as ``/usr/bin/time -f %M`` reports it (maximum
resident set size), outputs compared.

    .venv/bin/python benchmarks/bench_memory.py --trec-eval PATH [--queries 10000] [--docs 1000]
                                                [--repeats 2] [--workdir DIR]

Data: ``bench_evaluate.py``'s generator (ClueWeb/GOV2/MS MARCO-like document ids, 16-25 bytes;
topic ids of up to 7 digits; runs in rank order with 4-6 decimals; qrels of 100-500 judgments per
topic, drawn towards the retrieved documents), ``--queries`` x ``--docs`` run lines (default 10
million), written once into a temporary directory (removed afterwards unless ``--workdir``).
Each tool runs ``--repeats`` times, interleaved, after one warm-up run of evalrank (numba's cache);
the table gives every run's peak RSS and wall time.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _machine import cpu_model  # noqa: E402
from bench_evaluate import Collection  # noqa: E402

PY = sys.executable
TIME = "/usr/bin/time"


def peak(argv, out: Path) -> tuple[int, float]:
    """(maximum RSS in KB, wall seconds) of one process, its stdout to ``out``."""
    with open(out, "wb") as fh:
        p = subprocess.run([TIME, "-f", "%M %e", *map(str, argv)], stdout=fh, stderr=subprocess.PIPE,
                           env={k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"})
    if p.returncode:
        raise RuntimeError(f"{argv} exited {p.returncode}: {p.stderr.decode(errors='replace')[-2000:]}")
    kb, sec = p.stderr.decode().strip().splitlines()[-1].split()
    return int(kb), float(sec)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--trec-eval", required=True, metavar="PATH", help="a trec_eval 9.0.8 binary")
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("--docs", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workdir", help="where to write the data (default: a new temporary directory, removed)")
    a = ap.parse_args()
    if not Path(TIME).exists():
        raise SystemExit(f"{TIME} is needed (GNU time: -f %M)")
    work = Path(a.workdir) if a.workdir else Path(tempfile.mkdtemp(prefix="bench_memory_"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        print(f"machine: {cpu_model()}, {os.cpu_count()} logical CPUs; Python {platform.python_version()}, numpy "
              f"{np.__version__}; load average {os.getloadavg()[0]:.2f}")
        qrels, run = work / "qrels.txt", work / "run.txt"
        if not (qrels.exists() and run.exists()):
            t0 = time.perf_counter()
            c = Collection(np.random.default_rng(a.seed), a.queries, 2 * a.docs)
            qrels.write_bytes(c.qrels_bytes())
            run.write_bytes(c.run_bytes(a.docs, 1.0, 5, b"bigrun_bm25")[0])
            del c
            print(f"data written in {time.perf_counter() - t0:.0f} s")
        lines = lambda p: sum(1 for _ in open(p, "rb"))  # noqa: E731
        print(f"run: {lines(run):,} lines, {run.stat().st_size / 1e6:.0f} MB; qrels: {lines(qrels):,} lines, "
              f"{qrels.stat().st_size / 1e6:.0f} MB")
        cmds = {"evalrank": [PY, "-m", "evalrank", "evaluate", "-m", "ndcg_cut.10", qrels, run],
                "trec_eval 9.0.8": [a.trec_eval, "-m", "ndcg_cut.10", qrels, run]}
        print(f"commands:\n    {' '.join(map(str, cmds['evalrank']))}\n    {' '.join(map(str, cmds['trec_eval 9.0.8']))}")
        peak(cmds["evalrank"], work / "warm.txt")
        rows = {k: [] for k in cmds}
        for _ in range(a.repeats):
            for k, c in cmds.items():
                rows[k].append(peak(c, work / f"out_{k.split()[0]}.txt"))
        same = (work / "out_evalrank.txt").read_bytes() == (work / "out_trec_eval.txt").read_bytes()
        print(f"\n| tool | peak RSS, MB (each run) | wall s (each run) |\n|---|---|---|")
        for k, r in rows.items():
            print(f"| {k} | {', '.join(f'{kb / 1024:.0f}' for kb, _ in r)} | {', '.join(f'{s:.2f}' for _, s in r)} |")
        er = min(kb for kb, _ in rows["evalrank"])
        te = min(kb for kb, _ in rows["trec_eval 9.0.8"])
        print(f"\nevalrank's peak / trec_eval's: {er / te:.2f}; outputs byte-identical: {same}; load average at the "
              f"end {os.getloadavg()[0]:.2f}")
        if not same:
            sys.exit(1)
    finally:
        if not a.workdir:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
