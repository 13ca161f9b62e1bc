"""trec_eval's gain-based measures: G, binG, ndcg with per-level gains, ndcg_rel, Rndcg, yaap,
relstring, and trec_eval 10's rbp, rbp_resid and unj.

A port of trec_eval 9.0.8's ``m_G.c``, ``m_binG.c``, ``m_ndcg.c``, ``m_ndcg_rel.c``,
``m_Rndcg.c``, ``m_yaap.c``, ``m_relstring.c`` and trec_eval 10.0's ``m_rbp.c``,
``m_rbp_resid.c``, ``m_unjudged.c`` (with its ``gain_init.c``), value for value, quirks
included. Each public function takes what trec_eval's ``form_res_rels.c`` makes of the topics::

    family(rels, offsets, levels, *, relevance_level, params, num_docs) -> (n_queries, n_columns)

``rels`` (int64): per query the relevance of each retrieved document in rank order (after
``-M`` and ``-J``): -1 not in the qrels, -2 in the qrels with a negative relevance, else the
judged relevance; ``offsets`` (int64, n_queries + 1); ``levels`` (int64, n_queries x L):
``levels[q, g]``, the number of the topic's judgments of relevance ``g``; ``relevance_level``:
``-l``; ``num_docs``: ``-N`` (trec_eval's default 0; none of these measures reads it);
``params``: ``None`` for the family's defaults, else the parameters as trec_eval parses them
(:data:`SPECS` says which kind). ``relstring`` returns one string per query instead.

The rows must be the topics trec_eval evaluates (in both the qrels and the run), in its order
(qid ``strcmp`` order): a topic whose judgments are all negative gets an all-zero row, and
trec_eval then reuses the ``rel_levels`` of the topic evaluated before it (below).

The per-level gains (``G``, ``ndcg``, ``ndcg_rel``, ``Rndcg``, ``rbp``: ``setup_gains`` in
each file, ``gain_init.c`` in trec_eval 10) and the quirks reproduced here:

* the table holds one entry per ``level=gain`` pair, in the order typed, its level read with
  ``atol`` (``"p"`` and ``"x"`` are level 0; ``"-1"`` is level -1, the gain of every retrieved
  document absent from the qrels), then one entry per level ``0 .. nrl - 1`` not among the
  pairs, its gain the level itself, where ``nrl`` is the topic's highest judged relevance + 1.
  Each entry's count is the topic's number of judgments at its level (the first pair of a
  level gets the count; later pairs of the same level and pairs of levels outside
  ``0 .. nrl - 1`` count 0). Pairs for levels that do not occur thus give no ideal document.
* the table is sorted with ``qsort`` and the comparator ``(int)(gain1 - gain2)``: gains less
  than 1 apart compare equal and keep (glibc's merge sort is stable) the order above, so with
  ``ndcg.1=1.5,2=1.2`` the ideal ranking puts the level-2 documents (1.2) first and a perfect
  run scores ``ndcg`` 1.0516. The sort is glibc's ``msort`` (the reference binary's libc),
  ported with the comparator as x86-64 evaluates it (differences outside ``int`` are INT_MIN).
* a document's gain is the first table entry of its level in sorted order; 0 if none.
* the ideal ranking walks the table from its last (largest) entry down, taking each entry's
  count of documents, skipping entries with count 0, and stops at the first gain <= 0: a gain
  given to level 0 enters the ideal ranking, a negative or zero gain ends it.
* a topic with no judgment of relevance >= 0 (``rel_levels`` all zero) keeps the previous
  topic's ``rel_levels`` and ``num_rel_levels`` (``form_res_rels.c`` zeroes ``max_rel + 1``
  entries and sets ``num_rel_levels`` only when some level is non-empty); its ``num_rel`` is 0.
  trec_eval itself fails on such a topic when it is the first ('Can't calculate measure') and
  crashes when its largest relevance is below -1; here the first one gets an empty table.
* arithmetic is IEEE as in C: 0/0 is NaN (trec_eval prints ``-nan``), x/0 is inf (``binG``
  with retrieved relevant documents but no relevant judgment at ``-l``), log of a negative is
  NaN (``yaap`` with ``-l`` < 0; ``G`` when a pair gives unjudged documents a gain); a NaN
  compares false, so ``ndcg_rel``'s ``if (sum > 0.0)`` leaves such a topic at 0.

The measures (``i`` the 0-based rank, ``gain`` from the table, ``R`` the judgments of relevance
>= ``-l``):

``G``         sum over documents of ``gain / log2(2 + cost_i - got_i)``, ``got_i`` the run's
              gain up to and including rank i, ``cost_i`` the sum over ranks <= i of
              ``max(ideal gain at the rank, 1)`` (1 past the ideal ranking), over the ideal's
              total gain; 0 if that is not > 0 (``m_G.c``)
``binG``      sum over relevant retrieved of ``1 / log2(2 + non-relevant before it)``, over
              ``R``; 0 if none retrieved (``m_binG.c``)
``ndcg``      DCG with the table's gains and ``1/log2(i + 2)``, over the ideal DCG; 0 if the
              ideal DCG is not > 0 (``m_ndcg.c``)
``ndcg_rel``  mean of ``DCG@i / IDCG@i`` at each retrieved document with gain > 0, each
              positive-gain ideal document not matched counting ``DCG / IDCG`` of the whole
              list, over the number of positive-gain ideal documents (``m_ndcg_rel.c``)
``Rndcg``     mean of ``DCG@b / IDCG@b`` at each rank ``b`` where the ideal gain changes, plus
              the whole list when it is longer than the positive-gain ideal ranking by 2 or
              more (by 1: not counted -- the first loop has consumed that rank when it tests
              ``i < num_ret``); 0 if ``R`` = 0; NaN (0/0) if no rank counted (``m_Rndcg.c``)
``yaap``      ``log((1 + s) / (1 + R - s))``, ``s`` the sum over relevant retrieved of
              relevant so far / rank (``m_yaap.c``)
``relstring`` the first ``params[0]`` (default 10) relevances as characters: the digit,
              ``>`` above 9, ``-`` not in the qrels, ``.`` judged negative (``m_relstring.c``);
              trec_eval prints it quoted, per topic only
``rbp``       (trec_eval 10) ``(1 - p) * sum gain_i p^i``, p the last pair named ``p``
              (default 0.9); pairs whose name is not an integer are not gains; the gains are
              rescaled ``(g - min) / (max - min)`` when one is < 0 or > 1, where min and max
              start at 0 -- in ``m_rbp.c`` they start uninitialised, and 0 is what the
              reference build (``-O0``) holds: ``rbp.0=2,1=3,2=4`` scales by 1/4, not (g-2)/2
``rbp_resid`` (trec_eval 10) ``p^n + (1 - p) * sum over unjudged (< 0) p^i`` when the list has
              an unjudged document, else 0 (``m_rbp_resid.c``)
``unj``       (trec_eval 10) unjudged (< 0) documents in the top k / k, at cut-offs 5, 10, 20
              by default (``m_unjudged.c``)

This module holds the names, the inputs (the gain tables above) and the families; their numba
kernels are :mod:`evalrank.metrics.trec_gain_kernels`.
"""

from __future__ import annotations

import re

import numpy as np

from evalrank.metrics.trec_gain_kernels import (_binG_kernel, _G_kernel, _ndcg_kernel, _ndcg_rel_kernel, _rbp_kernel,
                                                _rbp_resid_kernel, _relstring_kernel, _Rndcg_kernel, _unj_kernel,
                                                _yaap_kernel)

__all__ = ["SPECS", "VERSIONS", "columns", "G", "binG", "ndcg", "ndcg_rel", "Rndcg", "yaap", "relstring", "rbp",
           "rbp_resid", "unj"]

#: per family, trec_eval's TREC_MEAS struct: ``params`` (what ``-m name.params`` takes: None,
#: "pairs", "float", "cut_long"), ``default`` (the parameters without ``.params``), ``aggregate``
#: (the "all" line: "mean" is te_calc_avg_meas_s / _a_cut, "none" prints none), ``per_query``
#: (printed per topic with -q), ``fmt`` (%6.4f "float", or "string")
SPECS = {
    "G": dict(params="pairs", default=(), aggregate="mean", per_query=True, fmt="float"),
    "binG": dict(params=None, default=None, aggregate="mean", per_query=True, fmt="float"),
    "ndcg": dict(params="pairs", default=(), aggregate="mean", per_query=True, fmt="float"),
    "ndcg_rel": dict(params="pairs", default=(), aggregate="mean", per_query=True, fmt="float"),
    "Rndcg": dict(params="pairs", default=(), aggregate="mean", per_query=True, fmt="float"),
    "yaap": dict(params=None, default=None, aggregate="mean", per_query=True, fmt="float"),
    "relstring": dict(params="float", default=(10.0,), aggregate="none", per_query=True, fmt="string"),
    "rbp": dict(params="pairs", default=(), aggregate="mean", per_query=True, fmt="float"),
    "rbp_resid": dict(params="pairs", default=(), aggregate="mean", per_query=True, fmt="float"),
    "unj": dict(params="cut_long", default=(5, 10, 20), aggregate="mean", per_query=True, fmt="float"),
}
#: the trec_eval release each family comes from
VERSIONS = {name: ("10.0" if name in ("rbp", "rbp_resid", "unj") else "9.0.8") for name in SPECS}

_LONG_MAX = 2**63 - 1
_LONG_MIN = -(2**63)


# ---------------------------------------------------------------------------------------------
# names (meas_init.c)
# ---------------------------------------------------------------------------------------------
def _num_text(v) -> str:
    v = float(v)
    return str(int(v)) if v.is_integer() else repr(v)


def columns(family: str, params, given: bool) -> list[str]:
    """trec_eval's printed names for ``family`` (``meas_init.c``): ``%s_%ld`` per long cut-off
    (``append_long``; the cut-offs sorted; ``params`` a tuple of ints or the typed text),
    ``name_<params>`` for float and pair parameters when given (``append_string`` of the text as
    typed), else ``name``. For float and pair parameters pass ``params`` as the text typed after
    the ``.`` (a tuple is written back as ``1=3.5,2=9`` / ``10``, which is the typed text only
    when it was typed that way)."""
    spec = SPECS[family]
    kind = spec["params"]
    if kind == "cut_long":
        cuts = spec["default"] if (params is None or not given) else params
        if isinstance(cuts, str):
            cuts = [_atol(part) for part in cuts.split(",")]
        return [f"{family}_{k}" for k in _long_cutoffs(cuts)]
    if kind in ("float", "pairs") and given and params is not None:
        if isinstance(params, str):
            text = params
        elif kind == "pairs":
            text = ",".join(f"{n}={_num_text(v)}" for n, v in params)
        else:
            text = ",".join(_num_text(v) for v in params)
        return [f"{family}_{text}"]
    return [family]


# ---------------------------------------------------------------------------------------------
# inputs
# ---------------------------------------------------------------------------------------------
def _check(rels, offsets, levels):
    rels = np.ascontiguousarray(rels, dtype=np.int64)
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    levels = np.ascontiguousarray(levels, dtype=np.int64)
    if rels.ndim != 1 or offsets.ndim != 1 or offsets.size < 1:
        raise ValueError("rels must be 1-d and offsets 1-d with one entry per query + 1")
    nq = offsets.size - 1
    if offsets[0] != 0 or offsets[-1] != rels.size or np.any(np.diff(offsets) < 0):
        raise ValueError("offsets must rise from 0 to len(rels)")
    if levels.ndim != 2 or levels.shape[0] != nq or levels.shape[1] < 1:
        raise ValueError(f"levels must be (n_queries={nq}, L >= 1), got shape {levels.shape}")
    if np.any(levels < 0):
        raise ValueError("levels are counts of judgments: none may be negative")
    if rels.size and (rels.min() < -2 or rels.max() >= levels.shape[1]):
        raise ValueError(f"rels must lie in -2 .. L-1 = {levels.shape[1] - 1} (levels' width)")
    return rels, offsets, levels


def _level_int(level) -> int:
    if not isinstance(level, (int, np.integer)) or isinstance(level, bool):
        raise TypeError(f"relevance_level must be an integer, got {level!r}")
    return int(level)


def _effective_levels(levels):
    """(num_rel_levels, source topic) per topic as the measures see them (``form_res_rels.c``): a
    topic with no non-negative judgment keeps the previous topic's rel_levels (source -1: none
    before it), without copying any row."""
    nq, width = levels.shape
    nonzero = levels != 0
    has = nonzero.any(axis=1)
    nrl = np.where(has, width - np.argmax(nonzero[:, ::-1], axis=1), 0).astype(np.int64)
    src = np.where(has, np.arange(nq), -1)
    src = np.maximum.accumulate(src) if nq else src
    nrl_eff = np.where(src >= 0, nrl[np.maximum(src, 0)], 0).astype(np.int64)
    return nrl_eff, src.astype(np.int64)


def _num_rel(levels, level: int):
    """``res_rels.num_rel``: the topic's judgments of relevance >= level (its own row)."""
    return np.ascontiguousarray(levels[:, max(level, 0):].sum(axis=1), dtype=np.int64)


_ATOL = re.compile(r"[ \t\n\v\f\r]*([+-]?)([0-9]+)")


def _atol(text: str) -> int:
    """C's ``atol`` (glibc ``strtol``, base 10): the leading integer, 0 if none, saturated."""
    m = _ATOL.match(text)
    if not m:
        return 0
    v = int(m.group(2)) * (-1 if m.group(1) == "-" else 1)
    return min(max(v, _LONG_MIN), _LONG_MAX)


def _valid_int(text: str) -> bool:
    """trec_eval 10's ``valid_int`` (``gain_init.c``): an optional sign, then only digits."""
    body = text[1:] if text[:1] in ("+", "-") else text
    return bool(body) and all("0" <= c <= "9" for c in body)


def _pairs(params, family):
    if params is None:
        return ()
    out = []
    for p in params:
        if not (isinstance(p, (tuple, list)) and len(p) == 2 and isinstance(p[0], str)):
            raise TypeError(f"{family}: params must be (name: str, value: float) pairs, got {p!r}")
        out.append((p[0], float(p[1])))
    return tuple(out)


def _c_cmp_positive(a: float, b: float) -> bool:
    """``comp_rel_gain(a, b) > 0``: ``(int)(a - b)`` as x86-64 truncates it is at least 1, i.e.
    ``1 <= a - b < 2**31`` (NaN and values out of ``int`` range are INT_MIN)."""
    d = a - b
    return 1.0 <= d < 2147483648.0


class _Table:
    """The sorted gain table of ``setup_gains`` for one ``num_rel_levels`` t, without one entry per
    level: the typed pairs ``P`` come first, then the default levels ``D`` = 0 .. t - 1 not typed
    (gain = level, ascending); glibc's merge sort (``msort_with_tmp``: top-down, left half ``n // 2``,
    a merge taking the left entry when ``comp_rel_gain <= 0``) is followed on that list with
    every run of consecutive default levels kept as one item ``("D", a, b)`` (D's positions a .. b - 1),
    so that a table of any t costs what its few typed pairs cost. A default run is sorted already
    (integer gains, distinct: the comparator is exact on them); only merges with a typed pair split
    one, at a position found by bisection.

    ``items``: the sorted table as ``("P", k)`` (typed pair k) and ``("D", a, b)`` items."""

    def __init__(self, typed, t: int):
        self.typed = typed
        self.t = t
        self.holes = sorted({lv for lv, _ in typed if 0 <= lv < t})
        self.nd = t - len(self.holes)
        n = len(typed) + self.nd
        self.items = self._sort(0, n) if n else []

    def value(self, k: int) -> int:
        """The level (= gain) of default entry k (the k-th level of 0 .. t - 1 not typed)."""
        v = k
        for h in self.holes:
            if h <= v:
                v += 1
            else:
                break
        return v

    def _first_d(self, a: int, b: int, pred) -> int:
        """The first k in a .. b - 1 with ``pred(value(k))`` (pred monotone: False then True), else b."""
        lo, hi = a, b
        while lo < hi:
            mid = (lo + hi) // 2
            if pred(self.value(mid)):
                hi = mid
            else:
                lo = mid + 1
        return lo

    def _sort(self, lo: int, hi: int) -> list:
        p = len(self.typed)
        if lo >= p:                      # default levels only: sorted as they stand
            return [("D", lo - p, hi - p)]
        if hi - lo == 1:
            return [("P", lo)]
        n1 = (hi - lo) // 2
        return self._merge(self._sort(lo, lo + n1), self._sort(lo + n1, hi))

    def _merge(self, left: list, right: list) -> list:
        out: list = []

        def put(item):
            if item[0] == "D" and out and out[-1][0] == "D" and out[-1][2] == item[1]:
                out[-1] = ("D", out[-1][1], item[2])
            elif item[0] != "D" or item[1] < item[2]:
                out.append(item)

        left, right = list(left), list(right)
        i = j = 0
        while i < len(left) and j < len(right):
            a, b = left[i], right[j]
            av = self.typed[a[1]][1] if a[0] == "P" else float(self.value(a[1]))
            bv = self.typed[b[1]][1] if b[0] == "P" else float(self.value(b[1]))
            if not _c_cmp_positive(av, bv):      # the left head goes first
                if a[0] == "P":
                    put(a)
                    i += 1
                    continue
                # the left run's levels d up to the first with (int)(d - bv) > 0 (d - bv rises)
                k = self._first_d(a[1], a[2], lambda d: float(d) - bv >= 1.0)
                if k < a[2] and not _c_cmp_positive(float(self.value(k)), bv):
                    k = a[2]                     # beyond int: INT_MIN <= 0, for the rest too
                put(("D", a[1], k))
                left[i] = ("D", k, a[2])
                i += k == a[2]
            elif b[0] == "P":
                put(b)
                j += 1
            else:   # the right run's levels d while (int)(av - d) > 0 (av - d falls)
                k = self._first_d(b[1], b[2], lambda d: not _c_cmp_positive(av, float(d)))
                put(("D", b[1], k))
                right[j] = ("D", k, b[2])
                j += k == b[2]
        for item in left[i:] + right[j:]:
            put(item)
        return out

    def gains(self) -> list:
        """The gains of the table's entries, sorted (a test's view: one per entry)."""
        out = []
        for it in self.items:
            if it[0] == "P":
                out.append(self.typed[it[1]][1])
            else:
                out += [float(self.value(k)) for k in range(it[1], it[2])]
        return out


def _tables(pairs, nrls, *, v10: bool = False) -> dict:
    """``{t: _Table}`` for each distinct ``num_rel_levels`` t of ``nrls``, with ``typed`` the
    ``(level, gain)`` pairs as ``setup_gains`` reads them (trec_eval 10: integer names only)."""
    typed = [(_atol(n), v) for n, v in pairs if (not v10 or _valid_int(n))]
    return {t: _Table(typed, t) for t in sorted(set(int(x) for x in nrls))}


def _rescale(table: "_Table"):
    """trec_eval 10's ``m_rbp.c`` rescaling of the sorted table, ``(g - lo) / (hi - lo)`` with lo
    and hi starting at 0, as ``(lo, hi)``; None where no gain is < 0 or > 1."""
    lo = min([0.0] + [g for _, g in table.typed])
    hi = max([0.0] + [g for _, g in table.typed] + ([float(table.value(table.nd - 1))] if table.nd else []))
    return (lo, hi) if (lo < 0 or hi > 1) else None


def _doc_gains(rels, offsets, nrl, tables, *, v10: bool = False) -> np.ndarray:
    """``get_gain`` of each retrieved document (float64, as ``rels``): a level typed in the pairs
    takes the gain of its first pair in the sorted table, another level 0 .. t - 1 its own value,
    anything else (unjudged, judged negative, untyped) 0; rescaled for trec_eval 10's rbp."""
    nq = offsets.size - 1
    t_doc = np.repeat(nrl, np.diff(offsets)) if nq else np.zeros(0, dtype=np.int64)
    out = np.where((rels >= 0) & (rels < t_doc), rels, 0).astype(np.float64)
    for t, tab in tables.items():
        on = t_doc == t
        if not on.any():
            continue
        first: dict = {}
        for it in tab.items:
            if it[0] == "P":
                first.setdefault(tab.typed[it[1]][0], tab.typed[it[1]][1])
        for lv, g in first.items():
            out[on & (rels == lv)] = g
        scale = _rescale(tab) if v10 else None
        if scale is not None:   # the table's entries only: a level not in it keeps gain 0
            lo, hi = scale
            listed = on & (((rels >= 0) & (rels < t)) | np.isin(rels, [lv for lv, _ in tab.typed]))
            out[listed] = (out[listed] - lo) / (hi - lo)
    return out


def _sparse_levels(levels):
    """The non-zero counts of ``levels`` per topic: (grade, count) ascending by grade, offsets."""
    q, g = np.nonzero(levels)
    off = np.zeros(levels.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.bincount(q, minlength=levels.shape[0]), out=off[1:])
    return g.astype(np.int64), levels[q, g].astype(np.int64), off


def _ideal_entries(levels, tables, nrl, src_topic):
    """Per topic the ideal ranking's walk of its sorted table (the kernels' ``_next_ideal``), as
    the entries with a count (``m_*.c`` skip the others): ``(gain, count)`` in table order (the
    walk goes from the last one down) with offsets, and ``init``: the gain of the table's last
    entry, which the measures read before the walk starts. ``src_topic[q]``: the topic whose
    rel_levels topic q uses (-1: none)."""
    grade, count, goff = _sparse_levels(levels)
    nq = nrl.size
    init = np.zeros(nq)
    for t, tab in tables.items():
        if tab.items:
            last = tab.items[-1]
            init[nrl == t] = tab.typed[last[1]][1] if last[0] == "P" else float(tab.value(last[2] - 1))
    if all(not tab.typed for tab in tables.values()):   # the default table: levels 0 .. t - 1, ascending
        src = np.maximum(src_topic, 0)
        sizes = np.where(src_topic >= 0, goff[src + 1] - goff[src], 0)
        eoff = np.zeros(nq + 1, dtype=np.int64)
        np.cumsum(sizes, out=eoff[1:])
        idx = np.repeat(goff[src] - eoff[:-1], sizes) + np.arange(eoff[-1])
        return grade[idx].astype(np.float64), count[idx], eoff, init
    gains, counts, eoff = [], [], [0]
    for q in range(nq):
        s = int(src_topic[q])
        tab = tables[int(nrl[q])]
        if s >= 0:
            gq, cq = grade[goff[s]:goff[s + 1]], count[goff[s]:goff[s + 1]]
            have = dict(zip(gq.tolist(), cq.tolist()))
            counted = set()
            for it in tab.items:
                if it[0] == "P":
                    lv, g = tab.typed[it[1]]
                    # the first pair of a level (in the order typed) takes the level's count
                    first = next(k for k, (lv2, _) in enumerate(tab.typed) if lv2 == lv) == it[1]
                    c = have.get(lv, 0) if (first and 0 <= lv < tab.t and lv not in counted) else 0
                    if c:
                        counted.add(lv)
                        gains.append(g)
                        counts.append(c)
                else:
                    lo, hi = tab.value(it[1]), tab.value(it[2] - 1)
                    a, b = np.searchsorted(gq, [lo, hi + 1])
                    for gg, cc in zip(gq[a:b].tolist(), cq[a:b].tolist()):
                        if gg not in tab.holes:
                            gains.append(float(gg))
                            counts.append(cc)
        eoff.append(len(gains))
    return np.array(gains, dtype=np.float64), np.array(counts, dtype=np.int64), np.array(eoff, dtype=np.int64), init


def _prepare(rels, offsets, levels, relevance_level, params, family, *, v10=False):
    """What the kernels take: each document's gain, each topic's ideal entries (``_ideal_entries``)
    and num_rel; no array as wide as the largest grade squared (issue 49: G, Rndcg and ndcg_rel
    with a grade of 5,000 took 226 MB; each table is now its few typed pairs and runs of levels)."""
    rels, offsets, levels = _check(rels, offsets, levels)
    level = _level_int(relevance_level)
    nrl, src_topic = _effective_levels(levels)
    tables = _tables(_pairs(params, family), nrl, v10=v10)
    dg = _doc_gains(rels, offsets, nrl, tables, v10=v10)
    ent_gain, ent_cnt, ent_off, init = _ideal_entries(levels, tables, nrl, src_topic)
    return offsets, dg, ent_gain, ent_cnt, ent_off, init, _num_rel(levels, level)


# ---------------------------------------------------------------------------------------------
# the families (the kernels: evalrank.metrics.trec_gain_kernels)
# ---------------------------------------------------------------------------------------------
def _gain_family(kernel, family, rels, offsets, levels, relevance_level, params, with_num_rel=False):
    o, dg, ent_gain, ent_cnt, ent_off, init, num_rel = _prepare(rels, offsets, levels, relevance_level, params,
                                                                family)
    out = np.zeros((o.size - 1, 1))
    if with_num_rel:
        kernel(o, dg, ent_gain, ent_cnt, ent_off, init, num_rel, out)
    else:
        kernel(o, dg, ent_gain, ent_cnt, ent_off, init, out)
    return out


def G(rels, offsets, levels, *, relevance_level: int = 1, params=None, num_docs: int = 0) -> np.ndarray:
    """trec_eval's ``G`` (``m_G.c``), (n_queries, 1): see the module docstring."""
    return _gain_family(_G_kernel, "G", rels, offsets, levels, relevance_level, params)


def ndcg(rels, offsets, levels, *, relevance_level: int = 1, params=None, num_docs: int = 0) -> np.ndarray:
    """trec_eval's ``ndcg`` with per-level gains (``m_ndcg.c``), (n_queries, 1)."""
    return _gain_family(_ndcg_kernel, "ndcg", rels, offsets, levels, relevance_level, params)


def ndcg_rel(rels, offsets, levels, *, relevance_level: int = 1, params=None, num_docs: int = 0) -> np.ndarray:
    """trec_eval's ``ndcg_rel`` (``m_ndcg_rel.c``), (n_queries, 1)."""
    return _gain_family(_ndcg_rel_kernel, "ndcg_rel", rels, offsets, levels, relevance_level, params)


def Rndcg(rels, offsets, levels, *, relevance_level: int = 1, params=None, num_docs: int = 0) -> np.ndarray:
    """trec_eval's ``Rndcg`` (``m_Rndcg.c``), (n_queries, 1)."""
    return _gain_family(_Rndcg_kernel, "Rndcg", rels, offsets, levels, relevance_level, params, with_num_rel=True)


def binG(rels, offsets, levels, *, relevance_level: int = 1, params=None, num_docs: int = 0) -> np.ndarray:
    """trec_eval's ``binG`` (``m_binG.c``), (n_queries, 1)."""
    r, o, lv = _check(rels, offsets, levels)
    level = _level_int(relevance_level)
    out = np.zeros((o.size - 1, 1))
    _binG_kernel(r, o, _num_rel(lv, level), level, out)
    return out


def yaap(rels, offsets, levels, *, relevance_level: int = 1, params=None, num_docs: int = 0) -> np.ndarray:
    """trec_eval's ``yaap`` (``m_yaap.c``), (n_queries, 1)."""
    r, o, lv = _check(rels, offsets, levels)
    level = _level_int(relevance_level)
    out = np.zeros((o.size - 1, 1))
    _yaap_kernel(r, o, _num_rel(lv, level), level, out)
    return out


def _c_long(x: float) -> int:
    """``(long) x`` on x86-64: truncation; NaN and out-of-range give LONG_MIN."""
    if x != x or not (-9.223372036854775808e18 <= x < 9.223372036854775808e18):
        return _LONG_MIN
    return int(x)


def relstring(rels, offsets, levels, *, relevance_level: int = 1, params=None, num_docs: int = 0) -> list[str]:
    """trec_eval's ``relstring`` (``m_relstring.c``): per query the first ``(long) params[0]``
    (default 10) relevances as characters, unquoted (trec_eval prints ``'%s'``)."""
    r, o, _ = _check(rels, offsets, levels)
    params = SPECS["relstring"]["default"] if params is None else tuple(params)
    if not params:
        raise ValueError("relstring: params must hold at least one number (the length)")
    length = _c_long(float(params[0]))
    nq = o.size - 1
    width = max(0, min(length, int(np.diff(o).max(initial=0))))   # len = MIN(params[0], num_ret), >= 0
    chars = np.zeros((nq, max(width, 1)), dtype=np.uint8)
    lens = np.zeros(nq, dtype=np.int64)
    _relstring_kernel(r, o, width, chars, lens)
    return [chars[q, : lens[q]].tobytes().decode("ascii") for q in range(nq)]


def _rbp_p(pairs) -> float:
    p = 0.9
    for n, v in pairs:
        if n == "p":
            p = v
    return p


def rbp(rels, offsets, levels, *, relevance_level: int = 1, params=None, num_docs: int = 0) -> np.ndarray:
    """trec_eval 10's ``rbp`` (``m_rbp.c``, ``gain_init.c``), (n_queries, 1)."""
    pairs = _pairs(params, "rbp")
    o, dg = _prepare(rels, offsets, levels, relevance_level, pairs, "rbp", v10=True)[:2]
    out = np.zeros((o.size - 1, 1))
    _rbp_kernel(o, dg, _rbp_p(pairs), out)
    return out


def rbp_resid(rels, offsets, levels, *, relevance_level: int = 1, params=None, num_docs: int = 0) -> np.ndarray:
    """trec_eval 10's ``rbp_resid`` (``m_rbp_resid.c``), (n_queries, 1)."""
    r, o, _ = _check(rels, offsets, levels)
    out = np.zeros((o.size - 1, 1))
    _rbp_resid_kernel(r, o, _rbp_p(_pairs(params, "rbp_resid")), out)
    return out


def _long_cutoffs(cuts) -> tuple:
    out = sorted(int(k) for k in cuts)
    if not out or out[0] <= 0:
        raise ValueError("cut-offs must be positive (trec_eval: 'Negative cutoff detected')")
    if len(set(out)) != len(out):
        raise ValueError("cut-offs must not repeat (trec_eval: 'duplicate cutoffs detected')")
    return tuple(out)


def unj(rels, offsets, levels, *, relevance_level: int = 1, params=None, num_docs: int = 0) -> np.ndarray:
    """trec_eval 10's ``unj`` (``m_unjudged.c``), (n_queries, n_cutoffs)."""
    r, o, _ = _check(rels, offsets, levels)
    cuts = np.array(_long_cutoffs(SPECS["unj"]["default"] if params is None else params), dtype=np.int64)
    out = np.zeros((o.size - 1, cuts.size))
    _unj_kernel(r, o, cuts, out)
    return out
