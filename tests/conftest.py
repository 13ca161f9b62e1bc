"""Suite-wide: the end-to-end DAG runs (marker ``slow``) are collected first.

``make test`` runs four xdist workers that take whole modules (``--dist loadscope``) in
collection order (``--no-loadscope-reorder``: by default xdist sorts the modules by their
number of tests, which put the one-test DAG modules last). The slow modules (``_FIRST``: the
DAG runs, Slurm, the pip install) take minutes each, much of it waiting on jobs, on Slurm's
scheduler or on pip; started first, the unit tests fill the cores around them instead of
leaving the DAG runs alone at the end. The tests on copies of the tiny run come
last, on whichever workers are free (conftest.tiny_run shares the run between workers). Within
a module the order is unchanged.

numba's cache (``__pycache__`` beside the sources) starts empty on a fresh clone and is shared
by every process of the session; the workers and the DAG runs' jobs compile each kernel under
its own file lock (around numba's ``Dispatcher.compile``: tests/numba_lock.py), so a kernel two
processes need at once is compiled once and loaded from the cache by the other, while kernels
that differ compile side by side.

OpenMP's passive wait policy for the whole session (``OMP_WAIT_POLICY=PASSIVE``, set here before
any test module loads a ``libgomp``, inherited by the xdist workers and every subprocess):
evalrank sets it when its CLI starts or ``evalrank.models`` is imported
(:mod:`evalrank.models._omp`), but a test module that imports XGBoost, scikit-learn or LightGBM
first loaded an OpenMP runtime that busy-waits between parallel regions, for the rest of that
worker's life. On 2 cores the spinning threads took most of the CPU: test_peers.py,
models/test_forest_backends.py and models/test_gbrt.py cost 93 CPU-s without it, 27 with it.
tests/models/test_omp.py, which checks the policy itself, runs its subprocesses without it.

Shared fixtures: ``toy_split`` (the train / validation / test collections of the model tests)
and ``trec_files`` (a qrels and a run file written into ``tmp_path``). Plain helpers used as
functions stay in tests/toy_data.py (toy collections) and tests/cli_run.py (the ``evalrank``
command inside the test process); tests/dagrun.py holds the workflow tests' snakemake runner.
"""

from __future__ import annotations

import os
import shutil
import tempfile

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # before pytest imports a test module (docstring)

import pytest  # noqa: E402
from numba_lock import LOCK_ENV, install  # noqa: E402
from toy_data import toy_collection  # noqa: E402

#: the slow modules in the order the workers start them. xdist's loadscope gives each worker one
#: module, then a second at once to a worker whose module has at most two tests left: Slurm's two
#: tests, mostly waiting on its scheduler, must start at once, not queued behind another module,
#: else its accounting test runs alone at the end with the cores half idle (50 s of 544 on a fresh
#: clone, measured); the module queued behind Slurm is the one-fold run.
_FIRST = ("test_dag.py", "test_matrix_mq2008.py", "test_slurm.py", "test_lean_install.py", "test_local_layouts.py",
          "test_mslr_excerpt.py")
#: last: the tests on copies of the tiny run (each waits for it; by then the unit tests are done)
_LAST = ("test_dag_rerun.py", "test_dag_report.py")


def _rank(item) -> int:
    name = item.path.name
    if name in _FIRST:
        return _FIRST.index(name)
    if name in _LAST:
        return len(_FIRST) + 2 + _LAST.index(name)
    # a slow module not listed after the listed ones, then the unit tests, each in collection order
    return len(_FIRST) + (item.get_closest_marker("slow") is None)


def pytest_collection_modifyitems(config, items):
    items.sort(key=_rank)  # stable: every worker collects the same order


# -- numba: one compilation per kernel and signature for the whole session (tests/numba_lock.py)
def pytest_configure(config):
    if not hasattr(config, "workerinput") and LOCK_ENV not in os.environ:  # the controller: one lock
        path = tempfile.mkdtemp(prefix="evalrank-numba-locks-")
        os.environ[LOCK_ENV] = path
        config._evalrank_numba_lock = path
    install()


def pytest_unconfigure(config):
    path = getattr(config, "_evalrank_numba_lock", None)
    if path:
        os.environ.pop(LOCK_ENV, None)
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def lightgbm_datasets_made(monkeypatch):
    """Every ``lightgbm.Dataset`` created while the test runs, in order (LightGBM's own class,
    its ``__init__`` wrapped to count)."""
    from evalrank.models._omp import import_lightgbm

    lgb = import_lightgbm()
    made = []
    init = lgb.Dataset.__init__

    def counting_init(self, *args, **kwargs):
        made.append(self)
        init(self, *args, **kwargs)

    monkeypatch.setattr(lgb.Dataset, "__init__", counting_init)
    return made


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
