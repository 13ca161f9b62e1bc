"""describe() on a hand-built collection, checked against numbers worked out
by hand; describe_table() and the MSLR-WEB30K reference row."""

import math

import numpy as np
import pytest

from evalrank.data.collection import Collection
from evalrank.data.describe import (
    MSLR_WEB30K_REFERENCE,
    MSLR_WEB30K_SOURCES,
    describe,
    describe_table,
)


def tiny(n_features=16):
    # query sizes 1, 3, 12, 4 (20 documents)
    labels = [0] + [2, 0, 1] + [0] * 11 + [4] + [0, 0, 0, 0]
    features = np.zeros((20, n_features), dtype=np.float32)
    if n_features > 14:
        features[:, 14] = np.arange(1, 21)  # whole-document lengths 1..20
    return Collection(
        features=features,
        labels=np.array(labels, dtype=np.int8),
        offsets=np.array([0, 1, 4, 16, 20], dtype=np.int64),
        qids=np.array([7, 8, 9, 10], dtype=np.int64),
    )


def test_describe_by_hand():
    d = describe(tiny(), name="tiny")
    # sorted sizes 1, 3, 4, 12; linear interpolation at (n - 1) * q = 3q
    expected = {
        "name": "tiny",
        "n_queries": 4,
        "n_docs": 20,
        "n_features": 16,
        "docs_per_query_min": 1,
        "docs_per_query_p05": 1.3,  # 1 + 0.15 * (3 - 1)
        "docs_per_query_p25": 2.5,  # 1 + 0.75 * (3 - 1)
        "docs_per_query_median": 3.5,
        "docs_per_query_mean": 5.0,
        "docs_per_query_p75": 6.0,  # 4 + 0.25 * (12 - 4)
        "docs_per_query_p95": 10.8,  # 4 + 0.85 * (12 - 4)
        "docs_per_query_max": 12,
        "share_queries_lt10_docs": 0.75,
        "grade_0_share": 17 / 20,
        "grade_1_share": 1 / 20,
        "grade_2_share": 1 / 20,
        "grade_3_share": 0.0,
        "grade_4_share": 1 / 20,
        "share_queries_no_relevant": 0.5,  # queries 7 and 10
        "whole_length_median": 10.5,
        "whole_length_p95": 19.05,  # 19 + 0.05 * (20 - 19)
    }
    assert list(d) == list(expected)
    for k, v in expected.items():
        if isinstance(v, float):
            assert d[k] == pytest.approx(v, abs=1e-12), k
        else:
            assert d[k] == v, k


def test_describe_options_and_errors():
    d = describe(tiny(n_features=10))
    assert "whole_length_median" not in d and "whole_length_p95" not in d
    d = describe(tiny(), max_grade=6)
    assert d["grade_5_share"] == 0.0 and d["grade_6_share"] == 0.0
    with pytest.raises(ValueError):
        describe(tiny(), max_grade=3)
    with pytest.raises(TypeError):
        describe(np.zeros(3))


def test_describe_table_rows_and_reference():
    a = tiny()
    low = Collection(a.features, np.minimum(a.labels, 2), a.offsets, a.qids)
    df = describe_table({"a": a, "low": low}, reference=True)
    assert list(df["name"]) == ["a", "low", MSLR_WEB30K_REFERENCE["name"]]
    grade_cols = [c for c in df.columns if c.startswith("grade_")]
    assert grade_cols == [f"grade_{g}_share" for g in range(5)]
    assert df.loc[1, "grade_4_share"] == 0.0 and df.loc[1, "grade_2_share"] == pytest.approx(0.1)
    assert df.loc[2, "n_queries"] == 31531 and df.loc[2, "n_docs"] == 3771125
    assert math.isnan(df.loc[2, "share_queries_no_relevant"])  # unknown stays unknown
    assert describe_table({"a": a}).shape[0] == 1


def test_reference_matches_describe_keys_and_has_sources():
    keys = list(describe(tiny(n_features=136)))
    assert list(MSLR_WEB30K_REFERENCE) == keys
    ref = MSLR_WEB30K_REFERENCE
    assert ref["docs_per_query_mean"] == pytest.approx(119.6, abs=0.01)
    assert sum(ref[f"grade_{g}_share"] for g in range(5)) == pytest.approx(1.0)
    for k, v in ref.items():
        if k != "name" and v is not None:
            assert k in MSLR_WEB30K_SOURCES, k


def test_dataset_figure_is_written_deterministically(tmp_path):
    from evalrank.papers.common.plots.data import plot_dataset

    named = {"tiny": tiny(), "short": tiny(n_features=10)}
    first = plot_dataset(named, tmp_path / "a" / "data.pdf")
    second = plot_dataset(named, tmp_path / "b" / "data.pdf")
    assert [p.name for p in first] == ["data.png", "data.pdf"]
    for p, q in zip(first, second):
        assert p.stat().st_size > 1000
        assert p.read_bytes() == q.read_bytes(), p.name
    assert plot_dataset({"tiny": tiny()}, tmp_path / "c.png") == [tmp_path / "c.png"]
    with pytest.raises(ValueError):
        plot_dataset(named, tmp_path / "d.svg")
