"""One small run file per process (issue 28, item 4): ``evalrank evaluate`` against the ir_measures
CLI and trec_eval, whole processes, as shell loops and Makefiles call them.

    .venv/bin/python benchmarks/bench_startup.py [--repeats 15] [--trec-eval PATH]
    .venv/bin/python benchmarks/bench_startup.py --crossover [--repeats 3]
    .venv/bin/python benchmarks/bench_startup.py --big [--base-src DIR] [--repeats 3]

Default case: one run of 10 topics x 100 documents (24 KB) and its qrels (about 30 judgments a
topic), written into a temporary directory (seeded; scores in shuffled order, as in the issue's
file, so that every topic is sorted: the slow case), and the same run written in decreasing score
order (as runs usually are: no topic sorted). Timed, interleaved (every repetition runs each
command once, in turn), best of ``--repeats`` wall times (``time.perf_counter`` around
``subprocess.run``), after one warm-up round:

* ``evalrank evaluate -m map -m ndcg_cut.10 QRELS RUN`` (the console script) and
  ``python -m evalrank evaluate ...``;
* ``ir_measures QRELS RUN "AP nDCG@10"`` (its CLI: pytrec_eval underneath);
* ``trec_eval -m map -m ndcg_cut.10 QRELS RUN`` (``--trec-eval PATH``; left out without it);
* ``python -c "import numpy"`` and ``python -c pass``: the floor;
* with ``--base-src DIR``, ``python -m evalrank evaluate ...`` of that code (before/after).

``evalrank evaluate`` sets ``OPENBLAS_NUM_THREADS=1`` for itself where it is not set (it calls no
BLAS; numpy's import then starts no OpenBLAS threads): the ir_measures CLI is timed with that
setting too, to show what it alone is worth.

Values: evalrank's ``all`` lines against ir_measures' (|diff| < 5e-5: both print 4 decimals) and,
where given, trec_eval's (byte-identical lines). Also whether numba was imported (``python -X
importtime``).

``--crossover``: the same command on runs of 10 to 10,000 topics x 100 documents with
``EVALRANK_JIT=python`` (interpreted) and ``EVALRANK_JIT=numba`` (compiled, numba's cache warm),
per size best of ``--repeats`` wall and CPU (user + system) times: where the interpreted process
stops being the faster one (``evalrank._jit.THRESHOLD``). CPU times say it more steadily on a
shared machine, where a long interpreted run is slowed most by other jobs.

``--big``: ``evaluate -q -m ndcg_cut.10`` on 5,000 topics x 1,000 documents (about 180 MB), this
checkout against ``--base-src`` (the ``src`` of another checkout, e.g. ``git archive HEAD src``
unpacked), interleaved, numba's cache warm for both.

Children run with ``PYTHONDONTWRITEBYTECODE`` removed from their environment, so that the warm-up
writes the package's ``.pyc`` files as on a user's machine (the installed peers have theirs);
``--no-pyc`` keeps the environment as it is.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _machine import cpu_model  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
BIN = Path(PY).parent


def write_files(work: Path, topics: int, docs: int, seed: int = 28, ordered: bool = False) -> tuple[Path, Path]:
    """qrels + run: ``topics`` x ``docs`` documents, ids d0..d<docs-1>, scores with 6 decimals,
    in shuffled order (or, ``ordered``, decreasing as runs are usually written)."""
    rng = np.random.default_rng(seed)
    q_lines, r_lines = [], []
    for t in range(topics):
        ids = rng.permutation(docs)
        scores = rng.random(docs)
        if ordered:
            scores = np.sort(scores)[::-1]
        for rank, (d, s) in enumerate(zip(ids.tolist(), scores.tolist())):
            r_lines.append(f"{t} Q0 d{d} {rank + 1} {s:.6f} tag\n")
        judged = rng.choice(docs, size=min(docs, 31), replace=False)
        for d in judged.tolist():
            q_lines.append(f"{t} 0 d{d} {int(rng.choice([0, 0, 1, 2]))}\n")
    qrels, run = work / f"qrels_{topics}x{docs}", work / f"run_{topics}x{docs}{'_ordered' if ordered else ''}"
    qrels.write_text("".join(q_lines))
    run.write_text("".join(r_lines))
    return qrels, run


def child_env(keep_pyc_setting: bool, **extra) -> dict:
    env = dict(os.environ)
    if not keep_pyc_setting:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(extra)
    return env


_CPU = []   # the CPU seconds (user + system) of each child, in the order run


def run(argv, env, out=None) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    p = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    dt = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    _CPU.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    if p.returncode != 0:
        raise SystemExit(f"failed ({p.returncode}): {' '.join(map(str, argv))}\n{p.stderr}")
    if out is not None:
        out.append(p.stdout)
    return dt


def interleaved(commands: dict, repeats: int) -> dict:
    """{name: (best, all times)}: one warm-up round, then ``repeats`` rounds, each command once per
    round in turn."""
    for argv, env in commands.values():
        run(argv, env)
    times = {name: [] for name in commands}
    cpu = {name: [] for name in commands}
    for _ in range(repeats):
        for name, (argv, env) in commands.items():
            times[name].append(run(argv, env))
            cpu[name].append(_CPU[-1])
    CPU_BEST.update({name: min(c) for name, c in cpu.items()})
    return {name: (min(t), t) for name, t in times.items()}


CPU_BEST: dict = {}   # the last interleaved() call's best CPU seconds per command


def all_values(text: str) -> dict:
    """{measure: value} of trec_eval-style ``all`` lines, or ir_measures' ``NAME<TAB>value``."""
    names = {"AP": "map", "nDCG@10": "ndcg_cut_10"}
    out = {}
    for line in text.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] == "all":
            out[f[0]] = float(f[2])
        elif len(f) == 2 and f[0] in names:
            out[names[f[0]]] = float(f[1])
    return out


def machine() -> str:
    load = os.getloadavg() if hasattr(os, "getloadavg") else ("?",)
    return (f"{cpu_model()}, {os.cpu_count()} cores, load {' '.join(f'{x:.1f}' for x in load)}; "
            f"Python {platform.python_version()}, numpy {np.__version__}")


def small(args, work: Path) -> None:
    qrels, run_ = write_files(work, 10, 100)
    _, ordered = write_files(work, 10, 100, ordered=True)
    env = child_env(args.no_pyc)
    ev = [str(BIN / "evalrank"), "evaluate", "-m", "map", "-m", "ndcg_cut.10", str(qrels), str(run_)]
    commands = {
        "evalrank evaluate (console script)": (ev, env),
        "python -m evalrank evaluate": ([PY, "-m", "evalrank", *ev[1:]], env),
        "ir_measures CLI": ([str(BIN / "ir_measures"), str(qrels), str(run_), "AP nDCG@10"], env),
        "evalrank evaluate, run in score order": (ev[:-1] + [str(ordered)], env),
        "ir_measures CLI, run in score order": ([str(BIN / "ir_measures"), str(qrels), str(ordered), "AP nDCG@10"], env),
        # what evalrank evaluate sets for itself (numpy's import starts no OpenBLAS threads), given to the peer
        "ir_measures CLI, OPENBLAS_NUM_THREADS=1": (
            [str(BIN / "ir_measures"), str(qrels), str(run_), "AP nDCG@10"],
            child_env(args.no_pyc, OPENBLAS_NUM_THREADS="1")),
    }
    if args.base_src:
        commands["evalrank evaluate, --base-src"] = (
            [PY, "-m", "evalrank", *ev[1:]], child_env(args.no_pyc, PYTHONPATH=str(Path(args.base_src).resolve())))
    if args.trec_eval:
        commands["trec_eval"] = ([args.trec_eval, "-m", "map", "-m", "ndcg_cut.10", str(qrels), str(run_)], env)
    commands['python -c "import numpy"'] = ([PY, "-c", "import numpy"], env)
    commands["python -c pass"] = ([PY, "-c", "pass"], env)

    outs: dict[str, list] = {}
    for name in ("evalrank evaluate (console script)", "ir_measures CLI", "trec_eval"):
        if name in commands:
            outs[name] = []
            run(commands[name][0], commands[name][1], outs[name])
    res = interleaved(commands, args.repeats)

    print(f"machine: {machine()}")
    print(f"files: {run_.stat().st_size:,} bytes of run (10 topics x 100 documents), "
          f"{qrels.stat().st_size:,} bytes of qrels; best of {args.repeats}, interleaved, after a warm-up; "
          f"{'PYTHONDONTWRITEBYTECODE as given' if args.no_pyc else '.pyc files written (warm-up)'}")
    base = res["ir_measures CLI"][0]
    print(f"{'command':<40} {'best s':>8} {'median s':>9} {'/ ir_measures':>14} {'best CPU s':>11}")
    for name, (best, ts) in res.items():
        print(f"{name:<40} {best:8.3f} {float(np.median(ts)):9.3f} {best / base:13.2f}x {CPU_BEST[name]:11.3f}")

    er = all_values(outs["evalrank evaluate (console script)"][0])
    im = all_values(outs["ir_measures CLI"][0])
    ok = set(er) == set(im) == {"map", "ndcg_cut_10"} and all(abs(er[k] - im[k]) < 5e-5 for k in er)
    print(f"values: evalrank {er}, ir_measures {im}: {'equal' if ok else 'DIFFERENT'}")
    if "trec_eval" in outs:
        same = outs["trec_eval"][0] == outs["evalrank evaluate (console script)"][0]
        print(f"trec_eval's output: {'byte-identical' if same else 'DIFFERENT'}")
        ok = ok and same
    p = subprocess.run([PY, "-X", "importtime", "-m", "evalrank", *ev[1:]], env=env, capture_output=True,
                       text=True)
    heavy = sorted({m for m in ("numba", "scipy", "pandas") if f"| {m}\n" in p.stderr + "\n"
                    or any(ln.rstrip().endswith(f"| {m}") for ln in p.stderr.splitlines())})
    print(f"imported by evalrank evaluate: {', '.join(heavy) if heavy else 'no numba, scipy or pandas'}")
    if not ok:
        raise SystemExit("values differ")


def crossover(args, work: Path) -> None:
    print(f"machine: {machine()}")
    print(f"{'topics':>7} {'run bytes':>12} {'python s':>9} {'numba s':>8}  faster   (best CPU s: python, numba)")
    for topics in args.sizes:
        qrels, run_ = write_files(work, topics, 100)
        argv = [PY, "-m", "evalrank", "evaluate", "-m", "map", "-m", "ndcg_cut.10", str(qrels), str(run_)]
        commands = {m: (argv, child_env(args.no_pyc, EVALRANK_JIT=m)) for m in ("python", "numba")}
        outs = {m: [] for m in commands}
        for m, (a, e) in commands.items():
            run(a, e, outs[m])
        if outs["python"] != outs["numba"]:
            raise SystemExit(f"{topics} topics: interpreted and compiled outputs differ")
        res = interleaved(commands, args.repeats)
        py_, nb = res["python"][0], res["numba"][0]
        print(f"{topics:7d} {run_.stat().st_size:12,d} {py_:9.3f} {nb:8.3f}  {'python' if py_ < nb else 'numba':6}"
              f"   ({CPU_BEST['python']:.3f}, {CPU_BEST['numba']:.3f})", flush=True)
        run_.unlink()
        qrels.unlink()


def big(args, work: Path) -> None:
    if not args.base_src:
        raise SystemExit("--big needs --base-src DIR (the src directory of the code to compare with)")
    rng = np.random.default_rng(5)
    topics, docs = 5000, 1000
    run_, qrels = work / "big_run", work / "big_qrels"
    with open(run_, "w") as fh:
        for t in range(topics):
            scores = np.sort(rng.random(docs))[::-1]
            fh.write("".join(f"{t} Q0 doc{d} {r + 1} {s:.6f} tag\n"
                             for r, (d, s) in enumerate(zip(rng.permutation(docs * 3)[:docs].tolist(),
                                                            scores.tolist()))))
    with open(qrels, "w") as fh:
        for t in range(topics):
            fh.write("".join(f"{t} 0 doc{d} {g}\n" for d, g in zip(rng.choice(docs * 3, 200, replace=False).tolist(),
                                                                  rng.integers(0, 4, 200).tolist())))
    argv = [PY, "-m", "evalrank", "evaluate", "-q", "-m", "ndcg_cut.10", str(qrels), str(run_)]
    new_env = child_env(args.no_pyc, PYTHONPATH=str(ROOT / "src"))
    old_env = child_env(args.no_pyc, PYTHONPATH=str(Path(args.base_src).resolve()))
    commands = {"this checkout": (argv, new_env), "base": (argv, old_env)}
    outs = {m: [] for m in commands}
    for m, (a, e) in commands.items():
        run(a, e, outs[m])
    print(f"machine: {machine()}")
    print(f"run: {run_.stat().st_size:,} bytes ({topics} x {docs}); best of {args.repeats}, interleaved")
    res = interleaved(commands, args.repeats)
    for name, (best, ts) in res.items():
        print(f"{name:<14} best {best:7.3f} s  all {' '.join(f'{t:.3f}' for t in ts)}")
    print(f"outputs: {'byte-identical' if outs['this checkout'] == outs['base'] else 'DIFFERENT'}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--trec-eval", metavar="PATH", help="a trec_eval binary to time too")
    ap.add_argument("--crossover", action="store_true", help="interpreted vs compiled by run size")
    ap.add_argument("--sizes", type=int, nargs="+", default=[10, 100, 300, 1000, 3000, 10000],
                    help="--crossover: topics (x 100 documents)")
    ap.add_argument("--big", action="store_true", help="5,000 x 1,000 run: this checkout vs --base-src")
    ap.add_argument("--base-src", metavar="DIR", help="the src directory of other code to time too (--big: to compare "
                                                     "with; default case: one more row)")
    ap.add_argument("--no-pyc", action="store_true", help="keep PYTHONDONTWRITEBYTECODE as it is")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench_startup_"))
    try:
        if args.crossover:
            crossover(args, work)
        elif args.big:
            big(args, work)
        else:
            small(args, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
