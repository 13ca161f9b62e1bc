"""A labelling campaign on a pool nobody here has seen, through the CLI (issue 27, last item).

    .venv/bin/python benchmarks/unseen_pool.py [--campaigns 300] [--seed 2027] [--jobs 2]
        [--difference-campaigns 100] [--each-look 10] [--out benchmarks/out/unseen_pool.csv]

The pool is generated from ``--seed`` (a numpy ``SeedSequence``) and written as the files a user
has, in a temporary directory: a TREC run (``--queries`` topics, lists of 20-150 documents), the
qrels with the TRUE grade 0-4 of every run document, a PROBS file ``qid docno p_0 .. p_4`` of the
label model written with ``%.6f``, a ``--costs`` file (cost proportional to the list's length, mean
1), and a second run (``run_b``: run a's scores perturbed) for the difference cell.

- Skewed DCG: most topics are "sparse" (a latent relevance centred far below the first grade's
  threshold: a handful of relevant documents), a minority (``RICH_SHARE``) are "rich" (many
  documents at grades 3-4), so the per-topic DCG has a long right tail (its skewness is printed).
- An overconfident label model: the model sees each document's latent relevance through a
  topic-level error it does not know about (shared by the topic's documents, so its independent
  per-document variances miss it) plus document noise, and its ordered-logit probabilities are
  sharpened (``MODEL_TEMPERATURE`` 0.2, where its document noise alone calls for a logistic scale
  of about 0.3). ``estimate``'s ``label_model`` check (realized squared errors of the predicted
  DCG / the variance it predicted) is printed: on the whole pool (a whole-pool plan's estimate),
  and its median over the campaigns at the last look.

Each campaign ``s`` (seed ``s``) is what a user does, every step ``evalrank.cli.main([...])`` in
process (stdout's JSON parsed): ``active plan --run --probs --costs --budget 10 --measure dcg
--seed s``, ``active estimate --plan --qrels --run``, then ``active plan --continue --budget`` 10,
30 and 50 (looks at total budgets 10 / 20 / 50 / 100), an estimate after each. Every look is
estimated twice on the same plan: the defaults (``--estimator auto``: Hajek-normalized AIPW for one
ranker, AIPW for a difference; confidence sequence) and ``--estimator eq6
--interval t`` (the old interval, valid only once at a budget fixed in advance). The difference
cell does the same with ``--run-b`` (``R[a] - R[b]``) on the first ``--difference-campaigns``
seeds (default 100). The qrels hold every document's grade; ``estimate`` ignores the judgments
outside the plan.

An ``estimate`` call reads the run and the qrels (about 0.5 s here on this pool of 33,000
documents) and a new plan the probabilities (about 1.3 s; with two runs 0.7 s and 1.6 s), so
estimating every look of 300 campaigns of two cells would take about an hour on two cores. The
first ``--each-look`` campaigns (default 10) do estimate after every round, and each such look must equal the row of
the last estimate's ``rounds`` (the interval at the end of every round: the same running terms,
the same ``t_star``); the others estimate once per configuration, after the last round, and take
the four looks from its ``rounds``. ``--each-look -1`` estimates every look of every campaign.

Truth: the pool's mean DCG (and difference) from the generator's grades and rankings with
Sawade's DCG (gain ``2^y - 1``, discount ``1/log2(i+1)``, whole list), checked against
``evalrank.active.campaign.query_losses`` on the files as read and against the exact estimate of
a plan whose budget covers the whole pool (through the CLI).

Output: a table on stdout and in ``--out`` (CSV): per cell, estimator, interval and budget the
coverage at that look, the simultaneous coverage over the four looks (the same on every row of a
cell/estimator), mean width, RMSE, mean error and its standard error; the time per CLI call.
Progress on stderr. ``--out`` defaults to ``benchmarks/out/`` (ignored by git): generated results
are not committed.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

#: the looks: the first plan's budget, then the three continuations (totals 10, 20, 50, 100)
ROUNDS = (10.0, 10.0, 30.0, 50.0)
N_GRADES = 5
#: thresholds of the latent relevance between grades 0|1, 1|2, 2|3, 3|4
THRESHOLDS = np.array([0.0, 1.0, 2.0, 3.0])
#: share of "rich" topics (many high grades); the others are sparse
RICH_SHARE = 0.15
#: the label model's ordered-logit scale: sharpened (its document noise alone calls for about 0.3)
MODEL_TEMPERATURE = 0.2
#: the label model's errors: per topic (unknown to it, shared by the topic's documents) and per document
MODEL_TOPIC_ERROR = 0.25
MODEL_DOC_ERROR = 0.5
#: the two configurations compared on the same plans: (estimator, interval); the first is the default
#: (``auto``: Hajek-normalized AIPW for one ranker, AIPW for a difference)
CONFIGS = (("auto", "cs"), ("eq6", "t"))


# -- the pool ------------------------------------------------------------------------------------
def trec_order(score: np.ndarray, docnos) -> np.ndarray:
    """The rank order trec_eval (and ``evalrank active``) gives a query's documents: score
    compared in float32, descending, then docno descending."""
    docnos = np.asarray(docnos)
    rank = np.empty(docnos.size, dtype=np.int64)
    rank[np.argsort(docnos, kind="stable")] = np.arange(docnos.size)
    return np.lexsort((-rank, -np.asarray(score, dtype=np.float32).astype(np.float64)))


def ordered_logit(zhat: np.ndarray, temperature: float) -> np.ndarray:
    """``P(grade = k)``, k = 0..4, of an ordered logit at :data:`THRESHOLDS` with scale ``temperature``."""
    below = 1.0 / (1.0 + np.exp(-(THRESHOLDS[None, :] - zhat[:, None]) / temperature))   # P(grade <= k)
    cdf = np.hstack([np.zeros((zhat.size, 1)), below, np.ones((zhat.size, 1))])
    return np.diff(cdf, axis=1)


def generate(seed: int, n_queries: int = 400, min_docs: int = 20, max_docs: int = 150) -> dict:
    """An unseen pool from ``seed`` (module docstring; :func:`write_pool` writes its files).

    Per query (lists, in document-id order): ``docnos``, ``grades`` (the truth, 0-4), ``score_a``
    / ``score_b`` (the runs' scores, as written: 6 decimals), ``probs`` ((n, 5) label model);
    ``order_a`` / ``order_b`` each run's rank order (:func:`trec_order`); and ``qids``,
    ``costs`` (proportional to the list length, mean 1), ``rich`` (bool per query)."""
    ss = np.random.SeedSequence(seed)
    g_size, g_topic, g_doc, g_rank, g_model, g_b = (np.random.default_rng(s) for s in ss.spawn(6))
    sizes = g_size.integers(min_docs, max_docs + 1, n_queries)
    rich = g_topic.random(n_queries) < RICH_SHARE
    # sparse topics: latent centred near -2.2 (a few relevant documents); rich ones near +1.2
    centre = np.where(rich, g_topic.normal(1.2, 0.6, n_queries), g_topic.normal(-2.2, 0.5, n_queries))
    topic_err = g_model.normal(0.0, MODEL_TOPIC_ERROR, n_queries)
    width = len(str(n_queries))
    out = {k: [] for k in ("qids", "docnos", "grades", "score_a", "score_b", "probs", "order_a", "order_b")}
    for i in range(n_queries):
        n = int(sizes[i])
        z = centre[i] + g_doc.normal(0.0, 1.0, n)
        docnos = [f"UNS-{i:0{width}d}-{j:03d}" for j in range(n)]
        # run a: a noisy view of the latent relevance; run b: run a's scores perturbed
        score_a = np.round(z + g_rank.normal(0.0, 1.0, n) + 10.0, 6)
        score_b = np.round(score_a + g_b.normal(0.0, 0.8, n), 6)
        # the label model: latent + a topic error it does not know about + document noise, sharpened
        zhat = z + topic_err[i] + g_model.normal(0.0, MODEL_DOC_ERROR, n)
        out["qids"].append(f"u{i + 1:0{width}d}")
        out["docnos"].append(docnos)
        out["grades"].append(np.searchsorted(THRESHOLDS, z, side="right"))
        out["score_a"].append(score_a)
        out["score_b"].append(score_b)
        out["probs"].append(ordered_logit(zhat, MODEL_TEMPERATURE))
        out["order_a"].append(trec_order(score_a, docnos))
        out["order_b"].append(trec_order(score_b, docnos))
    out["costs"] = sizes / sizes.mean()
    out["rich"] = rich
    return out


def dcg(grades_in_rank_order: np.ndarray) -> float:
    """Sawade's DCG of a whole list: sum over ranks i of (2^y - 1) / log2(i + 1)."""
    y = np.asarray(grades_in_rank_order, dtype=np.float64)
    return float(np.sum((2.0 ** y - 1.0) / np.log2(np.arange(2, y.size + 2))))


def truth(pool: dict) -> dict:
    """Per query the DCG of run a and of run b, and the pool's mean DCG of run a and mean
    difference ``R[a] - R[b]``."""
    a = np.array([dcg(g[o]) for g, o in zip(pool["grades"], pool["order_a"])])
    b = np.array([dcg(g[o]) for g, o in zip(pool["grades"], pool["order_b"])])
    return {"values_a": a, "values_b": b, "dcg": float(a.mean()), "difference": float((a - b).mean())}


def write_pool(pool: dict, folder) -> dict:
    """The pool's files under ``folder``: ``run_a``, ``run_b`` (TREC runs, rank order), ``qrels``
    (every run document's true grade), ``probs`` (``%.6f``), ``costs``. Returns their paths."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    paths = {k: folder / name for k, name in (("run_a", "run_a.txt"), ("run_b", "run_b.txt"),
                                               ("qrels", "truth.qrels"), ("probs", "probs.txt"),
                                               ("costs", "costs.txt"))}
    with open(paths["run_a"], "w") as ra, open(paths["run_b"], "w") as rb, open(paths["qrels"], "w") as qr, \
            open(paths["probs"], "w") as pr:
        for i, q in enumerate(pool["qids"]):
            docs = pool["docnos"][i]
            for tag, fh, key in (("runA", ra, "a"), ("runB", rb, "b")):
                score = pool[f"score_{key}"][i]
                fh.writelines(f"{q} Q0 {docs[j]} {r + 1} {score[j]:.6f} {tag}\n"
                              for r, j in enumerate(pool[f"order_{key}"][i].tolist()))
            qr.writelines(f"{q} 0 {d} {int(y)}\n" for d, y in zip(docs, pool["grades"][i].tolist()))
            pr.writelines(f"{q} {d} " + " ".join(f"{x:.6f}" for x in p) + "\n"
                          for d, p in zip(docs, pool["probs"][i].tolist()))
    paths["costs"].write_text("".join(f"{q} {c:.6f}\n" for q, c in zip(pool["qids"], pool["costs"])))
    return paths


def library_values(paths: dict, run_b: bool = False) -> np.ndarray:
    """Per query DCG of run a (minus run b's with ``run_b``) computed by the library on the files
    as read: :func:`evalrank.active.files.rankings_from_trec` and
    :func:`evalrank.active.campaign.query_losses` with the qrels' grades (the truth's check)."""
    from evalrank.active.campaign_estimate import query_losses
    from evalrank.active.files import rankings_from_trec

    r, doc_ids = rankings_from_trec(str(paths["run_a"]), run_b=str(paths["run_b"]) if run_b else None)
    grade = {}
    for line in Path(paths["qrels"]).read_text().splitlines():
        q, _, d, y = line.split()
        grade[(q, d)] = int(y)
    labels = np.array([grade[k] for k in doc_ids], dtype=np.int64)
    v = query_losses(labels, r.offsets_a, r.order_a, "dcg", N_GRADES, r.offsets)
    if run_b:
        v = v - query_losses(labels, r.offsets_b, r.order_b, "dcg", N_GRADES, r.offsets)
    return v


# -- the campaigns -------------------------------------------------------------------------------
def cli(*args, timings: dict | None = None, kind: str = "") -> str:
    """``evalrank ARGS`` in process (:func:`evalrank.cli.main`): its stdout; a non-zero exit
    raises with its stderr. ``timings[kind]`` collects the call's wall time."""
    from evalrank.cli import main

    out, err = io.StringIO(), io.StringIO()
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main([str(a) for a in args])
    if timings is not None:
        timings.setdefault(kind, []).append(time.perf_counter() - t0)
    if rc != 0:
        raise RuntimeError(f"evalrank {' '.join(map(str, args))} exited {rc}: {err.getvalue().strip()}")
    return out.getvalue()


def cells(difference: bool = True) -> list[str]:
    return ["dcg", "difference"] if difference else ["dcg"]


def run_campaign(seed: int, paths: dict, workdir, cell: str = "dcg", per_look: bool = True,
                 timings: dict | None = None) -> list[dict]:
    """One campaign of ``cell`` ("dcg": run a; "difference": run a - run b) with seed ``seed``
    through the CLI: a plan of budget 10, then ``--continue`` +10, +30, +50 (:data:`ROUNDS`).
    ``per_look``: estimate after every round with each configuration of :data:`CONFIGS` (what a
    user does), and check that the last estimate's ``rounds`` repeat the earlier looks; else only
    after the last round, the looks read from its ``rounds``. One row per configuration and look:
    ``cell, seed, estimator, interval, look, budget, estimate, ci_low, ci_high, ratio`` (the
    label-model check's ratio at that look; NaN where not estimated there)."""
    workdir = Path(workdir)
    runs = ["--run", paths["run_a"]] + (["--run-b", paths["run_b"]] if cell == "difference" else [])
    estimates = {cfg: [None] * len(ROUNDS) for cfg in CONFIGS}
    ratios = [float("nan")] * len(ROUNDS)
    plan_path = None
    for k, budget in enumerate(ROUNDS):
        new = workdir / f"{cell}-{seed}-plan{k + 1}.tsv"
        if k == 0:
            cli("active", "plan", *runs, "--probs", paths["probs"], "--costs", paths["costs"], "--budget", budget,
                "--measure", "dcg", "--seed", seed, "--out", new, timings=timings, kind="plan")
        else:
            cli("active", "plan", "--continue", plan_path, "--budget", budget, "--out", new, timings=timings,
                kind="continue")
        plan_path = new
        if not per_look and k < len(ROUNDS) - 1:
            continue
        for est, itv in CONFIGS:
            extra = [] if (est, itv) == CONFIGS[0] else ["--estimator", est, "--interval", itv]
            res = json.loads(cli("active", "estimate", "--plan", plan_path, "--qrels", paths["qrels"], *runs, *extra,
                                 timings=timings, kind="estimate"))
            assert res["budget"] == sum(ROUNDS[:k + 1]) and len(res["rounds"]) == k + 1
            if res["exact"]:
                raise RuntimeError(f"campaign {seed}: the plan covers the whole pool; use a larger pool")
            estimates[(est, itv)][k] = res
            ratios[k] = res["label_model"]["ratio"]
    rows = []
    for cfg, looks in estimates.items():
        last = looks[-1]
        for k, r in enumerate(last["rounds"]):
            if per_look:   # the look's own estimate; the last estimate's rounds must repeat it
                own = looks[k]
                same = all(np.isclose(own[key], r[key], rtol=1e-9, atol=1e-12) for key in ("estimate", "ci_low",
                                                                                              "ci_high"))
                if not same:
                    raise RuntimeError(f"campaign {seed} {cell} {cfg}: the estimate at look {k + 1} differs from the "
                                       f"last estimate's round {k + 1}: {own} vs {r}")
                r = {key: own[key] for key in ("estimate", "ci_low", "ci_high")}
            rows.append({"cell": cell, "seed": seed, "estimator": cfg[0], "interval": cfg[1], "look": k + 1,
                         "budget": sum(ROUNDS[:k + 1]), "estimate": r["estimate"], "ci_low": r["ci_low"],
                         "ci_high": r["ci_high"], "ratio": ratios[k]})
    return rows


def whole_pool(paths: dict, workdir, cell: str) -> dict:
    """The estimate of a plan whose budget covers the whole pool (exact), through the CLI."""
    runs = ["--run", paths["run_a"]] + (["--run-b", paths["run_b"]] if cell == "difference" else [])
    cost = sum(float(line.split()[1]) for line in Path(paths["costs"]).read_text().splitlines())
    plan_path = Path(workdir) / f"{cell}-whole.tsv"
    cli("active", "plan", *runs, "--probs", paths["probs"], "--costs", paths["costs"], "--budget", cost + 1,
        "--measure", "dcg", "--out", plan_path)
    res = json.loads(cli("active", "estimate", "--plan", plan_path, "--qrels", paths["qrels"], *runs))
    assert res["exact"] and res["labelled_queries"] == len(Path(paths["costs"]).read_text().splitlines())
    return res


def summarize(rows: list[dict], truths: dict) -> list[dict]:
    """Per cell, configuration and look: coverage, the simultaneous coverage over every look,
    mean width, RMSE, mean error and its standard error, the label-model ratio's median."""
    out = []
    keys = sorted({(r["cell"], r["estimator"], r["interval"]) for r in rows},
                  key=lambda k: (cells().index(k[0]), [c[0] for c in CONFIGS].index(k[1])))
    for cell, est, itv in keys:
        mine = [r for r in rows if (r["cell"], r["estimator"], r["interval"]) == (cell, est, itv)]
        seeds = sorted({r["seed"] for r in mine})
        mu = truths[cell]
        covered = {s: [] for s in seeds}
        for r in mine:
            covered[r["seed"]].append(r["ci_low"] <= mu <= r["ci_high"])
        simultaneous = float(np.mean([all(c) for c in covered.values()]))
        for look in sorted({r["look"] for r in mine}):
            at = [r for r in mine if r["look"] == look]
            err = np.array([r["estimate"] - mu for r in at])
            cov = np.array([r["ci_low"] <= mu <= r["ci_high"] for r in at])
            width = np.array([r["ci_high"] - r["ci_low"] for r in at])
            ratio = np.array([r["ratio"] for r in at], dtype=np.float64)
            out.append({"cell": cell, "estimator": est, "interval": itv, "budget": at[0]["budget"],
                        "campaigns": len(at), "truth": mu, "coverage": float(cov.mean()),
                        "simultaneous_coverage": simultaneous, "mean_width": float(width.mean()),
                        "rmse": float(np.sqrt(np.mean(err ** 2))), "mean_error": float(err.mean()),
                        "se_mean_error": float(err.std(ddof=1) / np.sqrt(err.size)) if err.size > 1 else float("nan"),
                        "label_model_ratio_median": float(np.median(ratio)) if np.isfinite(ratio).all()
                        else float("nan")})
    return out


def _worker(job):
    """One campaign of every cell in a worker process: (rows, timings)."""
    seed, paths, workdir, cell_names, per_look, threads = job
    if threads:   # a worker process: one thread each (before the first numba / BLAS import)
        for var in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ.setdefault(var, "1")
    timings: dict = {}
    rows = []
    for cell in cell_names:
        rows += run_campaign(seed, paths, workdir, cell, per_look=per_look, timings=timings)
    for f in Path(workdir).glob(f"*-{seed}-plan*.tsv"):
        f.unlink()
    return rows, timings


def _table(summary: list[dict]) -> str:
    head = ("cell", "estimator", "interval", "budget", "campaigns", "coverage", "simultaneous", "mean_width", "rmse",
            "mean_error", "se_error", "lm_ratio")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for s in summary:
        lines.append(f"| {s['cell']} | {s['estimator']} | {s['interval']} | {s['budget']:g} | {s['campaigns']} | "
                     f"{s['coverage']:.3f} | {s['simultaneous_coverage']:.3f} | {s['mean_width']:.3f} | "
                     f"{s['rmse']:.3f} | {s['mean_error']:+.3f} | {s['se_mean_error']:.3f} | "
                     f"{s['label_model_ratio_median']:.2f} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--campaigns", type=int, default=300, help="campaigns of the DCG cell (default 300)")
    ap.add_argument("--difference-campaigns", type=int, default=100,
                    help="campaigns of the difference cell (run a - run b), on the first seeds (default 100; 0: none)")
    ap.add_argument("--seed", type=int, default=2027, help="the pool's seed (numpy SeedSequence; default 2027)")
    ap.add_argument("--first-campaign-seed", type=int, default=1, help="campaign seeds start here (default 1)")
    ap.add_argument("--queries", type=int, default=400, help="topics of the pool (default 400)")
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                    help="worker processes (default: 2, or 1 on one CPU)")
    ap.add_argument("--each-look", type=int, default=10,
                    help="the first this many campaigns estimate after every round, as a user does, and check that "
                         "the last estimate's 'rounds' repeat those looks; the others estimate once, after the last "
                         "round, and read the four looks from its 'rounds' (default 10; -1: every campaign)")
    ap.add_argument("--out", default="benchmarks/out/unseen_pool.csv",
                    help="the table (CSV; default benchmarks/out/unseen_pool.csv, ignored by git)")
    a = ap.parse_args(argv)
    from scipy import stats

    from _machine import cpu_model

    t_start = time.perf_counter()
    print(f"machine: {cpu_model()}, {os.cpu_count()} CPUs, {a.jobs} worker process(es); python "
          f"{sys.version.split()[0]}, numpy {np.__version__}")
    with tempfile.TemporaryDirectory(prefix="unseen_pool_") as tmp:
        pool = generate(a.seed, n_queries=a.queries)
        tr = truth(pool)
        paths = {k: str(v) for k, v in write_pool(pool, tmp).items()}
        n_docs = sum(len(d) for d in pool["docnos"])
        v = tr["values_a"]
        print(f"pool (seed {a.seed}): {a.queries} topics, {n_docs} documents (lists "
              f"{min(len(d) for d in pool['docnos'])}-{max(len(d) for d in pool['docnos'])}), "
              f"{int(pool['rich'].sum())} rich topics; pool cost {pool['costs'].sum():.1f}")
        print(f"per-topic DCG of run a: mean {v.mean():.4f}, median {np.median(v):.4f}, 90th/99th percentile "
              f"{np.quantile(v, 0.9):.2f}/{np.quantile(v, 0.99):.2f}, max {v.max():.2f}, skewness "
              f"{stats.skew(v):.2f}; the rich topics hold {v[pool['rich']].sum() / v.sum():.0%} of the DCG")
        d = v - tr["values_b"]
        print(f"per-topic DCG[a] - DCG[b]: mean {d.mean():.4f}, sd {d.std(ddof=1):.3f}, skewness {stats.skew(d):.2f}")
        truths = {"dcg": tr["dcg"], "difference": tr["difference"]}
        # the truth, three ways: the generator, the library on the files, a whole-pool plan's exact estimate
        for cell in cells(a.difference_campaigns > 0):
            lib = library_values(paths, run_b=cell == "difference")
            mine = v if cell == "dcg" else d
            if not np.allclose(lib, mine, rtol=1e-12, atol=1e-9):
                raise SystemExit(f"{cell}: the library's per-topic values differ from the generator's")
            exact = whole_pool(paths, tmp, cell)
            if not np.isclose(exact["estimate"], truths[cell], rtol=1e-12, atol=1e-9):
                raise SystemExit(f"{cell}: a whole-pool plan estimates {exact['estimate']!r}, the truth is "
                                 f"{truths[cell]!r}")
            lm = exact["label_model"]
            print(f"truth {cell}: {truths[cell]:.6f} (= query_losses on the files = the whole-pool plan's exact "
                  f"estimate); label_model check on all {lm['queries']} topics: realized squared error "
                  f"{lm['realized_squared_error']:.4g} / predicted variance {lm['predicted_variance']:.4g} = ratio "
                  f"{lm['ratio']:.2f}" + (" (flagged overconfident)" if lm["warning"] else ""))
        each = a.campaigns if a.each_look < 0 else a.each_look
        n_diff = min(a.difference_campaigns, a.campaigns)
        jobs = [(s, paths, tmp, cells(i < n_diff), i < each, a.jobs > 1)
                for i, s in enumerate(range(a.first_campaign_seed, a.first_campaign_seed + a.campaigns))]
        rows, timings = [], {}
        t0 = time.perf_counter()

        def collect(result, done):
            r, t = result
            rows.extend(r)
            for k, xs in t.items():
                timings.setdefault(k, []).extend(xs)
            if done % max(1, a.campaigns // 20) == 0 or done == a.campaigns:
                el = time.perf_counter() - t0
                print(f"[unseen_pool] {done}/{a.campaigns} campaigns, {el:.0f} s, ETA "
                      f"{el / done * (a.campaigns - done):.0f} s", file=sys.stderr, flush=True)

        if a.jobs <= 1:
            for i, job in enumerate(jobs, 1):
                collect(_worker(job), i)
        else:
            import multiprocessing as mp
            from concurrent.futures import ProcessPoolExecutor

            with ProcessPoolExecutor(a.jobs, mp_context=mp.get_context("spawn")) as ex:
                for i, res in enumerate(ex.map(_worker, jobs, chunksize=1), 1):
                    collect(res, i)
        campaigns_s = time.perf_counter() - t0
    summary = summarize(rows, truths)
    print(f"\n{a.campaigns} campaigns of the DCG cell, {n_diff} of the difference cell, looks at budgets "
          f"{' / '.join(f'{sum(ROUNDS[:k + 1]):g}' for k in range(len(ROUNDS)))} "
          f"({min(each, a.campaigns)} campaigns estimated at every look and checked against the last estimate's "
          "rounds, the others' looks from the last estimate's rounds); coverage of the 95 % interval at the look, "
          "simultaneous: every look of the campaign covered; "
          "lm_ratio: the label-model check's median ratio over the campaigns (at the last look only, unless every "
          "campaign estimated at every look)\n")
    print(_table(summary))
    calls = sum(len(x) for x in timings.values())
    print("\ntime per CLI call (mean, in the workers): " + ", ".join(
        f"{k} {np.mean(x):.3f} s ({len(x)} calls)" for k, x in sorted(timings.items())))
    print(f"campaigns: {campaigns_s:.1f} s wall for {calls} CLI calls on {a.jobs} process(es); total "
          f"{time.perf_counter() - t_start:.1f} s")
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    import csv

    with open(out, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(summary[0]), lineterminator="\n")
        w.writeheader()
        w.writerows(summary)
    print(f"table written to {out}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    raise SystemExit(main())
