"""Fill numba's cache with the kernels of ``evalrank evaluate`` and ``compare`` at install time
(``make install`` runs ``python -m evalrank.warmup``), so that the first call after installing
costs what a later one does instead of compiling for half a minute.

Numba compiles a kernel on its first call in a process and keeps the machine code in its cache
(``__pycache__`` beside the sources, or ``NUMBA_CACHE_DIR``); a kernel is compiled only for
inputs large enough to pay for it (:data:`evalrank._jit.THRESHOLD`). This module writes a
synthetic qrels and run just above that size (fixed seed, in a temporary folder removed
afterwards) and runs ``evaluate -q -m all_trec`` (every trec_eval measure, per topic) and
``compare`` with a paired test on them: the reader's, the engine's and every measure's kernels are
compiled once, and every later process loads them. Measured in ``benchmarks/RESULTS.md`` ("The first
call after installing").
"""

from __future__ import annotations

import contextlib
import io
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

__all__ = ["write_inputs", "main"]

#: topics x documents of the synthetic run: about 1 MB of TREC text, above evalrank._jit.THRESHOLD
TOPICS, DOCS = 30, 1000


def write_inputs(folder) -> tuple[Path, Path, Path]:
    """A qrels and two runs (``TOPICS`` x ``DOCS``, graded 0-3, fixed seed) in ``folder``."""
    folder = Path(folder)
    rng = np.random.default_rng(20261129)
    qrels, runs = [], ([], [])
    for t in range(TOPICS):
        judged = rng.choice(DOCS, 60, replace=False)
        qrels += [f"q{t} 0 d{t}-{j} {g}\n" for j, g in zip(judged.tolist(), rng.integers(0, 4, 60).tolist())]
        for k, lines in enumerate(runs):
            score = rng.random(DOCS)
            order = np.argsort(-score, kind="stable")
            lines += [f"q{t} Q0 d{t}-{j} {r + 1} {score[j]:.6f} sys{k}\n" for r, j in enumerate(order.tolist())]
    paths = folder / "qrels.txt", folder / "a.txt", folder / "b.txt"
    for path, lines in zip(paths, (qrels, *runs)):
        path.write_text("".join(lines))
    return paths


def main(argv=None) -> int:
    from evalrank.cli import main as cli

    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="evalrank-warmup-") as d:
        qrels, a, b = write_inputs(d)
        for args in (["evaluate", "-q", "-m", "all_trec", str(qrels), str(a)],
                     ["compare", "--baseline", str(a), "-m", "map", "-m", "ndcg_cut.10", str(qrels), str(a), str(b)]):
            out, err = io.StringIO(), io.StringIO()
            try:
                with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                    rc = cli(args)
            except SystemExit as e:   # argparse's refusal
                rc = e.code if isinstance(e.code, int) else 2
            if rc:
                print(f"evalrank.warmup: 'evalrank {' '.join(args[:1])}' failed:\n{err.getvalue()}", file=sys.stderr)
                return rc
    print(f"evalrank: numba's cache holds evaluate's and compare's kernels ({time.perf_counter() - t0:.0f} s)",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
