"""Shared matplotlib helpers: Agg backend, one look, deterministic files.

Every figure is written by :func:`save_figure`, atomically (via
:func:`evalrank.io.atomic_path`) and without time stamps or version strings in
the metadata, so the same figure gives the same bytes on every run.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from evalrank import io  # noqa: E402

__all__ = ["COLORS", "RC", "style", "subplots", "save_figure", "color", "require_columns"]

#: Okabe-Ito colour-blind safe palette (black last).
COLORS = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")

#: rcParams used for every figure.
RC = {
    "figure.dpi": 100,
    "savefig.dpi": 150,
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.labelsize": 9,
    "legend.fontsize": 8,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "grid.linewidth": 0.5,
    "legend.frameon": False,
    "pdf.fonttype": 42,
    "svg.hashsalt": "evalrank",
    "path.simplify": True,
}


def color(i: int) -> str:
    """The ``i``-th palette colour (cycling)."""
    return COLORS[i % len(COLORS)]


@contextlib.contextmanager
def style():
    """Context in which figures get the evalrank look."""
    with plt.rc_context(RC):
        yield


def subplots(nrows: int = 1, ncols: int = 1, *, width: float = 4.0, height: float = 3.0, **kw):
    """``plt.subplots`` with the evalrank style, panel size ``width`` x ``height``
    inches and constrained layout."""
    with style():
        return plt.subplots(
            nrows, ncols, figsize=(width * ncols, height * nrows), layout="constrained", squeeze=False, **kw
        )


def save_figure(fig, path, *, close: bool = True) -> list[Path]:
    """Write ``fig`` as PNG, and also as PDF if ``path`` ends in ``.pdf``.

    ``x.png`` -> ``x.png``; ``x.pdf`` -> ``x.pdf`` and ``x.png`` beside it;
    any other suffix -> ``path + ".png"`` is not guessed: a ValueError. Files
    are written atomically with fixed metadata (PNG ``Software`` and PDF
    ``CreationDate`` removed). Returns the paths written. Closes ``fig``
    unless ``close=False``.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".png", ".pdf"):
        raise ValueError(f"figure path must end in .png or .pdf, got {path}")
    written = []
    try:
        with style():
            png = path.with_suffix(".png")
            with io.atomic_path(png) as tmp:
                fig.savefig(tmp, format="png", metadata={"Software": None})
            written.append(png)
            if suffix == ".pdf":
                with io.atomic_path(path) as tmp:
                    fig.savefig(tmp, format="pdf", metadata={"CreationDate": None})
                written.append(path)
    finally:
        if close:
            plt.close(fig)
    return written


def require_columns(df, columns, name):
    """Raise TypeError unless ``df`` is a DataFrame, ValueError naming missing columns."""
    import pandas as pd

    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"{name} must be a pandas DataFrame, got {type(df).__name__}")
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"{name} lacks column(s) {missing}; has {list(df.columns)}")
