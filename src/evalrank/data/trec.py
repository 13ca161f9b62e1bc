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
interpreted for small ones: :mod:`evalrank._jit`) a chunk at a time: one pass keeps, per
line, the document id (appended to one buffer of ids: the rest of the line is not kept), a
64-bit FNV-1a hash of it and the parsed score or relevance; the peak memory is about the ids
plus 28 bytes a line, not the file. No Python object is made per line: query ids are kept
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
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from evalrank import _jit
from evalrank._jit import njit
from evalrank.data.bytescan import count_newlines
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

# error codes of the scan kernel; _ROOM and _FALLBACKS: not errors, the caller makes room / reads
# the fallback scores and calls again
_OK, _FEW_FIELDS, _EXTRA_FIELDS, _BAD_NUMBER, _LONE_CR, _ROOM, _FALLBACKS = 0, 1, 2, 3, 4, 5, 6
# the scan's state (an int64 array kept between the calls on the chunks of a file)
_LINE, _J, _NSEG, _QUSED, _NSKIP, _NFB, _DONE, _ERR_LINE, _TOK_S, _TOK_E, _NF, _TAG_S, _TAG_E = range(13)


@njit(cache=True, nogil=True, wraparound=True)
def fnv1a(buf, s, e):
    """64-bit FNV-1a hash of ``buf[s:e]``."""
    h = _FNV_OFFSET
    for i in range(np.uint64(s), np.uint64(e)):   # unsigned: no negative-index test (40 % faster)
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
def _scan(buf, n, final, is_run, st, ids, id_off, dh, value, qbuf, seg_start, seg_off, skip_at, skip_cum, fb):
    """Scan the lines of ``buf[:n]`` (a chunk of a qrels file, ``is_run`` False, or of a run),
    all of them when ``final`` (the end of the file), else the complete ones (ending in a
    newline); the state ``st`` carries over from the previous chunk.

    Per data line ``j`` (``st[_J]`` so far): the document id's bytes are appended to ``ids``
    (``id_off[j]:id_off[j + 1]``, no separator) and its FNV-1a hash goes to ``dh[j]``, the
    score or relevance to ``value[j]``. A query id that differs from the previous line's
    starts a segment ``s``: its first data line ``seg_start[s]``, its bytes appended to
    ``qbuf`` (``seg_off[s]:seg_off[s + 1]``). Lines that are not data lines (blank, ``#``)
    before data line j: ``skip_at[k] = j``, ``skip_cum[k]`` = all such lines up to there.
    Scores the fast parser leaves to C's strtod: ``fb[k] = (j, token start, token end)``.
    ``st[_TAG_S]:st[_TAG_E]``: the last line's tag (runs). Stops at the first malformed line
    (its number in ``st[_ERR_LINE]``), when an output array is full (``_ROOM``) or ``fb`` is
    (``_FALLBACKS``); ``st[_DONE]``: the bytes of ``buf`` used up (whole lines).
    A carriage return followed by more text on its line (old-Mac line ends, CR only) stops the
    scan with ``_LONE_CR``; CRLF and blanks after a CR are whitespace as in trec_eval.
    """
    i = 0
    line = st[_LINE]
    j = st[_J]
    nseg = st[_NSEG]
    qused = st[_QUSED]
    nskip = st[_NSKIP]
    nfb = st[_NFB]
    last_gap = skip_cum[nskip - 1] if nskip > 0 else 0
    status = _OK
    st[_TAG_S] = -1
    done = 0   # bytes of whole lines read
    while i < n:
        # skip leading blanks
        cr = False
        while i < n and _space(buf[i]):
            if buf[i] == 13:
                cr = True
            i += 1
        if i >= n:
            if final:
                done = n   # blanks at the end of the file: no line
            break
        if buf[i] == 10:
            line += 1
            i += 1
            done = i
            continue
        if cr:
            status = _LONE_CR
            st[_ERR_LINE] = line + 1
            break
        if buf[i] == 35:  # '#': a comment line
            bad = False
            while i < n and buf[i] != 10:
                if buf[i] == 13:
                    cr = True
                elif cr and not _space(buf[i]):
                    bad = True
                    break
                i += 1
            if bad:
                status = _LONE_CR
                st[_ERR_LINE] = line + 1
                break
            if i >= n and not final:
                break
            line += 1
            i += 1
            done = min(i, n)
            continue
        # tokenize the line
        nf = 0
        t0s = t0e = t2s = t2e = t3s = t3e = t4s = t4e = t5s = t5e = 0
        bad = False
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
            elif nf == 5:
                t5s, t5e = s, i
            nf += 1
            while i < n and buf[i] != 10 and _space(buf[i]):
                if buf[i] == 13:
                    cr = True
                i += 1
            if cr and i < n and buf[i] != 10:
                bad = True
                break
        if bad:
            status = _LONE_CR
            st[_ERR_LINE] = line + 1
            break
        if i >= n and not final:
            break   # the line goes on in the next chunk
        # a whole line: parse it, then make sure of the room, then keep it
        if is_run:
            if nf < 6:
                status = _FEW_FIELDS
                st[_ERR_LINE] = line + 1
                st[_NF] = nf
                break
            ok, v = _fast_float(buf, t4s, t4e)
            fallback = not ok
            if fallback:
                v = 0.0
        else:
            if nf != 4:
                status = _FEW_FIELDS if nf < 4 else _EXTRA_FIELDS
                st[_ERR_LINE] = line + 1
                st[_NF] = nf
                break
            ok, r = _atol(buf, t3s, t3e)
            if not ok:
                status = _BAD_NUMBER
                st[_ERR_LINE] = line + 1
                st[_TOK_S] = t3s
                st[_TOK_E] = t3e
                break
            v = np.float64(r)
            fallback = False
        qlen = t0e - t0s
        same = nseg > 0 and seg_off[nseg] - seg_off[nseg - 1] == qlen
        if same:
            q0 = seg_off[nseg - 1]
            for c in range(qlen):
                if qbuf[q0 + c] != buf[t0s + c]:
                    same = False
                    break
        gap = line - j   # lines so far that are not data lines
        dlen = t2e - t2s
        if (j >= len(dh) or id_off[j] + dlen > len(ids)
                or (not same and (nseg >= len(seg_start) or nseg + 1 >= len(seg_off) or qused + qlen > len(qbuf)))
                or (gap != last_gap and nskip >= len(skip_at))):
            status = _ROOM
            break
        if fallback and nfb >= len(fb):
            status = _FALLBACKS
            break
        value[j] = v
        if fallback:
            fb[nfb, 0] = j
            fb[nfb, 1] = t4s
            fb[nfb, 2] = t4e
            nfb += 1
        if is_run:
            st[_TAG_S] = t5s
            st[_TAG_E] = t5e
        line += 1
        i += 1  # past the newline
        done = min(i, n)
        if gap != last_gap:
            skip_at[nskip] = j
            skip_cum[nskip] = gap
            nskip += 1
            last_gap = gap
        p = id_off[j]
        pu = np.uint64(p)
        su = np.uint64(t2s)
        for c in range(np.uint64(dlen)):   # unsigned indices: no negative-index test, the copy vectorizes
            ids[pu + c] = buf[su + c]
        id_off[j + 1] = p + dlen
        dh[j] = fnv1a(buf, t2s, t2e)
        if not same:
            seg_start[nseg] = j
            for c in range(qlen):
                qbuf[qused + c] = buf[t0s + c]
            qused += qlen
            nseg += 1
            seg_off[nseg] = qused
        j += 1
    st[_LINE] = line
    st[_J] = j
    st[_NSEG] = nseg
    st[_QUSED] = qused
    st[_NSKIP] = nskip
    st[_NFB] = nfb
    st[_DONE] = done
    return status


@njit(cache=True, wraparound=True)
def factorize_spans(buf, start, end, codes, first, fhash):
    """Codes of equal byte strings ``buf[start[i]:end[i]]`` in order of first appearance:
    ``codes[i]`` for string i, ``first[c]`` the first string of code c; returns the number of
    codes. A string equal to the one before takes its code without hashing."""
    n = len(start)
    cap = 1024
    table = np.full(cap, -1, dtype=np.int64)
    k = 0
    for i in range(n):
        if i > 0 and end[i] - start[i] == end[i - 1] - start[i - 1]:
            same = True
            for c in range(end[i] - start[i]):
                if buf[start[i] + c] != buf[start[i - 1] + c]:
                    same = False
                    break
            if same:
                codes[i] = codes[i - 1]
                continue
        h = fnv1a(buf, start[i], end[i])
        mask = np.uint64(cap - 1)
        s = np.int64(h & mask)
        while True:
            t = table[s]
            if t < 0:
                table[s] = k
                first[k] = i
                fhash[k] = h
                codes[i] = k
                k += 1
                break
            f = first[t]
            if fhash[t] == h and end[f] - start[f] == end[i] - start[i]:
                same = True
                for c in range(end[i] - start[i]):
                    if buf[start[i] + c] != buf[start[f] + c]:
                        same = False
                        break
                if same:
                    codes[i] = t
                    break
            s = np.int64((s + 1) & (cap - 1))
        if 2 * k > cap:  # grow: load factor at most 1/2
            cap *= 2
            table = np.full(cap, -1, dtype=np.int64)
            mask = np.uint64(cap - 1)
            for t in range(k):
                s = np.int64(fhash[t] & mask)
                while table[s] >= 0:
                    s = np.int64((s + 1) & (cap - 1))
                table[s] = t
    return k


@njit(cache=True)
def _sort_spans(buf, start, end):
    """The strings ``buf[start[i]:end[i]]`` in byte (strcmp) order, as indices: an MSD sort
    eight bytes a step (a big-endian key of the bytes from ``d``, zero-padded, sorted stably;
    each group of equal keys again from ``d + 8``); a group whose strings all end before ``d``
    by length (each is then a prefix of the longer ones, padded with NULs)."""
    n = len(start)
    order = np.arange(n)
    key = np.zeros(n, dtype=np.uint64)
    lo_s = np.empty(n + 1, dtype=np.int64)   # pending groups: disjoint, at most n
    hi_s = np.empty(n + 1, dtype=np.int64)
    dep_s = np.empty(n + 1, dtype=np.int64)
    lo_s[0], hi_s[0], dep_s[0] = 0, n, 0
    top = 1
    while top > 0:
        top -= 1
        lo, hi, d = lo_s[top], hi_s[top], dep_s[top]
        ended = True
        for i in range(lo, hi):
            ended &= end[order[i]] - start[order[i]] <= d
        for i in range(lo, hi):
            j = order[i]
            v = np.uint64(end[j] - start[j])
            if not ended:
                v = np.uint64(0)
                for c in range(d, d + 8):
                    v = v << np.uint64(8)
                    if start[j] + c < end[j]:
                        v |= np.uint64(buf[start[j] + c])
            key[i] = v
        sub = np.argsort(key[lo:hi], kind="mergesort")
        order[lo:hi] = order[lo:hi][sub]
        key[lo:hi] = key[lo:hi][sub]
        i = lo
        while i < hi:
            j = i + 1
            while j < hi and key[j] == key[i]:
                j += 1
            if j - i > 1 and not ended:
                lo_s[top], hi_s[top], dep_s[top] = i, j, d + 8
                top += 1
            i = j
    return order


def _sorted_names(buf, start, end, first):
    """Compiled: the positions (in ``first``) of the distinct strings in byte order and their
    names, one gather, one decode and one split; None where that cannot be told this way (an
    id holds a newline or is not UTF-8: the caller decodes name by name)."""
    k = len(first)
    order = _sort_spans(buf, start[first], end[first])
    rows = first[order]
    lens = end[rows] - start[rows]
    off = np.zeros(k + 1, dtype=np.int64)
    np.cumsum(lens + 1, out=off[1:])
    sub = np.empty(max(int(off[-1]) - 1, 0), dtype=np.uint8)
    _gather_spans(buf, start, end, rows, sub, off, 10)
    try:
        names = sub.tobytes().decode("utf-8").split("\n")
    except UnicodeDecodeError:
        return None
    return (order, names) if len(names) == k else None


def sorted_codes(buf, start, end, decode):
    """``(codes, names, first)`` for the strings ``buf[start[i]:end[i]]``: codes numbered in
    strcmp (byte) order, trec_eval's order of topics; ``names[c]``: ``decode(raw, i)`` of code
    c's bytes (``i`` its first string); ``first[c]``: that string's index."""
    m = len(start)
    seg_code = np.empty(m, dtype=np.int64)
    first = np.empty(m, dtype=np.int64)
    k = factorize_spans(buf, start, end, seg_code, first, np.empty(m, dtype=np.uint64))
    first = first[:k]
    done = _sorted_names(buf, start, end, first) if _jit.compiled() and k else None
    if done is not None:
        order, names = done
        remap = np.empty(k, dtype=np.int64)
        remap[order] = np.arange(k)
        return remap[seg_code], names, first[order]
    lens = end[first] - start[first]
    off = np.zeros(k + 1, dtype=np.int64)
    np.cumsum(lens, out=off[1:])
    sub = np.empty(int(off[-1]), dtype=np.uint8)
    _gather_spans(buf, start, end, first, sub, off, -1)
    text = sub.tobytes()
    bounds = off.tolist()
    if text.isascii():   # one decode; slices of it
        whole = text.decode("ascii")
        names = [whole[bounds[c]:bounds[c + 1]] for c in range(k)]
    else:
        names = [decode(text[bounds[c]:bounds[c + 1]], int(first[c])) for c in range(k)]
    order = sorted(range(k), key=names.__getitem__)   # code points: UTF-8's byte (strcmp) order
    remap = np.empty(k, dtype=np.int64)
    remap[order] = np.arange(k)
    names = [names[c] for c in order]
    return remap[seg_code], names, first[order]


@njit(cache=True)
def _gather_spans(buf, start, end, rows, out, offsets, sep):
    """The bytes of strings ``rows`` one after the other, from ``offsets[i]``, each but the last
    followed by byte ``sep`` where it is not negative."""
    for i in range(len(rows)):
        j = rows[i]
        p = offsets[i]
        for c in range(start[j], end[j]):
            out[p] = buf[c]
            p += 1
        if sep >= 0 and i + 1 < len(rows):
            out[p] = sep


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
        import gzip
        import stat

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
        self.src = gzip.GzipFile(fileobj=self.fh) if self.gzip else self.fh
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
        return _read(rd, path, kind)
    finally:
        rd.close()


def _read(rd: _Reader, path: Path, kind: str) -> TrecFile:
    is_run = kind == "run"
    size = rd.size
    chunk = np.empty(min(_CHUNK, size + 1) if size is not None else _CHUNK, dtype=np.uint8)
    have = rd.readinto(memoryview(chunk))
    eof = have < len(chunk)
    _jit.need(size if size is not None else (have if eof else _jit.THRESHOLD))
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
    st = np.zeros(13, dtype=np.int64)
    tag = b""
    while True:
        status = _scan(chunk[:have], have, eof, is_run, st, ids, id_off, dh, value, qbuf, seg_start, seg_off,
                       skip_at, skip_cum, fb)
        if st[_TAG_S] >= 0:
            tag = bytes(chunk[st[_TAG_S]:st[_TAG_E]])
        for j, s, e in fb[:st[_NFB]].tolist():   # long mantissas, exponents beyond 1e22, hex, nan, inf
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
        if status in (_FEW_FIELDS, _EXTRA_FIELDS):
            want = "6 fields 'qid Q0 docno rank score tag' (or more)" if is_run else "4 fields 'qid iter docno rel'"
            raise TrecFormatError(f"{path}:{st[_ERR_LINE]}: a {kind} line has {want}, got {st[_NF]}")
        if status == _LONE_CR:
            raise TrecFormatError(f"{path}:{st[_ERR_LINE]}: a carriage return (CR) not followed by a newline: "
                                  "old-Mac line ends (CR only), which trec_eval does not read as line ends; convert "
                                  "them to LF (tr '\\r' '\\n')")
        if status == _BAD_NUMBER:
            tok = bytes(chunk[st[_TOK_S]:st[_TOK_E]]).decode("utf-8", "replace")
            raise TrecFormatError(f"{path}:{st[_ERR_LINE]}: relevance {tok!r} is not an integer")
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
                have += got
                eof = have < len(chunk)
            continue
        break
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
    tagged = tag.decode("utf-8", "replace") if is_run else ""
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
