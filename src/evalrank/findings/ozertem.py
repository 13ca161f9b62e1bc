"""Findings of Ozertem et al. (2011), judgments and clicks (skeleton: filled in by the findings work of issue 19)."""

from __future__ import annotations

TITLE = "Ozertem et al. (2011), judgments and clicks"
REQUIRES = ("clicks/table2.csv", "clicks/study.csv", )


def findings(out):
    return []
