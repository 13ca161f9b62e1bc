"""Active evaluation (Sawade et al. 2012) of your own rankers: the front door's ``evalrank active
plan|estimate`` (a labelling campaign on your own runs, :mod:`evalrank.active.campaign`). The
pipeline's stage commands of the paper's experiment are :mod:`evalrank.papers.sawade2012.stages`.
"""

from __future__ import annotations

import json

from evalrank.cli.common import _log, add_command, same_file

__all__ = ["add_parsers"]


# -- front door: evalrank active plan | estimate ----------------------------------------------
#: the options that give the label model or the costs (a new plan needs a label model; with
#: --continue they are optional, and checked against the plan when given)
MODEL_OPTIONS = ("probs", "calibrate_from", "judge", "letor", "model", "grades", "costs", "lengths")


def _not_an_input(a, outputs, inputs) -> None:
    """Refuse an output option that names one of the command's inputs (writing it would replace
    the input, :func:`evalrank.cli.common.same_file`): the option and the input's option named."""
    for out in outputs:
        target = getattr(a, out)
        if not target:
            continue
        for name in inputs:
            given = getattr(a, name, None)
            if given and same_file(target, given):
                raise ValueError(f"--{out.replace('_', '-')} {target} is the input of --{name.replace('_', '-')}: "
                                 "writing it would replace that input; write elsewhere")


def cmd_active_plan(a):
    from evalrank.active.campaign_plan import extend, plan
    from evalrank.active.files import read_plan, write_plan

    _not_an_input(a, ("out", "new_queries"), ("continue_plan", "run", "run_b", "qrels",
                                              *(o for o in MODEL_OPTIONS if o != "grades")))
    if a.out and a.new_queries and same_file(a.out, a.new_queries):
        raise ValueError(f"--new-queries {a.new_queries} is also --out: give two files")

    mix = shape = None
    if a.continue_plan:
        previous = read_plan(a.continue_plan)
        _same_settings(a, previous)
        _same_inputs(a, previous)
        mix, shape = _round_from_labels(a, previous)
        p = extend(previous, a.budget, mix=mix, shape=shape)
    else:
        if a.qrels:
            raise ValueError("--qrels goes with --continue PLAN: the labels of that plan's queries correct q for "
                             "the next round")
        if a.run is None:
            raise ValueError("--run is required for a new plan (its topics and documents are the pool); only "
                             "--continue PLAN goes without it")
        pool, _ = _pool(a)
        p = plan(pool, budget=a.budget, measure=a.measure or "err", method=a.method or "active",
                 seed=0 if a.seed is None else a.seed, epsilon=a.epsilon)
        previous = None
    before = set() if previous is None else {previous.qids[i] for i in previous.labelled.tolist()}
    new = [p.qids[i] for i in p.labelled.tolist() if p.qids[i] not in before]
    write_plan(a.out, p)
    if a.new_queries:
        from evalrank.io import atomic_write_text

        atomic_write_text(a.new_queries, "".join(f"{q}\n" for q in new))
    n_new = len(new)
    how = ("the budget covers the whole pool: every query is labelled" if p.whole_pool else
           f"{p.draws.size} draws, largest importance weight {p.settings['max_weight']:.4g} (epsilon "
           f"{p.settings['epsilon']:g})")
    _log(f"plan {a.out}: {p.labelled.size} of {len(p.qids)} queries to label ({n_new} new), cost "
         f"{p.spent:g} of budget {p.settings['budget']:g} (round {p.settings['rounds']}); {how}")
    if mix is not None:
        _log(f"this round draws from q with {mix:.0%} uniform sampling mixed in, its control variate keeping "
             f"{shape:.0%} of the label model's differences between queries (chosen from the "
             f"{previous.labelled.size} labelled queries: the smallest variance per unit of cost)")
    elif previous is not None and not previous.whole_pool:
        _log("this round draws from the plan's q as before; give --run and --qrels (the labels so far) to let "
             "the labels correct it: a label model that misleads then costs less, and the interval rests on "
             "rounds the labels checked")
    shown = " ".join(new[:20]) + (f" ... ({n_new - 20} more)" if n_new > 20 else "")
    _log(f"new queries to label in this round: {shown or 'none'}"
         + (f" (all {n_new} in {a.new_queries})" if a.new_queries else " (--new-queries FILE writes them, one a line)"))


def _round_from_labels(a, previous):
    """With --qrels: the next round's share of uniform sampling and share of the label model's
    shape in the control variate, chosen from the labels of the plan's queries
    (:func:`evalrank.active.adapt.choose_round`); (None, None) without."""
    if not a.qrels:
        return None, None
    from evalrank.active.adapt import choose_round
    from evalrank.active.campaign_estimate import query_values
    from evalrank.active.files import labels_from_qrels, rankings_from_trec

    if a.run is None:
        raise ValueError("--qrels needs --run (and --run-b for a difference): the labels are scored on the run's "
                         "rankings")
    rankings, doc_ids = rankings_from_trec(a.run, run_b=a.run_b)
    _same_runs(a.continue_plan, a, previous, rankings)
    labels = labels_from_qrels(a.qrels, rankings, doc_ids, previous)
    return choose_round(previous, query_values(previous, rankings, labels))


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
    from evalrank.active.campaign_state import model_fingerprint
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
    from evalrank.active.campaign_state import rankings_fingerprint

    if rankings.difference != bool(p.settings["difference"]):
        raise ValueError(f"{plan_path}: the plan was made for " +
                         ("two rankers (a difference): give --run-b too" if p.settings["difference"] else
                          "one ranker: leave out --run-b"))
    if rankings_fingerprint(rankings) != p.settings["runs"]:
        runs = a.run if a.run_b is None else f"{a.run} and {a.run_b}"
        raise ValueError(f"{plan_path}: the plan was made for other runs: {runs} rank other documents, or in "
                         "another order, than the run(s) given to 'active plan'")


def cmd_active_estimate(a):
    from evalrank.active.campaign_estimate import estimate
    from evalrank.active.files import labels_from_qrels, rankings_from_trec, read_plan
    from evalrank.io import atomic_write_text

    _not_an_input(a, ("out",), ("plan", "qrels", "run", "run_b"))
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
    from evalrank.active.files import calibrated_probs, judge_probs, model_probs, pool_from_trec
    from evalrank.extras import require

    given = [o for o, v in (("--probs", a.probs), ("--calibrate-from", a.calibrate_from), ("--letor", a.letor),
                            ("--judge", a.judge)) if v is not None]
    if given == ["--calibrate-from", "--judge"]:
        given = ["--judge"]      # the judge's confusion matrix, estimated on the reference judgments
    if len(given) != 1:
        raise ValueError("give the label model: --probs FILE, --calibrate-from QRELS, --judge QRELS (with "
                         "--calibrate-from as its reference, if you have one) or --letor FILE --model MODEL (one of "
                         f"them; got {' '.join(given) or 'none'})")
    if (a.letor is None) != (a.model is None):
        raise ValueError("--letor and --model go together")
    if a.costs and a.lengths:
        raise ValueError("give --costs or --lengths, not both")
    if a.probs:
        probs = a.probs
    elif a.judge:
        probs = judge_probs(a.run, a.judge, run_b=a.run_b, n_grades=a.grades, reference=a.calibrate_from)
    elif a.calibrate_from:
        require("--calibrate-from", modules=("sklearn", "mord", "threadpoolctl"))  # mord's ordered logit
        probs = calibrated_probs(a.run, a.calibrate_from, run_b=a.run_b, n_grades=a.grades)
    else:
        require("--model")  # the zoo: any of its learners, and skops for the file
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
                        "documents these qrels already judge (needs pip install 'evalrank[models]'; default: --probs)")
    s.add_argument("--judge", metavar="QRELS",
                   help="a cheap judge's grade of every run document (TREC qrels: an LLM's, a crowd's, a heuristic's): "
                        "its grade probabilities are its confusion matrix, estimated on the documents --calibrate-from "
                        "QRELS also judges, or without them the judge's grade with probability 0.6 (the estimate "
                        "recalibrates the model on the labels; the interval does not depend on it) (default: --probs)")
    s.add_argument("--letor", help="a LETOR file of the run's documents ('# docid = ...' comments name them): "
                                   "--model predicts their grade probabilities (default: --probs)")
    s.add_argument("--model", help="with --letor: a model of the zoo saved by the pipeline, e.g. "
                                   "results/synthetic/fold1/models/rf.skops (a skops file: read as data, a type "
                                   "that is not the zoo's is refused, so it runs no code; needs pip install "
                                   "'evalrank[models]') (default: none)")
    s.add_argument("--grades", type=int, help="with --calibrate-from or --judge: grades 0..G-1 (default: the qrels' "
                                              "top + 1)")
    s.add_argument("--costs", help="'qid cost' per line, cost > 0 (default: one unit per query)")
    s.add_argument("--lengths", help="'qid docno length' per run document: Sawade's costs, sum of log(1 + length) "
                                     "over the query's documents, mean 1 (default: --costs)")


def add_parsers(sub) -> None:
    s = sub.add_parser("active", help="active evaluation of your rankers: plan which queries to label, estimate "
                                      "with a confidence interval (Sawade et al. 2012)",
                       description="Active evaluation (Sawade et al. 2012) for your own rankers:\n"
                                   "  evalrank active plan ...      which queries to label under a budget\n"
                                   "  evalrank active estimate ...  DCG/ERR/NDCG (or a difference) with an interval\n"
                                   "'evalrank active plan --help' for the options.\n\n"
                                   "examples:\n"
                                   "  evalrank active plan --run run.txt --probs probs.txt --budget 50 --out plan.tsv "
                                   "--new-queries to_label.txt\n"
                                   "  evalrank active estimate --plan plan.tsv --qrels labels.qrels --run run.txt\n"
                                   "  evalrank active plan --continue plan.tsv --run run.txt --qrels labels.qrels "
                                   "--budget 30 --out plan2.tsv")
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
                                "  evalrank active plan --continue plan.tsv --budget 30 --out plan2.tsv "
                                "--new-queries to_label2.txt\n"
                                "  evalrank active plan --continue plan.tsv --run run.txt --qrels labels.qrels "
                                "--budget 30 --out plan2.tsv")
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
    p.add_argument("--qrels", metavar="LABELS",
                   help="with --continue and --run: the labels of the plan's queries so far; they choose how much "
                        "uniform sampling the next round mixes into q and how much its estimate leans on the label "
                        "model (a label model that misleads then costs less; the interval holds either way) "
                        "(default: the previous round's q)")
    p.add_argument("--out", required=True, help="the plan (TSV), written atomically")
    p.add_argument("--new-queries", metavar="FILE",
                   help="write the queries new in this round, one qid a line: the ones to send to the annotators "
                        "(default: stderr lists them)")
    e = add_command(act, "estimate", cmd_active_estimate, "estimate the measure (or a difference) with an interval",
                    description="Estimate from the labels of a plan's queries: by default the pool as a finite\n"
                                "population -- each labelled query known exactly, the label model recalibrated on\n"
                                "the labels as a control variate -- with a confidence sequence valid at every look\n"
                                "that does not rest on the model's variances, so you may estimate after each round\n"
                                "and stop when it is narrow enough (or AIPW / Hajek / eq. 6 of Sawade et al. 2012,\n"
                                "--estimator); the interval after\n"
                                "every round, and a check of the label model (the variance it predicted vs the\n"
                                "squared errors labelling revealed). Needs only the plan, the qrels and the run(s).\n"
                                "JSON on stdout or --out.\n\n"
                                "examples:\n"
                                "  evalrank active estimate --plan plan.tsv --qrels labels.txt --run run.txt\n"
                                "  evalrank active estimate --plan plan.tsv --qrels labels.txt --run run.txt "
                                "--run-b other.txt --out estimate.json")
    e.add_argument("--plan", required=True, help="the plan of 'active plan'")
    e.add_argument("--qrels", required=True, help="the labels of the planned queries (TREC qrels)")
    _run_inputs(e, plan=False)
    e.add_argument("--estimator", choices=["auto", "aipw", "hajek", "eq6", "finite"], default="auto",
                   help="auto: finite with the confidence sequence (the default), with --interval t hajek for one "
                        "ranker and aipw for a difference of two; aipw: the label model's prediction plus importance-weighted residuals "
                        "(unbiased); hajek: the same with the weights normalized to sum to 1; eq6: Sawade et al.'s "
                        "self-normalized mean (the paper's); finite: the pool as a finite population -- each "
                        "labelled query known exactly, the label model recalibrated on the labels, a confidence "
                        "sequence exact for the first looks that does not rest on the model's variances "
                        "(evalrank.active.finite)")
    e.add_argument("--interval", choices=["cs", "t", "betting"], default="cs",
                   help="cs: confidence sequence, valid at every look; t: Student's t, valid once at a budget fixed "
                        "in advance; betting: exact confidence sequence for bounded terms (aipw only)")
    e.add_argument("--level", type=float, default=0.95, help="confidence level of the interval")
    e.add_argument("--unjudged", choices=["error", "nonrelevant"], default="error",
                   help="a document of a planned query the qrels do not judge: stop, or count it non-relevant")
    e.add_argument("--out", help="write the JSON here, atomically (default: stdout)")
