"""Dinçer et al.'s Fig. 3: curves that lie on top of each other come apart, names are explained."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from figure_spy import kept_figures  # noqa: E402

import evalrank.papers.dincer2016.plots as plots_risk  # noqa: E402
from evalrank.papers.dincer2016.systems import name_key, variant_specs  # noqa: E402


@pytest.fixture
def figures(monkeypatch):
    """The figures the plotting functions save, kept open for inspection."""
    yield from kept_figures(monkeypatch, plots_risk)


# three systems whose GeoRisk differs by < 1 % of its range (as in the default run), one crossing,
# and a far lower baseline
ALPHAS = np.arange(0, 21, dtype=float)
SYSTEMS = {
    "lambdamart": 0.430 - 0.0145 * ALPHAS,
    "lm_q100_f100_s1": 0.428 - 0.0143 * ALPHAS,
    "gbrt_q30_f20_s2": 0.425 - 0.0135 * ALPHAS,  # last at alpha 0, first at alpha 20
    "f110": 0.23 - 0.008 * ALPHAS,
}


def _curves():
    return pd.DataFrame([{"system": s, "alpha": a, "georisk": g} for s, v in SYSTEMS.items()
                         for a, g in zip(ALPHAS, v)])


def test_fig3_difference_panel_separates_the_curves(tmp_path, figures):
    key = name_key(list(SYSTEMS), ["pipeline model", "lightgbm", "lightgbm", "feature"], baseline="f110")
    paths = plots_risk.plot_georisk(_curves(), tmp_path / "fig3.png", baseline="f110", relative=True, key=key)
    assert paths == [tmp_path / "fig3.png"] and paths[0].stat().st_size > 5000
    (fig,) = figures
    ax_abs, ax_rel = fig.axes
    lines = [ln for ln in ax_rel.get_lines() if not ln.get_label().startswith("_")]
    assert len(lines) == 3  # the baseline is left out of the difference panel
    Y = np.array([ln.get_ydata() for ln in lines])
    np.testing.assert_allclose(Y.sum(axis=0), 0, atol=1e-12)  # differences to the systems' mean at each alpha
    others = [s for s in SYSTEMS if s != "f110"]
    np.testing.assert_allclose(Y, np.array([SYSTEMS[s] for s in others]) - np.mean([SYSTEMS[s] for s in others], 0))
    # the difference panel spreads the curves over its height; on the GeoRisk axis they take < 5 %
    lo, hi = ax_abs.get_ylim()
    assert np.ptp(Y[:, 0]) / (hi - lo) < 0.05
    lo, hi = ax_rel.get_ylim()
    assert np.ptp(Y[:, 0]) / (hi - lo) > 0.3
    # every system its own colour, line style and marker
    styles = {(ln.get_color(), str(ln.get_linestyle()), ln.get_marker()) for ln in lines}
    assert len(styles) == 3
    # the legend gives the rank at the first and the last alpha
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert labels == ["lambdamart  (1 \u2192 3)", "lm_q100_f100_s1  (2 \u2192 2)", "gbrt_q30_f20_s2  (3 \u2192 1)",
                      "f110 (baseline)"]
    # the key under the figure explains every kind of name shown
    texts = "\n".join(t.get_text() for t in fig.findobj(matplotlib.text.Text))
    assert "lm_qQ_fF_sS / gbrt_qQ_fF_sS: LightGBM" in texts and "fN: LETOR feature N" in texts
    assert "lambdamart: the pipeline's own trained models" in texts


def test_fig2_stays_one_panel(tmp_path, figures):
    plots_risk.plot_georisk(_curves(), tmp_path / "fig2.png")
    (fig,) = figures
    assert len(fig.axes) == 1 and not fig.legends
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == list(SYSTEMS)


def test_name_key_covers_the_names_made_by_variant_specs():
    specs = variant_specs(["lambdarank", "regression"], 2, [0.3, 1.0], [0.2, 1.0])
    names = [s["name"] for s in specs]
    key = name_key(names, ["lightgbm"] * len(names))
    assert len(key) == 1 and key[0].startswith("lm_qQ_fF_sS / gbrt_qQ_fF_sS")
    assert name_key(["f110", "rf"], ["feature", "pipeline model"], baseline="f110") == [
        "fN: LETOR feature N used as the score (MSLR's f110: BM25 of the whole document); f110 is the baseline",
        "rf: the pipeline's own trained models"]
    assert name_key(["run0", "run1"], ["trec run", "trec run"]) == []  # names of another shape: no key
    with pytest.raises(ValueError, match="one entry per name"):
        name_key(["f1"], [])
