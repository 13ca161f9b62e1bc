"""Suite-wide: the end-to-end DAG runs (marker ``slow``) are collected first.

``make test`` runs four xdist workers that take whole modules (``--dist loadscope``) in
collection order (``--no-loadscope-reorder``: by default xdist sorts the modules by their
number of tests, which put the one-test DAG modules last). The four DAG modules take minutes each, most of it waiting on jobs (and on
Slurm's scheduler); started first, one per worker, the unit tests fill the cores around them
instead of leaving the DAG runs alone at the end. The tests on copies of the tiny run come
last, on whichever workers are free (conftest.tiny_run shares the run between workers). Within
a module the order is unchanged.
"""

from __future__ import annotations

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
