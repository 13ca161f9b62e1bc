"""Findings of Wang et al. (2013), NDCG as lists grow (skeleton: filled in by the findings work of issue 19)."""

from __future__ import annotations

TITLE = "Wang et al. (2013), NDCG as lists grow"
REQUIRES = ("theory/limits.csv", "theory/gaps.csv", )


def findings(out):
    return []
