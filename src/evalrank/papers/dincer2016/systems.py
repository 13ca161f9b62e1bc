"""A population of ranking systems for Sec. 5 of Dinçer et al. (2016) on our data.

The paper's population is the 48 runs of the TREC 2012 Web track plus the
Indri baseline. On a learning-to-rank collection we build one of at least
40 systems of very different quality and shape, all scored on the same test
queries:

* **single-feature rankers** -- each configured LETOR feature used as a
  score (MSLR feature 110, BM25 of the whole document, is the paper's
  single baseline, as ``BM25.wholeDocument`` in its Sec. 6);
* **LightGBM variants** -- the real library's ``lambdarank`` and
  ``regression`` objectives, each trained with several seeds on a random
  share of the training queries and a random subset of the features (the
  "different seeds, feature subsets, training sizes" of a population of
  submitted runs);
* the **pipeline's own trained models** (``results/<name>/fold<f>/models``),
  when the model stage ran.

Every random choice comes from ``seeds.rng(seed, "risk", "population", ...)``.
"""

from __future__ import annotations

import itertools
import re
import time

import numpy as np

from evalrank import seeds
from evalrank.data.collection import Collection

__all__ = ["single_feature_scores", "lightgbm_variants", "variant_specs", "name_key", "population_files"]

_VARIANT = re.compile(r"(lm|gbrt)_q(\d+)_f(\d+)_s(\d+)")
_FEATURE = re.compile(r"f(\d+)")


def single_feature_scores(test: Collection, features) -> dict[str, np.ndarray]:
    """``{"f110": test.features[:, 109], ...}`` for 1-based LETOR feature ids."""
    out = {}
    for f in features:
        if isinstance(f, bool) or not isinstance(f, (int, np.integer)) or not 1 <= f <= test.n_features:
            raise ValueError(f"features must be 1-based feature ids in 1..{test.n_features}, got {f!r}")
        out[f"f{int(f)}"] = test.features[:, int(f) - 1].astype(np.float64)
    return out


def variant_specs(objectives, n_seeds: int, train_fractions, feature_shares) -> list[dict]:
    """The grid of LightGBM variants, in a fixed order."""
    for name, value in (("train_fractions", train_fractions), ("feature_shares", feature_shares)):
        if not all(0 < float(v) <= 1 for v in value):
            raise ValueError(f"{name} must lie in (0, 1], got {value!r}")
    if isinstance(n_seeds, bool) or not isinstance(n_seeds, (int, np.integer)) or n_seeds < 1:
        raise ValueError(f"n_seeds must be a positive integer, got {n_seeds!r}")
    bad = [o for o in objectives if o not in ("lambdarank", "regression")]
    if bad:
        raise ValueError(f"objectives must be 'lambdarank' or 'regression', got {bad}")
    specs = []
    for obj, frac, share, s in itertools.product(objectives, train_fractions, feature_shares, range(n_seeds)):
        name = f"{'lm' if obj == 'lambdarank' else 'gbrt'}_q{round(100 * frac)}_f{round(100 * share)}_s{s}"
        specs.append({"name": name, "objective": obj, "train_fraction": float(frac), "feature_share": float(share),
                      "replicate": int(s)})
    return specs


def name_key(names, kinds, *, baseline=None) -> list[str]:
    """What the population's names mean, one line per kind of name among
    ``names`` (``kinds``: the ``kind`` of each, as in ``population.npz``):
    the key printed under Fig. 3. Names of another shape are left out."""
    kinds = list(kinds)
    if len(kinds) != len(names):
        raise ValueError(f"kinds must have one entry per name ({len(names)}), got {len(kinds)}")
    variants = [n for n, k in zip(names, kinds) if k == "lightgbm" and _VARIANT.fullmatch(n)]
    features = [n for n, k in zip(names, kinds) if k == "feature" and _FEATURE.fullmatch(n)]
    models = [n for n, k in zip(names, kinds) if k == "pipeline model"]
    lines = []
    if variants:
        lines.append("lm_qQ_fF_sS / gbrt_qQ_fF_sS: LightGBM (lambdarank / regression objective) trained on Q % of the "
                     "training queries and a random F % of the features, replicate S")
    if features:
        b = f"; {baseline} is the baseline" if baseline in features else ""
        lines.append(f"fN: LETOR feature N used as the score (MSLR's f110: BM25 of the whole document){b}")
    if models:
        lines.append(f"{', '.join(models)}: the pipeline's own trained models")
    return lines


def lightgbm_variants(train: Collection, test: Collection, specs, *, seed: int, params: dict, n_jobs: int = 1,
                      log=None) -> tuple[dict[str, np.ndarray], list[dict]]:
    """Train every spec with LightGBM on ``train`` and score ``test``.

    ``params``: ``num_leaves``, ``learning_rate``, ``num_boost_round``,
    ``min_data_in_leaf`` and optionally ``bagging_fraction`` and
    ``feature_fraction`` (stochastic boosting, so that replicates with
    different seeds differ even on the same queries and features). Returns ``({name: test scores}, [metadata])``.
    """
    import lightgbm as lgb

    from evalrank.models.lambdamart import lightgbm_groups

    scores, meta = {}, []
    for k, spec in enumerate(specs):
        t0 = time.perf_counter()
        rng = seeds.rng(seed, "risk", "population", spec["name"])
        nq = train.n_queries
        q = np.sort(rng.choice(nq, size=max(2, round(spec["train_fraction"] * nq)), replace=False))
        nf = train.n_features
        feats = np.sort(rng.choice(nf, size=max(1, round(spec["feature_share"] * nf)), replace=False))
        sub = train.select_queries(q)
        p = {
            "objective": spec["objective"],
            "num_leaves": int(params["num_leaves"]),
            "learning_rate": float(params["learning_rate"]),
            "min_data_in_leaf": int(params["min_data_in_leaf"]),
            "bagging_fraction": float(params.get("bagging_fraction", 1.0)),
            "bagging_freq": 1 if float(params.get("bagging_fraction", 1.0)) < 1 else 0,
            "feature_fraction": float(params.get("feature_fraction", 1.0)),
            "deterministic": True,
            "force_row_wise": True,
            "num_threads": int(n_jobs),
            "seed": seeds.int_seed(seed, "risk", "population", spec["name"], "lightgbm"),
            "verbose": -1,
        }
        ds = lgb.Dataset(sub.features[:, feats], label=sub.labels.astype(np.int32),
                         group=lightgbm_groups(sub.offsets) if spec["objective"] == "lambdarank" else None,
                         params={"verbose": -1})
        booster = lgb.train(p, ds, num_boost_round=int(params["num_boost_round"]))
        scores[spec["name"]] = booster.predict(test.features[:, feats], num_threads=int(n_jobs)).astype(np.float64)
        meta.append({**spec, "n_train_queries": int(q.size), "n_features": int(feats.size),
                     "fit_seconds": round(time.perf_counter() - t0, 2)})
        if log:
            log(f"[{k + 1}/{len(specs)}] {spec['name']}: {q.size} queries, {feats.size} features, "
                f"{time.perf_counter() - t0:.1f} s")
    return scores, meta


def population_files(*, train, test, features, objectives, n_seeds: int, train_fractions, feature_shares,
                     lgb_params: dict, models, measure: str, max_grade: int, seed: int, threads: int, output, table,
                     log=None) -> None:
    """Sec. 5's population on our data (module docstring): the single-feature rankers, the
    LightGBM variants trained on ``train`` and the pipeline's model files ``models`` (named by
    their file stems), each scored per query of ``test`` with ``measure``
    (:func:`~evalrank.papers.dincer2016.population.per_query`); the queries where every system
    scores 0 are dropped -> ``output`` (.npz: names, kinds, topics, X systems x topics) and
    ``table`` (CSV: one row per system; fit timings go to ``log`` only)."""
    from pathlib import Path

    import pandas as pd

    from evalrank import io
    from evalrank.models.zoo import load_model
    from evalrank.papers.dincer2016 import population

    say = log or (lambda message: None)
    train, test = Collection.load(train), Collection.load(test)
    scores = single_feature_scores(test, features)
    kinds = dict.fromkeys(scores, "feature")
    specs = variant_specs(objectives, n_seeds, train_fractions, feature_shares)
    var, meta = lightgbm_variants(train, test, specs, seed=seed, params=lgb_params, n_jobs=threads, log=log)
    scores.update(var)
    kinds.update(dict.fromkeys(var, "lightgbm"))
    for path in models or []:
        name = Path(path).stem
        scores[name] = load_model(path).score(test.features)
        kinds[name] = "pipeline model"
    names = list(scores)
    X = np.vstack([population.per_query(scores[n], test.labels, test.offsets, measure, max_grade=max_grade)
                   for n in names])
    keep = X.sum(axis=0) > 0
    say(f"{len(names)} systems x {test.n_queries} test queries; {int((~keep).sum())} quer(ies) where every "
        f"system scores 0 on {measure} (no relevant document) dropped")
    io.save_arrays(output, names=np.array(names), kinds=np.array([kinds[n] for n in names]),
                   topics=test.qids[keep], X=X[:, keep])
    rows = pd.DataFrame({"system": names, "kind": [kinds[n] for n in names], measure: X[:, keep].mean(axis=1)})
    meta = pd.DataFrame(meta).rename(columns={"name": "system"}).drop(columns="fit_seconds")  # timings: log only
    io.write_table(rows.merge(meta, on="system", how="left"), table)
