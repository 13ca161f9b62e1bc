"""Model-quality table: hand-computed log loss / ECE, reliability, random baseline."""

from __future__ import annotations

import math

import numpy as np
import pytest

from evalrank.metrics import err, ndcg
from evalrank.models.quality import log_loss, quality_row, random_baseline, reliability, top_label_ece

PROBS = np.array([
    [0.70, 0.20, 0.10, 0.00, 0.00],  # y=0: conf .70 (bin 10), correct
    [0.10, 0.55, 0.35, 0.00, 0.00],  # y=2: conf .55 (bin 8), wrong
    [0.25, 0.25, 0.20, 0.15, 0.15],  # y=4: conf .25 (bin 3), tie -> grade 0, wrong
    [0.00, 0.00, 0.00, 0.05, 0.95],  # y=3: conf .95 (bin 14), wrong
    [0.02, 0.68, 0.30, 0.00, 0.00],  # y=1: conf .68 (bin 10), correct
])
LABELS = np.array([0, 2, 4, 3, 1], dtype=np.int8)
OFFSETS = np.array([0, 2, 5])
SCORES = np.array([0.3, 0.1, 0.5, 0.9, 0.2])


def test_log_loss_by_hand():
    expected = -(math.log(0.70) + math.log(0.35) + math.log(0.15) + math.log(0.05) + math.log(0.68)) / 5
    assert log_loss(PROBS, LABELS) == pytest.approx(expected, rel=1e-14)
    # a zero probability for the true grade is clipped at 1e-15
    assert log_loss(np.array([[1.0, 0, 0, 0, 0]]), np.array([1])) == pytest.approx(-math.log(1e-15))


def test_top_label_ece_by_hand():
    # bins of width 1/15: {0.70, 0.68} share bin 10 (accuracy 1, mean conf .69)
    expected = (2 / 5) * abs(1 - 0.69) + (1 / 5) * 0.55 + (1 / 5) * 0.25 + (1 / 5) * 0.95
    assert top_label_ece(PROBS, LABELS, 15) == pytest.approx(expected, rel=1e-12)
    # perfectly confident and right -> 0
    assert top_label_ece(np.eye(5), np.arange(5)) == 0.0


def test_quality_row():
    row = quality_row(SCORES, PROBS, LABELS, OFFSETS)
    assert set(row) == {"ndcg@10", "err", "log_loss", "ece", "expected_grade_rmse", "n_queries", "n_docs"}
    assert row["ndcg@10"] == pytest.approx(np.mean(ndcg(SCORES, LABELS, OFFSETS, k=10)))
    assert row["err"] == pytest.approx(np.mean(err(SCORES, LABELS, OFFSETS, max_grade=4)))
    assert row["log_loss"] == pytest.approx(log_loss(PROBS, LABELS))
    assert row["ece"] == pytest.approx(top_label_ece(PROBS, LABELS, 15))
    eg = np.array([0.4, 1.25, 1.7, 3.95, 1.28])
    assert row["expected_grade_rmse"] == pytest.approx(np.sqrt(np.mean((eg - LABELS) ** 2)))
    assert (row["n_queries"], row["n_docs"]) == (2, 5)
    # a query without a relevant document counts 0 in the NDCG mean
    row0 = quality_row(np.zeros(2), PROBS[:2], np.array([0, 0]), np.array([0, 2]))
    assert row0["ndcg@10"] == 0.0


def test_quality_row_cutoff_and_bins():
    row = quality_row(SCORES, PROBS, LABELS, OFFSETS, k=1, ece_bins=2)
    assert "ndcg@10" not in row
    assert row["ndcg@1"] == pytest.approx(np.mean(ndcg(SCORES, LABELS, OFFSETS, k=1)))
    assert row["ndcg@1"] != pytest.approx(np.mean(ndcg(SCORES, LABELS, OFFSETS, k=10)))
    assert row["ece"] == pytest.approx(top_label_ece(PROBS, LABELS, 2))
    with pytest.raises(ValueError, match="k must"):
        quality_row(SCORES, PROBS, LABELS, OFFSETS, k=0)
    with pytest.raises(ValueError, match="n_bins"):
        quality_row(SCORES, PROBS, LABELS, OFFSETS, ece_bins=0)


def test_quality_row_argument_checks():
    with pytest.raises(ValueError, match="probs"):
        quality_row(SCORES, PROBS[:, :4], LABELS.clip(0, 3), OFFSETS)
    with pytest.raises(ValueError, match="probs rows"):
        quality_row(SCORES, PROBS * 2, LABELS, OFFSETS)
    with pytest.raises(ValueError, match="labels"):
        quality_row(SCORES, PROBS, LABELS[:4], OFFSETS)
    with pytest.raises(ValueError, match="scores"):
        quality_row(SCORES[:4], PROBS, LABELS, OFFSETS)
    with pytest.raises(ValueError, match="offsets"):
        quality_row(SCORES, PROBS, LABELS, np.array([0, 2, 4]))
    with pytest.raises(ValueError, match="max_grade"):
        quality_row(SCORES, PROBS, LABELS, OFFSETS, max_grade=0)
    with pytest.raises(ValueError, match="n_bins"):
        top_label_ece(PROBS, LABELS, 0)


def test_reliability_table():
    df = reliability(PROBS, LABELS, n_bins=10)
    assert list(df.columns) == ["grade", "bin", "bin_lo", "bin_hi", "mean_pred", "obs_freq", "count"]
    assert len(df) == 50
    assert (df.groupby("grade")["count"].sum() == 5).all()
    # grade 1: predictions .2, .55, .25, 0, .68 -> bins 1, 5, 2, 0, 6; only the .68 document has grade 1
    g1 = df[df.grade == 1].set_index("bin")
    assert g1.loc[6, "count"] == 1 and g1.loc[6, "obs_freq"] == 1.0 and g1.loc[6, "mean_pred"] == pytest.approx(0.68)
    assert g1.loc[5, "obs_freq"] == 0.0
    assert g1.loc[9, "count"] == 0 and np.isnan(g1.loc[9, "mean_pred"])


def test_random_baseline():
    labels = np.array([2, 0] * 1, dtype=np.int8)
    b = random_baseline(labels, np.array([0, 2]), seed=1, n_draws=4000)
    # two orders, equally likely: NDCG 1 or 1/log2(3)
    assert b["ndcg@10"] == pytest.approx(0.5 * (1 + 1 / math.log2(3)), abs=0.02)
    r = 3 / 16
    assert b["err"] == pytest.approx(0.5 * (r + r / 2), abs=0.01)
    assert random_baseline(labels, np.array([0, 2]), seed=1, n_draws=4000) == b
    with pytest.raises(ValueError, match="n_draws"):
        random_baseline(labels, np.array([0, 2]), seed=1, n_draws=0)
