"""The dataset matrix (tests/workflow/matrix/): the whole DAG on datasets unlike the default.

``small_pool``: MSLR-shaped, its evaluation pool (60 queries) cheaper than most of the default
budgets (10..400): every stage completes, the budgets at or above the pool's cost label the
whole pool (error 0) and no Monte Carlo run is unbounded.
``mq2008_shaped``: 46 query-normalized features, grades 0-2, no length feature: every stage
that applies completes with unit costs and three grades; the ones that cannot apply are
refused before anything runs, naming the config key.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import MATRIX, snakemake

pytestmark = pytest.mark.slow


def test_small_pool_cheaper_than_the_budgets(tmp_path):
    snakemake(tmp_path, "--cores", "2", configs=(MATRIX / "small_pool.yaml",))
    res = tmp_path / "results" / "small-pool"
    curves = pd.read_csv(res / "active" / "curves.csv")
    assert (curves["pool_cost"] == 60).all()
    whole = curves[curves["budget"] >= 60]
    assert set(whole["budget"]) == {100, 150, 200, 300, 400}
    assert (whole["n_whole_pool"] == whole["n_runs"]).all() and (whole["mean_error"] == 0).all()
    assert (whole["mean_spent"] == 60).all()
    below = curves[curves["budget"] < 60]
    assert (below["n_whole_pool"] == 0).all() and (below["mean_error"] > 0).any()
    assert (curves["n_runs"] + curves["n_undefined"] == 30).all()
    savings = pd.read_csv(res / "active" / "savings.csv")
    assert (savings["reference_budget"] == 20).all() and savings["passive_error"].gt(0).all()
    for stage in ("quality/quality.csv",):
        assert (res / "fold3" / stage).exists()
    for f in ("ndcg/ordering.csv", "risk/learning/table7.csv", "risk/population/table6.csv", "clicks/study.csv"):
        assert (res / f).exists(), f


def test_mq2008_shaped_dataset(tmp_path):
    snakemake(tmp_path, "--cores", "2", configs=(MATRIX / "mq2008_shaped.yaml",))
    res = tmp_path / "results" / "mq2008-shaped"
    p = np.load(res / "fold1" / "predictions" / "ordered_logit.npz")
    assert p["probs"].shape == (len(p["labels"]), 3) and p["labels"].max() == 2
    setup = np.load(res / "fold1" / "active" / "fig1_rf" / "setup.npz")
    assert (setup["costs"] == 1.0).all()                      # unit costs
    assert pd.read_csv(res / "active" / "savings.csv")["passive_error"].gt(0).all()
    for f in ("ndcg/ordering.csv", "ndcg/fig2.png", "risk/learning/table7.csv", "risk/population/table6.csv",
              "fold1/quality/quality.csv"):
        assert (res / f).exists(), f
    assert not (res / "clicks").exists()


@pytest.mark.parametrize("override, key, fragment", [
    ("active: {cost_feature: 15}", "active.cost_feature", "no feature is a document length"),
    ("clicks: {enabled: true}", "clicks.grades", "needs dataset.max_grade + 1 grades"),
    ("risk: {population: {features: [5, 110], baseline_feature: 110}}", "risk.population.features",
     "exceed dataset.n_features = 46"),
])
def test_mq2008_shaped_refuses_what_cannot_apply(tmp_path, override, key, fragment):
    extra = tmp_path / "override.yaml"
    extra.write_text(override + "\n")
    out = snakemake(tmp_path, "-n", configs=(MATRIX / "mq2008_shaped.yaml", extra), check=False)
    text = out.stdout + out.stderr
    assert out.returncode != 0 and f"config key '{key}'" in text and fragment in text, text[-3000:]
