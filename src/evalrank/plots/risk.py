"""Figures 1-3 of Dinçer et al. (2016): performance profiles of the example
systems (Fig. 1) and GeoRisk as the risk sensitivity alpha grows (Fig. 2 for
the example systems, alpha = 0..10; Fig. 3 for a population's top systems,
alpha = 0..20)."""

from __future__ import annotations

import numpy as np

from evalrank.plots.style import color, require_columns, save_figure, subplots

__all__ = ["plot_profiles", "plot_georisk"]

_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "h", "<")
_LINES = ("-", "--", "-.", ":")


def _style(i):
    return dict(color=color(i), marker=_MARKERS[i % len(_MARKERS)], ls=_LINES[i % len(_LINES)])


def plot_profiles(systems, topics, X, path, *, title=None, ylabel="effectiveness"):
    """One line per system across the topics (Fig. 1), plus the per-topic
    mean of all systems (the "Mean" row of Table 3) in grey."""
    X = np.asarray(X, dtype=float)
    if X.shape != (len(systems), len(topics)):
        raise ValueError(f"X must have shape (len(systems), len(topics)) = {(len(systems), len(topics))}, "
                         f"got {X.shape}")
    fig, axes = subplots(1, 1, width=5.5, height=3.6)
    ax = axes[0][0]
    x = np.arange(1, len(topics) + 1)
    for i, s in enumerate(systems):
        ax.plot(x, X[i], lw=1.3, ms=5, mfc="none", label=s, **_style(i))
    ax.plot(x, X.mean(axis=0), color="0.5", lw=3, alpha=0.5, label="per-topic mean", zorder=0)
    ax.set_xticks(x, topics)
    ax.set_xlabel("topic")
    ax.set_ylabel(ylabel)
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5))
    if title:
        fig.suptitle(title)
    return save_figure(fig, path)


def plot_georisk(curves, path, *, title=None, systems=None, baseline=None):
    """GeoRisk against alpha, one line per system (Figs. 2-3; line styles
    differ so that systems with equal curves -- s5 and s6 of the example --
    stay visible); ``curves`` from :func:`evalrank.riskstudy.population.georisk_curves`."""
    require_columns(curves, ("system", "alpha", "georisk"), "curves")
    systems = list(dict.fromkeys(curves["system"])) if systems is None else list(systems)
    fig, axes = subplots(1, 1, width=5.5, height=3.6)
    ax = axes[0][0]
    others = [s for s in systems if s != baseline]
    for i, s in enumerate(others):
        d = curves[curves["system"] == s].sort_values("alpha")
        ax.plot(d["alpha"], d["georisk"], lw=1.3, ms=4, mfc="none", label=s, **_style(i))
    if baseline in systems:
        d = curves[curves["system"] == baseline].sort_values("alpha")
        ax.plot(d["alpha"], d["georisk"], color="0.45", lw=2, ls="--", label=f"{baseline} (baseline)")
    ax.set_xlabel(r"risk sensitivity $\alpha$")
    ax.set_ylabel("GeoRisk")
    amax = float(curves["alpha"].max())
    ax.set_xticks(np.arange(0, amax + 1, 1 if amax <= 10 else 2))
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5))
    if title:
        fig.suptitle(title)
    return save_figure(fig, path)
