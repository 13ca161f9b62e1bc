"""Figures a reader checked at report size (issue 19, item 4): no legend over the data, no reference
drawn where it means nothing, markers on the curves they mark, a labelled zero on a share axis."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import evalrank.papers.ozertem2011.plots as plots_clicks  # noqa: E402
import evalrank.papers.common.plots.data as plots_data  # noqa: E402
import evalrank.papers.common.plots.models as plots_models  # noqa: E402
from evalrank.papers.ozertem2011.grades import GradeScale  # noqa: E402
from evalrank.data.collection import Collection  # noqa: E402


@pytest.fixture
def figures(monkeypatch):
    """The figures the plotting functions save, kept open for inspection."""
    import evalrank.papers.common.plots.style as style

    kept, save = [], style.save_figure

    def spy(fig, path, **kw):
        kept.append(fig)
        return save(fig, path, close=False)

    for module in (style, plots_clicks, plots_data, plots_models):
        monkeypatch.setattr(module, "save_figure", spy, raising=module is style)
    yield kept
    import matplotlib.pyplot as plt

    for f in kept:
        plt.close(f)


def _legend_covers_a_bar(ax) -> bool:
    fig = ax.figure
    fig.canvas.draw()
    box = ax.get_legend().get_window_extent()
    return any(box.overlaps(bar.get_window_extent()) for bar in ax.patches if bar.get_height() > 0)


def test_quality_legend_is_above_the_bars(figures, tmp_path):
    df = pd.DataFrame({"model": ["rf", "ordinal_rf", "ordered_logit", "ranksvm", "lambdamart", "random"],
                       "ndcg@10": [0.458, 0.450, 0.388, 0.387, 0.462, 0.203],
                       "err": [0.351, 0.349, 0.307, 0.307, 0.358, 0.175]})  # the default run's fold 1
    plots_models.plot_quality(df, tmp_path / "q.png")
    for ax in figures[0].axes:
        assert not _legend_covers_a_bar(ax), ax.get_ylabel()


def test_prior_legend_covers_no_bar(figures, tmp_path):
    scale = GradeScale(names=("B", "F", "G", "E", "P"), values=(0, 1, 2, 3, 4))
    priors = {1: np.array([0.175, 0.259, 0.363, 0.144, 0.059]), 5: np.array([0.149, 0.310, 0.369, 0.125, 0.047])}
    plots_clicks.plot_priors(priors, scale, tmp_path / "p.png")
    assert not _legend_covers_a_bar(figures[0].axes[0])


def test_posterior_bars_show_their_zero(figures, tmp_path):
    scale = GradeScale(names=("B", "G", "P"), values=(0, 1, 2))
    fits = np.array([[1.5, 8.0], [2.0, 5.0], [4.0, 4.0]])
    plots_clicks.plot_posterior_bars(fits, np.array([0.5, 0.3, 0.2]), scale, tmp_path / "b.png")
    ax = figures[0].axes[0]
    assert ax.get_ylim() == (0.0, 1.0)
    figures[0].canvas.draw()
    assert [t.get_text() for t in ax.get_yticklabels()][0] in ("0.0", "0")


def test_loo_curve_passes_through_its_minimum(figures, tmp_path):
    curve = pd.DataFrame({"sigma": [0.1, 0.3, 1.0, 3.0], "mse": [1.05, 1.046, 1.0355, 1.066]})
    plots_clicks.plot_loo_curve(curve, 1.052, 1.07, 0.596, 1.034, tmp_path / "c.png")
    line = figures[0].axes[0].get_lines()[0]
    x, y = line.get_data()
    assert np.all(np.diff(x) > 0)
    assert (0.596, 1.034) in set(zip(np.round(x, 6), np.round(y, 6)))
    assert list(zip(x[[0, 1, 3, 4]], y[[0, 1, 3, 4]])) == list(zip(curve["sigma"], curve["mse"]))


def _collection(max_grade, rng):
    n = 200
    return Collection(features=rng.uniform(1, 1000, size=(n, 16)).astype(np.float32),
                      labels=rng.integers(0, max_grade + 1, size=n).astype(np.int8),
                      offsets=np.arange(0, n + 1, 20, dtype=np.int64), qids=np.arange(10, dtype=np.int64))


@pytest.mark.parametrize("max_grade, marked", [(4, True), (2, False)])
def test_mslr_shares_only_on_mslr_grades(figures, tmp_path, max_grade, marked):
    """MSLR-WEB30K's grade shares are drawn for 0-4 grades; on MQ2008's 0-2 they would mislead."""
    plots_data.plot_dataset({"S1": _collection(max_grade, np.random.default_rng(0))}, tmp_path / "d.png")
    grades_ax = figures[0].axes[1]
    labels = grades_ax.get_legend_handles_labels()[1]
    assert ("MSLR-WEB30K (approx.)" in labels) is marked
    figures[0].canvas.draw()
    ticks = [t.get_text() for t in grades_ax.get_yticklabels() if t.get_text()]
    assert ticks and all(t.replace(".", "").isdigit() for t in ticks), ticks  # decimals, no 6x10^-1
