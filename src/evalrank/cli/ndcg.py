"""NDCG under a named convention (Busa-Fekete et al. 2012).

Front door: ``evalrank ndcg`` -- NDCG@k of a TREC run, or of a LETOR file and a score per
line, under a convention preset (options override single rules of the preset).

``evalrank stage`` commands of the NDCG-conventions study (``workflow/rules/ndcg.smk``):
``ndcg-train``, ``ndcg-report``, ``ndcg-audit``.

Defaults: see :mod:`evalrank.cli` -- a stage option carrying a config value is required;
``ndcg``'s options have documented defaults.
"""

from __future__ import annotations

import json
from pathlib import Path

from evalrank.cli.common import _log, add_command, partition_map as _partition_map

__all__ = ["TITLE", "add_parsers", "add_stage_parsers"]

TITLE = "NDCG conventions (workflow/rules/ndcg.smk)"

CONVENTIONS = "trec, gdeval, ranklib, letor3, letor4, ms, yahoo, sklearn, lightgbm or xgboost"


def cmd_ndcg_train(a):
    from evalrank.ndcgstudy.folds import letor_fold
    from evalrank.ndcgstudy.runs import save_run, train_and_score

    train, vali, test = letor_fold(_partition_map(a.partitions), a.fold, max_train_queries=a.max_train_queries,
                                   seed=a.seed)
    _log(f"{a.learner} trained with {a.convention} on fold {a.fold}: {train.n_queries} train / "
         f"{vali.n_queries} vali / {test.n_queries} test queries")
    result = train_and_score(a.learner, a.convention, train, vali, test, grid=json.loads(a.grid),
                             params=json.loads(a.params), seed=a.seed, n_jobs=a.threads)
    save_run(a.output, test, result, {"learner": a.learner, "convention": a.convention, "fold": a.fold})
    _log(f"fit {result['fit_seconds']:.1f} s, best {result['best_params']}, vali NDCG@10 {result['vali_ndcg10']:.4f}")


def cmd_ndcg_report(a):
    from evalrank import io
    from evalrank.ndcgstudy import report
    from evalrank.ndcgstudy.runs import load_run
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
    plot_fig1(cur, a.fig1_learners, a.train_conventions, a.eval_conventions, out / "fig1.png",
              title="Fig. 1: NDCG@k by evaluation (columns) and training (curves) convention")
    plot_fig2(cur, a.learners, a.reference, a.eval_conventions, out / "fig2.png",
              title="Fig. 2: six learners trained with trec/ranklib, evaluated with each convention")
    _log("ordering:\n" + order[["eval_convention", "rank", "learner", "mean_ndcg", "p_value"]].to_string(index=False))


def cmd_ndcg_audit(a):
    from evalrank import io
    from evalrank.conformance.audit import audit_table

    table = audit_table()
    io.write_table(table, a.output)
    cols = ["tool", "measure", "gain", "empty", "short", "ties", "precision", "evalrank_preset"]
    _log("tool conventions:\n" + table[cols].to_string(index=False))


def cmd_ndcg(a):
    import numpy as np

    from evalrank.metrics import ndcg

    if a.k < 0:
        raise ValueError(f"-k must be >= 0 (0 = the whole list), got {a.k}")
    cut = a.k or None
    opts = {k: v for k, v in dict(gain=a.gain, empty=a.empty, short=a.short, ties=a.ties,
                                   precision=a.precision).items() if v is not None}
    if opts.get("empty") not in (None, "skip"):
        opts["empty"] = float(opts["empty"])
    if a.qrels or a.run:
        if not (a.qrels and a.run):
            raise ValueError("--qrels and --run go together")
        from evalrank.data.trec import align, read_qrels, read_run

        t = align(read_qrels(a.qrels), read_run(a.run))
        if t.qids.size == 0:
            raise ValueError(f"no query is in both {a.qrels} and {a.run}")
        values = ndcg(t.scores, t.labels, t.offsets, cut, convention=a.convention, doc_ids=t.doc_ids,
                      ideal_labels=t.ideal_labels, ideal_offsets=t.ideal_offsets, **opts)
        qids = t.qids
        notes = [f"{t.unjudged} retrieved document(s) are not in the qrels and count as non-relevant"]
        if t.run_only:
            notes.append(f"{len(t.run_only)} run quer(ies) have no qrels and are not evaluated")
        if t.qrels_only:
            notes.append(f"{len(t.qrels_only)} qrels quer(ies) are not in the run and are not evaluated")
    elif a.letor and a.scores:
        from evalrank.data.letor import read_letor

        c = read_letor(a.letor, show_progress=False)
        scores = np.loadtxt(a.scores, dtype=np.float64, ndmin=1)
        if scores.shape != (c.n_docs,):
            raise ValueError(f"{a.scores} has {scores.size} scores but {a.letor} has {c.n_docs} documents")
        from evalrank.ndcgstudy.runs import run_doc_ids

        values = ndcg(scores, c.labels, c.offsets, cut, convention=a.convention, doc_ids=run_doc_ids(c), **opts)
        qids = c.qids.astype(str)
        notes = []
    else:
        raise ValueError("give --qrels Q --run R, or --letor FILE --scores FILE")
    name = f"ndcg@{a.k}" if a.k else "ndcg"
    mean = float(np.nanmean(values)) if np.any(~np.isnan(values)) else float("nan")
    evaluated = int(np.sum(~np.isnan(values)))
    if a.format == "json":
        print(json.dumps({"measure": name, "convention": a.convention, "options": opts, "mean": mean,
                          "queries": evaluated, "per_query": dict(zip(qids.tolist(), values.tolist())),
                          "notes": notes}, indent=2))
    else:
        for q, v in zip(qids, values):
            print(f"{name}\t{q}\t{v:.6f}")
        print(f"{name}\tall\t{mean:.6f}")
    for n in notes:
        _log(n)




def add_parsers(sub) -> None:
    s = add_command(sub, "ndcg", cmd_ndcg, "NDCG@k of a TREC run (or LETOR file + scores) under a named convention",
                    description="NDCG@k of a TREC run against qrels, or of a LETOR file and one score per line,\n"
                                "under a named convention; one line per query and the mean (TSV), or JSON.\n"
                                "--gain, --empty, --short, --ties and --precision override one rule of the\n"
                                "convention each.")
    s.add_argument("--qrels", help="TREC qrels: qid iter docno rel (the input: --qrels and --run, or --letor "
                                   "and --scores)")
    s.add_argument("--run", help="TREC run: qid Q0 docno rank score tag (with --qrels)")
    s.add_argument("--letor", help="LETOR/SVMlight file: labels + qids (with --scores)")
    s.add_argument("--scores", help="one score per line of --letor")
    s.add_argument("--convention", default="trec", help=f"the preset: {CONVENTIONS}")
    s.add_argument("-k", type=int, default=10, help="cut-off (0 = whole list)")
    s.add_argument("--gain", choices=["exp", "linear"], help="gain of a grade (default: the convention's)")
    s.add_argument("--empty", help="value of queries without relevant documents: a number or 'skip' "
                                   "(default: the convention's)")
    s.add_argument("--short", choices=["pad", "truncate-ideal", "zero"],
                   help="lists shorter than k (default: the convention's)")
    s.add_argument("--ties", choices=["stable", "pessimistic", "optimistic", "docid", "average"],
                   help="order of tied scores (default: the convention's)")
    s.add_argument("--precision", choices=["float32", "float64"], help="score precision (default: the convention's)")
    s.add_argument("--format", choices=["tsv", "json"], default="tsv", help="output on stdout")


def add_stage_parsers(sub) -> None:
    s = add_command(sub, "ndcg-train", cmd_ndcg_train,
                    "Busa-Fekete Sec. 5: train one learner under one NDCG convention")
    s.add_argument("--partitions", nargs="+", required=True, help="parsed S1..S5 .npz files")
    s.add_argument("--fold", type=int, required=True, help="the LETOR fold (ndcg.folds)")
    s.add_argument("--learner", required=True, help="the learner (ndcg.learners)")
    s.add_argument("--convention", required=True, help="the training convention (ndcg.train_conventions)")
    s.add_argument("--grid", required=True, help="JSON {param: [values]} (ndcg.grids.<learner>; {} = no search)")
    s.add_argument("--params", required=True, help="JSON {param: value}: fixed constructor parameters "
                                                    "(ndcg.params.<learner>)")
    s.add_argument("--max-train-queries", type=int, help="random subset of the training queries "
                                                         "(ndcg.max_train_queries; default: all)")
    s.add_argument("--seed", type=int, required=True, help="the config's seed")
    s.add_argument("--threads", type=int, required=True, help="threads of the fit (ndcg.threads)")
    s.add_argument("--output", required=True, help="the run (.npz; its .json beside it)")

    s = add_command(sub, "ndcg-report", cmd_ndcg_report,
                    "Busa-Fekete Figs. 1-2, ordering.csv, claims.csv from the runs")
    s.add_argument("--runs", nargs="+", required=True, help="the runs (.npz) of ndcg-train")
    s.add_argument("--out-dir", required=True, help="folder of the tables and figures")
    s.add_argument("--k", type=int, required=True, help="NDCG@k of the tables (ndcg.k)")
    s.add_argument("--reference", required=True, help="the reference convention (ndcg.reference)")
    s.add_argument("--learners", nargs="+", required=True, help="Fig. 2's learners (ndcg.learners)")
    s.add_argument("--fig1-learners", nargs="+", required=True, help="Fig. 1's learners (ndcg.fig1_learners)")
    s.add_argument("--train-conventions", nargs="+", required=True, help="ndcg.train_conventions")
    s.add_argument("--eval-conventions", nargs="+", required=True, help="ndcg.eval_conventions")

    s = add_command(sub, "ndcg-audit", cmd_ndcg_audit,
                    "run every installed NDCG tool on crafted cases: tool_conventions.csv")
    s.add_argument("--output", required=True, help="tool_conventions.csv")
