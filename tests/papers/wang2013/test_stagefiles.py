"""The theory stage's steps as files: report_files (Theorems 1-4's limits, convergence, rate,
distinguishability) and lists_files (Sec. 4 on long lists)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalrank import io, seeds
from evalrank.papers.wang2013.experiments import convergence_table, gap_rate, limits_table, sample_ndcg
from evalrank.papers.wang2013.lists import lists_files, prefix_ndcg
from evalrank.papers.wang2013.population import population_from, scorers_from
from evalrank.papers.wang2013.report import report_files

PARAMS = {"population": {"slope": 5.0}, "measures": ["log2", "poly:2"],
          "scorers": {"good": {"weight": 0.9}, "poor": {"weight": 0.3}, "twin": {"weight": 0.9, "noise": 1}},
          "pairs": [["far", "good", "poor"], ["equal", "good", "twin"]]}


def _samples(tmp_path, params=PARAMS, sizes=(20, 60, 180)):
    pop, (names, scorers) = population_from(params), scorers_from(params)
    paths, values = [], {}
    for n in sizes:
        values[n] = sample_ndcg(pop, scorers, params["measures"], n, 12, seeds.seed_sequence(1, "theory", "n", n))
        paths.append(tmp_path / f"n{n}.npz")
        io.save_arrays(paths[-1], ndcg=values[n], n=np.int64(n), scorers=np.asarray(names),
                       measures=np.asarray(params["measures"]))
    return paths, values


def test_population_and_scorers_from_the_config_section():
    pop = population_from({})
    assert (pop.slope, pop.tau.tolist(), pop.gains.tolist()) == (5.0, [0.3, 0.6, 0.85], [0, 1, 3, 7])
    names, scorers = scorers_from(PARAMS)
    assert names == ["good", "poor", "twin"]
    assert [(s.weight, s.reverse, s.noise) for s in scorers] == [(0.9, False, 0), (0.3, False, 0), (0.9, False, 1)]


def test_report_files_tables_are_the_library_tables(tmp_path):
    paths, values = _samples(tmp_path)
    out = tmp_path / "out"
    report_files(params=PARAMS, inputs=paths, out_dir=out)
    pop, (names, scorers) = population_from(PARAMS), scorers_from(PARAMS)
    limits = limits_table(pop, scorers, ["log2", "poly:2"], names)
    conv = convergence_table(values, pop, scorers, ["log2", "poly:2"], names=names, limits=limits)
    got = pd.read_csv(out / "convergence.csv")
    np.testing.assert_allclose(got["mean"], conv["mean"], atol=5e-7)
    rate = pd.read_csv(out / "rate.csv")
    assert rate.measure.unique().tolist() == ["log2"] and rate.scorer.tolist() == names
    t = conv[(conv.measure == "log2") & (conv.scorer == "good")]
    assert rate.gamma[0] == pytest.approx(gap_rate(t["n"], 1 - t["mean"])[0], abs=1e-4)
    gaps = pd.read_csv(out / "gaps.csv")
    assert (gaps.n == 180).all() and len(gaps) == 6
    dist = pd.read_csv(out / "distinguishability.csv")
    assert len(dist) > 0
    assert (out / "convergence.png").exists() and (out / "distinguishability.png").exists()


def test_report_files_refuse_samples_of_other_scorers(tmp_path):
    other = dict(PARAMS, scorers={"good": {"weight": 0.9}, "poor": {"weight": 0.3}})
    paths, _ = _samples(tmp_path, other, sizes=(20,))
    with pytest.raises(ValueError, match="--inputs: .* other scorers or measures"):
        report_files(params=PARAMS, inputs=paths, out_dir=tmp_path / "out")


class _Model:
    def __init__(self, w):
        self.w = w

    def score(self, X):
        return X @ self.w


def test_lists_files_synthetic_lists(tmp_path, monkeypatch):
    import evalrank.models.zoo as zoo
    from evalrank.data.synthetic import generate

    monkeypatch.setattr(zoo, "load_model", lambda path: _Model(np.linspace(1, 0, 16)))
    lists_files(models={"lin": "lin.pkl"}, source="synthetic", partition=None, queries=3, docs_per_query=50,
                n_features=16, stream_partition=9, sizes=[10, 40, 80], measures=["log2"], seed=4, out_dir=tmp_path)
    c = generate(3, seed=4, partition=9, n_features=16, mean_docs=50, sigma_docs=0.0, p_small=0.0, max_docs=50)
    scores = {"lin": c.features @ np.linspace(1, 0, 16),
              "random": seeds.rng(4, "theory", "lists", "random").random(c.n_docs)}
    want = prefix_ndcg(scores, c.labels, c.offsets, [10, 40], ["log2"])   # 80 > the 50 documents: dropped
    io.write_table(want, tmp_path / "want.csv", float_format="%.6f")
    assert (tmp_path / "lists.csv").read_bytes() == (tmp_path / "want.csv").read_bytes()
    assert (tmp_path / "lists_fig1.png").exists()


def test_lists_files_dataset_needs_a_partition(tmp_path, monkeypatch):
    import evalrank.models.zoo as zoo

    monkeypatch.setattr(zoo, "load_model", lambda path: _Model(np.ones(16)))
    with pytest.raises(ValueError, match="--partition: needed with --source dataset"):
        lists_files(models={}, source="dataset", partition=None, queries=3, docs_per_query=50, n_features=16,
                    stream_partition=9, sizes=[10], measures=["log2"], seed=4, out_dir=tmp_path)
