"""The first call after installing (issue 50, item 4): numba's cache is empty, so the first
command that runs kernels compiled compiles them, tens of seconds of CPU; the command says so at
once, in one line on stderr (evalrank.cli.COMPILING, through evalrank._jit.on_first_compile), and
says nothing when the kernels are in the cache. Each test has a cache of its own
(``NUMBA_CACHE_DIR`` in a temporary folder), so the first run compiles whatever the session's
shared cache holds."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from evalrank.cli import COMPILING

_SRC = Path(__file__).resolve().parents[1] / "src"


def _env(cache: Path, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("EVALRANK_JIT", "NUMBA_CACHE_DIR")}
    env["PYTHONPATH"] = os.pathsep.join([str(_SRC)] + [p for p in [env.get("PYTHONPATH")] if p])
    env.update(NUMBA_CACHE_DIR=str(cache), EVALRANK_PROGRESS="0", **extra)
    return env


def test_the_first_compiling_call_says_so_once_and_a_cached_one_says_nothing(tmp_path):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n")
    run.write_text("1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n2 Q0 c 1 1 t\n")
    cmd = [sys.executable, "-m", "evalrank", "evaluate", "-m", "map", str(qrels), str(run)]
    env = _env(tmp_path / "numba-cache", EVALRANK_JIT="numba")   # compiled, however small the files
    first = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
    assert first.returncode == 0, first.stderr
    assert first.stderr == f"evalrank evaluate: {COMPILING}\n", first.stderr   # once, however many kernels
    assert first.stdout == "map                   \tall\t1.0000\n"
    warm = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
    assert (warm.returncode, warm.stdout, warm.stderr) == (0, first.stdout, "")
    # interpreted (a small input under EVALRANK_JIT=auto): nothing compiles, nothing is said
    cold = _env(tmp_path / "another-cache")
    small = subprocess.run(cmd, capture_output=True, text=True, env=cold, timeout=900)
    assert (small.returncode, small.stdout, small.stderr) == (0, first.stdout, "")
    # make install's warm-up (evalrank.warmup) fills the cache with the rest of evaluate's and
    # compare's kernels: afterwards every measure and a compare on inputs large enough to compile
    # (EVALRANK_JIT=auto) say nothing
    auto = _env(tmp_path / "numba-cache")
    up = subprocess.run([sys.executable, "-m", "evalrank.warmup"], capture_output=True, text=True, env=auto,
                        timeout=900)
    assert up.returncode == 0 and up.stderr.startswith("evalrank: numba's cache holds"), up.stderr
    from evalrank.warmup import write_inputs

    (tmp_path / "big").mkdir()
    big_qrels, a, b = write_inputs(tmp_path / "big")
    for args in (["evaluate", "-q", "-m", "all_trec", big_qrels, a],
                 ["compare", "--baseline", a, "-m", "map", "-m", "ndcg_cut.10", big_qrels, a, b]):
        r = subprocess.run([sys.executable, "-m", "evalrank", *map(str, args)], capture_output=True, text=True,
                           env=auto, timeout=900)
        assert (r.returncode, r.stderr) == (0, ""), (args[0], r.stderr)


_KERNEL = '''
from evalrank._jit import njit


@njit(cache=True)
def twice(x):
    return 2 * x
'''

_CALL = '''
import sys
from evalrank import _jit
seen = []
_jit.on_first_compile(lambda: seen.append("compiling"))
with _jit.mode("numba"):
    import tiny   # defined compiled: a module outside evalrank is not rebound
    assert tiny.twice(21) == 42 and tiny.twice(1.5) == 3.0   # two signatures: still called once
_jit.on_first_compile(None)
print(seen)
'''


def test_the_callback_is_called_on_a_cache_miss_only(tmp_path):
    (tmp_path / "tiny.py").write_text(_KERNEL)
    env = _env(tmp_path / "numba-cache")
    env["PYTHONPATH"] += os.pathsep + str(tmp_path)
    runs = [subprocess.run([sys.executable, "-c", _CALL], capture_output=True, text=True, env=env, timeout=300)
            for _ in range(2)]
    assert [(r.returncode, r.stdout) for r in runs] == [(0, "['compiling']\n"), (0, "[]\n")], runs[0].stderr
