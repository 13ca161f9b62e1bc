"""One numba compilation per kernel and signature for a whole test session, DAG jobs included.

numba's cache (``__pycache__`` beside the sources, ``cache=True``) starts empty on a fresh clone
and is shared by every process that imports the same sources: the xdist workers and the jobs of
the workflow tests' snakemake runs. Processes that reach the same kernel at once each compiled it
(numba writes the cache only once a compilation ends). :func:`install` makes numba's
``Dispatcher.compile`` hold a file lock per kernel, shared by all of them (in the folder
``$EVALRANK_TEST_NUMBA_LOCK``, made by the pytest controller, tests/conftest.py), so the second
process finds the first one's result in the cache (``compile`` looks there first) and loads it.

The workers install it from tests/conftest.py; the DAG jobs from ``numba_site/sitecustomize.py``,
which tests/dagrun.py puts on the snakemake runs' ``PYTHONPATH``. A parse job that compiles
evalrank's LETOR kernels costs 8.4 CPU-s, 1.9 once they are in the cache; the tiny, matrix,
Slurm and one-fold DAG runs start together, and each runs two jobs at a time.
"""

from __future__ import annotations

import fcntl
import importlib.abc
import importlib.util
import os
import sys
import threading
import time

__all__ = ["LOCK_ENV", "install"]

#: the lock folder's path, set by the controller and inherited by the workers and their subprocesses
LOCK_ENV = "EVALRANK_TEST_NUMBA_LOCK"
#: waiting longer than this for another process's compilation compiles anyway (never a deadlock)
LOCK_WAIT_S = 900


def install() -> None:
    """Patch numba's Dispatcher now if numba is imported, else when it is first imported (so
    that tests which check that numba is *not* imported, by a small evaluate for instance,
    still see it absent)."""
    if "numba.core.dispatcher" in sys.modules:
        _serialize_compiles(sys.modules["numba.core.dispatcher"].Dispatcher)
    elif not any(isinstance(f, _PatchNumbaOnImport) for f in sys.meta_path):
        sys.meta_path.insert(0, _PatchNumbaOnImport())


def _lock_name(dispatcher) -> str | None:
    """The lock file's name for a kernel numba caches on disk (``cache=True``: evalrank's, and
    the peers' such as ranx's), None for the rest (numba's own overload implementations, never
    cached, which every process compiles anyway: locking them would only make processes wait)."""
    cache = getattr(dispatcher, "_cache", None)
    if cache is None or type(cache).__name__ == "NullCache":
        return None
    func = getattr(dispatcher, "py_func", None)
    name = f"{getattr(func, '__module__', '?')}.{getattr(func, '__qualname__', '?')}"
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in name)[:200] + ".lock"


def _serialize_compiles(dispatcher_cls) -> None:
    """Make ``Dispatcher.compile`` (one new signature of one kernel) hold that kernel's file lock
    (one per kernel, in the session's lock folder), so that processes compiling different
    kernels never wait on each other (a parse job's LETOR kernels on a test's 20-second
    evaluation kernel, as with one lock for all). A kernel's callees are compiled inside its
    compilation and take their own locks: a process holds locks along a call chain, so two
    processes could only wait on each other through a call cycle, which kernels do not have
    (and :data:`LOCK_WAIT_S` bounds any wait)."""
    if getattr(dispatcher_cls.compile, "_evalrank_locked", False):
        return
    original = dispatcher_cls.compile
    local = threading.local()

    def compile(self, sig):
        folder = os.environ.get(LOCK_ENV)
        name = _lock_name(self) if folder else None
        held = getattr(local, "held", None)
        if held is None:
            held = local.held = set()
        if name is None or name in held or not os.path.isdir(folder):
            return original(self, sig)
        with open(os.path.join(folder, name), "a") as lock:
            deadline = time.monotonic() + LOCK_WAIT_S
            while True:
                try:
                    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        break
                    time.sleep(0.02)
            held.add(name)
            try:
                return original(self, sig)
            finally:
                held.discard(name)  # the lock goes with the file

    compile._evalrank_locked = True
    dispatcher_cls.compile = compile


class _PatchNumbaOnImport(importlib.abc.MetaPathFinder):
    """Patches numba's Dispatcher when ``numba.core.dispatcher`` is first imported."""

    def find_spec(self, name, path=None, target=None):
        if name != "numba.core.dispatcher":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            _serialize_compiles(module.Dispatcher)

        spec.loader.exec_module = exec_module
        return spec
