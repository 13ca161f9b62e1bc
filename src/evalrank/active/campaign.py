r"""A labelling campaign for your own rankers (Sawade et al. 2012): plan which queries to label
under a budget, then estimate DCG, ERR or NDCG -- or the difference of two rankers -- with an
interval you may look at after every round. Flat arrays in, plain values out; files are read by
:mod:`evalrank.active.files` and the CLI (``evalrank active plan|estimate``).

1. :func:`plan`: the instrumental distribution of the chosen method
   (:mod:`evalrank.active.sampling`: eq. 11 for one ranker, eq. 12 for a difference, from the
   label model's Theorem 3 moments and the costs) with a floor: the defensive mixture
   ``q = (1 - epsilon) q* + epsilon / m`` (:func:`evalrank.active.sampling.defensive`,
   :data:`DEFAULT_EPSILON`), so no importance weight exceeds ``1 / epsilon``; ``passive`` stays
   uniform. Then Algorithm 1's draws in deterministic labelling
   (:func:`evalrank.active.estimate.budgeted_draws`): queries drawn i.i.d. from ``q``, a query
   drawn again costs nothing, drawing stops before the first new query the budget cannot pay
   for. The distinct queries never cost more than the budget; a budget at or above the pool's
   cost labels the whole pool. The draws depend only on ``q``, the costs, the budget and the
   seed's stream, so a plan extended with more budget (:func:`extend`, ``previous=``) keeps
   every earlier draw: a campaign grows in rounds without discarding labels. A plan carries
   what :func:`estimate` needs besides the labels and the rankings: ``q``, the costs and the
   label model's expected measure ``f`` and variance ``var`` per pool query, the first round's
   number of draws ``t_star`` (the confidence sequence is tuned for it) and where each round
   ended.
2. :func:`estimate`: with the labels of the planned queries, the AIPW estimator (default) or
   eq. 6 and a confidence sequence (default: valid at every look, so a campaign may be checked
   after each round), Student's t interval (valid once, at a budget fixed in advance) or the
   betting sequence (:func:`estimate_from_draws`), and a check of the label model: the variance
   it predicted for the labelled queries' losses (Theorem 3) against the squared errors of its
   predicted means, realized.

Measures: ``dcg``, ``err`` (the whole list, as in the paper), ``dcg@k``,
``err@k`` with Sawade's definitions (eqs. 1-2: gain ``2^y - 1``, discount
``1/log2(i+1)``; ERR's ``R(y) = (2^y - 1) / 2^{y_max}``), and ``ndcg@k``:
DCG@k over the ideal DCG@k of the query's labelled documents. For NDCG the
sampling distribution uses the DCG@k moments divided by the square of the
ideal DCG@k of the model's expected gains (first-order; Theorem 3 has no exact
NDCG moments) -- the estimate and its interval do not depend on that
approximation, only how well ``q`` is chosen does.

The campaign's state (:class:`Pool`, :class:`Rankings`, :class:`Plan`) is
:mod:`evalrank.active.campaign_state`, step 1 :mod:`evalrank.active.campaign_plan`, step 2
:mod:`evalrank.active.campaign_estimate`; this module gives them all under one name.
"""

from __future__ import annotations

from evalrank.active.campaign_estimate import (INTERVALS, NOTES, OVERCONFIDENT, estimate, estimate_from_draws,
                                               label_model_check, measure_range, predicted_term_variance,
                                               query_losses, term_bounds)
from evalrank.active.campaign_plan import (DEFAULT_EPSILON, check_plan, extend, moments, plan, planned_draws,
                                           sampling_distribution)
from evalrank.active.campaign_state import (Plan, Pool, Rankings, model_fingerprint, parse_campaign_measure,
                                            rankings_fingerprint)

__all__ = ["DEFAULT_EPSILON", "Rankings", "Pool", "Plan", "plan", "extend", "estimate", "query_losses",
           "parse_campaign_measure", "label_model_check", "check_plan", "measure_range", "term_bounds",
           "model_fingerprint", "rankings_fingerprint", "planned_draws", "OVERCONFIDENT", "INTERVALS", "NOTES",
           "moments", "sampling_distribution", "estimate_from_draws", "predicted_term_variance"]
