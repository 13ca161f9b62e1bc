"""The LambdaRank / risk-sensitive gradient kernel alone: this tree's against another git revision's,
in one process, on the same inputs (risk_learn's per-iteration cost; Dinçer et al. 2016, Sec. 6).

    cd benchmarks && ../.venv/bin/python bench_lambda_kernel.py [--rev bb23c9d~1] [--queries 600] [--reps 7]

Data: synthetic MSLR-like queries (``evalrank.data.synthetic.generate``, 136 features, ~120
documents each: the size of a risk_learn job's training fold); the single baseline is feature 110,
the learned baselines three noisy copies of it. Scores: all zero (the first iteration) and the
baseline plus noise. Each method (alpha 5) with LightGBM's per-query normalisation off (the risk
stage's setting) and on. Reported: CPU seconds per call (``time.thread_time``; the kernels are
single-threaded), the minimum and the median over ``--reps`` alternating calls, and whether the
two revisions' gradients and hessians are bit-identical. ``--rev`` names the revision whose
``evalrank/models/lambdarank.py`` is the reference (its per-query risk state comes from this
tree's :class:`RiskObjective`, so only the kernel differs). On a shared machine the per-call
times move with the load; compare the two columns of one run, not runs.
"""

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from _machine import cpu_model


def load_revision(rev: str):
    """``evalrank/models/lambdarank.py`` of git revision ``rev``, imported as a separate module."""
    root = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True,
                          check=True).stdout.strip()
    src = subprocess.run(["git", "-C", root, "show", f"{rev}:src/evalrank/models/lambdarank.py"],
                         capture_output=True, text=True, check=True).stdout
    d = tempfile.mkdtemp(prefix="bench_lambda_kernel_")
    path = os.path.join(d, "lambdarank_ref.py")
    with open(path, "w") as fh:
        fh.write(src)
    spec = importlib.util.spec_from_file_location("lambdarank_ref", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rev", default="bb23c9d~1", help="git revision of the reference kernel")
    ap.add_argument("--queries", type=int, default=600)
    ap.add_argument("--reps", type=int, default=7)
    a = ap.parse_args()

    import evalrank.models.lambdarank as cur
    from evalrank.data.synthetic import generate
    from evalrank.papers.dincer2016.risk_objective import RiskObjective

    ref = load_revision(a.rev)
    coll = generate(n_queries=a.queries, seed=1)
    X, y, off = coll.features, coll.labels.astype(np.int64), coll.offsets
    rng = np.random.default_rng(0)
    bm25 = X[:, 109].astype(np.float64)
    baselines = np.vstack([bm25 + rng.normal(0, s, bm25.size) for s in (0.5, 1.0, 2.0)])
    scores = [np.zeros(bm25.size), bm25 + rng.normal(0, 0.3, bm25.size)]
    print(f"machine: {cpu_model()}, load average {os.getloadavg()[0]:.1f}, python {sys.version.split()[0]}")
    print(f"{a.queries} queries, {y.size} documents; reference kernel: {a.rev}; CPU ms per call, min (median) "
          f"of {a.reps}")
    # this tree's kernel takes an 18th argument, RiskObjective.recompute (607e4f4: the sigmoid recomputed
    # where the compiled exp reproduces the table); a reference revision's kernel takes the first 17
    kernels = (("reference", lambda *x: ref._lambda_kernel(*x[:17])), ("this tree", cur._lambda_kernel))
    for norm in (False, True):
        for method in ("lambdamart", "u-cro", "t-saro", "t-faro", "t*-faro", "georisk"):
            kw = {"baseline": bm25} if method in ("u-cro", "t-saro", "t-faro") else \
                {"baselines": baselines} if method in ("t*-faro", "georisk") else {}
            obj = RiskObjective(y, off, method=method, alpha=5.0, convention="lightgbm", norm=norm, **kw)
            args = []
            for s in scores:
                mode, qstate, gstate = obj._risk_state(s)
                args.append((s, obj.labels, obj.offsets, obj.gain, obj.disc, obj.inv_max_dcg, obj.active, obj.trunc,
                             obj.sigmoid, obj.norm, obj.table, obj.lo, obj.hi, obj.factor, mode, qstate, gstate,
                             getattr(obj, "recompute", False)))
            for _, k in kernels:
                k(*args[0])  # compile or load the cache
            times = {name: [] for name, _ in kernels}
            out = {}
            for _ in range(a.reps):
                for name, k in kernels:
                    t0 = time.thread_time()
                    out[name] = [k(*x) for x in args]
                    times[name].append((time.thread_time() - t0) / len(args))
            same = all(np.array_equal(p[0], q[0]) and np.array_equal(p[1], q[1])
                       for p, q in zip(out["reference"], out["this tree"]))
            cols = "  ".join(f"{name} {1000 * min(t):6.1f} ({1000 * np.median(t):6.1f})" for name, t in times.items())
            print(f"norm={norm!s:5s} {method:10s} {cols}  bit-identical: {same}", flush=True)


if __name__ == "__main__":
    main()
