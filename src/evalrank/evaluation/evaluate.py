"""``evalrank.evaluate``: trec_eval's measures and evalrank's on qrels + runs.

Inputs, for qrels and for each run, any of:

* a path to a TREC file (read as trec_eval reads it: :mod:`evalrank.data.trec`);
* a pytrec_eval-shaped dict, ``{qid: {docno: relevance}}`` / ``{qid: {docno: score}}``;
* a pandas DataFrame with the column names ir_measures uses (``query_id``,
  ``doc_id``, ``relevance`` / ``score``) or ranx's (``q_id``, ``doc_id``,
  ``score``);
* flat arrays: a mapping with those column names to equal-length arrays.

``runs`` is one run or a mapping ``{name: run}``, or a list of paths (named
by file name). The result is a DataFrame ``run, qid, measure, value`` with
one row per run, evaluated topic and measure column (``P_5``,
``ndcg_cut_10``, ``ndcg@10``...), topics in trec_eval's order; the means
trec_eval prints as ``all`` are ``df.groupby(["run", "measure"]).value.mean()``
(sums for ``num_ret``/``num_rel``/``num_rel_ret``; :func:`summarize` does
both). Evaluation follows trec_eval 9.0.8 (:mod:`evalrank.evaluation.engine`,
:mod:`evalrank.metrics.trec`): ``relevance_level`` is ``-l``, ``max_docs``
``-M``, ``complete`` ``-c`` (the qrels' topics a run lacks get rows of 0, so
that the mean divides by every qrels topic).

evalrank's own measures (``ndcg@10``, ``err@20``, ``dcg@5``, options in the
name: :mod:`evalrank.metrics.names`) see the same ranked, ``-M``-cut lists and
the same judgments (the ideal ranking comes from all of a topic's judgments,
never from the run alone), under the ``convention`` preset (default
``"trec"``: on the same input ``ndcg@10`` equals ``ndcg_cut_10``). Under
``ties="stable"`` (RankLib's and the LETOR tools' "input order") tied scores keep
the order of the run's lines (of a frame's rows), as a stable sort of the file would.

This module holds the evaluation (per run and topic, the ``all`` line, the DataFrame); the inputs
are :mod:`evalrank.evaluation.inputs` and trec_eval's text :mod:`evalrank.evaluation.trec_text`
(``as_trec`` and ``format_trec`` are importable from here too).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evalrank import _jit
from evalrank._jit import njit
from evalrank.data.trec import TrecFile
from evalrank.evaluation.inputs import _runs_of, as_trec
from evalrank.evaluation.trec_text import format_trec
from evalrank.metrics.names import COUNTS, TREC_ORDER, RankMeasure, TrecMeasure, parse_measures

__all__ = ["evaluate", "evaluate_trec", "RunResult", "as_trec", "summarize", "format_trec"]


@dataclass(frozen=True, eq=False)
class RunResult:
    """One run's values: ``values[i, j]`` for topic ``qids[i]`` and column ``columns[j]``;
    ``missing[i]``: a qrels topic the run lacks (``complete``: trec_eval does not evaluate it,
    it only counts in the denominators). ``aggregates[j]``, ``per_query[j]``, ``formats[j]``:
    how trec_eval sums up, prints per topic and formats column j
    (:class:`evalrank.metrics.names.TrecFamily`; evalrank's own measures are means);
    ``strings``: per-topic text values (``relstring``)."""

    name: str
    qids: list
    missing: np.ndarray
    columns: list
    values: np.ndarray
    tag: str = ""
    #: "all" values trec_eval computes otherwise than from the topics (``-c``'s num_rel)
    all_values: dict = None
    aggregates: tuple = ()
    per_query: tuple = ()
    formats: tuple = ()
    strings: dict = None

    def aggregate(self, j: int) -> str:
        if self.aggregates:
            return self.aggregates[j]
        return "sum" if self.columns[j] in COUNTS else "mean"

    def means(self) -> dict:
        """trec_eval's ``all`` line (``meas_acc.c``, ``meas_avg.c``): each value summed over
        the evaluated topics in their order (missing topics add nothing), divided by the
        number of topics (with ``complete``, every qrels topic); counts are sums; ``gm_*``
        exp(mean log max(v, 1e-5)), a missing topic counting log(1e-5). evalrank's own measures
        (aggregate ``"nanmean"``) leave a topic whose value is NaN (an NDCG under
        ``empty="skip"``: no relevant document) out of the mean and of its count, as gdeval.pl
        and :func:`summarize` leave it out."""
        import math

        out = {}
        keep = ~np.asarray(self.missing, dtype=bool)
        n = len(self.qids)
        for j, c in enumerate(self.columns):
            agg = self.aggregate(j)
            if agg == "none":
                continue
            if agg == "runid":
                out[c] = self.tag
                continue
            if agg == "num_q":
                out[c] = float(n)
                continue
            v = self.values[keep, j]
            if agg == "gm":
                s = 0.0
                for x in v.tolist():
                    s += math.log(max(x, 0.00001))
                s += (n - v.size) * math.log(0.00001)
                out[c] = math.exp(s / n) if n else 0.0
                continue
            # a topic an own measure leaves out (gdeval's empty='skip'): not in its mean; trec_eval's
            # measures add a NaN as trec_eval does (-J's iprec_at_recall: '-nan')
            skip = np.isnan(v) if agg == "nanmean" else np.zeros(v.size, dtype=bool)
            v = v[~skip]
            s = float(np.cumsum(v)[-1]) if v.size else 0.0      # sequential, as trec_eval adds
            m = n - int(skip.sum())
            out[c] = s if agg == "sum" else (s / m if m else (float("nan") if skip.any() else 0.0))
        out.update({c: v for c, v in (self.all_values or {}).items() if c in out})
        return out


# ---------------------------------------------------------------------------
# measures on a ranked run
# ---------------------------------------------------------------------------
@njit(cache=True)
def _gather_ids(buf, ds, de, rows, width):
    out = np.zeros((rows.shape[0], width), dtype=np.uint8)
    for i in range(rows.shape[0]):
        j = rows[i]
        for c in range(de[j] - ds[j]):
            out[i, c] = buf[ds[j] + c]
    return out


def _doc_ids(run: TrecFile, rows: np.ndarray) -> np.ndarray:
    """The ids of ``rows`` as a bytes array (compared byte-wise: strcmp order)."""
    if rows.size == 0:
        return np.zeros(0, dtype="S1")
    width = max(1, int((run.doc_end[rows] - run.doc_start[rows]).max()))
    return _gather_ids(run.buf, run.doc_start, run.doc_end, rows, width).view(f"S{width}").ravel()


def _rank_values(m: RankMeasure, ranked, convention: str, ids: np.ndarray) -> np.ndarray:
    from evalrank.metrics import dcg, err, ndcg
    from evalrank.metrics.conventions import resolve

    run = ranked.run
    opts = dict(m.options)
    conv = opts.pop("convention", convention)
    rows, rels = ranked.rows, ranked.rels
    if _ties(m, conv, opts) == "stable":   # tied scores keep the run's order of lines, not trec_eval's
        order = np.lexsort((rows, np.repeat(np.arange(len(ranked.offsets) - 1), np.diff(ranked.offsets))))
        rows, rels, ids = rows[order], rels[order], (None if ids is None else ids[order])
    scores = run.value[rows]
    labels = np.maximum(rels, 0)
    offsets = ranked.offsets
    if m.family == "err":
        max_grade = opts.pop("max_grade", 4)
        if isinstance(max_grade, float) and max_grade.is_integer():   # max_grade=3.0
            max_grade = int(max_grade)
        if isinstance(max_grade, bool) or not isinstance(max_grade, (int, np.integer)) or not 1 <= max_grade <= 1023:
            raise ValueError(f"{m}: max_grade must be an integer from 1 to 1023, got {max_grade!r}")
        top = int(labels.max(initial=0))
        if top > max_grade:
            raise ValueError(f"{m}: relevance {top} is above max_grade {max_grade} (write err(max_grade={top})@k)")
        ties = opts.pop("ties", "docid")
        return err(scores, labels, offsets, m.k, max_grade=max_grade, ties=ties, doc_ids=ids,
                   precision=opts.pop("precision", None))
    if m.family == "ndcg":
        judged = np.maximum(ranked.judged, 0)
        return ndcg(scores, labels, offsets, m.k, convention=conv, doc_ids=ids, ideal_labels=judged,
                    ideal_offsets=ranked.judged_offsets, **opts)
    o = resolve(conv, **opts)
    return dcg(scores, labels, offsets, m.k, gain=o["gain"], discount=o["discount"], ties=o["ties"], doc_ids=ids,
               docid_order=o["docid_order"], precision=o["precision"])


def _ties(m: RankMeasure, convention: str, opts: dict) -> str:
    """The tie rule ``m`` ranks by: its own ``ties=``, else its convention's (ERR: docid)."""
    if "ties" in opts or m.family == "err":
        return opts.get("ties", "docid")
    from evalrank.metrics.conventions import resolve

    return resolve(convention)["ties"]


def _measure_columns(measures) -> tuple[list, list]:
    """(the measures in print order, all columns): trec_eval's names in trec_eval's print order,
    then those named the ir_measures way (``AP@100``) and evalrank's own (``ndcg@10``) in the
    order given."""
    trec = sorted((m for m in measures if isinstance(m, TrecMeasure) and m.label is None),
                  key=lambda m: TREC_ORDER.index(m.name))
    rest = [m for m in measures if not (isinstance(m, TrecMeasure) and m.label is None)]
    ordered = trec + rest
    return ordered, [c for m in ordered for c in m.columns]


def _cut(ranked, k: int):
    """Each ranking's first ``k`` documents (the cut of ``RR@k``, ``RBP@k``: trec_eval's ``-M k``)."""
    from dataclasses import replace

    sizes = np.diff(ranked.offsets)
    pos = np.arange(ranked.rows.size) - np.repeat(ranked.offsets[:-1], sizes)
    keep = pos < k
    offsets = np.concatenate(([0], np.cumsum(np.minimum(sizes, k)))).astype(np.int64)
    return replace(ranked, rows=ranked.rows[keep], rels=ranked.rels[keep], offsets=offsets)


def _judged_only(ranked):
    """trec_eval's ``-J``: the unjudged documents (-1, -2) leave each ranking, the rest move up."""
    from dataclasses import replace

    keep = ranked.rels >= 0
    nq = len(ranked.offsets) - 1
    counts = np.bincount(np.repeat(np.arange(nq), np.diff(ranked.offsets))[keep], minlength=nq)
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    return replace(ranked, rows=ranked.rows[keep], rels=ranked.rels[keep], offsets=offsets)


def _trec_values(trec, ranked, relevance_level: int, num_docs: int) -> tuple[list, dict]:
    """Per trec_eval measure, its ``(n_topics, columns)`` values (``None`` for runid); per-topic
    strings of ``relstring``."""
    from evalrank.metrics import trec as tr

    names = {m.name for m in trec}
    base = None
    if names & tr.KERNEL_FAMILIES or "gm_map" in names:
        ks = sorted({k for m in trec if m.name in tr.CUT for k in m.cutoffs})
        base = tr.trec_measures(ranked.rels, ranked.offsets, ranked.judged, ranked.judged_offsets, cutoffs=ks,
                                relevance_level=int(relevance_level))
        base["num_q"] = np.ones(len(ranked.qids))
    levels = None
    out, strings = [], {}
    for m in trec:
        if m.name == "runid":
            out.append(None)
            continue
        if m.name in tr.KERNEL_FAMILIES and not (m.name == "ndcg" and m.printable is not None):
            out.append(np.column_stack([base[c] for c in m.trec_columns]))
            continue
        if m.name == "Judged":
            out.append(tr.judged_at(ranked.rels, ranked.offsets, m.cutoffs[0] if m.cutoffs else None)[:, None])
            continue
        if levels is None:
            levels = tr.rel_levels(ranked.judged, ranked.judged_offsets)
        if m.name == "rbp" and m.label is not None:    # RBP(p=x): trec_eval 10's rbp.p=x; RBP(rel=l): gain 1 from l up
            from evalrank.metrics import trec_gain

            pairs = tuple(m.cutoffs)
            if m.rel is not None:
                pairs += tuple((str(g), float(g >= m.rel)) for g in range(levels.shape[1]))
                pairs += (("-2", 1.0),) if m.rel <= 0 else ()    # a negative judgment counts as grade 0
            out.append(trec_gain.rbp(ranked.rels, ranked.offsets, levels, params=pairs))
            continue
        if m.name in tr.GAIN_FAMILIES:
            from evalrank.metrics import trec_gain

            v = getattr(trec_gain, m.name)(ranked.rels, ranked.offsets, levels, relevance_level=int(relevance_level),
                                           params=m.cutoffs,
                                           num_docs=int(num_docs))
            if m.family.fmt == "string":
                strings[m.columns[0]] = [f"'{x}'" for x in v]     # m_relstring.c prints '%s'
                v = np.zeros((len(ranked.qids), 1))
            out.append(np.asarray(v, dtype=np.float64).reshape(len(ranked.qids), -1))
            continue
        out.append(tr.family_values(m, ranked.rels, ranked.offsets, levels, relevance_level=int(relevance_level),
                                    num_docs=int(num_docs), map_values=None if base is None else base["map"]))
    return out, strings


def evaluate_trec(qrels, runs, measures, *, relevance_level: int = 1, max_docs: int | None = None,
                  complete: bool = False, precision: str | None = "float32", convention: str = "trec",
                  judged_only: bool = False, num_docs: int = 0, progress=None) -> list[RunResult]:
    """The arrays behind :func:`evaluate` (no pandas): one :class:`RunResult` per run."""
    from evalrank.evaluation.engine import index_qrels, rank_run

    _jit.need(_jit.input_bytes(qrels, runs))  # many small files together may be worth compiling
    measures = parse_measures(measures)
    if isinstance(relevance_level, bool) or not isinstance(relevance_level, (int, np.integer)):
        raise TypeError(f"relevance_level must be an integer, got {relevance_level!r}")
    if max_docs is not None:   # trec_eval's -M: atol's value; 0 keeps no document (num_ret 0), as trec_eval
        if isinstance(max_docs, bool) or not isinstance(max_docs, (int, np.integer)):
            raise TypeError(f"max_docs (trec_eval's -M) must be an integer or None, got {max_docs!r}")
        if max_docs < 0:   # trec_eval 9.0.8 crashes or prints num_ret -9223372036854775808
            raise ValueError(f"max_docs (trec_eval's -M) must be 0 or more, got {max_docs}")
        max_docs = min(int(max_docs), int(np.iinfo(np.int64).max))   # atol saturates: no limit
    from evalrank.metrics.conventions import resolve

    resolve(convention)   # checked whether or not a measure of evalrank's own uses it
    if isinstance(num_docs, bool) or not isinstance(num_docs, (int, np.integer)):
        raise TypeError(f"num_docs must be an integer, got {num_docs!r}")
    # -l and -N beyond a C long read as trec_eval's atol reads them: saturated
    lo, hi = int(np.iinfo(np.int64).min), int(np.iinfo(np.int64).max)
    relevance_level, num_docs = min(max(int(relevance_level), lo), hi), min(max(int(num_docs), lo), hi)
    ordered, cols = _measure_columns(measures)
    aggs, per_q, fmts, start = [], [], [], []
    # trec_eval's measures by the settings they run under: (-l, -J, cut); those named the
    # ir_measures way may set their own (P(rel=2)@5, nDCG(judged_only=True)@10, RR@10)
    groups: dict = {}
    for i, m in enumerate(ordered):
        start.append(len(aggs))
        f = m.family if isinstance(m, TrecMeasure) else None
        aggs += [f.aggregate if f else "nanmean"] * len(m.columns)
        per_q += [f.per_query if f else True] * len(m.columns)
        fmts += [f.fmt if f else "float"] * len(m.columns)
        if isinstance(m, TrecMeasure):
            key = (int(relevance_level if m.rel is None else m.rel),
                   bool(judged_only if m.judged_only is None else m.judged_only), m.max_docs)
            groups.setdefault(key, []).append(i)
    own = [i for i, m in enumerate(ordered) if isinstance(m, RankMeasure)]
    q = index_qrels(as_trec(qrels, "qrels", "qrels"))
    out = []
    for name, r in _runs_of(runs):
        run = as_trec(r, "run", name)
        ranked0 = rank_run(run, q, name=name, max_docs=max_docs, complete=complete, precision=precision)
        variants: dict = {}

        def variant(jo: bool, cut):
            # -M (the call's, in rank_run), then -J, then the measure's own cut (P(judged_only=True)@k
            # is P_k of the judged list)
            if (jo, cut) not in variants:
                v = _judged_only(ranked0) if jo else ranked0
                variants[(jo, cut)] = v if cut is None else _cut(v, cut)
            return variants[(jo, cut)]

        ranked = variant(bool(judged_only), None)
        values = np.zeros((len(ranked.qids), len(cols)))
        strings = {}
        for (level, jo, cut), idx in groups.items():
            parts, s = _trec_values([ordered[i] for i in idx], variant(jo, cut), level, num_docs)
            strings.update(s)
            for i, v in zip(idx, parts):
                if v is not None:
                    values[:, start[i]:start[i] + v.shape[1]] = v
        ids = _doc_ids(run, ranked.rows) if own else None   # once per run, for every own measure
        for i in own:
            values[:, start[i]] = _rank_values(ordered[i], ranked, convention, ids)
        values[ranked.missing] = 0.0     # -c: a topic the run lacks is not evaluated; it counts 0
        # trec_eval -c sums num_rel over every qrels line with a positive relevance, whatever -l
        extra = {"num_rel": float((q.file.value > 0).sum())} if complete else None
        out.append(RunResult(name, ranked.qids, ranked.missing, cols, values, run.run_tag, extra, tuple(aggs),
                             tuple(per_q), tuple(fmts), strings or None))
        if progress is not None:
            progress(name)
    return out


def evaluate(qrels, runs, measures, *, relevance_level: int = 1, max_docs: int | None = None,
             complete: bool = False, precision: str | None = "float32", convention: str = "trec"):
    """Per-topic values of ``measures`` for every run: a DataFrame ``run, qid, measure, value``
    (module docstring).

    Parameters
    ----------
    qrels, runs : paths, dicts, DataFrames or column mappings (module docstring).
    measures : a name or names: ``"map"``, ``"P.5,10"``, ``"ndcg_cut.10"``, ``"ndcg@10"``,
        ``"err@20"``, ... (:mod:`evalrank.metrics.names`).
    relevance_level : trec_eval's ``-l``: relevance at or above it is relevant (default 1).
    max_docs : trec_eval's ``-M``: keep the first so many ranked documents per topic.
    complete : trec_eval's ``-c``: qrels topics a run lacks count 0 (rows of 0 are added).
    precision : scores compared in ``"float32"`` as trec_eval 9 stores them, or ``None``
        (float64, trec_eval 10).
    convention : the NDCG preset of evalrank's own measures (:mod:`evalrank.metrics.conventions`).
    """
    import pandas as pd

    results = evaluate_trec(qrels, runs, measures, relevance_level=relevance_level, max_docs=max_docs,
                            complete=complete, precision=precision, convention=convention)
    frames = []
    aggregates = {}
    for r in results:
        # runid and relstring are text: not in the frame of numbers
        keep = [j for j in range(len(r.columns)) if not r.formats or r.formats[j] != "string"]
        cols = [r.columns[j] for j in keep]
        aggregates.update({r.columns[j]: r.aggregate(j) for j in keep})
        nq, nc = len(r.qids), len(keep)
        frames.append(pd.DataFrame({"run": r.name, "qid": np.repeat(np.array(r.qids, dtype=object), nc),
                                    "measure": np.tile(np.array(cols, dtype=object), nq),
                                    "value": r.values[:, keep].ravel()}))
    df = pd.concat(frames, ignore_index=True)
    df.attrs["aggregates"] = aggregates     # how summarize() sums each measure up
    return df


def summarize(df):
    """trec_eval's ``all`` line per run and measure from :func:`evaluate`'s frame: the mean over
    topics, sums for the counts (``num_ret``, ``NumRet``, ...), the topic count for ``num_q``,
    the geometric mean of max(v, 1e-5) for ``gm_map`` / ``gm_bpref`` (as ``df.attrs
    ["aggregates"]`` says; a frame without it: sums for trec_eval's count names)."""
    aggs = df.attrs.get("aggregates") or {}
    g = df.groupby(["run", "measure"], sort=False)["value"]
    out = g.mean()
    names = out.index.get_level_values("measure")
    kind = np.array([aggs.get(m, "sum" if m in COUNTS else "mean") for m in names], dtype=object)
    counts = (kind == "sum") | np.isin(names, [c for c in COUNTS if c != "num_q"]) & (kind == "mean")
    out[counts] = g.sum()[counts]
    nq = (kind == "num_q") | (names == "num_q")
    out[nq] = g.size()[nq]
    gm = kind == "gm"
    if gm.any():
        logmean = df.assign(value=np.log(np.maximum(df["value"].to_numpy(dtype=float), 0.00001))) \
            .groupby(["run", "measure"], sort=False)["value"].mean()
        out[gm] = np.exp(logmean[gm])
    return out.reset_index()
