"""Findings of Dinçer et al. (2016), risk with multiple baselines (skeleton: filled in by the findings work of issue 19)."""

from __future__ import annotations

TITLE = "Dinçer et al. (2016), risk with multiple baselines"
REQUIRES = ("risk/example/vs_paper.csv", )


def findings(out):
    return []
