"""TREC qrels and run files, read as trec_eval reads them, into flat arrays.

qrels: ``qid iter docno rel`` -- exactly four whitespace-separated fields;
run: ``qid Q0 docno rank score tag`` -- at least six, anything after the
sixth ignored (trec_eval 9.0.x, ``get_trec_results.c``). Blank lines and lines
starting with ``#`` are skipped, a UTF-8 byte-order mark and gzip are read
transparently, lines may end in CRLF; a file that is not a regular file (a pipe,
``/dev/stdin``, a shell's ``<(...)``) is read as a stream. The rank column and
the tag are not used: documents are ranked by score (``evalrank.evaluation``).

Scores are read as trec_eval's ``atof`` (C's ``strtod``, "C" locale) reads the
whole token: ASCII ``[+-]`` digits with an optional ``.`` and exponent
(``1e3``, ``+1``, ``.5``, ``1.``), or a hexadecimal float (``0x1p3``). Where
``atof`` would stop early and give another number (``0_9`` is 0 to it, ``1e``
is 1), or the token is not ASCII (Arabic-Indic ``٠.٩``, fullwidth ``１``, which
Python's ``float()`` would take), the line is refused. A carriage return
followed by more text on its line -- old-Mac line ends, CR only -- is refused
too: trec_eval reads such a run as one line.

Where trec_eval is lenient with garbage (``atof("high")`` is 0, ``atol("x")``
is 0), the reader refuses the line instead, naming file and line: a score
that is not a number, a relevance that is not an integer, a NaN or infinite
score (``inf``, ``nan``, ``1e400``). A relevance written as ``2.0`` is read as
trec_eval's ``atol`` reads it (2); a relevance is ASCII digits after an optional sign.

The bytes are parsed by kernels (:func:`read_trec`; compiled by numba for large files,
interpreted for small ones: :mod:`evalrank._jit`): one pass over the
file records, per line, where its query id and document id lie in the
buffer, a 64-bit FNV-1a hash of each, and the parsed score or relevance. No
Python object is made per line: query ids are decoded once per run of equal
ids, document ids never (:mod:`evalrank.evaluation` matches them through the
hashes and compares their bytes only where hashes meet or scores tie).

:func:`read_qrels` and :func:`read_run` give ``{qid: {docno: value}}``
dicts for small files and tests; :func:`align` turns two such dicts into
the flat arrays of :func:`evalrank.metrics.ndcg.ndcg`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from evalrank import _jit
from evalrank._jit import njit
from evalrank.data.bytescan import DamagedGzipError, count_newlines, file_bytes
from evalrank.data.bytescan import fast_float as _fast_float
from evalrank.data.bytescan import is_blank as _space
from evalrank.data.bytescan import strtod

__all__ = ["TrecFormatError", "TrecFile", "read_trec", "read_qrels", "read_run", "TrecInput", "align", "fnv1a"]


class TrecFormatError(ValueError):
    """A malformed line of a qrels or run file (file and line number in the message)."""


# ---------------------------------------------------------------------------
# byte kernels
# ---------------------------------------------------------------------------
_FNV_OFFSET = np.uint64(14695981039346656037)
_FNV_PRIME = np.uint64(1099511628211)

# error codes of the scan kernel
_OK, _FEW_FIELDS, _EXTRA_FIELDS, _BAD_NUMBER, _LONE_CR = 0, 1, 2, 3, 4


@njit(cache=True, nogil=True, wraparound=True)
def fnv1a(buf, s, e):
    """64-bit FNV-1a hash of ``buf[s:e]``."""
    h = _FNV_OFFSET
    for i in range(s, e):
        h = (h ^ buf[i]) * _FNV_PRIME
    return h


@njit(cache=True, nogil=True)
def _atol(buf, s, e):
    """C ``atol`` on a token that must start with an integer: ``(ok, value)``; ``2.0`` and
    ``2`` give 2, ``x`` is refused (trec_eval would read 0)."""
    i = s
    neg = False
    if i < e and (buf[i] == 45 or buf[i] == 43):
        neg = buf[i] == 45
        i += 1
    v = np.int64(0)
    nd = 0
    while i < e and 48 <= buf[i] <= 57:
        if nd < 18:
            v = v * 10 + np.int64(buf[i] - 48)
        nd += 1
        i += 1
    if nd == 0 or nd > 18:
        return False, np.int64(0)
    if i < e:  # the rest must be a decimal part of zeros or digits: "2.0", "1.5" (atol: 1)
        if buf[i] != 46:
            return False, np.int64(0)
        i += 1
        while i < e:
            if not (48 <= buf[i] <= 57):
                return False, np.int64(0)
            i += 1
    return True, -v if neg else v


@njit(cache=True, nogil=True, wraparound=True, lists=("buf",))
def _scan(buf, is_run, qs, qe, ds, de, dh, value, line_of, seg_start, fallback):
    """One pass over a qrels (``is_run`` False) or run file.

    Fills, per data line ``j``: the query id span ``qs[j]:qe[j]``, the document id span
    ``ds[j]:de[j]`` and its hash ``dh[j]``, the score or relevance ``value[j]``, the
    1-based line number; ``seg_start`` gets the first data line of every run of equal query
    ids. ``fallback[j]`` marks scores the fast float parser leaves to Python.
    A carriage return followed by more text on its line (old-Mac line ends, CR only) stops
    the scan with ``_LONE_CR``; CRLF and blanks after a CR are whitespace as in trec_eval.
    Returns ``(n_lines, n_segments, error, error_line, tok_s, tok_e, n_fields)``.
    """
    n = len(buf)
    i = 0
    j = 0
    nseg = 0
    line = 0
    pqs = -1
    pqe = -1
    while i < n:
        line += 1
        # skip leading blanks
        cr = False
        while i < n and _space(buf[i]):
            if buf[i] == 13:
                cr = True
            i += 1
        if i >= n:
            break
        if buf[i] == 10:
            i += 1
            continue
        if cr:
            return j, nseg, _LONE_CR, line, 0, 0, 0
        if buf[i] == 35:  # '#': a comment line
            while i < n and buf[i] != 10:
                if buf[i] == 13:
                    cr = True
                elif cr and not _space(buf[i]):
                    return j, nseg, _LONE_CR, line, 0, 0, 0
                i += 1
            i += 1
            continue
        # tokenize the line
        nf = 0
        t0s = t0e = t2s = t2e = t4s = t4e = t3s = t3e = 0
        while i < n and buf[i] != 10:
            s = i
            while i < n and buf[i] != 10 and not _space(buf[i]):
                i += 1
            if nf == 0:
                t0s, t0e = s, i
            elif nf == 2:
                t2s, t2e = s, i
            elif nf == 3:
                t3s, t3e = s, i
            elif nf == 4:
                t4s, t4e = s, i
            nf += 1
            while i < n and buf[i] != 10 and _space(buf[i]):
                if buf[i] == 13:
                    cr = True
                i += 1
            if cr and i < n and buf[i] != 10:
                return j, nseg, _LONE_CR, line, 0, 0, 0
        i += 1  # past the newline
        if is_run:
            if nf < 6:
                return j, nseg, _FEW_FIELDS, line, 0, 0, nf
            ok, v = _fast_float(buf, t4s, t4e)
            if ok:
                value[j] = v
            else:
                fallback[j] = True
                value[j] = 0.0
        else:
            if nf != 4:
                return j, nseg, _FEW_FIELDS if nf < 4 else _EXTRA_FIELDS, line, 0, 0, nf
            ok, r = _atol(buf, t3s, t3e)
            if not ok:
                return j, nseg, _BAD_NUMBER, line, t3s, t3e, nf
            value[j] = np.float64(r)
        qs[j] = t0s
        qe[j] = t0e
        ds[j] = t2s
        de[j] = t2e
        dh[j] = fnv1a(buf, t2s, t2e)
        line_of[j] = line
        same = (t0e - t0s) == (pqe - pqs)
        if same:
            for c in range(t0e - t0s):
                if buf[t0s + c] != buf[pqs + c]:
                    same = False
                    break
        if not same:
            seg_start[nseg] = j
            nseg += 1
            pqs = t0s
            pqe = t0e
        j += 1
    return j, nseg, _OK, line, 0, 0, 0


# ---------------------------------------------------------------------------
# the file as arrays
# ---------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class TrecFile:
    """A parsed qrels or run file: the bytes and, per data line (file order), where the
    query id and document id lie in them.

    ``buf`` uint8 bytes of the file; ``qid`` int64 index into ``qids`` (the distinct query
    ids, sorted as C ``strcmp`` sorts them, trec_eval's order); ``doc_start``/``doc_end``
    int64 spans of the document id in ``buf``; ``doc_hash`` uint64 FNV-1a of those bytes;
    ``value`` float64 score (run) or relevance (qrels); ``line`` int64 1-based line numbers
    (for error messages); ``run_tag`` the tag of the last line (runs; trec_eval's runid).
    """

    path: str
    kind: str
    buf: np.ndarray
    qids: list
    qid: np.ndarray
    doc_start: np.ndarray
    doc_end: np.ndarray
    doc_hash: np.ndarray
    value: np.ndarray
    line: np.ndarray
    run_tag: str = ""

    def __len__(self) -> int:
        return int(self.qid.shape[0])

    def doc_id(self, j: int) -> str:
        """The document id of data line ``j`` (for messages)."""
        return bytes(self.buf[self.doc_start[j]:self.doc_end[j]]).decode("utf-8", "replace")


def _file_bytes(path: Path):
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a directory, not a file")
    if not path.exists():
        raise FileNotFoundError(f"{path} does not exist")
    try:
        return file_bytes(path)
    except DamagedGzipError as e:
        raise TrecFormatError(f"{path}: damaged gzip file ({e})") from None


def _decode(raw: bytes, path, line: int, what: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise TrecFormatError(f"{path}:{line}: {what} is not UTF-8 text ({e.reason})") from None


def read_trec(path, kind: str) -> TrecFile:
    """Parse a TREC ``kind="qrels"`` or ``kind="run"`` file (module docstring for the rules).

    Raises :class:`TrecFormatError` naming file and line for a line with too few (or, in
    qrels, too many) fields, a relevance that is not an integer, a score that is not a
    finite number, or a file without data lines.
    """
    if kind not in ("qrels", "run"):
        raise ValueError(f"kind must be 'qrels' or 'run', got {kind!r}")
    path = Path(path)
    data = _file_bytes(path)
    _jit.need(len(data))
    buf = np.frombuffer(data, dtype=np.uint8) if len(data) else np.zeros(0, dtype=np.uint8)
    cap = count_newlines(buf) + 1
    qs = np.empty(cap, np.int64)
    qe = np.empty(cap, np.int64)
    ds = np.empty(cap, np.int64)
    de = np.empty(cap, np.int64)
    dh = np.empty(cap, np.uint64)
    value = np.empty(cap, np.float64)
    line_of = np.empty(cap, np.int64)
    seg = np.empty(cap, np.int64)
    fb = np.zeros(cap, np.bool_)
    is_run = kind == "run"
    n, nseg, err, eline, ts, te, nf = _scan(buf, is_run, qs, qe, ds, de, dh, value, line_of, seg, fb)
    if err == _FEW_FIELDS or err == _EXTRA_FIELDS:
        want = "6 fields 'qid Q0 docno rank score tag' (or more)" if is_run else "4 fields 'qid iter docno rel'"
        raise TrecFormatError(f"{path}:{eline}: a {kind} line has {want}, got {nf}")
    if err == _LONE_CR:
        raise TrecFormatError(f"{path}:{eline}: a carriage return (CR) not followed by a newline: old-Mac "
                              "line ends (CR only), which trec_eval does not read as line ends; convert them to LF "
                              "(tr '\\r' '\\n')")
    if err == _BAD_NUMBER:
        tok = bytes(buf[ts:te]).decode("utf-8", "replace")
        raise TrecFormatError(f"{path}:{eline}: relevance {tok!r} is not an integer")
    if n == 0:
        raise TrecFormatError(f"{path}: no {kind} lines (the file is empty or all comments)")
    qs, qe, ds, de, dh, value, line_of, fb = (a[:n] for a in (qs, qe, ds, de, dh, value, line_of, fb))
    if is_run:
        for j in np.flatnonzero(fb):  # long mantissas, exponents beyond 1e22, hex, nan, inf: C's strtod
            raw = bytes(buf[_token(buf, ds[j], 4)])
            v = strtod(raw)
            if v is None:
                tok = raw.decode("utf-8", "replace")
                raise TrecFormatError(f"{path}:{line_of[j]}: score {tok!r} is not a number (C's strtod, as "
                                      "trec_eval reads scores: ASCII digits, '.', an exponent)") from None
            value[j] = v
        bad = ~np.isfinite(value)
        if bad.any():
            j = int(np.flatnonzero(bad)[0])
            tok = bytes(buf[_token(buf, ds[j], 4)]).decode("utf-8", "replace")
            raise TrecFormatError(f"{path}:{line_of[j]}: score {tok!r} is not finite")
    # query ids: one decode per run of equal ids, then codes in strcmp (byte) order
    seg = seg[:nseg]
    raw = [bytes(buf[qs[s]:qe[s]]) for s in seg.tolist()]
    uniq = sorted(set(raw))
    code = {b: c for c, b in enumerate(uniq)}
    seg_code = np.fromiter((code[b] for b in raw), dtype=np.int64, count=nseg)
    sizes = np.diff(np.append(seg, n))
    qid = np.repeat(seg_code, sizes)
    first = {}
    for s_, b in zip(seg.tolist(), raw):
        first.setdefault(b, s_)
    qids = [_decode(b, path, int(line_of[first[b]]), "query id") for b in uniq]
    tag = ""
    if is_run:
        tag = bytes(buf[_token(buf, ds[-1], 5)]).decode("utf-8", "replace")   # trec_eval: the last line's
    return TrecFile(str(path), kind, buf, qids, qid, ds, de, dh, value, line_of, tag)


def _token(buf, doc_start: int, field: int) -> slice:
    """The span of field ``field`` (0-based, >= 2) of the line whose document id starts at
    ``doc_start`` (rare paths only: fallback scores, the run tag)."""
    i = int(doc_start)
    f = 2
    n = buf.shape[0]
    while True:
        s = i
        while i < n and buf[i] not in (32, 9, 13, 11, 12, 10):
            i += 1
        if f == field:
            return slice(s, i)
        while i < n and buf[i] in (32, 9, 13, 11, 12):
            i += 1
        f += 1


# ---------------------------------------------------------------------------
# dicts (small files, tests) and flat arrays for ndcg()
# ---------------------------------------------------------------------------
def _as_dict(t: TrecFile, what: str, cast) -> dict:
    out: dict[str, dict] = {}
    ids = [bytes(t.buf[s:e]).decode("utf-8", "replace") for s, e in zip(t.doc_start.tolist(), t.doc_end.tolist())]
    for j, (q, d, v) in enumerate(zip(t.qid.tolist(), ids, t.value.tolist())):
        docs = out.setdefault(t.qids[q], {})
        if d in docs:
            raise TrecFormatError(f"{t.path}:{t.line[j]}: document {d!r} {what} twice for query {t.qids[q]!r}")
        docs[d] = cast(v)
    return out


def read_qrels(path) -> dict[str, dict[str, int]]:
    """``{qid: {docno: grade}}`` with negative grades as 0; a repeated (qid, docno) is an error."""
    return _as_dict(read_trec(path, "qrels"), "judged", lambda v: max(int(v), 0))


def read_run(path) -> dict[str, dict[str, float]]:
    """``{qid: {docno: score}}``; a repeated (qid, docno) is an error."""
    return _as_dict(read_trec(path, "run"), "retrieved", float)


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
    """Flat arrays of the queries in both dicts, sorted by qid (strcmp): run documents absent
    from the qrels are non-relevant, the ideal comes from all judged documents of the query."""
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
