"""Tables 6 and 7 of Dinçer et al. (2016) as files: Table 6 (URisk, TRisk, T*Risk, ZRisk,
GeoRisk; Sec. 5), its observations and Fig. 3 for a population of our systems
(``evalrank stage risk-table6``) or of TREC runs (the front door ``evalrank risk``), and
Table 7 of the risk-sensitive learners (Sec. 6.2; ``evalrank stage risk-table7``).
Every file is written atomically (:mod:`evalrank.io`)."""

from __future__ import annotations

from pathlib import Path

__all__ = ["write_table6", "table6_text", "table6_files", "trec_table6", "risk_protocol", "table7_files"]


def write_table6(names, X, *, baseline: str, alphas, top: int, measure: str, zero_totals: str, out, title: str,
                 kinds=None):
    """Table 6 (:func:`~evalrank.papers.dincer2016.population.table6`) of the systems ``names``
    with per-topic scores ``X`` (systems x topics), its observations and the GeoRisk curves of
    Fig. 3 over alpha = 0..max(alphas) -> ``table6.csv``, ``observations.csv``,
    ``georisk_curves.csv`` and ``fig3_georisk_population.png`` in ``out``; ``kinds`` (one per system, or None for
    TREC runs) name the population's systems in the figure's key. Returns (table 6, observations)."""
    from evalrank import io
    from evalrank.papers.dincer2016 import population
    from evalrank.papers.dincer2016.plots import plot_georisk

    t6 = population.table6(names, X, baseline=baseline, alphas=alphas, top=top, measure=measure,
                           zero_totals=zero_totals)
    obs = population.observations(t6, measure=measure, alphas=alphas)
    curves = population.georisk_curves(names, X, t6["system"].tolist(), range(0, int(max(alphas)) + 1),
                                       zero_totals=zero_totals)
    out = Path(out)
    io.write_table(t6, out / "table6.csv", float_format="%.4f")
    io.write_table(obs, out / "observations.csv", float_format="%.4f")
    io.write_table(curves, out / "georisk_curves.csv", float_format="%.6f")
    key = None
    if kinds is not None:  # the population's names (systems.py); a TREC run's name is its file's
        from evalrank.papers.dincer2016.systems import name_key

        kind = dict(zip(names, kinds))
        key = name_key(t6["system"].tolist(), [kind[s] for s in t6["system"]], baseline=baseline)
    plot_georisk(curves, out / "fig3_georisk_population.png", title=title, baseline=baseline, relative=True, key=key)
    return t6, obs


def table6_text(t6, measure, alphas) -> str:
    """Table 6's columns as printed in the paper, as text."""
    cols = ["system", measure] + [f"{m}_a{al:g}" for al in alphas for m in ("urisk", "trisk", "zrisk", "georisk")]
    return t6[cols].to_string(index=False, float_format=lambda v: f"{v:.4f}")


def table6_files(population, *, out_dir, baseline: str, alphas, top: int, measure: str, zero_totals: str,
                 log=None) -> None:
    """Table 6, observations and Fig. 3 (:func:`write_table6`) of a population.npz of
    ``risk-population`` (or of ``evalrank risk --out-dir``, which has no kinds)."""
    from evalrank import io

    d = io.load_arrays(population)
    names = [str(n) for n in d["names"]]
    t6, obs = write_table6(names, d["X"], baseline=baseline, alphas=alphas, top=top, measure=measure,
                           zero_totals=zero_totals, out=out_dir, title=f"Fig. 3: GeoRisk, top {top} of {len(names)} systems",
                           kinds=[str(k) for k in d["kinds"]] if "kinds" in d else None)
    if log is not None:
        log("Table 6:\n" + table6_text(t6, measure, alphas))
        log("observations:\n" + obs.to_string(index=False))


def _run_files(runs) -> list:
    """The run files of ``runs``: a list of files (a folder among them stands for its files; '-'
    standard input), or one folder or file."""
    import os

    items = [runs] if isinstance(runs, (str, os.PathLike)) else list(runs)
    paths = []
    for item in items:
        path = Path(item)
        if str(item) == "-":   # standard input, read once (the run named '-')
            paths.append(path)
        elif path.is_dir():
            paths += sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
        elif path.is_file():
            paths.append(path)
        else:
            raise FileNotFoundError(f"RUN {path}: no such file or directory")
    if len(paths) < 2:
        raise ValueError(f"RUN: {len(paths)} run file(s) given ({', '.join(map(str, items))}); risk needs a "
                         "population (>= 2)")
    return paths


def trec_table6(qrels, runs, *, baseline: str, measure: str, alphas, top: int, max_grade: int, convention: str,
                zero_totals: str, out_dir=None, log=None):
    """Table 6 (Sec. 5) of the TREC run files ``runs`` (a list of files; a folder stands for its
    files) against the run ``baseline`` (its path, file name, or file name without the extension:
    :func:`evalrank.evaluation.compare.select_run`), every run scored per topic with ``measure``
    against ``qrels``; with ``out_dir`` also the files of :func:`write_table6` and
    ``population.npz``. Every argument is checked before a file is read or written. Returns
    Table 6."""
    import numpy as np

    from evalrank.evaluation.compare import check_numeric_measures, select_run
    from evalrank.metrics.conventions import CONVENTIONS, names_text
    from evalrank.metrics.names import parse_measure
    from evalrank.papers.dincer2016 import population

    say = log or (lambda message: None)
    paths = _run_files(runs)
    if len({p.name for p in paths}) < len(paths):
        raise ValueError("RUN: the run files' names must be unique (they name the systems): "
                         + ", ".join(str(p) for p in paths if [q.name for q in paths].count(p.name) > 1))
    baseline = select_run(baseline, paths, "--baseline")
    if top < 1:
        raise ValueError(f"--top must be >= 1, got {top}")
    if not all(np.isfinite(al) and al >= 0 for al in alphas):
        raise ValueError(f"--alphas must be finite numbers >= 0, got {', '.join(map(str, alphas))}")
    if convention not in CONVENTIONS:
        raise ValueError(f"--convention {convention!r} is not one of {names_text()}")
    parse_measure(measure)
    check_numeric_measures(measure, "-m")
    if out_dir and Path(out_dir).exists() and not Path(out_dir).is_dir():
        raise NotADirectoryError(f"--out-dir {out_dir} exists and is not a directory")
    names, topics, X, notes = population.score_trec_runs(qrels, paths, measure=measure, max_grade=max_grade,
                                                         convention=convention)
    for n in notes:
        say(n)
    say(f"{len(names)} runs x {len(topics)} topics, {measure}")
    zero = [t for t, z in zip(topics, X.sum(axis=0) == 0) if z]
    if zero:
        if zero_totals == "raise":
            raise ValueError(f"every run scores 0 on {len(zero)} topic(s) ({', '.join(zero[:10])}"
                             f"{', ...' if len(zero) > 10 else ''}): ZRisk and GeoRisk are undefined there (their "
                             "expected value S_i T_j / N is 0); --zero-totals ignore counts those cells as z = 0 "
                             "(evalrank.metrics.risk's zero_totals='ignore')")
        say(f"{len(zero)} topic(s) where every run scores 0: z = 0 there (--zero-totals ignore)")
    kw = dict(baseline=baseline, alphas=alphas, top=top, measure=measure, zero_totals=zero_totals)
    if not out_dir:
        return population.table6(names, X, **kw)
    from evalrank import io

    t6, _ = write_table6(names, X, out=out_dir, title=f"GeoRisk, top {top} of {len(names)} runs", **kw)
    io.save_arrays(Path(out_dir) / "population.npz", names=np.asarray(names), topics=np.asarray(topics), X=X)
    return t6


def risk_protocol(partitions, *, holdout: float, n_folds: int, seed: int):
    """Sec. 6.1's protocol: the pooled partitions and the query split
    (:func:`~evalrank.papers.dincer2016.learning.split_queries`), the same in every risk-learning job."""
    from evalrank.data.collection import Collection
    from evalrank.papers.dincer2016.learning import split_queries

    pool = Collection.concat(Collection.load(p) for p in partitions)
    return pool, split_queries(pool.n_queries, holdout=holdout, n_folds=n_folds, seed=seed)


def _per_query(pool, split, folds, *, convention, baselines: dict, baseline_feature: int, runs):
    """Per test query of every fold: NDCG@10 of the single BM25 baseline, the learned baselines
    and every learner's run (runs/<learner>/fold<f>.npz)."""
    import numpy as np
    import pandas as pd

    from evalrank import io
    from evalrank.models import RankingModel
    from evalrank.papers.dincer2016.learning import fold_collections

    metric = RankingModel(convention=convention).metric
    frames = []
    for fold in folds:
        _, _, test = fold_collections(pool, split, fold)
        cols = {"fold": fold, "qid": test.qids,
                "bm25": metric(test.features[:, baseline_feature - 1].astype(np.float64), test.labels,
                               test.offsets, k=10)}
        for name, model in baselines.items():
            cols[name] = metric(model.score(test.features), test.labels, test.offsets, k=10)
        for path in runs:
            p = Path(path)
            if p.stem != f"fold{fold}":
                continue
            run = io.load_arrays(p)
            if not np.array_equal(run["qids"], test.qids):
                raise ValueError(f"{p}: its test queries are not fold {fold}'s (was the split changed?)")
            cols[p.parent.name] = run["ndcg10"]
        frames.append(pd.DataFrame(cols))
    return pd.concat(frames, ignore_index=True)


def table7_files(*, partitions, holdout: float, n_folds: int, seed: int, convention: str, folds, baselines,
                 baseline_feature: int, runs, loss_threshold: float, out_dir, log=None) -> None:
    """Table 7 (Sec. 6.2; :func:`~evalrank.papers.dincer2016.learning.table7`) from the per-fold runs
    of every learner, the learned baselines (model files) and the single BM25 baseline (feature
    ``baseline_feature``) -> ``per_query_ndcg10.csv`` and ``table7.csv`` in ``out_dir``."""
    from evalrank import io
    from evalrank.models.zoo import load_model
    from evalrank.papers.dincer2016.learning import table7

    pool, split = risk_protocol(partitions, holdout=holdout, n_folds=n_folds, seed=seed)
    learned = {f"baseline_{Path(p).stem}": load_model(p) for p in baselines}  # apart from the learners' names
    pq = _per_query(pool, split, folds, convention=convention, baselines=learned, baseline_feature=baseline_feature,
                    runs=runs)
    io.write_table(pq, Path(out_dir) / "per_query_ndcg10.csv")
    learners = [c for c in dict.fromkeys(Path(p).parent.name for p in runs)]
    t7 = table7(pq, learners=learners, baselines=list(learned), loss_threshold=loss_threshold)
    io.write_table(t7, Path(out_dir) / "table7.csv", float_format="%.4f")
    show = ["half", "learner", "mean", "reward", "risk", "reward_risk", "wins", "losses", "win_loss", "big_losses",
            "p_vs_reference"]
    if log is not None:
        log(f"Table 7 ({len(pq)} test queries):\n" + t7[show].to_string(index=False, float_format=lambda v: f"{v:.4f}"))
