"""TREC qrels and run files, read as trec_eval reads them, into flat arrays.

qrels: ``qid iter docno rel`` -- exactly four whitespace-separated fields;
run: ``qid Q0 docno rank score tag`` -- at least six, anything after the
sixth ignored (trec_eval 9.0.x, ``get_trec_results.c``). Lines starting with
``#`` are skipped; blank lines are skipped in a run, as trec_eval skips them, and
refused in qrels, as trec_eval refuses them ("Malformed line"); a UTF-8 byte-order
mark and gzip are read transparently, lines may end in CRLF; a file that is not a
regular file (a pipe, ``/dev/stdin``, a shell's ``<(...)``) is read as a stream,
and ``-`` is standard input. A NUL byte anywhere is refused (file:line): it ends
a C string, so trec_eval cuts an id there (or crashes), and no number from such a
file can be trusted; a malformed line holding other control bytes is said to be
binary data. The rank column and
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

The bytes are parsed by kernels (:func:`read_trec`; the kernels: :mod:`evalrank.data.trec_scan`;
compiled by numba for large files, interpreted for small ones: :mod:`evalrank._jit`; a small
file whose lines are all plain data lines is split by ``bytes.split`` instead, to the same arrays:
``_read_plain``) a chunk at a time: one pass keeps, per
line, the document id (appended to one buffer of ids: the rest of the line is not kept), a
64-bit FNV-1a hash of it and the parsed score or relevance; the peak memory is about the ids
plus 28 bytes a line, not the file. No Python object is made per line (but on the small-file
path, below 768 KiB): query ids are kept
once per run of equal ids and decoded once per distinct id, document ids never
(:mod:`evalrank.evaluation` matches them through the hashes and compares their bytes only
where hashes meet or scores tie); line numbers come from where the blank and comment lines
are (:meth:`TrecFile.line_of`).

:func:`read_qrels` and :func:`read_run` give ``{qid: {docno: value}}``
dicts for small files and tests; :func:`align` turns two such dicts into
the flat arrays of :func:`evalrank.metrics.ndcg.ndcg`.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from evalrank import _jit
from evalrank.data.bytescan import count_newlines, strtod
from evalrank.data.trec_scan import (_BAD_NUMBER, _BLANK, _DONE, _ERR_LINE, _ERR_POS, _EXTRA_FIELDS, _FALLBACKS,
                                     _FEW_FIELDS, _J, _LINE, _LONE_CR, _NF, _NFB, _NSEG, _NSKIP, _OK, _QUSED, _ROOM,
                                     _TAG_E, _TAG_S, _TOK_E, _TOK_S, N_STATE, _fnv1a_np, _scan, fnv1a, sorted_codes)

__all__ = ["TrecFormatError", "TrecFile", "read_trec", "read_qrels", "read_run", "TrecInput", "align", "fnv1a"]


#: the name messages give standard input, read for the path ``-``
STDIN = "<stdin>"


class TrecFormatError(ValueError):
    """A malformed line of a qrels or run file (file and line number in the message)."""


# ---------------------------------------------------------------------------
# the file as arrays
# ---------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class TrecFile:
    """A parsed qrels or run file (or the same from columns): per data line (file order) its
    query id, document id, hash and value.

    ``qid`` int index into ``qids`` (the distinct query ids, sorted as C ``strcmp`` sorts
    them, trec_eval's order); ``buf`` uint8 bytes holding the document ids, ``doc_start``/
    ``doc_end`` int64 the span of line j's in ``buf``; ``doc_hash`` uint64 FNV-1a of those
    bytes; ``value`` float64 score (run) or relevance (qrels); ``run_tag`` the tag of the last
    line (runs; trec_eval's runid). Line numbers (for messages): :meth:`line_of`, or
    :attr:`line` for all of them; ``skips``: where lines that are not data lines (blank,
    comments) come (``skip_at``: before which data line, ``skip_cum``: how many up to there).
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
    run_tag: str = ""
    skip_at: np.ndarray = None
    skip_cum: np.ndarray = None

    def __post_init__(self):
        # read-only views (a caller's arrays keep their own flags): a parsed file is not edited,
        # and numba compiles a kernel once per argument type, where a read-only array is a type
        # of its own; files read here and columns given in memory (np.frombuffer: read-only)
        # reached the evaluation kernels both ways, and each of those took 12-30 CPU-s to
        # compile on a fresh clone (make test: _rank_match 5 times, 93 CPU-s)
        for name in ("buf", "qid", "doc_start", "doc_end", "doc_hash", "value", "skip_at", "skip_cum"):
            a = getattr(self, name)
            if isinstance(a, np.ndarray):
                object.__setattr__(self, name, _jit.readonly(a))

    def __len__(self) -> int:
        return int(self.qid.shape[0])

    def doc_id(self, j: int) -> str:
        """The document id of data line ``j`` (for messages)."""
        return bytes(self.buf[self.doc_start[j]:self.doc_end[j]]).decode("utf-8", "replace")

    def line_of(self, j: int) -> int:
        """The 1-based line number of data line ``j`` (row ``j + 1`` of columns)."""
        if self.skip_at is None or not len(self.skip_at):
            return int(j) + 1
        k = int(np.searchsorted(self.skip_at, j, side="right")) - 1
        return int(j) + 1 + (int(self.skip_cum[k]) if k >= 0 else 0)

    @cached_property
    def line(self) -> np.ndarray:
        """Every data line's 1-based line number (int64; made on first use)."""
        n = len(self)
        out = np.arange(1, n + 1, dtype=np.int64)
        if self.skip_at is not None and len(self.skip_at):
            add = np.zeros(n, dtype=np.int64)
            add[self.skip_at] = np.diff(self.skip_cum, prepend=0)
            out += np.cumsum(add)
        return out


def _decode(raw: bytes, path, line: int, what: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise TrecFormatError(f"{path}:{line}: {what} is not UTF-8 text ({e.reason})") from None


_CHUNK = 1 << 24   # bytes read at a time (16 MiB)
_FB_CAP = 4096     # fallback scores read per kernel call
_START = 1 << 16   # first room for lines, segments and skips where the file's size is unknown (doubled as needed)


class _Reader:
    """A file's bytes chunk by chunk, as users' files come: regular, gzip (by its magic bytes),
    a pipe or ``<(...)`` (read as a stream); a UTF-8 byte-order mark blanked out."""

    def __init__(self, path: Path):
        import stat

        if str(path) == "-":   # standard input (Unix use; trec_eval 9.0.8 cannot read "-"), read as a stream
            import sys

            self.path, self.fh, self.stdin = STDIN, sys.stdin.buffer, True
            self.regular, self.size, self.gzip = False, None, False
            head = self.fh.peek(3)[:3] if hasattr(self.fh, "peek") else b""
            if head[:2] == b"\x1f\x8b":
                import gzip

                self.gzip = True
                self.src = gzip.GzipFile(fileobj=self.fh)
            else:
                self.src = self.fh
            self.first = True
            return
        self.stdin = False
        if path.is_dir():
            raise IsADirectoryError(f"{path} is a directory, not a file")
        if not path.exists():
            raise FileNotFoundError(f"{path} does not exist")
        self.path = path
        self.fh = open(path, "rb")
        st = os.fstat(self.fh.fileno())
        self.regular = stat.S_ISREG(st.st_mode)
        head = self.fh.peek(3)[:3] if hasattr(self.fh, "peek") else b""
        self.gzip = head[:2] == b"\x1f\x8b"
        self.size = st.st_size if self.regular and not self.gzip else None   # None: unknown
        if self.gzip:
            import gzip   # only for gzip files: 1 ms of a small file's evaluate

            self.src = gzip.GzipFile(fileobj=self.fh)
        else:
            self.src = self.fh
        self.first = True

    def readinto(self, view) -> int:
        import zlib

        try:
            got = 0
            while got < len(view):
                k = self.src.readinto(view[got:])
                if not k:
                    break
                got += k
        except (OSError, EOFError, zlib.error) as e:
            if self.gzip:
                raise TrecFormatError(f"{self.path}: damaged gzip file ({e})") from None
            raise
        if self.first and got >= 3 and bytes(view[:3]) == b"\xef\xbb\xbf":
            view[:3] = b"   "
        self.first = False
        return got

    def close(self):
        if self.src is not self.fh:
            self.src.close()
        if not self.stdin:
            self.fh.close()


def _grow(a: np.ndarray, need: int) -> np.ndarray:
    """``a`` with room for at least ``need`` entries (twice as many): its content copied."""
    new = np.empty((max(need, 2 * len(a)),) + a.shape[1:], dtype=a.dtype)
    new[:len(a)] = a
    return new


def read_trec(path, kind: str) -> TrecFile:
    """Parse a TREC ``kind="qrels"`` or ``kind="run"`` file (module docstring for the rules).

    The file is read in chunks: what is kept is one buffer of the document ids (no separator)
    and a few numbers per line, not the file (a run's ids are about a third of its bytes);
    arrays are sized by the file's size where it is known (memory is committed only as lines
    fill them), doubled as needed for streams and gzip.

    Raises :class:`TrecFormatError` naming file and line for a line with too few (or, in
    qrels, too many) fields, a relevance that is not an integer, a score that is not a
    finite number, or a file without data lines.
    """
    if kind not in ("qrels", "run"):
        raise ValueError(f"kind must be 'qrels' or 'run', got {kind!r}")
    path = Path(path)
    rd = _Reader(path)
    try:
        return _read(rd, rd.path, kind)
    finally:
        rd.close()


def _read(rd: _Reader, path: Path, kind: str) -> TrecFile:
    is_run = kind == "run"
    size = rd.size
    chunk = np.empty(min(_CHUNK, size + 1) if size is not None else _CHUNK, dtype=np.uint8)
    have = rd.readinto(memoryview(chunk))
    eof = have < len(chunk)
    _refuse_nul(chunk, 0, have, 0, path)
    _jit.need(size if size is not None else (have if eof else _jit.THRESHOLD))
    if eof and not _jit.compiled():   # a small file, read whole: its lines by bytes methods, where they are plain
        plain = _read_plain(bytes(chunk[:have]), path, kind)
        if plain is not None:
            return plain
    # where the size is known: room for the lines the file holds at the first chunk's line length
    # (a quarter more; at most every line a file can hold: 8 bytes a qrels line, 12 a run's):
    # pages untouched cost no memory, and the arrays grow if the estimate falls short
    est = size if size is not None else max(4 * have, _START)
    cap = est // (12 if is_run else 8) + 2
    if size is not None and not eof:
        newlines = int(count_newlines(chunk[:have]) if _jit.compiled() else np.count_nonzero(chunk[:have] == 10))
        if newlines >= 100:
            cap = min(cap, int(size / have * newlines * 1.25) + 1024)
    ids = np.empty(est + 1, dtype=np.uint8)
    id_off = np.empty(cap + 1, dtype=np.int64)
    id_off[0] = 0
    dh = np.empty(cap, dtype=np.uint64)
    value = np.empty(cap, dtype=np.float64)
    qbuf = np.empty(min(est, 16 * _START) + 1, dtype=np.uint8)
    seg_start = np.empty(min(cap, _START), dtype=np.int64)
    seg_off = np.empty(len(seg_start) + 1, dtype=np.int64)
    seg_off[0] = 0
    skip_at = np.empty(min(cap, _START), dtype=np.int64)
    skip_cum = np.empty(len(skip_at), dtype=np.int64)
    fb = np.empty((_FB_CAP, 3), dtype=np.int64)
    st = np.zeros(N_STATE, dtype=np.int64)
    tag = b""
    while True:
        status = _scan(chunk[:have], have, eof, is_run, st, ids, id_off, dh, value, qbuf, seg_start, seg_off,
                       skip_at, skip_cum, fb)
        if st[_TAG_S] >= 0:
            tag = bytes(chunk[st[_TAG_S]:st[_TAG_E]])
        _fallback_scores(chunk, fb, st, value, skip_at, skip_cum, path)
        _raise_bad_line(status, st, chunk[:have], path, kind)
        done = int(st[_DONE])
        if status == _ROOM:
            j = int(st[_J])
            line_max = have - done + 1
            if j + 1 >= len(dh):
                id_off, dh, value = _grow(id_off, j + 2), _grow(dh, j + 1), _grow(value, j + 1)
            if id_off[j] + line_max > len(ids):
                ids = _grow(ids, int(id_off[j]) + line_max)
            if st[_NSEG] + 1 >= len(seg_start):
                seg_start, seg_off = _grow(seg_start, int(st[_NSEG]) + 2), _grow(seg_off, int(st[_NSEG]) + 3)
            if st[_QUSED] + line_max > len(qbuf):
                qbuf = _grow(qbuf, int(st[_QUSED]) + line_max)
            if st[_NSKIP] >= len(skip_at):
                skip_at, skip_cum = _grow(skip_at, int(st[_NSKIP]) + 1), _grow(skip_cum, int(st[_NSKIP]) + 1)
        if status in (_ROOM, _FALLBACKS) or (status == _OK and not eof):
            rest = have - done
            if status == _OK and done == 0 and rest == len(chunk):   # a line longer than the chunk
                chunk = _grow(chunk, 2 * len(chunk))
            chunk[:rest] = chunk[done:have]
            have = rest
            if status == _OK:
                got = rd.readinto(memoryview(chunk)[rest:])
                _refuse_nul(chunk, rest, have + got, int(st[_LINE]), path)
                have += got
                eof = have < len(chunk)
            continue
        break
    return _trec_file(path, kind, st, tag, ids, id_off, dh, value, qbuf, seg_start, seg_off, skip_at, skip_cum)


#: a relevance as ``_atol`` takes it (trec_scan): ASCII digits after an optional sign, then ``.digits``
_RELEVANCE = re.compile(rb"([+-]?)([0-9]+)(?:\.[0-9]*)?")


def _read_plain(data: bytes, path: Path, kind: str):
    """The :class:`TrecFile` of a whole small file as the scan kernel (``trec_scan._scan``) reads
    it, made with bytes methods and NumPy instead of the kernel's byte loop, which interpreted
    (:mod:`evalrank._jit`) takes most of a small ``evaluate``'s time (19 of 26 ms on 10 topics x
    100 documents); ``None`` where the file is not plain: a blank or comment line, a carriage
    return other than CRLF's, a line with the wrong number of fields, a relevance or score the
    kernel would refuse or hand to C's strtod as not finite. The kernel reads those files, and
    says what is wrong with them: this path adds no rule of its own (tests/data/test_trec_chunks.py
    compares the two on plain and irregular files).

    ``bytes.split()`` splits at the kernel's blanks (space, tab, CR, VT, FF) and newlines; a CR
    that ends a line (CRLF) is one of those blanks."""
    if data.count(b"\r") != data.count(b"\r\n"):
        return None
    lines = data.split(b"\n")
    if not lines[-1]:
        lines.pop()   # the newline that ends the file
    is_run = kind == "run"
    toks = [line.split() for line in lines]
    if not toks or not all(toks):
        return None   # an empty file, or a blank line
    want = 6 if is_run else 4
    if any(len(t) < want if is_run else len(t) != want for t in toks):
        return None
    qtok = [t[0] for t in toks]
    if any(q[:1] == b"#" for q in qtok):
        return None   # a comment line
    if is_run:
        values = [strtod(t[4]) for t in toks]
        if None in values:
            return None
        value = np.array(values, dtype=np.float64)
        if not np.isfinite(value).all():
            return None
    else:
        value = np.empty(len(toks), dtype=np.float64)
        for j, t in enumerate(toks):
            m = _RELEVANCE.fullmatch(t[3])
            if m is None or len(m.group(2)) > 18:
                return None
            value[j] = -int(m.group(2)) if m.group(1) == b"-" else int(m.group(2))
    n = len(toks)
    docs = [t[2] for t in toks]
    ids = np.frombuffer(b"".join(docs), dtype=np.uint8)
    id_off = np.zeros(n + 1, dtype=np.int64)
    np.cumsum([len(d) for d in docs], out=id_off[1:])
    seg_start = [0] + [j for j in range(1, n) if qtok[j] != qtok[j - 1]]
    qsegs = [qtok[j] for j in seg_start]
    qbuf = np.frombuffer(b"".join(qsegs), dtype=np.uint8)
    seg_off = np.zeros(len(qsegs) + 1, dtype=np.int64)
    np.cumsum([len(q) for q in qsegs], out=seg_off[1:])
    st = np.zeros(N_STATE, dtype=np.int64)
    st[_J], st[_NSEG], st[_LINE], st[_QUSED], st[_DONE] = n, len(qsegs), n, seg_off[-1], len(data)
    none = np.empty(0, dtype=np.int64)
    tag = toks[-1][5] if is_run else b""
    dh = _fnv1a_np(ids, id_off[:-1], id_off[1:])
    return _trec_file(path, kind, st, tag, ids, id_off, dh, value, qbuf, np.array(seg_start, dtype=np.int64), seg_off,
                      none, none)


def _fallback_scores(chunk, fb, st, value, skip_at, skip_cum, path) -> None:
    """The scores the scan left to C's strtod (long mantissas, exponents beyond 1e22, hex, nan,
    inf) into ``value``; one that is not a finite number is an error naming its line."""
    for j, s, e in fb[:st[_NFB]].tolist():
        raw = bytes(chunk[s:e])
        v = strtod(raw)
        line = _line_at(st, skip_at, skip_cum, j)
        if v is None:
            raise TrecFormatError(f"{path}:{line}: score {raw.decode('utf-8', 'replace')!r} is not a number "
                                  "(C's strtod, as trec_eval reads scores: ASCII digits, '.', an exponent)")
        if not np.isfinite(v):
            raise TrecFormatError(f"{path}:{line}: score {raw.decode('utf-8', 'replace')!r} is not finite")
        value[j] = v
    st[_NFB] = 0


_NUL = re.compile(b"\x00")
#: bytes no text line holds: C0 controls but the blanks (tab, LF, VT, FF, CR), and DEL
_CONTROL = re.compile(b"[\x00-\x08\x0e-\x1f\x7f]")


def _refuse_nul(chunk, start: int, end: int, lines_before: int, path) -> None:
    """A NUL byte in ``chunk[start:end]`` (a chunk whose byte 0 starts line ``lines_before + 1``)
    as an error naming its line: a NUL ends a C string, so trec_eval would read the id up to it
    (or crash), and this reader would keep the bytes after it: no answer to trust. Found by the
    regular expression engine's byte search, no copy of the chunk."""
    m = _NUL.search(memoryview(chunk)[:end], start)
    if m is None:
        return
    line = lines_before + 1 + bytes(memoryview(chunk)[:m.start()]).count(b"\n")
    raise TrecFormatError(f"{path}:{line}: a NUL byte (0x00): not a text file (binary data, or UTF-16 text: "
                          "convert it to UTF-8); trec_eval reads TREC files as text")


def _binary_line(chunk, st) -> str | None:
    """The control byte that makes the error's line binary data (for the message), else None."""
    s = int(st[_ERR_POS])
    view = bytes(memoryview(chunk)[s:s + 4096])
    m = _CONTROL.search(view.split(b"\n", 1)[0])
    return None if m is None else f"0x{m.group()[0]:02x}"


def _raise_bad_line(status: int, st, chunk, path, kind: str) -> None:
    """The scan's error ``status`` (a line with too few or too many fields, a lone CR, a relevance
    that is not an integer, a blank line in qrels) as a :class:`TrecFormatError` naming file and
    line; a line holding control bytes is said to be binary data, whatever the error; else nothing."""
    if status in (_FEW_FIELDS, _EXTRA_FIELDS, _LONE_CR, _BAD_NUMBER):
        byte = _binary_line(chunk, st)
        if byte is not None:
            raise TrecFormatError(f"{path}:{st[_ERR_LINE]}: control byte {byte}: not a text file (binary data?); "
                                  f"a {kind} file is text lines")
    if status == _BLANK:
        raise TrecFormatError(f"{path}:{st[_ERR_LINE]}: a blank line in qrels (trec_eval 9.0.8 stops here: "
                              f"'Malformed line {st[_ERR_LINE]}'); remove it")
    if status in (_FEW_FIELDS, _EXTRA_FIELDS):
        want = "6 fields 'qid Q0 docno rank score tag' (or more)" if kind == "run" else "4 fields 'qid iter docno rel'"
        raise TrecFormatError(f"{path}:{st[_ERR_LINE]}: a {kind} line has {want}, got {st[_NF]}")
    if status == _LONE_CR:
        raise TrecFormatError(f"{path}:{st[_ERR_LINE]}: a carriage return (CR) not followed by a newline: "
                              "old-Mac line ends (CR only), which trec_eval does not read as line ends; convert "
                              "them to LF (tr '\\r' '\\n')")
    if status == _BAD_NUMBER:
        tok = bytes(chunk[st[_TOK_S]:st[_TOK_E]]).decode("utf-8", "replace")
        raise TrecFormatError(f"{path}:{st[_ERR_LINE]}: relevance {tok!r} is not an integer")


def _trec_file(path, kind: str, st, tag: bytes, ids, id_off, dh, value, qbuf, seg_start, seg_off, skip_at,
               skip_cum) -> TrecFile:
    """The scanned file as a :class:`TrecFile`: its arrays cut to the lines read, its query ids
    decoded once per distinct id (``strcmp`` order: codes) and repeated over their lines."""
    n = int(st[_J])
    if n == 0:
        raise TrecFormatError(f"{path}: no {kind} lines (the file is empty or all comments)")
    nseg, nskip = int(st[_NSEG]), int(st[_NSKIP])
    skip_at, skip_cum = skip_at[:nskip].copy(), skip_cum[:nskip].copy()
    seg_start = seg_start[:nseg]

    def decode(raw, s):
        return _decode(raw, path, _line_at(st, skip_at, skip_cum, int(seg_start[s])), "query id")

    seg_code, qids, _ = sorted_codes(qbuf, seg_off[:nseg], seg_off[1:nseg + 1], decode)
    sizes = np.diff(np.append(seg_start, n))
    qid = np.repeat(seg_code.astype(np.int32 if len(qids) < 2 ** 31 else np.int64), sizes)
    tagged = tag.decode("utf-8", "replace") if kind == "run" else ""
    return TrecFile(str(path), kind, ids, qids, qid, id_off[:n], id_off[1:n + 1], dh[:n], value[:n], tagged,
                    skip_at, skip_cum)


def _line_at(st, skip_at, skip_cum, j: int) -> int:
    k = int(np.searchsorted(skip_at[:int(st[_NSKIP])], j, side="right")) - 1
    return int(j) + 1 + (int(skip_cum[k]) if k >= 0 else 0)


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
