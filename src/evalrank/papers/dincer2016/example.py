"""The paper's worked example (Dinçer et al. 2016, Sec. 4): Tables 3, 4 and 5.

Table 3 is read from ``config/dincer2016/dincer2016_table3.csv``; Tables 4 and 5
are recomputed from it with :mod:`evalrank.metrics.risk` and set beside the
printed values (``config/dincer2016/dincer2016_table{4,5}_printed.csv``).
:func:`compare` checks every number to the printed precision: ours may
differ from the printed value by at most half a unit of its last digit.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from evalrank.metrics import risk

__all__ = ["read_matrix", "table4", "table5", "compare", "TABLE5_ALPHAS", "example_files"]

#: The alpha values of Table 5 (and of Fig. 2's end point).
TABLE5_ALPHAS = (0, 1, 5, 10)


def read_matrix(path) -> tuple[list[str], list[str], np.ndarray]:
    """A systems x topics CSV (first column ``system``, one column per topic;
    ``#`` comment lines allowed) -> ``(systems, topics, X)``."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"risk matrix {path} does not exist")
    df = pd.read_csv(path, comment="#")
    if df.columns[0] != "system":
        raise ValueError(f"{path}: the first column must be 'system', got {df.columns[0]!r}")
    if df["system"].duplicated().any():
        raise ValueError(f"{path}: duplicate system names {df['system'][df['system'].duplicated()].tolist()}")
    values = df.drop(columns="system")
    bad = [c for c in values.columns if not pd.api.types.is_numeric_dtype(values[c])]
    if bad:
        raise ValueError(f"{path}: non-numeric scores in column(s) {bad}")
    X = values.to_numpy(dtype=np.float64)
    risk.zrisk(X, 0)  # validates: finite, non-negative, no zero totals
    return df["system"].astype(str).tolist(), [str(c) for c in values.columns], X


def table4(systems, topics, X, *, baseline: int = 0) -> pd.DataFrame:
    """Table 4: every other system ``s`` vs the single baseline and the
    baseline vs ``s`` -- ``z`` per topic from the two-row matrix ``[s, b]``
    (eq. 8's setting, ``r = 2``) and ZRisk at ``alpha = 0``."""
    rows = []
    for i in range(len(systems)):
        if i == baseline:
            continue
        for a, b in ((i, baseline), (baseline, i)):
            z = risk.standardized_residuals(X[[a, b]])[0]
            rows.append({"system": systems[a], "baseline": systems[b], **dict(zip(topics, z)),
                         "zrisk": risk.zrisk(X[[a, b]], 0, 0.0)})
    return pd.DataFrame(rows)


def table5(systems, X, alphas=TABLE5_ALPHAS) -> pd.DataFrame:
    """Table 5: mean, ZRisk and GeoRisk of every system with all systems as
    baselines, for each ``alpha``."""
    zr = risk.zrisk(X, None, np.asarray(alphas, dtype=float))
    geo = risk.georisk(X, None, np.asarray(alphas, dtype=float))
    df = pd.DataFrame({"system": systems, "mean": X.mean(axis=1)})
    for k, a in enumerate(alphas):
        df[f"zrisk_a{a:g}"] = zr[:, k]
        df[f"geo_a{a:g}"] = geo[:, k]
    return df


def _decimals(series: pd.Series) -> int:
    """Printed precision of a column read back from the CSV text."""
    return max(len(s.split(".")[1]) if "." in s else 0 for s in series.astype(str))


def compare(ours: pd.DataFrame, printed_csv, keys=("system",)) -> pd.DataFrame:
    """Long table ``keys, column, ours, printed, decimals, diff, match``:
    ``match`` when ``|ours - printed| <= 0.5 * 10^-decimals`` (+1e-12), the
    decimals read from the printed CSV's text."""
    keys = list(keys)
    printed_text = pd.read_csv(printed_csv, comment="#", dtype=str)
    printed = pd.read_csv(printed_csv, comment="#")
    cols = [c for c in printed.columns if c not in keys]
    missing = [c for c in cols if c not in ours.columns]
    if missing:
        raise ValueError(f"{printed_csv}: columns {missing} are not in the computed table")
    merged = printed.merge(ours, on=keys, how="left", suffixes=("_printed", "_ours"), indicator=True)
    if (merged["_merge"] != "both").any():
        raise ValueError(f"{printed_csv}: rows {merged.loc[merged['_merge'] != 'both', keys].values.tolist()} "
                         "are not in the computed table")
    out = []
    for c in cols:
        dec = _decimals(printed_text[c])
        for (_, row) in merged.iterrows():
            mine, theirs = float(row[f"{c}_ours"]), float(row[f"{c}_printed"])
            out.append({**{k: row[k] for k in keys}, "column": c, "ours": mine, "printed": theirs,
                        "decimals": dec, "diff": mine - theirs,
                        "match": bool(abs(mine - theirs) <= 0.5 * 10.0 ** -dec + 1e-12)})
    return pd.DataFrame(out)


def example_files(*, matrix, printed4, printed5, out_dir, log=None) -> None:
    """Sec. 4's worked example: Table 3's matrix (CSV) -> ``table4.csv``, ``table5.csv``, their
    number-by-number comparison with the printed tables (``vs_paper.csv``), Fig. 1 (performance
    profiles) and Fig. 2 (GeoRisk over 0 <= alpha <= 10) in ``out_dir``. Raises RuntimeError
    listing the numbers that differ from the paper at its printed precision."""
    from evalrank import io
    from evalrank.papers.dincer2016 import population
    from evalrank.papers.dincer2016.plots import plot_georisk, plot_profiles

    systems, topics, X = read_matrix(matrix)
    out = Path(out_dir)
    t4, t5 = table4(systems, topics, X), table5(systems, X)
    io.write_table(t4, out / "table4.csv", float_format="%.6f")
    io.write_table(t5, out / "table5.csv", float_format="%.6f")
    cmp = pd.concat([compare(t4, printed4, keys=("system", "baseline")).assign(table="table4"),
                     compare(t5, printed5).assign(table="table5")], ignore_index=True)
    io.write_table(cmp, out / "vs_paper.csv", float_format="%.6f")
    plot_profiles(systems, topics, X, out / "fig1_profiles.png", title="Fig. 1: example systems' performance profiles")
    curves = population.georisk_curves(systems, X, systems, range(0, 11))
    plot_georisk(curves, out / "fig2_georisk_example.png", title=r"Fig. 2: GeoRisk of the example systems, $0 \leq \alpha \leq 10$")
    bad = cmp[~cmp["match"]]
    if log is not None:
        log(f"Tables 4-5: {int(cmp['match'].sum())}/{len(cmp)} numbers equal the printed ones to the printed precision")
    if len(bad):
        raise RuntimeError("numbers differing from the paper:\n" + bad.to_string(index=False))
