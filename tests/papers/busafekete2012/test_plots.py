"""Busa-Fekete et al.'s Fig. 2: the conventions' panels share one y-axis, so equal values look equal."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from figure_spy import kept_figures  # noqa: E402

import evalrank.papers.busafekete2012.plots as plots_ndcg  # noqa: E402

LEARNERS = ("adarank", "lambdamart", "ranknet")
#: the conventions' levels differ by more than the learners' spread, as yahoo's do in the default run
LEVEL = {"ranklib": 0.30, "yahoo": 0.45, "letor4": 0.20}


@pytest.fixture
def figures(monkeypatch):
    """The figures the plotting functions save, kept open for inspection."""
    yield from kept_figures(monkeypatch, plots_ndcg)


def _curves():
    rows = []
    for ev, level in LEVEL.items():
        for i, learner in enumerate(LEARNERS):
            for k in range(1, 11):
                rows.append(dict(learner=learner, train_convention="ranklib", eval_convention=ev, k=k,
                                 mean=level + 0.02 * i + 0.005 * k, se=0.01))
    return pd.DataFrame(rows)


def test_fig2_panels_share_one_y_range(tmp_path, figures):
    paths = plots_ndcg.plot_fig2(_curves(), list(LEARNERS), "ranklib", list(LEVEL), tmp_path / "fig2.png")
    assert paths == [tmp_path / "fig2.png"] and paths[0].stat().st_size > 5000
    (fig,) = figures
    axes = fig.axes
    assert len(axes) == 3
    limits = {ax.get_ylim() for ax in axes}
    assert len(limits) == 1  # one y-range: a value sits at the same height in every panel
    (lo, hi), = limits
    assert lo < min(LEVEL.values()) and hi > max(LEVEL.values()) + 0.02 * 2 + 0.05
    for ax in axes:  # every panel keeps its tick labels, so no panel has to be read off its neighbour
        assert len([t for t in ax.get_yticklabels() if t.get_text()]) >= 3
    assert "one y-axis" in axes[0].get_ylabel()


def test_fig1_rows_still_share_y_per_learner(tmp_path, figures):
    plots_ndcg.plot_fig1(_curves(), list(LEARNERS[:2]), ["ranklib"], list(LEVEL), tmp_path / "fig1.png")
    (fig,) = figures
    axes = fig.axes
    assert len(axes) == 6
    for row in (axes[:3], axes[3:]):
        assert len({ax.get_ylim() for ax in row}) == 1


def test_every_preset_has_a_label_and_no_stale_one():
    from evalrank.metrics.conventions import CONVENTIONS

    assert set(CONVENTIONS) <= set(plots_ndcg.LABELS)              # derived from the registry
    assert set(plots_ndcg._CONVENTION_NAMES) <= set(CONVENTIONS)    # a renamed preset leaves no stale label
