"""Why active DCG estimation saves little (issue 30 item 3): the label model's realised vs predicted
per-query variance, split into the within-document part (what Theorem 3's independent labels can
express) and the cross-document part (errors of one sign within a query), for DCG and ERR on the
held-out pool of finished runs; and the one-factor-copula label model
(:mod:`evalrank.active.theorem3_correlated`) fitted on the validation queries: its ratio on the pool
and the budget factor its q* would give with the true losses (1 - factor = the asymptotic saving).

    python benchmarks/label_model_correlation.py NAME=RESULTS_DIR ... [--out CSV]

e.g. ``synthetic=/tmp/fin30/results/synthetic mslr-excerpt=results/mslr-excerpt``. Reads
fold1/predictions/<model>.npz (pool), fold1/models/<model>.skops and fold1/vali.npz (validation
queries: the fit), fold1/sawade2012/fig1_<model>/setup.npz (costs); one row per dataset, model and
measure."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np


TARGET = "total"


def _vali_predictions(root: Path, model: str):
    from evalrank import io
    from evalrank.models.zoo import load_model

    vali = io.load_arrays(root / "fold1" / "vali.npz")
    m = load_model(root / "fold1" / "models" / f"{model}.skops")
    m.n_jobs = 1
    scores, probs = m.score_and_proba(vali["features"])
    return {"scores": np.asarray(scores, np.float64), "probs": np.asarray(probs, np.float64),
            "labels": vali["labels"], "offsets": vali["offsets"]}


def rows_for(name: str, root: Path, models=("rf", "ordered_logit"), measures=("dcg", "err"), max_grade: int = 4):
    from evalrank import io
    from evalrank.active.sampling import instrumental
    from evalrank.active.theorem3 import batch_mean_var
    from evalrank.active.theorem3_correlated import batch_mean_var_factor, fit_factor_correlation, variance_split
    from evalrank.metrics.ranking import rank_order
    from evalrank.papers.sawade2012.experiments import true_losses
    from evalrank.papers.sawade2012.report import _budget_factor

    out = []
    for model in models:
        pool = io.load_arrays(root / "fold1" / "predictions" / f"{model}.npz")
        costs = io.load_arrays(root / "fold1" / "sawade2012" / f"fig1_{model}" / "setup.npz")["costs"]
        vali = _vali_predictions(root, model)
        order, vorder = rank_order(pool["scores"], pool["offsets"]), rank_order(vali["scores"], vali["offsets"])
        for m in measures:
            row = {"dataset": name, "target": TARGET, "model": model, "measure": m,
                   "vali_queries": len(vali["offsets"]) - 1}
            row.update(variance_split(pool["labels"], pool["probs"], pool["offsets"], order, m, max_grade=max_grade))
            vs = variance_split(vali["labels"], vali["probs"], vali["offsets"], vorder, m, max_grade=max_grade)
            row["vali_ratio"] = vs["ratio_squared_error"]
            t0 = time.perf_counter()
            rho = fit_factor_correlation(vali["probs"], vali["labels"], vali["offsets"], vorder, m,
                                         max_grade=max_grade, target=TARGET)
            row["rho"] = rho
            values = true_losses(pool["labels"], pool["offsets"], order, m, max_grade=max_grade)
            mean0, var0 = batch_mean_var(pool["probs"], pool["offsets"], order, m)
            mean1, var1 = batch_mean_var_factor(pool["probs"], pool["offsets"], order, m, rho)
            row["seconds_fit_and_pool"] = round(time.perf_counter() - t0, 2)
            row["calibrated_predicted_variance"] = float(var1.mean())
            row["calibrated_ratio"] = float(((values - mean1) ** 2).mean() / var1.mean())
            for tag, mean, var in (("independent", mean0, var0), ("calibrated", mean1, var1)):
                q = instrumental(var + (mean - mean.mean()) ** 2, costs)
                row[f"budget_factor_{tag}"] = _budget_factor(q, values, costs)
            row["budget_factor_true_variance"] = _budget_factor(
                instrumental((values - mean0) ** 2 + (mean0 - mean0.mean()) ** 2, costs), values, costs)
            # an empirical-Bayes variance model on query-level features, fitted on the validation queries:
            # log (L - E)^2 ~ log Var_rho + log E + log n (least squares), rescaled to the validation mean
            vm, vv = batch_mean_var_factor(vali["probs"], vali["offsets"], vorder, m, rho)
            vvals = true_losses(vali["labels"], vali["offsets"], vorder, m, max_grade=max_grade)

            def feats(mean, var, off):
                return np.column_stack([np.ones_like(mean), np.log(var + 1e-12), np.log(mean + 1e-3),
                                        np.log(np.diff(off))])

            y = (vvals - vm) ** 2
            beta = np.linalg.lstsq(feats(vm, vv, vali["offsets"]), np.log(y + 1e-3 * y.mean()), rcond=None)[0]
            v_eb = np.exp(feats(mean1, var1, pool["offsets"]) @ beta)
            v_eb *= y.mean() / np.exp(feats(vm, vv, vali["offsets"]) @ beta).mean()
            row["budget_factor_eb"] = _budget_factor(instrumental(v_eb + (mean1 - mean1.mean()) ** 2, costs),
                                                     values, costs)
            d = np.abs(values - values.mean())
            row["budget_factor_oracle"] = _budget_factor(instrumental(d * d, costs), values, costs)
            out.append(row)
    return out


def main(argv=None):
    import pandas as pd

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", help="NAME=RESULTS_DIR")
    ap.add_argument("--out", help="CSV to write")
    ap.add_argument("--target", choices=["total", "cross"], default="total",
                    help="what the fit of rho matches (theorem3_correlated.fit_factor_correlation)")
    a = ap.parse_args(argv)
    global TARGET
    TARGET = a.target
    rows = []
    for spec in a.runs:
        name, _, path = spec.partition("=")
        rows += rows_for(name, Path(path))
    df = pd.DataFrame(rows)
    with pd.option_context("display.width", 250, "display.max_columns", 40, "display.float_format", "{:.4g}".format):
        print(df.to_string(index=False))
    if a.out:
        df.to_csv(a.out, index=False, float_format="%.6g")


if __name__ == "__main__":
    main()
