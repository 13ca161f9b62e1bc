"""What the compiled text readers (LETOR: :mod:`.letor`; TREC: :mod:`.trec`) share: a file's
bytes as users' files come (gzip, a byte-order mark), the blank test, the newline count and the
float parser. Importing this module imports nothing else of the package but :mod:`evalrank._jit`.
"""

from __future__ import annotations

import os
import re

import numpy as np

from evalrank._jit import njit

__all__ = ["fast_float", "strtod", "file_bytes", "DamagedGzipError", "is_blank", "count_newlines"]


class DamagedGzipError(ValueError):
    """A gzip file that cannot be decompressed whole (the readers name the file)."""


def file_bytes(path):
    """The bytes of ``path`` for a byte parser (random access): a read-only memory map of a
    regular file, the whole content of anything else (a pipe, ``/dev/stdin``, a shell's
    ``<(...)``: read once as a stream), or the decompressed content of a gzip file (by its magic
    bytes); a UTF-8 byte-order mark is blanked out, so line 1 keeps its number. An empty file
    gives ``b""``. The caller checks that ``path`` is a file (its own message); a damaged gzip
    raises :class:`DamagedGzipError`."""
    import mmap
    import stat

    with open(path, "rb") as fh:
        regular = stat.S_ISREG(os.fstat(fh.fileno()).st_mode)
        magic = fh.read(3)
        if not regular:  # not seekable, not mappable: read it as it comes
            data = magic + fh.read() if magic else b""
            if data[:2] == b"\x1f\x8b":
                data = _gunzip(data)
        elif magic[:2] == b"\x1f\x8b":
            fh.seek(0)
            data = _gunzip(fh)
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


def _gunzip(src) -> bytes:
    """The decompressed bytes of a gzip file object or of gzip bytes."""
    import gzip
    import io
    import zlib

    try:
        return gzip.GzipFile(fileobj=io.BytesIO(src) if isinstance(src, bytes) else src).read()
    except (OSError, EOFError, zlib.error) as e:
        raise DamagedGzipError(str(e)) from None


@njit(cache=True, nogil=True)
def is_blank(c):
    """Whitespace inside a line (not the newline): blank, tab, CR, VT, FF -- C's isspace less '\\n'."""
    return c <= 32 and (c == 32 or (9 <= c <= 13 and c != 10))   # most bytes fail the first test


@njit(cache=True, nogil=True, lists=("buf",))
def count_newlines(buf):
    n = 0
    for i in range(len(buf)):
        if buf[i] == 10:
            n += 1
    return n

_MAX_SIG_DIGITS = 18  # significant digits the fast path accumulates in an int64
_TWO53 = 2**53
_POW10 = np.array([10.0**k for k in range(23)], dtype=np.float64)  # exact doubles


@njit(cache=True, nogil=True)
def fast_float(buf, s, e):
    """Parse ``buf[s:e]`` as a float64 exactly as C's ``strtod`` (and Python's ``float()``)
    would when it takes the whole token.

    Handles ``[+-]digits[.digits][(e|E)[+-]digits]`` with at most 18
    significant digits whose value is an exact double times an exact power of
    ten (Clinger's fast path: one correctly rounded multiplication or
    division). Returns ``(False, 0.0)`` for anything else (long mantissas,
    large exponents, inf/nan, hexadecimal, garbage), which the caller hands to
    :func:`strtod`.
    """
    i = s
    neg = False
    if i < e and (buf[i] == 45 or buf[i] == 43):
        neg = buf[i] == 45
        i += 1
    m = 0
    nd = 0
    scale = 0
    any_digit = False
    while i < e:
        d = int(buf[i]) - 48
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
            d = int(buf[i]) - 48
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
            d = int(buf[i]) - 48
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


# C's strtod grammar in the "C" locale (C99 7.20.1.3), whole token, ASCII only: what
# trec_eval's atof reads when it reads the whole score. Python's float() is wider (it takes
# '0_9', Unicode digits such as '٠.٩' or '１', surrounding Unicode blanks) and narrower (no
# hexadecimal floats), so it only ever sees tokens matched here.
_DECIMAL = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_HEX = re.compile(rb"[+-]?0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?")
_SPECIAL = re.compile(rb"([+-]?)(?:(inf|infinity)|nan(?:\([0-9A-Za-z_]*\))?)", re.IGNORECASE)


def strtod(tok: bytes):
    """The value C's ``strtod`` gives for the whole of ``tok`` (``[+-]`` then decimal digits
    with an optional point and ``e`` exponent, a ``0x`` hexadecimal float with an optional
    ``p`` exponent, ``inf``/``infinity``/``nan``/``nan(chars)`` in any case), correctly
    rounded as glibc's; ``None`` where strtod would stop before the token's end (``0_9`` is
    0 and ``1e`` is 1 to trec_eval's ``atof``) or the token is not ASCII. Out of range: an
    infinity (or 0 for underflow), as strtod gives."""
    tok = bytes(tok)
    if _DECIMAL.fullmatch(tok):
        return float(tok)
    if _HEX.fullmatch(tok):
        try:
            return float.fromhex(tok.decode("ascii"))
        except OverflowError:
            return float("-inf") if tok[:1] == b"-" else float("inf")
    m = _SPECIAL.fullmatch(tok)
    if m:
        sign = -1.0 if m.group(1) == b"-" else 1.0
        return sign * float("inf") if m.group(2) else float("nan")
    return None
