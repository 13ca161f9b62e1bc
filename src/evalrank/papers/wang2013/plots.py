"""Figures of the theory stage (Wang et al. 2013 on analytic populations).

- convergence: one panel per measure, mean empirical NDCG ± 2 SE against n
  (log axis) per scorer, the computed limit as a dashed horizontal line in
  the scorer's colour (none where the measure has no limit, Theorem 6);
- distinguishability: one panel per scorer pair, the share of samples with
  M(f1) > M(f2) against n per measure; feasible measures go to 0 or 1,
  summable discounts and fixed cut-offs (dashed) stay near 1/2.
"""

from __future__ import annotations

import numpy as np

import matplotlib.pyplot as plt

from evalrank.papers.common.plots.style import color, save_figure, subplots

__all__ = ["plot_convergence", "plot_distinguishability", "plot_lists"]


def plot_convergence(conv, path, *, ncols=3):
    measures = list(dict.fromkeys(conv["measure"]))
    scorers = list(dict.fromkeys(conv["scorer"]))
    nrows = int(np.ceil(len(measures) / ncols))
    fig, axes = subplots(nrows, ncols, width=3.6, height=2.8, sharex=True)
    for a, m in enumerate(measures):
        ax = axes[a // ncols][a % ncols]
        for i, sc in enumerate(scorers):
            t = conv[(conv.measure == m) & (conv.scorer == sc)].sort_values("n")
            ax.errorbar(t["n"], t["mean"], yerr=2 * t["se"], color=color(i), marker="o", ms=3, lw=1.2,
                        capsize=2, label=sc)
            lim = t["limit"].iloc[0]
            if np.isfinite(lim):
                ax.axhline(lim, color=color(i), ls="--", lw=0.9, alpha=0.8)
        ax.set_xscale("log")
        title = m + ("  (no limit)" if not np.isfinite(conv[conv.measure == m]["limit"]).any() else "")
        ax.set_title(title, fontsize=9)
        if a % ncols == 0:
            ax.set_ylabel("NDCG")
        if a // ncols == nrows - 1:
            ax.set_xlabel("list size n")
    for a in range(len(measures), nrows * ncols):
        axes[a // ncols][a % ncols].set_visible(False)
    axes[0][0].legend(fontsize=7, loc="lower right")
    fig.suptitle("Empirical NDCG (mean ± 2 SE) against n; dashed: the limit by quadrature", fontsize=10)
    return save_figure(fig, path)


def _no_limit(measure: str) -> bool:
    """Summable discount or fixed cut-off: NDCG has no limit (Theorem 6)."""
    from evalrank.papers.wang2013.experiments import theory_measure
    from evalrank.papers.wang2013.limits import has_limit

    m = theory_measure(measure)
    return not has_limit(m.discount, m.k)


def plot_distinguishability(dist, path):
    pairs = list(dict.fromkeys(dist["pair"]))
    measures = list(dict.fromkeys(dist["measure"]))
    fig, axes = subplots(1, len(pairs), width=3.8, height=3.0, sharey=True)
    for p, pair in enumerate(pairs):
        ax = axes[0][p]
        for j, m in enumerate(measures):
            t = dist[(dist.pair == pair) & (dist.measure == m)].sort_values("n")
            ax.plot(t["n"], t["share"], color=plt.get_cmap("tab10")(j % 10), marker="o" if j < 10 else "s", ms=3,
                    lw=1.2, ls="--" if _no_limit(m) else "-", label=m + (" (no limit)" if _no_limit(m) else ""))
        ax.axhline(0.5, color="0.6", lw=0.8, ls=":")
        ax.set_xscale("log")
        ax.set_ylim(-0.03, 1.03)
        ax.set_title(pair, fontsize=9)
        ax.set_xlabel("list size n")
    axes[0][0].set_ylabel("share of samples with M(f1) > M(f2)")
    axes[0][-1].legend(fontsize=6.5, loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.suptitle("Consistent distinguishability (Wang et al. 2013, Def. 3)", fontsize=10)
    return save_figure(fig, path)


def plot_lists(table, path, *, inset=False, title=None):
    """One measure: mean NDCG of the first n documents against n per ranker,
    with a ± 2 SE band over queries; ``inset``: a second panel enlarging the
    largest n (the paper's Fig. 1, where the rankers' standard NDCG nearly
    meet)."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, MaxNLocator, NullFormatter, NullLocator

    rankers = list(dict.fromkeys(table["ranker"]))
    fig, axes = subplots(1, 2 if inset else 1, width=4.6 if inset else 6.0, height=3.6)

    def draw(a, t_all):
        for i, r in enumerate(rankers):
            t = t_all[t_all.ranker == r].sort_values("n")
            a.plot(t["n"], t["mean"], color=color(i), marker="o", ms=3, lw=1.4, label=r)
            a.fill_between(t["n"], t["mean"] - 2 * t["se"], t["mean"] + 2 * t["se"], color=color(i), alpha=0.12,
                           lw=0)
        a.set_xscale("log")
        a.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))  # 1,000 rather than 10^3
        a.xaxis.set_minor_formatter(NullFormatter())
        a.set_xlabel("n (first documents of each query)")

    ax = axes[0][0]
    draw(ax, table)
    ax.set_ylabel("NDCG, mean over queries (± 2 SE)")
    ax.legend(fontsize=8, loc="best")
    if inset:
        big = np.sort(table.n.unique())[-3:]
        zoom = axes[0][1]
        draw(zoom, table[table.n.isin(big)])
        # a log axis within one decade shows a single labelled tick (10^3): label the sizes drawn instead
        zoom.xaxis.set_major_locator(FixedLocator(big))
        zoom.xaxis.set_minor_locator(NullLocator())
        zoom.yaxis.set_major_locator(MaxNLocator(nbins=6, min_n_ticks=4))
        zoom.set_ylabel("NDCG, mean over queries (± 2 SE)")
        zoom.set_title(f"enlarged: n = {big[0]:,}-{big[-1]:,}", fontsize=8.5)
    if title:
        fig.suptitle(title, fontsize=9)
    return save_figure(fig, path)
