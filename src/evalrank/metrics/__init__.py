"""Ranking measures on flat arrays + query offsets: one implementation each.

>>> import numpy as np
>>> from evalrank.metrics import ndcg
>>> ndcg(np.array([0.9, 0.1]), np.array([0, 2]), np.array([0, 2]), k=10)
array([0.63092975])

``dcg``, ``err``, ``ndcg`` and ``rank_order`` are imported on first use, so that a module of the
package that needs none of them (``evalrank evaluate`` reads :mod:`.names` and :mod:`.trec`)
does not import numba with them. They are the functions, as they were when imported here
eagerly, even after their modules (of the same names) are imported.
"""

import sys
import types

__all__ = ["dcg", "err", "ndcg", "rank_order"]

_LAZY = {"dcg": "evalrank.metrics.dcg", "err": "evalrank.metrics.err", "ndcg": "evalrank.metrics.ndcg",
         "rank_order": "evalrank.metrics.ranking"}


def _function(name: str):
    def get(module):
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)

    def keep(module, value):
        # importing the submodule evalrank.metrics.dcg binds it here: the function stays
        pass

    return property(get, keep)


class _Metrics(types.ModuleType):
    dcg = _function("dcg")
    err = _function("err")
    ndcg = _function("ndcg")
    rank_order = _function("rank_order")


sys.modules[__name__].__class__ = _Metrics
