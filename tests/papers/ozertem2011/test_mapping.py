"""Click relevance -> grade pdf: Beta fits, position-aware prior, posterior (Ozertem et al. 2011, Sec. 3.3)."""

import numpy as np
import pytest
from scipy import stats
from scipy.special import polygamma

from evalrank.papers.ozertem2011.mapping import BetaFits, fit_beta, grade_prior, posterior

TRUE = np.array([[1.5, 6.0], [2.0, 4.0], [3.0, 3.0], [4.0, 2.5], [6.0, 1.5]])


def _beta_se(a, b, n):
    """Asymptotic standard errors of the Beta MLE: sqrt(diag(I^-1)/n), I the Fisher information."""
    t = polygamma(1, a + b)
    info = np.array([[polygamma(1, a) - t, -t], [-t, polygamma(1, b) - t]])
    return np.sqrt(np.diag(np.linalg.inv(info)) / n)


def test_fit_recovers_known_parameters():
    rng = np.random.default_rng(1)
    n = 4000
    grades = np.repeat(np.arange(5), n)
    x = np.concatenate([rng.beta(a, b, n) for a, b in TRUE])
    fits = fit_beta(x, grades, 5)
    assert isinstance(fits, BetaFits) and fits.params.shape == (5, 2)
    assert not fits.pooled.any() and list(fits.n_samples) == [n] * 5
    for j, (a, b) in enumerate(TRUE):
        se = _beta_se(a, b, n)
        assert np.all(np.abs(fits.params[j] - (a, b)) < 5 * se), (j, fits.params[j], se)
    # the fit is the maximum of the likelihood: nearby parameters are worse
    xs = x[grades == 2]
    ll = lambda p: stats.beta.logpdf(xs, *p).sum()
    for delta in ([0.05, 0], [-0.05, 0], [0, 0.05], [0, -0.05]):
        assert ll(fits.params[2]) > ll(fits.params[2] + delta)


def test_fit_clips_exact_zeros_and_ones():
    rng = np.random.default_rng(2)
    x = rng.beta(2.0, 3.0, 500)
    x[:20], x[20:30] = 0.0, 1.0
    fits = fit_beta(x, np.zeros(500, int), 1, eps=1e-3)
    assert np.isfinite(fits.params).all()
    direct = stats.beta.fit(np.clip(x, 1e-3, 1 - 1e-3), floc=0, fscale=1)[:2]
    np.testing.assert_allclose(fits.params[0], direct, rtol=1e-10)


def test_fit_solves_the_score_equations_on_samples_massed_at_the_clipped_ends():
    """Sparse click counts give x = 0 or 1 for many pairs; scipy's beta.fit
    (floc=0, fscale=1) can stop with "failed to converge" on such samples
    (it did on the default world's pooled simplified-DBN fit at >= 3 views).
    Our Newton fit must land on the unique root of the score equations."""
    from scipy.special import digamma

    rng = np.random.default_rng(5)
    for trial in range(20):
        views = rng.integers(1, 6, 1500)
        x = rng.binomial(views, rng.beta(0.7, 1.3, views.size)) / views
        xc = np.clip(x, 1e-4, 1 - 1e-4)
        a, b = fit_beta(x, np.zeros(x.size, int), 1).params[0]
        assert abs(digamma(a) - digamma(a + b) - np.log(xc).mean()) < 1e-9
        assert abs(digamma(b) - digamma(a + b) - np.log1p(-xc).mean()) < 1e-9
        ll = lambda p: stats.beta.logpdf(xc, *p).sum()
        for delta in ([0.01, 0], [-0.01, 0], [0, 0.01], [0, -0.01]):
            assert ll((a, b)) > ll(np.add((a, b), delta))


def test_sparse_grade_is_pooled_and_flagged():
    rng = np.random.default_rng(3)
    x = np.concatenate([rng.beta(2, 5, 300), rng.beta(5, 2, 300), rng.beta(3, 3, 3)])
    g = np.r_[np.zeros(300, int), np.full(300, 1), np.full(3, 2)]
    fits = fit_beta(x, g, 4, min_samples=5)
    assert list(fits.pooled) == [False, False, True, True]
    assert list(fits.n_samples) == [300, 300, 3, 0]
    pooled = stats.beta.fit(np.clip(x, 1e-4, 1 - 1e-4), floc=0, fscale=1)[:2]
    np.testing.assert_allclose(fits.params[2], pooled, rtol=1e-10)
    np.testing.assert_allclose(fits.params[3], pooled, rtol=1e-10)
    assert not np.allclose(fits.params[0], pooled, rtol=0.05)


def test_grade_prior_is_position_aware():
    grades = np.array([4, 4, 3, 0, 0, 0, 1, 2])
    ranks = np.array([1, 1, 2, 3, 5, 6, 1, 4])
    np.testing.assert_allclose(grade_prior(grades, ranks, 1, 5), [0, 1 / 3, 0, 0, 2 / 3])
    np.testing.assert_allclose(grade_prior(grades, ranks, 5, 5), np.array([2, 1, 1, 1, 2]) / 7)
    np.testing.assert_allclose(grade_prior(grades, ranks, 1, 5, pseudo=1.0), np.array([1, 2, 1, 1, 3]) / 8)


def test_posterior_is_bayes_rule():
    params = TRUE
    prior = np.array([0.4, 0.25, 0.2, 0.1, 0.05])
    x = np.r_[np.linspace(0, 1, 11), 0.37]
    post = posterior(x, params, prior)
    xc = np.clip(x, 1e-4, 1 - 1e-4)
    direct = stats.beta.pdf(xc[:, None], params[:, 0], params[:, 1]) * prior
    direct /= direct.sum(1, keepdims=True)
    np.testing.assert_allclose(post, direct, rtol=1e-10, atol=1e-300)
    np.testing.assert_allclose(post.sum(1), 1.0, atol=1e-12)
    # more click relevance -> more weight on the top grade; a zero prior gets zero posterior
    assert np.all(np.diff(post[:11, 4]) > 0)
    prior0 = np.array([0.5, 0.5, 0, 0, 0])
    post0 = posterior(x, BetaFits(params, np.ones(5, int), np.zeros(5, bool)), prior0)
    assert np.all(post0[:, 2:] == 0) and np.allclose(post0.sum(1), 1)


def test_posterior_stable_at_extremes():
    params = np.array([[50.0, 1.0], [1.0, 50.0]])
    post = posterior(np.array([0.0, 1.0]), params, np.array([0.5, 0.5]))
    assert np.isfinite(post).all()
    assert post[0, 1] == pytest.approx(1.0) and post[1, 0] == pytest.approx(1.0)


def test_validation_errors():
    x, g = np.linspace(0.1, 0.9, 10), np.arange(10) % 2
    with pytest.raises(ValueError, match="x: click relevances"):
        fit_beta(np.r_[x[:-1], 1.5], g, 2)
    with pytest.raises(ValueError, match="grades: grade indices"):
        fit_beta(x, g + 1, 2)
    with pytest.raises(TypeError, match="grades"):
        fit_beta(x, g.astype(float), 2)
    with pytest.raises(ValueError, match="grades: expected shape"):
        fit_beta(x, g[:-1], 2)
    with pytest.raises(ValueError, match="fewer than min_samples"):
        fit_beta(x[:3], g[:3], 2)
    with pytest.raises(ValueError, match="eps"):
        fit_beta(x, g, 2, eps=0.0)
    with pytest.raises(ValueError, match="all samples are equal"):
        fit_beta(np.full(10, 0.5), g, 2)
    with pytest.raises(ValueError, match="no judged grade"):
        grade_prior(np.array([1]), np.array([3]), 1, 5)
    with pytest.raises(ValueError, match="ranks are 1-based"):
        grade_prior(np.array([1]), np.array([0]), 1, 5)
    with pytest.raises(ValueError, match="prior: must be"):
        posterior(x, TRUE, np.ones(5))
    with pytest.raises(ValueError, match="prior: expected shape"):
        posterior(x, TRUE, np.ones(4) / 4)
    with pytest.raises(ValueError, match="fits: Beta parameters"):
        posterior(x, -TRUE, np.ones(5) / 5)
