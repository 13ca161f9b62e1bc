"""Score-to-grade calibrator (1-d ordered logit) for RankSVM and LambdaMART."""

from __future__ import annotations

import numpy as np
import pytest

from evalrank.models.calibrate import GradeCalibrator


def scored(n=3000, seed=0, slope=1.0):
    r = np.random.default_rng(seed)
    s = r.normal(size=n) * 3 + 10
    lat = slope * (s - 10) / 3 + r.normal(size=n)
    y = np.searchsorted([0.0, 1.0, 2.0, 2.8], lat).astype(np.int8)
    return s, y


def test_expected_grade_non_decreasing_in_score():
    s, y = scored()
    cal = GradeCalibrator().fit(s, y)
    grid = np.linspace(s.min() - 20, s.max() + 20, 2001)
    eg = cal.expected_grade(grid)
    assert np.all(np.diff(eg) >= 0)
    assert eg[-1] - eg[0] > 2  # informative, not flat
    p = cal.predict_proba(grid)
    assert p.shape == (grid.size, 5) and p.min() >= 0
    np.testing.assert_allclose(p.sum(axis=1), 1, rtol=0, atol=1e-12)
    assert cal.coef_ > 0 and not cal.reversed_


def test_reasonably_calibrated_on_its_data():
    s, y = scored(20000, seed=1)
    cal = GradeCalibrator().fit(s, y)
    p = cal.predict_proba(s)
    np.testing.assert_allclose(p.mean(axis=0), np.bincount(y, minlength=5) / y.size, atol=0.01)


def test_reversed_scores_fall_back_to_marginals():
    s, y = scored(slope=-1.0)
    cal = GradeCalibrator().fit(s, y)
    assert cal.reversed_ and cal.coef_ == 0
    p = cal.predict_proba(np.array([-100.0, 0.0, 100.0]))
    np.testing.assert_allclose(p, np.tile(np.bincount(y, minlength=5) / y.size, (3, 1)), atol=1e-9)


def test_missing_grades_get_zero_columns():
    s, y = scored()
    keep = y != 2
    cal = GradeCalibrator().fit(s[keep], y[keep])
    p = cal.predict_proba(s)
    assert p.shape[1] == 5 and np.all(p[:, 2] == 0)
    np.testing.assert_allclose(p.sum(axis=1), 1, rtol=0, atol=1e-12)
    assert np.all(np.diff(cal.expected_grade(np.sort(s))) >= 0)
    one = GradeCalibrator().fit(s, np.ones_like(y))
    np.testing.assert_array_equal(one.predict_proba(s[:3]), [[0, 1, 0, 0, 0]] * 3)


def test_argument_checks():
    s, y = scored(100)
    with pytest.raises(ValueError, match="alpha"):
        GradeCalibrator(alpha=-1)
    with pytest.raises(ValueError, match="labels"):
        GradeCalibrator().fit(s, y[:-1])
    with pytest.raises(ValueError, match="labels"):
        GradeCalibrator().fit(s, y + 3)
    with pytest.raises(ValueError, match="scores"):
        GradeCalibrator().fit(np.full(100, np.nan), y)
    with pytest.raises(RuntimeError, match="not fitted"):
        GradeCalibrator().predict_proba(s)


def test_fit_without_calibrator_same_model_no_probabilities():
    """fit(calibrate=False) (the NDCG-conventions study: scores only) tunes and scores exactly
    as fit() does; asking it for probabilities is refused, not answered with nonsense."""
    from evalrank.models import zoo
    from toy_data import toy_collection

    train, vali = toy_collection(30, 1), toy_collection(20, 2)
    a = zoo.make_model("rankboost", n_grades=5)
    b = zoo.make_model("rankboost", n_grades=5)
    a.fit(train, vali, grid={}, seed=4)
    b.fit(train, vali, grid={}, seed=4, calibrate=False)
    np.testing.assert_array_equal(a.score(vali.features), b.score(vali.features))
    assert a.best_params_ == b.best_params_ and a.best_vali_ndcg10_ == b.best_vali_ndcg10_
    assert a.predict_proba(vali.features).shape == (vali.features.shape[0], 5)
    with pytest.raises(RuntimeError, match="calibrate=False"):
        b.predict_proba(vali.features)
    with pytest.raises(TypeError, match="calibrate"):
        b.fit(train, vali, grid={}, seed=4, calibrate="no")
