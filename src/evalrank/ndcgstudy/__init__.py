"""The experiment of Busa-Fekete et al. (2012), Sec. 5: six learners, each
trained under several NDCG conventions and evaluated under all of them.

* :mod:`~evalrank.ndcgstudy.folds` -- the LETOR fold (3 partitions train,
  1 validation, 1 test) from the parsed query partitions;
* :mod:`~evalrank.ndcgstudy.runs` -- train one learner under one convention
  on one fold and score its test set;
* :mod:`~evalrank.ndcgstudy.report` -- per-query NDCG@1..k under every
  evaluation convention, Fig. 1-2 curves with the paper's standard errors,
  ``ordering.csv`` and the paper's claims checked on the output.

The conformance audit of today's tools is :mod:`evalrank.conformance`.
"""
