"""evaluate's inputs -> :class:`evalrank.data.trec.TrecFile`: a TREC file path (read as trec_eval
reads it), a pytrec_eval-shaped dict, a pandas DataFrame (ir_measures' or ranx's column names) or
a mapping of column names to flat arrays; ids become byte spans of one buffer with their FNV-1a
hashes without a Python object per row where the column is a NumPy ``U``, ``S`` or integer array
(numba kernels: :mod:`evalrank._jit`). :func:`as_trec` is one input, ``_runs_of`` the ``runs``
argument of :func:`evalrank.evaluation.evaluate.evaluate` (one run, a mapping, a list of paths).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from evalrank import _jit
from evalrank._jit import njit, prange
from evalrank.data.trec import TrecFile, read_trec
from evalrank.data.trec_scan import _fnv1a_np, fnv1a, sorted_codes

__all__ = ["as_trec"]

_QID = ("query_id", "q_id", "qid")
_DOC = ("doc_id", "docno", "doc")
_REL = ("relevance", "rel", "score")
_SCORE = ("score", "sim")


def _column(cols, names, what, kind):
    for n in names:
        if n in cols:
            return n
    raise ValueError(f"{kind}: no {what} column; expected one of {list(names)}, got {list(cols)}")


@njit(cache=True, nogil=True, inline="always")
def _unpadded(flat, p, w):
    """The length of the id at ``flat[p:p + w]``: trailing NULs dropped, as numpy drops them."""
    m = w
    while m > 0 and flat[p + m - 1] == 0:
        m -= 1
    return m


@njit(cache=True, nogil=True, inline="always")
def _fnv_more(flat, p, lo, hi, h):
    """FNV-1a ``h`` carried on over ``flat[p + lo:p + hi]``."""
    for c in range(lo, hi):
        h = (h ^ flat[p + c]) * np.uint64(1099511628211)
    return h


@njit(cache=True, nogil=True, inline="always")
def _fnv4(buf, s0, s1, s2, s3, m0, m1, m2, m3):
    """FNV-1a of the four ids ``buf[s_k:s_k + m_k]``, four hashes in flight over their common
    length (one alone waits on each multiply), then each one's rest."""
    lo = max(min(min(m0, m1), min(m2, m3)), 0)
    prime = np.uint64(1099511628211)
    u0, u1, u2, u3 = np.uint64(s0), np.uint64(s1), np.uint64(s2), np.uint64(s3)
    h0 = h1 = h2 = h3 = np.uint64(14695981039346656037)
    for c in range(np.uint64(lo)):   # unsigned indices: no negative-index test
        h0 = (h0 ^ buf[u0 + c]) * prime
        h1 = (h1 ^ buf[u1 + c]) * prime
        h2 = (h2 ^ buf[u2 + c]) * prime
        h3 = (h3 ^ buf[u3 + c]) * prime
    return (_fnv_more(buf, s0, lo, m0, h0), _fnv_more(buf, s1, lo, m1, h1),
            _fnv_more(buf, s2, lo, m2, h2), _fnv_more(buf, s3, lo, m3, h3))


@njit(cache=True, parallel=True, wraparound=True)
def _hash_spans(buf, ds, de, out):
    """FNV-1a of each span ``buf[ds[i]:de[i]]`` into ``out``, four spans at a time (four
    hashes in flight over their common length, then each one's rest)."""
    n = len(ds)
    nb = n // 4
    for b in prange(nb):
        i = 4 * b
        s0, s1, s2, s3 = ds[i], ds[i + 1], ds[i + 2], ds[i + 3]
        out[i], out[i + 1], out[i + 2], out[i + 3] = _fnv4(
            buf, s0, s1, s2, s3, de[i] - s0, de[i + 1] - s1, de[i + 2] - s2, de[i + 3] - s3)
    for i in range(4 * nb, n):
        out[i] = fnv1a(buf, ds[i], de[i])


@njit(cache=True)
def _split_spans(buf, n, start, end):
    """Spans of the ``n`` newline-separated ids of ``buf``; returns the number of newlines,
    ``n - 1`` unless an id holds one (then the spans are not filled in full)."""
    j = 0
    s = 0
    for i in range(len(buf)):
        if buf[i] == 10:
            if j < n:
                start[j] = s
                end[j] = i
            j += 1
            s = i + 1
    if j < n:
        start[j] = s
        end[j] = len(buf)
    return j


@njit(cache=True, parallel=True, wraparound=True)
def _fixed_ids(flat, w, start, end, dh):
    """Spans of the ids of a (n, w) array of bytes padded with NULs (numpy ``S``), given as its
    flat view: id i is ``flat[i * w:i * w + length]``, trailing NULs dropped as numpy drops
    them; its FNV-1a hash into ``dh`` (when ``dh`` has an entry per id), four ids at a time
    (four hashes in flight: one alone waits on each multiply)."""
    n = len(start)
    nb = n // 4
    off = np.uint64(14695981039346656037)
    for b in prange(nb):
        p0 = 4 * b * w
        p1, p2, p3 = p0 + w, p0 + 2 * w, p0 + 3 * w
        m0, m1, m2, m3 = _unpadded(flat, p0, w), _unpadded(flat, p1, w), _unpadded(flat, p2, w), _unpadded(flat, p3, w)
        start[4 * b], start[4 * b + 1], start[4 * b + 2], start[4 * b + 3] = p0, p1, p2, p3
        end[4 * b], end[4 * b + 1], end[4 * b + 2], end[4 * b + 3] = p0 + m0, p1 + m1, p2 + m2, p3 + m3
        if len(dh) > 0:
            dh[4 * b], dh[4 * b + 1], dh[4 * b + 2], dh[4 * b + 3] = _fnv4(flat, p0, p1, p2, p3, m0, m1, m2, m3)
    for i in range(4 * nb, n):
        p = i * w
        m = _unpadded(flat, p, w)
        start[i] = p
        end[i] = p + m
        if len(dh) > 0:
            dh[i] = _fnv_more(flat, p, 0, m, off)


@njit(cache=True, parallel=True)
def _ucs4_bytes(flat, out):
    """Each character of ``flat`` (numpy ``U``'s UCS-4) as a byte into ``out`` (its low 8
    bits; one flat pass, vectorized); returns how many characters are beyond ASCII (then the
    bytes are not the ids' UTF-8)."""
    bad = 0
    for i in prange(len(flat)):
        x = flat[i]
        bad += np.int64(x >= 128)
        out[i] = np.uint8(x & 255)
    return bad


@njit(cache=True, parallel=True)
def _int_lengths(a, lens):
    """The length of each int64's decimal text (``str(v)``; ``a`` holds no int64 minimum)."""
    for i in prange(len(a)):
        v = a[i]
        u = np.uint64(-v if v < 0 else v)
        k = 1
        t = np.uint64(10)
        while k < 19 and u >= t:
            k += 1
            t = t * np.uint64(10)
        lens[i] = k + np.int64(v < 0)


#: "00" to "99": the digits of an integer two at a time
_PAIRS = np.frombuffer("".join(f"{i:02d}" for i in range(100)).encode(), dtype=np.uint8).copy()


@njit(cache=True, parallel=True)
def _int_ids(a, out, start, end, pairs):
    """The decimal text of each int64 (``str(v)``) into ``out[start[i]:end[i]]`` (spans sized
    by :func:`_int_lengths`), written from its end two digits at a time (hashed afterwards,
    four at a time: :func:`_hash_spans`)."""
    for i in prange(len(a)):
        v = a[i]
        q = end[i]
        if v < 0:
            out[start[i]] = 45
            v = -v
        u = np.uint64(v)
        while u >= np.uint64(100):
            r = np.int64(u % np.uint64(100))
            u = u // np.uint64(100)
            q -= 2
            out[q] = pairs[2 * r]
            out[q + 1] = pairs[2 * r + 1]
        if u >= np.uint64(10):
            q -= 2
            out[q] = pairs[2 * np.int64(u)]
            out[q + 1] = pairs[2 * np.int64(u) + 1]
        else:
            out[q - 1] = np.uint8(48 + np.int64(u))


def _fixed_np(b: np.ndarray):
    """Spans (flat offsets) of the rows of a (n, w) byte matrix padded with NULs, NumPy."""
    n, w = b.shape
    nz = b != 0
    lens = np.where(nz.any(axis=1), w - np.argmax(nz[:, ::-1], axis=1), 0) if w else np.zeros(n, dtype=np.int64)
    start = np.arange(n, dtype=np.int64) * w
    return start, start + lens


def _missing(x) -> bool:
    return x is None or (isinstance(x, float) and x != x) or type(x).__name__ in ("NAType", "NaTType")


def _as_array(col) -> np.ndarray:
    """A column (numpy array, pandas Series or array, list) as a 1-d numpy array."""
    if hasattr(col, "to_numpy") and not isinstance(col, np.ndarray):
        col = col.to_numpy()
    if isinstance(col, np.ndarray):
        return col
    try:
        return np.asarray(col)
    except ValueError:
        return np.asarray(col, dtype=object)


def _id_bytes(a: np.ndarray, what: str, name: str, rows=None, dh=None):
    """``(buf, start, end)``: the UTF-8 bytes of each id of ``a`` as spans of one uint8 buffer
    (``str(id)`` for numbers, ``bytes`` ids as they are) without a Python object per id where
    ``a`` is a numpy ``U``, ``S`` or integer array (compiled kernels) or holds str (one join and
    one encode). A missing id (None, NaN, ``pd.NA``) is an error naming its row (``rows[i]``
    where given). ``dh``: an array that gets each id's FNV-1a hash (computed with the bytes)."""
    if a.ndim != 1:
        raise ValueError(f"{name}: {what}s must be one column, got shape {a.shape}")
    n = a.shape[0]
    start = np.empty(n, dtype=np.int64)
    end = np.empty(n, dtype=np.int64)
    hashes = np.empty(0, dtype=np.uint64) if dh is None else dh
    a, done = _typed_id_bytes(a, start, end, hashes, dh)
    if done is not None:
        return done
    if a.dtype.kind == "f" and np.isnan(a).any():
        i = int(np.flatnonzero(np.isnan(a))[0])
        raise ValueError(f"{name}: row {i if rows is None else int(rows[i])}: {what} is missing")
    if a.dtype.kind != "O":
        a = a.astype(object)
    done = _joined_id_bytes(a, start, end, dh)
    if done is not None:
        return done
    enc = []
    for i, x in enumerate(a.tolist()):
        if isinstance(x, bytes):
            enc.append(x)
        elif isinstance(x, str):
            enc.append(x.encode("utf-8"))
        elif _missing(x):
            raise ValueError(f"{name}: row {i if rows is None else int(rows[i])}: {what} is missing")
        else:
            enc.append(str(x).encode("utf-8"))
    lens = np.fromiter(map(len, enc), dtype=np.int64, count=n)
    np.cumsum(lens, out=end)
    start[:] = end - lens
    data = b"".join(enc)
    buf = np.frombuffer(data, dtype=np.uint8) if data else np.zeros(0, dtype=np.uint8)
    _hash_into(buf, start, end, dh)
    return buf, start, end


def _hash_into(buf, start, end, dh) -> None:
    """Each span's FNV-1a into ``dh`` (where given): the kernel, or NumPy where interpreted."""
    if dh is not None:
        if _jit.compiled():
            _hash_spans(_jit.readonly(buf), start, end, dh)
        else:
            dh[:] = _fnv1a_np(buf, start, end)


def _typed_id_bytes(a, start, end, hashes, dh):
    """:func:`_id_bytes` for integer, numpy ``U`` and ``S`` arrays: ``(a, (buf, start, end))``,
    or ``(a, None)`` with ``a`` as an array that the str paths take (``U`` beyond ASCII as
    object, others as they came)."""
    n = a.shape[0]
    kind = a.dtype.kind
    if kind == "u" and n and a.max() <= np.iinfo(np.int64).max:
        a, kind = a.astype(np.int64), "i"
    interpreted = not _jit.compiled()
    if kind == "i" and n and a.min() > np.iinfo(np.int64).min:
        if interpreted:   # numpy prints ints as str() does
            a, kind = a.astype("S20"), "S"
        else:
            a = a.astype(np.int64, copy=False)
            _int_lengths(a, end)
            np.cumsum(end, out=end)
            start[0] = 0
            start[1:] = end[:-1]
            out = np.empty(int(end[-1]), dtype=np.uint8)
            _int_ids(a, out, start, end, _PAIRS)
            _hash_into(out, start, end, dh)
            return a, (out, start, end)
    if kind == "U":
        w = max(a.dtype.itemsize // 4, 1)
        flat = np.ascontiguousarray(a, dtype=f"<U{w}").view(np.uint32).ravel()
        if interpreted:
            if flat.size == 0 or flat.max() < 128:
                a, kind = flat.astype(np.uint8).view(f"S{w}"), "S"
            else:
                return a.astype(object), None
        else:
            out = np.empty(n * w, dtype=np.uint8)
            if _ucs4_bytes(flat, out) == 0:  # ASCII: a byte per character, NULs where numpy pads
                _fixed_ids(out, w, start, end, hashes)
                return a, (out, start, end)
            return a.astype(object), None
    if kind == "S":
        w = max(a.dtype.itemsize, 1)
        flat = np.ascontiguousarray(a, dtype=f"S{w}").view(np.uint8).ravel()
        if interpreted:
            start[:], end[:] = _fixed_np(flat.reshape(n, w))
            if dh is not None:
                dh[:] = _fnv1a_np(flat, start, end)
        else:
            _fixed_ids(flat, w, start, end, hashes)
        return a, (flat, start, end)
    return a, None


def _joined_id_bytes(a, start, end, dh):
    """:func:`_id_bytes` for an object array of str: one join, one encode, the spans where the
    newlines are; None where ``a`` holds anything else or an id holds a newline."""
    n = a.shape[0]
    try:
        text = "\n".join(a.tolist())  # str ids: one join, one encode, one pass for the spans
    except TypeError:
        return None
    data = text.encode("utf-8")
    del text
    buf = np.frombuffer(data, dtype=np.uint8) if data else np.zeros(0, dtype=np.uint8)
    if _jit.compiled():
        split = _split_spans(buf, n, start, end) == n - 1
    else:
        newlines = np.flatnonzero(buf == 10)
        split = newlines.size == n - 1   # no id holds a newline
        if split:
            start[0] = 0
            start[1:] = newlines + 1
            end[:-1] = newlines
            end[-1] = buf.size
    if not split:
        return None
    _hash_into(buf, start, end, dh)
    return buf, start, end


@njit(cache=True, parallel=True)
def _fixed_changes(flat, w, out):
    """``out[i]``: row i of a (n, w) array (its flat view, numpy ``S`` or ``U``) differs from
    row i - 1 (row 0 always)."""
    for i in prange(len(out)):
        d = i == 0
        if not d:
            p = i * w
            for c in range(w):
                if flat[p + c] != flat[p - w + c]:
                    d = True
                    break
        out[i] = d


def _runs_of_equal(a: np.ndarray):
    """The first row of every run of equal ids of ``a`` (query ids come grouped: one id is then
    converted per topic, not per row), or None where that cannot be told cheaply and exactly:
    floats (0.0 == -0.0), object arrays that hold anything but str (1 == 1.0 == True, printed
    differently)."""
    n = a.shape[0]
    kind = a.dtype.kind
    if n < 2 or kind not in "OiuSU":
        return None
    if kind in "SU":
        b = np.ascontiguousarray(a)
        size = b.dtype.itemsize
        word = 4 if kind == "U" else 1
        for k in (8, 4, 2):   # rows compared a word at a time: the widest that divides a row
            if k > word and size % k == 0 and b.ctypes.data % k == 0:
                word = k
                break
        w = max(size // word, 1)
        flat = b.view(f"u{word}").ravel()
        if _jit.compiled():
            changes = np.empty(n, dtype=np.bool_)
            _fixed_changes(flat, w, changes)
        else:
            rows = flat.reshape(n, w)
            changes = np.concatenate(([True], (rows[1:] != rows[:-1]).any(axis=1)))
        return np.flatnonzero(changes)
    try:
        diff = a[1:] != a[:-1]
    except Exception:  # e.g. pd.NA's ambiguous truth value
        return None
    if not isinstance(diff, np.ndarray) or diff.dtype != np.bool_ or diff.shape != (n - 1,):
        return None
    heads = np.flatnonzero(np.concatenate(([True], diff)))
    if kind == "O" and not all(issubclass(t, str) for t in set(map(type, a[heads].tolist()))):
        return None  # a str equals only a str: with str heads every row is one
    return heads


def _from_columns(qids, docs, values, kind: str, name: str) -> TrecFile:
    """A :class:`TrecFile` from per-row query ids, document ids and values: the ids become
    spans of byte buffers (:func:`_id_bytes`), query ids converted once per run of equal ids and
    decoded once per distinct id, in trec_eval's (strcmp) order."""
    values = np.asarray(values.to_numpy() if hasattr(values, "to_numpy") else values, dtype=np.float64)
    qa, da = _as_array(qids), _as_array(docs)
    n = values.shape[0] if values.ndim == 1 else -1
    _jit.need(max(n, 0) * _jit.LINE_BYTES)
    if qa.shape != (n,) or da.shape != (n,):
        raise ValueError(f"{name}: query ids, document ids and values must have the same length, got "
                         f"{qa.shape}, {da.shape}, {values.shape}")
    if n == 0:
        raise ValueError(f"{name}: no {kind} rows")
    if not np.isfinite(values).all():
        raise ValueError(f"{name}: row {int(np.flatnonzero(~np.isfinite(values))[0])}: value is not finite")
    if kind == "qrels":
        if (values != np.round(values)).any():
            raise ValueError(f"{name}: relevance must be integers")
    heads = _runs_of_equal(qa)
    qb, qs, qe = _id_bytes(qa if heads is None else qa[heads], "query id", name, heads)

    def decode(raw, i):
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError(f"{name}: row {i if heads is None else int(heads[i])}: query id {raw!r} is not UTF-8 "
                             "text") from None

    qcode, uniq, _ = sorted_codes(qb, qs, qe, decode)
    qcode = qcode.astype(np.int32 if len(uniq) < 2 ** 31 else np.int64)
    if heads is not None:
        qcode = np.repeat(qcode, np.diff(np.append(heads, n)))
    dh = np.empty(n, dtype=np.uint64)
    buf, ds, de = _id_bytes(da, "document id", name, dh=dh)
    return TrecFile(name, kind, buf, uniq, qcode, ds, de, dh, values, "")


def _is_frame(obj) -> bool:
    """A pandas DataFrame (without importing pandas for file inputs: the CLI starts faster)."""
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(obj, pd.DataFrame)


def _is_columns(obj) -> bool:
    """A mapping of column names (one of them a query id column) to sequences."""
    return (isinstance(obj, dict) and any(c in obj for c in _QID)
            and all(isinstance(v, (list, tuple, np.ndarray)) or hasattr(v, "to_numpy") for v in obj.values()))


def _is_nested(obj) -> bool:
    """A pytrec_eval-shaped ``{qid: {docno: number}}``."""
    return (isinstance(obj, dict) and bool(obj) and all(isinstance(v, dict) for v in obj.values())
            and all(isinstance(x, (int, float, np.number)) and not isinstance(x, bool)
                    for v in obj.values() for x in v.values()))


def as_trec(obj, kind: str, name: str = "") -> TrecFile:
    """A qrels (``kind="qrels"``) or run from any input of the module docstring."""
    if isinstance(obj, TrecFile):
        return obj
    if isinstance(obj, (str, Path)):
        return read_trec(obj, kind)
    label = name or kind
    cols = None
    if _is_frame(obj):
        cols = obj  # only the three columns used are converted
    if cols is None and _is_nested(obj):
        q, d, v = [], [], []
        for qid, docs in obj.items():
            for doc, val in docs.items():
                q.append(qid)
                d.append(doc)
                v.append(val)
        return _from_columns(np.array(q, dtype=object), np.array(d, dtype=object), np.array(v, dtype=np.float64),
                             kind, label)
    if cols is None and _is_columns(obj):
        cols = obj
    if cols is None:
        raise TypeError(f"{label}: expected a TREC file path, a {{qid: {{docno: value}}}} dict, a DataFrame or a "
                        f"mapping of columns, got {type(obj).__name__}")
    qc = _column(cols, _QID, "query id", label)
    dc = _column(cols, _DOC, "document id", label)
    vc = _column(cols, _REL if kind == "qrels" else _SCORE, "relevance" if kind == "qrels" else "score", label)
    return _from_columns(cols[qc], cols[dc], cols[vc], kind, label)


def _runs_of(runs) -> list[tuple[str, object]]:
    """``[(name, run), ...]`` from one run, a mapping of named runs or a list of paths."""
    if isinstance(runs, (str, Path, TrecFile)):
        runs = [runs]
    if isinstance(runs, dict):
        if _is_columns(runs) or _is_nested(runs):
            return [("run", runs)]
        return [(str(k), v) for k, v in runs.items()]
    if _is_frame(runs):
        return [("run", runs)]
    out = []
    for r in runs:
        if isinstance(r, TrecFile):
            out.append((Path(r.path).name, r))
        elif isinstance(r, (str, Path)):
            out.append((Path(r).name, r))
        else:
            raise TypeError("runs: a list holds file paths; name in-memory runs with a mapping {name: run}")
    names = [n for n, _ in out]
    if len(set(names)) != len(names):
        raise ValueError(f"runs: run names (file names) must be unique, got {names}")
    return out
