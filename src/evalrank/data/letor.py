"""LETOR / SVMlight ranking text files: a compiled writer and reader.

One document per line::

    <label> qid:<qid> <i>:<v> <i>:<v> ... [# comment]

e.g. MSLR-WEB30K ``2 qid:10 1:3 2:0 ... 136:0.5`` or LETOR 4.0
``0 qid:10002 1:0.007477 ... #docid = GX008-86-4444840 inc = 1 prob = 0.086622``.
Documents of one query are contiguous.

:func:`write_letor` formats rows with a numba byte formatter;
:func:`read_letor` parses the bytes (memory-mapped, in chunks that end at line
boundaries) with a numba byte parser; :func:`load_letor` adds an ``.npz``
cache keyed on the file's identity.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from evalrank import io
from evalrank._jit import numba  # numba, with bytescan's byte kernels (called below) compiled
from evalrank.data.bytescan import DamagedGzipError, file_bytes
from evalrank.data.bytescan import count_newlines as _count_newlines
from evalrank.data.bytescan import fast_float as _fast_float
from evalrank.data.bytescan import is_blank as _is_blank
from evalrank.data.collection import Collection
from evalrank.progress import progress

__all__ = ["write_letor", "read_letor", "load_letor", "cache_path", "LetorFormatError", "PARSER_VERSION"]

#: Bump whenever parsing results could change, so that old caches are ignored.
PARSER_VERSION = 1

_MAX_DECIMALS = 9
# Non-integral float32 values are < 2**24 in magnitude; integral ones below this
# bound fit an int64 comfortably. Values at or above it (and nan/inf) are
# formatted in Python through a small lookup table.
_INT_LIMIT = float(2**62)
_WRITE_CHUNK_BYTES = 32 * 2**20


# ---------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------
class LetorFormatError(ValueError):
    """A malformed LETOR file; ``str(e)`` is ``"<path>:<line>: <reason>"``."""

    def __init__(self, path, line: int, reason: str):
        self.path = str(path)
        self.line = int(line)
        self.reason = str(reason)
        super().__init__(f"{self.path}:{self.line}: {self.reason}")

    def __reduce__(self):
        return (type(self), (self.path, self.line, self.reason))


# ---------------------------------------------------------------------------
# writer
# ---------------------------------------------------------------------------
_P10_INT = np.array([10**k for k in range(19)], dtype=np.int64)
_DIGIT_PAIRS = np.frombuffer("".join(f"{k:02d}" for k in range(100)).encode(), dtype=np.uint8).copy()


@numba.njit(cache=True, nogil=True, inline="always")
def _put_digits(buf, end, v, n):
    """Write the ``n`` lowest decimal digits of ``v >= 0`` ending just before
    ``buf[end]`` (zero-padded), two digits per division."""
    i = end
    u = np.uint64(v)  # unsigned: division by a constant without sign fix-ups
    c100 = np.uint64(100)
    while n >= 2:
        q = u // c100
        r = (u - q * c100) * np.uint64(2)
        buf[i - 1] = _DIGIT_PAIRS[r + np.uint64(1)]
        buf[i - 2] = _DIGIT_PAIRS[r]
        u = q
        i -= 2
        n -= 2
    if n == 1:
        buf[i - 1] = np.uint8(48) + np.uint8(u)


@numba.njit(cache=True, nogil=True, inline="always")
def _put_uint(buf, pos, v):
    """Write the decimal digits of the non-negative int ``v`` at ``buf[pos:]``."""
    if v < 10:
        buf[pos] = 48 + v
        return pos + 1
    n = 2
    while n < 19 and v >= _P10_INT[n]:
        n += 1
    _put_digits(buf, pos + n, v, n)
    return pos + n


@numba.njit(cache=True, nogil=True, inline="always")
def _put_int(buf, pos, v):
    """Write the (signed) int ``v`` in decimal."""
    if v < 0:
        buf[pos] = 45  # '-'
        return _put_uint(buf, pos + 1, -v)
    return _put_uint(buf, pos, v)


@numba.njit(cache=True, nogil=True, inline="always")
def _put_bytes(buf, pos, src, start, stop):
    for k in range(start, stop):
        buf[pos] = src[k]
        pos += 1
    return pos


@numba.njit(cache=True, nogil=True, inline="always")
def _put_value(buf, pos, x, scale, decimals, pow10, hard_vals, hard_blob, hard_offs):
    """Write float32 ``x`` compactly with at most ``decimals`` decimals.

    For ``decimals <= 9`` the product ``float64(x) * 10**decimals`` is exact
    (24 + 21 significant bits: 10**9 = 2**9 * 5**9), so ``rint`` of it is the correctly rounded
    (half-even) scaled value, i.e. the digits ``'%.{decimals}f' % x`` prints.
    """
    v = np.float64(x)
    a = abs(v)
    if a < 4.611686018427388e18:  # 2**62 (false for nan)
        t = np.floor(a)
        ip = np.int64(t)
        if v < 0:
            buf[pos] = 45  # '-', taken back below if the value rounds to 0
            pos += 1
        if t == a:  # integral
            if ip == 0 and v < 0:  # -0.0
                pos -= 1
            return _put_uint(buf, pos, ip)
        # a < 2**24 here, so a * scale is exact and rint rounds half-even
        fp = np.int64(np.rint(a * scale)) - ip * pow10
        if fp >= pow10:
            ip += 1
            fp -= pow10
        if ip == 0 and fp == 0 and v < 0:
            pos -= 1
        pos = _put_uint(buf, pos, ip)
        if fp != 0:
            nd = decimals
            while fp % 10 == 0:
                fp //= 10
                nd -= 1
            buf[pos] = 46  # '.'
            pos += 1 + nd
            _put_digits(buf, pos, fp, nd)
        return pos
    if v != v:
        buf[pos] = 110; buf[pos + 1] = 97; buf[pos + 2] = 110  # nan
        return pos + 3
    k = np.searchsorted(hard_vals, v)
    return _put_bytes(buf, pos, hard_blob, hard_offs[k], hard_offs[k + 1])
    return pos


@numba.njit(cache=True, nogil=True)
def _format_rows(
    features, labels, qid_of_row, row0, row1, decimals,
    idx_blob, idx_offs, hard_vals, hard_blob, hard_offs,
    id_blob, id_lens, with_ids, buf,
):
    """Format rows ``row0:row1`` into ``buf``; return the number of bytes.

    Returns ``-(row + 1)`` if the doc id of ``row`` is empty or has whitespace.
    """
    pow10 = np.int64(1)
    for _ in range(decimals):
        pow10 *= 10
    scale = np.float64(pow10)
    n_features = features.shape[1]
    pos = 0
    for r in range(row0, row1):
        pos = _put_int(buf, pos, np.int64(labels[r]))
        buf[pos] = 32; buf[pos + 1] = 113; buf[pos + 2] = 105; buf[pos + 3] = 100; buf[pos + 4] = 58  # " qid:"
        pos = _put_int(buf, pos + 5, qid_of_row[r])
        for j in range(n_features):
            pos = _put_bytes(buf, pos, idx_blob, idx_offs[j], idx_offs[j + 1])  # " j:"
            pos = _put_value(buf, pos, features[r, j], scale, decimals, pow10, hard_vals, hard_blob, hard_offs)
        if with_ids:
            n = id_lens[r]
            if n == 0:
                return -(r + 1)
            # " #docid = "
            buf[pos] = 32; buf[pos + 1] = 35; buf[pos + 2] = 100; buf[pos + 3] = 111; buf[pos + 4] = 99
            buf[pos + 5] = 105; buf[pos + 6] = 100; buf[pos + 7] = 32; buf[pos + 8] = 61; buf[pos + 9] = 32
            pos += 10
            for k in range(n):
                c = id_blob[r, k]
                if c == 32 or c == 9 or c == 10 or c == 13 or c == 11 or c == 12:
                    return -(r + 1)
                buf[pos] = c
                pos += 1
        buf[pos] = 10
        pos += 1
    return pos


def _index_table(n_features: int) -> tuple[np.ndarray, np.ndarray]:
    """Bytes ``" 1:" " 2:" ...`` concatenated, with offsets."""
    parts = [f" {j}:".encode() for j in range(1, n_features + 1)]
    offs = np.zeros(n_features + 1, dtype=np.int64)
    np.cumsum([len(p) for p in parts], out=offs[1:])
    return np.frombuffer(b"".join(parts), dtype=np.uint8).copy(), offs


def _hard_table(chunk: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sorted distinct values of ``chunk`` the kernel cannot format (|x| >= 2**62,
    inf) with their text: the shortest float64 repr of the exact float32 value,
    positional, which parses back to the same float32. nan is handled in the kernel."""
    vals = chunk[~(np.abs(chunk) < _INT_LIMIT)]
    vals = np.unique(vals[~np.isnan(vals)]).astype(np.float64)
    texts = []
    for v in vals.tolist():
        if np.isinf(v):
            texts.append(b"inf" if v > 0 else b"-inf")
        else:
            texts.append(np.format_float_positional(v, trim="-").encode())
    offs = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum([len(t) for t in texts], out=offs[1:])
    blob = np.frombuffer(b"".join(texts), dtype=np.uint8).copy() if texts else np.zeros(0, np.uint8)
    return vals, blob, offs


def _encode_doc_ids(doc_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """UTF-8 bytes of every doc id as a (n_docs, width) uint8 array plus lengths."""
    enc = np.char.encode(np.asarray(doc_ids).astype(str), "utf-8")
    width = max(enc.dtype.itemsize, 1)
    lens = np.char.str_len(enc).astype(np.int64) if enc.size else np.zeros(0, np.int64)
    blob = np.ascontiguousarray(enc).view(np.uint8).reshape(len(enc), enc.dtype.itemsize)
    if blob.shape[1] == 0:
        blob = np.zeros((len(enc), width), np.uint8)
    return blob, lens


def write_letor(path, collection: Collection, *, decimals: int = 6, threads: int | None = None) -> None:
    """Write ``collection`` as a LETOR text file (atomically).

    Every feature ``1..n_features`` is written on every line (as MSLR does).
    Values are printed compactly: integers without a decimal point, others
    rounded (half-even on the exact float32 value) to at most ``decimals``
    decimals with trailing zeros stripped, e.g. ``0 12 0.5 -3.25 0.333333``.
    Values of magnitude >= 2**62 are written in full positional form, nan and
    inf as ``nan``, ``inf``, ``-inf``. Features are converted to float32. If
    ``collection.doc_ids`` is not None every line ends with ``#docid = <id>``
    (ids must be non-empty and free of whitespace). ``threads``: formatting threads
    (default: the usable CPUs, at most 4); the output does not depend on it.
    """
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, (int, np.integer))
                                or threads < 1):
        raise ValueError(f"threads must be a positive integer or None, got {threads!r}")
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str or os.PathLike, got {type(path).__name__}")
    if not isinstance(collection, Collection):
        raise TypeError(f"collection must be a Collection, got {type(collection).__name__}")
    if isinstance(decimals, bool) or not isinstance(decimals, (int, np.integer)):
        raise TypeError(f"decimals must be an int, got {type(decimals).__name__}")
    if not 0 <= decimals <= _MAX_DECIMALS:
        raise ValueError(f"decimals must be in 0..{_MAX_DECIMALS}, got {decimals}")

    features = np.ascontiguousarray(collection.features, dtype=np.float32)
    labels = np.ascontiguousarray(collection.labels, dtype=np.int64)
    qids = np.asarray(collection.qids, dtype=np.int64)
    qid_of_row = np.repeat(qids, np.diff(collection.offsets))
    n_docs, n_features = features.shape
    idx_blob, idx_offs = _index_table(n_features)
    with_ids = collection.doc_ids is not None
    if with_ids:
        id_blob, id_lens = _encode_doc_ids(collection.doc_ids)
    else:
        id_blob, id_lens = np.zeros((0, 1), np.uint8), np.zeros(0, np.int64)
    id_width = id_blob.shape[1] if with_ids else 0
    # bytes per value: sign + 19 int digits, or sign + 8 int digits + '.' + decimals
    base_val = 21
    row_fixed = 4 + 5 + 20 + 1 + (10 + id_width if with_ids else 0)
    idx_bytes = int(idx_offs[-1])

    row_bytes = row_fixed + idx_bytes + n_features * base_val
    rows_per_chunk = max(1, _WRITE_CHUNK_BYTES // row_bytes)

    def format_chunk(r0: int, buf: np.ndarray) -> tuple[np.ndarray, int]:
        """Format rows ``r0:r0 + rows_per_chunk`` into ``buf`` (grown if needed)."""
        r1 = min(n_docs, r0 + rows_per_chunk)
        hard_vals, hard_blob, hard_offs = _hard_table(features[r0:r1])
        val_bytes = max(base_val, int(np.diff(hard_offs).max(initial=0)))
        need = (r1 - r0) * (row_fixed + idx_bytes + n_features * val_bytes)
        if buf.size < need:
            buf = np.empty(need, dtype=np.uint8)
        n = _format_rows(
            features, labels, qid_of_row, r0, r1, decimals, idx_blob, idx_offs,
            hard_vals, hard_blob, hard_offs, id_blob, id_lens, with_ids, buf,
        )
        return buf, n

    with io.atomic_path(path) as tmp, open(tmp, "wb") as fh:
        for buf, n in _ordered_pipeline(format_chunk, range(0, n_docs, rows_per_chunk), threads or _n_threads()):
            if n < 0:
                bad = -n - 1
                raise ValueError(
                    f"collection.doc_ids[{bad}] = {collection.doc_ids[bad]!r} must be non-empty "
                    "and contain no whitespace to be written as '#docid = <id>'"
                )
            fh.write(memoryview(buf[:n]))


def _n_threads() -> int:
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        n = os.cpu_count() or 1
    return max(1, min(n, 4))


def _ordered_pipeline(work, starts, n_threads: int):
    """Run ``work(start, buf) -> (buf, n)`` on a few threads (the numba kernel
    releases the GIL) and yield the results in order, recycling the buffers
    once the consumer has taken them; the caller's file writes overlap the
    formatting of the next chunks."""
    from collections import deque
    from concurrent.futures import ThreadPoolExecutor

    free = [np.empty(0, dtype=np.uint8) for _ in range(n_threads + 1)]
    pending: deque = deque()
    with ThreadPoolExecutor(max_workers=n_threads, thread_name_prefix="write_letor") as pool:
        try:
            for start in starts:
                if not free:
                    result = pending.popleft().result()
                    yield result
                    free.append(result[0])
                pending.append(pool.submit(work, start, free.pop()))
            while pending:
                yield pending.popleft().result()
        finally:
            for fut in pending:
                fut.cancel()


# ---------------------------------------------------------------------------
# reader: compiled kernel
# ---------------------------------------------------------------------------
# kernel return codes: 0 = reached the end of the window; < 0 = suspended at
# the start of a line (the caller must act, then call again); > 0 = format error
_OK, _NEED_ROWS, _NEED_WIDER, _FALLBACK_FULL = 0, -1, -2, -3
(_E_MISSING_QID, _E_LABEL_NOT_INT, _E_LABEL_RANGE, _E_BAD_QID, _E_NO_COLON,
 _E_BAD_INDEX, _E_INDEX_LT1, _E_INDEX_BEYOND, _E_INDEX_ORDER) = range(1, 10)

# slots of the int64 ``state`` vector carried across kernel calls
(_S_POS, _S_LINE, _S_ROW, _S_NQ, _S_QID, _S_HAVE_Q, _S_MAX_IDX, _S_NFB,
 _S_ERR_LINE, _S_ERR_START, _S_ERR_END, _S_ERR_AUX, _S_ERR_AUX2) = range(13)
_N_STATE = 13

_FB_CAP = 1 << 16  # fallback tokens recorded per kernel call
_READ_CHUNK_BYTES = 8 * 2**20
@numba.njit(cache=True, nogil=True)
def _is_sep(c):
    """Token separator: whitespace, newline or the start of a comment."""
    return c == 32 or c == 9 or c == 13 or c == 10 or c == 35 or c == 11 or c == 12


@numba.njit(cache=True, nogil=True)
def _parse_int(buf, s, e):
    """Parse ``[+-]digits`` (at most 18 digits); returns ``(ok, value)``."""
    i = s
    neg = False
    if i < e and (buf[i] == 45 or buf[i] == 43):
        neg = buf[i] == 45
        i += 1
    if i == e or e - i > 18:
        return False, np.int64(0)
    v = np.int64(0)
    while i < e:
        d = np.int64(buf[i]) - 48
        if d < 0 or d > 9:
            return False, np.int64(0)
        v = v * 10 + d
        i += 1
    return True, -v if neg else v


@numba.njit(cache=True, nogil=True)
def _doc_id_span(buf, s, e):
    """Span of the doc id in the comment ``buf[s:e]``: the token after
    ``docid =`` / ``docid=`` if present, else the stripped comment."""
    while s < e and _is_blank(buf[s]):
        s += 1
    while e > s and _is_blank(buf[e - 1]):
        e -= 1
    i = s
    while i + 5 <= e:
        if buf[i] == 100 and buf[i + 1] == 111 and buf[i + 2] == 99 and buf[i + 3] == 105 and buf[i + 4] == 100:
            j = i + 5
            while j < e and _is_blank(buf[j]):
                j += 1
            if j < e and buf[j] == 61:  # '='
                j += 1
                while j < e and _is_blank(buf[j]):
                    j += 1
                k = j
                while k < e and not _is_blank(buf[k]):
                    k += 1
                if k > j:
                    return j, k
        i += 1
    return s, e


@numba.njit(cache=True, nogil=True)
def _error(state, code, line, start, end, aux, aux2):
    state[_S_ERR_LINE] = line
    state[_S_ERR_START] = start
    state[_S_ERR_END] = end
    state[_S_ERR_AUX] = aux
    state[_S_ERR_AUX2] = aux2
    return code


@numba.njit(cache=True, nogil=True)
def _parse_window(buf, end, state, features, labels, q_start, q_qid, q_line,
                  id_spans, want_ids, declared, lo_label, hi_label, fb):
    """Parse the lines of ``buf[state[POS]:end]`` into the output arrays.

    ``end`` is the end of the file or just past a newline. ``declared`` is the
    declared feature count or -1. Tokens the fast path cannot parse are
    recorded in ``fb`` as ``(row, col, line, start, end)`` (col -1 = label) for
    Python's ``float()``. On a suspension code the state is that of the start
    of the current line; on an error code the error slots describe it.
    """
    width = features.shape[1]
    rows_cap = features.shape[0]
    fb_cap = fb.shape[0]
    pos = state[_S_POS]
    line = state[_S_LINE]
    row = state[_S_ROW]
    nq = state[_S_NQ]
    cur_qid = state[_S_QID]
    have_q = state[_S_HAVE_Q]
    max_idx = state[_S_MAX_IDX]
    nfb = state[_S_NFB]
    zero32 = np.float32(0.0)
    while pos < end:
        # -- start of a line: checkpoint -------------------------------------
        line += 1
        state[_S_POS] = pos
        state[_S_LINE] = line - 1
        state[_S_ROW] = row
        state[_S_NQ] = nq
        state[_S_QID] = cur_qid
        state[_S_HAVE_Q] = have_q
        state[_S_MAX_IDX] = max_idx
        state[_S_NFB] = nfb
        p = pos
        while p < end and _is_blank(buf[p]):
            p += 1
        if p >= end or buf[p] == 10 or buf[p] == 35:  # blank or comment line
            while p < end and buf[p] != 10:
                p += 1
            pos = p + 1
            continue
        if row >= rows_cap:
            return _NEED_ROWS
        if nfb + 2 > fb_cap:  # room for at least label + one value
            return _FALLBACK_FULL
        # -- label -----------------------------------------------------------
        s = p
        while p < end and not _is_sep(buf[p]):
            p += 1
        ok, v = _fast_float(buf, s, p)
        if ok:
            if v != np.floor(v):
                return _error(state, _E_LABEL_NOT_INT, line, s, p, 0, 0)
            if not (v >= lo_label and v <= hi_label):
                return _error(state, _E_LABEL_RANGE, line, s, p, 0, 0)
            labels[row] = np.int8(v)
        else:
            labels[row] = 0
            fb[nfb, 0] = row; fb[nfb, 1] = -1; fb[nfb, 2] = line; fb[nfb, 3] = s; fb[nfb, 4] = p
            nfb += 1
        # -- qid -------------------------------------------------------------
        while p < end and _is_blank(buf[p]):
            p += 1
        s = p
        while p < end and not _is_sep(buf[p]):
            p += 1
        if not (p - s >= 4 and buf[s] == 113 and buf[s + 1] == 105 and buf[s + 2] == 100 and buf[s + 3] == 58):
            return _error(state, _E_MISSING_QID, line, s, p, 0, 0)
        ok, qid = _parse_int(buf, s + 4, p)
        if not ok:
            return _error(state, _E_BAD_QID, line, s, p, 0, 0)
        if have_q == 0 or qid != cur_qid:
            q_start[nq] = row
            q_qid[nq] = qid
            q_line[nq] = line
            nq += 1
            cur_qid = qid
            have_q = 1
        # -- features --------------------------------------------------------
        prev = 0
        while True:
            while p < end and _is_blank(buf[p]):
                p += 1
            if p >= end or buf[p] == 10 or buf[p] == 35:
                break
            s = p
            colon = -1
            while p < end and not _is_sep(buf[p]):
                if colon < 0 and buf[p] == 58:
                    colon = p
                p += 1
            if colon < 0:
                return _error(state, _E_NO_COLON, line, s, p, 0, 0)
            ok, idx = _parse_int(buf, s, colon)
            if not ok:
                return _error(state, _E_BAD_INDEX, line, s, p, colon, 0)
            if idx < 1:
                return _error(state, _E_INDEX_LT1, line, s, p, idx, 0)
            if idx <= prev:
                return _error(state, _E_INDEX_ORDER, line, s, p, idx, prev)
            if declared >= 0 and idx > declared:
                return _error(state, _E_INDEX_BEYOND, line, s, p, idx, declared)
            if idx > width:
                state[_S_ERR_AUX] = idx
                return _NEED_WIDER
            prev = idx
            ok, v = _fast_float(buf, colon + 1, p)
            if ok:
                features[row, idx - 1] = np.float32(v) + zero32  # -0.0 -> 0.0, as sklearn's toarray
            else:
                if nfb >= fb_cap:
                    return _FALLBACK_FULL
                fb[nfb, 0] = row; fb[nfb, 1] = idx - 1; fb[nfb, 2] = line; fb[nfb, 3] = colon + 1; fb[nfb, 4] = p
                nfb += 1
        if prev > max_idx:
            max_idx = prev
        # -- comment ---------------------------------------------------------
        if p < end and buf[p] == 35:
            s = p + 1
            while p < end and buf[p] != 10:
                p += 1
            if want_ids:
                a, b = _doc_id_span(buf, s, p)
                id_spans[row, 0] = a
                id_spans[row, 1] = b
        elif want_ids:
            id_spans[row, 0] = p
            id_spans[row, 1] = p
        row += 1
        pos = p + 1
    if pos > end:
        pos = end
    state[_S_POS] = pos
    state[_S_LINE] = line
    state[_S_ROW] = row
    state[_S_NQ] = nq
    state[_S_QID] = cur_qid
    state[_S_HAVE_Q] = have_q
    state[_S_MAX_IDX] = max_idx
    state[_S_NFB] = nfb
    return _OK


# ---------------------------------------------------------------------------
# reader: Python driver
# ---------------------------------------------------------------------------
def _check_path(path, name: str = "path") -> Path:
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{name} must be a str or os.PathLike, got {type(path).__name__}")
    return Path(path)


def _check_optional_int(value, name: str, lo: int, hi: int | None = None):
    """``value`` must be None or an int in ``lo..hi``."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int or None, got {type(value).__name__}")
    if value < lo or (hi is not None and value > hi):
        bound = f"{lo}..{hi}" if hi is not None else f">= {lo}"
        raise ValueError(f"{name} must be {bound}, got {value}")
    return int(value)


def _quote(buf, start: int, end: int) -> str:
    """The token ``buf[start:end]`` for an error message, quoted."""
    text = bytes(buf[start:end]).decode("utf-8", errors="replace")
    if len(text) > 60:
        text = text[:57] + "..."
    return repr(text)


def _label_range(max_grade: int | None) -> tuple[int, int, str]:
    if max_grade is None:
        return -128, 127, "-128..127 (labels are stored as int8)"
    return 0, max_grade, f"0..{max_grade} (max_grade={max_grade})"


def _kernel_error(path, buf, code: int, state: np.ndarray, range_text: str) -> LetorFormatError:
    """Build the message of a kernel error code."""
    line = int(state[_S_ERR_LINE])
    s, e = int(state[_S_ERR_START]), int(state[_S_ERR_END])
    aux, aux2 = int(state[_S_ERR_AUX]), int(state[_S_ERR_AUX2])
    tok = _quote(buf, s, e)
    if code == _E_MISSING_QID:
        got = f"got {tok}" if e > s else "the line ends after the label"
        reason = f"missing 'qid:<id>' after the label ({got})"
    elif code == _E_LABEL_NOT_INT:
        reason = f"label {tok} is not an integer"
    elif code == _E_LABEL_RANGE:
        reason = f"label {tok} is outside the allowed range {range_text}"
    elif code == _E_BAD_QID:
        reason = f"invalid qid {tok} (must be an integer)"
    elif code == _E_NO_COLON:
        reason = f"token {tok} has no ':' (expected <index>:<value>)"
    elif code == _E_BAD_INDEX:
        reason = f"invalid feature index {_quote(buf, s, aux)} in token {tok} (must be a positive integer)"
    elif code == _E_INDEX_LT1:
        reason = f"feature index {aux} < 1 in token {tok} (indices are 1-based)"
    elif code == _E_INDEX_ORDER:
        reason = f"feature indices must be strictly increasing within a line: {aux} follows {aux2} in token {tok}"
    elif code == _E_INDEX_BEYOND:
        reason = f"feature index {aux} in token {tok} is beyond the declared n_features={aux2}"
    else:  # pragma: no cover - kernel and driver out of sync
        reason = f"internal parser error code {code}"
    return LetorFormatError(path, line, reason)


def _apply_fallbacks(path, buf, fb, n, features, labels, lo, hi, range_text):
    """Parse the recorded hard tokens with Python's ``float()`` (as sklearn does)
    and store them; return the first error (or None)."""
    for row, col, line, s, e in fb[:n].tolist():
        tok = bytes(buf[s:e])
        try:
            v = float(tok)
        except ValueError:
            what = "label" if col < 0 else "value"
            return LetorFormatError(path, line, f"non-numeric {what} {_quote(buf, s, e)}")
        if col < 0:
            if v != v or v in (float("inf"), float("-inf")) or v != int(v):
                return LetorFormatError(path, line, f"label {_quote(buf, s, e)} is not an integer")
            if not lo <= v <= hi:
                return LetorFormatError(path, line, f"label {_quote(buf, s, e)} is outside the allowed range {range_text}")
            labels[row] = int(v)
        else:
            with np.errstate(over="ignore"):
                features[row, col] = np.float32(v) + np.float32(0.0)
    return None


def _check_contiguous(path, q_qid, q_line, start: int, stop: int, first_line: dict):
    """Record the new query blocks ``start:stop``; return an error if a qid
    reappears after another query's block."""
    for qid, line in zip(q_qid[start:stop].tolist(), q_line[start:stop].tolist()):
        first = first_line.setdefault(qid, line)
        if first != line:
            return LetorFormatError(
                path, line,
                f"qid {qid} reappears after another query; its first block started at line {first} "
                "(documents of one query must be contiguous)",
            )
    return None


def _line_max_index(mm, start: int) -> int:
    """Largest ``<index>:`` on the line starting at byte ``start`` (for widening)."""
    import re

    nl = mm.find(b"\n", start)
    line = mm[start: len(mm) if nl < 0 else nl].split(b"#", 1)[0]
    return max((int(m) for m in re.findall(rb"(?:^|\s)\+?(\d{1,18}):", line)), default=0)


def _window_end(mm, pos: int, size: int) -> int:
    """End of the window starting at ``pos``: just past the first newline after
    ``pos + _READ_CHUNK_BYTES`` (or the end of the file)."""
    if pos + _READ_CHUNK_BYTES >= size:
        return size
    nl = mm.find(b"\n", pos + _READ_CHUNK_BYTES)
    return size if nl < 0 else nl + 1


def read_letor(path, *, n_features=None, max_grade=None, doc_ids=False, show_progress=True) -> Collection:
    """Read a LETOR / SVMlight ranking file into a :class:`Collection`.

    Values are identical to ``sklearn.datasets.load_svmlight_file(path,
    query_id=True, dtype=np.float32).toarray()``: each value is parsed to the
    nearest float64 (as Python's ``float()``) and then rounded to float32;
    ``-0`` is stored as ``0``. Missing features are 0.

    Parameters
    ----------
    n_features : int, optional
        Number of features; an index beyond it is an error. Default: the
        largest index in the file.
    max_grade : int, optional
        Labels must be integers in ``0..max_grade``; without it, in the int8
        range.
    doc_ids : bool
        Extract a doc id per document from its comment: the token after
        ``docid =`` (or ``docid=``), else the whole stripped comment, else ``""``.
    show_progress : bool
        A progress bar (bytes) on stderr.

    Raises
    ------
    LetorFormatError
        On the first malformed line (``str(e)`` is ``"<path>:<line>: <reason>"``).
    """
    path = _check_path(path)
    n_features = _check_optional_int(n_features, "n_features", 1)
    max_grade = _check_optional_int(max_grade, "max_grade", 0, 127)
    if not isinstance(doc_ids, (bool, np.bool_)):
        raise TypeError(f"doc_ids must be a bool, got {type(doc_ids).__name__}")
    if not isinstance(show_progress, (bool, np.bool_)):
        raise TypeError(f"show_progress must be a bool, got {type(show_progress).__name__}")
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a directory, not a LETOR file")
    if not path.exists():
        raise FileNotFoundError(f"{path} does not exist")
    if path.is_file() and path.stat().st_size == 0:   # a pipe's size says nothing: read it first
        raise LetorFormatError(path, 0, "file has no documents (it is empty)")

    try:
        mm = file_bytes(path)   # gzip is decompressed into memory: the parser needs random access
    except DamagedGzipError as e:
        raise LetorFormatError(path, 0, f"damaged gzip file ({e})") from None
    size = len(mm)
    if size == 0:
        raise LetorFormatError(path, 0, "file has no documents (it is empty)")
    return _read_buffer(path, mm, np.frombuffer(mm, dtype=np.uint8), size, n_features, max_grade,
                        bool(doc_ids), bool(show_progress))


def _dense_limit() -> int:
    """Bytes a dense feature matrix may take: the machine's physical memory."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # pragma: no cover - not POSIX
        return 1 << 40


def _check_width(path, rows: int, width: int, line: int, declared: bool) -> None:
    """Refuse a dense (rows x width) float32 matrix larger than the machine's memory."""
    need = 4 * rows * width
    if need > _dense_limit():
        where = "n_features" if declared else f"feature index {width}"
        raise LetorFormatError(path, line, f"{where} would need a dense matrix of {rows:,} rows x {width:,} "
                               f"features = {need / 2**30:,.1f} GiB, more than this machine's memory; "
                               "a feature index this large is most likely a typo")


def _read_buffer(path, mm, buf, size, n_features, max_grade, want_ids, show_progress) -> Collection:
    """Drive :func:`_parse_window` over the file, window by window."""
    rows_cap = _count_newlines(buf) + 1
    width = n_features if n_features is not None else 0
    if n_features is not None:
        _check_width(path, rows_cap, n_features, 1, True)
    declared = n_features if n_features is not None else -1
    lo, hi, range_text = _label_range(max_grade)
    features = np.zeros((rows_cap, width), dtype=np.float32)  # calloc: untouched pages cost nothing
    labels = np.zeros(rows_cap, dtype=np.int8)
    q_start = np.zeros(rows_cap + 1, dtype=np.int64)
    q_qid = np.zeros(rows_cap, dtype=np.int64)
    q_line = np.zeros(rows_cap, dtype=np.int64)
    id_spans = np.zeros((rows_cap if want_ids else 0, 2), dtype=np.int64)
    fb = np.zeros((_FB_CAP, 5), dtype=np.int64)
    state = np.zeros(_N_STATE, dtype=np.int64)
    first_line: dict[int, int] = {}
    checked_q = 0

    bar = progress(total=size, desc=f"read {path.name}", unit="B", unit_scale=True) if show_progress else None
    try:
        pos = 0
        while pos < size:
            end = _window_end(mm, pos, size)
            while True:
                code = _parse_window(buf, end, state, features, labels, q_start, q_qid, q_line,
                                     id_spans, want_ids, declared, lo, hi, fb)
                n_fb = int(state[_S_NFB])
                errors = [
                    _apply_fallbacks(path, buf, fb, n_fb, features, labels, lo, hi, range_text),
                    _check_contiguous(path, q_qid, q_line, checked_q, int(state[_S_NQ]), first_line),
                ]
                checked_q = int(state[_S_NQ])
                state[_S_NFB] = 0
                if code > 0:
                    errors.append(_kernel_error(path, buf, code, state, range_text))
                errors = [e for e in errors if e is not None]
                if errors:
                    raise min(errors, key=lambda e: e.line)
                if code == _OK:
                    break
                if code == _NEED_WIDER:
                    new_width = max(int(state[_S_ERR_AUX]), _line_max_index(mm, int(state[_S_POS])))
                    _check_width(path, rows_cap, new_width, int(state[_S_LINE]) + 1, False)
                    grown = np.zeros((rows_cap, new_width), dtype=np.float32)
                    row = int(state[_S_ROW])
                    grown[:row, :width] = features[:row]
                    features, width = grown, new_width
                elif code == _FALLBACK_FULL and n_fb == 0:
                    fb = np.zeros((2 * len(fb), 5), dtype=np.int64)
                elif code == _NEED_ROWS:  # pragma: no cover - rows_cap bounds the lines
                    raise RuntimeError("LETOR parser ran out of rows")
            if bar is not None:
                bar.update(end - pos)
            pos = end
    finally:
        if bar is not None:
            bar.close()

    n_docs = int(state[_S_ROW])
    n_q = int(state[_S_NQ])
    if n_docs == 0:
        raise LetorFormatError(path, 1, "file has no documents (only blank or comment lines)")
    if n_features is None:
        width = int(state[_S_MAX_IDX])  # == features.shape[1]: widened exactly to the largest index
    offsets = q_start[: n_q + 1].copy()
    offsets[n_q] = n_docs
    ids = None
    if want_ids:
        spans = id_spans[:n_docs].tolist()
        ids = np.array([mm[s:e].decode("utf-8", errors="replace") for s, e in spans], dtype=str)
    features = features[:n_docs] if width == features.shape[1] else np.ascontiguousarray(features[:n_docs, :width])
    return Collection(
        features=features,
        labels=labels[:n_docs].copy(),
        offsets=offsets,
        qids=q_qid[:n_q].copy(),
        doc_ids=ids,
    )


# ---------------------------------------------------------------------------
# cached loading
# ---------------------------------------------------------------------------
_READ_KWARGS = ("n_features", "max_grade", "doc_ids", "show_progress")
_RESULT_KWARGS = ("n_features", "max_grade", "doc_ids")  # show_progress does not change the result


def cache_path(path, *, cache_dir=None, **read_kwargs) -> Path:
    """Where :func:`load_letor` caches ``path`` read with ``read_kwargs``:
    ``<cache_dir or the file's folder>/.<name>.<hash>.npz``, the hash covering the
    absolute path, size, mtime_ns, :data:`PARSER_VERSION` and the read options."""
    import hashlib
    import json

    path = _check_path(path).resolve()
    unknown = sorted(set(read_kwargs) - set(_READ_KWARGS))
    if unknown:
        raise TypeError(f"unexpected read_letor argument(s): {', '.join(unknown)}")
    st = path.stat()
    key = {
        "path": str(path),
        "size": st.st_size,
        "mtime_ns": st.st_mtime_ns,
        "parser_version": PARSER_VERSION,
        "read": {k: _jsonable(read_kwargs[k]) for k in _RESULT_KWARGS if k in read_kwargs},
    }
    # defaults and explicit defaults must hash alike
    defaults = {"n_features": None, "max_grade": None, "doc_ids": False}
    key["read"] = {k: key["read"].get(k, defaults[k]) for k in _RESULT_KWARGS}
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]
    folder = path.parent if cache_dir is None else _check_path(cache_dir, "cache_dir")
    return Path(folder) / f".{path.name}.{digest}.npz"


def _jsonable(v):
    return v.item() if isinstance(v, np.generic) else v


def load_letor(path, *, cache_dir=None, **read_kwargs) -> Collection:
    """:func:`read_letor` with an ``.npz`` cache (see :func:`cache_path`).

    The first call parses the file and saves the Collection atomically; later
    calls load the cache as long as the file's size and mtime are unchanged
    (a stale cache has a different name and is ignored). An unreadable cache
    is re-created; a cache that cannot be written only gives a warning.
    """
    import warnings

    target = cache_path(path, cache_dir=cache_dir, **read_kwargs)
    if target.exists():
        try:
            return Collection.load(target)
        except Exception as exc:  # corrupt / truncated by hand: parse again
            warnings.warn(f"ignoring unreadable LETOR cache {target}: {exc}", stacklevel=2)
    collection = read_letor(path, **read_kwargs)
    try:
        collection.save(target)
    except OSError as exc:
        warnings.warn(f"could not write LETOR cache {target}: {exc}", stacklevel=2)
    return collection
