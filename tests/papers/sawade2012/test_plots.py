"""Active-evaluation figures (Sawade et al. Figs. 1-3) render from a small curves table."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from evalrank.papers.sawade2012.plots import (  # noqa: E402
    experiment_title,
    plot_costs,
    plot_coverage,
    plot_error_curves,
    plot_train_size,
)

PNG = b"\x89PNG\r\n\x1a\n"
METHODS = ("passive", "active", "active_uniD", "active_uniC")
BUDGETS = (10.0, 20.0, 50.0, 100.0, 200.0)


def _curves():
    rows = []
    specs = {
        "fig1_rf": ("abs_error", np.nan),
        "fig1_ordered_logit": ("abs_error", np.nan),
        "fig2_rf_vs_ordinal_rf": ("selection_error", np.nan),
        "fig3_index_update": ("abs_error", np.nan),
        "fig3_train_size_6000": ("abs_error", 6000),
        "fig3_train_size_8000": ("abs_error", np.nan),  # x value from the id's suffix
        "fig3_train_size_10000": ("abs_error", 10000),
    }
    for e, (metric, pairs) in specs.items():
        for measure in ("err", "dcg"):
            for k, method in enumerate(METHODS):
                for b in BUDGETS:
                    v = (0.05 if metric == "abs_error" else 0.4) * (1 - 0.1 * k) / np.sqrt(b)
                    rows.append(dict(experiment=e, measure=measure, method=method, budget=b, metric=metric,
                                     mean_error=v, se=0.05 * v, n_runs=100, train_pairs=pairs))
    return pd.DataFrame(rows)


def _costs():
    c = np.random.default_rng(0).lognormal(0.0, 0.5, 500)
    return c / c.mean()


def _check_png(paths, path):
    assert [str(p) for p in paths] == [str(path)]
    data = path.read_bytes()
    assert data.startswith(PNG)
    assert len(data) > 5000


def test_experiment_title():
    assert experiment_title("fig1_rf") == "RF regression"
    assert experiment_title("fig1_ordered_logit") == "Ordered logit"
    assert experiment_title("fig2_rf_vs_ordinal_rf") == "RF regression vs RF classification"
    assert experiment_title("fig2_ordered_logit_vs_ranksvm") == "Ordered logit vs RankSVM"
    assert experiment_title("fig2_lambdamart_vs_rf") == "LambdaMART vs RF regression"
    assert experiment_title("fig3_index_update").startswith("Index update")
    assert "10,000" in experiment_title("fig3_train_size_10000")
    assert experiment_title("my_thing") == "my thing"


def test_plot_costs(tmp_path):
    path = tmp_path / "costs.png"
    _check_png(plot_costs(_costs(), path), path)
    with pytest.raises(ValueError, match="costs"):
        plot_costs(np.ones((3, 2)), tmp_path / "x.png")
    with pytest.raises(ValueError, match="costs"):
        plot_costs([1.0, -1.0], tmp_path / "x.png")
    with pytest.raises(TypeError, match="costs"):
        plot_costs("abc", tmp_path / "x.png")
    with pytest.raises(ValueError, match=".png or .pdf"):
        plot_costs(_costs(), tmp_path / "x.jpg")


def test_plot_error_curves(tmp_path):
    curves = _curves()
    p1 = tmp_path / "fig1.png"
    _check_png(plot_error_curves(curves, ["fig1_rf", "fig1_ordered_logit"], "err", p1, costs=_costs()), p1)
    p2 = tmp_path / "fig2.png"
    _check_png(plot_error_curves(curves, ["fig2_rf_vs_ordinal_rf"], "dcg", p2, suptitle="Figure 2"), p2)
    p3 = tmp_path / "fig3.png"
    paths = plot_error_curves(curves, ["fig3_index_update", "fig3_train_size_10000"], "err", p3,
                              titles={"fig3_train_size_10000": "RF 5,000 vs 10,000 pairs"})
    _check_png(paths, p3)
    # a subset of methods, a single experiment as str, titles as a list, linear budget axis
    p4 = tmp_path / "one.png"
    two = curves[curves["method"].isin(["passive", "active"])]
    _check_png(plot_error_curves(two, "fig1_rf", "err", p4, titles=["RF"], logx=False), p4)


def test_plot_error_curves_arguments(tmp_path):
    curves = _curves()
    out = tmp_path / "x.png"
    with pytest.raises(ValueError, match="experiments: no rows for experiment 'fig9_nope'"):
        plot_error_curves(curves, ["fig1_rf", "fig9_nope"], "err", out)
    with pytest.raises(ValueError, match="measure 'ndcg'"):
        plot_error_curves(curves, ["fig1_rf"], "ndcg", out)
    with pytest.raises(ValueError, match="experiments must name"):
        plot_error_curves(curves, [], "err", out)
    with pytest.raises(ValueError, match="duplicates"):
        plot_error_curves(curves, ["fig1_rf", "fig1_rf"], "err", out)
    with pytest.raises(ValueError, match="titles has 1 entries"):
        plot_error_curves(curves, ["fig1_rf", "fig1_ordered_logit"], "err", out, titles=["a"])
    with pytest.raises(ValueError, match="curves lacks column"):
        plot_error_curves(curves.drop(columns="se"), ["fig1_rf"], "err", out)
    with pytest.raises(ValueError, match="several rows per"):
        plot_error_curves(pd.concat([curves, curves]), ["fig1_rf"], "err", out)
    with pytest.raises(TypeError, match="curves must be a pandas DataFrame"):
        plot_error_curves(curves.to_dict(), ["fig1_rf"], "err", out)
    with pytest.raises(TypeError, match="experiments"):
        plot_error_curves(curves, 3, "err", out)
    with pytest.raises(TypeError, match="experiments"):
        plot_error_curves(curves, [1], "err", out)
    with pytest.raises(TypeError, match="measure"):
        plot_error_curves(curves, ["fig1_rf"], None, out)
    with pytest.raises(TypeError, match="titles"):
        plot_error_curves(curves, ["fig1_rf"], "err", out, titles="RF")
    with pytest.raises(TypeError, match="logx"):
        plot_error_curves(curves, ["fig1_rf"], "err", out, logx="yes")
    assert not out.exists()


def test_plot_train_size(tmp_path):
    curves = _curves()
    path = tmp_path / "size.png"
    _check_png(plot_train_size(curves, "err", 100, path), path)
    # without the train_pairs column the sizes come from the ids
    p2 = tmp_path / "size2.png"
    _check_png(plot_train_size(curves.drop(columns="train_pairs"), "dcg", 50.0, p2, title="t"), p2)


def test_plot_train_size_arguments(tmp_path):
    curves = _curves()
    out = tmp_path / "x.png"
    with pytest.raises(ValueError, match="budget 123 is not among"):
        plot_train_size(curves, "err", 123, out)
    with pytest.raises(ValueError, match="prefix 'fig4_' with measure 'err'"):
        plot_train_size(curves, "err", 100, out, prefix="fig4_")
    with pytest.raises(ValueError, match="prefix"):
        plot_train_size(curves, "ndcg", 100, out)
    with pytest.raises(ValueError, match="no train_pairs"):
        plot_train_size(curves, "err", 100, out, prefix="fig3_")
    with pytest.raises(TypeError, match="budget"):
        plot_train_size(curves, "err", "100", out)
    with pytest.raises(TypeError, match="budget"):
        plot_train_size(curves, "err", True, out)
    with pytest.raises(TypeError, match="curves"):
        plot_train_size([1, 2], "err", 100, out)
    with pytest.raises(TypeError, match="prefix"):
        plot_train_size(curves, "err", 100, out, prefix=3)
    assert not out.exists()


def test_deterministic(tmp_path):
    curves = _curves()
    costs = _costs()
    for name, call in [
        ("c", lambda p: plot_costs(costs, p)),
        ("e", lambda p: plot_error_curves(curves, ["fig1_rf", "fig1_ordered_logit"], "err", p, costs=costs)),
        ("t", lambda p: plot_train_size(curves, "err", 100, p)),
    ]:
        a, b = tmp_path / f"{name}1.png", tmp_path / f"{name}2.png"
        call(a)
        call(b)
        assert a.read_bytes() == b.read_bytes()


def _coverage():
    rows = []
    for e, quantity in (("fig1_rf", "ranker"), ("fig3_index_update", "difference")):
        for measure in ("err", "dcg"):
            for k, method in enumerate(METHODS):
                for b in BUDGETS:
                    c = 0.95 - 0.4 / b * (1 + k)
                    rows.append(dict(experiment=e, quantity=quantity, measure=measure, method=method, budget=b,
                                     level=0.95, campaigns=5000, coverage=c, coverage_se=np.sqrt(c * (1 - c) / 5000)))
    return pd.DataFrame(rows)


def test_plot_coverage(tmp_path):
    path = tmp_path / "coverage.png"
    _check_png(plot_coverage(_coverage(), ["fig1_rf", "fig3_index_update"], path), path)
    with pytest.raises(ValueError, match="no rows"):
        plot_coverage(_coverage(), ["fig2_rf_vs_ordinal_rf"], tmp_path / "x.png")
    with pytest.raises(ValueError, match="methods"):
        plot_coverage(_coverage(), ["fig1_rf"], tmp_path / "x.png", methods=("oracle",))
    with pytest.raises(ValueError, match="coverage"):
        plot_coverage(_coverage().drop(columns="coverage_se"), ["fig1_rf"], tmp_path / "x.png")


def test_plot_campaign_coverage(tmp_path):
    from evalrank.papers.sawade2012.plots import plot_campaign_coverage

    rows = []
    for exp, quantity in (("fig1_rf", "ranker"), ("fig3_index_update", "difference")):
        for eps, est, interval, default in ((0.0, "eq6", "t", False), (0.05, "aipw", "cs", True)):
            for m in ("err", "dcg"):
                for b in (10, 50, 200):
                    rows.append({"experiment": exp, "quantity": quantity, "measure": m, "epsilon": eps,
                                 "estimator": est, "interval": interval, "default": default, "budget": b,
                                 "coverage": 0.99 if default else 0.9, "simultaneous": 0.96 if default else 0.5,
                                 "campaigns": 2000})
    t = pd.DataFrame(rows)
    path = tmp_path / "coverage.png"
    _check_png(plot_campaign_coverage(t, ["fig1_rf", "fig3_index_update"], path), path)
    with pytest.raises(ValueError, match="no rows"):
        plot_campaign_coverage(t, ["fig2_x"], tmp_path / "x.png")
    with pytest.raises(ValueError, match="simultaneous"):
        plot_campaign_coverage(t.drop(columns="simultaneous"), ["fig1_rf"], tmp_path / "x.png")
