"""Rerun the active (Sawade 2012) stage's jobs of a finished run, one at a time, and check that every
output is byte-identical to the run's; report each job's CPU seconds (user + sys, from wait4).

    python benchmarks/active_identity.py --reference /path/to/clone/results/synthetic \
        --commands cmds.sh --scratch /tmp/scratch [--only fig3_index_update ...]

``--commands``: the jobs' shell commands, one a line, as ``snakemake -n -p`` prints them for the
active rules (``python -m evalrank stage active-setup|active-mc|active-summary ... 2> log``), with
paths under ``results/<name>/``; they run in ``--scratch``, where ``results/<name>/`` holds links
to the reference's inputs (``data``, ``fold*/predictions``, ``fold*/predictions_vali``) and fresh
folders for the outputs. Setups run first, then shards, then the summary (each reads what the
previous wrote). Then every ``fold*/sawade2012/*/{setup,shard*}.npz`` and ``sawade2012/*.csv`` written is
compared with ``cmp`` semantics (bytes) against the reference's. Exit status 1 on any difference.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path


def _order(line: str) -> int:
    return 0 if "active-setup" in line else 2 if "active-summary" in line else 1


def _run(line: str, cwd: Path) -> tuple[int, float, float]:
    t0 = time.perf_counter()
    proc = subprocess.Popen(["bash", "-c", line], cwd=cwd)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, usage.ru_utime + usage.ru_stime, time.perf_counter() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reference", type=Path, required=True, help="the finished run's results/<name> folder")
    ap.add_argument("--commands", type=Path, required=True, help="one shell command a line (snakemake -n -p)")
    ap.add_argument("--scratch", type=Path, required=True, help="an empty folder to run in")
    ap.add_argument("--only", nargs="*", default=None, help="experiments to rerun (default: all; the summary "
                    "runs only without --only)")
    args = ap.parse_args(argv)
    ref = args.reference.resolve()
    name = ref.name
    lines = [ln.strip() for ln in args.commands.read_text().splitlines() if "python -m evalrank stage active" in ln]
    lines = [re.sub(r"^Shell command:\s*", "", ln) for ln in lines]
    if args.only is not None:
        lines = [ln for ln in lines if "active-summary" not in ln
                 and any(f"/active/{e}/" in ln for e in args.only)]
    lines.sort(key=_order)
    res = args.scratch / "results" / name
    (res / "logs" / "sawade2012").mkdir(parents=True, exist_ok=True)
    (res / "sawade2012").mkdir(parents=True, exist_ok=True)
    if not (res / "data").exists():
        (res / "data").symlink_to(ref / "data")
    for fold in sorted(ref.glob("fold*")):
        (res / fold.name / "sawade2012").mkdir(parents=True, exist_ok=True)
        for sub in ("predictions", "predictions_vali"):
            if (fold / sub).exists() and not (res / fold.name / sub).exists():
                (res / fold.name / sub).symlink_to(fold / sub)
        for exp in (fold / "sawade2012").iterdir():
            (res / fold.name / "sawade2012" / exp.name).mkdir(exist_ok=True)
    total, failed = 0.0, 0
    print("job\tcpu_s\twall_s\tload1")
    for line in lines:
        rc, cpu, wall = _run(line, args.scratch)
        total += cpu
        out = shlex.split(line.split(" 2> ")[0])
        job = out[out.index("--output") + 1] if "--output" in out else "active-summary"
        print(f"{job}\t{cpu:.2f}\t{wall:.2f}\t{os.getloadavg()[0]:.2f}", flush=True)
        if rc:
            failed += 1
            print(f"  exit status {rc}: {line}", file=sys.stderr)
    print(f"total\t{total:.2f}")
    written = sorted(p for p in res.glob("fold*/sawade2012/*/*.npz")) + sorted((res / "sawade2012").glob("*.csv"))
    diff = 0
    for p in written:
        other = ref / p.relative_to(res)
        same = other.exists() and other.read_bytes() == p.read_bytes()
        diff += not same
        if not same:
            print(f"DIFFERS: {p.relative_to(res)}")
    print(f"{len(written)} files compared, {diff} differ, {failed} jobs failed")
    return 1 if diff or failed or not written else 0


if __name__ == "__main__":
    sys.exit(main())
