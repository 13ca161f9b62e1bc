"""The theory stage's list figures (Wang et al. 2013, Fig. 1 analogue): the enlarged panel is readable."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from figure_spy import kept_figures  # noqa: E402

import evalrank.papers.wang2013.plots as plots_theory  # noqa: E402

SIZES = (10, 20, 50, 100, 200, 500, 1000, 2000, 5000)


@pytest.fixture
def figures(monkeypatch):
    """The figures the plotting functions save, kept open for inspection."""
    yield from kept_figures(monkeypatch, plots_theory)


def _table():
    rows = []
    for i, r in enumerate(("ranksvm", "listnet", "random")):
        for n in SIZES:
            rows.append(dict(ranker=r, n=n, measure="log2", queries=40, mean=0.7 - 0.05 * i + 0.02 * np.log10(n),
                             se=0.02))
    return pd.DataFrame(rows)


def _labels(axis):
    return [t.get_text() for t in axis.get_ticklabels() if t.get_text()]


def test_lists_zoom_panel_has_readable_ticks_on_both_axes(tmp_path, figures):
    paths = plots_theory.plot_lists(_table(), tmp_path / "lists_fig1.png", inset=True, title="Fig. 1 analogue")
    assert paths == [tmp_path / "lists_fig1.png"] and paths[0].stat().st_size > 5000
    (fig,) = figures
    main, zoom = fig.axes
    # within one decade a log axis labels one tick (10^3); the zoom labels the sizes it shows
    assert _labels(zoom.xaxis) == ["1,000", "2,000", "5,000"]
    lo, hi = zoom.get_ylim()
    shown = [v for v in zoom.get_yticks() if lo <= v <= hi]
    assert len(shown) >= 3 and len(_labels(zoom.yaxis)) >= 3
    assert zoom.get_ylabel()
    # the main panel: plain numbers too
    assert {"10", "100", "1,000"} <= set(_labels(main.xaxis))


def test_lists_without_zoom_is_one_panel(tmp_path, figures):
    plots_theory.plot_lists(_table(), tmp_path / "lists_fig2.png")
    (fig,) = figures
    assert len(fig.axes) == 1
