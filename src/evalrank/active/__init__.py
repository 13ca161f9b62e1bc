"""Active evaluation of ranking functions (Sawade et al. 2012): the labelling tool
(``evalrank active plan|estimate``). The paper's experiment (Sec. 5: Monte Carlo of Algorithm 1
over a budget grid, Figs. 1-3) is :mod:`evalrank.papers.sawade2012`.

* :mod:`~evalrank.active.theorem3` -- exact ``E[L | x; theta]`` and ``E[(L - c)^2 | x; theta]``
  of DCG/ERR and of a difference of two rankings (eqs. 11-13, Theorem 3);
* :mod:`~evalrank.active.costs` -- labelling costs ``lambda(x)`` (Sec. 5);
* :mod:`~evalrank.active.sampling` -- q* (eqs. 11, 12) and the baselines of Sec. 5;
* :mod:`~evalrank.active.estimate` -- Algorithm 1 and the estimator of eq. 6;
* :mod:`~evalrank.active.campaign` -- a user's campaign: :func:`plan` the queries to label,
  :func:`estimate` with an interval (:mod:`~evalrank.active.interval`); its files in
  :mod:`~evalrank.active.files` (``pool_from_trec``, ``write_plan``, ``labels_from_qrels``).
"""

from evalrank.active.campaign_estimate import estimate
from evalrank.active.campaign_plan import plan
from evalrank.active.campaign_state import Plan, Pool
from evalrank.active.costs import query_costs
from evalrank.active.estimate import algorithm1, weighted_estimates
from evalrank.active.sampling import METHODS, q_star, q_star_difference
from evalrank.active.theorem3 import (
    batch_difference_mean_var,
    batch_difference_moments,
    batch_mean_var,
    batch_moments,
    difference_moments,
    moments,
)

__all__ = [
    "moments", "difference_moments", "batch_moments", "batch_difference_moments",
    "batch_mean_var", "batch_difference_mean_var",
    "query_costs", "METHODS", "q_star", "q_star_difference", "algorithm1", "weighted_estimates",
    "Pool", "Plan", "plan", "estimate",
]
