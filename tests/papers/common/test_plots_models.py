"""Model figures render from the quality tables (smoke test on small data)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalrank.models.quality import reliability

pytest.importorskip("evalrank.papers.common.plots.style", reason="evalrank.papers.common.plots.style (save_figure) not written yet")
from evalrank.papers.common.plots.models import plot_quality, plot_reliability  # noqa: E402


def test_plot_reliability(tmp_path):
    r = np.random.default_rng(0)
    p = r.dirichlet(np.ones(5), size=500)
    y = np.array([r.choice(5, p=row) for row in p])
    path = tmp_path / "rel.png"
    plot_reliability(reliability(p, y, 10), path, title="test")
    assert path.stat().st_size > 1000
    with pytest.raises(ValueError, match="reliability_df"):
        plot_reliability(pd.DataFrame({"grade": [0]}), tmp_path / "x.png")


def test_plot_quality(tmp_path):
    df = pd.DataFrame({"model": ["rf", "ranksvm", "random"], "ndcg@10": [0.5, 0.4, 0.2], "err": [0.4, 0.35, 0.15]})
    path = tmp_path / "q.png"
    plot_quality(df, path)
    assert path.stat().st_size > 1000
    plot_quality(df[df.model != "random"], tmp_path / "q2.png", baseline={"ndcg@10": 0.2, "err": 0.1})
    with pytest.raises(ValueError, match="baseline"):
        plot_quality(df, tmp_path / "q3.png", baseline={"ndcg": 0.2})
    with pytest.raises(TypeError, match="quality_df"):
        plot_quality(df.to_dict(), tmp_path / "q4.png")
    # the cut-off comes from the table's one ndcg@<k> column (quality.k of the config)
    plot_quality(df.rename(columns={"ndcg@10": "ndcg@5"}), tmp_path / "q5.png")
    with pytest.raises(ValueError, match="ndcg@<k>"):
        plot_quality(df.assign(**{"ndcg@5": 0.1}), tmp_path / "q6.png")
