"""benchmarks/campaign_limits.py: the exact term variance, the after-the-fact slope, and the claim
that the Des Raj terms without a control variate on uniform draws are a random sample's mean."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "campaign_limits.py"


@pytest.fixture(scope="module")
def limits():
    spec = importlib.util.spec_from_file_location("campaign_limits_bench", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_term_variance_is_the_variance_over_q(limits):
    rng = np.random.default_rng(5)
    q = rng.random(9) + 0.05
    q /= q.sum()
    r = rng.normal(size=9)
    vals = r / q
    mean = np.sum(q * vals)
    assert limits.term_variance(q, r) == pytest.approx(np.sum(q * (vals - mean) ** 2), rel=1e-12)


def _pool(seed, N=25):
    rng = np.random.default_rng(seed)
    f = rng.uniform(0, 5, N)
    L = np.clip(0.4 * f + rng.normal(0, 1.5, N), 0, 8)
    return f, L


def test_without_a_control_variate_uniform_draws_give_the_sample_mean(limits):
    """The benchmark's ``none`` column on uniform draws is the random sample's own estimate."""
    from evalrank.active.finite import _running_estimate, desraj_terms

    f, L = _pool(1)
    N = L.size
    q = np.full(N, 1.0 / N)
    seq = np.random.default_rng(2).permutation(N)[:12]
    est = _running_estimate(desraj_terms(q, seq, L[seq], np.full(N, 2.0), np.zeros(N), np.full(N, 8.0)))
    np.testing.assert_allclose(est, np.cumsum(L[seq]) / np.arange(1, 13), rtol=1e-10)


def test_retro_slope_is_the_weighted_least_squares_one(limits):
    """One slope after the fact: the weighted mean of ``A + b B`` with ``b`` minimizing the terms'
    weighted variance, checked against a brute-force search over ``b``; an exhausted pool gives
    its exact mean."""
    from evalrank.active.finite import desraj_terms

    f, L = _pool(3)
    N = L.size
    rng = np.random.default_rng(4)
    q = rng.random(N) + 0.2
    q /= q.sum()
    seq = rng.permutation(N)
    terms = desraj_terms(q, seq, L[seq], f, np.zeros(N), np.full(N, 8.0))
    got = limits.retro_estimate(q, seq, L[seq], f, terms["weight"])
    assert got[-1] == pytest.approx(L.mean(), rel=1e-12)
    k = 10
    # brute force: the terms at slope b, recomputed from their definition
    left = np.ones(N, dtype=bool)
    A, B = [], []
    for x in seq[:k]:
        qt = q[x] / q[left].sum()
        A.append((L[~left].sum() + L[x] / qt) / N)
        B.append((f[left].sum() - f[x] / qt) / N)
        left[x] = False
    A, B, a = np.array(A), np.array(B), terms["weight"][:k]
    grid = np.linspace(-3, 3, 60001)
    phis = A[None, :] + grid[:, None] * B[None, :]
    means = phis @ a / a.sum()
    spread = ((phis - means[:, None]) ** 2) @ a
    assert got[k - 1] == pytest.approx(means[np.argmin(spread)], abs=1e-4 * np.abs(L).max())
