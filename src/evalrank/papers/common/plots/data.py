"""Figure of the data: how a (synthetic) collection compares to MSLR.

Three panels: documents per query (log x), grade marginals (grouped bars per
collection, with MSLR-WEB30K's approximate shares as markers) and the
distribution of the whole-document length (MSLR feature 15, log x), which
drives the active-evaluation labelling costs ``sum_docs log(1 + length)``.
"""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from evalrank.data.collection import Collection
from evalrank.data.describe import MSLR_WEB30K_REFERENCE, WHOLE_LENGTH_COLUMN
from evalrank.papers.common.plots.style import color, save_figure, style, subplots

__all__ = ["plot_dataset"]


def _log_bins(values: list[np.ndarray], n: int = 40) -> np.ndarray:
    hi = max((float(v.max()) for v in values if v.size), default=1.0)
    return np.logspace(0.0, np.log10(max(hi, 1.0) * 1.05 + 1.0), n + 1)


def _legend_with_headroom(ax, n_entries: int) -> None:
    """Legend in the upper left, with the y axis extended so it covers no data."""
    lo, hi = ax.get_ylim()
    ax.set_ylim(lo, hi * (1.1 + 0.17 * n_entries))
    ax.legend(loc="upper left")


def plot_dataset(named: dict, path, *, reference: bool = True, title: str | None = None) -> list:
    """Plot ``{name: Collection}`` side by side and write ``path`` (.png or .pdf).

    Panel 1: histogram of documents per query (share of queries, log x).
    Panel 2: share of documents per grade (log y), one bar per collection in
    the colours of panels 1 and 3; with
    ``reference=True`` MSLR-WEB30K's approximate published shares are drawn
    as black markers when the grades are MSLR's 0-4. Panel 3: histogram of the whole-document length
    (feature id 15, share of documents, log x; lengths below 1 are counted
    in the first bin); skipped for collections with fewer than 15 features.
    Returns the files written.
    """
    if not named:
        raise ValueError("named must contain at least one collection")
    for k, c in named.items():
        if not isinstance(c, Collection):
            raise TypeError(f"named[{k!r}] must be a Collection, got {type(c).__name__}")
    with style():
        fig = _draw(named, reference, title)
    return save_figure(fig, path)


def _draw(named: dict, reference: bool, title: str | None):
    names = [str(k) for k in named]
    colls = list(named.values())

    fig, axes = subplots(1, 3, width=3.6, height=3.0)
    ax_q, ax_g, ax_l = axes[0]

    # -- documents per query ----------------------------------------------------
    sizes = [c.query_sizes for c in colls]
    bins = _log_bins(sizes)
    for i, (name, s) in enumerate(zip(names, sizes)):
        if s.size:
            w = np.full(s.size, 1.0 / s.size)
            ax_q.hist(np.maximum(s, 1), bins=bins, weights=w, histtype="step", lw=1.4, color=color(i),
                      label=f"{name} (mean {s.mean():.0f}, median {np.median(s):.0f})")
    ax_q.set_xscale("log")
    ax_q.set_xlabel("documents per query")
    ax_q.set_ylabel("share of queries")
    ax_q.set_title("Query sizes")
    ax_q.axvline(10, color="0.5", lw=0.8, ls=":")
    _legend_with_headroom(ax_q, len(colls))

    # -- grade marginals --------------------------------------------------------
    max_grade = max([1] + [int(c.labels.max()) for c in colls if c.n_docs])
    grades = np.arange(max_grade + 1)
    width = 0.8 / len(colls)
    for i, (name, c) in enumerate(zip(names, colls)):
        share = np.bincount(c.labels.astype(np.int64), minlength=max_grade + 1) / max(c.n_docs, 1)
        ax_g.bar(grades - 0.4 + (i + 0.5) * width, share, width=width, color=color(i))
    if reference and max_grade == 4:  # MSLR's shares mean nothing on another grade scale (MQ2008: 0-2)
        ref = [MSLR_WEB30K_REFERENCE.get(f"grade_{g}_share") for g in grades]
        ok = [g for g, v in zip(grades, ref) if v is not None]
        if ok:
            ax_g.scatter(ok, [ref[g] for g in ok], marker="_", s=300, color="black", linewidths=2, zorder=3,
                         label="MSLR-WEB30K (approx.)")
    ax_g.set_yscale("log")
    # labels at 1, 2 and 5 of each decade, written as decimals (0.05, 0.1, 0.2), none on the other ticks
    ax_g.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
    ax_g.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax_g.yaxis.set_minor_formatter(NullFormatter())
    ax_g.set_xticks(grades)
    ax_g.set_xlabel("relevance grade")
    ax_g.set_ylabel("share of documents (log)")
    ax_g.set_title("Grade marginals")
    if ax_g.get_legend_handles_labels()[0]:
        ax_g.legend(loc="upper right")  # collection colours as in the other panels

    # -- whole-document length --------------------------------------------------
    lengths = [np.asarray(c.features[:, WHOLE_LENGTH_COLUMN], dtype=np.float64)
               for c in colls if c.n_features > WHOLE_LENGTH_COLUMN]
    if lengths:
        bins = _log_bins(lengths)
        j = 0
        for i, (name, c) in enumerate(zip(names, colls)):
            if c.n_features <= WHOLE_LENGTH_COLUMN:
                continue
            v = lengths[j]
            j += 1
            if v.size:
                ax_l.hist(np.maximum(v, 1.0), bins=bins, weights=np.full(v.size, 1.0 / v.size), histtype="step",
                          lw=1.4, color=color(i), label=f"{name} (median {np.median(v):.0f})")
        ax_l.set_xscale("log")
        _legend_with_headroom(ax_l, len(lengths))
    else:
        ax_l.text(0.5, 0.5, "no length feature (id 15)", ha="center", va="center", transform=ax_l.transAxes)
    ax_l.set_xlabel("whole-document length (feature 15)")
    ax_l.set_ylabel("share of documents")
    ax_l.set_title("Document length (labelling cost)")

    if title:
        fig.suptitle(title)
    return fig
