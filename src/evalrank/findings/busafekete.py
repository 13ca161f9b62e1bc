"""Findings of Busa-Fekete et al. (2012), tool differences in NDCG (skeleton: filled in by the findings work of issue 19)."""

from __future__ import annotations

TITLE = "Busa-Fekete et al. (2012), tool differences in NDCG"
REQUIRES = ("ndcg/claims.csv", "ndcg/ordering.csv", )


def findings(out):
    return []
