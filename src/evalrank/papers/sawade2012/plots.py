"""Figures of active evaluation: Figures 1-3 of Sawade et al. (2012), Sec. 5.

* :func:`plot_costs` -- distribution of the query labelling costs ``lambda(x)``
  (Fig. 1 left).
* :func:`plot_error_curves` -- error over the labelling budget ``Lambda``, one
  panel per experiment and one line per evaluation method (Fig. 1 centre/right,
  Fig. 2, Fig. 3 left/centre); optionally with the cost histogram as first panel.
* :func:`plot_train_size` -- error at one budget over the number of training
  pairs of the second model (Fig. 3 right).
* :func:`plot_coverage` -- the share of nominal intervals covering the truth over
  the budget (the coverage study of :func:`evalrank.papers.sawade2012.report.coverage_table`).

The error curves are the ``curves`` table of
:func:`evalrank.papers.sawade2012.report.summarize` (one row per experiment, measure,
method and budget, with ``metric``, ``mean_error`` and ``se``). Every method
keeps its colour, line style, marker and label in all figures.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Mapping

import numpy as np

__all__ = ["METHOD_STYLES", "experiment_title", "plot_costs", "plot_error_curves", "plot_train_size", "plot_coverage"]


def _require_columns(df, columns, name):
    from evalrank.papers.common.plots.style import require_columns  # lazy: matplotlib loads on first plot

    require_columns(df, columns, name)

#: Line style of each evaluation method (the same in every figure); passive is the grey baseline.
METHOD_STYLES = {
    "passive": {"label": "passive", "color": "0.45", "ls": "--", "marker": "o", "zorder": 2},
    "active": {"label": "active", "color": "#0072B2", "ls": "-", "marker": "s", "zorder": 5},
    "active_uniD": {"label": r"active$_{\mathrm{uniD}}$", "color": "#E69F00", "ls": "-.", "marker": "^",
                    "zorder": 3},
    "active_uniC": {"label": r"active$_{\mathrm{uniC}}$", "color": "#009E73", "ls": ":", "marker": "v",
                    "zorder": 4},
    # Fig. 1's calibrated twin (evalrank.papers.sawade2012.calibrated), drawn in its base panel, on top
    # of active with hollow, larger markers: where the two coincide active's squares show inside
    "active_calibrated": {"label": "active, calibrated label model", "color": "#D55E00", "ls": "-", "marker": "D",
                          "zorder": 6, "mfc": "none", "ms": 5.0},
}

#: y-axis label per error metric.
METRIC_LABELS = {"abs_error": "absolute estimation error", "selection_error": "model selection error"}

#: Readable names of the ranking models used in the experiment ids.
MODEL_NAMES = {
    "rf": "RF regression",
    "ordinal_rf": "RF classification",
    "ordered_logit": "Ordered logit",
    "ranksvm": "RankSVM",
    "lambdamart": "LambdaMART",
}

_CURVE_COLUMNS = ["experiment", "measure", "method", "budget", "metric", "mean_error", "se"]


def _check_str(value, name):
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__}")
    return value


def _check_costs(costs):
    if isinstance(costs, (str, bytes)):
        raise TypeError("costs must be a 1-d array of numbers, got str")
    try:
        c = np.asarray(costs, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise TypeError(f"costs must be a 1-d array of numbers ({e})") from None
    if c.ndim != 1:
        raise ValueError(f"costs must be 1-d, got shape {c.shape}")
    if c.size == 0:
        raise ValueError("costs must not be empty")
    if not np.all(np.isfinite(c)) or np.any(c < 0):
        raise ValueError("costs must be finite and >= 0")
    if not c.sum() > 0:
        raise ValueError("costs must not all be 0")
    return c


def experiment_title(experiment: str) -> str:
    """Readable panel title of an experiment id of :func:`evalrank.papers.sawade2012.experiments.experiments`.

    ``fig1_rf`` -> ``"RF regression"``; ``fig2_ordered_logit_vs_ranksvm`` ->
    ``"Ordered logit vs RankSVM"``; ``fig3_index_update`` -> ``"Index update
    (10% removed)"`` (the paper's share, the default of ``experiments``);
    ``fig3_train_size_200000`` -> ``"RF: second model on 200,000 pairs"``.
    Unknown ids come back with underscores as spaces.
    """
    _check_str(experiment, "experiment")
    m = re.fullmatch(r"fig\d+_(.+)", experiment)
    rest = m.group(1) if m else experiment
    if rest in MODEL_NAMES:
        return MODEL_NAMES[rest]
    if "_vs_" in rest:
        a, b = rest.split("_vs_", 1)
        return f"{MODEL_NAMES.get(a, a.replace('_', ' '))} vs {MODEL_NAMES.get(b, b.replace('_', ' '))}"
    if rest == "index_update":
        return "Index update (10% removed)"
    t = re.fullmatch(r"train_size_(\d+)", rest)
    if t:
        return f"RF: second model on {int(t.group(1)):,} pairs"
    return experiment.replace("_", " ")


def _method_order(methods):
    known = [m for m in METHOD_STYLES if m in methods]
    return known + sorted(m for m in methods if m not in METHOD_STYLES)


def _method_style(method, extra_index):
    from evalrank.papers.common.plots.style import color

    if method in METHOD_STYLES:
        return dict(METHOD_STYLES[method])
    # methods beyond the paper's four: palette colours not used by the four above
    return {"label": str(method), "color": color(3 + extra_index), "ls": "-", "marker": "D", "zorder": 3}


def _styles(methods):
    extra = [m for m in methods if m not in METHOD_STYLES]
    return {m: _method_style(m, extra.index(m) if m in extra else 0) for m in methods}


def _metric_label(metric, measure):
    label = METRIC_LABELS.get(metric, str(metric).replace("_", " "))
    return f"{label} ({measure.upper()})" if measure else label


def _draw_method(ax, x, y, se, st):
    """One method's line with standard-error bars."""
    ax.errorbar(x, y, yerr=se, color=st["color"], ls=st["ls"], marker=st["marker"], ms=st.get("ms", 3.5), lw=1.3,
                mfc=st.get("mfc", st["color"]), elinewidth=0.8, capsize=2.0, capthick=0.8, label=st["label"],
                zorder=st["zorder"])


def _costs_axes(ax, costs, title):
    """Histogram of the query costs as the share of queries per bin, mean marked."""
    n = costs.size
    hi = float(np.quantile(costs, 0.995)) if n >= 200 else float(costs.max())
    shown = costs[costs <= hi]
    edges = np.histogram_bin_edges(shown, bins="auto")
    if edges.size - 1 > 40:
        edges = np.linspace(edges[0], edges[-1], 41)
    counts, edges = np.histogram(shown, bins=edges)
    ax.bar(edges[:-1], counts / n, width=np.diff(edges), align="edge", color="#56B4E9", edgecolor="white",
           linewidth=0.4)
    mean = float(costs.mean())
    ax.axvline(mean, color="0.15", ls="--", lw=1.2, label=f"mean = {mean:.2f}")
    ax.axvline(float(np.median(costs)), color="0.15", ls=":", lw=1.2, label=f"median = {np.median(costs):.2f}")
    note = f"{n:,} queries"
    beyond = n - shown.size
    if beyond:
        note += f"\n{beyond:,} above {hi:.2f} not shown"
    ax.text(0.97, 0.72, note, transform=ax.transAxes, ha="right", va="top", fontsize=7, color="0.35")
    ax.set_xlim(left=min(0.0, float(edges[0])))
    ax.set_xlabel(r"labelling cost $\lambda(x)$")
    ax.set_ylabel("share of queries")
    ax.legend(loc="upper right")
    ax.grid(False, axis="x")
    if title:
        ax.set_title(title)


def plot_costs(costs, path, *, title: str = r"Query labelling costs $\lambda(x)$") -> list:
    """Histogram of query labelling costs ``lambda(x)`` (Sawade et al. Fig. 1 left).

    ``costs``: 1-d array of the costs of the pool's queries (finite, >= 0; the
    cost unit makes their mean 1, :func:`evalrank.active.costs.query_costs`).
    The y axis is the share of queries per bin; the mean and median are
    marked. With 200 or more queries, the 0.5% most expensive are left out
    of the bins (and counted in a note) so a long tail does not squash the
    bulk. Returns the paths written (:func:`evalrank.papers.common.plots.style.save_figure`).
    """
    import matplotlib.pyplot as plt

    from evalrank.papers.common.plots.style import save_figure, style

    c = _check_costs(costs)
    if title is not None:
        _check_str(title, "title")
    with style():
        fig, ax = plt.subplots(figsize=(4.2, 3.2), layout="constrained")
        _costs_axes(ax, c, title)
        return save_figure(fig, path)


def _titles_for(experiments, titles):
    if titles is None:
        return [experiment_title(e) for e in experiments]
    if isinstance(titles, Mapping):
        return [str(titles[e]) if e in titles else experiment_title(e) for e in experiments]
    if isinstance(titles, (list, tuple)):
        if len(titles) != len(experiments):
            raise ValueError(f"titles has {len(titles)} entries for {len(experiments)} experiments")
        return [str(t) for t in titles]
    raise TypeError(f"titles must be a mapping experiment -> title or a list, got {type(titles).__name__}")


def _experiment_list(experiments):
    if isinstance(experiments, str):
        experiments = [experiments]
    try:
        experiments = list(experiments)
    except TypeError:
        raise TypeError(f"experiments must be a list of experiment ids, got {type(experiments).__name__}") from None
    if not experiments:
        raise ValueError("experiments must name at least one experiment")
    for e in experiments:
        if not isinstance(e, str):
            raise TypeError(f"experiments must contain str ids, got {type(e).__name__}")
    if len(set(experiments)) != len(experiments):
        raise ValueError(f"experiments has duplicates: {experiments}")
    return experiments


def _panel_rows(curves, experiment, measure):
    """Rows of one (experiment, measure), checked: one metric, one row per (method, budget)."""
    rows = curves[(curves["experiment"] == experiment) & (curves["measure"] == measure)]
    if rows.empty:
        have = sorted(curves.loc[curves["measure"] == measure, "experiment"].astype(str).unique())
        raise ValueError(f"experiments: no rows for experiment {experiment!r} and measure {measure!r}; "
                         f"curves has {have}")
    metrics = rows["metric"].unique()
    if len(metrics) != 1:
        raise ValueError(f"curves has several metrics {sorted(metrics)} for experiment {experiment!r}")
    if rows.duplicated(["method", "budget"]).any():
        raise ValueError(f"curves has several rows per (method, budget) for experiment {experiment!r}")
    return rows.sort_values(["method", "budget"]), str(metrics[0])


def _use_log_x(budgets, logx):
    if logx is not None:
        return bool(logx)
    b = np.asarray(budgets, dtype=np.float64)
    b = b[np.isfinite(b) & (b > 0)]
    return b.size > 1 and b.max() / b.min() >= 20


def _budget_axis(ax, logx):
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    ax.set_xlabel(r"labelling budget $\Lambda$")
    if logx:
        ax.set_xscale("log")
        ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.xaxis.set_minor_formatter(NullFormatter())
    ax.grid(True, which="major")


def plot_error_curves(curves, experiments, measure: str, path, *, titles=None, costs=None,
                      suptitle: str | None = None, logx: bool | None = None) -> list:
    """Error over the labelling budget, one panel per experiment (Sawade et al. Figs. 1-3).

    ``curves``: the error-curve table (columns experiment, measure, method,
    budget, metric, mean_error, se; other columns are ignored).
    ``experiments``: experiment ids, one panel each in this order (a single id
    may be given as a str). ``measure``: ``"err"`` or ``"dcg"`` (any value of
    the ``measure`` column). Each panel shows ``mean_error`` against
    ``budget`` with standard-error bars for every method present, in the
    fixed styles of :data:`METHOD_STYLES` (passive grey dashed, active solid
    blue); the y label follows the rows' ``metric`` ("absolute estimation
    error" or "model selection error"); one legend below the panels.
    ``titles``: panel titles, a mapping experiment -> title (missing ones get
    :func:`experiment_title`) or a list as long as ``experiments``.
    ``costs``: query costs; when given, a first panel shows their histogram
    (Fig. 1 = costs + ``fig1_rf`` + ``fig1_ordered_logit``). ``logx``: log
    budget axis; by default when the budgets span a factor of 20 or more.
    Raises ValueError naming the argument when ``measure`` or an experiment
    has no rows. Returns the paths written.
    """
    import matplotlib.pyplot as plt

    from evalrank.papers.common.plots.style import save_figure, style

    _require_columns(curves, _CURVE_COLUMNS, "curves")
    experiments = _experiment_list(experiments)
    _check_str(measure, "measure")
    if not (curves["measure"] == measure).any():
        raise ValueError(f"measure {measure!r} has no rows in curves; it has {sorted(curves['measure'].unique())}")
    if suptitle is not None:
        _check_str(suptitle, "suptitle")
    if logx is not None and not isinstance(logx, bool):
        raise TypeError(f"logx must be a bool or None, got {type(logx).__name__}")
    panel_titles = _titles_for(experiments, titles)
    c = None if costs is None else _check_costs(costs)
    panels = [_panel_rows(curves, e, measure) for e in experiments]
    methods = _method_order(set().union(*(set(rows["method"]) for rows, _ in panels)))
    styles = _styles(methods)
    log = _use_log_x(np.concatenate([rows["budget"].to_numpy(dtype=np.float64) for rows, _ in panels]), logx)

    n = len(panels) + (c is not None)
    with style():
        fig, axes = plt.subplots(1, n, figsize=(3.3 * n, 3.0), layout="constrained", squeeze=False)
        axes = list(axes[0])
        if c is not None:
            _costs_axes(axes.pop(0), c, r"Labelling costs $\lambda(x)$")
        for ax, (rows, metric), title in zip(axes, panels, panel_titles):
            for method in methods:
                dm = rows[rows["method"] == method]
                if dm.empty:
                    continue
                _draw_method(ax, dm["budget"].to_numpy(dtype=np.float64), dm["mean_error"].to_numpy(dtype=np.float64),
                             dm["se"].to_numpy(dtype=np.float64), styles[method])
            _budget_axis(ax, log)
            _shade_whole_pool(ax, rows)
            ax.set_ylim(bottom=0)
            ax.set_ylabel(_metric_label(metric, measure))
            ax.set_title(title)
        handles = [_legend_handle(styles[m]) for m in methods]
        labels = [styles[m]["label"] for m in methods]
        if any(_whole_pool_from(rows) is not None for rows, _ in panels):
            from matplotlib.patches import Patch

            handles.append(Patch(color=_WHOLE_POOL_COLOR))
            labels.append("budget covers the whole pool (error 0)")
        fig.legend(handles, labels, loc="outside lower center",
                   ncols=len(labels) if n > 1 else min(len(labels), 2))
        if suptitle:
            fig.suptitle(suptitle)
        return save_figure(fig, path)


_WHOLE_POOL_COLOR = "0.9"


def _whole_pool_from(rows):
    """The smallest budget that labels the whole pool (``pool_cost`` column), or None
    when every budget of the panel is below the pool's cost or the column is absent."""
    if "pool_cost" not in rows.columns:
        return None
    cost = float(rows["pool_cost"].max())
    budgets = rows["budget"].to_numpy(dtype=np.float64)
    return cost if np.isfinite(cost) and (budgets >= cost).any() else None


def _shade_whole_pool(ax, rows):
    """Grey band from the pool's cost on: every method labels every query there."""
    cost = _whole_pool_from(rows)
    if cost is not None:
        ax.axvspan(cost, float(rows["budget"].max()) * 1.05, color=_WHOLE_POOL_COLOR, zorder=0, lw=0)
    return cost


def _legend_handle(st):
    from matplotlib.lines import Line2D

    return Line2D([], [], color=st["color"], ls=st["ls"], marker=st["marker"], ms=st.get("ms", 3.5) + 0.5, lw=1.3,
                  mfc=st.get("mfc", st["color"]))


def _train_pairs(rows, prefix):
    """x values of Fig. 3 right: column ``train_pairs``, else the integer suffix of the id."""
    import pandas as pd

    if "train_pairs" in rows.columns:
        tp = pd.to_numeric(rows["train_pairs"], errors="coerce").to_numpy(dtype=np.float64)
    else:
        tp = np.full(len(rows), np.nan)
    suffix = [str(e)[len(prefix):] for e in rows["experiment"]]
    parsed = np.array([float(v) if v.isdigit() else np.nan for v in suffix], dtype=np.float64)
    tp = np.where(np.isfinite(tp), tp, parsed)
    if not np.all(np.isfinite(tp)):
        bad = sorted(rows.loc[~np.isfinite(tp), "experiment"].astype(str).unique())
        raise ValueError(f"curves: no train_pairs for {bad} (column train_pairs is missing or NaN and the id "
                         f"has no integer suffix after prefix {prefix!r})")
    return tp


def plot_train_size(curves, measure: str, budget, path, *, prefix: str = "fig3_train_size_",
                    title: str | None = None) -> list:
    """Error at one budget over the second model's training pairs (Sawade et al. Fig. 3 right).

    Takes the rows of ``curves`` whose experiment starts with ``prefix``,
    whose measure is ``measure`` and whose budget equals ``budget`` (up to
    float rounding); the x value is the ``train_pairs`` column or, where that
    is missing or NaN, the integer after ``prefix`` in the experiment id. One
    line per method with standard-error bars, the styles of
    :data:`METHOD_STYLES`. ``title`` defaults to ``"Lambda = <budget>"``.
    Raises ValueError naming the argument when no experiment matches
    ``prefix``/``measure`` or no row has the budget. Returns the paths written.
    """
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    from evalrank.papers.common.plots.style import save_figure, style

    _require_columns(curves, _CURVE_COLUMNS, "curves")
    _check_str(measure, "measure")
    _check_str(prefix, "prefix")
    if isinstance(budget, bool) or not isinstance(budget, numbers.Real):
        raise TypeError(f"budget must be a number, got {type(budget).__name__}")
    if title is not None:
        _check_str(title, "title")
    budget = float(budget)
    rows = curves[curves["experiment"].astype(str).str.startswith(prefix) & (curves["measure"] == measure)]
    if rows.empty:
        raise ValueError(f"prefix {prefix!r} with measure {measure!r} matches no rows of curves")
    at = rows[np.isclose(rows["budget"].to_numpy(dtype=np.float64), budget, rtol=1e-9, atol=1e-12)]
    if at.empty:
        have = sorted(float(b) for b in rows["budget"].unique())
        raise ValueError(f"budget {budget:g} is not among the budgets of the {prefix}* rows: {have}")
    metrics = at["metric"].unique()
    if len(metrics) != 1:
        raise ValueError(f"curves has several metrics {sorted(metrics)} for the {prefix}* rows")
    at = at.assign(_pairs=_train_pairs(at, prefix))
    if at.duplicated(["method", "_pairs"]).any():
        raise ValueError(f"curves has several rows per (method, train_pairs) at budget {budget:g}")
    methods = _method_order(set(at["method"]))
    styles = _styles(methods)
    with style():
        fig, ax = plt.subplots(figsize=(4.2, 3.2), layout="constrained")
        for method in methods:
            dm = at[at["method"] == method].sort_values("_pairs")
            _draw_method(ax, dm["_pairs"].to_numpy(dtype=np.float64), dm["mean_error"].to_numpy(dtype=np.float64),
                         dm["se"].to_numpy(dtype=np.float64), styles[method])
        pairs = np.unique(at["_pairs"].to_numpy(dtype=np.float64))
        if pairs.size <= 8:
            ax.set_xticks(pairs)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
        ax.tick_params(axis="x", labelrotation=30 if pairs.size > 6 else 0)
        ax.set_xlabel("training pairs of the second model")
        ax.set_ylabel(_metric_label(str(metrics[0]), measure))
        ax.set_ylim(bottom=0)
        ax.set_title(title if title is not None else rf"$\Lambda$ = {budget:g}")
        ax.legend([_legend_handle(styles[m]) for m in methods], [styles[m]["label"] for m in methods], loc="best")
        return save_figure(fig, path)


_COVERAGE_COLUMNS = ["experiment", "quantity", "measure", "method", "budget", "level", "campaigns", "coverage",
                     "coverage_se"]


def plot_coverage(coverage, experiments, path, *, methods=("passive", "active"), band: float = 0.02) -> list:
    """Coverage of the nominal interval over the labelling budget: one row of panels per measure,
    one column per experiment, one line per method with +/- 2 binomial standard errors.

    ``coverage``: the table of :func:`evalrank.papers.sawade2012.report.coverage_table`. ``experiments``:
    experiment ids, one column each. ``methods``: the methods drawn (those present). The nominal
    level is a dashed line and ``level -/+ band`` a green band (93-97 % for 95 %). Returns the
    paths written.
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    from evalrank.papers.common.plots.style import save_figure, style

    _require_columns(coverage, _COVERAGE_COLUMNS, "coverage")
    experiments = _experiment_list(experiments)
    missing = [e for e in experiments if not (coverage["experiment"] == e).any()]
    if missing:
        raise ValueError(f"experiments: no rows for {missing}")
    measures = [m for m in ("err", "dcg") if (coverage["measure"] == m).any()]
    measures += sorted(set(coverage["measure"]) - set(measures))
    methods = [m for m in _method_order(set(methods)) if (coverage["method"] == m).any()]
    if not methods:
        raise ValueError("methods: none of them has rows in coverage")
    styles = _styles(methods)
    levels = coverage["level"].unique()
    if len(levels) != 1:
        raise ValueError(f"coverage has several levels {sorted(levels)}")
    level = float(levels[0])
    rows = coverage[coverage["experiment"].isin(experiments) & coverage["method"].isin(methods)
                    & (coverage["campaigns"] > 0)]
    low = float(np.nanmin(rows["coverage"] - 2 * rows["coverage_se"])) if len(rows) else level - band
    ylo = min(level - 2.5 * band, np.floor(low * 100) / 100)
    log = _use_log_x(rows["budget"].to_numpy(dtype=np.float64), None)
    nr, nc = len(measures), len(experiments)
    with style():
        fig, axes = plt.subplots(nr, nc, figsize=(3.3 * nc, 2.6 * nr + 0.5), layout="constrained", squeeze=False,
                                 sharey=True)
        for i, measure in enumerate(measures):
            for j, exp in enumerate(experiments):
                ax = axes[i][j]
                ax.axhspan(level - band, level + band, color="#009E73", alpha=0.12, lw=0, zorder=0)
                ax.axhline(level, color="0.3", ls="--", lw=0.9, zorder=1)
                d = rows[(rows["experiment"] == exp) & (rows["measure"] == measure)]
                for method in methods:
                    dm = d[d["method"] == method].sort_values("budget")
                    if dm.empty:
                        continue
                    st = styles[method]
                    ax.errorbar(dm["budget"].to_numpy(dtype=np.float64), dm["coverage"].to_numpy(dtype=np.float64),
                                yerr=2 * dm["coverage_se"].to_numpy(dtype=np.float64), color=st["color"], ls=st["ls"],
                                marker=st["marker"], ms=3.5, lw=1.3, elinewidth=0.8, capsize=2.0,
                                label=st["label"], zorder=st["zorder"])
                _budget_axis(ax, log)
                if i < nr - 1:
                    ax.set_xlabel("")
                ax.set_ylim(ylo, 1.0)
                q = d["quantity"].iloc[0] if len(d) else ""
                what = {"ranker": "R", "difference": r"$\Delta$"}.get(q, "")
                ax.set_title(f"{experiment_title(exp)}: {measure.upper()} {what}".strip(), fontsize=9)
                if j == 0:
                    ax.set_ylabel("share of intervals covering the truth")
        n = int(rows["campaigns"].max()) if len(rows) else 0
        handles = [_legend_handle(styles[m]) for m in methods] + [Patch(color="#009E73", alpha=0.3)]
        labels = [styles[m]["label"] for m in methods] + [f"{level - band:.0%} to {level + band:.0%}"]
        fig.legend(handles, labels, loc="outside lower center", ncols=len(labels))
        fig.suptitle(f"Coverage of the nominal {level:.0%} interval (eq. 6 \u00b1 t se), "
                     f"{n:,} campaigns per point, bars \u00b1 2 se")
        return save_figure(fig, path)


def plot_campaign_coverage(table, experiments, path, *, level: float = 0.95) -> list:
    """The labelling tool's coverage study (:func:`evalrank.papers.sawade2012.report.campaign_table`): one
    column per experiment of ``experiments``, two rows per measure -- the share of campaigns whose
    interval covers the truth at each budget, and the share whose interval covers it at *every*
    look after every draw from that budget to the largest one (simultaneous). Four lines each: the
    tool's default (the finite-population estimator and its design-based confidence sequence, the
    default floor), the same continued with the labels at each budget (``finite_rounds`` rows, where
    the table has them), AIPW -- Hajek-normalized for one ranker -- with the asymptotic confidence
    sequence at the same floor, and eq. 6 with Student's t on q* (epsilon 0). Returns the paths
    written."""
    import matplotlib.pyplot as plt

    from evalrank.papers.common.plots.style import save_figure, style

    need = ["experiment", "measure", "epsilon", "estimator", "interval", "default", "budget", "coverage",
            "simultaneous", "campaigns", "quantity"]
    _require_columns(table, need, "table")
    experiments = _experiment_list(experiments)
    from evalrank.active.campaign_plan import DEFAULT_EPSILON

    default = table[table["default"].astype(bool)]
    today = table[(table["epsilon"] == 0.0) & (table["estimator"] == "eq6") & (table["interval"] == "t")]
    asym = table[np.isclose(table["epsilon"], DEFAULT_EPSILON) & (table["interval"] == "cs")
                 & (table["estimator"] == np.where(table["quantity"] == "difference", "aipw", "hajek"))]
    missing = [e for e in experiments if not (default["experiment"] == e).any()]
    if missing:
        raise ValueError(f"experiments: no rows of the tool's default for {missing}")
    measures = [m for m in ("err", "dcg") if (default["measure"] == m).any()]
    measures += sorted(set(default["measure"]) - set(measures))
    rounds = table[(table["estimator"] == "finite_rounds") & (table["interval"] == "cs")]
    lines = [("default: finite population + design-based sequence", default, "#0072B2", "-", "o"),
             ("default continued with the labels (--qrels)", rounds, "#CC79A7", ":", "D"),
             ("AIPW (Hájek for one ranker) + asymptotic sequence", asym, "#009E73", "-.", "^"),
             ("eq. 6 + t on q*", today, "#D55E00", "--", "s")]
    logx = _use_log_x(table["budget"].to_numpy(dtype=np.float64), None)
    rows = [(m, col) for m in measures for col in ("coverage", "simultaneous")]
    nc = len(experiments)
    with style():
        fig, axes = plt.subplots(len(rows), nc, figsize=(3.4 * nc + 0.8, 2.1 * len(rows) + 0.8),
                                 layout="constrained", squeeze=False)
        for i, (m, col) in enumerate(rows):
            for j, exp in enumerate(experiments):
                ax = axes[i][j]
                ax.axhline(level, color="0.3", ls=":", lw=0.9, zorder=1)
                for label, d, color, ls, marker in lines:
                    dm = d[(d["experiment"] == exp) & (d["measure"] == m)].sort_values("budget")
                    if dm.empty:
                        continue
                    ax.plot(dm["budget"].to_numpy(dtype=np.float64), dm[col].to_numpy(dtype=np.float64), color=color,
                            ls=ls, marker=marker, ms=3.5, lw=1.3, label=label)
                _budget_axis(ax, logx)
                ax.set_ylim((0.8, 1.005) if col == "coverage" else (0.4, 1.005))
                if i < len(rows) - 1:
                    ax.set_xlabel("")
                q = default[(default["experiment"] == exp)]["quantity"].iloc[0]
                what = {"ranker": "R", "difference": r"$\Delta$"}.get(q, "")
                if i == 0:
                    ax.set_title(f"{experiment_title(exp)}: {what}", fontsize=9)
                if j == 0:
                    ax.set_ylabel(f"{m.upper()}: covering\n" +
                                  ("at the budget" if col == "coverage" else "at every look from it"), fontsize=8.5)
        handles, labels = axes[0][0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncols=len(labels) if nc > 2 else 2)
        n = int(default["campaigns"].max())
        fig.suptitle(f"Nominal {level:.0%} intervals of a labelling campaign looked at after every draw, "
                     f"{n:,} campaigns per point (dotted: {level:.0%})", fontsize=10)
        return save_figure(fig, path)
