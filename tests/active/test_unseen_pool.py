"""A labelling campaign on a pool nobody here has seen (benchmarks/unseen_pool.py, issue 27): its
generator's files -- a TREC run, qrels of every document, %.6f probabilities of an overconfident
label model, costs -- go through `evalrank active plan|estimate` end to end, the label-model check
flags the model, and over a few campaigns the default estimate (Hajek-normalized AIPW for one
ranker) is unbiased within the Monte Carlo error and its default interval covers the pool's DCG. Only robust facts: the benchmark measures the coverage."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
from cli_run import evalrank

from evalrank.active.campaign import OVERCONFIDENT, estimate, extend, plan
from evalrank.active.files import pool_from_trec

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "unseen_pool.py"
SEED = 31   # not the benchmark's pool


def _script():
    spec = importlib.util.spec_from_file_location("unseen_pool_bench", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def unseen(tmp_path_factory):
    """The script's pool (seed SEED) as files, read back as a campaign's pool, with every
    document's true grade."""
    up = _script()
    gen = up.generate(SEED)
    paths = {k: str(v) for k, v in up.write_pool(gen, tmp_path_factory.mktemp("unseen")).items()}
    pool, doc_ids = pool_from_trec(paths["run_a"], paths["probs"], costs=paths["costs"])
    grade = {(q, d): int(y) for q, docs, ys in zip(gen["qids"], gen["docnos"], gen["grades"])
             for d, y in zip(docs, ys.tolist())}
    labels = np.array([grade[k] for k in doc_ids], dtype=np.int64)
    return up, gen, up.truth(gen), paths, pool, labels


def test_the_pool_is_skewed_and_written_with_six_decimals(unseen):
    up, gen, tr, paths, pool, _ = unseen
    v = tr["values_a"]
    assert np.mean(v) > 3 * np.median(v)          # a long right tail: a few topics hold most of the DCG
    first = Path(paths["probs"]).read_text().splitlines()[0].split()
    assert len(first) == 2 + up.N_GRADES and all(len(x.split(".")[1]) == 6 for x in first[2:])
    np.testing.assert_allclose(up.library_values(paths), v, rtol=1e-12)


def test_whole_pool_through_the_cli_is_exact_and_flags_the_label_model(unseen, tmp_path):
    up, _, tr, paths, pool, _ = unseen
    p = tmp_path / "whole.tsv"
    res = evalrank("active", "plan", "--run", paths["run_a"], "--probs", paths["probs"], "--costs", paths["costs"],
                   "--budget", float(pool.costs.sum()) + 1, "--measure", "dcg", "--out", p)
    assert res.returncode == 0, res.stderr
    assert "renormalised" in res.stderr          # %.6f rows sum to 1 only within 1e-3
    res = evalrank("active", "estimate", "--plan", p, "--qrels", paths["qrels"], "--run", paths["run_a"])
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["exact"] and out["estimate"] == pytest.approx(tr["dcg"], rel=1e-12)
    lm = out["label_model"]
    assert lm["queries"] == pool.n_queries and lm["ratio"] > OVERCONFIDENT and lm["warning"]
    assert "overconfident" in res.stderr


def test_a_campaign_through_the_cli_is_the_librarys(unseen, tmp_path):
    """The script's campaign (plan 10, --continue 10, 30, 50; both configurations estimated at
    every look, each look equal to the last estimate's rounds) against the library's."""
    up, _, _, paths, pool, labels = unseen
    rows = up.run_campaign(5, paths, tmp_path, "dcg", per_look=True)
    p = plan(pool, budget=10.0, measure="dcg", seed=5)
    for b in up.ROUNDS[1:]:
        p = extend(p, b)
    for est, itv in up.CONFIGS:
        lib = estimate(p, pool, labels, estimator=est, interval=itv)["rounds"]
        mine = [r for r in rows if (r["estimator"], r["interval"]) == (est, itv)]
        assert [r["budget"] for r in mine] == [10.0, 20.0, 50.0, 100.0]
        for r, want in zip(mine, lib):
            assert (r["estimate"], r["ci_low"], r["ci_high"]) == pytest.approx(
                (want["estimate"], want["ci_low"], want["ci_high"]), rel=1e-12)


def test_over_campaigns_the_default_estimate_is_unbiased_and_its_interval_covers(unseen):
    up, _, tr, _, pool, labels = unseen
    mu = tr["dcg"]
    est = {b: [] for b in (10.0, 20.0, 50.0, 100.0)}
    covered = []
    for seed in range(40):
        p = plan(pool, budget=10.0, measure="dcg", seed=seed)
        for b in up.ROUNDS[1:]:
            p = extend(p, b)
        res = estimate(p, pool, labels)
        assert not res["exact"]
        for r in res["rounds"]:
            est[r["budget"]].append(r["estimate"])
        covered.append(res["ci_low"] <= mu <= res["ci_high"])
    for b, values in est.items():
        err = np.asarray(values) - mu
        assert abs(err.mean()) <= 4 * err.std(ddof=1) / np.sqrt(err.size), b
    assert np.mean(covered) >= 0.85
