"""Tables 6 and 7 as files (tables.py) and the population as files (systems.population_files):
each file holds what the library functions it calls give on the same inputs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from toy_data import toy_collection

from evalrank import io
from evalrank.papers.dincer2016 import population, systems, tables
from evalrank.papers.dincer2016.learning import fold_collections, table7

LGB = {"num_leaves": 4, "learning_rate": 0.1, "num_boost_round": 5, "min_data_in_leaf": 5}


def test_population_files_score_every_system_per_query(tmp_path):
    train, test = toy_collection(30, 0), toy_collection(12, 1)
    train.save(tmp_path / "train.npz")
    test.save(tmp_path / "test.npz")
    systems.population_files(train=tmp_path / "train.npz", test=tmp_path / "test.npz", features=[1, 3],
                             objectives=["lambdarank"], n_seeds=1, train_fractions=[1.0], feature_shares=[0.5],
                             lgb_params=LGB, models=None, measure="err@20", max_grade=4, seed=3, threads=1,
                             output=tmp_path / "pop.npz", table=tmp_path / "systems.csv")
    d = io.load_arrays(tmp_path / "pop.npz")
    assert d["names"].tolist()[:2] == ["f1", "f3"] and d["kinds"].tolist() == ["feature", "feature", "lightgbm"]
    f3 = population.per_query(test.features[:, 2], test.labels, test.offsets, "err@20", max_grade=4)
    keep = np.vstack([population.per_query(test.features[:, j], test.labels, test.offsets, "err@20", max_grade=4)
                      for j in (0, 2)]).sum(axis=0) > 0    # the lightgbm variant scores 0 where these do
    np.testing.assert_array_equal(d["topics"], test.qids[keep])
    np.testing.assert_array_equal(d["X"][1], f3[keep])
    t = pd.read_csv(tmp_path / "systems.csv")
    assert t.system.tolist() == d["names"].tolist() and "fit_seconds" not in t.columns
    np.testing.assert_allclose(t["err@20"], d["X"].mean(axis=1), atol=5e-7)   # the CSV keeps 6 digits


def _population(tmp_path, seed=0, r=6, c=20):
    X = np.random.default_rng(seed).uniform(0, 1, size=(r, c))
    names = [f"s{i}" for i in range(r)]
    path = tmp_path / "population.npz"
    io.save_arrays(path, names=np.asarray(names), kinds=np.asarray(["feature"] + ["lightgbm"] * (r - 1)), X=X)
    return path, names, X


def test_table6_files_equal_population_table6(tmp_path):
    path, names, X = _population(tmp_path)
    said = []
    tables.table6_files(path, out_dir=tmp_path / "out", baseline="s0", alphas=[0, 5], top=3, measure="err@20",
                        zero_totals="ignore", log=said.append)
    want = population.table6(names, X, baseline="s0", alphas=[0, 5], top=3, measure="err@20", zero_totals="ignore")
    io.write_table(want, tmp_path / "want.csv", float_format="%.4f")
    assert (tmp_path / "out" / "table6.csv").read_bytes() == (tmp_path / "want.csv").read_bytes()
    assert said[0] == "Table 6:\n" + tables.table6_text(want, "err@20", [0, 5])
    for f in ("observations.csv", "georisk_curves.csv", "fig3_georisk_population.png"):
        assert (tmp_path / "out" / f).exists()


def test_trec_table6_checks_every_argument_before_reading(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    for name, docs in (("a", "d1 d2"), ("b", "d2 d1")):
        (runs / name).write_text("".join(f"{q} Q0 {d} {r} {9 - r} x\n" for q in (1, 2, 3)
                                         for r, d in enumerate(docs.split())))
    (tmp_path / "qrels").write_text("".join(f"{q} 0 d{q % 2 + 1} 1\n" for q in (1, 2, 3)))
    kw = dict(baseline="a", measure="err@20", alphas=[0, 5], top=3, max_grade=4, convention="gdeval",
              zero_totals="raise")
    with pytest.raises(FileNotFoundError, match="RUN .*nowhere: no such file or directory"):
        tables.trec_table6(tmp_path / "qrels", tmp_path / "nowhere", **kw)
    with pytest.raises(ValueError, match="--baseline 'z' is not one of the runs given"):
        tables.trec_table6(tmp_path / "qrels", runs, **dict(kw, baseline="z"))
    with pytest.raises(ValueError, match="--top must be >= 1"):
        tables.trec_table6(tmp_path / "qrels", runs, **dict(kw, top=0))
    with pytest.raises(ValueError, match="--alphas must be finite numbers >= 0"):
        tables.trec_table6(tmp_path / "qrels", runs, **dict(kw, alphas=[-1]))
    (tmp_path / "file").write_text("")
    with pytest.raises(NotADirectoryError, match="--out-dir"):
        tables.trec_table6(tmp_path / "qrels", runs, **kw, out_dir=tmp_path / "file")
    t6 = tables.trec_table6(tmp_path / "qrels", runs, **kw)
    assert sorted(t6.system) == ["a", "b"]


class _Scorer:
    def __init__(self, j):
        self.j = j

    def score(self, X):
        return X[:, self.j].astype(np.float64)


def test_table7_files_gather_every_fold(tmp_path, monkeypatch):
    import evalrank.models.zoo as zoo
    from evalrank.models import RankingModel

    parts = []
    for i in range(2):
        parts.append(tmp_path / f"S{i}.npz")
        toy_collection(40, i).save(parts[-1])
    pool, split = tables.risk_protocol(parts, holdout=0.2, n_folds=5, seed=1)
    metric = RankingModel(convention="ranklib").metric
    runs = []
    for learner, j in (("lambdamart", 2), ("georisk", 4)):
        for fold in (1, 2):
            _, _, test = fold_collections(pool, split, fold)
            runs.append(tmp_path / "runs" / learner / f"fold{fold}.npz")
            io.save_arrays(runs[-1], qids=test.qids, ndcg10=np.asarray(
                metric(test.features[:, j].astype(np.float64), test.labels, test.offsets, k=10), dtype=np.float64))
    monkeypatch.setattr(zoo, "load_model", lambda path: _Scorer(5))
    tables.table7_files(partitions=parts, holdout=0.2, n_folds=5, seed=1, convention="ranklib", folds=[1, 2],
                        baselines=["gbrt.pkl"], baseline_feature=1, runs=runs, loss_threshold=0.2, out_dir=tmp_path)
    pq = pd.read_csv(tmp_path / "per_query_ndcg10.csv")
    assert pq.columns.tolist() == ["fold", "qid", "bm25", "baseline_gbrt", "lambdamart", "georisk"]
    _, _, test = fold_collections(pool, split, 2)
    np.testing.assert_allclose(pq[pq.fold == 2]["bm25"], metric(test.features[:, 0].astype(np.float64), test.labels,
                                                                test.offsets, k=10), atol=5e-7)
    pq = tables._per_query(pool, split, [1, 2], convention="ranklib", baselines={"baseline_gbrt": _Scorer(5)},
                           baseline_feature=1, runs=runs)
    want = table7(pq, learners=["lambdamart", "georisk"], baselines=["baseline_gbrt"], loss_threshold=0.2)
    io.write_table(want, tmp_path / "want.csv", float_format="%.4f")
    assert (tmp_path / "table7.csv").read_bytes() == (tmp_path / "want.csv").read_bytes()
    bad = tmp_path / "bad" / "x" / "fold1.npz"
    io.save_arrays(bad, qids=np.zeros(1, np.int64), ndcg10=np.zeros(1))
    with pytest.raises(ValueError, match="its test queries are not fold 1's"):
        tables.table7_files(partitions=parts, holdout=0.2, n_folds=5, seed=1, convention="ranklib", folds=[1],
                            baselines=[], baseline_feature=1, runs=[bad], loss_threshold=0.2, out_dir=tmp_path)


def test_example_files_equal_the_printed_tables(tmp_path):
    from pathlib import Path

    from evalrank.papers.dincer2016.example import example_files

    cfg = Path(__file__).resolve().parents[3] / "config" / "dincer2016"
    kw = dict(matrix=cfg / "dincer2016_table3.csv", printed4=cfg / "dincer2016_table4_printed.csv",
              printed5=cfg / "dincer2016_table5_printed.csv")
    example_files(**kw, out_dir=tmp_path)
    assert pd.read_csv(tmp_path / "vs_paper.csv")["match"].all()
    assert (tmp_path / "fig1_profiles.png").exists() and (tmp_path / "fig2_georisk_example.png").exists()
    bad = tmp_path / "t5.csv"
    t5 = pd.read_csv(kw["printed5"], comment="#")
    t5.iloc[0, -1] = t5.iloc[0, -1] + 1
    t5.to_csv(bad, index=False)
    with pytest.raises(RuntimeError, match="numbers differing from the paper"):
        example_files(**dict(kw, printed5=bad), out_dir=tmp_path / "bad")


def test_learn_file_scores_the_folds_test_queries(tmp_path):
    from evalrank.papers.dincer2016.risk_lambdamart import learn_file

    parts = []
    for i in range(2):
        parts.append(tmp_path / f"S{i}.npz")
        toy_collection(40, i).save(parts[-1])
    kw = dict(partitions=parts, holdout=0.2, n_folds=5, seed=1, convention="lightgbm", fold=2, method="u-cro",
              alpha=1.0, baseline_feature=1, baselines=None,
              params={"num_boost_round": 5, "num_leaves": 4, "min_data_in_leaf": 5}, threads=1)
    learn_file(**kw, output=tmp_path / "a.npz")
    learn_file(**kw, output=tmp_path / "b.npz")
    a, b = io.load_arrays(tmp_path / "a.npz"), io.load_arrays(tmp_path / "b.npz")
    pool, split = tables.risk_protocol(parts, holdout=0.2, n_folds=5, seed=1)
    _, _, test = fold_collections(pool, split, 2)
    np.testing.assert_array_equal(a["qids"], test.qids)
    assert a["scores"].size == test.n_docs and a["ndcg10"].size == test.n_queries
    for k in a:
        np.testing.assert_array_equal(a[k], b[k])


def test_learn_files_writes_each_learners_file_as_learn_file_does(tmp_path):
    """Several learners of a fold in one process (one data load, one baseline scoring): each
    output byte-identical to its own learn_file run."""
    from evalrank.models.zoo import make_model, save_model
    from evalrank.papers.dincer2016.risk_lambdamart import learn_file, learn_files

    parts = []
    for i in range(2):
        parts.append(tmp_path / f"S{i}.npz")
        toy_collection(40, i).save(parts[-1])
    pool, split = tables.risk_protocol(parts, holdout=0.2, n_folds=5, seed=1)
    base = pool.select_queries(split["baseline_train"]), pool.select_queries(split["baseline_vali"])
    models = []
    for name in ("lambdamart", "afs"):
        m = make_model(name, convention="lightgbm", **({"num_boost_round": 5, "min_data_in_leaf": 5}
                                                        if name == "lambdamart" else {}))
        m.fit(*base, grid=None, seed=1)
        models.append(tmp_path / f"{name}.pkl")
        save_model(m, models[-1])
    learners = [("lambdamart", 0.0), ("u-cro", 1.0), ("georisk", 5.0), ("t*-faro", 1.0)]
    kw = dict(partitions=parts, holdout=0.2, n_folds=5, seed=1, convention="lightgbm", fold=3, baseline_feature=1,
              params={"num_boost_round": 5, "num_leaves": 4, "min_data_in_leaf": 5}, threads=1)
    learn_files(learners=[(m, a, tmp_path / f"many_{m}.npz") for m, a in learners], baselines=models, **kw)
    for m, a in learners:
        learn_file(method=m, alpha=a, output=tmp_path / f"one_{m}.npz",
                   baselines=models if m in ("georisk", "t*-faro") else None, **kw)
        assert (tmp_path / f"many_{m}.npz").read_bytes() == (tmp_path / f"one_{m}.npz").read_bytes()
    runs = [io.load_arrays(tmp_path / f"many_{m}.npz")["scores"] for m, _ in learners]
    assert len({r.tobytes() for r in runs}) == len(runs)  # four different learners
    with pytest.raises(ValueError, match="baselines is used only by"):
        learn_file(method="u-cro", alpha=1.0, output=tmp_path / "x.npz", baselines=models, **kw)
    with pytest.raises(ValueError, match="learners"):
        learn_files(learners=[], baselines=None, **kw)
    with pytest.raises(ValueError, match="triples"):
        learn_files(learners=[("u-cro", 1.0)], baselines=None, **kw)
