"""A campaign's plan file cannot be silently wrong (evalrank.active.files, format 2), and the files
people write are read as they mean them: a cut, edited, duplicated or deleted row, or edited
settings, stop both `estimate` and `plan --continue` with the file and line; probabilities written
with %.6f are renormalised; negative grades are refused."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from cli_run import evalrank
from toy_data import write_campaign_files

from evalrank.active.campaign import (Pool, estimate, extend, measure_range, plan, query_losses, term_bounds)
from evalrank.active.files import pool_from_trec, read_plan, write_plan


@pytest.fixture
def files(tmp_path):
    """40 topics, two runs over the same documents, a calibrated label model (repr floats), qrels
    of every document, costs."""
    return write_campaign_files(tmp_path, 11)


def make_plan(d, budget="8", out="plan.tsv", *extra):
    res = evalrank("active", "plan", "--run", d / "run", "--probs", d / "probs", "--costs", d / "costs",
                   "--budget", budget, *extra, "--out", d / out)
    assert res.returncode == 0, res.stderr
    return d / out


def first_row_line(lines) -> int:
    """Index (0-based) of the first draw row: the line after the column header."""
    return next(i for i, line in enumerate(lines) if line.startswith("draw\t")) + 1


def _settings_edit(key, value):
    def edit(lines):
        s = json.loads(lines[1][len("# settings "):])
        s[key] = value
        lines[1] = "# settings " + json.dumps(s, sort_keys=True)
        return lines, 4, r"the plan was edited: the digest does not match the settings \(line 2\)"
    return edit


def _cut(lines):
    return lines[:-2], len(lines) - 1, r"the plan is cut: \d+ draw rows, its settings give \d+"


def _deleted(lines):
    i = first_row_line(lines) + 3
    return lines[:i] + lines[i + 1:], i + 1, r"this row differs from the draws its seed, q and budget give"


def _duplicated(lines):
    i = first_row_line(lines) + 3
    return lines[:i + 1] + [lines[i]] + lines[i + 1:], i + 2, r"this row differs from the draws"


def _duplicated_last(lines):
    return lines + [lines[-1]], len(lines) + 1, r"a row beyond the plan's \d+ draws \(a row was duplicated or added\)"


def _edited_qid(lines):
    i = first_row_line(lines) + 2
    f = lines[i].split("\t")
    other = "t0" if f[1] != "t0" else "t1"
    lines[i] = "\t".join([f[0], other, *f[2:]])
    return lines, i + 1, rf"query '{other}', the plan's draw {f[0]} is query '{f[1]}'"


def _edited_weight(lines):
    i = first_row_line(lines) + 1
    f = lines[i].split("\t")
    lines[i] = "\t".join([*f[:3], repr(float(f[3]) * 2), *f[4:]])
    return lines, i + 1, r"this row differs from the draws"


def _edited_pool_line(lines):
    i = next(i for i, line in enumerate(lines) if line.startswith("#p\t"))
    f = lines[i].split("\t")
    lines[i] = "\t".join([*f[:3], repr(float(f[3]) + 0.1), *f[4:]])   # the label model's f of one query
    return lines, 4, r"the plan was edited: the digest does not match"


TAMPERING = {
    "cut": _cut, "deleted_row": _deleted, "duplicated_row": _duplicated, "duplicated_last_row": _duplicated_last,
    "edited_qid": _edited_qid, "edited_weight": _edited_weight, "edited_budget": _settings_edit("budget", 20.0),
    "edited_seed": _settings_edit("seed", 1), "edited_pool_line": _edited_pool_line,
}


@pytest.mark.parametrize("command", ["estimate", "continue"])
@pytest.mark.parametrize("tamper", sorted(TAMPERING))
def test_a_tampered_plan_is_refused_with_its_file_and_line(files, tamper, command):
    d = files
    path = make_plan(d)
    assert evalrank("active", "estimate", "--plan", path, "--qrels", d / "qrels", "--run", d / "run").returncode == 0
    lines, line, message = TAMPERING[tamper](path.read_text().splitlines())
    path.write_text("\n".join(lines) + "\n")
    if command == "estimate":
        out = evalrank("active", "estimate", "--plan", path, "--qrels", d / "qrels", "--run", d / "run")
        prefix = "evalrank active estimate: error: "
    else:
        out = evalrank("active", "plan", "--continue", path, "--budget", "5", "--out", d / "plan2.tsv")
        prefix = "evalrank active plan: error: "
        assert not (d / "plan2.tsv").exists()
    assert out.returncode == 1 and out.stdout == "" and out.stderr.count("\n") == 1, out.stderr
    assert out.stderr.startswith(f"{prefix}{path}:{line}: "), out.stderr
    assert re.search(message, out.stderr), out.stderr


def test_settings_edited_with_a_recomputed_digest_still_do_not_match_the_draws(files):
    """The digest only says that a line changed; the draws are recomputed from the settings."""
    from evalrank.active import files as plan_files

    d = files
    path = make_plan(d)
    lines = path.read_text().splitlines()
    s = json.loads(lines[1][len("# settings "):])
    s["budget"] = 20.0
    lines[1] = "# settings " + json.dumps(s, sort_keys=True)
    start = lines.index(plan_files.POOL_HEADER) + 1
    end = first_row_line(lines) - 1
    lines[3] = plan_files.DIGEST_PREFIX + plan_files._digest(lines[1], lines[2], lines[start:end])
    path.write_text("\n".join(lines) + "\n")
    out = evalrank("active", "estimate", "--plan", path, "--qrels", d / "qrels", "--run", d / "run")
    assert out.returncode == 1
    assert re.search(rf"{re.escape(str(path))}:2: the settings do not match the plan's draws: budget 20.0 is not the "
                     r"sum of the rounds' budgets", out.stderr), out.stderr


def test_an_old_plan_is_refused_clearly(files):
    (files / "old.tsv").write_text("# evalrank active plan\n# settings {}\ndraw\tqid\n")
    out = evalrank("active", "estimate", "--plan", files / "old.tsv", "--qrels", files / "qrels", "--run",
                   files / "run")
    assert out.returncode == 1 and f"{files / 'old.tsv'}:1: a plan of an older evalrank (format 1" in out.stderr


def test_plans_round_trip_exactly_the_whole_pool_too(files):
    d = files
    pool, _ = pool_from_trec(d / "run", d / "probs", costs=d / "costs")
    for budget in (6.0, float(pool.costs.sum()) + 1):
        p = plan(pool, budget=budget, measure="dcg@5", method="active", seed=4)
        write_plan(d / "p.tsv", p)
        back = read_plan(d / "p.tsv")
        for name in ("q", "costs", "f", "var", "draws"):
            np.testing.assert_array_equal(getattr(back, name), getattr(p, name))
        assert back.settings == p.settings and back.qids == p.qids
        assert (back.spent, back.whole_pool, back.exhausted, back.capped) == (p.spent, p.whole_pool, p.exhausted,
                                                                              p.capped)
    assert back.whole_pool and back.draws.size == pool.n_queries
    assert "# largest importance weight " in (d / "p.tsv").read_text().splitlines()[2]


def test_a_plan_carries_the_floor_the_label_model_and_the_first_rounds_draws(files):
    from evalrank.active.campaign import DEFAULT_EPSILON, moments, sampling_distribution
    from evalrank.active.sampling import defensive, max_weight

    pool, _ = pool_from_trec(files / "run", files / "probs", costs=files / "costs")
    p = plan(pool, budget=8, measure="err", seed=2)
    assert p.settings["epsilon"] == DEFAULT_EPSILON
    np.testing.assert_array_equal(p.q, defensive(sampling_distribution(pool, "err", "active"), DEFAULT_EPSILON))
    assert p.settings["max_weight"] == max_weight(p.q) <= 1 / DEFAULT_EPSILON + 1e-9
    f, var = moments(pool, "err")
    np.testing.assert_array_equal(p.f, f)
    np.testing.assert_array_equal(p.var, var)
    assert p.settings["f_pool"] == float(np.mean(f)) and p.settings["n_grades"] == 3
    np.testing.assert_array_equal(plan(pool, budget=8, method="passive").q, np.full(40, 1 / 40))
    more = extend(extend(p, 5), 4)
    np.testing.assert_array_equal(more.draws[:p.draws.size], p.draws)
    assert more.settings["t_star"] == p.draws.size and more.settings["rounds"] == 3
    assert more.settings["round_budgets"] == [8.0, 5.0, 4.0] and more.settings["budget"] == 17.0
    np.testing.assert_array_equal(plan(pool, budget=17, measure="err", seed=2).draws, more.draws)
    with pytest.raises(ValueError, match="other settings"):
        plan(pool, budget=5, measure="err", seed=2, previous=p, epsilon=0.2)


def test_continue_needs_only_the_plan_and_checks_inputs_given_with_it(files):
    from evalrank.active.campaign import DEFAULT_EPSILON

    d = files
    path = make_plan(d)
    same = evalrank("active", "plan", "--continue", path, "--budget", "3", "--run", d / "run", "--probs", d / "probs",
                    "--costs", d / "costs", "--out", d / "a.tsv")
    alone = evalrank("active", "plan", "--continue", path, "--budget", "3", "--out", d / "b.tsv")
    assert same.returncode == alone.returncode == 0, same.stderr + alone.stderr
    assert (d / "a.tsv").read_text() == (d / "b.tsv").read_text()
    for args, message in [
        (["--run", d / "runb"], "the plan was made for other runs"),
        (["--run", d / "run", "--probs", d / "probs"], "another label model or other costs"),
        (["--probs", d / "probs"], "give no inputs (the plan has them) or --run"),
        (["--measure", "dcg"], "--measure dcg differs from the plan's err"),
        (["--epsilon", "0.3"], f"--epsilon 0.3 differs from the plan's {DEFAULT_EPSILON}"),
    ]:
        out = evalrank("active", "plan", "--continue", path, "--budget", "3", *args, "--out", d / "c.tsv")
        assert out.returncode == 1 and message in out.stderr and out.stderr.count("\n") == 1, (args, out.stderr)
    out = evalrank("active", "plan", "--budget", "3", "--probs", d / "probs", "--out", d / "c.tsv")
    assert out.returncode == 1 and "--run is required for a new plan" in out.stderr


def test_probabilities_written_with_six_decimals_are_renormalised_once(files):
    d = files
    rows = [line.split() for line in (d / "probs").read_text().splitlines()]
    (d / "probs").write_text("".join(f"{r[0]} {r[1]} " + " ".join(f"{float(x):.6f}" for x in r[2:]) + "\n"
                                     for r in rows))
    out = evalrank("active", "plan", "--run", d / "run", "--probs", d / "probs", "--budget", "5", "--out",
                   d / "p.tsv")
    assert out.returncode == 0, out.stderr
    said = [line for line in out.stderr.splitlines() if "renormalised" in line]
    assert len(said) == 1 and re.search(r"\d+ rows of probabilities summed to 1 only within 0.001 \(largest "
                                        r"deviation [0-9.e-]+", said[0]), out.stderr
    from evalrank.active.files import read_probs

    table = read_probs(d / "probs")
    assert all(abs(p.sum() - 1) < 1e-12 for p, _ in table.values())
    first = rows[0][2:]
    bad = f"{rows[0][0]} {rows[0][1]} {float(first[0]) + 0.002:.6f} " + " ".join(first[1:]) + "\n"
    (d / "probs").write_text(bad + "".join(" ".join(r) + "\n" for r in rows[1:]))
    out = evalrank("active", "plan", "--run", d / "run", "--probs", d / "probs", "--budget", "5", "--out",
                   d / "p.tsv")
    assert out.returncode == 1 and f"{d / 'probs'}:1: probabilities sum to 1.002" in out.stderr, out.stderr


def test_a_negative_grade_is_refused_with_its_line(files):
    d = files
    path = make_plan(d)
    lines = (d / "qrels").read_text().splitlines()
    f = lines[4].split()
    lines[4] = " ".join([*f[:3], "-1"])
    (d / "qrels").write_text("\n".join(lines) + "\n")
    out = evalrank("active", "estimate", "--plan", path, "--qrels", d / "qrels", "--run", d / "run")
    assert out.returncode == 1 and f"{d / 'qrels'}:5: grade -1 is negative" in out.stderr, out.stderr


def test_two_runs_with_different_documents(tmp_path):
    """Each ranker ranks its own documents (the pool is their union): the exact whole-pool value
    is the mean of the hand-computed DCG differences."""
    (tmp_path / "a").write_text("q1 Q0 d1 1 3 a\nq1 Q0 d2 2 2 a\nq2 Q0 e1 1 1 a\n")
    (tmp_path / "b").write_text("q1 Q0 d3 1 3 b\nq1 Q0 d1 2 2 b\nq2 Q0 e1 1 1 b\n")
    (tmp_path / "probs").write_text("q1 d1 0.2 0.3 0.5\nq1 d2 0.6 0.3 0.1\nq1 d3 0.3 0.4 0.3\nq2 e1 0.5 0.25 0.25\n")
    (tmp_path / "qrels").write_text("q1 0 d1 2\nq1 0 d2 0\nq1 0 d3 1\nq2 0 e1 1\n")
    run = ["--run", tmp_path / "a", "--run-b", tmp_path / "b"]
    out = evalrank("active", "plan", *run, "--probs", tmp_path / "probs", "--measure", "dcg", "--budget", "1",
                   "--out", tmp_path / "p1.tsv")
    assert out.returncode == 0, out.stderr
    out = evalrank("active", "plan", *run, "--probs", tmp_path / "probs", "--measure", "dcg", "--budget", "2",
                   "--out", tmp_path / "p.tsv")
    assert out.returncode == 0, out.stderr
    out = evalrank("active", "estimate", "--plan", tmp_path / "p.tsv", "--qrels", tmp_path / "qrels", *run)
    assert out.returncode == 0, out.stderr
    dcg_a, dcg_b = 3.0, 1.0 + 3.0 / np.log2(3)
    est = json.loads(out.stdout)
    assert est["exact"] and est["estimate"] == pytest.approx((dcg_a - dcg_b) / 2, rel=1e-12)


def test_betting_bounds_hold_every_term(files):
    """The range of the AIPW terms (measure_range, term_bounds) holds for any labels."""
    from evalrank.active.estimators import aipw_terms

    pool, _ = pool_from_trec(files / "run", files / "probs", run_b=files / "runb")
    for measure in ("dcg", "dcg@3", "err", "ndcg@5"):
        p = plan(pool, budget=10, measure=measure)
        lo, hi = term_bounds(p, *measure_range(pool, measure, 3))
        rng = np.random.default_rng(0)
        for labels in (np.zeros(pool.probs.shape[0], int), np.full(pool.probs.shape[0], 2),
                       rng.integers(0, 3, pool.probs.shape[0])):
            v = (query_losses(labels, pool.offsets_a, pool.order_a, measure, 3, pool.offsets)
                 - query_losses(labels, pool.offsets_b, pool.order_b, measure, 3, pool.offsets))
            x = np.arange(pool.n_queries)
            psi = aipw_terms(1 / (pool.n_queries * p.q), v, p.f, p.settings["f_pool"])
            assert lo - 1e-12 <= psi[x].min() and psi[x].max() <= hi + 1e-12, measure
        res = estimate(p, pool, rng.integers(0, 3, pool.probs.shape[0]), interval="betting")
        assert res["ci_low"] <= res["ci_high"] and res["interval"] == "betting"


def test_eq6_with_the_t_interval_is_the_papers_estimate(files):
    from evalrank.active.interval import weighted_interval

    pool, _ = pool_from_trec(files / "run", files / "probs", costs=files / "costs")
    p = plan(pool, budget=15, measure="err", seed=1)
    labels = np.random.default_rng(3).integers(0, 3, pool.probs.shape[0])
    v = query_losses(labels, pool.offsets, pool.order_a, "err", 3)
    ref = weighted_interval(p.weights, v[p.draws])
    res = estimate(p, pool, labels, estimator="eq6", interval="t")
    assert (res["estimate"], res["ci_low"], res["ci_high"]) == pytest.approx((ref["estimate"], ref["ci_low"],
                                                                              ref["ci_high"]))
    assert res["rounds"][-1]["ci_low"] == pytest.approx(ref["ci_low"])
    with pytest.raises(ValueError, match="betting interval needs the aipw estimator"):
        estimate(p, pool, labels, estimator="eq6", interval="betting")


def test_default_estimator_by_quantity_and_hajek_is_eq6_on_the_residuals(files):
    """auto: finite with the confidence sequence; with t hajek for one ranker, aipw for a difference
    (aipw with betting); hajek's estimate and
    intervals (t and confidence sequence) are eq. 6's on the values L - f + f_pool, computed here
    by weighted_interval and asymptotic_cs from the plan's draws."""
    from evalrank.active.campaign_estimate import predicted_term_variance
    from evalrank.active.confseq import asymptotic_cs
    from evalrank.active.interval import weighted_interval

    one, _ = pool_from_trec(files / "run", files / "probs", costs=files / "costs")
    p = plan(one, budget=15, measure="err", seed=1)
    labels = np.random.default_rng(3).integers(0, 3, one.probs.shape[0])
    v = query_losses(labels, one.offsets, one.order_a, "err", 3)
    h = v[p.draws] - p.f[p.draws] + p.settings["f_pool"]
    assert estimate(p, one, labels)["estimator"] == "finite"
    assert estimate(p, one, labels, interval="t") == estimate(p, one, labels, estimator="hajek", interval="t")
    auto = estimate(p, one, labels, estimator="hajek")
    ref = weighted_interval(p.weights, h)
    res = estimate(p, one, labels, estimator="hajek", interval="t")
    assert (res["estimate"], res["ci_low"], res["ci_high"]) == pytest.approx((ref["estimate"], ref["ci_low"],
                                                                              ref["ci_high"]), rel=1e-12)
    est = ref["estimate"]
    psi = est + p.weights * (h - est) / p.weights.mean()
    cs = asymptotic_cs(psi, t_star=int(p.settings["t_star"]), var_floor=predicted_term_variance(p.q, p.var))
    assert auto["estimate"] == pytest.approx(est, rel=1e-12)
    assert (auto["ci_low"], auto["ci_high"]) == pytest.approx((est - cs["half"][-1], est + cs["half"][-1]), rel=1e-12)
    assert estimate(p, one, labels, interval="betting")["estimator"] == "aipw"
    with pytest.raises(ValueError, match="betting interval needs the aipw estimator"):
        estimate(p, one, labels, estimator="hajek", interval="betting")
    with pytest.raises(ValueError, match="estimator must be one of"):
        estimate(p, one, labels, estimator="mean")
    two, _ = pool_from_trec(files / "run", files / "probs", run_b=files / "runb")
    p2 = plan(two, budget=10, measure="err")
    assert estimate(p2, two, labels[:two.probs.shape[0]])["estimator"] == "finite"
    assert estimate(p2, two, labels[:two.probs.shape[0]], interval="t")["estimator"] == "aipw"


def test_a_campaign_continued_to_the_whole_pool_reports_its_earlier_rounds(files):
    d = files
    path = make_plan(d)
    out = evalrank("active", "plan", "--continue", path, "--budget", "1000", "--out", d / "all.tsv")
    assert out.returncode == 0, out.stderr
    out = evalrank("active", "estimate", "--plan", d / "all.tsv", "--qrels", d / "qrels", "--run", d / "run")
    assert out.returncode == 0, out.stderr
    est = json.loads(out.stdout)
    first = json.loads(evalrank("active", "estimate", "--plan", path, "--qrels", d / "qrels", "--run",
                                d / "run").stdout)
    assert est["exact"] and [r["round"] for r in est["rounds"]] == [1, 2]
    assert {k: est["rounds"][0][k] for k in ("draws", "estimate", "ci_low", "ci_high")} == \
        {k: first[k] if k != "draws" else first["draws"] for k in ("draws", "estimate", "ci_low", "ci_high")}
    assert est["rounds"][1]["ci_low"] == est["rounds"][1]["ci_high"] == est["estimate"]


def test_pool_checks_each_rankers_offsets():
    probs = np.full((3, 2), 0.5)
    with pytest.raises(ValueError, match="offsets_a must have one entry per query"):
        Pool(["q"], np.array([0, 3]), probs, np.array([0, 1]), np.ones(1))
    Pool(["q"], np.array([0, 3]), probs, np.array([0, 1]), np.ones(1), offsets_a=np.array([0, 2]))
