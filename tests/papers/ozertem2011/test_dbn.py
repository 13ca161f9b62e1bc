"""The DBN click model: closed-form E-step against brute-force enumeration,
sampling, the simplified DBN (eq. 1), EM recovery and its invariants."""

import itertools

import numpy as np
import pytest
from scipy import stats

from evalrank.papers.ozertem2011 import dbn
from evalrank.papers.ozertem2011.logs import session_log


# ---------------------------------------------------------------- brute force

def brute_force(a, s, gamma):
    """Enumerate every (A, S, continuation) draw of one session on a list of
    m = len(a) results; return {click pattern: (P(pattern), E[E_r], E[A_r],
    E[S_r], E[E_{r+1}] (r < m), E[E_r (1 - S_r)] (r < m))} with the
    expectations *joint* with the pattern (divide by P to condition)."""
    m = len(a)
    out = {}
    for A in itertools.product((0, 1), repeat=m):
        for S in itertools.product((0, 1), repeat=m):
            for G in itertools.product((0, 1), repeat=m - 1):
                p, e = 1.0, 1
                E, C, nxt, chance = np.zeros(m), np.zeros(m, int), np.zeros(m), np.zeros(m)
                for r in range(m):
                    E[r] = e
                    p *= a[r] if A[r] else 1 - a[r]
                    C[r] = e * A[r]
                    if C[r]:
                        p *= s[r] if S[r] else 1 - s[r]
                    elif S[r]:
                        p = 0.0          # S_r = 0 without a click
                    if r < m - 1:
                        p *= gamma if G[r] else 1 - gamma
                        chance[r] = e * (1 - S[r])
                        e = e * (1 - S[r]) * G[r]
                        nxt[r] = e
                if p == 0.0:
                    continue
                acc = out.setdefault(tuple(C), [0.0] + [np.zeros(m) for _ in range(5)])
                acc[0] += p
                for k, v in enumerate((E, np.array(A, float), np.array(S, float) * E * np.array(A), nxt, chance)):
                    acc[k + 1] += p * v
    return out


CASES = [  # (m, depth, seed, boundary): a list of m results on serps of the given depth
    (3, 3, 0, False), (4, 4, 1, False), (3, 4, 2, False), (4, 4, 3, True)]


def _case(m, depth, seed, boundary):
    r = np.random.default_rng(seed)
    a, s = r.uniform(0.05, 0.95, m), r.uniform(0.05, 0.95, m)
    gamma = float(r.uniform(0.2, 1.0))
    if boundary:                             # probabilities at the edges: no NaN, impossible patterns dropped
        a[1], s[2], gamma = 1.0, 0.0, 1.0
    return a, s, gamma


@pytest.mark.parametrize("m, depth, seed, boundary", CASES)
def test_closed_form_posteriors_match_enumeration(m, depth, seed, boundary):
    a, s, gamma = _case(m, depth, seed, boundary)
    bf = brute_force(a, s, gamma)
    patterns = list(itertools.product((0, 1), repeat=m))
    serps = np.full((1, depth), -1)
    serps[0, :m] = np.arange(m)
    clicks = np.zeros((len(patterns), depth), dtype=bool)
    clicks[:, :m] = patterns
    log = session_log(serps, [0], np.zeros(len(patterns), int), clicks)
    post = dbn._posteriors(log, a, s, gamma)
    lik = np.exp(post["loglik"])
    assert lik.sum() == pytest.approx(1.0, abs=1e-12)
    for i, pat in enumerate(patterns):
        if pat not in bf:
            assert lik[i] == 0.0
            continue
        p, E, A, S, nxt, _ = bf[pat]
        assert lik[i] == pytest.approx(p, rel=1e-12, abs=1e-15)
        for name, want in (("E", E), ("A", A), ("S", S), ("cont", nxt)):
            np.testing.assert_allclose(post[name][i, :m], want / p, atol=1e-12, err_msg=f"{name}, pattern {pat}")
            np.testing.assert_array_equal(post[name][i, m:], 0.0)


@pytest.mark.parametrize("m, depth, seed, boundary", CASES)
def test_pooled_expected_counts_match_enumeration(m, depth, seed, boundary):
    """The E-step fit_dbn runs (pooled over (serp, last click)) gives the
    brute-force expected counts per pair and the log-likelihood, with pairs
    shown at different ranks on two serps and random session counts."""
    a, s, gamma = _case(m, depth, seed, boundary)
    order = [np.arange(m), np.random.default_rng(seed + 10).permutation(m)]
    r = np.random.default_rng(seed + 20)
    want = {k: np.zeros(m) for k in ("examined", "satisfied", "cont", "chances")}
    want["loglik"] = 0.0
    serps = np.full((2, depth), -1)
    rows, masks, counts = [], [], []
    for j, perm in enumerate(order):
        serps[j, :m] = perm
        bf = brute_force(a[perm], s[perm], gamma)
        for pat, (p, E, _, S, nxt, chance) in bf.items():
            c = int(r.integers(1, 6))
            rows.append(j)
            masks.append(sum(1 << k for k in range(m) if pat[k]))
            counts.append(c)
            for name, v in (("examined", E), ("satisfied", S), ("cont", nxt), ("chances", chance)):
                np.add.at(want[name], perm, c * v / p)
            want["loglik"] += c * np.log(p)
    log = session_log(serps, [0, 0], rows, np.array(masks, dtype=np.uint32), np.array(counts))
    pooled = dbn._pool(log, m)
    got = dbn._expected(pooled, a, s, gamma)
    for name in ("examined", "satisfied", "cont", "chances"):
        np.testing.assert_allclose(dbn._scatter(pooled, got[name], m), want[name], atol=1e-11, err_msg=name)
    assert got["loglik"] == pytest.approx(want["loglik"], rel=1e-12)
    assert dbn.log_likelihood(log, a, s, gamma) == pytest.approx(want["loglik"], rel=1e-12)


def test_sampled_pattern_frequencies_match_enumeration():
    """Chi-square of 400,000 sampled sessions against the enumerated pattern
    probabilities, on a full list of 4 and a list of 3 on a depth-4 serp."""
    a, s, gamma = np.array([0.6, 0.3, 0.5, 0.8]), np.array([0.4, 0.7, 0.2, 0.5]), 0.8
    serps = np.array([[0, 1, 2, 3], [2, 0, 3, -1]])
    n = 200_000
    for j in range(2):
        shown = serps[j][serps[j] >= 0]
        bf = brute_force(a[shown], s[shown], gamma)
        got = dbn.sample_sessions(serps, np.full(n, j), a, s, gamma, np.random.default_rng(j))
        assert got.dtype == np.uint32
        assert got.max() < (1 << shown.size)                     # nothing after the list's end
        masks = [sum(1 << k for k in range(shown.size) if pat[k]) for pat in bf]
        expected = np.array([v[0] for v in bf.values()]) * n
        observed = np.array([(got == mk).sum() for mk in masks])
        assert observed.sum() == n                               # no impossible pattern drawn
        assert stats.chisquare(observed, expected).pvalue > 1e-4


def test_sampling_is_reproducible_and_respects_extremes():
    serps = np.array([[0, 1, 2]])
    one = np.ones(3)
    rs = np.zeros(1000, dtype=np.int64)
    # a = 1, s = 0, gamma = 1: every result clicked
    np.testing.assert_array_equal(dbn.sample_sessions(serps, rs, one, 0 * one, 1.0, np.random.default_rng(0)), 7)
    # a = 1, s = 1: the first click satisfies
    np.testing.assert_array_equal(dbn.sample_sessions(serps, rs, one, one, 1.0, np.random.default_rng(0)), 1)
    # gamma = 0: only rank 1 is ever examined
    assert dbn.sample_sessions(serps, rs, one, 0 * one, 0.0, np.random.default_rng(0)).max() == 1
    x = dbn.sample_sessions(serps, rs, 0.5 * one, 0.5 * one, 0.7, np.random.default_rng(3))
    np.testing.assert_array_equal(x, dbn.sample_sessions(serps, rs, 0.5 * one, 0.5 * one, 0.7,
                                                         np.random.default_rng(3)))


# ---------------------------------------------------------------- simplified DBN

def _random_log(seed, n_rows=3000, n_pairs=40, n_serps=30, depth=6):
    r = np.random.default_rng(seed)
    lengths = r.integers(1, depth + 1, n_serps)
    serps = np.full((n_serps, depth), -1)
    for j in range(n_serps):
        serps[j, :lengths[j]] = r.choice(n_pairs, lengths[j], replace=False)
    rs = r.integers(0, n_serps, n_rows)
    clicks = r.integers(0, 1 << depth, n_rows) & ((1 << lengths[rs]) - 1)
    return session_log(serps, np.arange(n_serps) % 7, rs, clicks, r.integers(1, 4, n_rows)), n_pairs


def test_simplified_dbn_matches_a_per_session_loop():
    log, n = _random_log(0)
    views, clicks, last = np.zeros(n, int), np.zeros(n, int), np.zeros(n, int)
    for i in range(log.n_rows):
        row, mask, c = log.serps[log.row_serp[i]], int(log.clicks[i]), int(log.counts[i])
        lc = mask.bit_length()              # last clicked rank, 1-based; 0 = no click
        for r in range(lc):
            views[row[r]] += c
            if mask >> r & 1:
                clicks[row[r]] += c
        if lc:
            last[row[lc - 1]] += c
    got = dbn.simplified_dbn(log, n, min_views=25)
    for name, want in (("views", views), ("clicks", clicks), ("last_clicks", last)):
        np.testing.assert_array_equal(getattr(got, name), want, err_msg=name)
        assert getattr(got, name).dtype == np.int64
    with np.errstate(invalid="ignore", divide="ignore"):
        np.testing.assert_array_equal(got.attract, np.where(views > 0, clicks / views, 0.0))
        np.testing.assert_array_equal(got.satisfy, np.where(clicks > 0, last / clicks, 0.0))
    np.testing.assert_array_equal(got.relevance, got.attract * got.satisfy)
    np.testing.assert_array_equal(got.reliable, views >= 25)
    assert (views == 0).any() and (clicks == 0).any()         # the 0/0 conventions were exercised


# ---------------------------------------------------------------- EM

@pytest.fixture(scope="module")
def world():
    """50 serps of depth 10 over 10 queries x 15 pairs (each serp a random
    10 of its query's 15, so pairs appear at several ranks), 200,000 sessions."""
    r = np.random.default_rng(5)
    nq, per, depth, serps_per_query = 10, 15, 10, 5
    serps = np.array([q * per + r.permutation(per)[:depth] for q in range(nq) for _ in range(serps_per_query)])
    a, s, gamma = r.uniform(0.1, 0.9, nq * per), r.uniform(0.1, 0.9, nq * per), 0.85
    rs = r.integers(0, serps.shape[0], 200_000)
    clicks = dbn.sample_sessions(serps, rs, a, s, gamma, r)
    log = session_log(serps, np.repeat(np.arange(nq), serps_per_query), rs, clicks).aggregate()
    return log, nq * per, a, s, gamma


def _standard_errors(log, n_pairs, a, s, gamma, h=1e-3):
    """Per-pair SEs of a and s from the observed information (second
    differences of the log-likelihood in one pair's parameter, the others
    fixed). A parametric bootstrap of this world (40 replicates) gave SDs of
    0.7-1.3x these."""
    pooled = dbn._pool(log, n_pairs)

    def ll(p, which, d):
        x = (a, s)[which].copy()
        x[p] += d
        return dbn._expected(pooled, *((x, s) if which == 0 else (a, x)), gamma)["loglik"]

    f0 = ll(0, 0, 0.0)
    se = np.full((2, n_pairs), np.inf)
    for p in range(n_pairs):
        for which in (0, 1):
            d = min(h, (a, s)[which][p] / 2, (1 - (a, s)[which][p]) / 2)
            curv = -(ll(p, which, d) - 2 * f0 + ll(p, which, -d)) / d ** 2
            if curv > 0:
                se[which, p] = curv ** -0.5
    return se


@pytest.mark.parametrize("estimate_gamma", [False, True])
def test_em_recovers_the_simulated_parameters(world, estimate_gamma):
    """Pairs with >= 100 views: every |error| within 5 SEs (observed
    information), and the mean squared z near 1 (the errors are neither
    larger nor much smaller than sampling noise); gamma within 0.01."""
    log, n, a, s, gamma = world
    fit = dbn.fit_dbn(log, n, gamma=None if estimate_gamma else gamma, prior=(1.0, 1.0))
    assert fit.converged and fit.n_iter < 200
    if estimate_gamma:
        assert abs(fit.gamma - gamma) < 0.01
    else:
        assert fit.gamma == gamma
    se = _standard_errors(log, n, fit.attract, fit.satisfy, fit.gamma)
    ok = fit.views >= 100
    assert ok.sum() >= 100
    for which, est, true in ((0, fit.attract, a), (1, fit.satisfy, s)):
        z = (est - true)[ok] / se[which, ok]
        assert np.abs(z).max() < 5, (which, np.abs(z).max())
        assert 0.5 < np.mean(z ** 2) < 2.0, (which, np.mean(z ** 2))
    # the simplified DBN ignores examination after the last click: clearly worse on a
    simp = dbn.simplified_dbn(log, n)
    assert np.mean(np.abs(simp.attract - a)[ok]) > 3 * np.mean(np.abs(fit.attract - a)[ok])


def test_em_fields_and_monotone_objective(world):
    log, n, a, s, gamma = world
    fit = dbn.fit_dbn(log, n, gamma=None, prior=(1.0, 1.0), min_views=50, progress_desc="test EM")
    lp = fit.log_posterior
    assert lp.shape == fit.log_likelihood.shape == (fit.n_iter + 1,) and fit.e_steps == 3 * fit.n_iter
    assert np.all(np.diff(lp) >= -1e-10 * np.abs(lp[1:]))
    assert lp[-1] > lp[0] + 100
    np.testing.assert_array_equal(fit.relevance, fit.attract * fit.satisfy)
    imp = np.zeros(n, dtype=np.int64)
    np.add.at(imp, log.serps[log.row_serp].ravel(), np.repeat(log.counts, log.depth))
    np.testing.assert_array_equal(fit.impressions, imp)
    simp = dbn.simplified_dbn(log, n, min_views=50)
    np.testing.assert_array_equal(fit.views, simp.views)
    np.testing.assert_array_equal(fit.reliable, simp.views >= 50)
    assert np.all(fit.examinations <= fit.impressions + 1e-9) and np.all(fit.examinations >= simp.views - 1e-9)
    assert fit.log_likelihood[-1] == pytest.approx(dbn.log_likelihood(log, fit.attract, fit.satisfy, fit.gamma),
                                                   rel=1e-12)


def test_maximum_likelihood_em_beats_the_simplified_dbn(world):
    """prior = (0, 0): the log-likelihood itself never decreases and ends
    above that of the simplified DBN's parameters (same gamma)."""
    log, n, a, s, gamma = world
    fit = dbn.fit_dbn(log, n, gamma=gamma, prior=(0.0, 0.0), tol=1e-12, max_iter=500)
    ll = fit.log_likelihood
    np.testing.assert_array_equal(ll, fit.log_posterior)
    assert np.all(np.diff(ll) >= -1e-10 * np.abs(ll[1:]))
    simp = dbn.simplified_dbn(log, n)
    ll_simp = dbn.log_likelihood(log, simp.attract, simp.satisfy, gamma)
    assert np.isfinite(ll_simp)
    assert ll[-1] > ll_simp + 100
    assert ll[-1] >= dbn.log_likelihood(log, a, s, gamma)      # the MLE fits the sample at least as well as the truth


def test_squarem_reaches_the_em_fixed_point_with_far_fewer_e_steps():
    """A Zipf-like log (240 serps, 100,000 sessions) where plain EM crawls:
    plain EM raises the log-posterior at every iteration and needs > 1000
    E-steps; SQUAREM gets to the same point (log-posterior within 1e-4 nats,
    a within 1e-4, s within 1e-3, gamma within 1e-6) in under a quarter of them."""
    r = np.random.default_rng(7)
    nq, per, depth = 60, 14, 10
    serps = np.array([q * per + r.permutation(per)[:depth] for q in range(nq) for _ in range(4)])
    freq = 1 / np.arange(1, serps.shape[0] + 1)
    freq = freq[r.permutation(freq.size)] / freq.sum()
    a, s = r.beta(1.5, 3, nq * per), r.beta(2, 3, nq * per)
    rs = r.choice(serps.shape[0], 100_000, p=freq)
    log = session_log(serps, np.repeat(np.arange(nq), 4), rs, dbn.sample_sessions(serps, rs, a, s, 0.9, r))
    plain = dbn.fit_dbn(log, nq * per, gamma=None, accelerate=False, max_iter=3000, tol=1e-14)
    fast = dbn.fit_dbn(log, nq * per, gamma=None, max_iter=3000, tol=1e-12)
    assert plain.converged and fast.converged and plain.e_steps == plain.n_iter > 1000
    assert fast.e_steps < plain.e_steps / 4
    lp = plain.log_posterior
    assert lp.size == plain.n_iter + 1 and np.all(np.diff(lp) >= -1e-10 * np.abs(lp[1:]))
    assert np.all(np.diff(fast.log_posterior) >= -1e-10 * np.abs(fast.log_posterior[1:]))
    assert fast.log_posterior[-1] == pytest.approx(lp[-1], abs=1e-4)
    np.testing.assert_allclose(fast.attract, plain.attract, atol=1e-4)
    np.testing.assert_allclose(fast.satisfy, plain.satisfy, atol=1e-3)
    assert fast.gamma == pytest.approx(plain.gamma, abs=1e-6)
    # at the default tol plain EM stops short; SQUAREM's stopping point is better
    assert (dbn.fit_dbn(log, nq * per, gamma=None).log_posterior[-1]
            > dbn.fit_dbn(log, nq * per, gamma=None, accelerate=False).log_posterior[-1])


def test_raw_and_aggregated_logs_give_the_same_fit():
    """One row per session (shuffled, some sessions split into rows with
    counts) and the aggregated log: identical parameters."""
    r = np.random.default_rng(11)
    serps = np.array([[0, 1, 2, 3, 4], [4, 2, 5, 6, -1], [7, 0, 3, -1, -1]])
    a, s = r.uniform(0.2, 0.8, 8), r.uniform(0.2, 0.8, 8)
    rs = r.integers(0, 3, 6000)
    clicks = dbn.sample_sessions(serps, rs, a, s, 0.8, r)
    raw = session_log(serps, [0, 0, 1], rs, clicks)
    agg = raw.aggregate()
    assert agg.n_rows < raw.n_rows / 10
    # split every aggregated row into two rows (counts c - 1 and 1) where possible, in shuffled order
    big = agg.counts > 1
    idx = np.concatenate([np.arange(agg.n_rows), np.nonzero(big)[0]])
    cnt = np.concatenate([np.where(big, agg.counts - 1, agg.counts), np.ones(big.sum(), int)])
    perm = r.permutation(idx.size)
    split = session_log(serps, [0, 0, 1], agg.row_serp[idx][perm], agg.clicks[idx][perm], cnt[perm])
    for gamma in (0.8, None):
        fits = [dbn.fit_dbn(x, 8, gamma=gamma, tol=1e-12) for x in (raw, agg, split)]
        for f in fits[1:]:
            for name in ("attract", "satisfy", "impressions", "views"):
                np.testing.assert_allclose(getattr(f, name), getattr(fits[0], name), rtol=0, atol=1e-13)
            assert f.gamma == pytest.approx(fits[0].gamma, abs=1e-13) and f.n_iter == fits[0].n_iter


# ---------------------------------------------------------------- validation

def test_argument_errors():
    log, n = _random_log(1, n_rows=50)
    serps, rs = np.array([[0, 1, -1]]), np.zeros(3, dtype=np.int64)
    p = np.full(2, 0.5)
    g = np.random.default_rng(0)
    cases = [
        (ValueError, "gamma", lambda: dbn.sample_sessions(serps, rs, p, p, 1.5, g)),
        (TypeError, "gamma", lambda: dbn.sample_sessions(serps, rs, p, p, "0.9", g)),
        (ValueError, "attract", lambda: dbn.sample_sessions(serps, rs, np.array([0.5, 1.2]), p, 0.9, g)),
        (ValueError, "satisfy", lambda: dbn.sample_sessions(serps, rs, p, np.full(3, 0.5), 0.9, g)),
        (ValueError, "serps", lambda: dbn.sample_sessions(np.array([[0, 2]]), rs, p, p, 0.9, g)),
        (ValueError, "serps", lambda: dbn.sample_sessions(np.array([[0, -1, 1]]), rs, p, p, 0.9, g)),
        (ValueError, "row_serp", lambda: dbn.sample_sessions(serps, rs + 1, p, p, 0.9, g)),
        (TypeError, "rng", lambda: dbn.sample_sessions(serps, rs, p, p, 0.9, 0)),
        (ValueError, "gamma", lambda: dbn.fit_dbn(log, n, gamma=-0.1)),
        (ValueError, "prior", lambda: dbn.fit_dbn(log, n, prior=(-1.0, 1.0))),
        (TypeError, "prior", lambda: dbn.fit_dbn(log, n, prior=(1.0,))),
        (ValueError, "n_pairs", lambda: dbn.fit_dbn(log, 5)),
        (ValueError, "max_iter", lambda: dbn.fit_dbn(log, n, max_iter=0)),
        (ValueError, "tol", lambda: dbn.fit_dbn(log, n, tol=-1.0)),
        (TypeError, "accelerate", lambda: dbn.fit_dbn(log, n, accelerate="yes")),
        (TypeError, "log", lambda: dbn.fit_dbn("sessions.tsv", n)),
        (ValueError, "min_views", lambda: dbn.simplified_dbn(log, n, min_views=-1)),
        (ValueError, "n_pairs", lambda: dbn.simplified_dbn(log, 3)),
        (ValueError, "attract", lambda: dbn.log_likelihood(log, np.full(n, 0.5)[:-1], np.full(n, 0.5), 0.9)),
        (ValueError, "gamma", lambda: dbn.log_likelihood(log, np.full(n, 0.5), np.full(n, 0.5), 2.0)),
    ]
    for exc, name, call in cases:
        with pytest.raises(exc, match=name):
            call()
