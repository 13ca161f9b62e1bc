"""The ``evalrank stage`` commands of Sawade et al. (2012)'s experiment
(``workflow/rules/sawade2012.smk``): q* of every method for one experiment and fold, Monte Carlo
shards of Algorithm 1 (with every run's standard error), and the merged curves, savings table,
Figs. 1-3, the interval's coverage study and the label-model check.

Defaults: see :mod:`evalrank.cli` -- an option carrying a config value is required.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from evalrank.cli.common import _log, add_command

__all__ = ["TITLE", "add_stage_parsers", "in_campaign_study"]

TITLE = "active evaluation (workflow/rules/sawade2012.smk)"


def in_campaign_study(experiment: str) -> bool:
    """Whether the campaign study (:mod:`evalrank.papers.sawade2012.campaignstudy`) runs on ``experiment``:
    one ranker, the model pairs and the index update, not the training-size series of Fig. 3
    right."""
    return not experiment.startswith("fig3_train_size_")


def _experiment(a):
    from evalrank.papers.sawade2012.experiments import experiments

    exps = {e.name: e for e in experiments(a.models, drop=a.drop, base_pairs=a.base_pairs, sizes=a.sizes or (),
                                           base_model=a.base_model)}
    if a.experiment not in exps:
        raise ValueError(f"experiment must be one of {sorted(exps)}, got {a.experiment!r}")
    return exps[a.experiment]


def cmd_active_setup(a):
    import numpy as np

    from evalrank import io
    from evalrank.papers.sawade2012.experiments import setup_experiment
    from evalrank.data.collection import Collection

    exp = _experiment(a)
    preds = {}
    for item in a.predictions:
        name, sep, path = item.partition("=")
        if not sep:
            raise ValueError(f"--predictions takes name=path items, got {item!r}")
        preds[name] = io.load_arrays(path)
    missing = [m for m in exp.models if m not in preds]
    if missing:
        raise ValueError(f"experiment {exp.name} needs predictions of {missing}")
    pool = Collection.concat([Collection.load(p) for p in a.pool])
    if not np.array_equal(pool.qids, preds[exp.a]["qids"]):
        raise ValueError("--pool partitions do not match the predictions' queries (order or content)")
    if a.cost_feature is None:
        lengths = None  # every query costs one unit
    elif not 1 <= a.cost_feature <= pool.n_features:
        raise ValueError(f"--cost-feature {a.cost_feature} is outside the pool's features 1..{pool.n_features}")
    else:
        lengths = pool.features[:, a.cost_feature - 1].astype(np.float64)
    out = setup_experiment(exp, preds, lengths, a.measures, seed=a.seed, fold=a.fold, max_grade=a.max_grade)
    meta = {"experiment": exp.name, "kind": exp.kind, "metric": exp.metric, "fold": a.fold,
            "measures": list(a.measures), "train_pairs": exp.train_pairs}
    # timings go to the log only, so the file is byte-identical across runs
    secs = {k[len("seconds_"):]: round(float(out.pop(k)), 3) for k in [k for k in out if k.startswith("seconds_")]}
    io.save_arrays(a.output, meta=np.array(json.dumps(meta, sort_keys=True)), **out)
    _log(f"{exp.name} fold {a.fold}: q* computed ({secs}); truth " +
         ", ".join(f"{m}={float(out[f'truth_{m}']):.6g}" for m in a.measures))


def cmd_active_mc(a):
    import numpy as np

    from evalrank import io
    from evalrank.papers.sawade2012.montecarlo import STOP_CAPPED, shard_range, simulate, standard_errors
    from evalrank.active.sampling import METHODS
    from evalrank.progress import progress

    setup = io.load_arrays(a.setup)
    meta = json.loads(str(setup["meta"]))
    reps = shard_range(a.repetitions, a.shard, a.shards)
    out = {"repetition": np.asarray(reps, dtype=np.int64), "budgets": np.asarray(a.budgets, dtype=np.float64),
           "meta": setup["meta"], "n_repetitions": np.int64(a.repetitions)}
    t0 = time.perf_counter()
    jobs = [(m, method) for m in meta["measures"] for method in METHODS]
    for m, method in progress(jobs, desc=f"{meta['experiment']} fold {meta['fold']} shard {a.shard}", unit="curve"):
        sim = simulate(setup[f"q_{m}_{method}"], setup["costs"], setup[f"values_{m}"], a.budgets, seed=a.seed,
                       stream=("active-mc", meta["experiment"], meta["fold"], m, method), repetitions=reps)
        out[f"estimate_{m}_{method}"] = sim["estimate"]
        out[f"n_{m}_{method}"] = sim["n"]
        out[f"spent_{m}_{method}"] = sim["spent"]
        out[f"stop_{m}_{method}"] = sim["stop"]
        # eq. 6's standard error of every run (the coverage study of active-summary)
        out[f"stderr_{m}_{method}"] = standard_errors(sim, setup[f"q_{m}_{method}"])[0]
    if a.campaign_repetitions and in_campaign_study(meta["experiment"]):
        from evalrank.papers.sawade2012.campaignstudy import simulate_campaigns

        creps = shard_range(a.campaign_repetitions, a.shard, a.shards)
        out["campaign_repetition"] = np.asarray(creps, dtype=np.int64)
        out["campaign_budgets"] = np.asarray(a.campaign_budgets, dtype=np.float64)
        out["epsilons"] = np.asarray(a.epsilons, dtype=np.float64)
        out["n_campaigns"] = np.int64(a.campaign_repetitions)
        for m in progress(meta["measures"], desc=f"{meta['experiment']} campaigns", unit="measure"):
            sim = simulate_campaigns(setup, m, epsilons=a.epsilons, budgets=a.campaign_budgets, repetitions=creps,
                                     seed=a.seed, stream=("active-campaign", meta["experiment"], meta["fold"], m),
                                     tune_budget=a.tune_budget, level=a.level)
            out.update({f"camp_{m}_{k}": v for k, v in sim.items()})
    io.save_arrays(a.output, **out)
    n_runs = len(reps) * len(jobs)
    _log(f"{n_runs} runs x {len(a.budgets)} budgets in {time.perf_counter() - t0:.1f}s")
    pool_cost = float(setup["costs"].sum())
    whole = [b for b in a.budgets if b >= pool_cost]
    if whole:
        _log(f"budget(s) {', '.join(f'{b:g}' for b in whole)} cover the whole pool (cost {pool_cost:.6g}): "
             "every query is labelled there, the estimate is the truth (error 0)")
    capped = sum(int((out[f"stop_{m}_{method}"] == STOP_CAPPED).sum()) for m, method in jobs)
    if capped:
        _log(f"{capped} (run, budget) pairs stopped at the draw cap (evalrank.active.estimate.default_max_draws)")


def cmd_active_summary(a):
    from evalrank import io
    from evalrank.papers.sawade2012.report import coverage_table, label_model_table, savings_table, summarize
    from evalrank.papers.sawade2012.plots import plot_costs, plot_coverage, plot_error_curves, plot_train_size

    out = Path(a.out_dir)
    curves, costs = summarize(a.setups, a.shards)
    io.write_table(curves, out / "curves.csv")
    sav = savings_table(curves, reference_budget=a.reference_budget, train_size_budget=a.train_size_budget)
    io.write_table(sav, out / "savings.csv")
    exps = list(dict.fromkeys(curves["experiment"]))
    sizes = [e for e in exps if e.startswith("fig3_train_size_")]
    for m in sorted(set(curves["measure"])):
        fig1 = [e for e in exps if e.startswith("fig1_")]
        if fig1:
            plot_error_curves(curves, fig1, m, out / f"fig1_{m}.png", costs=costs,
                              suptitle=f"Fig. 1: estimating {m.upper()}")
        fig2 = [e for e in exps if e.startswith("fig2_")]
        if fig2:
            plot_error_curves(curves, fig2, m, out / f"fig2_{m}.png", suptitle=f"Fig. 2: model selection by {m.upper()}")
        fig3 = [e for e in exps if e == "fig3_index_update"] + sizes[-1:]
        if fig3:
            plot_error_curves(curves, fig3, m, out / f"fig3_{m}.png", suptitle=f"Fig. 3: estimating a {m.upper()} difference")
        if sizes:
            plot_train_size(curves, m, a.train_size_budget, out / f"fig3_train_size_{m}.png",
                            title=f"Fig. 3 right: {m.upper()} difference at Λ = {a.train_size_budget:g}")
    plot_costs(costs, out / "costs.png")
    _log("savings:\n" + sav.to_string(index=False))
    cov = coverage_table(a.setups, a.shards, level=a.level)
    io.write_table(cov, out / "coverage.csv")
    # the figure: one ranker and two differences (a model pair of Sec. 5.2, the index update)
    shown = [next((e for e in exps if e.startswith(p)), None) for p in ("fig1_", "fig2_", "fig3_index_update")]
    shown = [e for e in shown if e is not None] or exps[:3]
    main = cov[cov["method"].isin(["passive", "active"]) & (cov["campaigns"] > 0)]
    outside = main[(main["coverage"] < a.level - 0.02) | (main["coverage"] > a.level + 0.02)]
    _log(f"coverage of the nominal {a.level:.0%} interval, passive and active: {main['coverage'].min():.4f} .. "
         f"{main['coverage'].max():.4f} over {len(main)} cells; {len(outside)} outside {a.level - 0.02:.0%}.."
         f"{a.level + 0.02:.0%}" + ((":\n" + outside.to_string(index=False)) if len(outside) else ""))
    from evalrank.papers.sawade2012.report import campaign_table
    from evalrank.papers.sawade2012.plots import plot_campaign_coverage

    camp = campaign_table(a.setups, a.shards)
    io.write_table(camp, out / "campaign_coverage.csv")
    if len(camp):
        plot_campaign_coverage(camp, [e for e in shown if (camp["experiment"] == e).any()], out / "coverage.png",
                               level=a.level)
    else:
        plot_coverage(cov, shown, out / "coverage.png")
    lm = label_model_table(a.setups)
    io.write_table(lm, out / "label_model_check.csv")
    _log("label-model check:\n" + lm.to_string(index=False))




def add_stage_parsers(sub) -> None:
    def experiment_args(s):
        s.add_argument("--experiment", required=True, help="the experiment's name, e.g. fig1_rf")
        s.add_argument("--models", nargs="+", required=True, help="names of the trained models (models.names)")
        s.add_argument("--drop", type=float, required=True,
                       help="index update: share of each list removed (active.index_update_drop)")
        s.add_argument("--base-pairs", type=int, required=True,
                       help="training pairs of Fig. 3's base RF (active.train_sizes.base)")
        s.add_argument("--base-model", help="prediction name of Fig. 3's base RF (default: rf_n<base-pairs>)")
        s.add_argument("--sizes", type=int, nargs="*",
                       help="training pairs of Fig. 3's larger RFs (active.train_sizes.sizes; default: none)")

    s = add_command(sub, "active-setup", cmd_active_setup,
                    "q* of every method, costs and the truth for one experiment and fold")
    experiment_args(s)
    s.add_argument("--predictions", nargs="+", required=True, help="name=path of pool predictions")
    s.add_argument("--pool", nargs="+", required=True, help="the pool partitions (.npz), in prediction order")
    s.add_argument("--cost-feature", type=int, help="1-based feature id of the document length "
                                                    "(active.cost_feature; default: none, every query costs one unit)")
    s.add_argument("--measures", nargs="+", required=True, choices=["err", "dcg"], help="active.measures")
    s.add_argument("--max-grade", type=int, required=True, help="highest relevance grade (dataset.max_grade)")
    s.add_argument("--seed", type=int, required=True, help="the config's seed")
    s.add_argument("--fold", type=int, required=True, help="the fold whose models and pool these are")
    s.add_argument("--output", required=True, help="setup.npz")

    s = add_command(sub, "active-mc", cmd_active_mc, "Monte Carlo of Algorithm 1: one shard of the repetitions")
    s.add_argument("--setup", required=True, help="setup.npz of active-setup")
    s.add_argument("--budgets", type=float, nargs="+", required=True, help="labelling budgets (active.budgets)")
    s.add_argument("--repetitions", type=int, required=True, help="runs over all shards (active.repetitions)")
    s.add_argument("--shard", type=int, required=True, help="this shard, 0..shards-1")
    s.add_argument("--shards", type=int, required=True, help="shards the repetitions are split into (active.shards)")
    s.add_argument("--seed", type=int, required=True, help="the config's seed")
    s.add_argument("--campaign-repetitions", type=int, required=True,
                   help="campaigns of the labelling tool's coverage study over all shards (active.campaign.repetitions; "
                        "0: no study)")
    s.add_argument("--campaign-budgets", type=float, nargs="+", required=True,
                   help="budgets the study looks at (active.campaign.budgets)")
    s.add_argument("--epsilons", type=float, nargs="+", required=True,
                   help="floors under q* the study compares (active.campaign.epsilons)")
    s.add_argument("--tune-budget", type=float, required=True,
                   help="budget whose draws tune the confidence sequence (active.campaign.tune_budget)")
    s.add_argument("--level", type=float, required=True, help="nominal level of the intervals (active.coverage_level)")
    s.add_argument("--output", required=True, help="shard<k>.npz")

    s = add_command(sub, "active-summary", cmd_active_summary,
                    "merge shards: curves, savings, Figs. 1-3, the interval's coverage, the label-model check")
    s.add_argument("--setups", nargs="+", required=True, help="setup.npz of every fold and experiment")
    s.add_argument("--shards", nargs="+", required=True, help="shard<k>.npz of every fold and experiment")
    s.add_argument("--reference-budget", type=float, required=True,
                   help="budget of the savings table (active.reference_budget)")
    s.add_argument("--train-size-budget", type=float, required=True,
                   help="budget of Fig. 3 right (active.train_sizes.budget)")
    s.add_argument("--level", type=float, required=True,
                   help="nominal level of the intervals of the coverage study (active.coverage_level)")
    s.add_argument("--out-dir", required=True, help="folder of curves.csv, savings.csv, coverage.csv, "
                                                    "label_model_check.csv and the figures")
