"""Command line: ``python -m evalrank <stage> ...``.

Each subcommand parses arguments, calls library functions and writes files
atomically; the Snakemake rules are one line each calling these. Heavy imports
happen inside the handlers so ``--help`` stays instant.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

__all__ = ["main", "build_parser"]

# LightGBM/OpenMP threads busy-wait between parallel regions by default; with
# several jobs sharing few cores that spinning slows every job down.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def _log(msg: str) -> None:
    print(f"[evalrank {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# -- data ----------------------------------------------------------------------
def cmd_synthesize(a):
    from evalrank.data.synthetic import synthesize

    synthesize(
        a.root,
        n_queries_per_partition=a.queries_per_partition,
        seed=a.seed,
        mean_docs=a.mean_docs,
        p_no_relevant=a.p_no_relevant,
        n_features=a.n_features,
        p_small=a.p_small,
        max_docs=a.max_docs,
        feature_norm=a.feature_norm,
        layout=a.layout,
        threads=a.threads,
        **({"grade_marginals": tuple(a.grade_marginals)} if a.grade_marginals else {}),
    )
    _log(f"wrote synthetic LETOR layout under {a.root}")


def cmd_download(a):
    from evalrank.data.datasets import get_spec
    from evalrank.data.download import fetch_dataset

    overrides = {k: v for k, v in (("url", a.url), ("sha256", a.sha256)) if v}
    spec = get_spec(a.dataset, **overrides)
    fetch_dataset(spec, Path(a.root))
    _log(f"{spec.name} ready under {a.root}")


def cmd_parse(a):
    from evalrank.data.letor import read_letor

    t0 = time.perf_counter()
    coll = read_letor(a.input, n_features=a.n_features, max_grade=a.max_grade)
    coll.save(a.output)
    mb = Path(a.input).stat().st_size / 1e6
    dt = time.perf_counter() - t0
    _log(f"parsed {a.input}: {coll.n_queries} queries, {coll.n_docs} docs, {mb:.1f} MB in {dt:.2f}s")


def cmd_data_facts(a):
    from evalrank.data.facts import partition_facts, write_facts

    parts = _partition_map(a.partitions)
    facts = partition_facts(parts)
    write_facts(facts, a.output)
    _log(f"data facts: {', '.join(f'S{k} {facts.n_queries(k):,} queries' for k in sorted(parts))}; "
         f"{facts.n_features} features (highest non-zero {facts.used_features}), grades 0..{facts.max_label}")


def cmd_describe(a):
    from evalrank import io
    from evalrank.data.collection import Collection
    from evalrank.data.describe import describe_table
    from evalrank.plots.data import plot_dataset

    names = a.names or [Path(p).stem for p in a.inputs]
    if len(names) != len(a.inputs):
        raise SystemExit("--names must give one name per --inputs file")
    named = {n: Collection.load(p) for n, p in zip(names, a.inputs)}
    io.write_table(describe_table(named, reference=True), a.table)
    if a.figure:
        plot_dataset(named, a.figure)


def cmd_split(a):
    from evalrank.data.collection import Collection
    from evalrank.models.split import split_training_part

    part = Collection.load(a.partition)
    train, vali = split_training_part(part, train_pairs=a.train_pairs, seed=a.seed)
    train.save(a.train)
    if a.vali:
        vali.save(a.vali)
    _log(f"training part: {train.n_queries} queries / {train.n_docs} pairs; validation: {vali.n_queries} / {vali.n_docs}")


# -- models --------------------------------------------------------------------
def cmd_train(a):
    from evalrank import io
    from evalrank.data.collection import Collection
    from evalrank.models.zoo import make_model, save_model

    import pandas as pd

    from evalrank.models.zoo import load_model

    train, vali = Collection.load(a.train), Collection.load(a.vali)
    grid = json.loads(a.grid) if a.grid else {}
    if a.params_from:
        # the hyperparameters another fit chose (Fig. 3's larger training sets reuse the
        # base size's tuning instead of searching the grid again)
        tuned = load_model(a.params_from)
        if tuned.name != a.model:
            raise ValueError(f"--params-from {a.params_from} holds a {tuned.name!r} model, not {a.model!r}")
        grid = {k: [tuned.best_params_[k]] for k in grid}
        _log(f"hyperparameters of {a.params_from}: {grid}")
    model = make_model(a.model, n_grades=a.n_grades)
    t0 = time.perf_counter()
    model.fit(train, vali, grid=grid, seed=a.seed, n_jobs=a.threads)
    _log(f"trained {a.model} in {time.perf_counter() - t0:.1f}s; best {model.best_params_}")
    save_model(model, a.output)
    if a.tuning:
        io.write_table(pd.DataFrame(model.tuning_), a.tuning)


def cmd_predict(a):
    import numpy as np

    from evalrank import io
    from evalrank.data.collection import Collection
    from evalrank.models import check_n_jobs
    from evalrank.models.zoo import load_model

    model = load_model(a.model_file)
    model.n_jobs = check_n_jobs(a.threads)  # the job's threads, not the training job's
    pool = Collection.concat([Collection.load(p) for p in a.pool])
    scores, probs = model.score_and_proba(pool.features)  # one pass over the trees
    io.save_arrays(
        a.output,
        scores=np.asarray(scores, dtype=np.float64),
        probs=np.asarray(probs, dtype=np.float64),
        labels=pool.labels,
        offsets=pool.offsets,
        qids=pool.qids,
    )
    _log(f"predicted {pool.n_docs} pool documents of {pool.n_queries} queries")


def cmd_quality(a):
    import pandas as pd

    from evalrank import io
    from evalrank.models.quality import quality_row, random_baseline, reliability
    from evalrank.plots.models import plot_quality, plot_reliability

    names = a.names or [Path(p).stem for p in a.predictions]
    if len(names) != len(a.predictions):
        raise SystemExit("--names must give one name per --predictions file")
    rows = []
    base = None
    for name, path in zip(names, a.predictions):
        p = io.load_arrays(path)
        row = quality_row(p["scores"], p["probs"], p["labels"], p["offsets"], max_grade=a.max_grade,
                          k=a.k, ece_bins=a.ece_bins)
        rows.append({"model": name, **row})
        if base is None:
            base = random_baseline(p["labels"], p["offsets"], seed=a.seed, k=a.k, max_grade=a.max_grade)
        if a.reliability_dir:
            rel = reliability(p["probs"], p["labels"], n_bins=a.reliability_bins)
            out = Path(a.reliability_dir)
            io.write_table(rel, out / f"{name}.csv")
            plot_reliability(rel, out / f"{name}.png", title=f"Reliability: {name}")
    rows.append({"model": "random", **base})
    table = pd.DataFrame(rows)
    io.write_table(table, a.table)
    if a.figure:
        plot_quality(table, a.figure, ndcg_column=f"ndcg@{a.k}")
    _log("model quality:\n" + table.to_string(index=False))


# -- active evaluation (Sawade et al. 2012) ------------------------------------
def _experiment(a):
    from evalrank.active.experiments import experiments

    exps = {e.name: e for e in experiments(a.models, drop=a.drop, base_pairs=a.base_pairs, sizes=a.sizes or (),
                                           base_model=a.base_model)}
    if a.experiment not in exps:
        raise ValueError(f"experiment must be one of {sorted(exps)}, got {a.experiment!r}")
    return exps[a.experiment]


def cmd_active_setup(a):
    import numpy as np

    from evalrank import io
    from evalrank.active.experiments import setup_experiment
    from evalrank.data.collection import Collection

    exp = _experiment(a)
    preds = {}
    for item in a.predictions:
        name, sep, path = item.partition("=")
        if not sep:
            raise ValueError(f"--predictions takes name=path items, got {item!r}")
        preds[name] = io.load_arrays(path)
    missing = [m for m in exp.models if m not in preds]
    if missing:
        raise ValueError(f"experiment {exp.name} needs predictions of {missing}")
    pool = Collection.concat([Collection.load(p) for p in a.pool])
    if not np.array_equal(pool.qids, preds[exp.a]["qids"]):
        raise ValueError("--pool partitions do not match the predictions' queries (order or content)")
    if a.cost_feature is None:
        lengths = None  # every query costs one unit
    elif not 1 <= a.cost_feature <= pool.n_features:
        raise ValueError(f"--cost-feature {a.cost_feature} is outside the pool's features 1..{pool.n_features}")
    else:
        lengths = pool.features[:, a.cost_feature - 1].astype(np.float64)
    out = setup_experiment(exp, preds, lengths, a.measures, seed=a.seed, fold=a.fold, max_grade=a.max_grade)
    meta = {"experiment": exp.name, "kind": exp.kind, "metric": exp.metric, "fold": a.fold,
            "measures": list(a.measures), "train_pairs": exp.train_pairs}
    # timings go to the log only, so the file is byte-identical across runs
    secs = {k[len("seconds_"):]: round(float(out.pop(k)), 3) for k in [k for k in out if k.startswith("seconds_")]}
    io.save_arrays(a.output, meta=np.array(json.dumps(meta, sort_keys=True)), **out)
    _log(f"{exp.name} fold {a.fold}: q* computed ({secs}); truth " +
         ", ".join(f"{m}={float(out[f'truth_{m}']):.6g}" for m in a.measures))


def cmd_active_mc(a):
    import numpy as np

    from evalrank import io
    from evalrank.active.montecarlo import STOP_CAPPED, shard_range, simulate
    from evalrank.active.sampling import METHODS
    from evalrank.progress import progress

    setup = io.load_arrays(a.setup)
    meta = json.loads(str(setup["meta"]))
    reps = shard_range(a.repetitions, a.shard, a.shards)
    out = {"repetition": np.asarray(reps, dtype=np.int64), "budgets": np.asarray(a.budgets, dtype=np.float64),
           "meta": setup["meta"], "n_repetitions": np.int64(a.repetitions)}
    t0 = time.perf_counter()
    jobs = [(m, method) for m in meta["measures"] for method in METHODS]
    for m, method in progress(jobs, desc=f"{meta['experiment']} fold {meta['fold']} shard {a.shard}", unit="curve"):
        sim = simulate(setup[f"q_{m}_{method}"], setup["costs"], setup[f"values_{m}"], a.budgets, seed=a.seed,
                       stream=("active-mc", meta["experiment"], meta["fold"], m, method), repetitions=reps)
        out[f"estimate_{m}_{method}"] = sim["estimate"]
        out[f"n_{m}_{method}"] = sim["n"]
        out[f"spent_{m}_{method}"] = sim["spent"]
        out[f"stop_{m}_{method}"] = sim["stop"]
    io.save_arrays(a.output, **out)
    n_runs = len(reps) * len(jobs)
    _log(f"{n_runs} runs x {len(a.budgets)} budgets in {time.perf_counter() - t0:.1f}s")
    pool_cost = float(setup["costs"].sum())
    whole = [b for b in a.budgets if b >= pool_cost]
    if whole:
        _log(f"budget(s) {', '.join(f'{b:g}' for b in whole)} cover the whole pool (cost {pool_cost:.6g}): "
             "every query is labelled there, the estimate is the truth (error 0)")
    capped = sum(int((out[f"stop_{m}_{method}"] == STOP_CAPPED).sum()) for m, method in jobs)
    if capped:
        _log(f"{capped} (run, budget) pairs stopped at the draw cap (evalrank.active.estimate.default_max_draws)")


def cmd_active_summary(a):
    from evalrank import io
    from evalrank.active.report import summarize, savings_table
    from evalrank.plots.active import plot_costs, plot_error_curves, plot_train_size

    out = Path(a.out_dir)
    curves, costs = summarize(a.setups, a.shards)
    io.write_table(curves, out / "curves.csv")
    sav = savings_table(curves, reference_budget=a.reference_budget, train_size_budget=a.train_size_budget)
    io.write_table(sav, out / "savings.csv")
    exps = list(dict.fromkeys(curves["experiment"]))
    sizes = [e for e in exps if e.startswith("fig3_train_size_")]
    for m in sorted(set(curves["measure"])):
        fig1 = [e for e in exps if e.startswith("fig1_")]
        if fig1:
            plot_error_curves(curves, fig1, m, out / f"fig1_{m}.png", costs=costs,
                              suptitle=f"Fig. 1: estimating {m.upper()}")
        fig2 = [e for e in exps if e.startswith("fig2_")]
        if fig2:
            plot_error_curves(curves, fig2, m, out / f"fig2_{m}.png", suptitle=f"Fig. 2: model selection by {m.upper()}")
        fig3 = [e for e in exps if e == "fig3_index_update"] + sizes[-1:]
        if fig3:
            plot_error_curves(curves, fig3, m, out / f"fig3_{m}.png", suptitle=f"Fig. 3: estimating a {m.upper()} difference")
        if sizes:
            plot_train_size(curves, m, a.train_size_budget, out / f"fig3_train_size_{m}.png",
                            title=f"Fig. 3 right: {m.upper()} difference at Λ = {a.train_size_budget:g}")
    plot_costs(costs, out / "costs.png")
    _log("savings:\n" + sav.to_string(index=False))


# -- NDCG conventions (Busa-Fekete et al. 2012) --------------------------------
def _partition_map(paths):
    import re

    out = {}
    for path in paths:
        m = re.search(r"S(\d)\.npz$", str(path))
        if not m:
            raise ValueError(f"partition file names must end in S<k>.npz, got {path}")
        out[int(m.group(1))] = path
    return out


def cmd_ndcg_train(a):
    from evalrank.ndcgstudy.folds import letor_fold
    from evalrank.ndcgstudy.runs import save_run, train_and_score

    train, vali, test = letor_fold(_partition_map(a.partitions), a.fold, max_train_queries=a.max_train_queries,
                                   seed=a.seed)
    _log(f"{a.learner} trained with {a.convention} on fold {a.fold}: {train.n_queries} train / "
         f"{vali.n_queries} vali / {test.n_queries} test queries")
    result = train_and_score(a.learner, a.convention, train, vali, test, grid=json.loads(a.grid),
                             params=json.loads(a.params), seed=a.seed, n_jobs=a.threads)
    save_run(a.output, test, result, {"learner": a.learner, "convention": a.convention, "fold": a.fold})
    _log(f"fit {result['fit_seconds']:.1f} s, best {result['best_params']}, vali NDCG@10 {result['vali_ndcg10']:.4f}")


def cmd_ndcg_report(a):
    from evalrank import io
    from evalrank.ndcgstudy import report
    from evalrank.ndcgstudy.runs import load_run
    from evalrank.plots.ndcg import plot_fig1, plot_fig2

    out = Path(a.out_dir)
    runs = [tuple(reversed(load_run(p))) for p in a.runs]
    pq = report.per_query(runs, max_k=a.k)
    cur = report.curves(pq)
    io.write_table(cur, out / "curves.csv")
    io.write_table(pq[pq["k"] == a.k], out / f"per_query_ndcg{a.k}.csv")
    order = report.ordering(pq, train_convention=a.reference, reference=a.reference, k=a.k)
    io.write_table(order, out / "ordering.csv")
    io.write_table(report.claims(pq, reference=a.reference, k=a.k), out / "claims.csv")
    plot_fig1(cur, a.fig1_learners, a.train_conventions, a.eval_conventions, out / "fig1.png",
              title="Fig. 1: NDCG@k by evaluation (columns) and training (curves) convention")
    plot_fig2(cur, a.learners, a.reference, a.eval_conventions, out / "fig2.png",
              title="Fig. 2: six learners trained with trec/ranklib, evaluated with each convention")
    _log("ordering:\n" + order[["eval_convention", "rank", "learner", "mean_ndcg", "p_value"]].to_string(index=False))


def cmd_ndcg_audit(a):
    from evalrank import io
    from evalrank.conformance.audit import audit_table

    table = audit_table()
    io.write_table(table, a.output)
    cols = ["tool", "measure", "gain", "empty", "short", "ties", "precision", "evalrank_preset"]
    _log("tool conventions:\n" + table[cols].to_string(index=False))


def cmd_ndcg(a):
    import numpy as np

    from evalrank.metrics import ndcg

    if a.k < 0:
        raise ValueError(f"-k must be >= 0 (0 = the whole list), got {a.k}")
    cut = a.k or None
    opts = {k: v for k, v in dict(gain=a.gain, empty=a.empty, short=a.short, ties=a.ties,
                                   precision=a.precision).items() if v is not None}
    if opts.get("empty") not in (None, "skip"):
        opts["empty"] = float(opts["empty"])
    if a.qrels or a.run:
        if not (a.qrels and a.run):
            raise ValueError("--qrels and --run go together")
        from evalrank.data.trec import align, read_qrels, read_run

        t = align(read_qrels(a.qrels), read_run(a.run))
        if t.qids.size == 0:
            raise ValueError(f"no query is in both {a.qrels} and {a.run}")
        values = ndcg(t.scores, t.labels, t.offsets, cut, convention=a.convention, doc_ids=t.doc_ids,
                      ideal_labels=t.ideal_labels, ideal_offsets=t.ideal_offsets, **opts)
        qids = t.qids
        notes = [f"{t.unjudged} retrieved document(s) are not in the qrels and count as non-relevant"]
        if t.run_only:
            notes.append(f"{len(t.run_only)} run quer(ies) have no qrels and are not evaluated")
        if t.qrels_only:
            notes.append(f"{len(t.qrels_only)} qrels quer(ies) are not in the run and are not evaluated")
    elif a.letor and a.scores:
        from evalrank.data.letor import read_letor

        c = read_letor(a.letor, show_progress=False)
        scores = np.loadtxt(a.scores, dtype=np.float64, ndmin=1)
        if scores.shape != (c.n_docs,):
            raise ValueError(f"{a.scores} has {scores.size} scores but {a.letor} has {c.n_docs} documents")
        from evalrank.ndcgstudy.runs import run_doc_ids

        values = ndcg(scores, c.labels, c.offsets, cut, convention=a.convention, doc_ids=run_doc_ids(c), **opts)
        qids = c.qids.astype(str)
        notes = []
    else:
        raise ValueError("give --qrels Q --run R, or --letor FILE --scores FILE")
    name = f"ndcg@{a.k}" if a.k else "ndcg"
    mean = float(np.nanmean(values)) if np.any(~np.isnan(values)) else float("nan")
    evaluated = int(np.sum(~np.isnan(values)))
    if a.format == "json":
        print(json.dumps({"measure": name, "convention": a.convention, "options": opts, "mean": mean,
                          "queries": evaluated, "per_query": dict(zip(qids.tolist(), values.tolist())),
                          "notes": notes}, indent=2))
    else:
        for q, v in zip(qids, values):
            print(f"{name}\t{q}\t{v:.6f}")
        print(f"{name}\tall\t{mean:.6f}")
    for n in notes:
        _log(n)


def cmd_validate_config(a):
    from evalrank.config import load_config

    cfg = load_config(a.config)
    print(json.dumps(cfg, indent=2, sort_keys=True))


# -- risk (Dinçer et al. 2016) ---------------------------------------------------
def cmd_risk_example(a):
    import pandas as pd

    from evalrank import io
    from evalrank.plots.risk import plot_georisk, plot_profiles
    from evalrank.riskstudy import example, population

    systems, topics, X = example.read_matrix(a.matrix)
    out = Path(a.out_dir)
    t4, t5 = example.table4(systems, topics, X), example.table5(systems, X)
    io.write_table(t4, out / "table4.csv", float_format="%.6f")
    io.write_table(t5, out / "table5.csv", float_format="%.6f")
    cmp = pd.concat([example.compare(t4, a.printed4, keys=("system", "baseline")).assign(table="table4"),
                     example.compare(t5, a.printed5).assign(table="table5")], ignore_index=True)
    io.write_table(cmp, out / "vs_paper.csv", float_format="%.6f")
    plot_profiles(systems, topics, X, out / "fig1.png", title="Fig. 1: example systems' performance profiles")
    curves = population.georisk_curves(systems, X, systems, range(0, 11))
    plot_georisk(curves, out / "fig2.png", title=r"Fig. 2: GeoRisk of the example systems, $0 \leq \alpha \leq 10$")
    bad = cmp[~cmp["match"]]
    _log(f"Tables 4-5: {int(cmp['match'].sum())}/{len(cmp)} numbers equal the printed ones to the printed precision")
    if len(bad):
        raise RuntimeError("numbers differing from the paper:\n" + bad.to_string(index=False))


def cmd_risk_population(a):
    import numpy as np
    import pandas as pd

    from evalrank import io
    from evalrank.data.collection import Collection
    from evalrank.models.zoo import load_model
    from evalrank.riskstudy import population, systems

    train, test = Collection.load(a.train), Collection.load(a.test)
    scores = systems.single_feature_scores(test, a.features)
    kinds = dict.fromkeys(scores, "feature")
    specs = systems.variant_specs(a.objectives, a.seeds, a.train_fractions, a.feature_shares)
    var, meta = systems.lightgbm_variants(train, test, specs, seed=a.seed, params=json.loads(a.lgb_params),
                                          n_jobs=a.threads, log=_log)
    scores.update(var)
    kinds.update(dict.fromkeys(var, "lightgbm"))
    for path in a.models or []:
        name = Path(path).stem
        scores[name] = load_model(path).score(test.features)
        kinds[name] = "pipeline model"
    names = list(scores)
    X = np.vstack([population.per_query(scores[n], test.labels, test.offsets, a.measure, max_grade=a.max_grade)
                   for n in names])
    keep = X.sum(axis=0) > 0
    _log(f"{len(names)} systems x {test.n_queries} test queries; {int((~keep).sum())} quer(ies) where every "
         f"system scores 0 on {a.measure} (no relevant document) dropped")
    io.save_arrays(a.output, names=np.array(names), kinds=np.array([kinds[n] for n in names]),
                   topics=test.qids[keep], X=X[:, keep])
    table = pd.DataFrame({"system": names, "kind": [kinds[n] for n in names], a.measure: X[:, keep].mean(axis=1)})
    meta = pd.DataFrame(meta).rename(columns={"name": "system"}).drop(columns="fit_seconds")  # timings: log only
    io.write_table(table.merge(meta, on="system", how="left"), a.table)


def _risk_table6(names, X, a, out: Path, title: str):
    from evalrank import io
    from evalrank.plots.risk import plot_georisk
    from evalrank.riskstudy import population

    t6 = population.table6(names, X, baseline=a.baseline, alphas=a.alphas, top=a.top, measure=a.measure,
                           zero_totals=a.zero_totals)
    obs = population.observations(t6, measure=a.measure, alphas=a.alphas)
    curves = population.georisk_curves(names, X, t6["system"].tolist(), range(0, int(max(a.alphas)) + 1),
                                       zero_totals=a.zero_totals)
    io.write_table(t6, out / "table6.csv", float_format="%.4f")
    io.write_table(obs, out / "observations.csv", float_format="%.4f")
    io.write_table(curves, out / "georisk_curves.csv", float_format="%.6f")
    plot_georisk(curves, out / "fig3.png", title=title, baseline=a.baseline)
    return t6, obs


def _table6_text(t6, measure, alphas):
    cols = ["system", measure] + [f"{m}_a{al:g}" for al in alphas for m in ("urisk", "trisk", "zrisk", "georisk")]
    return t6[cols].to_string(index=False, float_format=lambda v: f"{v:.4f}")


def cmd_risk_table6(a):
    from evalrank import io

    d = io.load_arrays(a.population)
    names = [str(n) for n in d["names"]]
    t6, obs = _risk_table6(names, d["X"], a, Path(a.out_dir),
                           f"Fig. 3: GeoRisk, top {a.top} of {len(names)} systems")
    _log("Table 6:\n" + _table6_text(t6, a.measure, a.alphas))
    _log("observations:\n" + obs.to_string(index=False))


def cmd_risk(a):
    import numpy as np

    from evalrank.riskstudy import population

    runs_dir = Path(a.runs)
    if not runs_dir.is_dir():
        raise FileNotFoundError(f"--runs {runs_dir} is not a directory of TREC run files")
    paths = sorted(p for p in runs_dir.iterdir() if p.is_file() and not p.name.startswith("."))
    if len(paths) < 2:
        raise ValueError(f"--runs {runs_dir} holds {len(paths)} run file(s); risk needs a population (>= 2)")
    # every argument is checked before a file is read or written
    if a.baseline not in {p.name for p in paths}:
        raise ValueError(f"--baseline {a.baseline!r} is not a run of --runs {runs_dir} (the file names, e.g. "
                         f"{[p.name for p in paths[:5]]})")
    if a.top < 1:
        raise ValueError(f"--top must be >= 1, got {a.top}")
    if any(al < 0 for al in a.alphas):
        raise ValueError(f"--alphas must be >= 0, got {a.alphas}")
    population.parse_measure(a.measure)
    if a.out_dir and Path(a.out_dir).exists() and not Path(a.out_dir).is_dir():
        raise NotADirectoryError(f"--out-dir {a.out_dir} exists and is not a directory")
    names, topics, X, notes = population.score_trec_runs(a.qrels, paths, measure=a.measure, max_grade=a.max_grade,
                                                         convention=a.convention)
    for n in notes:
        _log(n)
    _log(f"{len(names)} runs x {len(topics)} topics, {a.measure}")
    zero = [t for t, z in zip(topics, X.sum(axis=0) == 0) if z]
    if zero:
        if a.zero_totals == "raise":
            raise ValueError(f"every run scores 0 on {len(zero)} topic(s) ({', '.join(zero[:10])}"
                             f"{', ...' if len(zero) > 10 else ''}): ZRisk and GeoRisk are undefined there (their "
                             "expected value S_i T_j / N is 0); --zero-totals ignore counts those cells as z = 0 "
                             "(evalrank.metrics.risk's zero_totals='ignore')")
        _log(f"{len(zero)} topic(s) where every run scores 0: z = 0 there (--zero-totals ignore)")
    if a.out_dir:
        from evalrank import io

        out = Path(a.out_dir)
        t6, _ = _risk_table6(names, X, a, out, f"GeoRisk, top {a.top} of {len(names)} runs")
        io.save_arrays(out / "population.npz", names=np.asarray(names), topics=np.asarray(topics), X=X)
    else:
        t6 = population.table6(names, X, baseline=a.baseline, alphas=a.alphas, top=a.top, measure=a.measure,
                               zero_totals=a.zero_totals)
    if a.format == "json":
        print(t6.to_json(orient="records", indent=1))
    else:
        print(t6.to_csv(sep="\t", index=False, float_format="%.4f"), end="")


def _risk_protocol(a):
    """The pooled partitions and Sec. 6.1's query split, the same in every risk-learning job."""
    from evalrank.data.collection import Collection
    from evalrank.riskstudy.learning import split_queries

    pool = Collection.concat(Collection.load(p) for p in a.partitions)
    return pool, split_queries(pool.n_queries, holdout=a.holdout, n_folds=a.n_folds, seed=a.seed)


def cmd_risk_baseline(a):
    from evalrank.models.zoo import make_model, save_model

    pool, split = _risk_protocol(a)
    train, vali = pool.select_queries(split["baseline_train"]), pool.select_queries(split["baseline_vali"])
    model = make_model(a.learner, convention=a.convention, **json.loads(a.params))
    t0 = time.perf_counter()
    model.fit(train, vali, grid=json.loads(a.grid), seed=a.seed, n_jobs=a.threads)
    _log(f"baseline {a.learner}: {train.n_queries} train / {vali.n_queries} vali queries, "
         f"{time.perf_counter() - t0:.1f} s, vali NDCG@10 {model.best_vali_ndcg10_:.4f}")
    save_model(model, a.output)


def cmd_risk_learn(a):
    import numpy as np

    from evalrank import io
    from evalrank.models.risk_lambdamart import RiskLambdaMARTModel
    from evalrank.models.zoo import load_model
    from evalrank.riskstudy.learning import fold_collections

    pool, split = _risk_protocol(a)
    train, vali, test = fold_collections(pool, split, a.fold)
    model = RiskLambdaMARTModel(convention=a.convention, method=a.method, alpha=a.alpha,
                                baseline_feature=a.baseline_feature, **json.loads(a.params))
    extra = {}
    if a.baselines:
        extra["baselines"] = np.vstack([load_model(p).score(train.features) for p in a.baselines])
    t0 = time.perf_counter()
    model.fit(train, vali, grid=None, seed=a.seed, n_jobs=a.threads, **extra)
    scores = model.score(test.features)
    values = model.metric(scores, test.labels, test.offsets, k=10)
    _log(f"{a.method} alpha={a.alpha:g} fold {a.fold}: {train.n_queries}/{vali.n_queries}/{test.n_queries} queries, "
         f"{time.perf_counter() - t0:.1f} s, {getattr(model, 'best_iteration_', '?')} trees, "
         f"test NDCG@10 {np.nanmean(values):.4f}")
    io.save_arrays(a.output, qids=test.qids, ndcg10=np.asarray(values, dtype=np.float64), scores=scores)


def cmd_risk_table7(a):
    import numpy as np
    import pandas as pd

    from evalrank import io
    from evalrank.models import RankingModel
    from evalrank.models.zoo import load_model
    from evalrank.riskstudy.learning import fold_collections, table7

    pool, split = _risk_protocol(a)
    metric = RankingModel(convention=a.convention).metric
    baselines = {f"baseline_{Path(p).stem}": load_model(p) for p in a.baselines}  # apart from the learners' names
    frames = []
    for fold in a.folds:
        _, _, test = fold_collections(pool, split, fold)
        cols = {"fold": fold, "qid": test.qids,
                "bm25": metric(test.features[:, a.baseline_feature - 1].astype(np.float64), test.labels,
                               test.offsets, k=10)}
        for name, model in baselines.items():
            cols[name] = metric(model.score(test.features), test.labels, test.offsets, k=10)
        for path in a.runs:
            p = Path(path)
            if p.stem != f"fold{fold}":
                continue
            run = io.load_arrays(p)
            if not np.array_equal(run["qids"], test.qids):
                raise ValueError(f"{p}: its test queries are not fold {fold}'s (was the split changed?)")
            cols[p.parent.name] = run["ndcg10"]
        frames.append(pd.DataFrame(cols))
    pq = pd.concat(frames, ignore_index=True)
    io.write_table(pq, Path(a.out_dir) / "per_query_ndcg10.csv")
    learners = [c for c in dict.fromkeys(Path(p).parent.name for p in a.runs)]
    t7 = table7(pq, learners=learners, baselines=list(baselines), loss_threshold=a.loss_threshold)
    io.write_table(t7, Path(a.out_dir) / "table7.csv", float_format="%.4f")
    show = ["half", "learner", "mean", "reward", "risk", "reward_risk", "wins", "losses", "win_loss", "big_losses",
            "p_vs_reference"]
    _log(f"Table 7 ({len(pq)} test queries):\n" + t7[show].to_string(index=False, float_format=lambda v: f"{v:.4f}"))


# -- parser --------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="evalrank", description="evalrank pipeline stages (see README).")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    s = sub.add_parser("synthesize", help="write the synthetic MSLR-like dataset in the MSLR Fold layout")
    s.add_argument("--root", required=True)
    s.add_argument("--queries-per-partition", type=int, required=True)
    s.add_argument("--seed", type=int, required=True)
    s.add_argument("--mean-docs", type=float, default=120.0)
    s.add_argument("--p-no-relevant", type=float, default=0.03)
    s.add_argument("--n-features", type=int, default=136)
    s.add_argument("--p-small", type=float, default=0.06)
    s.add_argument("--max-docs", type=int, default=1251)
    s.add_argument("--grade-marginals", type=float, nargs="+", help="share of grades 0..max_grade")
    s.add_argument("--feature-norm", choices=["none", "query"], default="none",
                   help="query: min-max scale every feature within each query, as LETOR 4.0's QueryLevelNorm")
    s.add_argument("--layout", choices=["mslr", "partitions"], default="mslr",
                   help="mslr: Fold1..5/{train,vali,test}.txt; partitions: only the test.txt files (each "
                        "partition once, what the workflow reads)")
    s.add_argument("--threads", type=int, default=1, help="threads formatting the text")
    s.set_defaults(func=cmd_synthesize)

    s = sub.add_parser("download", help="download (resumable, checksummed) and extract a registered dataset")
    s.add_argument("--dataset", required=True, help="mslr-web30k, mslr-web10k or mq2008")
    s.add_argument("--root", required=True)
    s.add_argument("--url")
    s.add_argument("--sha256")
    s.set_defaults(func=cmd_download)

    s = sub.add_parser("parse", help="parse a LETOR text file into a cached .npz collection")
    s.add_argument("--input", required=True)
    s.add_argument("--output", required=True)
    s.add_argument("--n-features", type=int)
    s.add_argument("--max-grade", type=int)
    s.set_defaults(func=cmd_parse)

    s = sub.add_parser("data-facts", help="facts of the parsed partitions for the data-tied config checks")
    s.add_argument("--partitions", nargs="+", required=True, help="parsed S1..S5 .npz files")
    s.add_argument("--output", required=True, help="JSON file")
    s.set_defaults(func=cmd_data_facts)

    s = sub.add_parser("describe", help="dataset summary table (+ figure)")
    s.add_argument("--inputs", nargs="+", required=True)
    s.add_argument("--names", nargs="+")
    s.add_argument("--table", required=True)
    s.add_argument("--figure")
    s.set_defaults(func=cmd_describe)

    s = sub.add_parser("split", help="split a training partition into training and validation halves")
    s.add_argument("--partition", required=True)
    s.add_argument("--train-pairs", type=int, help="pairs of the training half, in whole queries "
                                                  "(default: the whole halves)")
    s.add_argument("--seed", type=int, required=True)
    s.add_argument("--train", required=True)
    s.add_argument("--vali", help="where to write the validation half (omit to skip it)")
    s.set_defaults(func=cmd_split)

    s = sub.add_parser("train", help="train one model of the zoo, tuned on the validation half")
    s.add_argument("--model", required=True)
    s.add_argument("--train", required=True)
    s.add_argument("--vali", required=True)
    s.add_argument("--grid", help="JSON object: hyperparameter -> list of values")
    s.add_argument("--params-from", help="a fitted model (.pkl) of the same learner: use the hyperparameters it "
                                         "chose for the --grid keys instead of searching the grid")
    s.add_argument("--n-grades", type=int, default=5, help="relevance grades 0..n-1 (dataset.max_grade + 1)")
    s.add_argument("--seed", type=int, required=True)
    s.add_argument("--threads", type=int, default=1)
    s.add_argument("--output", required=True)
    s.add_argument("--tuning", help="CSV of the validation grid")
    s.set_defaults(func=cmd_train)

    s = sub.add_parser("predict", help="scores and graded-relevance probabilities over the pool")
    s.add_argument("--model-file", required=True)
    s.add_argument("--pool", nargs="+", required=True)
    s.add_argument("--threads", type=int, default=1, help="threads of the prediction")
    s.add_argument("--output", required=True)
    s.set_defaults(func=cmd_predict)

    s = sub.add_parser("quality", help="model-quality table, reliability diagrams")
    s.add_argument("--predictions", nargs="+", required=True)
    s.add_argument("--names", nargs="+")
    s.add_argument("--table", required=True)
    s.add_argument("--figure")
    s.add_argument("--reliability-dir")
    s.add_argument("--k", type=int, default=10)
    s.add_argument("--ece-bins", type=int, default=15)
    s.add_argument("--reliability-bins", type=int, default=10)
    s.add_argument("--max-grade", type=int, default=4)
    s.add_argument("--seed", type=int, default=0)
    s.set_defaults(func=cmd_quality)

    def experiment_args(s):
        s.add_argument("--experiment", required=True)
        s.add_argument("--models", nargs="+", required=True, help="names of the trained models")
        s.add_argument("--drop", type=float, default=0.1, help="index update: share of each list removed")
        s.add_argument("--base-pairs", type=int)
        s.add_argument("--base-model", help="prediction name of Fig. 3's base RF (default rf_n<base-pairs>)")
        s.add_argument("--sizes", type=int, nargs="*")

    s = sub.add_parser("active-setup", help="q* of every method, costs and the truth for one experiment and fold")
    experiment_args(s)
    s.add_argument("--predictions", nargs="+", required=True, help="name=path of pool predictions")
    s.add_argument("--pool", nargs="+", required=True, help="the pool partitions (.npz), in prediction order")
    s.add_argument("--cost-feature", type=int, help="1-based feature id of the document length "
                                                    "(default: none, every query costs one unit)")
    s.add_argument("--measures", nargs="+", default=["err", "dcg"], choices=["err", "dcg"])
    s.add_argument("--max-grade", type=int, default=4)
    s.add_argument("--seed", type=int, required=True)
    s.add_argument("--fold", type=int, required=True)
    s.add_argument("--output", required=True)
    s.set_defaults(func=cmd_active_setup)

    s = sub.add_parser("active-mc", help="Monte Carlo of Algorithm 1: one shard of the repetitions")
    s.add_argument("--setup", required=True)
    s.add_argument("--budgets", type=float, nargs="+", required=True)
    s.add_argument("--repetitions", type=int, required=True)
    s.add_argument("--shard", type=int, required=True)
    s.add_argument("--shards", type=int, required=True)
    s.add_argument("--seed", type=int, required=True)
    s.add_argument("--output", required=True)
    s.set_defaults(func=cmd_active_mc)

    s = sub.add_parser("active-summary", help="merge shards: curves.csv, savings.csv and Figs. 1-3")
    s.add_argument("--setups", nargs="+", required=True)
    s.add_argument("--shards", nargs="+", required=True)
    s.add_argument("--reference-budget", type=float, required=True)
    s.add_argument("--train-size-budget", type=float, required=True)
    s.add_argument("--out-dir", required=True)
    s.set_defaults(func=cmd_active_summary)

    s = sub.add_parser("ndcg-train", help="Busa-Fekete Sec. 5: train one learner under one NDCG convention")
    s.add_argument("--partitions", nargs="+", required=True, help="parsed S1..S5 .npz files")
    s.add_argument("--fold", type=int, required=True)
    s.add_argument("--learner", required=True)
    s.add_argument("--convention", required=True)
    s.add_argument("--grid", default="{}", help="JSON {param: [values]}")
    s.add_argument("--params", default="{}", help="JSON {param: value}: fixed constructor parameters")
    s.add_argument("--max-train-queries", type=int)
    s.add_argument("--seed", type=int, required=True)
    s.add_argument("--threads", type=int, default=1)
    s.add_argument("--output", required=True)
    s.set_defaults(func=cmd_ndcg_train)

    s = sub.add_parser("ndcg-report", help="Busa-Fekete Figs. 1-2, ordering.csv, claims.csv from the runs")
    s.add_argument("--runs", nargs="+", required=True)
    s.add_argument("--out-dir", required=True)
    s.add_argument("--k", type=int, default=10)
    s.add_argument("--reference", default="ranklib")
    s.add_argument("--learners", nargs="+", required=True)
    s.add_argument("--fig1-learners", nargs="+", required=True)
    s.add_argument("--train-conventions", nargs="+", required=True)
    s.add_argument("--eval-conventions", nargs="+", required=True)
    s.set_defaults(func=cmd_ndcg_report)

    s = sub.add_parser("ndcg-audit", help="run every installed NDCG tool on crafted cases: tool_conventions.csv")
    s.add_argument("--output", required=True)
    s.set_defaults(func=cmd_ndcg_audit)

    s = sub.add_parser("ndcg", help="NDCG@k of a TREC run (or LETOR file + scores) under a named convention")
    s.add_argument("--qrels", help="TREC qrels: qid iter docno rel")
    s.add_argument("--run", help="TREC run: qid Q0 docno rank score tag")
    s.add_argument("--letor", help="LETOR/SVMlight file (labels + qids)")
    s.add_argument("--scores", help="one score per line of --letor")
    s.add_argument("--convention", default="trec",
                   help="trec, ranklib, letor3, letor4, ms, yahoo, sklearn, lightgbm or xgboost")
    s.add_argument("-k", type=int, default=10, help="cut-off (0 = whole list)")
    s.add_argument("--gain", choices=["exp", "linear"])
    s.add_argument("--empty", help="value of queries without relevant documents: a number or 'skip'")
    s.add_argument("--short", choices=["pad", "truncate-ideal", "zero"])
    s.add_argument("--ties", choices=["stable", "pessimistic", "optimistic", "docid", "average"])
    s.add_argument("--precision", choices=["float32", "float64"])
    s.add_argument("--format", choices=["tsv", "json"], default="tsv")
    s.set_defaults(func=cmd_ndcg)

    s = sub.add_parser("risk-example", help="Dinçer et al. 2016 Tables 4-5 and Figs. 1-2 from Table 3's matrix")
    s.add_argument("--matrix", required=True, help="systems x topics CSV (config/risk/dincer2016_table3.csv)")
    s.add_argument("--printed4", required=True, help="Table 4 as printed in the paper (CSV)")
    s.add_argument("--printed5", required=True, help="Table 5 as printed in the paper (CSV)")
    s.add_argument("--out-dir", required=True)
    s.set_defaults(func=cmd_risk_example)

    s = sub.add_parser("risk-population", help="train a population of systems, per-query scores on a test set")
    s.add_argument("--train", required=True)
    s.add_argument("--test", required=True)
    s.add_argument("--models", nargs="*", help="fitted pipeline models (.pkl) to add to the population")
    s.add_argument("--features", type=int, nargs="+", required=True, help="1-based feature ids used as rankers")
    s.add_argument("--objectives", nargs="+", default=["lambdarank", "regression"])
    s.add_argument("--seeds", type=int, default=3)
    s.add_argument("--train-fractions", type=float, nargs="+", default=[1.0])
    s.add_argument("--feature-shares", type=float, nargs="+", default=[1.0])
    s.add_argument("--lgb-params", default='{"num_leaves": 15, "learning_rate": 0.1, "num_boost_round": 100, '
                                            '"min_data_in_leaf": 20}')
    s.add_argument("--measure", default="err@20")
    s.add_argument("--max-grade", type=int, default=4)
    s.add_argument("--seed", type=int, required=True)
    s.add_argument("--threads", type=int, default=1)
    s.add_argument("--output", required=True, help=".npz: names, kinds, topics, X (systems x topics)")
    s.add_argument("--table", required=True, help="CSV: one row per system")
    s.set_defaults(func=cmd_risk_population)

    def table6_args(s, measure_default="err@20"):
        s.add_argument("--baseline", required=True, help="name of the single baseline system (URisk, TRisk)")
        s.add_argument("--measure", default=measure_default, help="err@k or ndcg@k")
        s.add_argument("--alphas", type=float, nargs="+", default=[0, 1, 5, 10, 20])
        s.add_argument("--top", type=int, default=8, help="systems shown: the best by mean (+ the baseline)")

    s = sub.add_parser("risk-table6", help="Table 6, observations and Fig. 3 of a population (risk-population)")
    s.add_argument("--population", required=True)
    s.add_argument("--out-dir", required=True)
    table6_args(s)
    # risk-population already dropped the topics where every system scores 0 (and logged them)
    s.set_defaults(func=cmd_risk_table6, zero_totals="ignore")

    s = sub.add_parser("risk", help="URisk/TRisk/T*Risk/ZRisk/GeoRisk of TREC runs (Dinçer et al. 2016, Table 6)")
    s.add_argument("--qrels", required=True, help="TREC qrels: qid iter docno rel")
    s.add_argument("--runs", required=True, help="directory of TREC run files (the population; file name = run)")
    table6_args(s)
    s.add_argument("--max-grade", type=int, default=4, help="ERR's top grade (gdeval: 4)")
    s.add_argument("--convention", default="gdeval", help="NDCG preset for --measure ndcg@k (gdeval: the Web track's)")
    s.add_argument("--out-dir", help="also write table6.csv, observations.csv, georisk_curves.csv, fig3.png")
    s.add_argument("--zero-totals", choices=["raise", "ignore"], default="raise",
                   help="a topic on which every run scores 0: refuse (default, as the library) or count its "
                        "ZRisk/GeoRisk cells as z = 0")
    s.add_argument("--format", choices=["tsv", "json"], default="tsv")
    s.set_defaults(func=cmd_risk)

    def protocol_args(s):
        s.add_argument("--partitions", nargs="+", required=True, help="all query partitions (.npz), pooled")
        s.add_argument("--holdout", type=float, default=0.2)
        s.add_argument("--n-folds", type=int, default=5)
        s.add_argument("--seed", type=int, required=True)
        s.add_argument("--convention", default="lightgbm", help="NDCG preset for training and Table 7")

    s = sub.add_parser("risk-baseline", help="pre-train one learned baseline on the held-out queries (Sec. 6.1)")
    protocol_args(s)
    s.add_argument("--learner", required=True)
    s.add_argument("--params", default="{}")
    s.add_argument("--grid", default="{}")
    s.add_argument("--threads", type=int, default=1)
    s.add_argument("--output", required=True)
    s.set_defaults(func=cmd_risk_baseline)

    s = sub.add_parser("risk-learn", help="LambdaMART or a risk-sensitive variant on one fold (Sec. 6)")
    protocol_args(s)
    s.add_argument("--fold", type=int, required=True)
    s.add_argument("--method", required=True, help="lambdamart, u-cro, t-saro, t-faro, t*-faro or georisk")
    s.add_argument("--alpha", type=float, default=0.0)
    s.add_argument("--baseline-feature", type=int, default=110)
    s.add_argument("--baselines", nargs="*", help="fitted learned baselines (.pkl) for t*-faro and georisk")
    s.add_argument("--params", default="{}")
    s.add_argument("--threads", type=int, default=1)
    s.add_argument("--output", required=True)
    s.set_defaults(func=cmd_risk_learn)

    s = sub.add_parser("risk-table7", help="Table 7 from the per-fold runs (Sec. 6.2)")
    protocol_args(s)
    s.add_argument("--folds", type=int, nargs="+", required=True)
    s.add_argument("--baselines", nargs="+", required=True, help="the learned baselines (.pkl)")
    s.add_argument("--baseline-feature", type=int, default=110)
    s.add_argument("--runs", nargs="+", required=True, help="runs/<learner>/fold<f>.npz of risk-learn")
    s.add_argument("--loss-threshold", type=float, default=0.2)
    s.add_argument("--out-dir", required=True)
    s.set_defaults(func=cmd_risk_table7)

    from evalrank.clicks.commands import add_parsers as add_clicks_parsers

    add_clicks_parsers(sub)

    from evalrank.theory.commands import add_parsers as add_theory_parsers

    add_theory_parsers(sub)

    s = sub.add_parser("validate-config", help="validate a config file and print it with defaults filled in")
    s.add_argument("config")
    s.set_defaults(func=cmd_validate_config)
    return p


def main(argv=None) -> int:
    """Run one command. Every error ends as one line ``evalrank <command>: error: ...`` on
    stderr and exit status 1 (2 for bad arguments, from argparse; 130 on Ctrl-C), never a
    traceback; ``EVALRANK_DEBUG=1`` shows the traceback of an unexpected error."""
    args = build_parser().parse_args(argv)
    try:
        args.func(args)
    except KeyboardInterrupt:
        print(f"evalrank {args.command}: interrupted", file=sys.stderr)
        return 130
    except (ValueError, TypeError, OSError, RuntimeError, LookupError) as e:
        print(f"evalrank {args.command}: error: {_message(e)}", file=sys.stderr)
        return 1
    except Exception as e:  # a bug, or a library's own exception type: still one line
        if os.environ.get("EVALRANK_DEBUG"):
            raise
        print(f"evalrank {args.command}: error: {type(e).__name__}: {_message(e)} "
              "(EVALRANK_DEBUG=1 shows the traceback)", file=sys.stderr)
        return 1
    return 0


def _message(e: BaseException) -> str:
    """The exception's text; for OS errors with a file name, 'path: reason'."""
    if isinstance(e, OSError) and e.filename and e.strerror and str(e.filename) not in e.strerror:
        return f"{e.filename}: {e.strerror}"
    if isinstance(e, MemoryError):
        return "out of memory"
    text = str(e)
    if isinstance(e, KeyError) and len(e.args) == 1:
        text = f"missing {e.args[0]!r}"
    return text or type(e).__name__
