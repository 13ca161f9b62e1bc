"""NDCG as lists grow (Wang et al. 2013): populations with a known canonical
gain curve g(s), and the limits of NDCG per discount and cut-off rule."""

from evalrank.theory.limits import Limit, ndcg_limit
from evalrank.theory.population import EmpiricalPopulation, LogisticPopulation, Scorer

__all__ = ["Limit", "ndcg_limit", "LogisticPopulation", "EmpiricalPopulation", "Scorer"]
