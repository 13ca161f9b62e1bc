"""One ``risk_learn`` job (Dinçer et al. 2016, Table 7: the nine risk-sensitive LambdaMART learners of
one fold) run by this tree and by another git revision, on the same inputs, into two scratch
folders: CPU seconds of each process and whether every file they write is byte-identical.

    .venv/bin/python benchmarks/bench_risk_learn.py --results results/synthetic --rev HEAD --folds 1 2

``--results`` is a finished run's results folder (read only): its ``data/S1..S5.npz`` and the
learned baselines ``risk/learning/baselines/*.skops``; the options are those of ``make run``'s job
on config/config.yaml (``dincer2016.learning``; ``--params`` overrides the LightGBM settings).
The reference revision's ``src`` is exported with ``git archive`` and put first on ``PYTHONPATH``.
The two processes of a fold run one after the other (``--parallel``: side by side, so that both
see the same load); per process: user + system CPU seconds (``os.wait4``) and the load average
before and after. On a shared machine compare the two columns of one fold, not runs.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _machine import cpu_model

SPECS = (("lambdamart", "lambdamart", 0.0), ("u-cro_a1", "u-cro", 1.0), ("u-cro_a5", "u-cro", 5.0),
         ("t-faro_a1", "t-faro", 1.0), ("t-faro_a5", "t-faro", 5.0), ("tstar-faro_a1", "t*-faro", 1.0),
         ("tstar-faro_a5", "t*-faro", 5.0), ("georisk_a1", "georisk", 1.0), ("georisk_a5", "georisk", 5.0))
PARAMS = ('{"min_data_in_leaf": 150, "num_leaves": 31, "num_boost_round": 100, "learning_rate": 0.1, '
          '"early_stopping_rounds": 20, "norm": false}')


def command(results: Path, fold: int, out: Path, params: str) -> list[str]:
    """The ``risk-learn`` stage command of ``make run``'s job for ``fold``, writing under ``out``."""
    parts = [str(results / "data" / f"S{i}.npz") for i in range(1, 6)]
    baselines = [str(results / "dincer2016" / "learning" / "baselines" / f"{n}.skops")
                 for n in ("lambdamart", "gbrt", "afs", "adarank")]
    return [sys.executable, "-m", "evalrank", "stage", "risk-learn", "--partitions", *parts, "--holdout", "0.2",
            "--n-folds", "5", "--seed", "20120924", "--convention", "lightgbm",
            "--method", *[m for _, m, _ in SPECS], "--alpha", *[str(a) for _, _, a in SPECS],
            "--baseline-feature", "110", "--baselines", *baselines, "--params", params, "--fold", str(fold),
            "--threads", "1", "--output", *[str(out / "runs" / s / f"fold{fold}.npz") for s, _, _ in SPECS]]


def start(cmd, env, log):
    return subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=open(log, "w"))


def finish(proc) -> float:
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{proc.args[:6]}... failed ({proc.returncode}); see its log")
    return usage.ru_utime + usage.ru_stime


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", type=Path, required=True, help="a finished run's results/<name> folder")
    ap.add_argument("--rev", default="HEAD", help="git revision of the reference")
    ap.add_argument("--folds", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--params", default=PARAMS)
    ap.add_argument("--parallel", action="store_true", help="run the two processes of a fold side by side")
    ap.add_argument("--keep", type=Path, help="scratch folder (default: a new temporary one)")
    a = ap.parse_args()

    root = Path(subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True,
                               check=True).stdout.strip())
    scratch = a.keep or Path(tempfile.mkdtemp(prefix="bench_risk_learn_"))
    ref_src = scratch / "ref_tree"
    ref_src.mkdir(parents=True, exist_ok=True)
    subprocess.run(f"git -C {shlex.quote(str(root))} archive {shlex.quote(a.rev)} src | tar -x -C "
                   f"{shlex.quote(str(ref_src))}", shell=True, check=True)
    env_ref = dict(os.environ, PYTHONPATH=str(ref_src / "src"))
    env_cur = dict(os.environ, PYTHONPATH=str(root / "src"))
    results = a.results.resolve()
    print(f"machine: {cpu_model()}, {os.cpu_count()} cores, python {sys.version.split()[0]}; reference {a.rev}; "
          f"scratch {scratch}")
    all_same = True
    for fold in a.folds:
        runs = {}
        for name, env in (("reference", env_ref), ("this tree", env_cur)):
            out = scratch / name.replace(" ", "_")
            runs[name] = (out, command(results, fold, out, a.params), env, out / f"learn_fold{fold}.log")
            out.mkdir(parents=True, exist_ok=True)
        cpu, loads = {}, {}
        if a.parallel:
            load0 = os.getloadavg()[0]
            procs = {n: start(cmd, env, log) for n, (_, cmd, env, log) in runs.items()}
            for n, p in procs.items():
                cpu[n] = finish(p)
            loads = {n: (load0, os.getloadavg()[0]) for n in runs}
        else:
            for n, (_, cmd, env, log) in runs.items():
                load0 = os.getloadavg()[0]
                t0 = time.perf_counter()
                cpu[n] = finish(start(cmd, env, log))
                loads[n] = (load0, os.getloadavg()[0])
                print(f"  fold {fold} {n}: {time.perf_counter() - t0:.1f} s wall", flush=True)
        files = [Path("runs") / s / f"fold{fold}.npz" for s, _, _ in SPECS]
        same = [filecmp.cmp(runs["reference"][0] / f, runs["this tree"][0] / f, shallow=False) for f in files]
        all_same &= all(same)
        cols = "  ".join(f"{n} {cpu[n]:6.1f} CPU-s (load {loads[n][0]:.1f} -> {loads[n][1]:.1f})" for n in runs)
        print(f"fold {fold}: {cols}  files byte-identical: {sum(same)}/{len(same)}", flush=True)
    return 0 if all_same else 1


if __name__ == "__main__":
    sys.exit(main())
