"""The byte kernels of :mod:`evalrank.data.trec`: the one-pass scan of a chunk of a qrels or run
file (``_scan``: a state machine over the bytes that keeps each line's document id, its FNV-1a
hash and the score or relevance, and where blank / comment lines and runs of equal query ids
are; its error codes and state slots), FNV-1a, and the spans' factorization and ``strcmp``
ordering (query ids decoded once per distinct id). Compiled by numba for large inputs,
interpreted for small ones (:mod:`evalrank._jit`).
"""

from __future__ import annotations

import numpy as np

from evalrank import _jit
from evalrank._jit import njit
from evalrank.data.bytescan import fast_float as _fast_float
from evalrank.data.bytescan import is_blank as _space

__all__ = ["fnv1a", "factorize_spans", "sorted_codes"]

_FNV_OFFSET = np.uint64(14695981039346656037)
_FNV_PRIME = np.uint64(1099511628211)

# error codes of the scan kernel; _ROOM and _FALLBACKS: not errors, the caller makes room / reads
# the fallback scores and calls again
# (_BLANK: a blank line in qrels, which trec_eval 9.0.8 refuses: 'Malformed line')
_OK, _FEW_FIELDS, _EXTRA_FIELDS, _BAD_NUMBER, _LONE_CR, _ROOM, _FALLBACKS, _BLANK = 0, 1, 2, 3, 4, 5, 6, 7
# the scan's state (an int64 array kept between the calls on the chunks of a file; _ERR_POS: where
# the line of an error starts in the chunk)
_LINE, _J, _NSEG, _QUSED, _NSKIP, _NFB, _DONE, _ERR_LINE, _TOK_S, _TOK_E, _NF, _TAG_S, _TAG_E, _ERR_POS = range(14)
N_STATE = 14


@njit(cache=True, nogil=True, wraparound=True)
def fnv1a(buf, s, e):
    """64-bit FNV-1a hash of ``buf[s:e]``."""
    h = _FNV_OFFSET
    for i in range(np.uint64(s), np.uint64(e)):   # unsigned: no negative-index test (40 % faster)
        h = (h ^ buf[i]) * _FNV_PRIME
    return h


def _fnv1a_np(buf: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """FNV-1a of every span at once, a byte position at a time over all ids (NumPy; what the
    kernels compute, for the interpreted mode: a Python loop per byte costs ~1 us)."""
    lens = end - start
    h = np.full(lens.shape[0], _FNV_OFFSET, dtype=np.uint64)
    by_len = np.argsort(-lens, kind="stable")
    sorted_lens = lens[by_len]
    starts = start[by_len]
    for k in range(int(sorted_lens[0]) if lens.size else 0):
        m = int(np.searchsorted(-sorted_lens, -k, side="left"))   # ids longer than k: a prefix
        h[by_len[:m]] = (h[by_len[:m]] ^ buf[starts[:m] + k].astype(np.uint64)) * _FNV_PRIME
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
    scan with ``_LONE_CR``; CRLF and blanks after a CR are whitespace as in trec_eval. A blank
    line (or blanks alone at the end of the file) is skipped in a run, as trec_eval skips it,
    and stops the scan of qrels with ``_BLANK`` (trec_eval: 'Malformed line'). An error's line
    starts at ``st[_ERR_POS]`` in ``buf``.
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
        ls = i
        st[_ERR_POS] = ls
        # skip leading blanks
        cr = False
        while i < n and _space(buf[i]):
            if buf[i] == 13:
                cr = True
            i += 1
        if i >= n:
            if final:
                if not is_run and i > ls:   # blanks alone on the last line of qrels
                    status = _BLANK
                    st[_ERR_LINE] = line + 1
                    break
                done = n   # blanks at the end of the file: no line
            break
        if buf[i] == 10:
            if not is_run:
                status = _BLANK
                st[_ERR_LINE] = line + 1
                break
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
    buf = _jit.readonly(buf)  # a reader's writable buffer or frombuffer's read-only one: one compile
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
