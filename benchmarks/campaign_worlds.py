"""Labelling campaigns in worlds the tool was not tuned on (issue 48): coverage looked at after
every label, RMSE against a simple random sample without replacement, width.

    .venv/bin/python benchmarks/campaign_worlds.py [--campaigns 1000] [--labels 100] [--seed 2048]
        [--worlds skewed_overconfident,skewed_uninformative,two_rankers,...] [--block 5]
        [--adaptive-only] [--no-shape] [--first-mix L] [--first-shape S] [--later-srs]
        [--excerpt DIR] [--out FILE]

Worlds (each a pool, a label model, a measure, costs):

- ``skewed_overconfident``: benchmarks/unseen_pool.py's generator (seed ``--seed``): a skewed
  per-query DCG (15 % "rich" topics), a sharpened label model blind to a per-topic error, costs
  proportional to the list's length; DCG of run a.
- ``skewed_uninformative``: the same pool, every document given the pool's grade frequencies
  (a user with no model).
- ``skewed_err``: the first world's pool and model, ERR.
- ``skewed_misleading`` / ``skewed_misleading_err``: the same pool, each query's documents given
  the probabilities of another query's (a model that points q* and the control variate the
  wrong way), DCG and ERR.
- ``two_rankers``: the same pool, run a minus a copy whose scores are perturbed by noise of sd
  0.3 (two nearly equal rankers), DCG; the overconfident model.
- ``excerpt43`` / ``excerpt86``: the real MSLR-WEB30K lines of rankeval 0.8.2's sdist (Fold1's
  test excerpt, 43 queries; both files, 86), the grade probabilities of a LightGBM multiclass
  model trained on the other file (for 86: each file's on the other), ranked by that model's
  expected grade; DCG@10 and ERR. Needs ``--excerpt DIR`` (the two files).
- ``excerpt43_flat_dcg10`` / ``excerpt86_flat_dcg10``: the same pools with no model (every
  document the training file's grade frequencies), DCG@10.
- ``excerpt43_vs_bm25_dcg10`` / ``excerpt86_vs_bm25_dcg10``: two real rankers, the model's
  ranking minus BM25's (MSLR feature 110, the whole document), with the model's probabilities;
  DCG@10 difference.

Per campaign (seed ``s``): the plan's draws from ``q`` (the tool's defaults: q* with the floor
0.05; :func:`evalrank.active.campaign_plan.plan`'s distribution), as many as it takes to label
``--labels`` distinct queries; then

- ``new``: :func:`evalrank.active.finite.finite_estimate` (Des Raj terms with a recalibrated
  control variate, betting + asymptotic confidence sequence) after every new label;
- ``old``: the tool's previous default (q* of eq. 11 / 12 with the floor; Hajek-normalized AIPW
  for one ranker, AIPW for a difference; the asymptotic sequence with the model's variance floor)
  after every draw that brought a new label
  (:func:`evalrank.active.campaign_estimate.estimate_from_draws`), on its own draws;
- ``adaptive`` (``--block`` > 0): ``plan --continue --run --qrels`` after every round
  (:func:`adaptive_campaign`: a first round of 10 labels from ``q``, then rounds of ``--block``,
  each round's share of uniform sampling and share of the model's shape chosen from the labels
  before it; ``--no-shape``: every round's shape share 1, the design before it;
  ``--adaptive-only``: this design alone; ``--first-mix`` / ``--first-shape``: the first round's
  share of uniform sampling and of the model's shape, 0 and 1 by default -- the tool's first
  round -- and 1 and 0 for a first round that is a simple random sample; ``--later-srs``: every
  later round random sampling's, whatever the labels say).

Coverage at a look: the pool's value within the interval; simultaneous: at every look from the
10th label on. RMSE against ``sqrt((1 - n/N) S^2 / n)`` (a simple random sample of ``n`` of the
``N`` queries without replacement). Output: a table on stdout, CSV at ``--out`` (default
benchmarks/out/campaign_worlds.csv, ignored by git).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
#: MSLR-WEB30K's feature 110 (1-based): BM25 of the whole document
BM25_WHOLE = 109
LOOKS = (10, 20, 50, 100)
#: the adaptive design's weights per round ("labels": evalrank.active.adapt.round_scales; None: 1)
ROUND_SCALE = "labels"
#: whether the adaptive design's later rounds take the shape share choose_round picks (False: 1, the
#: design before the shape share)
SHAPES = True
#: every round after the first drawn uniformly with a constant control variate (random sampling's
#: terms; ``--later-srs``): what the later rounds of a design give once they ignore the model
LATER_SRS = False


def _unseen():
    spec = importlib.util.spec_from_file_location("unseen_pool_bench", HERE / "unseen_pool.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _flat(gen: dict, key: str = "order_a"):
    sizes = np.array([len(d) for d in gen["docnos"]])
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    order = np.concatenate([o + offsets[i] for i, o in enumerate(gen[key])]).astype(np.int64)
    return offsets, order


def generated_worlds(seed: int) -> dict:
    """The worlds built on the generator's pool (module docstring)."""
    from evalrank.active.campaign_state import Pool

    up = _unseen()
    gen = up.generate(seed)
    rng = np.random.default_rng(np.random.SeedSequence([seed, 7]))
    gen["score_c"] = [s + rng.normal(0.0, 0.3, s.size) for s in gen["score_a"]]
    gen["order_c"] = [up.trec_order(s, d) for s, d in zip(gen["score_c"], gen["docnos"])]
    offsets, order_a = _flat(gen, "order_a")
    _, order_c = _flat(gen, "order_c")
    grades = np.concatenate(gen["grades"]).astype(np.int64)
    probs = np.vstack(gen["probs"])
    freq = np.bincount(grades, minlength=5) / grades.size
    flat_probs = np.tile(freq, (grades.size, 1))
    qids = list(gen["qids"])
    costs = np.asarray(gen["costs"], dtype=np.float64)
    # a misleading model: each query's documents get the probabilities of another query's documents
    perm = np.random.default_rng(np.random.SeedSequence([seed, 11])).permutation(len(qids))
    mis = np.empty_like(probs)
    for i, j in enumerate(perm.tolist()):
        rows = np.arange(offsets[j], offsets[j + 1])
        mis[offsets[i]:offsets[i + 1]] = probs[rows[np.arange(offsets[i + 1] - offsets[i]) % rows.size]]
    worlds = {}
    for name, p, b, measure in (("skewed_overconfident", probs, None, "dcg"),
                                ("skewed_misleading", mis, None, "dcg"),
                                ("skewed_misleading_err", mis, None, "err"),
                                ("skewed_uninformative", flat_probs, None, "dcg"),
                                ("skewed_err", probs, None, "err"),
                                ("two_rankers", probs, order_c, "dcg")):
        pool = Pool(qids, offsets, p, order_a, costs, order_b=b)
        worlds[name] = (pool, grades, measure)
    return worlds


def excerpt_worlds(folder) -> dict:
    """The real excerpt's worlds (module docstring): ``folder`` holds rankeval 0.8.2's
    ``msn1.fold1.{train,test}.5k.txt``. A LightGBM multiclass model (grades 0-4, 100 trees of 15
    leaves, seed 0) trained on one file predicts the other's grade probabilities; the run ranks
    each query's documents by the expected grade. ``excerpt43``: the test file's 43 queries;
    ``excerpt86``: both files, each predicted by the model of the other."""
    from evalrank.active.campaign_state import Pool
    from evalrank.data.letor import read_letor
    from evalrank.models._omp import import_lightgbm

    lgb = import_lightgbm()
    folder = Path(folder)
    files = [read_letor(folder / f"msn1.fold1.{k}.5k.txt", n_features=136, show_progress=False)
             for k in ("train", "test")]

    def model_probs(train, test):
        m = lgb.LGBMClassifier(objective="multiclass", num_class=5, n_estimators=100, num_leaves=15,
                               learning_rate=0.05, random_state=0, verbose=-1, n_jobs=2)
        m.fit(train.features, train.labels.astype(int))
        p = np.zeros((test.features.shape[0], 5))
        p[:, m.classes_.astype(int)] = m.predict_proba(test.features)
        return p

    parts = []
    for i, (train, test) in enumerate(((files[0], files[1]), (files[1], files[0]))):
        parts.append((test, model_probs(train, test)))
    worlds = {}
    for name, use in (("excerpt43", parts[:1]), ("excerpt86", parts)):
        offs, probs, grades, order, order_bm25, qids, base = [0], [], [], [], [], [], 0
        for c, p in use:
            eg = p @ np.arange(5)
            bm25 = c.features[:, BM25_WHOLE]
            for j in range(len(c.offsets) - 1):
                a, b = int(c.offsets[j]), int(c.offsets[j + 1])
                order.append(base + np.argsort(-eg[a:b], kind="stable"))
                order_bm25.append(base + np.argsort(-bm25[a:b], kind="stable"))
                base += b - a
                offs.append(base)
                qids.append(f"{name}-{len(qids)}")
            probs.append(p)
            grades.append(c.labels.astype(np.int64))
        offsets = np.asarray(offs, dtype=np.int64)
        pool = Pool(qids, offsets, np.vstack(probs), np.concatenate(order).astype(np.int64),
                    np.ones(len(qids)))
        g = np.concatenate(grades)
        worlds[f"{name}_dcg10"] = (pool, g, "dcg@10")
        worlds[f"{name}_err"] = (pool, g, "err")
        # no model: every document the training file's grade frequencies
        freq = np.bincount(files[0].labels.astype(np.int64), minlength=5)[:5] / files[0].labels.size
        flat = Pool(qids, offsets, np.tile(freq, (g.size, 1)), pool.order_a, np.ones(len(qids)))
        worlds[f"{name}_flat_dcg10"] = (flat, g, "dcg@10")
        # two real rankers: the model's ranking minus BM25's (whole document)
        pair = Pool(qids, offsets, pool.probs, pool.order_a, np.ones(len(qids)),
                    order_b=np.concatenate(order_bm25).astype(np.int64))
        worlds[f"{name}_vs_bm25_dcg10"] = (pair, g, "dcg@10")
    return worlds


def world_arrays(pool, grades, measure: str, epsilon: float = 0.05) -> dict:
    """What a campaign needs: q (the tool's default plan distribution), f, var, the truth per query,
    each query's measure range."""
    from evalrank.active.campaign_estimate import measure_range, query_losses
    from evalrank.active.campaign_plan import sampling_distribution
    from evalrank.active.sampling import defensive

    from evalrank.active.sampling import _variants

    keep: dict = {}
    q = defensive(sampling_distribution(pool, measure, "active", keep=keep), epsilon)
    # the tool's q* before (eq. 11 for one ranker as well): what the old default sampled from
    q_old = defensive(_variants(pool.probs, pool.n_queries, pool.costs, ("active",),
                                lambda p: (keep["mean"], keep["var"]))["active"], epsilon)
    L = query_losses(grades, pool.offsets_a, pool.order_a, measure, 5, pool.offsets)
    if pool.difference:
        L = L - query_losses(grades, pool.offsets_b, pool.order_b, measure, 5, pool.offsets)
    lo, hi = measure_range(pool.rankings, measure, 5)
    f, var = np.asarray(keep["mean"]), np.asarray(keep["var"])
    return {"q": q, "q_old": q_old, "f": f, "var": var, "L": L, "lo": lo, "hi": hi, "difference": pool.difference}


def draws_until(q, n_labels: int, rng) -> np.ndarray:
    """Draws from ``q`` (with repeats) until ``n_labels`` distinct queries are drawn."""
    cdf = np.cumsum(q)
    cdf /= cdf[-1]
    out, seen = [], set()
    while len(seen) < n_labels:
        x = np.minimum(np.searchsorted(cdf, rng.random(4 * n_labels), side="right"), q.size - 1)
        for v in x.tolist():
            out.append(v)
            seen.add(v)
            if len(seen) == n_labels:
                break
    return np.asarray(out, dtype=np.int64)


def adaptive_campaign(w: dict, n_labels: int, seed: int, block: int, first: int = 10, first_mix: float = 0.0,
                      first_shape: float = 1.0) -> dict:
    """The default with the plan corrected by the labels (``plan --continue --run --qrels``): a
    first round of ``first`` labels from ``q``, then rounds of ``block`` labels, each from ``q``
    mixed with the share of uniform sampling and with the share of the model's shape in the control
    variate that :func:`evalrank.active.adapt.choose_round` picks from the labels before it (fresh
    draws per round, as :func:`evalrank.active.campaign_plan.round_draws` makes them); the finite
    estimate after every label."""
    from evalrank.active.adapt import SHAPE_GRID, choose_round
    from evalrank.active.campaign_state import Plan, mixed_rounds
    from evalrank.active.finite import finite_estimate

    rng = np.random.default_rng(np.random.SeedSequence([seed, 48, 1]))
    q = w["q"]
    N = q.size
    n_labels = min(n_labels, N)
    draws, ends, mixes, shapes, labelled = [], [], [first_mix], [first_shape], set()
    qids = [str(i) for i in range(N)]
    while len(labelled) < n_labels:
        qr = mixed_rounds(q, mixes[-1:])[0]
        cdf = np.cumsum(qr)
        cdf /= cdf[-1]
        want = min(first if not ends else block, n_labels - len(labelled))
        got = 0
        while got < want:
            x = int(min(np.searchsorted(cdf, rng.random(), side="right"), N - 1))
            draws.append(x)
            if x not in labelled:
                labelled.add(x)
                got += 1
        ends.append(len(draws))
        if len(labelled) < n_labels:
            p = Plan(qids, q, w["costs"], w["f"], w["var"], np.asarray(draws, dtype=np.int64), 0.0, False, False,
                     False, {"round_draws": list(ends), "rounds": len(ends), "round_mix": list(mixes),
                             "round_shape": list(shapes)})
            lam, sh = (1.0, 0.0) if LATER_SRS else choose_round(p, w["L"], SHAPE_GRID if SHAPES else (1.0,))
            mixes.append(lam)
            shapes.append(sh)
    d = np.asarray(draws, dtype=np.int64)
    rounds = np.minimum(np.searchsorted(np.asarray(ends), np.arange(d.size), side="right"), len(ends) - 1)
    qs = mixed_rounds(q, mixes)
    res = finite_estimate(qs, d, w["L"], w["f"], w["lo"], w["hi"], level=0.95, t_star=first, draw_rounds=rounds,
                          adapted=True, round_scale=ROUND_SCALE, round_shape=shapes)
    return {"adaptive_est": res["estimate"], "adaptive_lo": res["ci_low"], "adaptive_hi": res["ci_high"],
            "mix": float(np.mean(mixes[1:])) if len(mixes) > 1 else 0.0,
            "shape": float(np.mean(shapes[1:])) if len(shapes) > 1 else 1.0}


def campaign(w: dict, n_labels: int, seed: int) -> dict:
    from evalrank.active.campaign_estimate import estimate_from_draws, predicted_term_variance
    from evalrank.active.finite import distinct_order, finite_estimate

    rng = np.random.default_rng(np.random.SeedSequence([seed, 48]))
    N = w["q"].size
    n_labels = min(n_labels, N)
    draws = draws_until(w["q"], n_labels, rng)
    seq, at = distinct_order(draws)
    res = finite_estimate(w["q"], draws, w["L"], w["f"], w["lo"], w["hi"], level=0.95, t_star=10)
    # the old default (its q*, its draws from the same seed) at the draw of each new label
    q = w["q_old"]
    draws = draws_until(q, n_labels, np.random.default_rng(np.random.SeedSequence([seed, 48])))
    seq, at = distinct_order(draws)
    wt = 1.0 / (N * q[draws])
    est = "aipw" if w["difference"] else "hajek"
    t_star = int(at[min(9, at.size - 1)])
    floor = predicted_term_variance(q, w["var"])
    old = estimate_from_draws(wt, w["L"][draws], w["f"][draws], float(w["f"].mean()), estimator=est,
                              interval="cs", t_star=t_star, var_floor=floor, rounds=at.tolist())
    o = {r["draws"]: r for r in old["rounds"]}
    old_rows = [o[int(a)] for a in at]
    return {"new_est": res["estimate"], "new_lo": res["ci_low"], "new_hi": res["ci_high"],
            "old_est": np.array([r["estimate"] for r in old_rows]), "old_lo": np.array([r["ci_low"] for r in old_rows]),
            "old_hi": np.array([r["ci_high"] for r in old_rows])}


def summarize(name: str, w: dict, runs: list[dict], n_labels: int) -> list[dict]:
    R = float(w["L"].mean())
    N = w["L"].size
    S2 = float(w["L"].var(ddof=1))
    rows = []
    for kind in ("new", "adaptive", "old"):
        if f"{kind}_est" not in runs[0]:
            continue
        est = np.array([r[f"{kind}_est"] for r in runs])
        lo = np.array([r[f"{kind}_lo"] for r in runs])
        hi = np.array([r[f"{kind}_hi"] for r in runs])
        cover = (lo <= R + 1e-12) & (hi >= R - 1e-12)
        start = min(10, est.shape[1]) - 1
        simul = float(cover[:, start:].all(axis=1).mean())
        for n in (*LOOKS, n_labels):
            if n > est.shape[1] or any(r["look"] == n and r["design"] == kind for r in rows):
                continue
            e = est[:, n - 1]
            srs = np.sqrt(max(1.0 - n / N, 0.0) * S2 / n)
            rmse = float(np.sqrt(np.mean((e - R) ** 2)))
            mix = float(np.mean([r["mix"] for r in runs])) if kind == "adaptive" else 0.0
            shape = float(np.mean([r["shape"] for r in runs])) if kind == "adaptive" else 1.0
            rows.append({"world": name, "design": kind, "look": n, "N": N, "coverage": float(cover[:, n - 1].mean()),
                         "simultaneous_from_10": simul, "rmse": rmse, "rmse_vs_srs": rmse / srs if srs > 0 else np.nan,
                         "bias": float(np.mean(e - R)), "width": float(np.mean(hi[:, n - 1] - lo[:, n - 1])),
                         "mean_mix": mix, "mean_shape": shape})
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--campaigns", type=int, default=1000)
    ap.add_argument("--labels", type=int, default=100)
    ap.add_argument("--seed", type=int, default=2048)
    ap.add_argument("--worlds", default="skewed_overconfident,skewed_uninformative,skewed_err,two_rankers")
    ap.add_argument("--epsilon", type=float, default=0.05, help="the floor under q* of the new design's plans")
    ap.add_argument("--excerpt", help="the folder of rankeval 0.8.2's msn1.fold1.{train,test}.5k.txt")
    ap.add_argument("--block", type=int, default=5,
                    help="labels per round after the first 10 in the adaptive design (0: leave it out)")
    ap.add_argument("--adaptive-only", action="store_true",
                    help="run the adaptive design alone (not today's one-q default nor the old one)")
    ap.add_argument("--no-shape", action="store_true",
                    help="the adaptive design without the shape share (every round's 1: the design before it)")
    ap.add_argument("--first-mix", type=float, default=0.0,
                    help="the adaptive design's first round: its share of uniform sampling in [0, 1] (the tool's: 0)")
    ap.add_argument("--first-shape", type=float, default=1.0,
                    help="the adaptive design's first round: its share of the model's shape in [0, 1] (the tool's: 1)")
    ap.add_argument("--later-srs", action="store_true",
                    help="the adaptive design with every later round random sampling's (share of uniform 1, of the shape 0)")
    ap.add_argument("--out", default=str(HERE / "out" / "campaign_worlds.csv"))
    a = ap.parse_args(argv)
    for name in ("first_mix", "first_shape"):
        if not 0.0 <= getattr(a, name) <= 1.0:
            ap.error(f"--{name.replace('_', '-')} must be in [0, 1], got {getattr(a, name)}")
    if a.adaptive_only and a.block <= 0:
        ap.error("--adaptive-only needs --block > 0")
    global SHAPES, LATER_SRS
    SHAPES = not a.no_shape
    LATER_SRS = a.later_srs
    worlds = generated_worlds(a.seed)
    if a.excerpt:
        worlds.update(excerpt_worlds(a.excerpt))
    rows = []
    for name in a.worlds.split(","):
        pool, grades, measure = worlds[name]
        w = world_arrays(pool, grades, measure)
        w["costs"] = np.asarray(pool.costs, dtype=np.float64)
        if a.epsilon != 0.05:   # the new design's plan under another floor (the old default keeps 0.05)
            w["q"] = world_arrays(pool, grades, measure, epsilon=a.epsilon)["q"]
        t0 = time.perf_counter()
        runs = []
        for s in range(a.campaigns):
            r = {} if a.adaptive_only else campaign(w, a.labels, s)
            if a.block > 0:
                r.update(adaptive_campaign(w, a.labels, s, a.block, first_mix=a.first_mix, first_shape=a.first_shape))
            runs.append(r)
            if (s + 1) % 100 == 0:
                print(f"{name}: {s + 1}/{a.campaigns} campaigns, {time.perf_counter() - t0:.0f} s", file=sys.stderr)
        rows += summarize(name, w, runs, a.labels)
    import csv

    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    with open(a.out, "w", newline="") as fh:
        wr = csv.DictWriter(fh, fieldnames=list(rows[0]))
        wr.writeheader()
        wr.writerows(rows)
    for r in rows:
        print(" ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in r.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
