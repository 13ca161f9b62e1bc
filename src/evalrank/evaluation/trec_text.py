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

__all__ = ["format_trec"]


def _fmt(col: str, qid: str, v, fmt: str = "float") -> str:
    """One line as trec_eval prints it (``meas_print_*.c``: ``%-22s\t%s\t%6.4f``, ``%ld``)."""
    if fmt == "string":
        return f"{col:<22}\t{qid}\t{v}"
    if fmt == "long":
        return f"{col:<22}\t{qid}\t{int(v)}"
    if v != v:      # C's printf shows a NaN's sign, Python's format does not
        return f"{col:<22}\t{qid}\t{'-nan' if np.signbit(v) else 'nan':>6}"
    return f"{col:<22}\t{qid}\t{v:6.4f}"


def format_trec(results: list[RunResult], *, per_query: bool = False, summary: bool = True) -> str:
    """trec_eval's output: ``measure<TAB>qid<TAB>value`` lines, per topic (``per_query``, as
    ``-q``; topics a run lacks are not printed) then ``all`` (unless ``summary`` is false, as
    ``-n``); with several runs each line starts with the run's name and a tab."""
    lines = []
    many = len(results) > 1
    for r in results:
        pre = f"{r.name}\t" if many else ""
        fmts = r.formats or tuple("long" if c in COUNTS else "float" for c in r.columns)
        shown = [j for j in range(len(r.columns)) if (r.per_query[j] if r.per_query else r.columns[j] != "num_q")]
        if per_query:
            for i, q in enumerate(r.qids):
                if r.missing[i]:
                    continue
                for j in shown:
                    c = r.columns[j]
                    v = r.strings[c][i] if r.strings and c in r.strings else r.values[i, j]
                    lines.append(pre + _fmt(c, q, v, fmts[j]))
        if summary:
            for c, v in r.means().items():
                lines.append(pre + _fmt(c, "all", v, fmts[r.columns.index(c)]))
    return "\n".join(lines) + "\n" if lines else ""
