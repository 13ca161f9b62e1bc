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


def test_first_round_grid_is_the_term_variance_of_each_mixed_round(limits):
    """Part 3's grid, brute force: the variance over draws from ``(1 - lambda0) q + lambda0 / N`` of
    ``(L - b0 f) / q_lambda0``, over the variance of ``L / u`` under uniform draws."""
    f, L = _pool(6, N=11)
    rng = np.random.default_rng(7)
    q = rng.random(L.size) + 0.1
    q /= q.sum()
    mixes, slopes = (0.0, 0.4, 1.0), (0.0, 0.7, 1.2)
    got = limits.first_round_grid({"L": L, "f": f, "q": q}, mixes, slopes)
    u = np.full(L.size, 1.0 / L.size)

    def var(p, v):
        return float(np.sum(p * (v - np.sum(p * v)) ** 2))

    base = var(u, L / u)
    for i, lam in enumerate(mixes):
        ql = (1 - lam) * q + lam * u
        for j, b in enumerate(slopes):
            assert got[i, j] == pytest.approx(var(ql, (L - b * f) / ql) / base, rel=1e-10)
    assert got[2, 0] == pytest.approx(1.0)      # uniform draws, no control variate: random sampling


def test_first_round_bound_searches_only_the_rounds_that_keep_the_savings(limits):
    """The bound's minimum is over the cells where every useful world stays under its old ratio
    squared (checked cell by cell), the later round the whole grid's best, combined at inverse
    variance; no such cell: nothing to bound."""
    rng = np.random.default_rng(8)
    use1, use2, weak = rng.uniform(0.0, 0.1, (3, 5)), rng.uniform(0.0, 0.2, (3, 5)), rng.uniform(0.8, 1.4, (3, 5))
    got = limits.first_round_bound({"a": (use1, 0.25), "b": (use2, 0.35)}, weak)
    cells = [(i, j) for i in range(3) for j in range(5) if use1[i, j] <= 0.0625 and use2[i, j] <= 0.1225]
    assert got["feasible"] == len(cells) > 0
    i, j = min(cells, key=lambda c: weak[c])
    assert got["at"] == (i, j) and got["r1"] == weak[i, j] and got["r2"] == weak.min()
    assert got["var"] == pytest.approx(2 / (1 / weak[i, j] + 1 / weak.min()))
    assert got["rmse"] == pytest.approx(np.sqrt(got["var"]))
    assert limits.first_round_bound({"a": (use1 + 1.0, 0.25)}, weak) == {"feasible": 0}
