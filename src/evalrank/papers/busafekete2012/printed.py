"""The numbers Busa-Fekete et al. (2012) print, typed once (they are the paper's); the findings
page (:mod:`~evalrank.papers.busafekete2012.findings`) reads them from here."""

from __future__ import annotations

__all__ = ["YAHOO_SHIFT", "LETOR_GAP"]

#: Sec. 5 on Fig. 1: YAHOO's NDCG is "on average around 0.25 higher" than RankLib/TREC's
YAHOO_SHIFT = 0.25
#: Sec. 5 on Fig. 1: LETOR 4.0's NDCG at k = 8-10 is "around or above 0.25" below the official one
LETOR_GAP = 0.25
