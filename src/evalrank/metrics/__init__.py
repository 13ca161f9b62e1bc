"""Ranking measures on flat arrays + query offsets: one implementation each.

>>> import numpy as np
>>> from evalrank.metrics import ndcg
>>> ndcg(np.array([0.9, 0.1]), np.array([0, 2]), np.array([0, 2]), k=10)
array([0.63092975])
"""

from evalrank.metrics.dcg import dcg
from evalrank.metrics.err import err
from evalrank.metrics.ndcg import ndcg
from evalrank.metrics.ranking import rank_order

__all__ = ["dcg", "err", "ndcg", "rank_order"]
