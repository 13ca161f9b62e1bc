"""trec_eval's evaluation loop on parsed files, in compiled code.

For every run (:class:`evalrank.data.trec.TrecFile`) and qrels:

1. the topics evaluated are those of the run that have qrels (trec_eval 9.0.8
   loops over the run's topics in ``strcmp`` order and skips the others); with
   ``complete`` (``-c``) the qrels' topics the run lacks are added with an
   empty ranking, so that they count 0 in the mean (trec_eval divides by the
   number of qrels topics);
2. each topic's documents are ranked by score, then by document id, both
   decreasing (``form_res_rels.c``: ``comp_sim_docno``); scores are compared
   as trec_eval 9.0.x stores them, in float32 (``precision="float32"``;
   ``None`` compares float64, as trec_eval 10 does); ``max_docs`` (``-M``)
   keeps the first so many;
3. a document retrieved twice for an evaluated topic (within the kept ones)
   is an error, as is a document judged twice for an evaluated topic
   (trec_eval: "duplicate docs");
4. each retrieved document gets its relevance: -1 if the topic's qrels do
   not list it, -2 if they list it with a negative relevance.

Documents are matched through 64-bit FNV-1a hashes of their ids: the kept
documents of a topic go into a small hash table (which finds duplicates), and
each of the topic's judgments is looked up there, confirmed by comparing the
bytes; ids are compared byte-wise only where two scores tie. A topic's lines
are used where they lie when each topic's lines are together (the usual
case), else one counting sort groups them; a topic's lines that already come
in trec_eval's order (runs are written by rank) are not sorted again, the
others by a radix sort on their scores (float32 rounding done as they are
compared, no copy of the scores), ties then by document id.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evalrank import _jit
from evalrank._jit import njit, prange
from evalrank.data.trec import TrecFile, TrecFormatError

__all__ = ["QrelsIndex", "index_qrels", "rank_run", "RankedRun"]

@njit(cache=True, nogil=True, inline="always")
def _same(buf_a, sa, ea, buf_b, sb, eb):
    """``buf_a[sa:ea] == buf_b[sb:eb]``, eight bytes a step."""
    n = ea - sa
    if n != eb - sb:
        return False
    a = np.uint64(sa)   # unsigned indices: no negative-index test
    b = np.uint64(sb)
    c = np.uint64(0)
    un = np.uint64(n)
    while c + np.uint64(8) <= un:
        d = 0
        for k in range(np.uint64(8)):
            d |= buf_a[a + c + k] ^ buf_b[b + c + k]
        if d != 0:
            return False
        c += np.uint64(8)
    while c < un:
        if buf_a[a + c] != buf_b[b + c]:
            return False
        c += np.uint64(1)
    return True


@njit(cache=True, nogil=True, inline="always")
def _score(score, j, f32):
    """Line ``j``'s score as compared: rounded to float32 (trec_eval 9) or as read."""
    if f32:
        return np.float64(np.float32(score[j]))
    return np.float64(score[j])


@njit(cache=True, nogil=True, inline="always")
def _before(a, b, score, f32, ds, de, buf):
    """trec_eval's order: higher score first, then the larger id (strcmp), then file order."""
    sa = _score(score, a, f32)
    sb = _score(score, b, f32)
    if sa != sb:
        return sa > sb
    la = de[a] - ds[a]
    lb = de[b] - ds[b]
    m = min(la, lb)
    for c in range(m):
        x = buf[ds[a] + c]
        y = buf[ds[b] + c]
        if x != y:
            return x > y
    if la != lb:
        return la > lb
    return a < b


@njit(cache=True, nogil=True)
def _merge_sort(idx, tmp, score, f32, ds, de, buf):
    n = len(idx)
    width = 1
    src = idx
    dst = tmp
    while width < n:
        lo = 0
        while lo < n:
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            i, j, k = lo, mid, lo
            while i < mid and j < hi:
                if _before(src[j], src[i], score, f32, ds, de, buf):
                    dst[k] = src[j]
                    j += 1
                else:
                    dst[k] = src[i]
                    i += 1
                k += 1
            while i < mid:
                dst[k] = src[i]
                i += 1
                k += 1
            while j < hi:
                dst[k] = src[j]
                j += 1
                k += 1
            lo = hi
        src, dst = dst, src
        width *= 2
    if src is not idx:
        idx[:] = src[:]


@njit(cache=True, nogil=True)
def _radix(keys, idx, passes, k2, i2, cnt):
    """``idx`` sorted in place by ``keys`` (unsigned, increasing; sorted too): a stable LSD radix
    sort, 8 bits a pass, the digits of every pass counted in one loop, passes whose digit every
    key shares skipped; ``k2``, ``i2`` (as long), ``cnt`` (passes x 256): scratch."""
    m = len(idx)
    k2 = k2[:m]
    i2 = i2[:m]
    cnt[:passes, :] = 0
    for i in range(m):
        k = keys[i]
        for p in range(passes):
            cnt[p, np.int64((k >> np.uint64(8 * p)) & np.uint64(255))] += 1
    src_k, dst_k, src_i, dst_i = keys, k2, idx, i2
    moved = False
    for p in range(passes):
        sh = np.uint64(8 * p)
        if cnt[p, np.int64((src_k[0] >> sh) & np.uint64(255))] == m:
            continue
        s = 0
        for d in range(256):
            c = cnt[p, d]
            cnt[p, d] = s
            s += c
        for i in range(m):
            d = np.int64((src_k[i] >> sh) & np.uint64(255))
            t = cnt[p, d]
            cnt[p, d] = t + 1
            dst_k[t] = src_k[i]
            dst_i[t] = src_i[i]
        src_k, dst_k = dst_k, src_k
        src_i, dst_i = dst_i, src_i
        moved = not moved
    if moved:
        idx[:] = src_i[:]
        keys[:] = src_k[:]


@njit(cache=True, nogil=True)
def _rank_topic(idx, score, f32, ds, de, buf, lib_sort, neg, keys, k2, i2, cnt):
    """Put ``idx`` (one topic's lines, ascending) in trec_eval's order: a stable LSD radix sort
    on the scores (decreasing; :func:`_radix`), then each group of tied scores by document id
    (:func:`_before`). ``neg``, ``keys``, ``k2``, ``i2``, ``cnt``: scratch, at least as long as
    ``idx``. ``lib_sort`` (set where the kernels run interpreted): the scores sorted by NumPy's
    stable sort instead, the same order at C speed where a Python loop per key would be slow."""
    m = len(idx)
    if lib_sort:
        neg = np.empty(m, dtype=np.float64)
        for i in range(m):
            x = np.float64(np.float32(score[idx[i]])) if f32 else np.float64(score[idx[i]])
            neg[i] = -x if x != 0 else 0.0   # 0 and -0 tie, as in C's comparison
        order = np.argsort(neg, kind="mergesort")
        sv = neg[order]
        idx[:] = idx[order]
        i = 0
        while i < m:
            j = i + 1
            while j < m and sv[j] == sv[i]:
                j += 1
            if j - i > 1:
                _merge_sort(idx[i:j], np.empty(j - i, dtype=idx.dtype), score, f32, ds, de, buf)
            i = j
        return
    keys = keys[:m]
    if f32:   # -score's bits, mapped so that unsigned order is float order
        neg32 = neg.view(np.float32)
        bits = neg32.view(np.uint32)
        for i in range(m):
            x = np.float32(score[idx[i]])
            neg32[i] = -x if x != 0 else np.float32(0.0)   # 0 and -0 tie, as in C's comparison
        for i in range(m):
            b = np.uint64(bits[i])
            keys[i] = b ^ np.uint64(0xFFFFFFFF) if b >= np.uint64(0x80000000) else b | np.uint64(0x80000000)
        _radix(keys, idx, 4, k2, i2, cnt)
    else:
        bits64 = neg.view(np.uint64)
        for i in range(m):
            x = np.float64(score[idx[i]])
            neg[i] = -x if x != 0 else 0.0
        for i in range(m):
            b = bits64[i]
            keys[i] = (b ^ np.uint64(0xFFFFFFFFFFFFFFFF) if b >= np.uint64(0x8000000000000000)
                       else b | np.uint64(0x8000000000000000))
        _radix(keys, idx, 8, k2, i2, cnt)
    i = 0   # tied scores: by document id, decreasing
    while i < m:
        j = i + 1
        while j < m and keys[j] == keys[i]:
            j += 1
        if j - i > 1:
            _merge_sort(idx[i:j], np.empty(j - i, dtype=idx.dtype), score, f32, ds, de, buf)
        i = j


@njit(cache=True, nogil=True)
def _group_lines(qid, n_codes):
    """Each topic code's lines: ``(first, cnt, perm)``, its lines ``first[c]:first[c] + cnt[c]``
    of the file where every topic's lines are together (``perm`` empty), else of ``perm`` (a
    counting sort)."""
    n = len(qid)
    cnt = np.zeros(n_codes, dtype=np.int64)
    first = np.zeros(n_codes, dtype=np.int64)
    last = np.zeros(n_codes, dtype=np.int64)
    for j in range(n):
        c = qid[j]
        if cnt[c] == 0:
            first[c] = j
        last[c] = j
        cnt[c] += 1
    together = True
    for c in range(n_codes):
        if cnt[c] > 0 and last[c] - first[c] + 1 != cnt[c]:
            together = False
            break
    if together:
        return first, cnt, np.empty(0, dtype=np.int64)
    perm = np.empty(n, dtype=np.int64)   # counting sort: first[c] becomes the topic's start in perm
    s = 0
    for c in range(n_codes):
        first[c] = s
        s += cnt[c]
    fill = first.copy()
    for j in range(n):
        c = qid[j]
        perm[fill[c]] = j
        fill[c] += 1
    return first, cnt, perm


@njit(cache=True, parallel=True, lists=("qid", "score", "ds", "de", "dh", "buf", "qmap", "q_jo", "q_sdh", "q_srow",
                                         "q_rel", "q_ds", "q_de", "q_buf", "out_off"))
def _rank_match(qid, score, f32, ds, de, dh, buf, n_codes, qmap, max_docs,
                q_jo, q_sdh, q_srow, q_rel, q_ds, q_de, q_buf,
                out_off, out_rows, out_rels, dup_row, dup_prev, lib_sort):
    """Group the run's lines by topic (:func:`_group_lines`), rank each evaluated topic as
    trec_eval does, keep ``max_docs``, find duplicates and each judgment's document
    (:func:`_match_topic`): the evaluated topics in blocks, each block with its scratch arrays."""
    first, cnt, perm = _group_lines(qid, n_codes)
    together = len(perm) == 0
    n_eval = len(out_off) - 1
    ev = np.empty(n_eval, dtype=np.int64)  # run code of evaluated topic e
    e = 0
    big = 1
    for c in range(n_codes):
        if qmap[c] >= 0:
            ev[e] = c
            e += 1
            big = max(big, cnt[c])
    size = 1
    while size < 2 * big:
        size *= 2
    nb = min(n_eval, 64)
    for b in prange(nb):
        idx_all = np.empty(big, dtype=np.int64)
        neg, keys, k2 = np.empty(big, dtype=np.float64), np.empty(big, dtype=np.uint64), np.empty(big, dtype=np.uint64)
        i2, cnt8 = np.empty(big, dtype=np.int64), np.empty((8, 256), dtype=np.int64)
        seen, th = np.empty(size, dtype=np.int64), np.empty(size, dtype=np.uint64)
        for e in range(b * n_eval // nb, (b + 1) * n_eval // nb):
            c = ev[e]
            m = cnt[c]
            idx = idx_all[:m]
            if lib_sort:   # interpreted: NumPy fills it
                idx[:] = np.arange(first[c], first[c] + m) if together else perm[first[c]:first[c] + m]
            else:
                for i in range(m):
                    idx[i] = first[c] + i if together else perm[first[c] + i]
            ordered = True
            for i in range(1, m):
                if not _before(idx[i - 1], idx[i], score, f32, ds, de, buf):
                    ordered = False
                    break
            if not ordered:
                _rank_topic(idx, score, f32, ds, de, buf, lib_sort, neg, keys, k2, i2, cnt8)
            _match_topic(idx, min(m, max_docs), e, qmap[c], ds, de, dh, buf, q_jo, q_sdh, q_srow, q_rel, q_ds,
                         q_de, q_buf, out_off[e], out_rows, out_rels, dup_row, dup_prev, seen, th)


@njit(cache=True, nogil=True)
def _match_topic(idx, m, e, qc, ds, de, dh, buf, q_jo, q_sdh, q_srow, q_rel, q_ds, q_de, q_buf, o, out_rows, out_rels,
                 dup_row, dup_prev, seen, th):
    """Topic ``e``'s first ``m`` ranked lines ``idx`` (its qrels topic ``qc``) into ``out_rows``
    from ``o``, with their relevance in ``out_rels``: the kept documents go into a hash table
    (their rank positions in ``seen``, their hashes in ``th``: scratch of a power of two at
    least 2 m), which finds duplicates (``dup_row[e]``: the later line of the first pair found,
    ``dup_prev[e]`` the earlier), and each of the topic's judgments is
    looked up there (-1: not judged, -2: judged negative)."""
    size = 1
    while size < 2 * m:
        size *= 2
    seen[:size] = -1
    mask = np.uint64(size - 1)
    for r in range(m):
        j = idx[r]
        out_rows[o + r] = j
        out_rels[o + r] = -1
        h = dh[j]
        s = np.int64(h & mask)
        while seen[s] >= 0:
            if th[s] == h:
                t = idx[seen[s]]
                if _same(buf, ds[t], de[t], buf, ds[j], de[j]):
                    if dup_row[e] < 0:   # the repeat is the later line of the file, not of the ranking
                        dup_row[e] = max(j, t)
                        dup_prev[e] = min(j, t)
                    break
            s = np.int64((np.uint64(s) + np.uint64(1)) & mask)
        if seen[s] < 0:
            seen[s] = r
            th[s] = h
    for p in range(q_jo[qc], q_jo[qc + 1]):
        h = q_sdh[p]
        s = np.int64(h & mask)
        while seen[s] >= 0:
            if th[s] == h:
                r = seen[s]
                j = idx[r]
                t = q_srow[p]
                if _same(q_buf, q_ds[t], q_de[t], buf, ds[j], de[j]):
                    if out_rels[o + r] == -1:  # the first judgment of a repeated one
                        out_rels[o + r] = q_rel[p] if q_rel[p] >= 0 else -2
                    break
            s = np.int64((np.uint64(s) + np.uint64(1)) & mask)


@njit(cache=True, parallel=True, lists=("qid", "dh", "ds", "de", "buf", "value"))
def _index_topics(qid, dh, ds, de, buf, value, jo, srow, sdh, jval, dup_row, dup_prev):
    """Group the judgments by topic (counting sort: ``srow``/``sdh``/``jval`` (relevance) in
    topic order, file order within a topic); the first line of a topic that repeats an earlier
    judgment of it goes to ``dup_row[c]`` (the earlier line to ``dup_prev[c]``): a hash table
    per topic, the topics in blocks, each block with its table."""
    n_codes = len(jo) - 1
    fill = jo[:-1].copy()
    big = 1
    for c in range(n_codes):
        big = max(big, jo[c + 1] - jo[c])
    for j in range(len(qid)):
        c = qid[j]
        p = fill[c]
        srow[p] = j
        sdh[p] = dh[j]
        jval[p] = np.int64(value[j])
        fill[c] = p + 1
    cap = 1
    while cap < 2 * big:
        cap *= 2
    nb = min(n_codes, 64)
    for b in prange(nb):
        tab = np.empty(cap, dtype=np.int64)
        for c in range(b * n_codes // nb, (b + 1) * n_codes // nb):
            k = jo[c + 1] - jo[c]
            size = 1
            while size < 2 * k:
                size *= 2
            tab[:size] = -1
            mask = np.uint64(size - 1)
            for p in range(jo[c], jo[c + 1]):
                h = sdh[p]
                s = np.int64(h & mask)
                while True:
                    t = tab[s]
                    if t < 0:
                        tab[s] = p
                        break
                    if sdh[t] == h and _same(buf, ds[srow[t]], de[srow[t]], buf, ds[srow[p]], de[srow[p]]):
                        if dup_row[c] < 0:
                            dup_row[c] = srow[p]
                            dup_prev[c] = srow[t]
                        break
                    s = np.int64((np.uint64(s) + np.uint64(1)) & mask)


@dataclass(frozen=True, eq=False)
class QrelsIndex:
    """Qrels ready for lookups: the file; each topic's judgments grouped (``judged`` their
    relevance, ``judged_offsets`` per topic code, ``rows`` their lines, ``hashes`` their id
    hashes); per topic the first line that repeats a judgment of the topic (``dup_row``, -1:
    none) and the line it repeats (``dup_prev``)."""

    file: TrecFile
    judged: np.ndarray
    judged_offsets: np.ndarray
    rows: np.ndarray
    hashes: np.ndarray
    dup_row: np.ndarray
    dup_prev: np.ndarray

    @property
    def qids(self) -> list:
        return self.file.qids


def index_qrels(qrels: TrecFile) -> QrelsIndex:
    n = len(qrels)
    _jit.need(n * _jit.LINE_BYTES)
    nq = len(qrels.qids)
    jo = np.zeros(nq + 1, dtype=np.int64)
    np.cumsum(np.bincount(qrels.qid, minlength=nq), out=jo[1:])
    srow = np.empty(n, dtype=np.int32 if n < 2 ** 31 - 1 else np.int64)
    sdh = np.empty(n, dtype=np.uint64)
    jval = np.empty(n, dtype=np.int64)
    dup_row = np.full(nq, -1, dtype=np.int64)
    dup_prev = np.full(nq, -1, dtype=np.int64)
    _index_topics(qrels.qid, qrels.doc_hash, qrels.doc_start, qrels.doc_end, qrels.buf, qrels.value, jo, srow, sdh,
                  jval, dup_row, dup_prev)
    return QrelsIndex(qrels, jval, jo, srow, sdh, dup_row, dup_prev)


@dataclass(frozen=True, eq=False)
class RankedRun:
    """One run ranked against the qrels: the evaluated topics (``qids``, trec_eval's order;
    ``missing`` marks those added by ``complete``), per topic the kept lines of the run in rank
    order (``rows`` + ``offsets``) with their relevance (``rels``), and each topic's judgments
    (``judged`` + ``judged_offsets``)."""

    name: str
    qids: list
    missing: np.ndarray
    rows: np.ndarray
    rels: np.ndarray
    offsets: np.ndarray
    judged: np.ndarray
    judged_offsets: np.ndarray
    run: TrecFile


def rank_run(run: TrecFile, qrels: QrelsIndex, *, name: str, max_docs: int | None = None,
             complete: bool = False, precision: str | None = "float32") -> RankedRun:
    """Rank ``run`` against ``qrels`` as trec_eval does (module docstring)."""
    _jit.need(len(run) * _jit.LINE_BYTES)
    qmap = _topic_map(run.qids, qrels.qids)
    if not (qmap >= 0).any() and not complete:
        raise TrecFormatError(f"{run.path}: no topic of the run has qrels (run topics e.g. {run.qids[:3]}, qrels "
                              f"topics e.g. {qrels.qids[:3]})")
    if precision not in (None, "float64", "float32"):
        raise ValueError(f"precision must be 'float32' (trec_eval 9) or None (float64, trec_eval 10), got "
                         f"{precision!r}")
    f32 = precision == "float32"   # the kernel rounds each score as it compares it: no copy of the scores
    M = np.iinfo(np.int64).max if max_docs is None else int(max_docs)
    counts = np.bincount(run.qid, minlength=len(run.qids))
    ev = np.flatnonzero(qmap >= 0)
    sizes = np.minimum(counts[ev], M)
    out_off = np.zeros(ev.size + 1, dtype=np.int64)
    np.cumsum(sizes, out=out_off[1:])
    rows = np.empty(int(out_off[-1]), dtype=np.int32 if len(run) < 2 ** 31 - 1 else np.int64)   # memory
    rels = np.empty(int(out_off[-1]), dtype=np.int64)
    dup_row = np.full(ev.size, -1, dtype=np.int64)
    dup_prev = np.full(ev.size, -1, dtype=np.int64)
    qf = qrels.file
    with np.errstate(over="ignore"):   # interpreted: a score beyond float32's range is +-inf, as trec_eval's float
        _rank_match(run.qid, run.value, f32, run.doc_start, run.doc_end, run.doc_hash, run.buf, len(run.qids), qmap,
                    M, qrels.judged_offsets, qrels.hashes, qrels.rows, qrels.judged, qf.doc_start, qf.doc_end, qf.buf,
                    out_off, rows, rels, dup_row, dup_prev, not _jit.compiled())
    bad = np.flatnonzero(dup_row >= 0)
    if bad.size:
        k = int(bad[np.argmin(dup_row[bad])])   # the first such line of the file
        j, prev = int(dup_row[k]), int(dup_prev[k])
        raise TrecFormatError(f"{run.path}:{run.line_of(j)}: document {run.doc_id(j)!r} retrieved twice for topic "
                              f"{run.qids[run.qid[j]]!r} (first on line {run.line_of(prev)}; trec_eval stops "
                              "here: 'duplicate docs')")
    eval_codes = qmap[ev]
    qids = list(run.qids) if ev.size == len(run.qids) else [run.qids[c] for c in ev.tolist()]
    missing = np.zeros(len(qids), dtype=bool)
    if complete:
        extra = sorted(set(qrels.qids) - set(qids))
        if extra:
            qids_all = sorted(qids + extra)
            pos = {q: i for i, q in enumerate(qids_all)}
            new_sizes = np.zeros(len(qids_all), dtype=np.int64)
            new_sizes[[pos[q] for q in qids]] = sizes
            new_off = np.concatenate(([0], np.cumsum(new_sizes))).astype(np.int64)
            qcode = {q: i for i, q in enumerate(qrels.qids)}
            eval_codes = np.array([qcode[q] for q in qids_all], dtype=np.int64)
            missing = np.isin(np.arange(len(qids_all)), [pos[q] for q in extra])
            qids, out_off = qids_all, new_off   # rows/rels keep their order: topics are in qid order
    _check_qrels_duplicates(qrels, eval_codes)
    jo = qrels.judged_offsets
    if eval_codes.size == jo.size - 1 and (eval_codes == np.arange(eval_codes.size)).all():   # every qrels topic
        return RankedRun(name, qids, missing, rows, rels, out_off, qrels.judged, jo, run)
    starts = jo[eval_codes]
    jsizes = jo[eval_codes + 1] - starts
    judged_off = np.zeros(eval_codes.size + 1, dtype=np.int64)
    np.cumsum(jsizes, out=judged_off[1:])
    idx = np.repeat(starts - judged_off[:-1], jsizes) + np.arange(int(judged_off[-1]), dtype=np.int64)
    return RankedRun(name, qids, missing, rows, rels, out_off, qrels.judged[idx], judged_off, run)


def _topic_map(run_qids: list, qrels_qids: list) -> np.ndarray:
    """Per run topic its qrels topic's code, -1 where the qrels lack it (both lists sorted:
    where they hold the same topics, as a run and its qrels usually do, no dict is made)."""
    if run_qids == qrels_qids:
        return np.arange(len(run_qids), dtype=np.int64)
    qcode = {q: i for i, q in enumerate(qrels_qids)}
    return np.array([qcode.get(q, -1) for q in run_qids], dtype=np.int64)


def _check_qrels_duplicates(qrels: QrelsIndex, codes: np.ndarray) -> None:
    rows = qrels.dup_row[codes] if codes.size else qrels.dup_row[:0]
    hit = rows >= 0
    if not hit.any():
        return
    k = int(np.argmin(np.where(hit, rows, np.iinfo(np.int64).max)))   # the first such line of the file
    f = qrels.file
    j = int(rows[k])
    prev = int(qrels.dup_prev[codes[k]])
    raise TrecFormatError(f"{f.path}:{f.line_of(j)}: document {f.doc_id(j)!r} judged twice for topic "
                          f"{f.qids[f.qid[j]]!r} (first on line {f.line_of(prev)}; trec_eval stops here: "
                          "'duplicate docs')")
