"""Comparative risk-sensitive evaluation of a population of systems (Dinçer et al. 2016, Sec. 5).

A population is a systems x topics matrix of per-topic effectiveness (the
paper: ERR@20 of the 48 + 1 TREC 2012 Web track runs over 50 topics).
:func:`table6` selects the top systems by mean, adds the single baseline,
and reports for each ``alpha`` URisk and TRisk against that baseline, T*Risk
against the population's per-topic mean (eq. 3), ZRisk and GeoRisk with the
whole population as baselines -- each with its rank column, as the paper's
Table 6. :func:`observations` states, for the data at hand, the paper's
claims about the orders these measures give.

:func:`score_trec_runs` turns a qrels file and a directory of TREC runs into
such a matrix (ERR@k as gdeval computes it, max grade 4, or NDCG@k under a
preset), for the ``python -m evalrank risk`` command.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from evalrank.evaluation.stats import kendall_tau, paired_t_test
from evalrank.metrics import risk

__all__ = ["table6", "observations", "georisk_curves", "score_trec_runs", "population_measure", "per_query",
           "TABLE6_ALPHAS"]

#: the alpha values of the paper's Table 6 (0, 5, 20; the caption also names 1 and 10)
TABLE6_ALPHAS = (0, 1, 5, 10, 20)


def _rank(values: np.ndarray) -> np.ndarray:
    """1 = highest; NaN (undefined, e.g. the baseline against itself) gets no rank."""
    return pd.Series(values).rank(ascending=False, method="min").astype("Int64")


def table6(names, X, *, baseline: str, alphas=TABLE6_ALPHAS, top: int = 8, measure: str = "err@20",
           zero_totals: str = "raise"):
    """Table 6 for the ``top`` systems by mean of ``X`` plus the ``baseline``.

    ``names``: one per row of ``X`` (systems x topics). URisk/TRisk use the
    baseline row; T*Risk the per-topic mean of all rows; ZRisk/GeoRisk all
    rows as baselines. Ranks (``R_...``) are among the rows shown, 1 =
    best; the baseline has no URisk/TRisk (NaN, the paper's ``*``).
    ``p_baseline`` is the two-tailed paired t-test p-value of the mean
    difference to the baseline (``|TRisk| > 2`` at ``alpha = 0``, the
    paper's underlined values). Rows are ordered by mean, as in the paper.
    ``zero_totals``: ZRisk/GeoRisk on a topic where every system scores 0 (or a
    system scoring 0 everywhere), as :func:`evalrank.metrics.risk.zrisk`: "raise"
    (default) or "ignore".
    """
    names = [str(n) for n in names]
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] != len(names):
        raise ValueError(f"X must be (len(names), n_topics) = ({len(names)}, c), got shape {X.shape}")
    if len(set(names)) != len(names):
        raise ValueError("names must be unique")
    if baseline not in names:
        raise ValueError(f"baseline {baseline!r} is not one of the systems ({len(names)} names, e.g. {names[:5]})")
    if isinstance(top, bool) or not isinstance(top, (int, np.integer)) or top < 1:
        raise ValueError(f"top must be a positive integer, got {top!r}")
    a = np.asarray(alphas, dtype=float)
    b = names.index(baseline)
    mean = X.mean(axis=1)
    order = [int(i) for i in np.argsort(-mean, kind="stable") if i != b][:top]
    shown = sorted(order + [b], key=lambda i: (-mean[i], i))
    rows = np.array(shown)
    Z = risk.zrisk(X, rows, a, zero_totals=zero_totals)
    G = risk.georisk(X, rows, a, zero_totals=zero_totals)
    TS = risk.trisk_star(X, rows, a)
    others = rows != b
    U = np.full((rows.size, a.size), np.nan)
    T = np.full((rows.size, a.size), np.nan)
    U[others] = risk.urisk(X[rows[others]], X[b], a)
    T[others] = risk.trisk(X[rows[others]], X[b], a)
    df = pd.DataFrame({"system": [names[i] for i in rows], measure: mean[rows]})
    df["p_baseline"] = [np.nan if i == b else paired_t_test(X[i], X[b])[1] for i in rows]
    for k, al in enumerate(a):
        tag = f"a{al:g}"
        for col, vals in (("urisk", U), ("trisk", T), ("trisk_star", TS), ("zrisk", Z), ("georisk", G)):
            df[f"{col}_{tag}"] = vals[:, k]
            df[f"R_{col}_{tag}"] = _rank(vals[:, k])
    return df


def _order(df: pd.DataFrame, col: str) -> list[str]:
    d = df[["system", col]].dropna()
    return d.sort_values(col, ascending=False, kind="stable")["system"].tolist()


def _tau(df: pd.DataFrame, c1: str, c2: str) -> float:
    """Kendall's tau over the rows where both columns are defined; NaN below two such rows
    (no order to compare, as scipy returns, without its warning)."""
    return kendall_tau(df[c1], df[c2], nan="omit")


def observations(df: pd.DataFrame, *, measure: str = "err@20", alphas=TABLE6_ALPHAS) -> pd.DataFrame:
    """The paper's Sec. 5 observations, checked on this Table 6.

    Rows: claim, alpha, value (Kendall's tau between the two orders over the
    rows where both are defined), holds. Claims: at ``alpha = 0`` URisk,
    TRisk and GeoRisk order the systems as the mean does; ZRisk orders them
    unlike the mean and unlike URisk/TRisk; as ``alpha`` grows GeoRisk moves
    away from the mean's order towards ZRisk's.
    """
    out = []
    a0 = f"a{min(alphas):g}"

    def add(claim, alpha, value, holds):
        out.append({"claim": claim, "alpha": alpha, "kendall_tau": value, "holds": bool(holds)})

    for col in ("urisk", "trisk", "georisk"):
        t = _tau(df, measure, f"{col}_{a0}")
        add(f"{col} orders the systems as mean {measure}", min(alphas), t, t > 1.0 - 1e-9)
    tz = _tau(df, measure, f"zrisk_{a0}")
    add(f"zrisk orders the systems unlike mean {measure}", min(alphas), tz, tz < 1.0)
    tu = _tau(df, "urisk_" + a0, f"zrisk_{a0}")
    add("zrisk orders the systems unlike urisk", min(alphas), tu, tu < 1.0)
    taus_mean = [_tau(df, measure, f"georisk_a{al:g}") for al in alphas]
    taus_z = [_tau(df, f"zrisk_a{al:g}", f"georisk_a{al:g}") for al in alphas]
    add("georisk moves away from the mean's order as alpha grows", max(alphas), taus_mean[-1],
        taus_mean[-1] < taus_mean[0])
    add("georisk approaches zrisk's order as alpha grows", max(alphas), taus_z[-1], taus_z[-1] > taus_z[0])
    return pd.DataFrame(out)


def georisk_curves(names, X, systems, alphas=np.arange(0, 21), *, zero_totals: str = "raise") -> pd.DataFrame:
    """GeoRisk of ``systems`` (names) over ``alphas`` with all rows of ``X``
    as baselines (Fig. 2 / Fig. 3): long table system, alpha, georisk
    (``zero_totals`` as in :func:`table6`)."""
    names = [str(n) for n in names]
    idx = [names.index(s) for s in systems]
    a = np.asarray(alphas, dtype=float)
    G = risk.georisk(np.asarray(X, dtype=float), np.array(idx), a, zero_totals=zero_totals)
    return pd.DataFrame([{"system": s, "alpha": float(al), "georisk": float(G[r, k])}
                         for r, s in enumerate(systems) for k, al in enumerate(a)])


# ---------------------------------------------------------------------------
# TREC runs -> systems x topics
# ---------------------------------------------------------------------------
def population_measure(measure: str) -> tuple[str, int | None]:
    """``"err@20"`` -> ``("err", 20)``; ``"ndcg"`` -> ``("ndcg", None)``: the measure ``measure``
    (parsed by :func:`evalrank.metrics.names.parse_measure`, the one parser) if it is one of the
    flat-array population (ERR or NDCG at a cut-off, no options), else a ``ValueError``."""
    from evalrank.metrics.names import RankMeasure
    from evalrank.metrics.names import parse_measure as parse_name

    m = parse_name(measure)
    if not (isinstance(m, RankMeasure) and m.family in ("err", "ndcg") and not m.options
            and (m.k is None or isinstance(m.k, int))):
        raise ValueError(f"measure must be err@k or ndcg@k, got {measure!r}")
    return m.family, m.k


def per_query(scores, labels, offsets, measure: str = "err@20", *, max_grade: int = 4, convention: str = "gdeval",
              doc_ids=None, ideal_labels=None, ideal_offsets=None) -> np.ndarray:
    """Per-query ``err@k`` (gdeval: ``R = (2^g - 1) / 2^max_grade``, grades
    above ``max_grade`` refused, score ties by document id descending when
    ``doc_ids`` are given) or ``ndcg@k`` (the named preset, queries without
    relevant documents scoring 0)."""
    from evalrank.metrics import err, ndcg

    name, k = population_measure(measure)
    if name == "err":
        ties = "docid" if doc_ids is not None else "stable"
        return err(scores, labels, offsets, k, max_grade=max_grade, ties=ties, doc_ids=doc_ids)
    extra = {} if ideal_labels is None else {"ideal_labels": ideal_labels, "ideal_offsets": ideal_offsets}
    return ndcg(scores, labels, offsets, k, convention=convention, doc_ids=doc_ids, empty=0.0, **extra)


def score_trec_runs(qrels_path, run_paths, *, measure: str = "err@20", max_grade: int = 4,
                    convention: str = "gdeval"):
    """Per-topic ``measure`` of every run -> ``(names, topics, X, notes)``.

    Topics are those of the qrels with at least one relevant document
    (sorted as strings; gdeval.pl reports no other); a run that did not
    retrieve anything for a topic scores 0 on it (as the Web track's
    evaluation: every topic counts). Run names are the file names. Any measure
    of :func:`evalrank.evaluate` may be named (``map``, ``ndcg_cut.20``...).
    ERR@k is gdeval.pl's, the TREC Web track's tool (Chapelle et al. 2009 with
    ``R = (2^g - 1) / 2^max_grade``; a grade above ``max_grade`` is an error
    as in gdeval, negative grades count 0; score ties broken by document id in
    descending order) -- tested against gdeval.pl itself (ir-measures);
    ``ndcg@k`` uses the named preset of :mod:`evalrank.metrics.conventions`
    (default ``gdeval``, the Web track's NDCG). Files are read and ranked by
    :mod:`evalrank.evaluation` (trec_eval's reading rules).
    """
    from evalrank.data.trec import read_trec
    from evalrank.evaluation.evaluate import evaluate_trec
    from evalrank.metrics.names import RankMeasure, TrecMeasure, parse_measure as parse_name

    m = parse_name(measure)  # fail before reading any file
    if isinstance(m, TrecMeasure) and len(m.columns) != 1:
        raise ValueError(f"measure {measure!r}: give one cut-off (the risk measures take one measure)")
    if isinstance(m, RankMeasure) and m.family == "err" and m.option("max_grade") is None:
        m = parse_name(f"err({','.join([f'{a}={b}' for a, b in m.options] + [f'max_grade={max_grade}'])})"
                       + ("" if m.k is None else f"@{m.k}"))
    qrels = read_trec(qrels_path, "qrels")
    top = int(qrels.value.max())
    if isinstance(m, RankMeasure) and m.family == "err" and top > int(m.option("max_grade")):
        raise ValueError(f"{qrels_path}: grade {top} is above --max-grade {m.option('max_grade')} (ERR's top grade; "
                         "gdeval.pl refuses such qrels too)")
    positive = np.bincount(qrels.qid, weights=qrels.value > 0, minlength=len(qrels.qids)) > 0
    topics = [q for q, p in zip(qrels.qids, positive) if p]
    if not topics:
        raise ValueError(f"{qrels_path}: no topic has a relevant judgment")
    notes = []
    if len(topics) < len(qrels.qids):
        notes.append(f"{len(qrels.qids) - len(topics)} qrels topic(s) without a relevant document left out "
                     "(as gdeval.pl)")
    names, rows = [], []
    wanted = set(topics)
    for path in run_paths:
        path = Path(path)
        run = read_trec(path, "run")
        (res,) = evaluate_trec(qrels, {path.name: run}, [m], complete=True, precision=None, convention=convention)
        vals = dict(zip(res.qids, res.values[:, 0].tolist()))
        lacking = int(sum(miss for q, miss in zip(res.qids, res.missing.tolist()) if q in wanted))
        if lacking:
            notes.append(f"{path.name}: no results for {lacking} topic(s), scored 0")
        run_only = len(set(run.qids) - set(qrels.qids))
        if run_only:
            notes.append(f"{path.name}: {run_only} topic(s) without qrels ignored")
        names.append(path.name)
        rows.append([vals[q] for q in topics])
    if len(set(names)) != len(names):
        raise ValueError("run file names must be unique (they name the systems)")
    return names, topics, np.array(rows, dtype=np.float64), notes
