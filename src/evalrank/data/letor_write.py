"""LETOR / SVMlight ranking text files: the compiled writer.

One document per line, ``<label> qid:<qid> 1:<v> 2:<v> ... [#docid = <id>]`` (see
:mod:`evalrank.data.letor`). :func:`write_letor` formats chunks of rows with a numba byte
formatter on a few threads and writes them in order, atomically.
"""

from __future__ import annotations

import os

import numpy as np

from evalrank import io
from evalrank._jit import numba  # numba, with bytescan's byte kernels compiled (as the reader needs)
from evalrank.data.collection import Collection

__all__ = ["write_letor"]

_MAX_DECIMALS = 9
# Non-integral float32 values are < 2**24 in magnitude; integral ones below this
# bound fit an int64 comfortably. Values at or above it (and nan/inf) are
# formatted in Python through a small lookup table.
_INT_LIMIT = float(2**62)
_WRITE_CHUNK_BYTES = 32 * 2**20


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
