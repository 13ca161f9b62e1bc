"""NDCG conventions (Busa-Fekete, Szarvas, Élteső & Kégl, 2012): six learners, each trained under
several NDCG conventions and evaluated under all of them (Sec. 5), and the conventions of today's
tools measured by running them (Sec. 3). See README.md beside this file.

* :mod:`~evalrank.papers.busafekete2012.folds` -- the LETOR fold (3 partitions train,
  1 validation, 1 test) from the parsed query partitions;
* :mod:`~evalrank.papers.busafekete2012.runs` -- train one learner under one convention
  on one fold and score its test set;
* :mod:`~evalrank.papers.busafekete2012.report` -- per-query NDCG@1..k under every
  evaluation convention, Fig. 1-2 curves with the paper's standard errors,
  ``ordering.csv`` and the paper's claims checked on the output;
* :mod:`~evalrank.papers.busafekete2012.audit` -- crafted edge cases run through every installed
  tool (:mod:`~evalrank.papers.busafekete2012.peers`) -> ``tool_conventions.csv``.
"""
