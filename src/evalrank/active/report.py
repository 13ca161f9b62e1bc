"""Merge Monte Carlo shards into error curves and the savings table (Sawade et al. Sec. 5)."""

from __future__ import annotations

import json
from collections import defaultdict

import numpy as np

from evalrank import io
from evalrank.active.experiments import PAPER_SAVINGS, errors, savings_row
from evalrank.active.montecarlo import STOP_CAPPED, STOP_WHOLE_POOL
from evalrank.active.sampling import METHODS

__all__ = ["summarize", "savings_table"]

SAVINGS_COLUMNS = ["experiment", "measure", "reference_budget", "passive_error", "active_budget_needed",
                   "saving", "paper_saving"]


def summarize(setup_paths, shard_paths):
    """Error curves over folds x repetitions.

    Returns ``(curves, costs)``: a DataFrame with one row per (experiment, measure,
    method, budget) -- ``metric``, ``mean_error``, ``se`` (standard error over all
    runs of all folds), ``n_runs``, ``n_undefined`` (runs that labelled nothing;
    left out of the mean), ``mean_queries``, ``mean_spent``, ``n_whole_pool`` (runs
    whose budget covered the whole pool: every query labelled, error 0),
    ``n_capped`` (runs stopped by the draw cap), ``pool_cost`` (the pool's
    labelling cost, mean over folds), ``truth`` (mean over folds), ``train_pairs``
    -- and the query costs of every fold's pool (for Fig. 1 left). Shards written
    before the stop codes existed count as neither whole-pool nor capped.
    Checks that the shards of each (experiment, fold) cover every repetition once.
    """
    import pandas as pd

    setups = {}
    order = []
    for p in setup_paths:
        s = io.load_arrays(p)
        meta = json.loads(str(s["meta"]))
        key = (meta["experiment"], int(meta["fold"]))
        if key in setups:
            raise ValueError(f"two setups for experiment {key[0]} fold {key[1]}")
        setups[key] = (meta, s)
        if meta["experiment"] not in order:
            order.append(meta["experiment"])
    acc = defaultdict(list)
    covered = defaultdict(list)
    truths = defaultdict(dict)
    budgets = None
    for p in shard_paths:
        sh = io.load_arrays(p)
        meta = json.loads(str(sh["meta"]))
        key = (meta["experiment"], int(meta["fold"]))
        if key not in setups:
            raise ValueError(f"shard {p} belongs to {key}, which has no setup")
        if budgets is None:
            budgets = sh["budgets"]
        elif not np.array_equal(budgets, sh["budgets"]):
            raise ValueError(f"shard {p} used other budgets than the first shard")
        covered[key].append((sh["repetition"], int(sh["n_repetitions"])))
        smeta, s = setups[key]
        for m in smeta["measures"]:
            truth = float(s[f"truth_{m}"])
            for method in METHODS:
                err = errors(sh[f"estimate_{m}_{method}"], truth, smeta["metric"])
                stop = sh.get(f"stop_{m}_{method}", np.zeros(err.shape, dtype=np.int8))
                acc[(key[0], m, method)].append((err, sh[f"n_{m}_{method}"], sh[f"spent_{m}_{method}"], stop))
                truths[(key[0], m)][key[1]] = truth
    for key, parts in covered.items():
        reps = np.sort(np.concatenate([r for r, _ in parts]))
        n = parts[0][1]
        if not np.array_equal(reps, np.arange(n)):
            raise ValueError(f"shards of experiment {key[0]} fold {key[1]} do not cover repetitions 0..{n - 1} exactly once")
    missing = set(setups) - set(covered)
    if missing:
        raise ValueError(f"no shards for {sorted(missing)}")
    rows = []
    for exp in order:
        meta0 = next(meta for (e, _), (meta, _) in setups.items() if e == exp)
        for m in meta0["measures"]:
            for method in METHODS:
                parts = acc[(exp, m, method)]
                err = np.concatenate([p[0] for p in parts])
                nq = np.concatenate([p[1] for p in parts])
                spent = np.concatenate([p[2] for p in parts])
                stop = np.concatenate([p[3] for p in parts])
                truth = float(np.mean(list(truths[(exp, m)].values())))  # mean over folds
                pool_cost = float(np.mean([float(s["costs"].sum()) for (e, _), (_, s) in setups.items() if e == exp]))
                for j, b in enumerate(budgets):
                    e = err[:, j]
                    ok = ~np.isnan(e)
                    k = int(ok.sum())
                    rows.append({
                        "experiment": exp, "measure": m, "method": method, "budget": float(b),
                        "metric": meta0["metric"],
                        "mean_error": float(e[ok].mean()) if k else float("nan"),
                        "se": float(e[ok].std(ddof=1) / np.sqrt(k)) if k > 1 else float("nan"),
                        "n_runs": k, "n_undefined": int(e.size - k),
                        "mean_queries": float(nq[:, j].mean()), "mean_spent": float(spent[:, j].mean()),
                        "n_whole_pool": int((stop[:, j] == STOP_WHOLE_POOL).sum()),
                        "n_capped": int((stop[:, j] == STOP_CAPPED).sum()),
                        "pool_cost": pool_cost,
                        "truth": truth,
                        "train_pairs": meta0.get("train_pairs"),
                    })
    curves = pd.DataFrame(rows)
    folds = sorted({f for (_, f) in setups})
    costs = np.concatenate([next(s["costs"] for (e, f), (_, s) in setups.items() if f == fold) for fold in folds])
    return curves, costs


def savings_table(curves, *, reference_budget: float, train_size_budget: float):
    """One row per experiment and measure: the budget active needs to reach passive's
    error at the reference budget (the largest training size of Fig. 3 uses the
    reference budget too; the other sizes, only shown in Fig. 3 right, use
    ``train_size_budget``), with the saving Sawade et al. report beside it."""
    import pandas as pd

    sizes = sorted({e for e in curves["experiment"] if e.startswith("fig3_train_size_")},
                   key=lambda e: int(e.rsplit("_", 1)[1]))
    rows = []
    for (exp, m), g in curves.groupby(["experiment", "measure"], sort=False):
        piv = g.pivot(index="budget", columns="method", values="mean_error").sort_index()
        ref = train_size_budget if (exp in sizes and exp != sizes[-1]) else reference_budget
        row = savings_row(piv.index.to_numpy(), piv["passive"].to_numpy(), piv["active"].to_numpy(), ref)
        paper = PAPER_SAVINGS.get(exp, "45%" if sizes and exp == sizes[-1] else "")
        rows.append({"experiment": exp, "measure": m, **row, "paper_saving": paper})
    return pd.DataFrame(rows, columns=SAVINGS_COLUMNS)
