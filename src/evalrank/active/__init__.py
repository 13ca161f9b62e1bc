"""Active evaluation (Sawade et al. 2012): exact label-model moments of DCG/ERR."""

from evalrank.active.theorem3 import batch_difference_moments, batch_moments, difference_moments, moments

__all__ = ["moments", "difference_moments", "batch_moments", "batch_difference_moments"]
