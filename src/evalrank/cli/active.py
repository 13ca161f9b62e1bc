"""Active evaluation (Sawade et al. 2012): the front door's ``evalrank active plan|estimate``
(a labelling campaign on your own runs, :mod:`evalrank.active.campaign`) and the ``evalrank
stage`` commands of ``workflow/rules/active.smk``: q* of every method for one experiment and
fold, Monte Carlo shards of Algorithm 1 (with every run's standard error), and the merged
curves, savings table, Figs. 1-3, the interval's coverage study and the label-model check.

Defaults: see :mod:`evalrank.cli` -- an option carrying a config value is required.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from evalrank.cli.common import _log, add_command


def in_campaign_study(experiment: str) -> bool:
    """Whether the campaign study (:mod:`evalrank.active.campaignstudy`) runs on ``experiment``:
    one ranker, the model pairs and the index update, not the training-size series of Fig. 3
    right."""
    return not experiment.startswith("fig3_train_size_")

__all__ = ["TITLE", "add_stage_parsers", "add_parsers"]

TITLE = "active evaluation (workflow/rules/active.smk)"


def _experiment(a):
    from evalrank.active.experiments import experiments

    exps = {e.name: e for e in experiments(a.models, drop=a.drop, base_pairs=a.base_pairs, sizes=a.sizes or (),
                                           base_model=a.base_model)}
    if a.experiment not in exps:
        raise ValueError(f"experiment must be one of {sorted(exps)}, got {a.experiment!r}")
    return exps[a.experiment]


def cmd_active_setup(a):
    import numpy as np

    from evalrank import io
    from evalrank.active.experiments import setup_experiment
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
    from evalrank.active.montecarlo import STOP_CAPPED, shard_range, simulate, standard_errors
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
        from evalrank.active.campaignstudy import simulate_campaigns

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
    from evalrank.active.report import coverage_table, label_model_table, savings_table, summarize
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
    from evalrank.active.report import campaign_table
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


# -- front door: evalrank active plan | estimate ----------------------------------------------
#: the options that give the label model or the costs (a new plan needs a label model; with
#: --continue they are optional, and checked against the plan when given)
MODEL_OPTIONS = ("probs", "calibrate_from", "letor", "model", "grades", "costs", "lengths")


def cmd_active_plan(a):
    from evalrank.active.campaign import extend, plan
    from evalrank.active.files import read_plan, write_plan

    if a.continue_plan:
        previous = read_plan(a.continue_plan)
        _same_settings(a, previous)
        _same_inputs(a, previous)
        p = extend(previous, a.budget)
    else:
        if a.run is None:
            raise ValueError("--run is required for a new plan (its topics and documents are the pool); only "
                             "--continue PLAN goes without it")
        pool, _ = _pool(a)
        p = plan(pool, budget=a.budget, measure=a.measure or "err", method=a.method or "active",
                 seed=0 if a.seed is None else a.seed, epsilon=a.epsilon)
        previous = None
    write_plan(a.out, p)
    n_new = p.labelled.size - (previous.labelled.size if previous is not None else 0)
    how = ("the budget covers the whole pool: every query is labelled" if p.whole_pool else
           f"{p.draws.size} draws, largest importance weight {p.settings['max_weight']:.4g} (epsilon "
           f"{p.settings['epsilon']:g})")
    _log(f"plan {a.out}: {p.labelled.size} of {len(p.qids)} queries to label ({n_new} new), cost "
         f"{p.spent:g} of budget {p.settings['budget']:g} (round {p.settings['rounds']}); {how}")


def _same_settings(a, previous) -> None:
    """--measure, --method, --seed, --epsilon given with --continue must be the plan's."""
    s = previous.settings
    given = {"measure": a.measure, "method": a.method, "seed": a.seed, "epsilon": a.epsilon}
    for key, value in given.items():
        if value is not None and value != s[key]:
            raise ValueError(f"--{key} {value} differs from the plan's {s[key]} ({a.continue_plan}); a continued "
                             "plan keeps its measure, method, seed and epsilon (leave them out)")


def _same_inputs(a, previous) -> None:
    """Inputs given with --continue (none are needed: the plan carries the label model, the costs
    and q) must be those of the plan: the run(s) by their rankings, the label model and costs by
    their values."""
    from evalrank.active.campaign import model_fingerprint
    from evalrank.active.files import rankings_from_trec

    model = [o for o in MODEL_OPTIONS if getattr(a, o) is not None]
    if a.run is None:
        if a.run_b is not None or model:
            raise ValueError("with --continue, give no inputs (the plan has them) or --run (and the label model "
                             "and costs as for the first plan) to check them against the plan")
        return
    if model:
        pool, _ = _pool(a)
        rankings, fp_model = pool, model_fingerprint(pool)
    else:
        rankings, fp_model = rankings_from_trec(a.run, run_b=a.run_b)[0], None
    _same_runs(a.continue_plan, a, previous, rankings)
    if fp_model is not None and fp_model != previous.settings["model"]:
        raise ValueError(f"{a.continue_plan}: the plan was made with another label model or other costs than "
                         f"those given now (--probs/--calibrate-from/--letor, --costs/--lengths)")


def _same_runs(plan_path, a, p, rankings) -> None:
    """The run(s) given are those the plan was made for (their rankings' fingerprint)."""
    from evalrank.active.campaign import rankings_fingerprint

    if rankings.difference != bool(p.settings["difference"]):
        raise ValueError(f"{plan_path}: the plan was made for " +
                         ("two rankers (a difference): give --run-b too" if p.settings["difference"] else
                          "one ranker: leave out --run-b"))
    if rankings_fingerprint(rankings) != p.settings["runs"]:
        runs = a.run if a.run_b is None else f"{a.run} and {a.run_b}"
        raise ValueError(f"{plan_path}: the plan was made for other runs: {runs} rank other documents, or in "
                         "another order, than the run(s) given to 'active plan'")


def cmd_active_estimate(a):
    from evalrank.active.campaign import estimate
    from evalrank.active.files import labels_from_qrels, rankings_from_trec, read_plan
    from evalrank.io import atomic_write_text

    p = read_plan(a.plan)
    rankings, doc_ids = rankings_from_trec(a.run, run_b=a.run_b)
    _same_runs(a.plan, a, p, rankings)
    labels = labels_from_qrels(a.qrels, rankings, doc_ids, p, unjudged=a.unjudged)
    res = estimate(p, rankings, labels, estimator=a.estimator, interval=a.interval, level=a.level)
    text = json.dumps(res, indent=2, sort_keys=False) + "\n"
    if a.out:
        atomic_write_text(a.out, text)
    else:
        print(text, end="")
    for warn in (res["warning"], res["label_model"]["warning"]):
        if warn:
            _log(f"warning: {warn}")
    what = "R[a] - R[b]" if rankings.difference else res["measure"]
    kind = {"cs": "confidence sequence", "betting": "betting confidence sequence", "t": "t interval"}[a.interval]
    _log(f"{what} = {res['estimate']:.4f} ({a.level:.0%} {kind} {res['ci_low']:.4f} .. {res['ci_high']:.4f}; "
         f"{res['estimator']}) from {res['labelled_queries']} labelled queries, cost {res['cost_spent']:g}, "
         f"round {len(res['rounds'])}")


def _pool(a):
    """The campaign's pool from the run(s), the label model and the costs."""
    from evalrank.active.files import calibrated_probs, model_probs, pool_from_trec

    given = [o for o, v in (("--probs", a.probs), ("--calibrate-from", a.calibrate_from), ("--letor", a.letor))
             if v is not None]
    if len(given) != 1:
        raise ValueError("give the label model: --probs FILE, --calibrate-from QRELS or --letor FILE --model MODEL "
                         f"(one of them; got {' '.join(given) or 'none'})")
    if (a.letor is None) != (a.model is None):
        raise ValueError("--letor and --model go together")
    if a.costs and a.lengths:
        raise ValueError("give --costs or --lengths, not both")
    if a.probs:
        probs = a.probs
    elif a.calibrate_from:
        probs = calibrated_probs(a.run, a.calibrate_from, run_b=a.run_b, n_grades=a.grades)
    else:
        probs = model_probs(a.letor, a.model)
    return pool_from_trec(a.run, probs, run_b=a.run_b, costs=a.costs, lengths=a.lengths)


def _run_inputs(s, plan: bool) -> None:
    tail = " (default: none; a new plan needs it, --continue checks it against the plan)" if plan else ""
    s.add_argument("--run", required=not plan, help="TREC run: its topics and documents are the pool, its scores the "
                                                    "ranking (ranker a)" + tail)
    s.add_argument("--run-b", help="a second TREC run over the same topics: estimate R[a] - R[b] (default: one "
                                   "ranker)")


def _inputs(s) -> None:
    """The options of a new plan: the run(s), the label model, the costs."""
    _run_inputs(s, plan=True)
    s.add_argument("--probs", help="label model: one line per run document 'qid docno p_0 p_1 ... p_G' (rows sum "
                                   "to 1, within 1e-3: renormalised; default: --calibrate-from)")
    s.add_argument("--calibrate-from", metavar="QRELS",
                   help="no label model? fit one: an ordered logit from each run's score to the grade, on the run's "
                        "documents these qrels already judge (default: --probs)")
    s.add_argument("--letor", help="a LETOR file of the run's documents ('# docid = ...' comments name them): "
                                   "--model predicts their grade probabilities (default: --probs)")
    s.add_argument("--model", help="with --letor: a model of the zoo saved by the pipeline, e.g. "
                                   "results/synthetic/fold1/models/rf.pkl (default: none)")
    s.add_argument("--grades", type=int, help="with --calibrate-from: grades 0..G-1 (default: the qrels' top + 1)")
    s.add_argument("--costs", help="'qid cost' per line, cost > 0 (default: one unit per query)")
    s.add_argument("--lengths", help="'qid docno length' per run document: Sawade's costs, sum of log(1 + length) "
                                     "over the query's documents, mean 1 (default: --costs)")


def add_parsers(sub) -> None:
    s = sub.add_parser("active", help="active evaluation of your rankers: plan which queries to label, estimate "
                                      "with a confidence interval (Sawade et al. 2012)",
                       description="Active evaluation (Sawade et al. 2012) for your own rankers:\n"
                                   "  evalrank active plan ...      which queries to label under a budget\n"
                                   "  evalrank active estimate ...  DCG/ERR/NDCG (or a difference) with an interval\n"
                                   "'evalrank active plan --help' for the options.")
    act = s.add_subparsers(dest="_active", metavar="plan|estimate", required=True,
                           help="plan: the queries to label; estimate: the measure with an interval")
    p = add_command(act, "plan", cmd_active_plan, "draw the queries to label under a labelling budget",
                    description="Draw the queries to label from the cost-aware distribution q* (Sawade et al. 2012,\n"
                                "eqs. 11-12 with Theorem 3's moments under the label model), floored at epsilon/m\n"
                                "per query, until the budget is spent: a TSV with the label model's predictions per\n"
                                "pool query and one row per draw (the rows with new = 1 are the queries to label).\n"
                                "--continue extends an earlier plan with more budget, keeping all its draws; it\n"
                                "needs only the plan.\n\n"
                                "examples:\n"
                                "  evalrank active plan --run run.txt --probs probs.txt --budget 50 --measure err "
                                "--out plan.tsv\n"
                                "  evalrank active plan --continue plan.tsv --budget 30 --out plan2.tsv")
    _inputs(p)
    p.add_argument("--budget", type=float, required=True,
                   help="labelling budget of this round, in the costs' unit (queries, without --costs)")
    p.add_argument("--measure", help="err, dcg, err@k, dcg@k or ndcg@k (default: err; with --continue the plan's)")
    p.add_argument("--method", choices=["active", "active_uniD", "active_uniC", "passive"],
                   help="active: q* with the label model and costs; active_uniD: a uniform label model; "
                        "active_uniC: uniform costs; passive: uniform sampling (default: active; with --continue "
                        "the plan's)")
    p.add_argument("--seed", type=int, help="seed of the draws (default: 0; with --continue the plan's)")
    p.add_argument("--epsilon", type=float,
                   help="the floor under q*: draw from (1 - epsilon) q* + epsilon/m, so no importance weight "
                        "exceeds 1/epsilon (default: evalrank.active.campaign.DEFAULT_EPSILON; with --continue "
                        "the plan's)")
    p.add_argument("--continue", dest="continue_plan", metavar="PLAN",
                   help="extend this earlier plan by --budget; it needs no other input (default: a new plan)")
    p.add_argument("--out", required=True, help="the plan (TSV), written atomically")
    e = add_command(act, "estimate", cmd_active_estimate, "estimate the measure (or a difference) with an interval",
                    description="Estimate from the labels of a plan's queries: the AIPW estimator (or eq. 6 of\n"
                                "Sawade et al. 2012) with a confidence sequence -- valid at every look, so you may\n"
                                "estimate after each round and stop when it is narrow enough -- the interval after\n"
                                "every round, and a check of the label model (the variance it predicted vs the\n"
                                "squared errors labelling revealed). Needs only the plan, the qrels and the run(s).\n"
                                "JSON on stdout or --out.\n\n"
                                "example:\n"
                                "  evalrank active estimate --plan plan.tsv --qrels labels.txt --run run.txt")
    e.add_argument("--plan", required=True, help="the plan of 'active plan'")
    e.add_argument("--qrels", required=True, help="the labels of the planned queries (TREC qrels)")
    _run_inputs(e, plan=False)
    e.add_argument("--estimator", choices=["aipw", "eq6"], default="aipw",
                   help="aipw: the label model's prediction plus importance-weighted residuals (unbiased); eq6: "
                        "Sawade et al.'s self-normalized mean (the paper's)")
    e.add_argument("--interval", choices=["cs", "t", "betting"], default="cs",
                   help="cs: confidence sequence, valid at every look; t: Student's t, valid once at a budget fixed "
                        "in advance; betting: exact confidence sequence for bounded terms (aipw only)")
    e.add_argument("--level", type=float, default=0.95, help="confidence level of the interval")
    e.add_argument("--unjudged", choices=["error", "nonrelevant"], default="error",
                   help="a document of a planned query the qrels do not judge: stop, or count it non-relevant")
    e.add_argument("--out", help="write the JSON here, atomically (default: stdout)")
