"""Which numba compilations a command pays for, in every Python process it starts (test workers,
DAG jobs): kernel, argument types, CPU seconds, process.

    python benchmarks/numba_compile_log.py install LOG_DIR   # a .pth in this venv's site-packages
    make test                                                 # or make run, or any command
    python benchmarks/numba_compile_log.py uninstall          # remove the .pth
    python benchmarks/numba_compile_log.py summary LOG_DIR    # CPU by kernel, signatures, repeats

Installed, every process of this venv that imports ``numba.core.dispatcher`` registers a listener
of numba's ``numba:compile`` events (emitted only when a signature is compiled, not when it is
loaded from the cache) and appends one JSON line per compilation to ``LOG_DIR/<pid>.jsonl``. Clear
numba's caches first to see a fresh clone's compilations (``find src .venv -name '*.nbi' -delete;
find src .venv -name '*.nbc' -delete``). The summary's CPU is that of the outermost compilations
(a kernel's callees are compiled inside its own); "repeated" counts the extra processes that
compiled a kernel's signature again (numba's own uncached helpers are compiled in every process;
for evalrank's kernels the test session's lock, tests/numba_lock.py, should leave none).
Used for RESULTS.md's "numba compilation on a fresh clone" section.
"""

from __future__ import annotations

import collections
import glob
import json
import os
import site
import sys
import time

PTH = "zz_evalrank_numba_compile_log.pth"
ENV = "EVALRANK_NUMBA_COMPILE_LOG"


def _register(out_dir: str) -> None:
    from numba.core import event

    class Listener(event.Listener):
        def __init__(self):
            self.stack, self.f = [], None

        def on_start(self, ev):
            self.stack.append((time.process_time(), time.perf_counter()))

        def on_end(self, ev):
            c0, w0 = self.stack.pop()
            data = ev.data or {}
            func = getattr(data.get("dispatcher"), "py_func", None)
            if self.f is None:
                self.f = open(os.path.join(out_dir, f"{os.getpid()}.jsonl"), "a")
            self.f.write(json.dumps({
                "module": getattr(func, "__module__", "?"), "name": getattr(func, "__qualname__", "?"),
                "args": str(data.get("args")), "depth": len(self.stack), "cpu": time.process_time() - c0,
                "wall": time.perf_counter() - w0, "argv": " ".join(sys.argv[:4])[:200]}) + "\n")
            self.f.flush()

    event.register("numba:compile", Listener())


def hook() -> None:
    """Run by the .pth in every process: register the listener once numba's dispatcher is imported."""
    import importlib.abc
    import importlib.util

    out_dir = os.environ.get(ENV)
    if not out_dir:
        return

    class Finder(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name != "numba.core.dispatcher":
                return None
            sys.meta_path.remove(self)
            spec = importlib.util.find_spec(name)
            if spec is None or spec.loader is None:
                return spec
            run = spec.loader.exec_module

            def exec_module(module):
                run(module)
                try:
                    _register(out_dir)
                except Exception as exc:  # never break the process being measured
                    sys.stderr.write(f"numba_compile_log: {exc}\n")

            spec.loader.exec_module = exec_module
            return spec

    sys.meta_path.insert(0, Finder())


def summary(log_dir: str, top: int = 30) -> None:
    rows = []
    for path in glob.glob(os.path.join(log_dir, "*.jsonl")):
        with open(path) as f:
            rows += [dict(json.loads(line), pid=path) for line in f]
    outer = [r for r in rows if r["depth"] == 0]
    print(f"{len(rows)} compilations ({len(outer)} outermost) in {len({r['pid'] for r in rows})} processes: "
          f"{sum(r['cpu'] for r in outer):.1f} CPU-s")
    by = collections.defaultdict(lambda: [0.0, collections.defaultdict(set)])
    for r in rows:
        k = by[f"{r['module']}.{r['name']}"]
        k[0] += r["cpu"] if r["depth"] == 0 else 0.0
        k[1][r["args"]].add(r["pid"])
    print("CPU-s (outermost)  signatures  repeated  kernel   (repeated: extra processes that compiled a signature)")
    for name, (cpu, sigs) in sorted(by.items(), key=lambda kv: -kv[1][0])[:top]:
        print(f"{cpu:17.1f}  {len(sigs):10d}  {sum(len(p) - 1 for p in sigs.values()):8d}  {name}")


def main(argv: list[str]) -> int:
    if len(argv) < 1 or argv[0] not in ("install", "uninstall", "summary"):
        print(__doc__)
        return 2
    pth = os.path.join(site.getsitepackages()[0], PTH)
    if argv[0] == "install":
        if len(argv) != 2:
            print("install needs LOG_DIR")
            return 2
        log_dir = os.path.abspath(argv[1])
        os.makedirs(log_dir, exist_ok=True)
        here = os.path.dirname(os.path.abspath(__file__))
        with open(pth, "w") as f:  # one line, executed by site.py at every start of this venv's Python
            f.write(f"import os, sys; os.environ.setdefault({ENV!r}, {log_dir!r}); sys.path.append({here!r}); "
                    f"import numba_compile_log; numba_compile_log.hook()\n")
        print(f"installed {pth}: compilations go to {log_dir}")
    elif argv[0] == "uninstall":
        if os.path.exists(pth):
            os.remove(pth)
        print(f"removed {pth}")
    else:
        summary(argv[1] if len(argv) > 1 else ".")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
