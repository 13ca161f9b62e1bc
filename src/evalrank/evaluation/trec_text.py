"""trec_eval's text: ``measure<TAB>qid<TAB>value`` lines as ``meas_print_single.c`` /
``meas_print_final.c`` print them (``%-22s\t%s\t%6.4f``, ``%ld``, ``-nan`` as C's printf shows a
negative NaN), per topic (``-q``) and ``all`` (unless ``-n``), from
:class:`evalrank.evaluation.evaluate.RunResult`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from evalrank.metrics.names import COUNTS

if TYPE_CHECKING:
    from evalrank.evaluation.evaluate import RunResult

__all__ = ["format_trec", "trec_table"]


def _fmt(col: str, qid: str, v, fmt: str = "float") -> str:
    """One line as trec_eval prints it (``meas_print_*.c``: ``%-22s\t%s\t%6.4f``, ``%ld``)."""
    if fmt == "string":
        return f"{col:<22}\t{qid}\t{v}"
    if fmt == "long":
        return f"{col:<22}\t{qid}\t{int(v)}"
    if v != v:      # C's printf shows a NaN's sign, Python's format does not
        return f"{col:<22}\t{qid}\t{'-nan' if np.signbit(v) else 'nan':>6}"
    return f"{col:<22}\t{qid}\t{v:6.4f}"


def _lines(results: list[RunResult], per_query: bool, summary: bool):
    """(run, measure, qid, value, format) of every line trec_eval prints, in its order."""
    for r in results:
        fmts = r.formats or tuple("long" if c in COUNTS else "float" for c in r.columns)
        shown = [j for j in range(len(r.columns)) if (r.per_query[j] if r.per_query else r.columns[j] != "num_q")]
        if per_query:
            for i, q in enumerate(r.qids):
                if r.missing[i]:
                    continue
                for j in shown:
                    c = r.columns[j]
                    v = r.strings[c][i] if r.strings and c in r.strings else r.values[i, j]
                    yield r.name, c, q, v, fmts[j]
        if summary:
            for c, v in r.means().items():
                yield r.name, c, "all", v, fmts[r.columns.index(c)]


def format_trec(results: list[RunResult], *, per_query: bool = False, summary: bool = True) -> str:
    """trec_eval's output: ``measure<TAB>qid<TAB>value`` lines, per topic (``per_query``, as
    ``-q``; topics a run lacks are not printed) then ``all`` (unless ``summary`` is false, as
    ``-n``); with several runs each line starts with the run's name and a tab."""
    many = len(results) > 1
    lines = [(f"{run}\t" if many else "") + _fmt(c, q, v, fmt)
             for run, c, q, v, fmt in _lines(results, per_query, summary)]
    return "\n".join(lines) + "\n" if lines else ""


def trec_table(results: list[RunResult], *, per_query: bool = False, summary: bool = True):
    """The lines of :func:`format_trec` as a DataFrame ``run, measure, qid, value`` for programs
    (``evaluate --format csv|tsv|json``): values unrounded, counts as integers, ``runid`` and
    ``relstring`` as text (the column is then of objects)."""
    import pandas as pd

    rows = []
    for run, c, q, v, fmt in _lines(results, per_query, summary):
        if fmt == "long":
            v = int(v)
        elif fmt != "string":
            v = float(v)
        rows.append((run, c, q, v))
    return pd.DataFrame(rows, columns=["run", "measure", "qid", "value"])
