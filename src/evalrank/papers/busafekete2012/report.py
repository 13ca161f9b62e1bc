"""Tables of the study (Busa-Fekete et al. 2012, Sec. 5, Figs. 1-2).

* :func:`per_query` -- NDCG@1..k of every run's test queries under every
  evaluation convention (long table).
* :func:`curves` -- 5-fold mean and the paper's standard error: "the
  standard errors of querywise NDCG scores averaged out in quadrature over
  the folds" (footnote 15): per fold ``se_f = sd_f / sqrt(n_f)``, and for the
  mean of the fold means ``sqrt(sum_f se_f^2) / F``.
* :func:`ordering` -- per evaluation convention, the learners' rank order at
  NDCG@k, Kendall's tau against the reference order, and a paired t-test
  over the pooled test queries for each adjacent pair.
* :func:`claims` -- the paper's three observations, measured.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from evalrank.metrics import ndcg
from evalrank.metrics.conventions import CONVENTIONS
from evalrank.metrics.dcg import ideal_dcg

__all__ = ["per_query", "curves", "ordering", "claims", "ALL_CONVENTIONS"]

#: every preset, in a fixed order
ALL_CONVENTIONS = tuple(CONVENTIONS)


def per_query(runs, conventions=ALL_CONVENTIONS, max_k: int = 10) -> pd.DataFrame:
    """``runs``: iterable of ``(meta, arrays)`` (:func:`~evalrank.papers.busafekete2012.runs.load_run`).

    Columns: learner, train_convention, fold, qid, n_docs, empty, eval_convention,
    k, ndcg (NaN only for "skip"-style conventions, none of the presets).
    """
    frames = []
    for meta, a in runs:
        offsets = a["offsets"]
        sizes = np.diff(offsets)
        empty = ideal_dcg(a["labels"], offsets) == 0
        for conv in conventions:
            for k in range(1, max_k + 1):
                v = ndcg(a["scores"], a["labels"], offsets, k, convention=conv, doc_ids=a["doc_ids"])
                frames.append(pd.DataFrame({
                    "learner": meta["learner"], "train_convention": meta["convention"], "fold": meta["fold"],
                    "qid": a["qids"], "n_docs": sizes, "empty": empty, "eval_convention": conv, "k": k,
                    "ndcg": v,
                }))
    out = pd.concat(frames, ignore_index=True)
    return out.sort_values(["learner", "train_convention", "eval_convention", "k", "fold", "qid"],
                           kind="stable").reset_index(drop=True)


def curves(pq: pd.DataFrame) -> pd.DataFrame:
    """Mean over folds of the per-fold mean NDCG, with the paper's standard error."""
    keys = ["learner", "train_convention", "eval_convention", "k"]
    per_fold = (pq.groupby(keys + ["fold"], sort=True)["ndcg"]
                .agg(mean="mean", sd=lambda x: x.std(ddof=1), n="count").reset_index())
    per_fold["se2"] = per_fold["sd"] ** 2 / per_fold["n"]
    agg = per_fold.groupby(keys, sort=True).agg(mean=("mean", "mean"), se2=("se2", "sum"), folds=("fold", "count"),
                                                n_queries=("n", "sum")).reset_index()
    agg["se"] = np.sqrt(agg["se2"]) / agg["folds"]
    return agg.drop(columns="se2")


def ordering(pq: pd.DataFrame, *, train_convention: str, reference: str, k: int = 10) -> pd.DataFrame:
    """Per evaluation convention: each learner's mean NDCG@k (trained with
    ``train_convention``), its rank, Kendall's tau of the convention's order
    against ``reference``'s, and for each learner the paired t-test against
    the next one down (per-query differences pooled over the folds)."""
    from evalrank.evaluation.stats import kendall_tau, paired_t_test

    sub = pq[(pq["train_convention"] == train_convention) & (pq["k"] == k)]
    if sub.empty:
        raise ValueError(f"no runs trained with {train_convention!r} at k={k}")
    wide = sub.pivot_table(index=["eval_convention", "fold", "qid"], columns="learner", values="ndcg")
    means = sub.groupby(["eval_convention", "learner"])["ndcg"].mean().unstack("learner")
    ref = means.loc[reference]
    rows = []
    for conv in means.index:
        m = means.loc[conv].sort_values(ascending=False, kind="stable")
        tau = kendall_tau(means.loc[conv][ref.index].to_numpy(), ref.to_numpy())
        learners = list(m.index)
        block = wide.loc[conv]
        for rank, name in enumerate(learners, start=1):
            row = {"eval_convention": conv, "rank": rank, "learner": name, "mean_ndcg": m[name],
                   "kendall_tau_vs_reference": tau, "next_learner": None, "mean_difference": np.nan,
                   "t_statistic": np.nan, "p_value": np.nan, "n_queries": np.nan}
            if rank < len(learners):
                nxt = learners[rank]
                pair = block[[name, nxt]].dropna()
                d = (pair[name] - pair[nxt]).to_numpy()
                t, p = paired_t_test(pair[name], pair[nxt], few=np.nan, equal=np.nan)
                row.update(next_learner=nxt, mean_difference=d.mean(), n_queries=d.size, t_statistic=t, p_value=p)
            rows.append(row)
    out = pd.DataFrame(rows)
    out["significant_0.05"] = out["p_value"] < 0.05
    out["reference"] = reference
    order = {c: i for i, c in enumerate(ALL_CONVENTIONS)}
    return out.sort_values(["eval_convention", "rank"], key=lambda s: s.map(order) if s.name == "eval_convention"
                           else s, kind="stable").reset_index(drop=True)


def claims(pq: pd.DataFrame, *, reference: str = "ranklib", yahoo: str = "yahoo", letor: str = "letor4",
           listwise=("adarank", "coordinate_ascent", "lambdamart"), k: int = 10) -> pd.DataFrame:
    """The paper's observations, measured on the study's output.

    1. ``yahoo - reference`` equals the share of empty test queries (they
       score 1 instead of 0), i.e. yahoo = skip-mean + share x (1 - skip-mean).
    2. ``reference - letor`` at NDCG@k is the reference NDCG mass of the
       queries shorter than k (LETOR zeroes them); it grows with k.
    3. Listwise learners trained under ``letor`` vs ``reference``, both
       evaluated under ``reference``: mean difference and paired t-test.
    """
    from evalrank.evaluation.stats import paired_t_test

    rows = []
    at_k = pq[pq["k"] == k]
    base = at_k[at_k["eval_convention"] == reference]
    for (learner, tconv), g in base.groupby(["learner", "train_convention"], sort=True):
        y = at_k[(at_k["learner"] == learner) & (at_k["train_convention"] == tconv)
                 & (at_k["eval_convention"] == yahoo)]
        share = g["empty"].mean()
        skip_mean = g.loc[~g["empty"], "ndcg"].mean()
        rows.append({"claim": "yahoo = skip-mean + share_empty x (1 - skip-mean)", "learner": learner,
                     "train_convention": tconv, "k": k, "measured": y["ndcg"].mean(),
                     "predicted": skip_mean + share * (1 - skip_mean), "share_empty": share,
                     "difference_to_reference": y["ndcg"].mean() - g["ndcg"].mean()})
        for kk in sorted(pq["k"].unique()):
            ref_k = pq[(pq["k"] == kk) & (pq["learner"] == learner) & (pq["train_convention"] == tconv)]
            r = ref_k[ref_k["eval_convention"] == reference]
            lt = ref_k[ref_k["eval_convention"] == letor]
            short = r["n_docs"] < kk
            rows.append({"claim": "reference - letor = reference mass of lists shorter than k", "learner": learner,
                         "train_convention": tconv, "k": int(kk), "measured": r["ndcg"].mean() - lt["ndcg"].mean(),
                         "predicted": (r["ndcg"] * short).sum() / len(r), "share_short": short.mean()})
    for learner in listwise:
        a = base[(base["learner"] == learner) & (base["train_convention"] == letor)].set_index(["fold", "qid"])
        b = base[(base["learner"] == learner) & (base["train_convention"] == reference)].set_index(["fold", "qid"])
        if a.empty or b.empty:
            continue
        d = (a["ndcg"] - b["ndcg"]).dropna()
        p = paired_t_test(a["ndcg"].loc[d.index], b["ndcg"].loc[d.index], few=np.nan)[1]
        rows.append({"claim": f"training with {letor} instead of {reference} hurts listwise learners",
                     "learner": learner, "train_convention": letor, "k": k, "measured": d.mean(),
                     "predicted": np.nan, "p_value": p})
    return pd.DataFrame(rows)
