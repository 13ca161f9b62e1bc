"""NDCG as lists grow (Wang et al. 2013): populations with a known canonical
gain curve g(s), and the limits of NDCG per discount and cut-off rule. See README.md beside
this file.

The names below are imported on first use (the limits need scipy's quadrature,
which the command-line parser must not pay for)."""

import importlib

__all__ = ["Limit", "ndcg_limit", "LogisticPopulation", "EmpiricalPopulation", "Scorer"]

_HOME = {"Limit": "limits", "ndcg_limit": "limits", "LogisticPopulation": "population",
         "EmpiricalPopulation": "population", "Scorer": "population"}


def __getattr__(name):
    if name in _HOME:
        return getattr(importlib.import_module(f"evalrank.papers.wang2013.{_HOME[name]}"), name)
    raise AttributeError(f"module 'evalrank.papers.wang2013' has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + __all__)
