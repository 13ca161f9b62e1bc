"""Click logs and judgment files: flat arrays in memory, TSV at the edges.

In memory a log is a :class:`SessionLog`: the distinct result pages
("serps": a query and the query-URL pairs shown at ranks 1..depth) and one
row per distinct (serp, click pattern) with the number of sessions it stands
for. Clicks are a bitmask per row (bit ``r`` = a click at rank ``r + 1``), so
ten million sessions are a few hundred MB at most and usually far less once
identical sessions are merged. Query-URL pairs are integer ids into a pair
table (``query``, ``url``) that the caller owns.

On disk (``sessions.tsv``), one line per session or per group of identical
sessions, with a header::

    query<TAB>shown<TAB>clicked<TAB>count
    q17<TAB>d3 d9 d1 d4 d12<TAB>d9 d4<TAB>3

``shown`` lists the URLs in rank order, ``clicked`` the clicked ones (any
order, possibly none), ``count`` the number of identical sessions (optional
column; 1 when absent). Judgments (``judgments.tsv``) are
``query<TAB>url<TAB>grade<TAB>set`` with grade names of the scale.
Every malformed line is reported with its file and line number.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from evalrank.papers.ozertem2011.grades import PEGFB, GradeScale
from evalrank.data.collection import segment_ids
from evalrank.io import atomic_path, open_text

__all__ = ["SessionLog", "session_log", "check_serps", "PairTable", "read_sessions", "write_sessions", "read_judgments",
           "write_judgments", "MAX_DEPTH"]

#: The deepest result list a click bitmask holds.
MAX_DEPTH = 32
_CHUNK = 1 << 21  # rows (sessions) handled at once: bounds temporary memory


def _bit_length(masks: np.ndarray) -> np.ndarray:
    """Bit length of each click bitmask = its last clicked rank (0: no click)."""
    return np.frexp(masks.astype(np.float64))[1].astype(np.int64)


@dataclass(frozen=True)
class SessionLog:
    """Sessions on shown result lists (see the module docstring).

    serps: (n_serps, depth) int64 pair ids at ranks 1..depth, ``-1`` past the list's end.
    serp_query: (n_serps,) int64 query index of each serp.
    row_serp: (n_rows,) int64 the serp each row saw.
    clicks: (n_rows,) uint32 click bitmask, bit r = click at rank r + 1.
    counts: (n_rows,) int64 sessions the row stands for (>= 1).
    """

    serps: np.ndarray
    serp_query: np.ndarray
    row_serp: np.ndarray
    clicks: np.ndarray
    counts: np.ndarray

    @property
    def depth(self) -> int:
        return int(self.serps.shape[1])

    @property
    def n_sessions(self) -> int:
        return int(self.counts.sum())

    @property
    def n_rows(self) -> int:
        return int(self.row_serp.size)

    def shown_lengths(self) -> np.ndarray:
        """Number of shown URLs of every serp."""
        return (self.serps >= 0).sum(axis=1)

    def click_matrix(self) -> np.ndarray:
        """(n_rows, depth) bool: row i clicked rank r + 1."""
        bits = np.uint32(1) << np.arange(self.depth, dtype=np.uint32)
        return (self.clicks[:, None] & bits[None, :]) != 0

    def last_clicks(self) -> np.ndarray:
        """(n_rows,) int64 rank of each row's last click (1-based; 0 = no click)."""
        return _bit_length(self.clicks)

    def serp_counts(self) -> tuple[np.ndarray, np.ndarray]:
        """Session-weighted counts per serp: ``last`` (n_serps, depth + 1),
        sessions whose last click is at rank l (column 0: no click), and
        ``clicks`` (n_serps, depth), sessions clicking rank r + 1. Rows are
        pooled in chunks, so temporary memory stays bounded on huge logs."""
        n_serps, depth = self.serps.shape
        last = np.zeros(n_serps * (depth + 1))
        clicks = np.zeros((depth, n_serps))
        for lo in range(0, self.n_rows, _CHUNK):
            rs = self.row_serp[lo:lo + _CHUNK]
            c = self.clicks[lo:lo + _CHUNK]
            w = self.counts[lo:lo + _CHUNK].astype(np.float64)
            last += np.bincount(rs * (depth + 1) + _bit_length(c), weights=w, minlength=last.size)
            for r in range(depth):
                hit = ((c >> np.uint32(r)) & np.uint32(1)).astype(bool)
                if hit.any():
                    clicks[r] += np.bincount(rs[hit], weights=w[hit], minlength=n_serps)
        return last.reshape(n_serps, depth + 1), clicks.T.copy()

    def query_sessions(self, n_queries: int) -> np.ndarray:
        """Sessions (impressions) per query index, length ``n_queries``."""
        return np.bincount(self.serp_query[self.row_serp], weights=self.counts,
                           minlength=n_queries).astype(np.int64)

    def aggregate(self) -> "SessionLog":
        """Merge rows with the same serp and click pattern (counts add up);
        rows come out sorted by (serp, clicks)."""
        key = self.row_serp.astype(np.int64) * (1 << MAX_DEPTH) + self.clicks.astype(np.int64)
        uniq, inv = np.unique(key, return_inverse=True)
        counts = np.bincount(inv, weights=self.counts, minlength=uniq.size).astype(np.int64)
        return SessionLog(self.serps, self.serp_query, (uniq >> MAX_DEPTH).astype(np.int64),
                          (uniq & ((1 << MAX_DEPTH) - 1)).astype(np.uint32), counts)


def check_serps(serps, n_pairs: int | None = None) -> np.ndarray:
    """Validated (n_serps, depth) int64 serps: a 2-D integer array, depth
    1..:data:`MAX_DEPTH`, pair ids >= 0 (< ``n_pairs`` if given) or -1 past
    the list's end, no empty rank before a shown URL."""
    serps = np.asarray(serps)
    if serps.ndim != 2 or not np.issubdtype(serps.dtype, np.integer):
        raise TypeError("serps: expected a 2-D integer array of pair ids (-1 past the list's end)")
    if not 1 <= serps.shape[1] <= MAX_DEPTH:
        raise ValueError(f"serps: depth must be in 1..{MAX_DEPTH}, got {serps.shape[1]}")
    serps = serps.astype(np.int64)
    if serps.size and serps.min() < -1:
        raise ValueError("serps: pair ids must be >= 0, or -1 past the list's end")
    if n_pairs is not None and serps.size and serps.max() >= n_pairs:
        raise ValueError(f"serps: pair id {int(serps.max())} is outside the {n_pairs} pairs")
    shown = serps >= 0
    gap = shown[:, 1:] & ~shown[:, :-1]
    if gap.any():
        s = int(np.nonzero(gap.any(axis=1))[0][0])
        raise ValueError(f"serps: serp {s} has an empty rank before a shown URL")
    return serps


def session_log(serps, serp_query, row_serp, clicks, counts=None) -> SessionLog:
    """Validated :class:`SessionLog` from arrays; ``clicks`` is either a
    bitmask vector or an (n_rows, depth) bool matrix.

    Raises ValueError for a serp without shown URLs, a gap in a shown list,
    a URL shown twice on one serp, a click on a rank outside the shown list,
    or a non-positive count.
    """
    serps = check_serps(serps)
    n_serps, depth = serps.shape
    serp_query = np.asarray(serp_query, dtype=np.int64)
    if serp_query.shape != (n_serps,):
        raise ValueError(f"serp_query: expected shape ({n_serps},), got {serp_query.shape}")
    shown = serps >= 0
    lengths = shown.sum(axis=1)
    if n_serps and lengths.min() == 0:
        s = int(np.argmin(lengths))
        raise ValueError(f"serps: serp {s} (query index {serp_query[s]}) has no shown URLs")
    srt = np.sort(np.where(shown, serps, -1 - np.arange(depth)[None, :]), axis=1)
    dup = (srt[:, 1:] == srt[:, :-1]) & (srt[:, 1:] >= 0)
    if dup.any():
        s = int(np.nonzero(dup.any(axis=1))[0][0])
        raise ValueError(f"serps: serp {s} shows the same URL twice")
    row_serp = np.asarray(row_serp, dtype=np.int64)
    if row_serp.ndim != 1:
        raise ValueError("row_serp: expected a 1-D array")
    if row_serp.size and (row_serp.min() < 0 or row_serp.max() >= n_serps):
        raise ValueError(f"row_serp: serp indices must lie in [0, {n_serps - 1}]")
    clicks = np.asarray(clicks)
    if clicks.ndim == 2:
        if clicks.shape != (row_serp.size, depth):
            raise ValueError(f"clicks: expected shape ({row_serp.size}, {depth}), got {clicks.shape}")
        bits = (np.uint64(1) << np.arange(depth, dtype=np.uint64))
        clicks = (clicks.astype(bool).astype(np.uint64) * bits[None, :]).sum(axis=1)
    if clicks.shape != row_serp.shape or not np.issubdtype(clicks.dtype, np.integer):
        raise ValueError(f"clicks: expected an integer bitmask per row, shape {row_serp.shape}")
    if clicks.size and clicks.min() < 0:
        raise ValueError("clicks: bitmasks must be non-negative")
    clicks = clicks.astype(np.uint64)
    limit = (np.uint64(1) << lengths[row_serp].astype(np.uint64))
    outside = clicks >= limit
    if outside.any():
        i = int(np.nonzero(outside)[0][0])
        rank = int(clicks[i]).bit_length()
        raise ValueError(f"clicks: session row {i} clicks rank {rank}, outside its shown list of "
                         f"{int(lengths[row_serp[i]])} URLs (serp {row_serp[i]})")
    counts = np.ones(row_serp.size, dtype=np.int64) if counts is None else np.asarray(counts)
    if counts.shape != row_serp.shape or not np.issubdtype(counts.dtype, np.integer):
        raise ValueError(f"counts: expected an integer count per row, shape {row_serp.shape}")
    if counts.size and counts.min() < 1:
        raise ValueError("counts: every row must stand for at least one session")
    return SessionLog(serps, serp_query, row_serp, clicks.astype(np.uint32), counts.astype(np.int64))


class PairTable:
    """Query and query-URL ids: ``queries`` (list of names) and pairs as
    (query index, url) with a dict for lookups. Pairs not yet known are
    added on :meth:`pair_id` unless the table is frozen."""

    def __init__(self, queries=(), pair_query=(), pair_url=(), *, frozen: bool = False):
        self.queries = [str(q) for q in queries]
        self._qindex = {q: i for i, q in enumerate(self.queries)}
        if len(self._qindex) != len(self.queries):
            raise ValueError("queries: duplicate query names")
        self.pair_query = [int(q) for q in pair_query]
        self.pair_url = [str(u) for u in pair_url]
        if len(self.pair_query) != len(self.pair_url):
            raise ValueError("pair_query and pair_url must have the same length")
        self._pindex = {(q, u): i for i, (q, u) in enumerate(zip(self.pair_query, self.pair_url))}
        if len(self._pindex) != len(self.pair_url):
            raise ValueError("pairs: duplicate (query, url) pairs")
        self.frozen = frozen

    @classmethod
    def from_offsets(cls, queries, offsets, pair_url, *, frozen: bool = True) -> "PairTable":
        """Pairs laid out query by query (pair ids ``offsets[q]:offsets[q+1]``
        belong to query ``q``), as in a world or a LETOR collection."""
        pair_query = segment_ids(np.asarray(offsets, dtype=np.int64))
        return cls(queries, pair_query, pair_url, frozen=frozen)

    def __len__(self) -> int:
        return len(self.pair_url)

    def query_id(self, name: str, where: str = "") -> int:
        q = self._qindex.get(name)
        if q is None:
            if self.frozen:
                raise ValueError(f"{where}: unknown query {name!r}")
            q = self._qindex[name] = len(self.queries)
            self.queries.append(name)
        return q

    def pair_id(self, q: int, url: str, where: str = "") -> int:
        p = self._pindex.get((q, url))
        if p is None:
            if self.frozen:
                raise ValueError(f"{where}: unknown URL {url!r} for query {self.queries[q]!r}")
            p = self._pindex[(q, url)] = len(self.pair_url)
            self.pair_query.append(q)
            self.pair_url.append(url)
        return p

    def lookup(self, queries, urls) -> np.ndarray:
        """Pair ids of (query name, url) rows; -1 where the pair is unknown."""
        out = np.full(len(queries), -1, dtype=np.int64)
        for i, (qn, u) in enumerate(zip(queries, urls)):
            q = self._qindex.get(str(qn))
            if q is not None:
                out[i] = self._pindex.get((q, str(u)), -1)
        return out

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        return np.asarray(self.pair_query, dtype=np.int64), np.asarray(self.pair_url, dtype=str)


def read_sessions(path, pairs: PairTable | None = None) -> tuple[SessionLog, PairTable]:
    """Read ``sessions.tsv`` (module docstring) into an aggregated
    :class:`SessionLog`. Pair and query ids come from ``pairs`` (extended
    with new pairs unless frozen) or a new table. Errors name file:line."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"session log {path} does not exist")
    pairs = PairTable() if pairs is None else pairs
    serp_ids: dict[tuple[int, ...], int] = {}
    serp_rows: list[tuple[int, ...]] = []
    serp_query: list[int] = []
    row_serp: list[int] = []
    row_clicks: list[int] = []
    row_counts: list[int] = []
    with open_text(path) as fh:
        header = fh.readline().rstrip("\n").split("\t")
        if header[:3] != ["query", "shown", "clicked"] or len(header) not in (3, 4) or (
                len(header) == 4 and header[3] != "count"):
            raise ValueError(f"{path}:1: expected the header 'query<TAB>shown<TAB>clicked[<TAB>count]', "
                             f"got {header!r}")
        ncol = len(header)
        for lineno, line in enumerate(fh, start=2):
            line = line.rstrip("\n")
            if not line:
                continue
            where = f"{path}:{lineno}"
            parts = line.split("\t")
            if len(parts) != ncol:
                raise ValueError(f"{where}: expected {ncol} tab-separated columns, got {len(parts)}")
            qname, shown_s, clicked_s = parts[0], parts[1], parts[2]
            if not qname:
                raise ValueError(f"{where}: empty query")
            shown = shown_s.split()
            if not shown:
                raise ValueError(f"{where}: query {qname!r} has no shown URLs")
            if len(shown) > MAX_DEPTH:
                raise ValueError(f"{where}: {len(shown)} shown URLs, more than the supported {MAX_DEPTH}")
            if len(set(shown)) != len(shown):
                raise ValueError(f"{where}: a URL is shown twice in {shown_s!r}")
            rank = {u: r for r, u in enumerate(shown)}
            mask = 0
            for u in clicked_s.split():
                r = rank.get(u)
                if r is None:
                    raise ValueError(f"{where}: click on {u!r}, which is not in the shown list {shown}")
                mask |= 1 << r
            count = 1
            if ncol == 4:
                try:
                    count = int(parts[3])
                except ValueError:
                    raise ValueError(f"{where}: count must be a positive integer, got {parts[3]!r}") from None
                if count < 1:
                    raise ValueError(f"{where}: count must be a positive integer, got {count}")
            q = pairs.query_id(qname, where)
            ids = tuple(pairs.pair_id(q, u, where) for u in shown)
            s = serp_ids.get(ids)
            if s is None:
                s = serp_ids[ids] = len(serp_rows)
                serp_rows.append(ids)
                serp_query.append(q)
            row_serp.append(s)
            row_clicks.append(mask)
            row_counts.append(count)
    depth = max((len(r) for r in serp_rows), default=1)
    serps = np.full((len(serp_rows), depth), -1, dtype=np.int64)
    for i, r in enumerate(serp_rows):
        serps[i, :len(r)] = r
    log = session_log(serps, np.asarray(serp_query, dtype=np.int64), np.asarray(row_serp, dtype=np.int64),
                      np.asarray(row_clicks, dtype=np.uint64), np.asarray(row_counts, dtype=np.int64))
    return log.aggregate(), pairs


def write_sessions(path, log: SessionLog, pairs: PairTable) -> None:
    """Write a log as ``sessions.tsv`` (aggregated rows with counts), atomically."""
    pq, pu = pairs.arrays()
    cm = log.click_matrix()
    with atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8") as fh:
        fh.write("query\tshown\tclicked\tcount\n")
        shown_txt = [" ".join(pu[p] for p in row if p >= 0) for row in log.serps]
        for i in range(log.n_rows):
            s = log.row_serp[i]
            row = log.serps[s]
            clicked = " ".join(pu[row[r]] for r in np.nonzero(cm[i])[0])
            fh.write(f"{pairs.queries[log.serp_query[s]]}\t{shown_txt[s]}\t{clicked}\t{log.counts[i]}\n")


def read_judgments(path, scale: GradeScale = PEGFB) -> pd.DataFrame:
    """Read ``judgments.tsv`` (``query, url, grade, set``) -> DataFrame with
    a ``grade_index`` column. An unknown grade, a missing field or a pair
    judged twice in one set raises ValueError with file:line."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"judgment file {path} does not exist")
    df = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)
    expected = ["query", "url", "grade", "set"]
    if list(df.columns) != expected:
        raise ValueError(f"{path}:1: expected the header {'<TAB>'.join(expected)}, got {list(df.columns)}")
    for col in expected:
        empty = np.nonzero((df[col].str.strip() == "").to_numpy())[0]
        if empty.size:
            raise ValueError(f"{path}:{empty[0] + 2}: empty {col!r}")
    lookup = {n: j for j, n in enumerate(scale.names)}
    idx = df["grade"].map(lookup)
    bad = np.nonzero(idx.isna().to_numpy())[0]
    if bad.size:
        raise ValueError(f"{path}:{bad[0] + 2}: unknown grade {df['grade'].iloc[bad[0]]!r}; "
                         f"the scale is {list(scale.names)}")
    dup = np.nonzero(df.duplicated(["query", "url", "set"]).to_numpy())[0]
    if dup.size:
        r = df.iloc[dup[0]]
        raise ValueError(f"{path}:{dup[0] + 2}: {r['query']!r} / {r['url']!r} judged twice in set {r['set']!r}")
    return df.assign(grade_index=idx.astype(np.int64))


def write_judgments(path, df: pd.DataFrame, scale: GradeScale = PEGFB) -> None:
    """Write judgments (``query, url, grade_index, set``) as ``judgments.tsv``."""
    names = np.asarray(scale.names)
    out = pd.DataFrame({"query": df["query"].astype(str), "url": df["url"].astype(str),
                        "grade": names[np.asarray(df["grade_index"], dtype=np.int64)], "set": df["set"].astype(str)})
    with atomic_path(path) as tmp:
        out.to_csv(tmp, sep="\t", index=False, lineterminator="\n")
