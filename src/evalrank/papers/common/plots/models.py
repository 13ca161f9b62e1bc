"""Figures of the model zoo: reliability diagrams and ranking quality.

The graded-relevance models ``p(y | x, z; theta)`` drive active evaluation's
sampling distribution (Sawade et al. 2012, Sec. 4); these figures show how
well calibrated they are and how good the rankers are compared to a random
ranking. Inputs are the tables of :mod:`evalrank.models.quality`.
"""

from __future__ import annotations

import numpy as np

__all__ = ["plot_reliability", "plot_quality"]


def _require_columns(df, columns, name):
    from evalrank.papers.common.plots.style import require_columns  # lazy: matplotlib loads on first plot

    require_columns(df, columns, name)


def plot_reliability(reliability_df, path, title: str = "Reliability of grade probabilities", *,
                     min_count: int = 10) -> list:
    """Reliability diagram: one curve per grade, the diagonal, bin counts.

    ``reliability_df`` is :func:`evalrank.models.quality.reliability` output
    (columns grade, bin, bin_lo, bin_hi, mean_pred, obs_freq, count). Top
    panel: observed frequency of grade ``k`` against the mean predicted
    ``p_k`` per bin, marker area ~ sqrt(count); bins with fewer than
    ``min_count`` documents are drawn as faint, unconnected markers. Bottom
    panel: number of documents per bin and grade (symlog scale). Returns the
    paths written (:func:`evalrank.papers.common.plots.style.save_figure`).
    """
    from evalrank.papers.common.plots.style import save_figure, style

    _require_columns(reliability_df, ["grade", "bin", "bin_lo", "bin_hi", "mean_pred", "obs_freq", "count"],
                     "reliability_df")
    df = reliability_df.sort_values(["grade", "bin"])
    grades = sorted(df["grade"].unique())
    with style():
        return save_figure(_reliability_figure(df, grades, title, min_count), path)


def _reliability_figure(df, grades, title, min_count):
    import matplotlib.pyplot as plt

    from evalrank.papers.common.plots.style import color

    fig, (ax, axc) = plt.subplots(2, 1, figsize=(5.5, 6.2), sharex=True, layout="constrained",
                                  gridspec_kw={"height_ratios": [3, 1.2]})
    ax.plot([0, 1], [0, 1], color="0.6", lw=1, ls="--", label="perfect calibration")
    total = max(int(df["count"].max()), 1)
    n_grades = len(grades)
    for i, g in enumerate(grades):
        c = color(i)
        dg = df[df["grade"] == g]
        big = dg[dg["count"] >= min_count]
        small = dg[(dg["count"] > 0) & (dg["count"] < min_count)]
        ax.plot(big["mean_pred"], big["obs_freq"], color=c, lw=1.4, label=f"grade {g}")
        ax.scatter(big["mean_pred"], big["obs_freq"], s=10 + 150 * np.sqrt(big["count"] / total),
                   color=c, alpha=0.85, zorder=3, edgecolors="none")
        ax.scatter(small["mean_pred"], small["obs_freq"], s=10, facecolors="none", edgecolors=c,
                   alpha=0.6, zorder=3, linewidths=0.8)
        width = (dg["bin_hi"] - dg["bin_lo"]).to_numpy() / (n_grades + 1)
        axc.bar(dg["bin_lo"].to_numpy() + (i + 0.5) * width, dg["count"].to_numpy(), width=width,
                color=c, align="center")
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.02, 1.02)
    ax.set_ylabel("observed frequency of grade")
    ax.set_title(title)
    ax.legend(loc="upper left")
    if min_count > 1:
        ax.text(0.98, 0.02, f"hollow: bins with < {min_count} documents", transform=ax.transAxes,
                ha="right", va="bottom", fontsize=7, color="0.4")
    axc.set_yscale("symlog", linthresh=1)
    axc.set_ylim(0, total * 3)
    axc.set_xlabel("predicted probability of grade")
    axc.set_ylabel("documents")
    axc.grid(False, axis="x")
    return fig


def plot_quality(quality_df, path, *, baseline: dict | None = None,
                 title: str = "Ranking quality on held-out queries") -> list:
    """Bars of NDCG@k and ERR per model with the random baseline as a line.

    ``quality_df`` has one row per model with columns ``model``, ``err`` and
    exactly one ``ndcg@<k>`` column, whose k the plot takes from the table
    (e.g. :func:`evalrank.models.quality.quality_row` rows plus the model
    name). The random baseline is ``baseline`` (a dict with the same
    ``ndcg@<k>`` key and ``err``, as from
    :func:`evalrank.models.quality.random_baseline`) or, when not given, a
    row whose model is ``"random"`` (drawn as the line, not as a bar).
    Returns the paths written.
    """
    import matplotlib.pyplot as plt

    from evalrank.papers.common.plots.style import color, save_figure, style

    _require_columns(quality_df, ["model", "err"], "quality_df")
    ndcg_columns = [c for c in quality_df.columns if str(c).startswith("ndcg@")]
    if len(ndcg_columns) != 1:
        raise ValueError(f"quality_df must have exactly one ndcg@<k> column, has {ndcg_columns}")
    metrics = (ndcg_columns[0], "err")
    df = quality_df.reset_index(drop=True)
    is_random = df["model"].astype(str) == "random"
    if baseline is None and is_random.any():
        row = df[is_random].iloc[0]
        baseline = {m: float(row[m]) for m in metrics}
    if baseline is not None and not all(k in baseline for k in metrics):
        raise ValueError(f"baseline must have the keys {metrics[0]!r} and 'err'")
    df = df[~is_random]
    if df.empty:
        raise ValueError("quality_df must contain at least one model other than 'random'")
    models = df["model"].astype(str).tolist()
    x = np.arange(len(models))
    with style():
        fig, axes = plt.subplots(1, 2, figsize=(8.0, 3.4), layout="constrained")
        _quality_axes(axes, df, models, x, baseline, color, metrics)
        fig.suptitle(title)
        return save_figure(fig, path)


def _quality_axes(axes, df, models, x, baseline, color, metrics):
    for i, (ax, metric) in enumerate(zip(axes, metrics)):
        values = df[metric].to_numpy(dtype=float)
        ax.bar(x, values, color=color(i), width=0.65)
        for xi, v in zip(x, values):
            ax.text(xi, v, f"{v:.3f}", ha="center", va="bottom", fontsize=8)
        if baseline is not None:
            ax.axhline(baseline[metric], color="0.2", ls="--", lw=1.2,
                       label=f"random ranking ({baseline[metric]:.3f})")
            ax.legend(loc="upper center", frameon=True)  # above the bars (the headroom below)
        ax.set_xticks(x)
        ax.set_xticklabels(models, rotation=20, ha="right")
        ax.set_ylabel("ERR" if metric == "err" else metric.replace("ndcg", "NDCG"))
        ax.set_ylim(0, max(values.max(), baseline[metric] if baseline else 0) * (1.35 if baseline else 1.15))
        ax.grid(False, axis="x")
