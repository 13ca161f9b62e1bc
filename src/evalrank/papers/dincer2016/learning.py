"""Risk-sensitive learning to rank (Dinçer et al. 2016, Sec. 6 and Table 7).

Protocol (Sec. 6.1), on the queries of all five partitions pooled:

1. hold out ``holdout`` (paper: 20 %, 2,000 of MSLR-WEB10K's 10,000
   queries): two thirds train, one third validate the **four learned
   baselines** -- LambdaMART, plain gradient-boosted regression trees, the
   linear Automatic Feature Selection model and AdaRank
   (:func:`split_queries`);
2. split the other queries into ``n_folds`` parts; fold ``k`` tests on part
   ``k``, validates on part ``k + 1`` and trains on the other three (60 /
   20 / 20 %);
3. in every fold train plain LambdaMART and the risk-sensitive variants
   (:class:`evalrank.papers.dincer2016.risk_lambdamart.RiskLambdaMARTModel`): U-CRO and
   T-FARO against the single BM25 baseline (the ``BM25.wholeDocument``
   feature, MSLR id 110), T*-FARO and GeoRisk against the four learned
   baselines, each at ``alpha`` = 1 and 5;
4. Table 7 (:func:`table7`): per learner the mean NDCG@10 over all test
   queries, and the profile of :func:`evalrank.metrics.risk.profile` against
   BM25 (top half) and macro-averaged over the four learned baselines
   (bottom half), with a paired t-test of every learner against plain
   LambdaMART over all test queries (the paper: "All differences are
   statistically significant over the n = 8000 queries").

Every split comes from ``seeds.rng(seed, "risk", "learning", "split")``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from evalrank import seeds
from evalrank.data.collection import Collection
from evalrank.metrics import risk

__all__ = ["split_queries", "fold_collections", "learner_specs", "table7", "BASELINE_LEARNERS", "SINGLE_BASELINE",
           "MULTI_BASELINE"]

#: The four learned baselines of Sec. 6.1 (evalrank.models.zoo names).
BASELINE_LEARNERS = ("lambdamart", "gbrt", "afs", "adarank")
#: Risk methods whose baseline is the single BM25 feature / the learned baselines.
SINGLE_BASELINE = ("u-cro", "t-saro", "t-faro")
MULTI_BASELINE = ("t*-faro", "georisk")


def split_queries(n_queries: int, *, holdout: float = 0.2, n_folds: int = 5, seed: int) -> dict:
    """Query indices of the protocol: ``{"baseline_train", "baseline_vali",
    "parts": [part_1, ..., part_n]}`` (sorted index arrays, disjoint, covering
    ``0 .. n_queries - 1``)."""
    if isinstance(n_queries, bool) or not isinstance(n_queries, (int, np.integer)) or n_queries < 3 * (n_folds + 1):
        raise ValueError(f"n_queries must be an integer >= 3 (n_folds + 1) = {3 * (n_folds + 1)}, got {n_queries!r}")
    if not 0 < holdout < 1:
        raise ValueError(f"holdout must lie in (0, 1), got {holdout!r}")
    if isinstance(n_folds, bool) or not isinstance(n_folds, (int, np.integer)) or n_folds < 3:
        raise ValueError(f"n_folds must be an integer >= 3, got {n_folds!r}")
    perm = seeds.rng(seed, "risk", "learning", "split").permutation(n_queries)
    n_hold = max(3, round(holdout * n_queries))
    hold, rest = perm[:n_hold], perm[n_hold:]
    n_bt = round(2 * n_hold / 3)
    return {
        "baseline_train": np.sort(hold[:n_bt]),
        "baseline_vali": np.sort(hold[n_bt:]),
        "parts": [np.sort(p) for p in np.array_split(rest, n_folds)],
    }


def fold_collections(pool: Collection, split: dict, fold: int) -> tuple[Collection, Collection, Collection]:
    """(train, vali, test) of 1-based ``fold``: test = part ``fold``, vali =
    the next part (cyclically), train = the others."""
    parts = split["parts"]
    n = len(parts)
    if isinstance(fold, bool) or not isinstance(fold, (int, np.integer)) or not 1 <= fold <= n:
        raise ValueError(f"fold must be in 1..{n}, got {fold!r}")
    t, v = fold - 1, fold % n
    train = np.sort(np.concatenate([parts[k] for k in range(n) if k not in (t, v)]))
    return pool.select_queries(train), pool.select_queries(parts[v]), pool.select_queries(parts[t])


def learner_specs(methods, alphas) -> list[dict]:
    """Plain LambdaMART plus every (method, alpha): ``[{"name", "method",
    "alpha"}]``; names like ``georisk_a1``."""
    specs = [{"name": "lambdamart", "method": "lambdamart", "alpha": 0.0}]
    for m in methods:
        if m not in SINGLE_BASELINE + MULTI_BASELINE:
            raise ValueError(f"methods must be among {SINGLE_BASELINE + MULTI_BASELINE}, got {m!r}")
        for a in alphas:
            specs.append({"name": f"{m.replace('*', 'star')}_a{a:g}", "method": m, "alpha": float(a)})
    return specs


def table7(per_query: pd.DataFrame, *, learners, baselines, bm25: str = "bm25", reference: str = "lambdamart",
           loss_threshold: float = 0.2) -> pd.DataFrame:
    """Table 7 from per-query NDCG@10 of every system on the same test queries.

    ``per_query``: one column per system (learners, the learned baselines and
    ``bm25``), one row per test query (all folds pooled). Returns one row per
    (half, learner) with the :data:`evalrank.metrics.risk.PROFILE_COLUMNS`,
    ``delta_vs_reference`` (mean difference to ``reference``) and
    ``p_vs_reference`` (two-tailed paired t-test over all test queries).
    """
    from evalrank.evaluation.stats import paired_t_test

    missing = [c for c in (*learners, *baselines, bm25) if c not in per_query.columns]
    if missing:
        raise ValueError(f"per_query lacks the systems {missing}")
    rows = []
    ref = per_query[reference].to_numpy()
    for half, base in (("vs BM25", [bm25]), (f"vs {len(baselines)} learned baselines", list(baselines))):
        B = per_query[base].to_numpy().T
        for name in learners:
            s = per_query[name].to_numpy()
            prof = risk.profile(s, B, loss_threshold=loss_threshold)
            p = np.nan if name == reference else paired_t_test(s, ref, zero=1.0)[1]
            rows.append({"half": half, "learner": name, **prof, "delta_vs_reference": float(np.mean(s - ref)),
                         "p_vs_reference": p})
    return pd.DataFrame(rows)
