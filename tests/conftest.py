"""Suite-wide: the end-to-end DAG runs (marker ``slow``) are collected first.

``make test`` runs four xdist workers that take whole modules (``--dist loadscope``) in
collection order. The four DAG modules take minutes each, most of it waiting on jobs (and on
Slurm's scheduler); started first, one per worker, the unit tests fill the cores around them
instead of leaving the DAG runs alone at the end. Within a module the order is unchanged.
"""

from __future__ import annotations

#: the longest first: the tiny run and the tests that follow it, the two matrix runs, Slurm
_FIRST = ("test_dag.py", "test_matrix_mq2008.py", "test_matrix_small_pool.py", "test_slurm.py")


def _rank(item) -> int:
    if item.get_closest_marker("slow") is None:
        return len(_FIRST)
    name = item.path.name
    return _FIRST.index(name) if name in _FIRST else len(_FIRST) - 1


def pytest_collection_modifyitems(config, items):
    items.sort(key=_rank)  # stable: every worker collects the same order
