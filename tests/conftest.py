"""Suite-wide: the end-to-end DAG runs (marker ``slow``) are collected first.

``make test`` runs four xdist workers that take whole modules (``--dist loadscope``) in
collection order (``--no-loadscope-reorder``: by default xdist sorts the modules by their
number of tests, which put the one-test DAG modules last). The four DAG modules take minutes each, most of it waiting on jobs (and on
Slurm's scheduler); started first, one per worker, the unit tests fill the cores around them
instead of leaving the DAG runs alone at the end. The tests on copies of the tiny run come
last, on whichever workers are free (conftest.tiny_run shares the run between workers). Within
a module the order is unchanged.

numba's cache (``__pycache__`` beside the sources) starts empty on a fresh clone and is shared
by every process of the session; the workers compile a kernel one at a time (a file lock around
numba's ``Dispatcher.compile``), so a kernel two workers need at once is compiled once and loaded
from the cache by the other.

Shared fixtures: ``toy_split`` (the train / validation / test collections of the model tests)
and ``trec_files`` (a qrels and a run file written into ``tmp_path``). Plain helpers used as
functions stay in tests/toy_data.py (toy collections) and tests/cli_run.py (the ``evalrank``
command inside the test process); tests/dagrun.py holds the workflow tests' snakemake runner.
"""

from __future__ import annotations

import fcntl
import importlib.abc
import importlib.util
import os
import sys
import tempfile
import threading
import time

import pytest
from toy_data import toy_collection

#: the longest first: the tiny run (with its per-stage checks), the two matrix runs, Slurm
_FIRST = ("test_dag.py", "test_matrix_mq2008.py", "test_matrix_small_pool.py", "test_slurm.py")
#: last: the tests on copies of the tiny run (each waits for it; by then the unit tests are done)
_LAST = ("test_dag_rerun.py", "test_dag_report.py")


def _rank(item) -> int:
    name = item.path.name
    if name in _LAST:
        return len(_FIRST) + 1 + _LAST.index(name)
    if item.get_closest_marker("slow") is None:
        return len(_FIRST)
    return _FIRST.index(name) if name in _FIRST else len(_FIRST) - 1


def pytest_collection_modifyitems(config, items):
    items.sort(key=_rank)  # stable: every worker collects the same order


# -- numba: one compilation per kernel and signature for the whole session ------------------
#: the lock file's path, set by the controller and inherited by the xdist workers
_LOCK_ENV = "EVALRANK_TEST_NUMBA_LOCK"
#: waiting longer than this for another process's compilation compiles anyway (never a deadlock)
_LOCK_WAIT_S = 900


def _serialize_compiles(dispatcher_cls) -> None:
    """Make ``Dispatcher.compile`` (one new signature of one kernel) hold a file lock that every
    test worker shares: numba's cache (``__pycache__`` beside the sources, cache=True) starts
    empty on a fresh clone, and workers that reach the same kernel at once each compiled it
    (numba only writes the cache once a compilation ends). Under the lock, the second worker
    finds the first one's result in the cache (``compile`` looks there first) and loads it.
    Nested compilations (a kernel's callees) run under the outermost one's lock."""
    if getattr(dispatcher_cls.compile, "_evalrank_locked", False):
        return
    original = dispatcher_cls.compile
    local = threading.local()

    def compile(self, sig):
        path = os.environ.get(_LOCK_ENV)
        if not path or getattr(local, "held", False):
            return original(self, sig)
        with open(path, "a") as lock:
            deadline = time.monotonic() + _LOCK_WAIT_S
            while True:
                try:
                    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        break
                    time.sleep(0.02)
            local.held = True
            try:
                return original(self, sig)
            finally:
                local.held = False  # the lock goes with the file

    compile._evalrank_locked = True
    dispatcher_cls.compile = compile


class _PatchNumbaOnImport(importlib.abc.MetaPathFinder):
    """Patches numba's Dispatcher when numba is first imported, so that tests which check that
    numba is *not* imported (by a small evaluate, for instance) still see it absent."""

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


def pytest_configure(config):
    if not hasattr(config, "workerinput") and _LOCK_ENV not in os.environ:  # the controller: one lock
        fd, path = tempfile.mkstemp(prefix="evalrank-numba-", suffix=".lock")
        os.close(fd)
        os.environ[_LOCK_ENV] = path
        config._evalrank_numba_lock = path
    if "numba.core.dispatcher" in sys.modules:
        _serialize_compiles(sys.modules["numba.core.dispatcher"].Dispatcher)
    else:
        sys.meta_path.insert(0, _PatchNumbaOnImport())


def pytest_unconfigure(config):
    path = getattr(config, "_evalrank_numba_lock", None)
    if path:
        os.environ.pop(_LOCK_ENV, None)
        try:
            os.unlink(path)
        except OSError:
            pass


@pytest.fixture(scope="module")
def toy_split():
    """Train, validation and test collections (``toy_data.toy_collection`` 40, 40 and 60
    queries, seeds 1-3), built once per module (so a module cannot see another's changes)."""
    return toy_collection(40, 1), toy_collection(40, 2), toy_collection(60, 3)


@pytest.fixture
def trec_files(tmp_path):
    """``write(qrels, run)``: writes ``tmp_path/qrels`` and ``tmp_path/run`` (a text, or a list
    of lines joined with newlines and ended by one) and returns the two paths."""
    def write(qrels, run):
        paths = tmp_path / "qrels", tmp_path / "run"
        for path, text in zip(paths, (qrels, run)):
            path.write_text(text if isinstance(text, str) else "\n".join(text) + "\n")
        return paths
    return write


@pytest.fixture
def no_replace(monkeypatch):
    """Fail the test, before anything is renamed, if a writer makes a temporary file or renames
    one (evalrank.io.atomic_path): so a device (/dev/null, /dev/full) can never be replaced by a
    regular file in a test, even by a broken atomic_path run as root."""
    from evalrank import io

    def boom(*a, **k):
        raise AssertionError(f"atomic replace attempted: {a}")
    monkeypatch.setattr(io.tempfile, "mkstemp", boom)
    monkeypatch.setattr(io.os, "replace", boom)
