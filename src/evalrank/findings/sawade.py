"""Findings of Sawade et al. (2012), active evaluation of ranking functions (skeleton: filled in by the findings work of issue 19)."""

from __future__ import annotations

TITLE = "Sawade et al. (2012), active evaluation of ranking functions"
REQUIRES = ("active/savings.csv", "active/curves.csv", "active/coverage.csv", "active/label_model_check.csv", )


def findings(out):
    return []
