"""What ``config/paper.yaml`` costs at MSLR-WEB30K size: every rule's measured time and peak
memory, and the whole DAG's wall time projected on 2 and 16 cores.

Two steps, from the repository root (benchmarks/RESULTS.md, "Paper scale", has the numbers)::

    # 1. measure: the paper-scale DAG on synthetic data of MSLR-WEB30K's size (config/scale.yaml),
    #    restricted to fold 1 of the five (benchmarks/scale_fold1.yaml), every job with its
    #    Snakemake benchmark file (wall time, CPU time, peak RSS); keep the console output, which
    #    says what each job declared (its memory may depend on the size of its input)
    snakemake --profile workflow/profiles/default --cores 2 \\
        --configfile config/paper.yaml config/scale.yaml benchmarks/scale_fold1.yaml 2>&1 | tee scale.log
    # 2. project the whole DAG (all five folds) from the measured jobs
    .venv/bin/python benchmarks/bench_scale.py --measured results/scale-fold1 --console-log scale.log

On a small machine the whole fold-1 run takes hours (most of it the five train_sized forests):
run it in parts with targets instead, and name every config file a part added in
``--measured-config`` (benchmarks/scale_fold1_one_size.yaml measures active_summary with only the
200,000-pair train_sized model; RESULTS.md lists the parts that were run).

Projection: the full DAG's jobs, their dependencies (a job depends on the jobs writing its
inputs), threads and memory come from a forced dry run of paper.yaml + scale.yaml. A job of
fold f > 1 gets the measured time of the same job on fold 1 (folds are the same size); the two
jobs that merge all folds (active_summary, risk_table7) are scaled by how many files they read.
A fold-1 job that was not run gets the measurement of a sibling job of the same rule: the
nearest size scaled linearly when its wildcards name one (training pairs, ``rf_n<N>``, sample
size ``n<N>``), else the mean time and largest peak of the siblings that share the most
wildcard values with it (the same learner under another convention, say). Columns say how many jobs of a
rule were measured, taken from fold 1 (or scaled by inputs) and taken from a sibling, and flag
a peak above the job's declared ``mem_mb``. A job measured on t = min(threads, 2) threads with
wall w and CPU time c runs on n threads in c (1 - p + p / n), p the parallel share Amdahl's
law gives for (w, c, t) (a single-threaded job: its wall time). The schedule puts the ready
job with the longest remaining path first, each job on min(threads, cores) cores, as many at
once as the cores allow; a lower bound on what Snakemake's scheduler achieves is the critical
path.
"""

from __future__ import annotations

import argparse
import csv
import heapq
import os
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

from _machine import cpu_model

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = ["config/paper.yaml", "config/scale.yaml"]
MERGE_RULES = {"active_summary", "risk_table7"}  # read every fold's outputs: scaled by inputs


def snakemake(*args, configs=CONFIGS) -> str:
    cmd = [sys.executable, "-m", "snakemake", "--profile", "workflow/profiles/default", "--configfile", *configs,
           *args]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True,
                         env={**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"})
    if out.returncode != 0:
        raise SystemExit(f"snakemake {' '.join(args)} failed:\n{out.stderr[-3000:]}")
    return out.stdout + out.stderr


def _job_blocks(text: str):
    """The job blocks of Snakemake's console output (a dry run, or the log of a real run):
    {rule, wildcards, threads, mem_mb (None where not known yet), benchmark, input, output}."""
    cur = None
    for line in text.splitlines():
        s = line.strip()
        m = re.match(r"^(?:local)?(?:checkpoint|rule) (\w+):$", s)
        if m:
            if cur is not None:
                yield cur
            cur = {"rule": m.group(1), "wildcards": "", "threads": 1, "mem_mb": None, "runtime": None, "benchmark": None,
                   "input": [], "output": []}
            continue
        if cur is None:
            continue
        key, _, val = s.partition(":")
        val = val.strip()
        if key == "wildcards":
            cur["wildcards"] = val
        elif key == "threads":
            cur["threads"] = int(val)
        elif key in ("input", "output"):
            cur[key] = [f.strip() for f in val.split(",") if f.strip()]
        elif key == "benchmark":
            cur["benchmark"] = val
        elif key == "resources":
            m = re.search(r"\bmem_mb=(\d+)", val)
            cur["mem_mb"] = int(m.group(1)) if m else None  # '<TBD>': sized from inputs not made yet
            m = re.search(r"\bruntime=(\d+)", val)
            cur["runtime"] = int(m.group(1)) if m else None
        elif s.startswith(("Shell command", "[")) or not s:
            if cur.get("benchmark") is not None or cur["output"]:
                yield cur
                cur = None
    if cur is not None:
        yield cur


def dry_jobs(configs=CONFIGS) -> dict:
    """(rule, wildcards) -> job block of a forced dry run, with the threads each job declares
    (--cores 1024: Snakemake caps a job's threads at the cores it is given)."""
    text = snakemake("-n", "--forceall", "--cores", "1024", configs=configs)
    return {(j["rule"], j["wildcards"]): j for j in _job_blocks(text)}


def dag_edges(jobs: dict) -> tuple[dict, list]:
    """Nodes (id -> (rule, wildcards)) and edges (upstream id, downstream id): a job depends on
    the jobs that write its input files."""
    keys = list(jobs)
    nodes = dict(enumerate(keys))
    writer = {f: i for i, k in nodes.items() for f in jobs[k]["output"]}
    edges = sorted({(writer[f], i) for i, k in nodes.items() for f in jobs[k]["input"] if f in writer})
    return nodes, edges


def declared_at_run(paths) -> dict:
    """benchmark path -> (threads, mem_mb) as the measured run declared them (its console output:
    a job's memory may depend on the size of its input, which a forced dry run cannot know)."""
    out = {}
    for p in paths:
        for j in _job_blocks(Path(p).read_text(errors="replace")):
            if j["benchmark"] and j["mem_mb"] is not None:
                out[j["benchmark"]] = (j["threads"], j["mem_mb"])
    return out


def read_benchmark(path: Path) -> dict | None:
    if not path.exists():
        return None
    with open(path) as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    if not rows:
        return None
    r = rows[-1]
    num = lambda k: float(r[k]) if r.get(k) not in (None, "", "NA", "-") else float("nan")  # noqa: E731
    return {"s": num("s"), "cpu": num("cpu_time"), "rss": num("max_rss")}


def fold1(wildcards: str) -> str:
    """The same job on fold 1 (the folds of the model stage and of the risk protocol)."""
    return re.sub(r"\bfold=\d", "fold=1", wildcards)


def _size(wildcards: str) -> float | None:
    """The size a job's wildcards name (training pairs n=..., rf_n<N>, sample size n<N>), if any."""
    m = re.search(r"(?:\bn=|_n)(\d+)", wildcards)
    return float(m.group(1)) if m else None


def sibling(bench: dict, rule: str, wildcards: str):
    """An unmeasured job from the measured jobs of the same rule: the nearest size scaled
    linearly in the size its wildcards name (training pairs, sample size), else their mean."""
    same = [(wc, v) for (r, wc), v in bench.items() if r == rule]
    if not same:
        return None
    n = _size(wildcards)
    sized = [(abs(_size(wc) - n), _size(wc), v) for wc, v in same if n is not None and _size(wc)]
    if sized:
        _, n0, (b, n_in) = min(sized, key=lambda t: t[0])
        f = n / n0
        return {"s": b["s"] * f, "cpu": b["cpu"] * f, "rss": b["rss"] * max(f, 1.0)}, n_in
    # the siblings that share the most wildcard values (e.g. the same learner under another convention)
    mine = set(_pairs(wildcards))
    shared = [len(mine & set(_pairs(wc))) for wc, _ in same]
    bs = [v[0] for (_, v), s in zip(same, shared) if s == max(shared)]
    mean = {k: sum(b[k] for b in bs) / len(bs) for k in ("s", "cpu")}
    return {**mean, "rss": max(b["rss"] for b in bs)}, same[0][1][1]


def _pairs(wildcards: str) -> list[str]:
    return [p.strip() for p in wildcards.split(",") if p.strip()]


def run_time(b: dict, threads: int, n: int, shared: bool = False) -> float:
    """Wall time on ``n`` cores of a job measured as ``b`` on min(threads, 2) cores. ``shared``:
    the measured run shared its cores with other work, so a job's wall time includes waiting for
    a core: its wall is taken as at most its CPU time (a job that used less than one core was
    waiting; one that used more keeps the parallel share its wall shows, which the waiting can
    only have lowered)."""
    t = min(threads, 2)
    w, c = b["s"], b["cpu"] if b["cpu"] == b["cpu"] else b["s"]
    if shared:
        w = min(w, c)
    if threads <= 1:  # all its CPU time on one core (a job measured on 2 threads may have used both)
        return max(w, c)
    if c <= w:
        return max(w, c / min(threads, n))
    p = min(max((1 - w / c) / (1 - 1 / t), 0.0), 1.0)
    return c * (1 - p + p / min(threads, n))


def schedule(durations: dict, cores_of: dict, edges: list, n_cores: int) -> float:
    """Makespan of a list schedule: ready jobs by longest remaining path, up to n_cores cores busy."""
    down, n_up = defaultdict(list), defaultdict(int)
    for a, b in edges:
        down[a].append(b)
        n_up[b] += 1
    order = list(durations)
    tail = {}
    for j in reversed(_topo(order, down, n_up)):
        tail[j] = durations[j] + max((tail[k] for k in down[j]), default=0.0)
    ready = [(-tail[j], j) for j in order if n_up[j] == 0]
    heapq.heapify(ready)
    running, t, free, left = [], 0.0, n_cores, dict(n_up)
    waiting = []
    while ready or running or waiting:
        started = True
        while started:
            started = False
            keep = []
            while ready:
                prio, j = heapq.heappop(ready)
                c = min(cores_of[j], n_cores)
                if c <= free:
                    free -= c
                    heapq.heappush(running, (t + durations[j], j, c))
                    started = True
                else:
                    keep.append((prio, j))
            for item in keep:
                heapq.heappush(ready, item)
        if not running:
            break
        t, j, c = heapq.heappop(running)
        free += c
        for k in down[j]:
            left[k] -= 1
            if left[k] == 0:
                heapq.heappush(ready, (-tail[k], k))
    return t, max(tail.values())


def _topo(order, down, n_up):
    left = {j: n_up[j] for j in order}
    out, stack = [], [j for j in order if left[j] == 0]
    while stack:
        j = stack.pop()
        out.append(j)
        for k in down[j]:
            left[k] -= 1
            if left[k] == 0:
                stack.append(k)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--measured", required=True, help="results folder of the fold-1 run (results/scale-fold1)")
    ap.add_argument("--measured-config", nargs="+", default=["benchmarks/scale_fold1.yaml"],
                    help="the config files the measured run added to --configs")
    ap.add_argument("--configs", nargs="+", default=CONFIGS,
                    help="the config files of the DAG to project (threads and memory as they declare)")
    ap.add_argument("--cores", type=int, nargs="+", default=[2, 16])
    ap.add_argument("--shared", action="store_true",
                    help="the measured run shared its cores with other work: a job's wall time is taken as at most "
                         "its CPU time (run_time)")
    ap.add_argument("--console-log", nargs="*", default=[],
                    help="the measured run's console output (what each job declared: threads, mem_mb)")
    a = ap.parse_args()
    measured_jobs = dry_jobs(a.configs + a.measured_config)
    full_jobs = dry_jobs(a.configs)
    nodes, edges = dag_edges(full_jobs)
    declared = declared_at_run(a.console_log)
    bench = {}
    for key, j in measured_jobs.items():
        if j["benchmark"]:
            b = read_benchmark(ROOT / j["benchmark"])
            if b:
                b["mem_mb"] = declared.get(j["benchmark"], (None, j["mem_mb"]))[1]
                bench[key] = (b, len(j["input"]))
    rows = defaultdict(lambda: {"jobs": 0, "measured": 0, "from_fold1": 0, "scaled": 0, "from_sibling": 0,
                                "missing": 0, "wall": [], "cpu": 0.0, "rss": 0.0, "mem": [], "over": 0,
                                "threads": 1, "runtime": [], "late": 0, "load": 0.0})
    dur = {n: {} for n in a.cores}
    cores_of = {}
    for nid, (rule, wc) in nodes.items():
        j = full_jobs[(rule, wc)]
        cores_of[nid] = j["threads"]
        if rule == "all":
            for n in a.cores:
                dur[n][nid] = 0.0
            continue
        r = rows[rule]
        r["jobs"] += 1
        r["threads"] = max(r["threads"], j["threads"])
        how = "measured"
        got = bench.get((rule, wc))
        if got is None:
            got, how = bench.get((rule, fold1(wc))), "from_fold1"
        mem = j["mem_mb"] if j["mem_mb"] is not None else (got[0]["mem_mb"] if got else None)
        if mem is not None:
            r["mem"].append(mem)
        if got is None:
            got, how = sibling(bench, rule, fold1(wc)), "from_sibling"
        if got is None:
            r["missing"] += 1
            b = {"s": 0.0, "cpu": 0.0, "rss": 0.0}
        else:
            b, n_in = got
            if rule in MERGE_RULES and len(j["input"]) > n_in:
                f = len(j["input"]) / max(n_in, 1)
                b, how = {"s": b["s"] * f, "cpu": b["cpu"] * f, "rss": b["rss"]}, "scaled"
            r[how] += 1
            r["wall"].append(b["s"])
            r["cpu"] += b["cpu"] if b["cpu"] == b["cpu"] else b["s"]
            r["rss"] = max(r["rss"], b["rss"])
            if how == "measured" and b["cpu"] == b["cpu"] and b["s"] > 0:
                r["load"] = max(r["load"], b["cpu"] / b["s"])  # cores busy on average: threads used
            r["over"] += int(mem is not None and b["rss"] > mem)
        for n in a.cores:
            dur[n][nid] = run_time(b, j["threads"], n, a.shared)
        if j["runtime"] is not None:  # minutes; Slurm's time limit, on the declared threads
            r["runtime"].append(j["runtime"])
            r["late"] += int(run_time(b, j["threads"], j["threads"], a.shared) > 60 * j["runtime"])
    print(f"machine: {cpu_model()}, {os.cpu_count()} CPUs; projection of {' + '.join(a.configs)} "
          f"from {a.measured} ({len(bench)} measured jobs)\n")
    print("| rule | jobs | measured | from fold 1 / scaled | from a sibling job | mean wall s | max wall s | "
          "CPU h (all jobs) | peak RSS MB | mem_mb declared | threads declared | CPU / wall measured (max) | "
          "runtime declared, min |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    total_cpu = 0.0
    for rule, r in sorted(rows.items(), key=lambda kv: -kv[1]["cpu"]):
        w = r["wall"]
        total_cpu += r["cpu"]
        flag = f" **over in {r['over']} jobs**" if r["over"] else ""
        mem = (f"{min(r['mem'])}" if min(r["mem"]) == max(r["mem"]) else f"{min(r['mem'])}-{max(r['mem'])}") \
            if r["mem"] else "from input"
        runtime = f"{max(r['runtime'])}" if r["runtime"] else ""
        if r["late"]:
            runtime += f" **short in {r['late']} jobs**"
        print(f"| {rule} | {r['jobs']} | {r['measured']} | {r['from_fold1'] + r['scaled']}"
              f"{' (' + str(r['missing']) + ' unmeasured)' if r['missing'] else ''} | {r['from_sibling']} | "
              f"{sum(w) / len(w) if w else float('nan'):.1f} | {max(w) if w else float('nan'):.1f} | "
              f"{r['cpu'] / 3600:.2f} | {r['rss']:.0f}{flag} | {mem} | {r['threads']} | "
              f"{r['load']:.2f} | "
              f"{runtime} |")
    print(f"\nCPU time of all {sum(r['jobs'] for r in rows.values())} jobs: {total_cpu / 3600:.1f} h")
    for n in a.cores:
        span, crit = schedule(dur[n], cores_of, edges, n)
        print(f"projected wall time on {n} cores: {span / 3600:.2f} h (critical path {crit / 3600:.2f} h)")


if __name__ == "__main__":
    main()
