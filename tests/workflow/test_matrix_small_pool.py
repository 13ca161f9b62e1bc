"""The dataset matrix (tests/workflow/matrix/), an MSLR-shaped dataset whose evaluation pool
(60 queries) costs less than most of the default budgets (10..400): the data, model and active
stages and the findings complete, the budgets at or above the pool's cost label the whole pool
(error 0) and no Monte Carlo run is unbounded. Two models (Figs. 1-3 left's 4 experiments); the
whole zoo and the NDCG, risk and clicks stages, which do not look at the pool's cost, run on the
tiny config's MSLR-shaped dataset of 16 queries a partition (test_dag.py). (The MQ2008-shaped
dataset: test_matrix_mq2008.py; one module each, so that make test runs them on two workers.)"""

from __future__ import annotations

import pandas as pd
import pytest
from dagrun import MATRIX, snakemake

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
    assert (res / "findings.md").is_file()
    for stage in ("ndcg", "risk", "clicks", "theory"):  # off in small_pool.yaml
        assert not (res / stage).exists(), stage
