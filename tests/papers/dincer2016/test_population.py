"""Table 6 on a population, the TREC adapter (against gdeval.pl) and the CLI."""

from __future__ import annotations

import re
import shutil
import subprocess

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cli_run import evalrank
from scipy import stats

from evalrank.metrics import risk
from evalrank.papers.dincer2016 import example, population, systems
from toy_data import toy_collection

ROOT = Path(__file__).resolve().parents[3]


def _matrix(seed=0, r=12, c=30):
    rng = np.random.default_rng(seed)
    X = rng.beta(1.5, 3.0, size=(r, c)) * rng.uniform(0.5, 1.5, size=(r, 1))
    return [f"sys{i:02d}" for i in range(r)], np.clip(X, 0, 1)


def test_table6_equals_direct_calls():
    names, X = _matrix()
    alphas = (0, 5, 20)
    t6 = population.table6(names, X, baseline="sys03", alphas=alphas, top=5)
    mean = X.mean(1)
    top5 = [names[i] for i in np.argsort(-mean) if names[i] != "sys03"][:5]
    assert set(t6["system"]) == set(top5) | {"sys03"} and len(t6) == 6
    assert t6["err@20"].is_monotonic_decreasing  # rows by mean, as the paper
    b = names.index("sys03")
    for _, row in t6.iterrows():
        i = names.index(row["system"])
        for a in alphas:
            assert row[f"zrisk_a{a}"] == pytest.approx(risk.zrisk(X, i, a))
            assert row[f"georisk_a{a}"] == pytest.approx(risk.georisk(X, i, a))
            assert row[f"trisk_star_a{a}"] == pytest.approx(risk.trisk_star(X, i, a))
            if i == b:
                assert np.isnan(row[f"urisk_a{a}"]) and pd.isna(row[f"R_urisk_a{a}"])
            else:
                assert row[f"urisk_a{a}"] == pytest.approx(risk.urisk(X[i], X[b], a))
                assert row[f"trisk_a{a}"] == pytest.approx(risk.trisk(X[i], X[b], a))
        if i != b:
            assert row["p_baseline"] == pytest.approx(stats.ttest_rel(X[i], X[b]).pvalue)
    # ranks: 1 = best among the rows shown; URisk ranks cover the 5 non-baseline rows
    assert sorted(t6["R_urisk_a0"].dropna()) == [1, 2, 3, 4, 5]
    assert sorted(t6["R_georisk_a5"]) == [1, 2, 3, 4, 5, 6]
    best = t6.loc[t6["zrisk_a5"].idxmax(), "system"]
    assert t6.loc[t6["system"] == best, "R_zrisk_a5"].item() == 1


def test_table6_bad_arguments():
    names, X = _matrix()
    with pytest.raises(ValueError, match="baseline 'nope'"):
        population.table6(names, X, baseline="nope")
    with pytest.raises(ValueError, match="top"):
        population.table6(names, X, baseline="sys00", top=0)
    with pytest.raises(ValueError, match="unique"):
        population.table6(["a", "a"], X[:2], baseline="a")


def test_observations_on_a_constructed_population():
    """A population where the claims hold by construction: URisk = mean order at alpha 0."""
    names, X = _matrix(3)
    t6 = population.table6(names, X, baseline="sys00", alphas=(0, 20), top=6)
    obs = population.observations(t6, alphas=(0, 20)).set_index("claim")
    assert obs.loc["urisk orders the systems as mean err@20", "holds"]  # URisk(0) = mean - mean_b exactly
    assert obs.loc["georisk approaches zrisk's order as alpha grows", "kendall_tau"] == pytest.approx(
        stats.kendalltau(t6["zrisk_a20"], t6["georisk_a20"]).statistic)


def test_georisk_curves_match_measure():
    names, X = _matrix()
    cur = population.georisk_curves(names, X, ["sys01", "sys05"], alphas=[0, 2, 7])
    assert len(cur) == 6
    row = cur[(cur["system"] == "sys05") & (cur["alpha"] == 7)]
    assert row["georisk"].item() == pytest.approx(risk.georisk(X, 5, 7.0))


# ---------------------------------------------------------------------------
# TREC runs: ERR@20 as gdeval.pl computes it
# ---------------------------------------------------------------------------
def _write_trec(tmp_path, rng, n_topics=25, n_runs=3):
    qrels, runs = [], {f"run{k}": [] for k in range(n_runs)}
    for q in range(1, n_topics + 1):
        for d in range(int(rng.integers(1, 45))):
            if rng.random() < 0.8:
                qrels.append(f"{q} 0 doc{d:03d} {int(rng.choice([-2, 0, 0, 1, 2, 3, 4]))}\n")
            for name, lines in runs.items():
                if rng.random() < 0.9:  # integer scores: many ties, broken by docno (descending)
                    lines.append(f"{q} Q0 doc{d:03d} 0 {int(rng.integers(0, 4))} {name}\n")
    (tmp_path / "qrels").write_text("".join(qrels))
    (tmp_path / "runs").mkdir()
    for name, lines in runs.items():
        (tmp_path / "runs" / name).write_text("".join(lines))
    return tmp_path / "qrels", sorted((tmp_path / "runs").iterdir())


def _gdeval(qrels, run, k):
    """gdeval.pl itself (shipped with ir-measures): {topic: (ndcg@k, err@k)} for the topics it reports."""
    ir_measures = pytest.importorskip("ir_measures")
    from importlib import resources

    script = resources.files(ir_measures) / "bin" / "gdeval.pl"
    out = subprocess.run(["perl", str(script), str(qrels), str(run), str(k)], capture_output=True, text=True,
                         check=True).stdout
    return {f[1]: (float(f[2]), float(f[3])) for f in (line.split(",") for line in out.splitlines()[1:] if line)}


@pytest.mark.skipif(shutil.which("perl") is None, reason="gdeval.pl needs perl")
@pytest.mark.parametrize("measure", ["err@20", "ndcg@20"])
def test_trec_measures_equal_gdeval(tmp_path, measure):
    qrels, runs = _write_trec(tmp_path, np.random.default_rng(7))
    names, topics, X, notes = population.score_trec_runs(qrels, runs, measure=measure)
    col = 1 if measure.startswith("err") else 0
    for name, row in zip(names, X):
        ref = _gdeval(qrels, tmp_path / "runs" / name, 20)
        ours = dict(zip(topics, row))
        assert set(ref) <= set(ours)  # every topic gdeval reports; ours adds 0 where a run has no results
        for q, v in ref.items():
            assert ours[q] == pytest.approx(v[col], abs=6e-6), (name, q)  # gdeval prints 5 decimals
        assert len(ref) >= 20
    assert any("without a relevant document left out" in n for n in notes)


def test_trec_adapter_errors(tmp_path):
    qrels, runs = _write_trec(tmp_path, np.random.default_rng(1), n_topics=3)
    bad = tmp_path / "qrels_bad"
    bad.write_text("1 0 d1 5\n")
    with pytest.raises(ValueError, match="grade 5 is above --max-grade 4"):
        population.score_trec_runs(bad, runs, measure="err@20")
    with pytest.raises(ValueError, match="measure 'mapp' is not known"):
        population.score_trec_runs(qrels, runs, measure="mapp")
    broken = tmp_path / "broken"
    broken.write_text("1 Q0 d1 1 0.5 x\n1 Q0 d2 2\n")
    with pytest.raises(ValueError, match=r"broken:2"):
        population.score_trec_runs(qrels, [broken], measure="err@20")


def _cli(*args):
    return evalrank(*args)


def test_cli_risk_on_trec_runs(tmp_path):
    qrels, runs = _write_trec(tmp_path, np.random.default_rng(2), n_topics=12, n_runs=5)
    out = _cli("risk", str(qrels), str(tmp_path / "runs"), "--baseline", "run0", "--format", "tsv",
               "--top", "3", "--alphas", "0", "5", "--out-dir", str(tmp_path / "out"))
    assert out.returncode == 0, out.stderr
    t6 = pd.read_csv(pd.io.common.StringIO(out.stdout), sep="\t")
    assert len(t6) == 4 and "run0" in set(t6["system"]) and "zrisk_a5" in t6.columns
    names, _, X, _ = population.score_trec_runs(qrels, runs, measure="err@20")
    i = names.index(t6["system"][0])
    assert t6["georisk_a5"][0] == pytest.approx(risk.georisk(X, i, 5.0), abs=5e-5)
    for f in ("table6.csv", "observations.csv", "georisk_curves.csv", "fig3_georisk_population.png", "population.npz"):
        assert (tmp_path / "out" / f).stat().st_size > 0
    out = _cli("risk", str(qrels), str(tmp_path / "runs"), "--baseline", "indri")
    assert out.returncode == 1 and "baseline 'indri'" in out.stderr
    out = _cli("risk", str(qrels), str(tmp_path / "nowhere"), "--baseline", "run0")
    assert out.returncode == 1 and "no such file or directory" in out.stderr


def test_cli_risk_example(tmp_path):
    cfg = ROOT / "config" / "dincer2016"
    out = _cli("stage", "risk-example", "--matrix", str(cfg / "dincer2016_table3.csv"),
               "--printed4", str(cfg / "dincer2016_table4_printed.csv"),
               "--printed5", str(cfg / "dincer2016_table5_printed.csv"), "--out-dir", str(tmp_path))
    assert out.returncode == 0, out.stderr
    cmp = pd.read_csv(tmp_path / "vs_paper.csv")
    assert len(cmp) == 156 and cmp["match"].all()
    # a typo in the matrix is caught against the printed tables, and the run fails
    bad = tmp_path / "t3.csv"
    bad.write_text((cfg / "dincer2016_table3.csv").read_text().replace("0.2542", "0.2642"))
    out = _cli("stage", "risk-example", "--matrix", str(bad), "--printed4", str(cfg / "dincer2016_table4_printed.csv"),
               "--printed5", str(cfg / "dincer2016_table5_printed.csv"), "--out-dir", str(tmp_path / "x"))
    assert out.returncode == 1 and "differing from the paper" in out.stderr


def test_read_matrix_errors(tmp_path):
    p = tmp_path / "m.csv"
    p.write_text("system,t1,t2\na,0.1,x\n")
    with pytest.raises(ValueError, match="non-numeric"):
        example.read_matrix(p)
    p.write_text("name,t1\na,0.1\n")
    with pytest.raises(ValueError, match="first column must be 'system'"):
        example.read_matrix(p)


# ---------------------------------------------------------------------------
# the population's systems
# ---------------------------------------------------------------------------
def test_population_variants_are_deterministic_and_distinct():
    train = toy_collection(30, 0)
    test = toy_collection(10, 1)
    specs = systems.variant_specs(["lambdarank", "regression"], 2, [0.5], [1.0])
    params = {"num_leaves": 4, "learning_rate": 0.1, "num_boost_round": 10, "min_data_in_leaf": 5,
              "bagging_fraction": 0.8, "feature_fraction": 0.8}
    a, meta = systems.lightgbm_variants(train, test, specs, seed=3, params=params)
    b, _ = systems.lightgbm_variants(train, test, specs, seed=3, params=params)
    assert list(a) == [s["name"] for s in specs] and len(meta) == 4
    for k in a:
        np.testing.assert_array_equal(a[k], b[k])
    assert not np.array_equal(a["lm_q50_f100_s0"], a["lm_q50_f100_s1"])  # replicates differ
    f = systems.single_feature_scores(test, [1, 3])
    np.testing.assert_array_equal(f["f3"], test.features[:, 2])
    with pytest.raises(ValueError, match="features"):
        systems.single_feature_scores(test, [0])
    with pytest.raises(ValueError, match="objectives"):
        systems.variant_specs(["ranknet"], 1, [1.0], [1.0])


def test_population_measure_checks_what_the_one_parser_returns():
    assert population.population_measure("err@20") == ("err", 20)
    assert population.population_measure("ndcg@5") == ("ndcg", 5)
    for bad in ("map", "ndcg(gain=linear)@10", "err(max_grade=3)@20", "ndcg@frac:0.3", "zipf@10"):
        with pytest.raises(ValueError, match=re.escape(f"measure must be err@k or ndcg@k, got {bad!r}")):
            population.population_measure(bad)
    with pytest.raises(ValueError, match="not known"):
        population.population_measure("xyzzy")
