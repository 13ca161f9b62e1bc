"""The ``evalrank stage`` commands of Busa-Fekete et al. (2012)'s NDCG-conventions study
(``workflow/rules/busafekete2012.smk``): ``ndcg-train``, ``ndcg-report``, ``ndcg-audit``.

Defaults: see :mod:`evalrank.cli` -- an option carrying a config value is required.
"""

from __future__ import annotations

import json
from pathlib import Path

from evalrank.cli.common import _log, add_command, parallel_lists, partition_map as _partition_map

__all__ = ["TITLE", "add_stage_parsers"]

TITLE = "NDCG conventions (workflow/rules/busafekete2012.smk)"


def _per_learner(one, by, single: str, keyed: str, learners: list) -> dict:
    """{learner: value} from option ``single`` (``--grid``/``--params``: ``one``, a JSON for every
    learner) or else from option ``keyed`` (``--grids``/``--learner-params``: ``by``, a JSON keyed by
    learner, each learner named)."""
    if one is not None:
        value = json.loads(one)
        if not isinstance(value, dict):
            raise ValueError(f"{single} must be a JSON mapping, got {one!r}")
        return {learner: value for learner in learners}
    value = json.loads(by)
    if not isinstance(value, dict) or not all(isinstance(v, dict) for v in value.values()):
        raise ValueError(f"{keyed} must be a JSON mapping of learner -> mapping, got {by!r}")
    missing = sorted(set(learners) - set(value))
    if missing:
        raise ValueError(f"{keyed} names no entry for learner(s) {missing} (give {{}} for none)")
    return value


def cmd_ndcg_train(a):
    from evalrank.papers.busafekete2012.runs import train_fold

    named = parallel_lists({"--learner": a.learner, "--convention": a.convention, "--output": a.output}, "runs")
    grids = _per_learner(a.grid, a.grids, "--grid", "--grids", a.learner)
    params = _per_learner(a.params, a.learner_params, "--params", "--learner-params", a.learner)
    runs = [(lr, conv, grids[lr], params[lr], out) for lr, conv, out in named]
    # one process, one data load and one fold split for all the runs (the rule: one job per fold)
    train_fold(_partition_map(a.partitions), a.fold, runs, max_train_queries=a.max_train_queries, seed=a.seed,
               n_jobs=a.threads, log=_log)


def cmd_ndcg_report(a):
    from evalrank import io
    from evalrank.papers.busafekete2012 import report
    from evalrank.papers.busafekete2012.runs import load_run
    from evalrank.papers.busafekete2012.plots import plot_fig1, plot_fig2

    out = Path(a.out_dir)
    runs = [tuple(reversed(load_run(p))) for p in a.runs]
    pq = report.per_query(runs, max_k=a.k)
    cur = report.curves(pq)
    io.write_table(cur, out / "curves.csv")
    io.write_table(pq[pq["k"] == a.k], out / f"per_query_ndcg{a.k}.csv")
    order = report.ordering(pq, train_convention=a.reference, reference=a.reference, k=a.k)
    io.write_table(order, out / "ordering.csv")
    io.write_table(report.claims(pq, reference=a.reference, k=a.k), out / "claims.csv")
    plot_fig1(cur, a.fig1_learners, a.train_conventions, a.eval_conventions, out / "fig1_by_training_tool.png",
              title="Fig. 1: NDCG@k by evaluation (columns) and training (curves) convention")
    plot_fig2(cur, a.learners, a.reference, a.eval_conventions, out / "fig2_by_evaluation_tool.png",
              title="Fig. 2: six learners trained with trec/ranklib, evaluated with each convention")
    _log("ordering:\n" + order[["eval_convention", "rank", "learner", "mean_ndcg", "p_value"]].to_string(index=False))


def cmd_ndcg_audit(a):
    from evalrank import io
    from evalrank.papers.busafekete2012.audit import audit_table

    table = audit_table()
    io.write_table(table, a.output)
    cols = ["tool", "measure", "gain", "empty", "short", "ties", "precision", "evalrank_preset"]
    _log("tool conventions:\n" + table[cols].to_string(index=False))


def add_stage_parsers(sub) -> None:
    s = add_command(sub, "ndcg-train", cmd_ndcg_train,
                    "Busa-Fekete Sec. 5: train learners under NDCG conventions on one fold (one run each)")
    s.add_argument("--partitions", nargs="+", required=True, help="parsed S1..S5 .npz files")
    s.add_argument("--fold", type=int, required=True, help="the LETOR fold (busafekete2012.folds)")
    s.add_argument("--learner", nargs="+", required=True,
                   help="the learner of each run (busafekete2012.learners); several: one run each, with "
                        "--convention and --output in the same order, trained one after the other on one "
                        "load of the data")
    s.add_argument("--convention", nargs="+", required=True,
                   help="the training convention of each run (busafekete2012.train_conventions)")
    g = s.add_mutually_exclusive_group(required=True)
    g.add_argument("--grid", help="JSON {param: [values]} for every --learner (busafekete2012.grids.<learner>; "
                                  "{} = no search; no default: this or --grids)")
    g.add_argument("--grids", help="JSON {learner: {param: [values]}} naming every --learner "
                                   "(busafekete2012.grids; {} = no search; no default: this or --grid)")
    g = s.add_mutually_exclusive_group(required=True)
    g.add_argument("--params", help="JSON {param: value}: fixed constructor parameters for every --learner "
                                    "(busafekete2012.params.<learner>; no default: this or --learner-params)")
    g.add_argument("--learner-params", help="JSON {learner: {param: value}} naming every --learner "
                                            "(busafekete2012.params; no default: this or --params)")
    s.add_argument("--max-train-queries", type=int, help="random subset of the training queries "
                                                         "(busafekete2012.max_train_queries; default: all)")
    s.add_argument("--seed", type=int, required=True, help="the config's seed")
    s.add_argument("--threads", type=int, required=True, help="threads of the fit (busafekete2012.threads)")
    s.add_argument("--output", nargs="+", required=True,
                   help="the run (.npz; its .json beside it) of each --learner")

    s = add_command(sub, "ndcg-report", cmd_ndcg_report,
                    "Busa-Fekete Figs. 1-2, ordering.csv, claims.csv from the runs")
    s.add_argument("--runs", nargs="+", required=True, help="the runs (.npz) of ndcg-train")
    s.add_argument("--out-dir", required=True, help="folder of the tables and figures")
    s.add_argument("--k", type=int, required=True, help="NDCG@k of the tables (busafekete2012.k)")
    s.add_argument("--reference", required=True, help="the reference convention (busafekete2012.reference)")
    s.add_argument("--learners", nargs="+", required=True, help="Fig. 2's learners (busafekete2012.learners)")
    s.add_argument("--fig1-learners", nargs="+", required=True, help="Fig. 1's learners (busafekete2012.fig1_learners)")
    s.add_argument("--train-conventions", nargs="+", required=True, help="busafekete2012.train_conventions")
    s.add_argument("--eval-conventions", nargs="+", required=True, help="busafekete2012.eval_conventions")

    s = add_command(sub, "ndcg-audit", cmd_ndcg_audit,
                    "run every installed NDCG tool on crafted cases: tool_conventions.csv")
    s.add_argument("--output", required=True, help="tool_conventions.csv")
