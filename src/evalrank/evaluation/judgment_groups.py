"""trec_eval's ``-R qrels_jg``: judgments by several judgment groups (users) per topic.

A ``qrels_jg`` file has the lines of a qrels file, ``qid jg docno rel``, whose second field
names the judgment group (``get_qrels_jg.c``). trec_eval 9.0.8 computes three measures on it,
each the plain measure under every group's judgments, summed over the topic's groups in
``strcmp`` order of their names and divided by their number when there are several
(``m_map_avgjg.c``, ``m_P_avgjg.c``, ``m_Rprec_mult_avgjg.c``): ``map_avgjg``, ``P_avgjg``,
``Rprec_mult_avgjg`` (with ``runid`` and ``num_q``: the nickname ``qrels_jg``). Every other
measure needs the plain qrels format, and trec_eval stops on it; so does evalrank, saying so.

Each group's judgments are evaluated exactly as plain qrels (:func:`evaluate_trec`: the same
ranking, ``-M``, ``-J``, ``-l``), so the groups' values are trec_eval's to the bit before they
are summed.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from evalrank.data.trec import TrecFormatError

__all__ = ["JG_MEASURES", "read_qrels_jg", "evaluate_jg"]

#: the judgment-group measures and the plain measure each averages
JG_MEASURES = {"map_avgjg": "map", "P_avgjg": "P", "Rprec_mult_avgjg": "Rprec_mult"}
_ALSO = ("runid", "num_q")


def read_qrels_jg(path) -> dict:
    """``{group: {qid: {docno: relevance}}}`` from a ``qrels_jg`` file, groups in ``strcmp``
    order; a malformed or repeated line is a :class:`TrecFormatError` naming file and line."""
    path = Path(path)
    groups: dict = {}
    seen: dict = {}
    with open(path, "rb") as f:
        for no, raw in enumerate(f, 1):
            fields = raw.split()
            if not fields:
                continue
            if len(fields) != 4:
                raise TrecFormatError(f"{path}:{no}: a qrels_jg line has 4 fields 'qid jg docno rel', got "
                                      f"{len(fields)}")
            try:
                q, g, d = (x.decode("utf-8") for x in fields[:3])
                rel = int(fields[3].decode("ascii"))
            except (UnicodeDecodeError, ValueError):
                raise TrecFormatError(f"{path}:{no}: relevance {fields[3][:40]!r} is not an integer "
                                      "(or an id is not UTF-8)") from None
            key = (q, g, d)
            if key in seen:
                raise TrecFormatError(f"{path}:{no}: document {d!r} judged twice by group {g!r} for topic {q!r} "
                                      f"(first on line {seen[key]}; trec_eval stops here: 'duplicate docs')")
            seen[key] = no
            groups.setdefault(g, {}).setdefault(q, {})[d] = rel
    if not groups:
        raise TrecFormatError(f"{path}: no judgments")
    return {g: groups[g] for g in sorted(groups, key=lambda s: s.encode("utf-8"))}


def evaluate_jg(qrels, runs, measures, *, relevance_level: int = 1, max_docs: int | None = None,
                complete: bool = False, precision: str | None = "float32", judged_only: bool = False,
                progress=None) -> list:
    """:func:`evalrank.evaluation.evaluate.evaluate_trec` for a ``qrels_jg`` file: one
    :class:`RunResult` per run with the measures of :data:`JG_MEASURES` (module docstring)."""
    from evalrank.evaluation.evaluate import RunResult, evaluate_trec
    from evalrank.evaluation.inputs import _runs_of, as_trec
    from evalrank.metrics.names import TREC_ORDER, TrecMeasure, parse_measures

    ms = [m for m in parse_measures(measures)]
    bad = [str(m) for m in ms if not (isinstance(m, TrecMeasure) and (m.name in JG_MEASURES or m.name in _ALSO))]
    if bad:
        shown = ", ".join(bad[:3]) + (f" and {len(bad) - 3} more" if len(bad) > 3 else "")
        raise ValueError(f"with -R qrels_jg only {', '.join(_ALSO + tuple(JG_MEASURES))} can be computed (-m "
                         f"qrels_jg; trec_eval too: the others need the plain qrels format), not {shown}")
    ms.sort(key=lambda m: TREC_ORDER.index(m.name))
    jg = [m for m in ms if m.name in JG_MEASURES]
    plain = [TrecMeasure(JG_MEASURES[m.name], m.cutoffs, m.printable) for m in jg]
    groups = read_qrels_jg(qrels)
    topics = set().union(*(set(g) for g in groups.values()))
    cols = [c for m in ms for c in m.columns]
    out = []
    for name, r in _runs_of(runs):
        run = as_trec(r, "run", name)
        sums: dict = {}
        counts: dict = {}
        width = sum(len(m.columns) for m in plain)
        for g in groups.values():
            try:
                (res,) = evaluate_trec(g, {name: run}, plain or ["num_q"], relevance_level=relevance_level,
                                       max_docs=max_docs, precision=precision, judged_only=judged_only)
            except TrecFormatError as e:
                if "no topic of the run has qrels" in str(e):
                    continue
                raise
            for i, q in enumerate(res.qids):
                row = res.values[i, :width] if plain else np.zeros(0)
                sums[q] = sums[q] + row if q in sums else 0.0 + row     # trec_eval adds group by group
                counts[q] = counts.get(q, 0) + 1
        if not sums:
            raise TrecFormatError(f"{run.path}: no topic of the run has judgments in {qrels}")
        qids = sorted(set(sums) | (topics if complete else set()), key=lambda s: s.encode("utf-8"))
        missing = np.array([q not in sums for q in qids], dtype=bool)
        values = np.zeros((len(qids), len(cols)))
        j0 = sum(len(m.columns) for m in ms if m.name in _ALSO)
        for i, q in enumerate(qids):
            if q in sums:
                v = sums[q]
                values[i, j0:] = v / counts[q] if counts[q] > 1 else v
        fams = [m.family for m in ms for _ in m.columns]
        out.append(RunResult(name, qids, missing, cols, values, run.run_tag, None,
                             tuple(f.aggregate for f in fams), tuple(f.per_query for f in fams),
                             tuple(f.fmt for f in fams)))
        if progress is not None:
            progress(name)
    return out
