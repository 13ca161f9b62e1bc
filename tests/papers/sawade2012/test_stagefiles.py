"""The active stage's three steps as files: setup_file (q* and the truth of one experiment),
shard_file (a Monte Carlo shard, with the campaign study) and summary_files (the merged tables)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from evalrank import io
from evalrank.active.campaign_plan import DEFAULT_EPSILON
from evalrank.active.sampling import METHODS
from evalrank.data.collection import Collection
from evalrank.papers.sawade2012.campaignstudy import simulate_rounds
from evalrank.papers.sawade2012.experiments import Experiment, setup_experiment, setup_file
from evalrank.papers.sawade2012.montecarlo import shard_file, simulate, standard_errors
from evalrank.papers.sawade2012.report import summarize, summary_files

EXP = dict(models=["rf", "ordinal_rf"], drop=0.1, base_pairs=100, base_model=None, sizes=None)


def _pool(tmp_path, seed=2, nq=24):
    g = np.random.default_rng(seed)
    sizes = g.integers(2, 20, size=nq)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    n = int(offsets[-1])
    labels = g.choice(5, size=n, p=[0.5, 0.3, 0.13, 0.05, 0.02]).astype(np.int8)
    X = np.column_stack([g.normal(size=n), g.lognormal(6, 1, size=n)]).astype(np.float32)
    qids = np.arange(nq, dtype=np.int64)
    parts = []
    for i, (lo, hi) in enumerate(((0, nq // 2), (nq // 2, nq))):
        c = Collection(features=X[offsets[lo]:offsets[hi]], labels=labels[offsets[lo]:offsets[hi]],
                       offsets=offsets[lo:hi + 1] - offsets[lo], qids=qids[lo:hi])
        parts.append(tmp_path / f"S{i + 1}.npz")
        c.save(parts[-1])
    preds, arrays = {}, {}
    for m in ("rf", "ordinal_rf"):
        arrays[m] = {"scores": labels + g.normal(0, 1.5, n), "probs": g.dirichlet(np.ones(5), size=n),
                     "labels": labels, "offsets": offsets, "qids": qids}
        preds[m] = tmp_path / f"{m}.npz"
        io.save_arrays(preds[m], **arrays[m])
    return parts, preds, arrays, X[:, 1].astype(np.float64)


def _setup(tmp_path, name="fig2_rf_vs_ordinal_rf", fold=1):
    parts, preds, arrays, lengths = _pool(tmp_path)
    out = tmp_path / name / f"fold{fold}" / "setup.npz"
    setup_file(name, **EXP, predictions=preds, pool=parts, cost_feature=2, measures=["err"], max_grade=4, seed=5,
               fold=fold, output=out)
    return out, arrays, lengths


def test_setup_file_holds_setup_experiment_and_its_meta(tmp_path):
    out, arrays, lengths = _setup(tmp_path)
    saved = io.load_arrays(out)
    want = setup_experiment(Experiment("fig2_rf_vs_ordinal_rf", "select", "rf", "ordinal_rf"), arrays, lengths,
                            ["err"], seed=5, fold=1, max_grade=4)
    assert not any(k.startswith("seconds_") for k in saved)
    for k, v in want.items():
        if not k.startswith("seconds_"):
            np.testing.assert_array_equal(saved[k], v, err_msg=k)
    meta = json.loads(str(saved["meta"]))
    assert meta == {"experiment": "fig2_rf_vs_ordinal_rf", "kind": "select", "metric": "selection_error", "fold": 1,
                    "measures": ["err"], "train_pairs": None}


def test_setup_file_refuses_bad_arguments(tmp_path):
    parts, preds, _, _ = _pool(tmp_path)
    kw = dict(EXP, predictions=preds, pool=parts, cost_feature=2, measures=["err"], max_grade=4, seed=5, fold=1,
              output=tmp_path / "s.npz")
    with pytest.raises(ValueError, match="experiment must be one of"):
        setup_file("fig9", **kw)
    with pytest.raises(ValueError, match="--cost-feature 3 is outside the pool's features 1..2"):
        setup_file("fig1_rf", **dict(kw, cost_feature=3))
    with pytest.raises(ValueError, match="needs predictions of"):
        setup_file("fig2_rf_vs_ordinal_rf", **dict(kw, predictions={"rf": preds["rf"]}))
    with pytest.raises(ValueError, match="--pool partitions do not match"):
        setup_file("fig1_rf", **dict(kw, pool=parts[::-1]))
    assert not (tmp_path / "s.npz").exists()


def _shards(tmp_path, setup, n, campaigns=0, rounds=0):
    paths = []
    for k in range(n):
        paths.append(tmp_path / f"{n}" / f"shard{k}.npz")
        shard_file(setup, budgets=[2.0, 5.0, 50.0], repetitions=6, shard=k, shards=n, seed=5,
                   campaign_repetitions=campaigns, rounds_repetitions=rounds, campaign_budgets=[2.0, 5.0],
                   epsilons=[0.0, 0.05], tune_budget=5.0, level=0.9, output=paths[-1])
    return paths


def test_shard_file_is_simulate_on_the_stage_streams_whatever_the_shards(tmp_path):
    setup, _, _ = _setup(tmp_path)
    s = io.load_arrays(setup)
    one = io.load_arrays(_shards(tmp_path, setup, 1)[0])
    two = [io.load_arrays(p) for p in _shards(tmp_path, setup, 2)]
    for method in METHODS:
        sim = simulate(s[f"q_err_{method}"], s["costs"], s["values_err"], [2.0, 5.0, 50.0], seed=5,
                       stream=("active-mc", "fig2_rf_vs_ordinal_rf", 1, "err", method), repetitions=range(6))
        np.testing.assert_array_equal(one[f"estimate_err_{method}"], sim["estimate"])
        np.testing.assert_array_equal(one[f"stderr_err_{method}"], standard_errors(sim, s[f"q_err_{method}"])[0])
        np.testing.assert_array_equal(np.concatenate([t[f"estimate_err_{method}"] for t in two]), sim["estimate"])
    assert "campaign_budgets" not in one


def test_shard_file_runs_the_campaign_study_except_on_training_sizes(tmp_path):
    setup, _, _ = _setup(tmp_path)
    sh = io.load_arrays(_shards(tmp_path, setup, 1, campaigns=4)[0])
    assert sh["n_campaigns"] == 4 and sh["camp_err_estimate_0_aipw_cs"].shape == (4, 2)
    parts, preds, _, _ = _pool(tmp_path / "sizes")
    sizes = tmp_path / "sizes" / "setup.npz"
    io.save_arrays(preds["rf"].parent / "rf_n150.npz", **io.load_arrays(preds["rf"]))
    setup_file("fig3_train_size_150", **dict(EXP, sizes=[150], base_model="rf"),
               predictions={**preds, "rf_n150": preds["rf"].parent / "rf_n150.npz"}, pool=parts, cost_feature=None,
               measures=["err"], max_grade=4, seed=5, fold=1, output=sizes)
    assert "campaign_budgets" not in io.load_arrays(_shards(tmp_path / "sizes", sizes, 1, campaigns=4)[0])


def test_the_rounds_study_runs_campaigns_spread_over_the_shards(tmp_path):
    """rounds_repetitions: that many of the campaigns, spread evenly so each shard gets its share, also
    continued with the labels (simulate_rounds on the study's stream): the same arrays from one shard
    or three; none at 0."""
    from evalrank.papers.sawade2012.montecarlo import rounds_campaigns

    assert rounds_campaigns(5, 3) == {0, 1, 3} and rounds_campaigns(4, 9) == {0, 1, 2, 3} and rounds_campaigns(4, 0) == set()
    assert rounds_campaigns(2000, 1000) == set(range(0, 2000, 2))
    setup, _, _ = _setup(tmp_path)
    key = "camp_err_estimate_finite_rounds_cs"
    one = io.load_arrays(_shards(tmp_path, setup, 1, campaigns=5, rounds=3)[0])
    three = [io.load_arrays(p) for p in _shards(tmp_path, setup, 3, campaigns=5, rounds=3)]
    assert one[key].shape == (3, 2) and one["camp_err_estimate_finite_cs"].shape == (5, 2)
    np.testing.assert_array_equal(np.concatenate([t[key] for t in three if key in t]), one[key])
    s = io.load_arrays(setup)
    meta = json.loads(str(s["meta"]))
    want = simulate_rounds(s, "err", difference=meta["kind"] != "estimate", epsilon=DEFAULT_EPSILON,
                           budgets=[2.0, 5.0], repetitions=[0, 1, 3], seed=5,
                           stream=("active-campaign", meta["experiment"], meta["fold"], "err"), level=0.9)
    np.testing.assert_array_equal(one[key], want["estimate_finite_rounds_cs"])
    assert key not in io.load_arrays(_shards(tmp_path / "none", setup, 1, campaigns=5)[0])


def test_summary_files_write_the_merged_tables(tmp_path):
    setup, _, _ = _setup(tmp_path)
    shards = _shards(tmp_path, setup, 2, campaigns=4, rounds=4)
    out = tmp_path / "summary"
    summary_files(setups=[setup], shards=shards, reference_budget=5.0, train_size_budget=5.0, level=0.9, out_dir=out)
    curves, _ = summarize([setup], shards)
    io.write_table(curves, tmp_path / "want.csv")
    assert (out / "curves.csv").read_bytes() == (tmp_path / "want.csv").read_bytes()
    for name in ("savings.csv", "coverage.csv", "campaign_coverage.csv", "label_model_check.csv", "fig2_err.png",
                 "costs.png", "coverage.png"):
        assert (out / name).exists(), name
    camp = pd.read_csv(out / "campaign_coverage.csv")
    assert len(camp) > 0 and (camp.loc[camp["estimator"] == "finite_rounds", "campaigns"] == 4).all()
    assert (camp["estimator"] == "finite_rounds").sum() == (camp["default"]).sum() > 0
