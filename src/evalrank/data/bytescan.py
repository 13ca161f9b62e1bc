"""What the compiled text readers (LETOR: :mod:`.letor`; TREC: :mod:`.trec`) share: a file's
bytes as users' files come (gzip, a byte-order mark), the blank test, the newline count and the
float parser. numba only: importing this module imports nothing else of the package.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["fast_float", "file_bytes", "DamagedGzipError", "is_blank", "count_newlines"]


class DamagedGzipError(ValueError):
    """A gzip file that cannot be decompressed whole (the readers name the file)."""


def file_bytes(path):
    """The bytes of ``path`` for a byte parser (random access): a read-only memory map, or the
    decompressed content of a gzip file (by its magic bytes); a UTF-8 byte-order mark is blanked
    out, so line 1 keeps its number. An empty file gives ``b""``. The caller checks that ``path``
    is a file (its own message); a damaged gzip raises :class:`DamagedGzipError`."""
    import mmap

    with open(path, "rb") as fh:
        magic = fh.read(3)
        if magic[:2] == b"\x1f\x8b":
            import gzip
            import zlib

            fh.seek(0)
            try:
                data = gzip.GzipFile(fileobj=fh).read()
            except (OSError, EOFError, zlib.error) as e:
                raise DamagedGzipError(str(e)) from None
        elif not magic:
            data = b""
        else:
            # Not closed explicitly: an exception's traceback may still reference an array
            # view; the map goes away with the last reference.
            data = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
            if hasattr(data, "madvise") and hasattr(mmap, "MADV_SEQUENTIAL"):
                data.madvise(mmap.MADV_SEQUENTIAL)
    if data[:3] == b"\xef\xbb\xbf":
        data = b"   " + bytes(data[3:])
    return data


@numba.njit(cache=True, nogil=True)
def is_blank(c):
    """Whitespace inside a line (not the newline): blank, tab, CR, VT, FF -- C's isspace less '\\n'."""
    return c == 32 or c == 9 or c == 13 or c == 11 or c == 12


@numba.njit(cache=True, nogil=True)
def count_newlines(buf):
    n = 0
    for i in range(buf.shape[0]):
        if buf[i] == 10:
            n += 1
    return n

_MAX_SIG_DIGITS = 18  # significant digits the fast path accumulates in an int64
_TWO53 = 2**53
_POW10 = np.array([10.0**k for k in range(23)], dtype=np.float64)  # exact doubles


@numba.njit(cache=True, nogil=True)
def fast_float(buf, s, e):
    """Parse ``buf[s:e]`` as a float64 exactly as Python's ``float()`` would.

    Handles ``[+-]digits[.digits][(e|E)[+-]digits]`` with at most 18
    significant digits whose value is an exact double times an exact power of
    ten (Clinger's fast path: one correctly rounded multiplication or
    division). Returns ``(False, 0.0)`` for anything else (long mantissas,
    large exponents, inf/nan, underscores, garbage), which the caller hands to
    Python's ``float()``.
    """
    i = s
    neg = False
    if i < e and (buf[i] == 45 or buf[i] == 43):
        neg = buf[i] == 45
        i += 1
    m = np.int64(0)
    nd = 0
    scale = 0
    any_digit = False
    while i < e:
        d = np.int64(buf[i]) - 48
        if d < 0 or d > 9:
            break
        any_digit = True
        if m != 0 or d != 0:
            if nd >= _MAX_SIG_DIGITS:
                return False, 0.0
            m = m * 10 + d
            nd += 1
        i += 1
    if i < e and buf[i] == 46:  # '.'
        i += 1
        while i < e:
            d = np.int64(buf[i]) - 48
            if d < 0 or d > 9:
                break
            any_digit = True
            if m != 0 or d != 0:
                if nd >= _MAX_SIG_DIGITS:
                    return False, 0.0
                m = m * 10 + d
                nd += 1
            scale -= 1
            i += 1
    if not any_digit:
        return False, 0.0
    if i < e and (buf[i] == 101 or buf[i] == 69):  # 'e' / 'E'
        i += 1
        eneg = False
        if i < e and (buf[i] == 45 or buf[i] == 43):
            eneg = buf[i] == 45
            i += 1
        ex = 0
        n_ex = 0
        while i < e:
            d = np.int64(buf[i]) - 48
            if d < 0 or d > 9:
                break
            if ex < 100000:
                ex = ex * 10 + d
            n_ex += 1
            i += 1
        if n_ex == 0:
            return False, 0.0
        scale += -ex if eneg else ex
    if i != e:
        return False, 0.0
    if m == 0:
        return True, -0.0 if neg else 0.0
    if m > _TWO53 or scale > 22 or scale < -22:
        return False, 0.0
    if scale >= 0:
        v = np.float64(m) * _POW10[scale]
    else:
        v = np.float64(m) / _POW10[-scale]
    return True, -v if neg else v


