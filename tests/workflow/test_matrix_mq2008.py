"""The dataset matrix (tests/workflow/matrix/), an MQ2008-shaped dataset: 46 query-normalized
features, grades 0-2, no length feature. Every stage that applies completes with unit costs
and three grades; the ones that cannot apply are refused before anything runs, naming the
config key. (The small pool: the one-fold run of test_local_layouts.py.)"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from dagrun import MATRIX, snakemake

pytestmark = pytest.mark.slow


def test_mq2008_shaped_dataset(tmp_path):
    snakemake(tmp_path, "--cores", "2", configs=(MATRIX / "mq2008_shaped.yaml",))
    res = tmp_path / "results" / "mq2008-shaped"
    p = np.load(res / "fold1" / "predictions" / "ordered_logit.npz")
    assert p["probs"].shape == (len(p["labels"]), 3) and p["labels"].max() == 2
    setup = np.load(res / "fold1" / "sawade2012" / "fig1_rf" / "setup.npz")
    assert (setup["costs"] == 1.0).all()                      # unit costs
    assert pd.read_csv(res / "sawade2012" / "savings.csv")["passive_error"].gt(0).all()
    for f in ("busafekete2012/ordering.csv", "busafekete2012/fig2_by_evaluation_tool.png", "dincer2016/learning/table7.csv", "dincer2016/population/table6.csv",
              "fold1/quality/quality.csv"):
        assert (res / f).exists(), f
    assert not (res / "ozertem2011").exists()


@pytest.mark.parametrize("override, key, fragment", [
    ("sawade2012: {cost_feature: 15}", "sawade2012.cost_feature", "no feature is a document length"),
    ("ozertem2011: {enabled: true}", "ozertem2011.grades", "needs dataset.max_grade + 1 grades"),
    ("dincer2016: {population: {features: [5, 110], baseline_feature: 110}}", "dincer2016.population.features",
     "exceed dataset.n_features = 46"),
])
def test_mq2008_shaped_refuses_what_cannot_apply(tmp_path, override, key, fragment):
    extra = tmp_path / "override.yaml"
    extra.write_text(override + "\n")
    out = snakemake(tmp_path, "-n", configs=(MATRIX / "mq2008_shaped.yaml", extra), check=False)
    text = out.stdout + out.stderr
    assert out.returncode != 0 and f"config key '{key}'" in text and fragment in text, text[-3000:]
