"""Figures: one function per figure, writing PNG (and PDF) files through
:func:`evalrank.papers.common.plots.style.save_figure` (Agg backend, deterministic bytes)."""
