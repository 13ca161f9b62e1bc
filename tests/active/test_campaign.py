"""A labelling campaign (active/campaign.py, interval.py, files.py; evalrank active plan|estimate)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from cli_run import evalrank
from toy_data import write_campaign_files

from evalrank.active.campaign import Pool, estimate, label_model_check, plan, query_losses
from evalrank.active.estimate import algorithm1
from evalrank.active.interval import interval_from_sums, weighted_interval
from evalrank.metrics import err as err_metric


def make_pool(seed=0, n_queries=150, difference=False, grades=5):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(4, 20, n_queries)
    off = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    n = int(off[-1])
    probs = rng.dirichlet(np.full(grades, 0.5), size=n)
    score_a = rng.random(n) + probs @ np.arange(grades) * 0.3
    score_b = rng.random(n)
    order = lambda s: np.concatenate([off[q] + np.argsort(-s[off[q]:off[q + 1]], kind="stable")  # noqa: E731
                                      for q in range(n_queries)])
    pool = Pool([f"q{i}" for i in range(n_queries)], off, probs, order(score_a), sizes / sizes.mean(),
                order(score_b) if difference else None, "fp")
    return pool, rng


def draw_labels(pool, rng):
    """Labels drawn from the label model itself: a calibrated model."""
    return (rng.random(pool.probs.shape[0])[:, None] > np.cumsum(pool.probs, axis=1)).sum(axis=1)


def truth(pool, labels, measure):
    v = query_losses(labels, pool.offsets, pool.order_a, measure, pool.probs.shape[1])
    if pool.difference:
        v = v - query_losses(labels, pool.offsets, pool.order_b, measure, pool.probs.shape[1])
    return v.mean()


def test_interval_formula_and_its_vectorized_twin():
    rng = np.random.default_rng(1)
    w, v = rng.random(40) + 0.1, rng.random(40)
    a = weighted_interval(w, v)
    est, se, half = interval_from_sums(w.sum(), (w * v).sum(), (w * w).sum(), (w * w * v).sum(),
                                       (w * w * v * v).sum(), 40)
    assert a["estimate"] == pytest.approx(est) and a["stderr"] == pytest.approx(se)
    assert a["ci_high"] - a["estimate"] == pytest.approx(half)
    # passive (equal weights): the textbook s^2 / n; the interval is the one-sample t interval
    p = weighted_interval(np.ones(40), v)
    assert p["stderr"] ** 2 == pytest.approx(v.var(ddof=1) / 40)
    from scipy import stats

    lo, hi = stats.t.interval(0.95, 39, loc=v.mean(), scale=stats.sem(v))
    assert (p["ci_low"], p["ci_high"]) == pytest.approx((lo, hi))
    assert weighted_interval(w, v, exact=True)["stderr"] == 0.0
    with pytest.raises(ValueError, match="no draws"):
        weighted_interval([], [])


def test_plan_spends_at_most_the_budget_and_extends_without_losing_draws():
    pool, _ = make_pool()
    p = plan(pool, budget=20, measure="err", seed=3)
    assert pool.costs[p.labelled].sum() == pytest.approx(p.spent) and p.spent <= 20
    # the same draws as Algorithm 1 with the same stream (one implementation of the loop)
    from evalrank.seeds import rng

    ref = algorithm1(p.q, pool.costs, 20.0, rng(3, "active", "plan"), values=np.zeros(pool.n_queries))
    np.testing.assert_array_equal(ref["queries"], p.draws)
    more = plan(pool, budget=15, measure="err", seed=3, previous=p)
    np.testing.assert_array_equal(more.draws[:p.draws.size], p.draws)
    assert more.settings["budget"] == 35 and more.spent <= 35 and more.labelled.size > p.labelled.size
    np.testing.assert_array_equal(plan(pool, budget=35, measure="err", seed=3).draws, more.draws)
    with pytest.raises(ValueError, match="other settings"):
        plan(pool, budget=5, measure="dcg", seed=3, previous=p)
    whole = plan(pool, budget=pool.costs.sum() + 1, measure="err")
    assert whole.whole_pool and whole.labelled.size == pool.n_queries


def test_losses_equal_the_metrics_module():
    pool, rng = make_pool(2)
    labels = draw_labels(pool, rng)
    ours = query_losses(labels, pool.offsets, pool.order_a, "err@10", 5)
    # scores that reproduce order_a, then the package's ERR
    scores = np.empty(labels.size)
    scores[pool.order_a] = -np.arange(labels.size, dtype=float)
    np.testing.assert_allclose(ours, err_metric(scores, labels, pool.offsets, 10, max_grade=4), rtol=1e-12)


@pytest.mark.parametrize("difference, measure, method, interval", [
    (False, "err", "active", "t"), (False, "dcg", "passive", "t"), (True, "err", "passive", "t"),
    (True, "dcg", "active", "t"), (False, "err", "active", "cs"), (True, "dcg", "active", "cs"),
])
def test_interval_covers_the_truth_about_95_percent(difference, measure, method, interval):
    """Small coverage check (the DAG's study runs >= 1,000 campaigns per cell on the default data):
    labels drawn from a calibrated model, 150 campaigns; the t interval 95 % nominal within a loose
    band, the confidence sequence (valid at every look, so wider at one look) at least as often."""
    pool, rng = make_pool(4, difference=difference)
    cover = 0
    campaigns = 150
    for r in range(campaigns):
        labels = draw_labels(pool, rng)
        e = estimate(plan(pool, budget=30, measure=measure, method=method, seed=r), pool, labels, interval=interval)
        cover += e["ci_low"] <= truth(pool, labels, measure) <= e["ci_high"]
    assert 0.88 <= cover / campaigns <= (0.995 if interval == "t" else 1.0), cover / campaigns


def test_estimate_refuses_unlabelled_planned_queries_and_other_pools():
    pool, rng = make_pool(5)
    p = plan(pool, budget=10, measure="dcg")
    labels = draw_labels(pool, rng)
    labels[pool.offsets[p.labelled[0]]] = -1
    with pytest.raises(ValueError, match=rf"1 planned query has documents without a label \(e.g. \['{pool.qids[p.labelled[0]]}'\]"):
        estimate(p, pool, labels)
    other, _ = make_pool(5)
    other = Pool(other.qids, other.offsets, other.probs, other.order_a, other.costs, None, "another")
    with pytest.raises(ValueError, match="other rankings"):
        estimate(p, other, draw_labels(pool, rng))


def test_label_model_check_flags_an_overconfident_model():
    rng = np.random.default_rng(6)
    mean, var = rng.random(100), np.full(100, 0.01)
    calibrated = mean + rng.normal(0, 0.1, 100)
    c = label_model_check(mean, var, calibrated)
    assert c["ratio"] == pytest.approx(np.mean((calibrated - mean) ** 2) / 0.01) and c["warning"] is None
    wild = mean + rng.normal(0, 0.5, 100)
    assert "overconfident" in label_model_check(mean, var, wild)["warning"]


# -- the CLI on files --------------------------------------------------------------------------
@pytest.fixture
def campaign_files(tmp_path):
    return write_campaign_files(tmp_path, 7)


def draw_rows(path):
    """The draw rows of a plan file (after its '#' header and pool lines and the column header)."""
    lines = [line for line in path.read_text().splitlines() if not line.startswith("#")]
    assert lines[0].split("\t") == ["draw", "qid", "q", "weight", "new", "cost", "cumulative_cost"]
    return [line.split("\t") for line in lines[1:]]


def test_cli_campaign_plan_label_estimate_continue(campaign_files):
    """plan -> estimate (the plan, the qrels and the run only) -> continue (the plan and the budget
    only) -> estimate: the continued plan is the earlier rows + new ones, t_star unchanged, and the
    estimate reports both rounds."""
    d = campaign_files
    common = ["--run", d / "run", "--probs", d / "probs", "--costs", d / "costs"]
    out = evalrank("active", "plan", *common, "--budget", "8", "--measure", "err", "--out", d / "plan.tsv")
    assert out.returncode == 0, out.stderr
    rows = draw_rows(d / "plan.tsv")
    assert sum(float(r[5]) for r in rows) <= 8 and all(r[1].startswith("t") for r in rows)
    out = evalrank("active", "estimate", "--plan", d / "plan.tsv", "--qrels", d / "qrels", "--run", d / "run")
    assert out.returncode == 0, out.stderr
    est = json.loads(out.stdout)
    assert est["ci_low"] <= est["estimate"] <= est["ci_high"] and est["cost_spent"] <= 8
    assert est["labelled_queries"] == len({r[1] for r in rows}) == sum(r[4] == "1" for r in rows)
    assert (est["estimator"], est["interval"], est["warning"]) == ("finite", "cs", None) and "every look" in est["note"]
    assert [r["draws"] for r in est["rounds"]] == [len(rows)]
    out = evalrank("active", "plan", "--continue", d / "plan.tsv", "--budget", "8", "--out", d / "plan2.tsv")
    assert out.returncode == 0, out.stderr
    rows2 = draw_rows(d / "plan2.tsv")
    assert rows2[:len(rows)] == rows and len(rows2) > len(rows)
    from evalrank.active.files import read_plan

    first, second = read_plan(d / "plan.tsv"), read_plan(d / "plan2.tsv")
    assert second.settings["t_star"] == first.settings["t_star"] == len(rows)
    assert second.settings["round_draws"] == [len(rows), len(rows2)] and second.settings["budget"] == 16
    np.testing.assert_array_equal(second.q, first.q)
    out = evalrank("active", "estimate", "--plan", d / "plan2.tsv", "--qrels", d / "qrels", "--run", d / "run")
    assert out.returncode == 0, out.stderr
    est2 = json.loads(out.stdout)
    assert [r["draws"] for r in est2["rounds"]] == [len(rows), len(rows2)]
    assert est2["rounds"][0]["estimate"] == pytest.approx(est["estimate"])   # the first look, unchanged
    assert (est2["rounds"][-1]["ci_low"], est2["rounds"][-1]["ci_high"]) == (est2["ci_low"], est2["ci_high"])
    out = evalrank("active", "plan", "--run", d / "run", "--run-b", d / "runb", "--probs", d / "probs",
                   "--budget", "100", "--measure", "dcg", "--out", d / "pd.tsv")
    assert out.returncode == 0, out.stderr     # a budget above the pool's cost: the whole pool
    out = evalrank("active", "estimate", "--plan", d / "pd.tsv", "--qrels", d / "qrels", "--run", d / "run",
                   "--run-b", d / "runb")
    est = json.loads(out.stdout)
    assert est["exact"] and est["stderr"] == 0 and est["labelled_queries"] == 40 and est["better"] in ("a", "b")


@pytest.mark.parametrize("edit, args, match", [
    (("probs", lambda s: s.split("\n", 1)[1]), "plan", r"run:1: document 'D0-0' of query 't0' has no probabilities"),
    (("probs", lambda s: "t0 D0-0 0.5 0.5 0.5\n" + s.split("\n", 1)[1]), "plan", r"probs:1: probabilities sum to 1.5"),
    (("costs", lambda s: s.replace("t3 ", "t3 -", 1)), "plan", r"costs:4: cost must be > 0"),
    (("qrels", lambda s: s + "zz 0 D1 1\n"), "estimate", r"qrels:\d+: topic 'zz' is not a query of the run"),
    (("qrels", lambda s: "\n".join(s.splitlines()[::2]) + "\n"), "estimate",
     r"planned quer(y has|ies have) documents without a label"),
])
def test_cli_bad_inputs_name_file_and_line(campaign_files, edit, args, match):
    d = campaign_files
    common = ["--run", d / "run", "--probs", d / "probs", "--costs", d / "costs"]
    assert evalrank("active", "plan", *common, "--budget", "8", "--out", d / "plan.tsv").returncode == 0
    name, change = edit
    (d / name).write_text(change((d / name).read_text()))
    if args == "plan":
        out = evalrank("active", "plan", *common, "--budget", "8", "--out", d / "p2.tsv")
    else:
        out = evalrank("active", "estimate", "--plan", d / "plan.tsv", "--qrels", d / "qrels", "--run", d / "run")
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert out.stderr.startswith(f"evalrank active {args}: error: ") and __import__("re").search(match, out.stderr), \
        out.stderr


def test_cli_a_plan_made_for_another_run_is_refused(campaign_files):
    d = campaign_files
    assert evalrank("active", "plan", "--run", d / "run", "--probs", d / "probs", "--budget", "5", "--out",
                    d / "plan.tsv").returncode == 0
    out = evalrank("active", "estimate", "--plan", d / "plan.tsv", "--qrels", d / "qrels", "--run", d / "runb")
    assert out.returncode == 1 and f"{d / 'plan.tsv'}: the plan was made for other runs" in out.stderr
    out = evalrank("active", "estimate", "--plan", d / "plan.tsv", "--qrels", d / "qrels", "--run", d / "run",
                   "--run-b", d / "runb")
    assert out.returncode == 1 and "the plan was made for one ranker: leave out --run-b" in out.stderr


def test_calibrated_label_model_and_sawade_costs_from_lengths(campaign_files):
    from evalrank.active.costs import query_costs
    from evalrank.active.files import calibrated_probs, pool_from_trec
    from evalrank.models.calibrate import GradeCalibrator

    d = campaign_files
    run = [line.split() for line in (d / "run").read_text().splitlines()]
    (d / "lengths").write_text("".join(f"{f[0]} {f[2]} {100 + 37 * i % 900}\n" for i, f in enumerate(run)))
    table = calibrated_probs(d / "run", d / "qrels")
    # the same as fitting the calibrator by hand on the run's judged documents
    grades = {(f[0], f[2]): int(f[3]) for f in (line.split() for line in (d / "qrels").read_text().splitlines())}
    scores = np.array([float(f[4]) for f in run])
    cal = GradeCalibrator(n_grades=3).fit(scores, np.array([grades[(f[0], f[2])] for f in run]))
    want = cal.predict_proba(scores)
    np.testing.assert_allclose(np.vstack([table[(f[0], f[2])][0] for f in run]), want, atol=1e-12)
    pool, ids = pool_from_trec(d / "run", table, lengths=d / "lengths")
    lengths = {(f[0], f[2]): 100 + 37 * i % 900 for i, f in enumerate(run)}
    np.testing.assert_allclose(pool.costs, query_costs(np.array([lengths[k] for k in ids]), pool.offsets))
    out = evalrank("active", "plan", "--run", d / "run", "--calibrate-from", d / "qrels", "--lengths", d / "lengths",
                   "--budget", "6", "--out", d / "plan.tsv")
    assert out.returncode == 0, out.stderr
    out = evalrank("active", "estimate", "--plan", d / "plan.tsv", "--qrels", d / "qrels", "--run", d / "run")
    assert out.returncode == 0, out.stderr
    both = evalrank("active", "plan", "--run", d / "run", "--probs", d / "probs", "--calibrate-from", d / "qrels",
                    "--budget", "6", "--out", d / "p.tsv")
    assert both.returncode == 1 and "one of them" in both.stderr


def test_label_model_from_a_zoo_model_on_letor_features(tmp_path):
    from toy_data import toy_collection

    from evalrank.active.files import model_probs
    from evalrank.data.collection import Collection
    from evalrank.data.letor import write_letor
    from evalrank.models.forest import RandomForestModel
    from evalrank.models.zoo import save_model

    train, vali, test = (toy_collection(20, s) for s in (1, 2, 3))
    model = RandomForestModel(n_estimators=5, min_samples_leaf=4).fit(train, vali, grid={}, seed=3)
    save_model(model, tmp_path / "rf.pkl")
    ids = np.array([f"doc{i}" for i in range(test.labels.size)])
    test = Collection(features=test.features, labels=test.labels, offsets=test.offsets, qids=test.qids, doc_ids=ids)
    write_letor(tmp_path / "test.txt", test)
    table = model_probs(tmp_path / "test.txt", tmp_path / "rf.pkl")
    qids = np.repeat(test.qids, np.diff(test.offsets)).astype(str)
    want = model.predict_proba(test.features)
    np.testing.assert_allclose(np.vstack([table[(q, d)][0] for q, d in zip(qids, ids)]), want, atol=1e-6)
    scores = model.score(test.features)
    (tmp_path / "run").write_text("".join(f"{q} Q0 {d} 1 {s:.6f} rf\n" for q, d, s in zip(qids, ids, scores)))
    out = evalrank("active", "plan", "--run", tmp_path / "run", "--letor", tmp_path / "test.txt", "--model",
                   tmp_path / "rf.pkl", "--budget", "5", "--out", tmp_path / "plan.tsv")
    assert out.returncode == 0, out.stderr


def test_few_draws_are_flagged_for_the_t_interval_only():
    """The t interval with few draws warns; the confidence sequence (its variance floored by the
    label model's prediction) says instead that it holds at every look."""
    pool, rng = make_pool(8)
    labels = draw_labels(pool, rng)
    few = estimate(plan(pool, budget=8, measure="err"), pool, labels, interval="t")
    assert few["draws"] <= 50 and "only" in few["warning"]
    many = estimate(plan(pool, budget=100, measure="err"), pool, labels, interval="t")
    assert many["draws"] > 50 and many["warning"] is None
    cs = estimate(plan(pool, budget=8, measure="err"), pool, labels)
    assert cs["warning"] is None and "every look" in cs["note"] and cs["interval"] == "cs"


def test_the_pool_ranks_as_trec_eval_ranks(tmp_path):
    """score (compared in float32) then docno, both descending; file order plays no part."""
    from evalrank.active.files import pool_from_trec

    (tmp_path / "run").write_text("q Q0 d10 1 0.5 t\nq Q0 d9 2 0.5 t\nq Q0 a 3 0.50000001 t\nq Q0 z 4 0.9 t\n")
    (tmp_path / "probs").write_text("".join(f"q {d} 0.5 0.5\n" for d in ("d10", "d9", "a", "z")))
    pool, ids = pool_from_trec(tmp_path / "run", tmp_path / "probs")
    assert [ids[i][1] for i in pool.order_a] == ["z", "d9", "d10", "a"]
