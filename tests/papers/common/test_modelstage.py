"""The model stage as files (modelstage.py): train_file fits and tunes one zoo learner,
quality_files writes the quality table of the pool predictions."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from toy_data import toy_collection

from evalrank import io
from evalrank.models.quality import quality_row, random_baseline
from evalrank.models.zoo import load_model
from evalrank.papers.common.modelstage import quality_files, train_file


@pytest.fixture(scope="module")
def halves(tmp_path_factory):
    d = tmp_path_factory.mktemp("halves")
    toy_collection(30, 0).save(d / "train.npz")
    toy_collection(15, 1).save(d / "vali.npz")
    return d


def test_train_file_tunes_the_grid_and_reuses_another_fits_choice(halves, tmp_path):
    grid = {"n_estimators": [4], "min_samples_leaf": [5, 20]}
    said = []
    train_file(model="rf", train=halves / "train.npz", vali=halves / "vali.npz", grid=grid, params_from=None,
               n_grades=5, seed=1, threads=1, output=tmp_path / "rf.pkl", tuning=tmp_path / "tuning.csv",
               log=said.append)
    first = load_model(tmp_path / "rf.pkl")
    assert len(pd.read_csv(tmp_path / "tuning.csv")) == 2
    assert said[0].startswith("trained rf in ")
    train_file(model="rf", train=halves / "train.npz", vali=halves / "vali.npz", grid=grid,
               params_from=tmp_path / "rf.pkl", n_grades=5, seed=1, threads=1, output=tmp_path / "again.pkl")
    again = load_model(tmp_path / "again.pkl")
    assert again.best_params_ == first.best_params_ and len(again.tuning_) == 1


def test_train_file_takes_another_learners_tuning_for_the_searched_keys_only(halves, tmp_path):
    """models.params_from: the ordinal forest takes the random forest's chosen leaf size and
    feature share, keeps its own number of trees, and fits exactly the model that its grid,
    narrowed by hand to those values, gives."""
    train_file(model="rf", train=halves / "train.npz", vali=halves / "vali.npz",
               grid={"n_estimators": [4], "min_samples_leaf": [5, 20], "max_features": [0.1, 0.5]}, params_from=None,
               n_grades=5, seed=1, threads=1, output=tmp_path / "rf.pkl")
    chosen = load_model(tmp_path / "rf.pkl").best_params_
    grid = {"n_estimators": [3], "tune_n_estimators": [2], "min_samples_leaf": [1, 5, 20], "max_features": [0.1, 0.5]}
    train_file(model="ordinal_rf", train=halves / "train.npz", vali=halves / "vali.npz", grid=grid,
               params_from=tmp_path / "rf.pkl", n_grades=5, seed=1, threads=1, output=tmp_path / "ord.pkl")
    ordinal = load_model(tmp_path / "ord.pkl")
    assert len(ordinal.tuning_) == 1
    assert ordinal.best_params_["n_estimators"] == 3
    assert {k: ordinal.best_params_[k] for k in ("min_samples_leaf", "max_features")} == \
        {k: chosen[k] for k in ("min_samples_leaf", "max_features")}
    by_hand = {"n_estimators": [3], "tune_n_estimators": [2], "min_samples_leaf": [chosen["min_samples_leaf"]],
               "max_features": [chosen["max_features"]]}
    train_file(model="ordinal_rf", train=halves / "train.npz", vali=halves / "vali.npz", grid=by_hand,
               params_from=None, n_grades=5, seed=1, threads=1, output=tmp_path / "hand.pkl")
    pool = toy_collection(15, 1)
    np.testing.assert_array_equal(ordinal.score_and_proba(pool.features)[1],
                                  load_model(tmp_path / "hand.pkl").score_and_proba(pool.features)[1])


def test_train_file_refuses_a_tuning_without_the_searched_key(halves, tmp_path):
    train_file(model="ordered_logit", train=halves / "train.npz", vali=halves / "vali.npz", grid={"alpha": [1.0]},
               params_from=None, n_grades=5, seed=1, threads=1, output=tmp_path / "ol.pkl")
    with pytest.raises(ValueError, match=r"--params-from .*ol\.pkl holds a 'ordered_logit' model, which has no "
                                         r"hyperparameter min_samples_leaf that ordinal_rf's grid searches"):
        train_file(model="ordinal_rf", train=halves / "train.npz", vali=halves / "vali.npz",
                   grid={"n_estimators": [3], "min_samples_leaf": [5, 20]}, params_from=tmp_path / "ol.pkl",
                   n_grades=5, seed=1, threads=1, output=tmp_path / "x.pkl")
    assert not (tmp_path / "x.pkl").exists()


def test_quality_files_rows_are_quality_row_and_the_random_baseline(tmp_path):
    c = toy_collection(12, 2)
    g = np.random.default_rng(0)
    paths = []
    for name in ("a", "b"):
        paths.append(tmp_path / f"{name}.npz")
        io.save_arrays(paths[-1], scores=g.normal(size=c.n_docs), probs=g.dirichlet(np.ones(5), size=c.n_docs),
                       labels=c.labels, offsets=c.offsets, qids=c.qids)
    quality_files(predictions=paths, names=["a", "b"], table=tmp_path / "q.csv", figure=tmp_path / "q.png",
                  reliability_dir=tmp_path / "rel", k=10, ece_bins=5, reliability_bins=5, max_grade=4, seed=3)
    rows = []
    for name, p in zip(("a", "b"), paths):
        d = io.load_arrays(p)
        rows.append({"model": name, **quality_row(d["scores"], d["probs"], d["labels"], d["offsets"], max_grade=4,
                                                  k=10, ece_bins=5)})
    rows.append({"model": "random", **random_baseline(c.labels, c.offsets, seed=3, k=10, max_grade=4)})
    io.write_table(pd.DataFrame(rows), tmp_path / "want.csv")
    assert (tmp_path / "q.csv").read_bytes() == (tmp_path / "want.csv").read_bytes()
    for f in ("q.png", "rel/a.csv", "rel/a.png", "rel/b.png"):
        assert (tmp_path / f).exists(), f


def test_predict_file_holds_the_models_scores_over_the_pool(halves, tmp_path):
    from evalrank.papers.common.modelstage import predict_file

    train_file(model="rf", train=halves / "train.npz", vali=halves / "vali.npz", grid={"n_estimators": [4]},
               params_from=None, n_grades=5, seed=1, threads=1, output=tmp_path / "rf.pkl")
    predict_file(model_file=tmp_path / "rf.pkl", pool=[halves / "vali.npz", halves / "train.npz"], threads=1,
                 output=tmp_path / "pred.npz")
    p = io.load_arrays(tmp_path / "pred.npz")
    pool = toy_collection(15, 1)
    scores, probs = load_model(tmp_path / "rf.pkl").score_and_proba(pool.features)
    np.testing.assert_array_equal(p["scores"][:pool.n_docs], scores)
    np.testing.assert_array_equal(p["probs"][:pool.n_docs], probs)
    assert p["offsets"].size == 15 + 30 + 1 and p["labels"].size == p["scores"].size
