"""Figures: one function per figure, writing PNG (and PDF) files through
:func:`evalrank.plots.style.save_figure` (Agg backend, deterministic bytes)."""
