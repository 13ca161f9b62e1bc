"""The ``evalrank stage`` commands of Dinçer et al. (2016)'s experiments
(``workflow/rules/dincer2016.smk``): the worked example (Tables 4-5), a population on our data
(Table 6) and risk-sensitive LambdaMART (Table 7). Table 6's writer and options are shared with
the front door's ``evalrank risk`` (:mod:`evalrank.cli.risk`).

Defaults: see :mod:`evalrank.cli` -- an option carrying a config value is required.
"""

from __future__ import annotations

import json
import time

from evalrank.cli.common import _log, add_command, parallel_lists

__all__ = ["TITLE", "add_stage_parsers", "table6_args"]

TITLE = "risk (workflow/rules/dincer2016.smk)"


def cmd_risk_example(a):
    from evalrank.papers.dincer2016.example import example_files

    example_files(matrix=a.matrix, printed4=a.printed4, printed5=a.printed5, out_dir=a.out_dir, log=_log)


def cmd_risk_population(a):
    from evalrank.papers.dincer2016.systems import population_files

    population_files(train=a.train, test=a.test, features=a.features, objectives=a.objectives, n_seeds=a.seeds,
                     train_fractions=a.train_fractions, feature_shares=a.feature_shares,
                     lgb_params=json.loads(a.lgb_params), models=a.models, measure=a.measure, max_grade=a.max_grade,
                     seed=a.seed, threads=a.threads, output=a.output, table=a.table, log=_log)


def cmd_risk_table6(a):
    from evalrank.papers.dincer2016.tables import table6_files

    table6_files(a.population, out_dir=a.out_dir, baseline=a.baseline, alphas=a.alphas, top=a.top, measure=a.measure,
                 zero_totals=a.zero_totals, log=_log)


def _risk_protocol(a):
    """The pooled partitions and Sec. 6.1's query split, the same in every risk-learning job."""
    from evalrank.papers.dincer2016.tables import risk_protocol

    return risk_protocol(a.partitions, holdout=a.holdout, n_folds=a.n_folds, seed=a.seed)


def cmd_risk_baseline(a):
    from evalrank.models.zoo import make_model, save_model

    pool, split = _risk_protocol(a)
    train, vali = pool.select_queries(split["baseline_train"]), pool.select_queries(split["baseline_vali"])
    model = make_model(a.learner, convention=a.convention, **json.loads(a.params))
    t0 = time.perf_counter()
    model.fit(train, vali, grid=json.loads(a.grid), seed=a.seed, n_jobs=a.threads)
    _log(f"baseline {a.learner}: {train.n_queries} train / {vali.n_queries} vali queries, "
         f"{time.perf_counter() - t0:.1f} s, vali NDCG@10 {model.best_vali_ndcg10_:.4f}")
    save_model(model, a.output)


def cmd_risk_learn(a):
    from evalrank.papers.dincer2016.risk_lambdamart import learn_file, learn_files

    learners = parallel_lists({"--method": a.method, "--alpha": a.alpha, "--output": a.output}, "learners")
    kw = dict(partitions=a.partitions, holdout=a.holdout, n_folds=a.n_folds, seed=a.seed, convention=a.convention,
              fold=a.fold, baseline_feature=a.baseline_feature, baselines=a.baselines, params=json.loads(a.params),
              threads=a.threads, log=_log)
    if len(a.method) == 1:
        learn_file(method=a.method[0], alpha=a.alpha[0], output=a.output[0], **kw)
    else:  # several learners of the fold in one process (one start-up, one data load, one baseline scoring)
        learn_files(learners=learners, **kw)


def cmd_risk_table7(a):
    from evalrank.papers.dincer2016.tables import table7_files

    table7_files(partitions=a.partitions, holdout=a.holdout, n_folds=a.n_folds, seed=a.seed, convention=a.convention,
                 folds=a.folds, baselines=a.baselines, baseline_feature=a.baseline_feature, runs=a.runs,
                 loss_threshold=a.loss_threshold, out_dir=a.out_dir, log=_log)


def table6_args(s, defaults: bool) -> None:
    """Table 6's options: the paper's values for ``risk``; required for ``risk-table6``, whose
    rule passes dincer2016.population.*."""
    def opt(value, key):
        if defaults:
            return {"default": value}, ""
        return {"required": True}, f" (dincer2016.population.{key})"

    kw, key = opt("err@20", "measure")
    if defaults:  # the front door's -m, as evaluate's and compare's; --measure kept for one release
        s.add_argument("-m", dest="measure", metavar="MEASURE", **kw,
                       help="per-topic measure: err@k, ndcg@k or any measure of 'evalrank evaluate' "
                            "(map, ndcg_cut.20, ...)")
        s.add_argument("--measure", dest="old_measure", metavar="MEASURE",
                       help="deprecated, removed in the next release: use -m (default: -m's value)")
    else:
        s.add_argument("--measure", **kw, help="per-topic measure: err@k or ndcg@k" + key)
    kw, key = opt([0, 1, 5, 10, 20], "alphas")
    s.add_argument("--alphas", type=float, nargs="+", **kw,
                   help="risk weights alpha of the table's columns; Fig. 3 runs over 0..max" + key)
    kw, key = opt(8, "top")
    s.add_argument("--top", type=int, **kw, help="systems shown: the best by mean (+ the baseline)" + key)


def _protocol_args(s) -> None:
    """Sec. 6.1's protocol options, shared by risk-baseline, risk-learn and risk-table7."""
    s.add_argument("--partitions", nargs="+", required=True, help="all query partitions (.npz), pooled")
    s.add_argument("--holdout", type=float, required=True,
                   help="share of the queries that pre-trains the learned baselines (dincer2016.learning.holdout)")
    s.add_argument("--n-folds", type=int, required=True, help="parts of the other queries (dincer2016.learning.n_folds)")
    s.add_argument("--seed", type=int, required=True, help="the config's seed")
    s.add_argument("--convention", required=True,
                   help="NDCG preset for training and Table 7 (dincer2016.learning.convention)")


def _risk_example_parser(sub) -> None:
    s = add_command(sub, "risk-example", cmd_risk_example,
                    "Dinçer et al. 2016 Tables 4-5 and Figs. 1-2 from Table 3's matrix")
    s.add_argument("--matrix", required=True, help="systems x topics CSV (dincer2016.example.matrix)")
    s.add_argument("--printed4", required=True, help="Table 4 as printed in the paper, CSV (dincer2016.example.printed4)")
    s.add_argument("--printed5", required=True, help="Table 5 as printed in the paper, CSV (dincer2016.example.printed5)")
    s.add_argument("--out-dir", required=True, help="folder of the tables and figures")


def _risk_population_parser(sub) -> None:
    s = add_command(sub, "risk-population", cmd_risk_population,
                    "train a population of systems, per-query scores on a test set")
    s.add_argument("--train", required=True, help="training half of the fold (.npz)")
    s.add_argument("--test", required=True, help="the test partition (.npz): its queries are the topics")
    s.add_argument("--models", nargs="*", help="fitted pipeline models (skops files) to add to the population "
                                               "(default: none)")
    s.add_argument("--features", type=int, nargs="+", required=True,
                   help="1-based feature ids used as rankers (dincer2016.population.features)")
    s.add_argument("--objectives", nargs="+", required=True, help="LightGBM objectives (dincer2016.population.objectives)")
    s.add_argument("--seeds", type=int, required=True, help="LightGBM replicates per variant (dincer2016.population.seeds)")
    s.add_argument("--train-fractions", type=float, nargs="+", required=True,
                   help="shares of the training queries (dincer2016.population.train_fractions)")
    s.add_argument("--feature-shares", type=float, nargs="+", required=True,
                   help="shares of the features (dincer2016.population.feature_shares)")
    s.add_argument("--lgb-params", required=True, help="JSON of LightGBM's parameters (dincer2016.population.lightgbm)")
    s.add_argument("--measure", required=True, help="per-topic measure (dincer2016.population.measure)")
    s.add_argument("--max-grade", type=int, required=True, help="highest relevance grade (dataset.max_grade)")
    s.add_argument("--seed", type=int, required=True, help="the config's seed")
    s.add_argument("--threads", type=int, required=True, help="LightGBM's threads (dincer2016.population.threads)")
    s.add_argument("--output", required=True, help=".npz: names, kinds, topics, X (systems x topics)")
    s.add_argument("--table", required=True, help="CSV: one row per system")


def _risk_table6_parser(sub) -> None:
    s = add_command(sub, "risk-table6", cmd_risk_table6,
                    "Table 6, observations and Fig. 3 of a population (risk-population)")
    s.add_argument("--population", required=True, help="population.npz of risk-population")
    s.add_argument("--out-dir", required=True, help="folder of the tables and Fig. 3")
    s.add_argument("--baseline", required=True,
                   help="name of the single baseline system, f<id> (dincer2016.population.baseline_feature)")
    table6_args(s, defaults=False)
    # risk-population already dropped the topics where every system scores 0 (and logged them)
    s.set_defaults(zero_totals="ignore")


def _risk_baseline_parser(sub) -> None:
    s = add_command(sub, "risk-baseline", cmd_risk_baseline,
                    "pre-train one learned baseline on the held-out queries (Sec. 6.1)")
    _protocol_args(s)
    s.add_argument("--learner", required=True, help="the learner (dincer2016.learning.baselines)")
    s.add_argument("--params", required=True, help="JSON of the learner's parameters "
                                                   "(dincer2016.learning.baseline_params.<learner>)")
    s.add_argument("--grid", default="{}", help="JSON {param: [values]} tuned on the validation queries "
                                                "({} = no search; no config key)")
    s.add_argument("--threads", type=int, required=True, help="threads of the fit (dincer2016.learning.threads)")
    s.add_argument("--output", required=True, help="the fitted baseline (a skops file, .skops)")


def _risk_learn_parser(sub) -> None:
    s = add_command(sub, "risk-learn", cmd_risk_learn, "LambdaMART or a risk-sensitive variant on one fold (Sec. 6)")
    _protocol_args(s)
    s.add_argument("--fold", type=int, required=True, help="the fold (dincer2016.learning.folds)")
    s.add_argument("--method", nargs="+", required=True,
                   help="lambdamart, u-cro, t-saro, t-faro, t*-faro or georisk (dincer2016.learning.methods); "
                        "several: one learner each, with --alpha and --output in the same order")
    s.add_argument("--alpha", type=float, nargs="+", required=True,
                   help="the risk weight of each --method (dincer2016.learning.alphas; 0 for lambdamart)")
    s.add_argument("--baseline-feature", type=int, required=True,
                   help="1-based feature id of the single baseline (dincer2016.learning.baseline_feature)")
    s.add_argument("--baselines", nargs="*", help="fitted learned baselines (skops files) for t*-faro and georisk "
                                                  "(default: none)")
    s.add_argument("--params", required=True, help="JSON of LambdaMART's parameters (dincer2016.learning.params)")
    s.add_argument("--threads", type=int, required=True, help="threads of the fit (dincer2016.learning.threads)")
    s.add_argument("--output", nargs="+", required=True,
                   help="fold<k>.npz of each --method: qids, ndcg10, scores")


def _risk_table7_parser(sub) -> None:
    s = add_command(sub, "risk-table7", cmd_risk_table7, "Table 7 from the per-fold runs (Sec. 6.2)")
    _protocol_args(s)
    s.add_argument("--folds", type=int, nargs="+", required=True, help="dincer2016.learning.folds")
    s.add_argument("--baselines", nargs="+", required=True, help="the learned baselines (skops files)")
    s.add_argument("--baseline-feature", type=int, required=True,
                   help="1-based feature id of the single baseline (dincer2016.learning.baseline_feature)")
    s.add_argument("--runs", nargs="+", required=True, help="runs/<learner>/fold<f>.npz of risk-learn")
    s.add_argument("--loss-threshold", type=float, required=True,
                   help="Table 7's big losses, 'L > 20%%' (dincer2016.learning.loss_threshold)")
    s.add_argument("--out-dir", required=True, help="folder of table7.csv and per_query_ndcg10.csv")


def add_stage_parsers(sub) -> None:
    _risk_example_parser(sub)
    _risk_population_parser(sub)
    _risk_table6_parser(sub)
    _risk_baseline_parser(sub)
    _risk_learn_parser(sub)
    _risk_table7_parser(sub)
