"""TREC qrels and run files as flat arrays, for NDCG outside the DAG.

qrels: ``qid iter docno rel`` (whitespace separated); run: ``qid Q0 docno
rank score [tag]``. As trec_eval does: queries are evaluated when they are in
both files (sorted by qid as strings), run documents absent from the qrels
are non-relevant, negative grades count as 0, the ideal DCG comes from all
judged documents of the query (retrieved or not), and the run's own rank
column is ignored (documents are ordered by score). Malformed lines raise
:class:`TrecFormatError` with file and line number.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["TrecFormatError", "read_qrels", "read_run", "TrecInput", "align"]


class TrecFormatError(ValueError):
    """A malformed line of a qrels or run file (file and line number in the message)."""


def _lines(path):
    """Whitespace-split non-blank, non-comment lines with their numbers (gzip and a UTF-8
    byte-order mark are read transparently: :func:`evalrank.io.open_text`)."""
    from evalrank.io import open_text

    path = Path(path)
    with open_text(path) as fh:
        number = 0
        try:
            for number, line in enumerate(fh, start=1):
                if line.strip() and not line.lstrip().startswith("#"):
                    yield number, line.split()
        except UnicodeDecodeError as e:
            raise TrecFormatError(f"{path}:{number + 1}: not UTF-8 text ({e.reason} at byte {e.start} of the "
                                  "line's block)") from None
        except (OSError, EOFError) as e:
            raise TrecFormatError(f"{path}: cannot be read whole ({e})") from None


def read_qrels(path) -> dict[str, dict[str, int]]:
    """``{qid: {docno: grade}}``; a repeated (qid, docno) is an error."""
    out: dict[str, dict[str, int]] = {}
    for number, f in _lines(path):
        if len(f) != 4:
            raise TrecFormatError(f"{path}:{number}: a qrels line has 4 fields 'qid iter docno rel', got {len(f)}")
        try:
            grade = int(f[3])
        except ValueError:
            raise TrecFormatError(f"{path}:{number}: relevance {f[3]!r} is not an integer") from None
        docs = out.setdefault(f[0], {})
        if f[2] in docs:
            raise TrecFormatError(f"{path}:{number}: document {f[2]!r} judged twice for query {f[0]!r}")
        docs[f[2]] = max(grade, 0)
    return out


def read_run(path) -> dict[str, dict[str, float]]:
    """``{qid: {docno: score}}``; a repeated (qid, docno) is an error."""
    out: dict[str, dict[str, float]] = {}
    for number, f in _lines(path):
        if len(f) not in (5, 6):
            raise TrecFormatError(f"{path}:{number}: a run line has 6 fields 'qid Q0 docno rank score tag', "
                                  f"got {len(f)}")
        try:
            score = float(f[4])
        except ValueError:
            raise TrecFormatError(f"{path}:{number}: score {f[4]!r} is not a number") from None
        if not np.isfinite(score):
            raise TrecFormatError(f"{path}:{number}: score {f[4]!r} is not finite")
        docs = out.setdefault(f[0], {})
        if f[2] in docs:
            raise TrecFormatError(f"{path}:{number}: document {f[2]!r} retrieved twice for query {f[0]!r}")
        docs[f[2]] = score
    return out


@dataclass(frozen=True)
class TrecInput:
    qids: np.ndarray
    scores: np.ndarray
    labels: np.ndarray
    offsets: np.ndarray
    doc_ids: np.ndarray
    ideal_labels: np.ndarray
    ideal_offsets: np.ndarray
    unjudged: int          # retrieved documents absent from the qrels (scored as non-relevant)
    run_only: list         # queries of the run without qrels (not evaluated)
    qrels_only: list       # queries of the qrels absent from the run (not evaluated)


def align(qrels: dict, run: dict) -> TrecInput:
    """Flat arrays of the queries in both files, sorted by qid (strcmp)."""
    qids = sorted(set(qrels) & set(run))
    scores, labels, ids, sizes, ideal, ideal_sizes = [], [], [], [], [], []
    unjudged = 0
    for q in qids:
        judged = qrels[q]
        docs = list(run[q].items())
        scores += [s for _, s in docs]
        labels += [judged.get(d, 0) for d, _ in docs]
        unjudged += sum(d not in judged for d, _ in docs)
        ids += [d for d, _ in docs]
        sizes.append(len(docs))
        ideal += list(judged.values())
        ideal_sizes.append(len(judged))
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    ideal_offsets = np.concatenate(([0], np.cumsum(ideal_sizes))).astype(np.int64)
    return TrecInput(np.array(qids, dtype=str), np.array(scores, dtype=np.float64), np.array(labels, dtype=np.int64),
                     offsets, np.array(ids, dtype=str), np.array(ideal, dtype=np.int64), ideal_offsets, unjudged,
                     sorted(set(run) - set(qrels)), sorted(set(qrels) - set(run)))
