"""Risk-sensitive evaluation (Dinçer et al. 2016).

Front door: ``evalrank risk QRELS RUN...`` -- URisk, TRisk, T*Risk, ZRisk and GeoRisk of a
population of TREC runs (Table 6 for any runs). The stage commands of the paper's experiments are
:mod:`evalrank.papers.dincer2016.stages`.

``risk``'s options have documented defaults (the paper's Table 6). ``--qrels``, ``--runs DIR`` and
``--measure`` (before ``QRELS RUN...`` and ``-m``) still work for one release, each saying so on
stderr; with them the table stays TSV unless ``--format`` is given, as it was.
"""

from __future__ import annotations

from evalrank.cli.common import _log, add_command, add_format, check_inputs_and_out, deprecated
from evalrank.papers.dincer2016.stages import table6_args

__all__ = ["add_parsers"]


def _inputs(a) -> tuple:
    """(qrels, runs, measure, format) from the positionals or the old options (each old one
    named on stderr)."""
    qrels, runs, measure, fmt = a.qrels, list(a.runs), a.measure, a.format
    old = False
    if a.old_qrels is not None:
        deprecated("risk", "--qrels", "give the qrels as the first argument: evalrank risk QRELS RUN...")
        if qrels is not None:  # then every positional is a run
            runs.insert(0, qrels)
        qrels, old = a.old_qrels, True
    if a.old_runs is not None:
        deprecated("risk", "--runs", "give the runs (files, or a folder) after the qrels: evalrank risk QRELS RUN...")
        runs.append(a.old_runs)
        old = True
    if a.old_measure is not None:
        deprecated("risk", "--measure", "use -m")
        measure = a.old_measure
    if qrels is None:
        raise ValueError("QRELS and RUN...: give the qrels file and the run files (evalrank risk QRELS RUN...)")
    if not runs:
        raise ValueError("RUN: give the run files after the qrels (two or more, or a folder of them)")
    check_inputs_and_out([qrels, *runs], a.out)
    if fmt is None:
        fmt = "tsv" if old else "text"
    return qrels, runs, measure, fmt


def cmd_risk(a):
    from evalrank.papers.dincer2016.tables import trec_table6

    qrels, runs, measure, fmt = _inputs(a)
    t6 = trec_table6(qrels, runs, baseline=a.baseline, measure=measure, alphas=a.alphas, top=a.top,
                     max_grade=a.max_grade, convention=a.convention, zero_totals=a.zero_totals, out_dir=a.out_dir,
                     log=_log)
    if fmt == "text":
        text = _text(t6, measure, a.alphas)
    else:
        from evalrank.io import format_table

        text = format_table(t6, fmt, float_format="%.4f")
    if a.out:
        from evalrank.io import atomic_write_text

        atomic_write_text(a.out, text)
    else:
        print(text, end="")


def _text(t6, measure: str, alphas) -> str:
    """Table 6 for the console: a row per run and alpha (the file formats have a row per run and
    a column per measure and alpha, with each value's rank, R_*)."""
    import pandas as pd

    kinds = ("urisk", "trisk", "trisk_star", "zrisk", "georisk")
    parts = []
    for al in alphas:
        part = t6[["system", measure, "p_baseline"]].copy()
        part.insert(1, "alpha", f"{al:g}")
        for k in kinds:
            part[k] = t6[f"{k}_a{al:g}"]
        parts.append(part)
    order = {s: i for i, s in enumerate(t6["system"])}
    long = pd.concat(parts, ignore_index=True)
    long = long.sort_values("system", key=lambda c: c.map(order), kind="stable")
    return long.to_string(index=False, float_format=lambda v: f"{v:.4f}", na_rep="") + "\n"


def add_parsers(sub) -> None:
    s = add_command(sub, "risk", cmd_risk,
                    "URisk/TRisk/T*Risk/ZRisk/GeoRisk of TREC runs (Dinçer et al. 2016, Table 6)",
                    description="URisk, TRisk, ZRisk and GeoRisk (Dinçer et al. 2016, Table 6) of a population of\n"
                                "TREC runs against one baseline run, every run scored with ERR@k or NDCG@k\n"
                                "against the qrels; the table on stdout. Runs are named by their file names.\n\n"
                                "examples:\n"
                                "  evalrank risk --baseline bm25 qrels.txt runs/*.txt\n"
                                "  evalrank risk --baseline runs/bm25.txt -m ndcg@10 --alphas 0 1 5 --format csv "
                                "qrels.txt runs/")
    s.add_argument("qrels", metavar="QRELS", nargs="?", help="TREC qrels file: qid iter docno rel ('-': standard input)")
    s.add_argument("runs", metavar="RUN", nargs="*",
                   help="TREC run files (the population, two or more); a folder stands for its files ('-': "
                        "standard input)")
    s.add_argument("--baseline", required=True, metavar="RUN",
                   help="the baseline run (URisk, TRisk): its path, its file name, or its file name without the "
                        "extension (bm25 for runs/bm25.txt)")
    table6_args(s, defaults=True)
    s.add_argument("--max-grade", type=int, default=4, help="ERR's top grade (gdeval: 4)")
    s.add_argument("--convention", default="gdeval", help="NDCG preset for -m ndcg@k (gdeval: the Web track's)")
    s.add_argument("--out-dir", help="also write table6.csv, observations.csv, georisk_curves.csv and the GeoRisk "
                                     "figure (needs matplotlib: pip install 'evalrank[repro]'; default: only the "
                                     "table on stdout)")
    s.add_argument("-o", "--out", metavar="FILE", help="write the table to FILE, atomically, as evaluate's -o "
                                                         "(default: stdout)")
    s.add_argument("--zero-totals", choices=["raise", "ignore"], default="raise",
                   help="a topic on which every run scores 0: refuse (raise, as the library) or count its "
                        "ZRisk/GeoRisk cells as z = 0 (ignore)")
    add_format(s, "an aligned table", default=None,   # text, or tsv with the old --qrels/--runs (as they printed)
               note=" (default: text; tsv with the deprecated --qrels/--runs, as they printed)")
    s.add_argument("--qrels", dest="old_qrels", metavar="QRELS",
                   help="deprecated, removed in the next release: give the qrels as the first argument "
                        "(default: that argument)")
    s.add_argument("--runs", dest="old_runs", metavar="DIR",
                   help="deprecated, removed in the next release: give the runs (files or a folder) after the qrels "
                        "(default: those arguments)")
