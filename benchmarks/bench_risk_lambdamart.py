"""Training time: LightGBM's built-in lambdarank vs evalrank's custom lambda objective
(plain, and each risk-sensitive method), same data, same parameters, same run.

    cd benchmarks && ../.venv/bin/python bench_risk_lambdamart.py [--queries 600] [--rounds 100] [--threads 1]

Data: synthetic MSLR-like queries (136 features, ~120 documents each). Every
learner boosts exactly --rounds trees (no early stopping, no validation
scoring), so the times compare the objectives: LightGBM's C++ lambdarank
against a Python callback into evalrank's numba kernel. The risk methods use
the BM25 feature (110) or three learned baselines' scores.
"""

import argparse
import platform
import time

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--queries", type=int, default=600)
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    import lightgbm as lgb

    from evalrank.data.synthetic import generate
    from evalrank.models.lambdarank import LambdaObjective
    from evalrank.papers.dincer2016.risk_objective import RiskObjective

    coll = generate(n_queries=a.queries, seed=1)
    X, y, off = coll.features, coll.labels.astype(np.int64), coll.offsets
    groups = np.diff(off)
    rng = np.random.default_rng(0)
    baselines = np.vstack([X[:, 109] + rng.normal(0, s, X.shape[0]) for s in (0.5, 1.0, 2.0)])
    params = {"num_leaves": 31, "learning_rate": 0.1, "min_data_in_leaf": 150, "deterministic": True,
              "force_row_wise": True, "num_threads": a.threads, "verbose": -1, "seed": 1}

    def train(objective):
        ds = lgb.Dataset(X, label=y.astype(np.int32), group=groups[groups > 0], params={"verbose": -1})
        p = dict(params, objective=objective)
        t0 = time.perf_counter()
        lgb.train(p, ds, num_boost_round=a.rounds)
        return time.perf_counter() - t0

    rows = {"LightGBM built-in lambdarank": train("lambdarank")}
    plain = LambdaObjective(y, off, convention="lightgbm")
    rows["evalrank LambdaObjective (plain)"] = train(lambda preds, _d: plain(preds))
    for method in ("u-cro", "t-saro", "t-faro", "t*-faro", "georisk"):
        kw = {"baseline": X[:, 109].astype(np.float64)} if method in ("u-cro", "t-saro", "t-faro") \
            else {"baselines": baselines}
        obj = RiskObjective(y, off, method=method, alpha=5.0, convention="lightgbm", norm=False, **kw)
        obj(np.zeros(y.size))  # compile
        rows[f"evalrank RiskObjective {method} (alpha 5, norm off)"] = train(lambda preds, _d, o=obj: o(preds))
    base = rows["LightGBM built-in lambdarank"]
    print(f"machine: {platform.processor() or platform.machine()}, python {platform.python_version()}, "
          f"lightgbm {lgb.__version__}")
    print(f"{a.queries} queries, {y.size} documents, 136 features, {a.rounds} rounds, {a.threads} thread(s)")
    for k, v in rows.items():
        print(f"{k:50s} {v:7.2f} s  {v / base:5.2f}x")


if __name__ == "__main__":
    main()
