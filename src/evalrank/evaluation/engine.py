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

Documents are matched through 64-bit FNV-1a hashes of their ids, confirmed
by comparing the bytes; ids are compared byte-wise only where two scores
tie. One counting sort groups the run's lines by topic; a topic's lines that
already come in trec_eval's order (the usual case: runs are written by
rank) are not sorted again.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evalrank import _jit
from evalrank._jit import njit, prange
from evalrank.data.trec import TrecFile, TrecFormatError

__all__ = ["QrelsIndex", "index_qrels", "rank_run", "RankedRun"]

_MIX = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True, nogil=True, inline="always", wraparound=True)
def _slot(qcode, h, mask):
    return np.int64((h ^ (np.uint64(qcode + 1) * _MIX)) & np.uint64(mask))


@njit(cache=True, nogil=True, inline="always")
def _same(buf_a, sa, ea, buf_b, sb, eb):
    if ea - sa != eb - sb:
        return False
    for c in range(ea - sa):
        if buf_a[sa + c] != buf_b[sb + c]:
            return False
    return True


@njit(cache=True, nogil=True, wraparound=True)
def _build_table(qcode, dh, ds, de, buf, table, dup):
    """Open addressing (linear probing) on (topic, id hash); ``dup[j]`` = an earlier line
    with the same topic and id bytes, else -1."""
    mask = table.shape[0] - 1
    for j in range(qcode.shape[0]):
        s = _slot(qcode[j], dh[j], mask)
        while True:
            t = table[s]
            if t < 0:
                table[s] = j
                break
            if qcode[t] == qcode[j] and dh[t] == dh[j] and _same(buf, ds[t], de[t], buf, ds[j], de[j]):
                dup[j] = t
                break
            s = (s + 1) & mask


@njit(cache=True, nogil=True, inline="always")
def _before(a, b, score, ds, de, buf):
    """trec_eval's order: higher score first, then the larger id (strcmp), then file order."""
    if score[a] != score[b]:
        return score[a] > score[b]
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
def _merge_sort(idx, tmp, score, ds, de, buf):
    n = idx.shape[0]
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
                if _before(src[j], src[i], score, ds, de, buf):
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


@njit(cache=True, parallel=True, wraparound=True,
      lists=("qid", "score", "ds", "de", "dh", "buf", "qmap", "q_code", "q_ds", "q_de", "q_dh", "q_rel", "q_buf",
             "table", "out_off"))
def _rank_match(qid, score, ds, de, dh, buf, n_codes, qmap, max_docs,
                q_code, q_ds, q_de, q_dh, q_rel, q_buf, table,
                out_off, out_rows, out_rels, dup_row):
    """Group the run's lines by topic (counting sort), rank each evaluated topic as trec_eval
    does, keep ``max_docs``, find duplicates and look up relevances."""
    n = len(qid)
    counts = np.zeros(n_codes + 1, dtype=np.int64)
    for j in range(n):
        counts[qid[j] + 1] += 1
    for c in range(n_codes):
        counts[c + 1] += counts[c]
    perm = np.empty(n, dtype=np.int64)
    fill = counts[:-1].copy()
    for j in range(n):
        c = qid[j]
        perm[fill[c]] = j
        fill[c] += 1
    mask = len(table) - 1
    n_eval = len(out_off) - 1
    ev = np.empty(n_eval, dtype=np.int64)  # run code of evaluated topic e
    e = 0
    for c in range(n_codes):
        if qmap[c] >= 0:
            ev[e] = c
            e += 1
    for e in prange(n_eval):
        c = ev[e]
        lo = counts[c]
        hi = counts[c + 1]
        idx = perm[lo:hi].copy()
        ordered = True
        for i in range(1, idx.shape[0]):
            if not _before(idx[i - 1], idx[i], score, ds, de, buf):
                ordered = False
                break
        if not ordered:
            _merge_sort(idx, np.empty_like(idx), score, ds, de, buf)
        m = min(idx.shape[0], max_docs)
        o = out_off[e]
        # duplicates among the kept documents
        size = 1
        while size < 2 * m:
            size *= 2
        seen = np.full(size, -1, dtype=np.int64)
        smask = size - 1
        qc = qmap[c]
        for r in range(m):
            j = idx[r]
            out_rows[o + r] = j
            s = np.int64(dh[j] & np.uint64(smask))
            while seen[s] >= 0:
                t = seen[s]
                if dh[t] == dh[j] and _same(buf, ds[t], de[t], buf, ds[j], de[j]):
                    if dup_row[e] < 0:
                        dup_row[e] = j
                    break
                s = (s + 1) & smask
            if seen[s] < 0:
                seen[s] = j
            # relevance from the qrels
            rel = -1
            s = _slot(qc, dh[j], mask)
            while table[s] >= 0:
                t = table[s]
                if q_code[t] == qc and q_dh[t] == dh[j] and _same(q_buf, q_ds[t], q_de[t], buf, ds[j], de[j]):
                    rel = q_rel[t] if q_rel[t] >= 0 else -2
                    break
                s = (s + 1) & mask
            out_rels[o + r] = rel


@dataclass(frozen=True, eq=False)
class QrelsIndex:
    """Qrels ready for lookups: the file, a hash table over (topic, id), each topic's
    judgments grouped (``judged``/``judged_offsets`` in topic code order), and the lines that
    repeat a judgment (``dup``: -1 or the earlier line)."""

    file: TrecFile
    table: np.ndarray
    judged: np.ndarray
    judged_offsets: np.ndarray
    dup: np.ndarray

    @property
    def qids(self) -> list:
        return self.file.qids


def index_qrels(qrels: TrecFile) -> QrelsIndex:
    n = len(qrels)
    _jit.need(n * _jit.LINE_BYTES)
    size = 1
    while size < 2 * n:
        size *= 2
    table = np.full(size, -1, dtype=np.int64)
    dup = np.full(n, -1, dtype=np.int64)
    rel = qrels.value.astype(np.int64)
    _build_table(qrels.qid, qrels.doc_hash, qrels.doc_start, qrels.doc_end, qrels.buf, table, dup)
    order = np.argsort(qrels.qid, kind="stable")
    sizes = np.bincount(qrels.qid, minlength=len(qrels.qids))
    return QrelsIndex(qrels, table, rel[order], np.concatenate(([0], np.cumsum(sizes))).astype(np.int64), dup)


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
    qcode = {q: i for i, q in enumerate(qrels.qids)}
    qmap = np.array([qcode.get(q, -1) for q in run.qids], dtype=np.int64)
    if not (qmap >= 0).any() and not complete:
        raise TrecFormatError(f"{run.path}: no topic of the run has qrels (run topics e.g. {run.qids[:3]}, qrels "
                              f"topics e.g. {qrels.qids[:3]})")
    if precision in (None, "float64"):
        score = run.value
    elif precision == "float32":
        score = run.value.astype(np.float32).astype(np.float64)
    else:
        raise ValueError(f"precision must be 'float32' (trec_eval 9) or None (float64, trec_eval 10), got "
                         f"{precision!r}")
    M = np.iinfo(np.int64).max if max_docs is None else int(max_docs)
    counts = np.bincount(run.qid, minlength=len(run.qids))
    ev = np.flatnonzero(qmap >= 0)
    sizes = np.minimum(counts[ev], M)
    out_off = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    rows = np.empty(int(out_off[-1]), dtype=np.int64)
    rels = np.empty(int(out_off[-1]), dtype=np.int64)
    dup_row = np.full(ev.size, -1, dtype=np.int64)
    qf = qrels.file
    _rank_match(run.qid, score, run.doc_start, run.doc_end, run.doc_hash, run.buf, len(run.qids), qmap, M,
                qf.qid, qf.doc_start, qf.doc_end, qf.doc_hash, qf.value.astype(np.int64), qf.buf, qrels.table,
                out_off, rows, rels, dup_row)
    bad = np.flatnonzero(dup_row >= 0)
    if bad.size:
        j = int(dup_row[bad[0]])
        raise TrecFormatError(f"{run.path}:{run.line[j]}: document {run.doc_id(j)!r} retrieved twice for topic "
                              f"{run.qids[run.qid[j]]!r} (trec_eval stops here: 'duplicate docs')")
    eval_codes = qmap[ev]
    qids = [run.qids[c] for c in ev.tolist()]
    missing = np.zeros(len(qids), dtype=bool)
    if complete:
        extra = sorted(set(qrels.qids) - set(qids))
        if extra:
            qids_all = sorted(qids + extra)
            pos = {q: i for i, q in enumerate(qids_all)}
            new_sizes = np.zeros(len(qids_all), dtype=np.int64)
            new_sizes[[pos[q] for q in qids]] = sizes
            new_off = np.concatenate(([0], np.cumsum(new_sizes))).astype(np.int64)
            eval_codes = np.array([qcode[q] for q in qids_all], dtype=np.int64)
            missing = np.isin(np.arange(len(qids_all)), [pos[q] for q in extra])
            qids, out_off = qids_all, new_off   # rows/rels keep their order: topics are in qid order
    _check_qrels_duplicates(qrels, eval_codes)
    jo = qrels.judged_offsets
    jsizes = jo[eval_codes + 1] - jo[eval_codes]
    judged_off = np.concatenate(([0], np.cumsum(jsizes))).astype(np.int64)
    idx = np.concatenate([np.arange(jo[c], jo[c + 1]) for c in eval_codes.tolist()]) if eval_codes.size else \
        np.zeros(0, dtype=np.int64)
    return RankedRun(name, qids, missing, rows, rels, out_off, qrels.judged[idx.astype(np.int64)], judged_off, run)


def _check_qrels_duplicates(qrels: QrelsIndex, codes: np.ndarray) -> None:
    d = np.flatnonzero(qrels.dup >= 0)
    if not d.size:
        return
    f = qrels.file
    hit = d[np.isin(f.qid[d], codes)]
    if hit.size:
        j = int(hit[0])
        raise TrecFormatError(f"{f.path}:{f.line[j]}: document {f.doc_id(j)!r} judged twice for topic "
                              f"{f.qids[f.qid[j]]!r} (first on line {f.line[qrels.dup[j]]}; trec_eval stops here: "
                              "'duplicate docs')")
