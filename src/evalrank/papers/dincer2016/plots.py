"""Figures 1-3 of Dinçer et al. (2016): performance profiles of the example
systems (Fig. 1) and GeoRisk as the risk sensitivity alpha grows (Fig. 2 for
the example systems, alpha = 0..10; Fig. 3 for a population's top systems,
alpha = 0..20, beside their differences to the systems' mean at each alpha,
where the curves that lie on top of each other come apart)."""

from __future__ import annotations

import textwrap

import numpy as np

from evalrank.papers.common.plots.style import color, require_columns, save_figure, subplots

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


def plot_georisk(curves, path, *, title=None, systems=None, baseline=None, relative=False, key=None):
    """GeoRisk against alpha, one line per system (Figs. 2-3; line styles
    differ so that systems with equal curves -- s5 and s6 of the example --
    stay visible); ``curves`` from :func:`evalrank.papers.dincer2016.population.georisk_curves`.

    ``relative``: a second panel with each system's GeoRisk minus the mean
    GeoRisk of the plotted systems (the baseline left out) at the same alpha,
    on its own y-axis, so that systems whose curves lie on top of each other
    in the first panel come apart and every crossing is a change in GeoRisk's
    order (Fig. 3: the paper's point); the legend gives each system's rank
    at the smallest and the largest alpha. ``key``: lines of text under the
    figure (what the system names mean)."""
    require_columns(curves, ("system", "alpha", "georisk"), "curves")
    systems = list(dict.fromkeys(curves["system"])) if systems is None else list(systems)
    others = [s for s in systems if s != baseline]
    fig, axes = subplots(1, 2 if relative else 1, width=4.6 if relative else 5.5, height=3.6)
    ax = axes[0][0]
    wide = curves[curves["system"].isin(systems)].pivot(index="alpha", columns="system", values="georisk")
    a0, a1 = wide.index[0], wide.index[-1]
    ranks = wide[others].rank(axis=1, ascending=False, method="min").astype(int)
    labels = {s: f"{s}  ({ranks.loc[a0, s]} \u2192 {ranks.loc[a1, s]})" if relative else s for s in others}
    for i, s in enumerate(others):
        ax.plot(wide.index, wide[s], lw=1.3, ms=4, mfc="none", label=labels[s], **_style(i))
    if baseline in systems:
        ax.plot(wide.index, wide[baseline], color="0.45", lw=2, ls="--", label=f"{baseline} (baseline)")
    ax.set_ylabel("GeoRisk")
    if relative:
        ax.set_title("(a) GeoRisk", fontsize=9)
        rel = wide[others].sub(wide[others].mean(axis=1), axis=0)
        ax2 = axes[0][1]
        for i, s in enumerate(others):
            ax2.plot(rel.index, rel[s], lw=1.3, ms=4, mfc="none", label=labels[s], **_style(i))
        ax2.axhline(0, color="0.6", lw=0.8, zorder=0)
        ax2.set_title(f"(b) GeoRisk minus the {len(others)} systems' mean at each $\\alpha$\n"
                      "(where lines cross, GeoRisk's order changes)", fontsize=9)
        ax2.set_ylabel("GeoRisk \u2212 the systems' mean")
    for a in (a for row in axes for a in row):
        a.set_xlabel(r"risk sensitivity $\alpha$")
        a.set_xticks(np.arange(0, a1 + 1, 1 if a1 <= 10 else 2))
    if relative:
        handles, labs = ax.get_legend_handles_labels()
        fig.legend(handles, labs, loc="outside right center",
                   title=f"system (rank by GeoRisk\nat $\\alpha$ = {a0:g} \u2192 {a1:g})")
    else:
        ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5))
    if key:
        fig.supxlabel("\n".join(textwrap.fill(k, 160, subsequent_indent="    ") for k in key), fontsize=8,
                      ha="left", x=0.01)
    if title:
        fig.suptitle(title)
    return save_figure(fig, path)
