"""NDCG under a named convention (Busa-Fekete et al. 2012).

Front door: ``evalrank ndcg`` -- NDCG@k of a TREC run, or of a LETOR file and a score per
line, under a convention preset (options override single rules of the preset). The stage
commands of the paper's study are :mod:`evalrank.papers.busafekete2012.stages`.

``ndcg``'s options have documented defaults.
"""

from __future__ import annotations

import json

from evalrank.cli.common import _log, add_command

__all__ = ["add_parsers"]

from evalrank.metrics.conventions import names_text  # noqa: E402  (the registry of presets)
CONVENTIONS = names_text()  # "trec, gdeval, ..., lightgbm or xgboost", the presets in the registry's order


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
        from evalrank.papers.busafekete2012.runs import run_doc_ids

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
