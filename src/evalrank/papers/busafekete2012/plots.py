"""Figures 1-2 of Busa-Fekete et al. (2012): NDCG@1..10 per learner, with
columns for the evaluation convention and curves for the training convention
(Fig. 1) or the learner (Fig. 2); error bars are the paper's standard errors
(:func:`evalrank.papers.busafekete2012.report.curves`)."""

from __future__ import annotations

from evalrank.metrics.conventions import CONVENTIONS
from evalrank.papers.common.plots.style import color, require_columns, save_figure, subplots

__all__ = ["plot_fig1", "plot_fig2", "LABELS"]

#: display names of the conventions whose name is not shown as it is (keys: presets of the registry)
_CONVENTION_NAMES = {
    "ranklib": "trec/ranklib", "trec": "trec (linear gain)", "letor4": "letor", "letor3": "letor 3.0",
    "sklearn": "scikit-learn", "lightgbm": "LightGBM", "xgboost": "XGBoost",
}
#: display names of conventions (every preset of :data:`evalrank.metrics.conventions.CONVENTIONS`) and learners
LABELS = {
    **{c: _CONVENTION_NAMES.get(c, c) for c in CONVENTIONS},
    "adarank": "AdaRank", "lambdamart": "LambdaMART", "ranknet": "RankNet", "coordinate_ascent": "Coord. Ascent",
    "rankboost": "RankBoost", "ranksvm": "RankSVM",
}
_MARKERS = ("o", "s", "^", "D", "v", "P")
_LINES = ("-", "--", ":", "-.", (0, (5, 1)), (0, (1, 1)))
_COLUMNS = ("learner", "train_convention", "eval_convention", "k", "mean", "se")


def _label(name):
    return LABELS.get(name, name)


def plot_fig1(curves, learners, train_conventions, eval_conventions, path, *, title=None):
    """Rows = learners, columns = evaluation conventions, one curve per
    training convention (the paper: blue yahoo, black trec/ranklib, red letor)."""
    require_columns(curves, _COLUMNS, "curves")
    fig, axes = subplots(len(learners), len(eval_conventions), width=3.3, height=2.5, sharey="row")
    for i, learner in enumerate(learners):
        for j, ev in enumerate(eval_conventions):
            ax = axes[i][j]
            for c, tr in enumerate(train_conventions):
                d = curves[(curves["learner"] == learner) & (curves["train_convention"] == tr)
                           & (curves["eval_convention"] == ev)].sort_values("k")
                if d.empty:
                    continue
                ax.errorbar(d["k"], d["mean"], yerr=d["se"], color=color(c), marker=_MARKERS[c % 6],
                            ls=_LINES[c % 6], ms=4 - c * 0.7, capsize=2, lw=1.2, mfc="none" if c else color(c),
                            label=f"trained: {_label(tr)}")
            if i == 0:
                ax.set_title(f"evaluated: {_label(ev)}")
            if j == 0:
                ax.set_ylabel(f"{_label(learner)}\nNDCG@k")
            if i == len(learners) - 1:
                ax.set_xlabel("cut-off k")
            ax.set_xticks(range(1, int(curves["k"].max()) + 1))
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=len(labels),
               title="identical models give overlapping curves")
    if title:
        fig.suptitle(title)
    return save_figure(fig, path)


def plot_fig2(curves, learners, train_convention, eval_conventions, path, *, title=None):
    """Columns = evaluation conventions, one curve per learner, all trained
    with ``train_convention``. The panels share one y-axis, so that equal
    values look equal across conventions (the paper's point is how much the
    numbers and the learners' order move with the convention)."""
    require_columns(curves, _COLUMNS, "curves")
    fig, axes = subplots(1, len(eval_conventions), width=3.6, height=3.0, sharey=True)
    for j, ev in enumerate(eval_conventions):
        ax = axes[0][j]
        for c, learner in enumerate(learners):
            d = curves[(curves["learner"] == learner) & (curves["train_convention"] == train_convention)
                       & (curves["eval_convention"] == ev)].sort_values("k")
            if d.empty:
                continue
            ax.errorbar(d["k"], d["mean"], yerr=d["se"], color=color(c), marker=_MARKERS[c % 6], ms=3, capsize=2,
                        lw=1.2, label=_label(learner))
        ax.set_title(f"evaluated: {_label(ev)}")
        ax.set_xlabel("cut-off k")
        ax.set_xticks(range(1, int(curves["k"].max()) + 1))
        ax.tick_params(labelleft=True)  # every panel its own tick labels, on the shared axis
        if j == 0:
            ax.set_ylabel(f"NDCG@k (trained: {_label(train_convention)})\none y-axis for all panels")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside right center")
    if title:
        fig.suptitle(title)
    return save_figure(fig, path)
