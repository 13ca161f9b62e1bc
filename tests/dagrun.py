"""Helpers of the workflow tests (tests/workflow): run snakemake on the repository's Snakefile,
digest result files, read the jobs a run planned."""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from numba_lock import LOCK_ENV


REPO = Path(__file__).resolve().parents[1]
TINY = REPO / "tests" / "workflow" / "tiny.yaml"
MATRIX = REPO / "tests" / "workflow" / "matrix"
#: sitecustomize.py that installs tests/numba_lock.py in every Python process of a snakemake run
NUMBA_SITE = REPO / "tests" / "numba_site"


def snakemake(workdir: Path, *args: str, configs=(TINY,), check: bool = True, timeout: int = 1800,
              env_extra: dict | None = None, default_config: Path | None = None) -> subprocess.CompletedProcess:
    """``snakemake`` on the repository's Snakefile in ``workdir`` with the given config files.
    ``timeout`` only stops a hung run: on a shared 2-core machine at load 11-21 the tiny DAG and
    both matrix runs of `pytest -n 4 tests/workflow` did not finish in 900 s of wall time.
    ``default_config``: the file copied to ``workdir/config/config.yaml`` (the Snakefile's
    ``configfile``), the repository's by default."""
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "config").mkdir(exist_ok=True)
    shutil.copy(default_config or REPO / "config" / "config.yaml", workdir / "config" / "config.yaml")
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["EVALRANK_PROGRESS"] = "0"
    if env.get(LOCK_ENV):  # the jobs compile numba kernels under the session's lock (tests/numba_lock.py)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(NUMBA_SITE), env.get("PYTHONPATH")]))
    env.update(env_extra or {})
    if "--profile" not in args:
        args = (*args, "--scheduler", "greedy")  # as the profiles (workflow/profiles/default/config.yaml)
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"), "--directory", str(workdir),
           *args, "--configfile", *map(str, configs)]  # last: the config files take every word up to an option
    out = _run(cmd, env, timeout)
    if check and out.returncode != 0:
        raise AssertionError(f"snakemake failed ({out.returncode}):\n{out.stdout[-4000:]}\n{out.stderr[-8000:]}")
    return out


def _run(cmd: list[str], env: dict, timeout: int) -> subprocess.CompletedProcess:
    """``subprocess.run(cmd, capture_output=True, text=True)`` in a session of its own: on the
    timeout the whole process group goes (snakemake and the jobs it started, which
    ``subprocess.run`` would leave running and loading the machine), then TimeoutExpired."""
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                          start_new_session=True) as proc:
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            stdout, stderr = proc.communicate()
            raise subprocess.TimeoutExpired(cmd, timeout, output=stdout, stderr=stderr) from None
        except BaseException:  # KeyboardInterrupt, a failing test worker: leave no jobs behind
            _kill_group(proc)
            raise
    return subprocess.CompletedProcess(cmd, proc.returncode, stdout, stderr)


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # the group's id is snakemake's pid (start_new_session)
    except ProcessLookupError:
        pass


def digests(workdir: Path, name: str = "tiny", under: tuple[str, ...] = ("",)) -> dict[str, str]:
    """sha256 of every result file (below the given sub-folders) except logs, benchmarks
    and model pickles. Logs and benchmarks hold timings; a pickled model records its fit
    time and thread count, so models are compared through what they produce (the pool
    predictions, tuning tables and quality tables, all digested here)."""
    root = workdir / "results" / name
    out = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if (p.is_file() and not rel.startswith(("logs/", "benchmarks/")) and p.suffix != ".skops"
                and rel.startswith(under)):
            out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def jobs_run(proc: subprocess.CompletedProcess) -> dict[str, int]:
    """The 'Job stats' table of a run: rule -> jobs (without the target rule 'all')."""
    text = proc.stdout + proc.stderr
    if "Job stats" not in text:
        return {}
    table = text.split("Job stats:")[1].split("total")[0]
    out = {}
    for line in table.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit() and parts[0] != "all":
            out[parts[0]] = int(parts[1])
    return out
