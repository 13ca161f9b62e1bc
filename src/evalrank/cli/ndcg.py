"""NDCG under a named convention (Busa-Fekete et al. 2012): ``evalrank ndcg``, deprecated.

NDCG@k of a TREC run, or of a LETOR file and a score per line, under a convention preset
(options override single rules of the preset). It folds into ``evaluate``: the values are
those of ``evalrank evaluate -q -m 'ndcg(convention=X,...)@k'`` (computed by the same
:func:`evalrank.evaluation.evaluate.evaluate_trec`), and the command says so on stderr until it
goes in the next release. The stage commands of the paper's study are
:mod:`evalrank.papers.busafekete2012.stages`.

``ndcg``'s options have documented defaults.
"""

from __future__ import annotations

import json

from evalrank.cli.common import _log, add_command

__all__ = ["add_parsers"]

from evalrank.metrics.conventions import names_text  # noqa: E402  (the registry of presets)
CONVENTIONS = names_text()  # "trec, gdeval, ..., lightgbm or xgboost", the presets in the registry's order


def cmd_ndcg(a):
    """``evalrank ndcg``, deprecated: the values of ``evalrank evaluate -q -m 'ndcg(...)@k'``
    (:func:`evalrank.evaluation.evaluate.evaluate_trec`, the one evaluation path), printed as
    this command has always printed them."""
    import numpy as np

    from evalrank.evaluation.evaluate import evaluate_trec

    measure = _measure(a)
    qrels, run = _inputs(a)
    r = evaluate_trec(qrels, {"run": run}, [measure], precision=None, convention=a.convention)[0]
    keep = ~np.asarray(r.missing, dtype=bool)
    _write(a, f"ndcg@{a.k}" if a.k else "ndcg", [q for q, k in zip(r.qids, keep) if k], r.values[keep, 0],
           _notes(qrels, run) if a.qrels else [])
    # last, so that an error stays one line
    _log(f"'evalrank ndcg' is deprecated and goes in the next release; the same values: {_instead(a, measure)}")


def _measure(a) -> str:
    """``evaluate``'s ``-m`` for these options: ``ndcg(convention=X,gain=exp)@10``; a bad option
    fails here, before any file is read."""
    from evalrank.metrics.names import parse_measure

    if a.k < 0:
        raise ValueError(f"-k must be >= 0 (0 = the whole list), got {a.k}")
    opts = dict(convention=a.convention, **_options(a))
    measure = "ndcg(" + ",".join(f"{k}={v}" for k, v in opts.items()) + ")" + (f"@{a.k}" if a.k else "")
    parse_measure(measure)
    return measure


def _options(a) -> dict:
    """The options given beside the convention."""
    opts = {k: v for k, v in dict(gain=a.gain, empty=a.empty, short=a.short, ties=a.ties,
                                   precision=a.precision).items() if v is not None}
    if opts.get("empty") not in (None, "skip"):
        try:
            opts["empty"] = float(opts["empty"])
        except ValueError:
            raise ValueError(f"--empty must be a number or 'skip', got {a.empty!r}") from None
    return opts


def _instead(a, measure: str) -> str:
    if a.qrels or a.run:
        return f"evalrank evaluate -q -m '{measure}' {a.qrels} {a.run}"
    return (f"evalrank.metrics.ndcg(scores, labels, offsets, {a.k or None}, convention={a.convention!r}) in Python "
            "(evaluate reads TREC files)")


def _inputs(a):
    """(qrels, run) as :func:`evaluate_trec` takes them: the TREC files, read once here
    (:func:`evalrank.data.trec.read_trec`, as ``evaluate`` reads them) for the values and the
    notes, or columns of a LETOR file and its scores (one per line); tied scores keep the file's
    order (``ties="stable"``) or are broken by the file's doc ids, else by the row within the
    query (:func:`evalrank.papers.busafekete2012.runs.run_doc_ids`'s rule)."""
    if a.qrels or a.run:
        if not (a.qrels and a.run):
            raise ValueError("--qrels and --run go together")
        from evalrank import _jit
        from evalrank.data.trec import read_trec

        _jit.need(_jit.input_bytes(a.qrels, a.run))  # as evaluate_trec decides for the two files together
        return read_trec(a.qrels, "qrels"), read_trec(a.run, "run")
    if not (a.letor and a.scores):
        raise ValueError("give --qrels Q --run R, or --letor FILE --scores FILE")
    import numpy as np

    from evalrank.data.letor import read_letor
    from evalrank.metrics.ranking import position_ids

    c = read_letor(a.letor, show_progress=False)
    scores = np.loadtxt(a.scores, dtype=np.float64, ndmin=1)
    if scores.shape != (c.n_docs,):
        raise ValueError(f"{a.scores} has {scores.size} scores but {a.letor} has {c.n_docs} documents")
    qid = np.repeat(c.qids.astype(str), np.diff(c.offsets))
    doc = np.asarray(c.doc_ids).astype(str) if c.doc_ids is not None else position_ids(c.offsets)
    return ({"query_id": qid, "doc_id": doc, "relevance": c.labels},
            {"query_id": qid, "doc_id": doc, "score": scores})


def _notes(qrels, run) -> list[str]:
    """What a TREC run and its qrels (the parsed files, :class:`evalrank.data.trec.TrecFile`) do
    not share; a document judged or retrieved twice for any query is an error, as
    :func:`evalrank.data.trec.read_qrels` and :func:`~evalrank.data.trec.read_run` say it."""
    from evalrank.data.trec import _as_dict   # read_qrels' / read_run's dicts, of the files already read

    q, r = _as_dict(qrels, "judged", int), _as_dict(run, "retrieved", float)
    both = q.keys() & r.keys()
    notes = [f"{sum(len(r[t].keys() - q[t].keys()) for t in both)} retrieved document(s) are not in the qrels "
             "and count as non-relevant"]
    if r.keys() - q.keys():
        notes.append(f"{len(r.keys() - q.keys())} run quer(ies) have no qrels and are not evaluated")
    if q.keys() - r.keys():
        notes.append(f"{len(q.keys() - r.keys())} qrels quer(ies) are not in the run and are not evaluated")
    return notes


def _write(a, name: str, qids, values, notes) -> None:
    import numpy as np

    mean = float(np.nanmean(values)) if np.any(~np.isnan(values)) else float("nan")
    if a.format == "json":
        print(json.dumps({"measure": name, "convention": a.convention, "options": _options(a), "mean": mean,
                          "queries": int(np.sum(~np.isnan(values))),
                          "per_query": dict(zip(map(str, qids), values.tolist())), "notes": notes}, indent=2))
    else:
        for q, v in zip(qids, values):
            print(f"{name}\t{q}\t{v:.6f}")
        print(f"{name}\tall\t{mean:.6f}")
    for n in notes:
        _log(n)


def add_parsers(sub) -> None:
    s = add_command(sub, "ndcg", cmd_ndcg, "deprecated: evaluate -q -m 'ndcg(convention=X)@k' gives the same values",
                    description="Deprecated, removed in the next release: evalrank evaluate -q -m\n"
                                "'ndcg(convention=X,gain=...,ties=...)@k' QRELS RUN gives the same values (and\n"
                                "evalrank.metrics.ndcg those of a LETOR file and its scores); this command says\n"
                                "so on stderr each time.\n\n"
                                "NDCG@k of a TREC run against qrels, or of a LETOR file and one score per line,\n"
                                "under a named convention; one line per query and the mean (TSV), or JSON.\n"
                                "--gain, --empty, --short, --ties and --precision override one rule of the\n"
                                "convention each.\n\n"
                                "examples:\n"
                                "  evalrank ndcg --qrels qrels.txt --run run.txt --convention gdeval -k 20\n"
                                "  evalrank evaluate -q -m 'ndcg(convention=gdeval)@20' qrels.txt run.txt   "
                                "(the same values)")
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
