"""The ``evalrank stage`` commands of Sawade et al. (2012)'s experiment
(``workflow/rules/sawade2012.smk``): q* of every method for one experiment and fold, Monte Carlo
shards of Algorithm 1 (with every run's standard error), and the merged curves, savings table,
Figs. 1-3, the interval's coverage study and the label-model check.

Defaults: see :mod:`evalrank.cli` -- an option carrying a config value is required.
"""

from __future__ import annotations

from evalrank.cli.common import _log, add_command, named_paths

__all__ = ["TITLE", "add_stage_parsers"]

TITLE = "active evaluation (workflow/rules/sawade2012.smk)"


def cmd_active_setup(a):
    from evalrank.papers.sawade2012.experiments import setup_file

    setup_file(a.experiment, models=a.models, drop=a.drop, base_pairs=a.base_pairs, base_model=a.base_model,
               sizes=a.sizes, predictions=named_paths(a.predictions, "--predictions"), pool=a.pool, cost_feature=a.cost_feature,
               measures=a.measures, max_grade=a.max_grade, seed=a.seed, fold=a.fold, output=a.output, log=_log,
               calibrated=a.calibrated or (),
               vali_predictions=named_paths(a.vali_predictions, "--vali-predictions") if a.vali_predictions else None,
               swap_predictions=named_paths(a.swap_predictions, "--swap-predictions") if a.swap_predictions else None)


def cmd_active_mc(a):
    from evalrank.papers.sawade2012.montecarlo import shard_file

    shard_file(a.setup, budgets=a.budgets, repetitions=a.repetitions, shard=a.shard, shards=a.shards, seed=a.seed,
               campaign_repetitions=a.campaign_repetitions, rounds_repetitions=a.rounds_repetitions,
               campaign_budgets=a.campaign_budgets,
               epsilons=a.epsilons, tune_budget=a.tune_budget, level=a.level, output=a.output, log=_log)


def cmd_active_summary(a):
    from evalrank.papers.sawade2012.report import summary_files

    summary_files(setups=a.setups, shards=a.shards, reference_budget=a.reference_budget,
                  train_size_budget=a.train_size_budget, level=a.level, out_dir=a.out_dir, log=_log)


def add_stage_parsers(sub) -> None:
    def experiment_args(s):
        s.add_argument("--experiment", required=True, help="the experiment's name, e.g. fig1_rf")
        s.add_argument("--models", nargs="+", required=True, help="names of the trained models (models.names)")
        s.add_argument("--drop", type=float, required=True,
                       help="index update: share of each list removed (sawade2012.index_update_drop)")
        s.add_argument("--base-pairs", type=int, required=True,
                       help="training pairs of Fig. 3's base RF (sawade2012.train_sizes.base)")
        s.add_argument("--base-model", help="prediction name of Fig. 3's base RF (default: rf_n<base-pairs>)")
        s.add_argument("--sizes", type=int, nargs="*",
                       help="training pairs of Fig. 3's larger RFs (sawade2012.train_sizes.sizes; default: none)")

    s = add_command(sub, "active-setup", cmd_active_setup,
                    "q* of every method, costs and the truth for one experiment and fold")
    experiment_args(s)
    s.add_argument("--predictions", nargs="+", required=True, help="name=path of pool predictions")
    s.add_argument("--pool", nargs="+", required=True, help="the pool partitions (.npz), in prediction order")
    s.add_argument("--cost-feature", type=int, help="1-based feature id of the document length "
                                                    "(sawade2012.cost_feature; default: none, every query costs one unit)")
    s.add_argument("--measures", nargs="+", required=True, choices=["err", "dcg"], help="sawade2012.measures")
    s.add_argument("--max-grade", type=int, required=True, help="highest relevance grade (dataset.max_grade)")
    s.add_argument("--seed", type=int, required=True, help="the config's seed")
    s.add_argument("--fold", type=int, required=True, help="the fold whose models and pool these are")
    s.add_argument("--calibrated", nargs="*",
                   help="models whose Fig. 1 experiment has a calibrated twin, fig1_<model>_calibrated "
                        "(sawade2012.calibrated; default: none)")
    s.add_argument("--vali-predictions", nargs="*",
                   help="name=path of the model's predictions on the fold's validation queries (a calibrated "
                        "experiment's label model is fitted there; default: none, which a calibrated experiment refuses)")
    s.add_argument("--swap-predictions", nargs="*",
                   help="name=path of the swapped model's predictions on the fold's training half (the learner "
                        "refitted on the validation half with the model's tuned hyperparameters): the calibrated "
                        "label model is fitted on both halves, cross-fitted (sawade2012.crossfit; default: none, "
                        "the validation half alone)")
    s.add_argument("--output", required=True, help="setup.npz")

    s = add_command(sub, "active-mc", cmd_active_mc, "Monte Carlo of Algorithm 1: one shard of the repetitions")
    s.add_argument("--setup", required=True, help="setup.npz of active-setup")
    s.add_argument("--budgets", type=float, nargs="+", required=True, help="labelling budgets (sawade2012.budgets)")
    s.add_argument("--repetitions", type=int, required=True, help="runs over all shards (sawade2012.repetitions)")
    s.add_argument("--shard", type=int, required=True, help="this shard, 0..shards-1")
    s.add_argument("--shards", type=int, required=True, help="shards the repetitions are split into (sawade2012.shards)")
    s.add_argument("--seed", type=int, required=True, help="the config's seed")
    s.add_argument("--campaign-repetitions", type=int, required=True,
                   help="campaigns of the labelling tool's coverage study over all shards (sawade2012.campaign.repetitions; "
                        "0: no study)")
    s.add_argument("--rounds-repetitions", type=int, required=True,
                   help="of those campaigns, how many (spread evenly) also run continued with the labels at each budget "
                        "(sawade2012.campaign.rounds_repetitions; 0: none)")
    s.add_argument("--campaign-budgets", type=float, nargs="+", required=True,
                   help="budgets the study looks at (sawade2012.campaign.budgets)")
    s.add_argument("--epsilons", type=float, nargs="+", required=True,
                   help="floors under q* the study compares (sawade2012.campaign.epsilons)")
    s.add_argument("--tune-budget", type=float, required=True,
                   help="budget whose draws tune the confidence sequence (sawade2012.campaign.tune_budget)")
    s.add_argument("--level", type=float, required=True, help="nominal level of the intervals (sawade2012.coverage_level)")
    s.add_argument("--output", required=True, help="shard<k>.npz")

    s = add_command(sub, "active-summary", cmd_active_summary,
                    "merge shards: curves, savings, Figs. 1-3, the interval's coverage, the label-model check")
    s.add_argument("--setups", nargs="+", required=True, help="setup.npz of every fold and experiment")
    s.add_argument("--shards", nargs="+", required=True, help="shard<k>.npz of every fold and experiment")
    s.add_argument("--reference-budget", type=float, required=True,
                   help="budget of the savings table (sawade2012.reference_budget)")
    s.add_argument("--train-size-budget", type=float, required=True,
                   help="budget of Fig. 3 right (sawade2012.train_sizes.budget)")
    s.add_argument("--level", type=float, required=True,
                   help="nominal level of the intervals of the coverage study (sawade2012.coverage_level)")
    s.add_argument("--out-dir", required=True, help="folder of curves.csv, savings.csv, coverage.csv, "
                                                    "label_model_check.csv and the figures")
