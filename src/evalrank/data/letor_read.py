"""LETOR / SVMlight ranking text files: the compiled reader.

One document per line, ``<label> qid:<qid> <i>:<v> <i>:<v> ... [# comment]`` (see
:mod:`evalrank.data.letor`). :func:`read_letor` parses the bytes (memory-mapped, in chunks
that end at line boundaries) with a numba byte parser, :func:`_parse_window`: a state
machine in one function, the size rule's kernel exception (as ``trec_scan._scan``).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from evalrank._jit import numba  # numba, with bytescan's byte kernels (called below) compiled
from evalrank.data.bytescan import DamagedGzipError, file_bytes
from evalrank.data.bytescan import count_newlines as _count_newlines
from evalrank.data.bytescan import fast_float as _fast_float
from evalrank.data.bytescan import is_blank as _is_blank
from evalrank.data.collection import Collection
from evalrank.progress import progress

__all__ = ["read_letor", "LetorFormatError", "PARSER_VERSION"]

#: Bump whenever parsing results could change, so that old caches are ignored.
PARSER_VERSION = 1

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
