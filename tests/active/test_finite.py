"""The finite-population estimator and its confidence sequence (evalrank.active.finite): unbiased
term by term (brute force over every draw sequence), the sample mean under uniform sampling,
exact once the pool is labelled, and a confidence sequence that holds at every look in a skewed
world with a useless label model (Monte Carlo), where the previous default's did not."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from cli_run import evalrank
from toy_data import write_campaign_files

from evalrank.active import finite
from evalrank.active.finite import desraj_terms, distinct_order, finite_estimate


def _sequences(q, n):
    """Every ordered sequence of ``n`` distinct queries and its probability under successive
    sampling from ``q`` (draw from q, skip the labelled)."""
    for seq in itertools.permutations(range(q.size), n):
        p, left = 1.0, 1.0
        for x in seq:
            p *= q[x] / left
            left -= q[x]
        yield np.array(seq), p


def test_every_term_and_the_weighted_mean_are_unbiased_brute_force():
    rng = np.random.default_rng(1)
    N = 6
    q = rng.dirichlet(np.ones(N))
    L = rng.gamma(0.5, 3.0, N)
    f = L + rng.normal(0, 2.0, N)            # a noisy model
    lo, hi = np.zeros(N), np.full(N, 40.0)
    R = L.mean()
    n = 4
    expect_phi = np.zeros(n)
    expect_mean = np.zeros(n)
    total = 0.0
    for seq, p in _sequences(q, n):
        t = desraj_terms(q, seq, L[seq], f, lo, hi)
        w = t["weight"]
        expect_phi += p * t["phi"]
        expect_mean += p * np.cumsum(w * t["phi"]) / np.cumsum(w)
        total += p
        assert (t["low"] <= t["phi"] + 1e-12).all() and (t["phi"] <= t["high"] + 1e-12).all()
        assert (t["r_low"] <= R + 1e-12).all() and (R <= t["r_high"] + 1e-12).all()
    assert total == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(expect_phi, R, rtol=1e-12)
    np.testing.assert_allclose(expect_mean, R, rtol=1e-12)


def test_uniform_sampling_without_a_model_is_the_sample_mean():
    rng = np.random.default_rng(2)
    N = 50
    L = rng.random(N)
    q = np.full(N, 1.0 / N)
    seq = rng.permutation(N)[:20]
    t = desraj_terms(q, seq, L[seq], np.full(N, 0.3), np.zeros(N), np.ones(N))
    w = t["weight"]
    np.testing.assert_allclose(np.cumsum(w * t["phi"]) / np.cumsum(w), np.cumsum(L[seq]) / np.arange(1, 21),
                               rtol=1e-12)


def test_labelling_the_whole_pool_is_exact_with_width_zero():
    rng = np.random.default_rng(3)
    N = 30
    L = rng.gamma(0.5, 3.0, N)
    q = rng.dirichlet(np.ones(N)) * 0.9 + 0.1 / N
    draws = rng.choice(N, size=2000, p=q)
    assert np.unique(draws).size == N
    r = finite_estimate(q, draws, L, L * 0.5, np.zeros(N), np.full(N, 50.0))
    assert r["estimate"][-1] == pytest.approx(L.mean(), rel=1e-12)
    assert r["ci_low"][-1] == r["ci_high"][-1] == r["estimate"][-1]
    # nearly exhausted: nearly that (the bounds the labels give outright)
    assert r["ci_high"][-2] - r["ci_low"][-2] <= 50.0 / N + 1e-9
    seq, at = distinct_order(draws)
    assert np.array_equal(np.sort(seq), np.arange(N)) and (np.diff(at) > 0).all() and at[0] == 1


def test_a_value_outside_its_range_and_a_zero_q_are_refused():
    q = np.full(3, 1 / 3)
    with pytest.raises(ValueError, match="outside its measure range"):
        desraj_terms(q, [0], [5.0], np.zeros(3), np.zeros(3), np.ones(3))
    with pytest.raises(ValueError, match="q must be > 0"):
        desraj_terms(np.array([0.5, 0.5, 0.0]), [0], [0.5], np.zeros(3), np.zeros(3), np.ones(3))
    with pytest.raises(ValueError, match="distinct"):
        desraj_terms(q, [0, 0], [0.5, 0.5], np.zeros(3), np.zeros(3), np.ones(3))


def _skewed_world(seed=7, N=300):
    """A pool whose values have a long right tail (12 % 'rich' queries), a useless label model
    (one value for every query) and a q that does not know the tail (proportional to a random
    cost's inverse square root, floored)."""
    rng = np.random.default_rng(seed)
    rich = rng.random(N) < 0.12
    L = np.where(rich, rng.uniform(20, 60, N), rng.gamma(0.7, 1.0, N))
    cost = rng.uniform(0.5, 2.0, N)
    q = 1.0 / np.sqrt(cost)
    q = 0.95 * q / q.sum() + 0.05 / N
    return q, L, np.full(N, L.mean() * 0.3), np.zeros(N), np.full(N, 80.0)


def _coverage(campaigns=150, labels=80, **world):
    q, L, f, lo, hi = _skewed_world(**world)
    R = L.mean()
    rng = np.random.default_rng(11)
    simultaneous = 0
    for _ in range(campaigns):
        draws = rng.choice(q.size, size=labels * 3, p=q)
        r = finite_estimate(q, draws, L, f, lo, hi, t_star=10)
        inside = (r["ci_low"] <= R) & (R <= r["ci_high"])
        simultaneous += bool(inside[9:labels].all())
    return simultaneous / campaigns


def test_the_sequence_holds_at_every_look_with_a_useless_model():
    """Every look from the 10th label to the 80th at once, 150 campaigns: at least 0.95 within
    the Monte Carlo error (the benchmark, benchmarks/campaign_worlds.py, runs 1,000 per world).
    The same world with the asymptotic part from the 10th label misses (the check can fail)."""
    assert _coverage() >= 0.93


def test_the_asymptotic_part_alone_would_miss_there(monkeypatch):
    monkeypatch.setattr(finite, "ASYMPTOTIC_FROM", 10)
    assert _coverage() < 0.9


# -- through the command line --------------------------------------------------------------------
@pytest.fixture
def files(tmp_path):
    return write_campaign_files(tmp_path, 11)


def _plan(d, *extra, out="plan.tsv"):
    res = evalrank("active", "plan", "--run", d / "run", "--probs", d / "probs", "--costs", d / "costs", *extra,
                   "--out", d / out)
    assert res.returncode == 0, res.stderr
    return res


def test_estimate_finite_through_the_cli_and_whole_pool_exact(files):
    d = files
    _plan(d, "--budget", "8")
    out = evalrank("active", "estimate", "--plan", d / "plan.tsv", "--qrels", d / "qrels", "--run", d / "run",
                   "--estimator", "finite")
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    assert res["estimator"] == "finite" and res["ci_low"] <= res["estimate"] <= res["ci_high"]
    assert res["rounds"][-1]["labelled"] == res["labelled_queries"]
    _plan(d, "--budget", "1000", out="whole.tsv")
    whole = json.loads(evalrank("active", "estimate", "--plan", d / "whole.tsv", "--qrels", d / "qrels", "--run",
                                d / "run", "--estimator", "finite").stdout)
    ref = json.loads(evalrank("active", "estimate", "--plan", d / "whole.tsv", "--qrels", d / "qrels", "--run",
                              d / "run").stdout)
    assert whole["exact"] and whole["ci_low"] == whole["ci_high"] == pytest.approx(ref["estimate"], rel=1e-12)
    bad = evalrank("active", "estimate", "--plan", d / "plan.tsv", "--qrels", d / "qrels", "--run", d / "run",
                   "--estimator", "finite", "--interval", "t")
    assert bad.returncode == 1 and "own confidence sequence" in bad.stderr


def test_passive_eq6_with_the_confidence_sequence_is_refused(files):
    d = files
    _plan(d, "--budget", "8", "--method", "passive")
    out = evalrank("active", "estimate", "--plan", d / "plan.tsv", "--qrels", d / "qrels", "--run", d / "run",
                   "--estimator", "eq6")
    assert out.returncode == 1 and "refused for a passive plan" in out.stderr, out.stderr
    ok = evalrank("active", "estimate", "--plan", d / "plan.tsv", "--qrels", d / "qrels", "--run", d / "run",
                  "--estimator", "eq6", "--interval", "t")
    assert ok.returncode == 0 and "valid once" in json.loads(ok.stdout)["note"]


def test_a_document_judged_twice_is_refused_with_both_lines(files):
    d = files
    _plan(d, "--budget", "8")
    lines = (d / "qrels").read_text().splitlines()
    f = lines[2].split()
    lines.append(" ".join([*f[:3], str((int(f[3]) + 1) % 3)]))
    (d / "qrels").write_text("\n".join(lines) + "\n")
    out = evalrank("active", "estimate", "--plan", d / "plan.tsv", "--qrels", d / "qrels", "--run", d / "run")
    assert out.returncode == 1, out.stdout
    assert f"{d / 'qrels'}:{len(lines)}: document '{f[2]}' of topic '{f[0]}' is judged twice (first on line 3" \
        in out.stderr, out.stderr


def test_plan_lists_and_writes_the_new_queries_of_each_round(files):
    d = files
    first = _plan(d, "--budget", "8", "--new-queries", d / "new1.txt")
    new1 = (d / "new1.txt").read_text().split()
    assert new1 and "new queries to label in this round: " + " ".join(new1[:20]) in first.stderr
    res = evalrank("active", "plan", "--continue", d / "plan.tsv", "--budget", "6", "--out", d / "plan2.tsv",
                   "--new-queries", d / "new2.txt")
    assert res.returncode == 0, res.stderr
    new2 = (d / "new2.txt").read_text().split()
    rows = [line.split("\t") for line in (d / "plan2.tsv").read_text().splitlines()
            if line and not line.startswith("#")]
    head = rows[0]
    labelled = [r[head.index("qid")] for r in rows[1:] if r[head.index("new")] == "1"]
    assert not set(new1) & set(new2) and labelled == new1 + new2


def _readme_walkthrough() -> str:
    """The README's labelling walk-through: the bash block under 'A labelling campaign on your own runs'."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    start = text.index("### A labelling campaign on your own runs")
    block = text[text.index("```bash\n", start) + len("```bash\n"):]
    return block[:block.index("```")]


def test_the_readme_walkthrough_runs_as_printed(tmp_path):
    """Every command of the walk-through, verbatim, in a shell (the installed `evalrank`), on toy
    files named as the README names them; the labels hold every document's grade, so rounds 1 and
    2 are labelled; the new queries of round 2 are the plan's new rows."""
    import os
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    d = write_campaign_files(tmp_path, 13)
    for src, dst in (("run", "run.txt"), ("probs", "probs.txt"), ("costs", "costs.txt"), ("qrels", "labels.qrels")):
        shutil.copy(d / src, tmp_path / dst)
    script = _readme_walkthrough()
    assert "--new-queries to_label.txt" in script and "awk" not in script
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=tmp_path, capture_output=True, text=True,
                          env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    new1 = (tmp_path / "to_label.txt").read_text().split()
    new2 = (tmp_path / "to_label2.txt").read_text().split()
    assert new1 and new2 and not set(new1) & set(new2)
    estimates = [json.loads(chunk) for chunk in done.stdout.replace("}\n{", "}\n\x00{").split("\x00")]
    assert len(estimates) == 2 and estimates[1]["labelled_queries"] == len(new1) + len(new2)


def test_a_useless_label_model_is_said_once_with_its_correlation(files):
    """Probabilities that carry nothing (every document the same) -> the finite estimate's label
    check gives the correlation and one warning; the calibrated toy model gets none."""
    d = files
    lines = (d / "probs").read_text().splitlines()
    (d / "flat").write_text("".join(" ".join(line.split()[:2] + ["0.4", "0.3", "0.3"]) + "\n" for line in lines))
    for probs, useless in (("probs", False), ("flat", True)):
        res = evalrank("active", "plan", "--run", d / "run", "--probs", d / probs, "--budget", "30", "--out",
                       d / f"{probs}.tsv")
        assert res.returncode == 0, res.stderr
        out = evalrank("active", "estimate", "--plan", d / f"{probs}.tsv", "--qrels", d / "qrels", "--run", d / "run")
        check = json.loads(out.stdout)["label_model"]
        assert (check["warning"] is not None) == useless, check
        assert out.stderr.count("predicts the labelled queries' values poorly") == int(useless)


@pytest.mark.parametrize("measure", ["dcg", "dcg@2"])
def test_a_dcg_differences_range_is_exact_brute_force(measure):
    """Every labelling of two small queries (3 grades): the smallest and largest DCG difference
    are the range measure_range gives; rankings that agree have the range 0."""
    from evalrank.active.campaign import Rankings, measure_range, query_losses

    offsets = np.array([0, 4, 7])
    order_a = np.array([0, 1, 2, 3, 4, 5, 6])
    order_b = np.array([1, 0, 3, 2, 4, 5, 6])      # query 2: the same order
    r = Rankings(["x", "y"], offsets, order_a, order_b)
    lo, hi = measure_range(r, measure, 3)
    seen = np.full((2, 2), np.nan)
    for labels in itertools.product(range(3), repeat=7):
        lab = np.array(labels)
        d = query_losses(lab, offsets, order_a, measure, 3) - query_losses(lab, offsets, order_b, measure, 3)
        seen[:, 0] = np.fmin(seen[:, 0], d)
        seen[:, 1] = np.fmax(seen[:, 1], d)
    np.testing.assert_allclose(np.c_[lo, hi], seen, atol=1e-12)
    assert lo[1] == hi[1] == 0.0 and lo[0] < 0 < hi[0]


def test_a_cheap_judges_grades_plan_a_campaign(files):
    """--judge: one grade per run document; without a reference its probabilities are 0.6 on its
    grade, with --calibrate-from the confusion matrix of the documents both judge (checked by
    hand); a document the judge left out is refused with the run's line."""
    from evalrank.active.files import JUDGE_NOISE, judge_probs

    d = files
    qrels = (d / "qrels").read_text().splitlines()
    rng = np.random.default_rng(5)
    judge = []
    for line in qrels:             # a judge right 70 % of the time
        q, _, doc, y = line.split()
        judge.append(f"{q} 0 {doc} {int(y) if rng.random() < 0.7 else int(rng.integers(0, 3))}")
    (d / "judge").write_text("\n".join(judge) + "\n")
    (d / "ref").write_text("\n".join(qrels[:60]) + "\n")
    plain = judge_probs(d / "run", d / "judge")
    row, _ = plain[("t0", "D0-0")]
    g = int(judge[0].split()[3])
    assert row[g] == pytest.approx(1 - JUDGE_NOISE) and row.sum() == pytest.approx(1.0)
    cal = judge_probs(d / "run", d / "judge", reference=d / "ref")
    counts = np.ones((3, 3))
    for a, b in zip(judge[:60], qrels[:60]):
        counts[int(a.split()[3]), int(b.split()[3])] += 1
    np.testing.assert_allclose(cal[("t0", "D0-0")][0], counts[g] / counts[g].sum(), rtol=1e-12)
    for extra in ([], ["--calibrate-from", d / "ref"]):
        res = evalrank("active", "plan", "--run", d / "run", "--judge", d / "judge", *extra, "--budget", "10",
                       "--out", d / "jp.tsv")
        assert res.returncode == 0, res.stderr
        out = evalrank("active", "estimate", "--plan", d / "jp.tsv", "--qrels", d / "qrels", "--run", d / "run")
        assert out.returncode == 0, out.stderr
    (d / "judge").write_text("\n".join(judge[1:]) + "\n")
    res = evalrank("active", "plan", "--run", d / "run", "--judge", d / "judge", "--budget", "10", "--out",
                   d / "jp.tsv")
    assert res.returncode == 1 and "has no grade in --judge" in res.stderr and f"{d / 'run'}:" in res.stderr


def test_grades_is_checked_against_the_judgments(files):
    d = files
    common = ["active", "plan", "--run", d / "run", "--budget", "10", "--out", d / "g.tsv"]
    res = evalrank(*common, "--calibrate-from", d / "qrels", "--grades", "1")
    assert res.returncode == 1 and "--grades must be an integer >= 2" in res.stderr, res.stderr
    res = evalrank(*common, "--calibrate-from", d / "qrels", "--grades", "2")
    assert res.returncode == 1 and "is above --grades 2 (grades 0..1)" in res.stderr, res.stderr
    assert not (d / "g.tsv").exists()


def test_the_kernels_give_the_same_numbers_interpreted_and_compiled():
    from evalrank._jit import mode

    q, L, f, lo, hi = _skewed_world(seed=9, N=120)
    draws = np.random.default_rng(4).choice(q.size, size=200, p=q)
    runs = {}
    for name in ("python", "numba"):
        with mode(name):
            runs[name] = finite_estimate(q, draws, L, f, lo, hi, t_star=10)
    for key in ("estimate", "ci_low", "ci_high"):
        np.testing.assert_allclose(runs["python"][key], runs["numba"][key], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("option, content, message", [
    ("--probs", b"t0 D0-0 0.5 0.3 0.2\n\xff\xfe 1 2\n", ":2: byte 0xff is not UTF-8 text"),
    ("--probs", b"\x00\x01\x02binary", ":1: a NUL byte (0x00): not a text file"),
    ("--costs", b"t0 1\nt1 \xe9\n", ":2: byte 0xe9 is not UTF-8 text"),
])
def test_a_binary_or_non_utf8_model_file_is_named_with_its_line(files, option, content, message):
    d = files
    bad = d / "bad.bin"
    bad.write_bytes(content)
    args = {"--probs": d / "probs", "--costs": d / "costs", option: bad}
    res = evalrank("active", "plan", "--run", d / "run", "--probs", args["--probs"], "--costs", args["--costs"],
                   "--budget", "5", "--out", d / "x.tsv")
    assert res.returncode == 1 and f"{bad}{message}" in res.stderr and "Traceback" not in res.stderr, res.stderr
    assert not (d / "x.tsv").exists()


def test_outputs_never_replace_an_input_and_a_deep_settings_line_is_damage(files):
    d = files
    _plan(d, "--budget", "8")
    before = (d / "plan.tsv").read_bytes()
    for args, option in ((["plan", "--continue", d / "plan.tsv", "--budget", "5", "--out", d / "plan.tsv"],
                          "--out"),
                         (["plan", "--run", d / "run", "--probs", d / "probs", "--budget", "5", "--out", d / "x.tsv",
                           "--new-queries", d / "probs"], "--new-queries"),
                         (["estimate", "--plan", d / "plan.tsv", "--qrels", d / "qrels", "--run", d / "run", "--out",
                           d / "qrels"], "--out")):
        res = evalrank("active", *args)
        assert res.returncode == 1 and f"{option} " in res.stderr and "is the input of" in res.stderr, res.stderr
    assert (d / "plan.tsv").read_bytes() == before
    lines = before.decode().splitlines()
    lines[1] = "# settings " + "[" * 100_000 + "]" * 100_000
    (d / "deep.tsv").write_text("\n".join(lines) + "\n")
    res = evalrank("active", "estimate", "--plan", d / "deep.tsv", "--qrels", d / "qrels", "--run", d / "run")
    assert res.returncode == 1 and "deep.tsv:2: damaged settings" in res.stderr, res.stderr
