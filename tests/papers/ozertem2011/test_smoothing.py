"""Query/position smoothing (Ozertem et al. 2011, eqs. 9-13) and leave-one-out σ (Sec. 5.1)."""

import math

import numpy as np
import pytest

from evalrank.papers.ozertem2011.grades import PEGFB, agreement_pdfs
from evalrank.papers.ozertem2011.smoothing import choose_sigma, loo_errors, loo_mse_curve, row_weights, smooth

A = PEGFB.a
# Table 1 (P..B), reordered to the scale's B..P order; rows normalised = editorial grade pdfs
TABLE1 = np.array([[183, 82, 24, 7, 1], [82, 338, 724, 117, 22], [24, 724, 1395, 844, 92],
                   [7, 117, 844, 658, 293], [1, 22, 92, 293, 230]], float)[::-1, ::-1]
AGREE = agreement_pdfs(TABLE1)


# --------------------------------------------------------------------------- reference implementations

def _naive_side(top, pdfs, avail, q, r, sigma, method, test_mean):
    """p_s of one (row, rank) of one side, straight from eqs. 9-13 (loops)."""
    n_rows, width = top.shape
    at_rank = [pdfs[top[i, r]] for i in range(n_rows) if top[i, r] >= 0 and avail[top[i, r]]]
    side = [pdfs[p] for p in top.ravel() if p >= 0 and avail[p]]
    if at_rank:
        p_r = np.mean(at_rank, axis=0)
    elif side:
        p_r = np.mean(side, axis=0)
    else:
        p_r = test_mean
    row = [top[q, c] for c in range(width) if top[q, c] >= 0 and avail[top[q, c]]]
    if not row:
        return p_r
    p_q = np.mean([pdfs[p] for p in row], axis=0)
    means = [pdfs[p] @ A for p in row]
    vars_ = [pdfs[p] @ A**2 - (pdfs[p] @ A) ** 2 for p in row]
    mu = sum(means) / len(row)
    d = sum((m - mu) ** 2 + v for m, v in zip(means, vars_)) / len(row) ** 2
    if method == "position":
        w = 0.0
    elif method == "query" or sigma == math.inf:
        w = 1.0
    elif sigma == 0:
        w = 0.0
    else:
        w = math.exp(-d / sigma**2)
    return w * p_q + (1 - w) * p_r


def _naive_smooth(nov, base, pdfs, avail, sigma, method="hybrid"):
    ids = sorted(set(nov[nov >= 0]) | set(base[base >= 0]))
    test_mean = np.mean([pdfs[p] for p in ids if avail[p]], axis=0)
    out = {}
    for p in ids:
        if avail[p]:
            continue
        preds = []
        for top in (nov, base):
            hit = np.argwhere(top == p)
            if hit.size:
                preds.append(_naive_side(top, pdfs, avail, hit[0, 0], hit[0, 1], sigma, method, test_mean))
        out[p] = np.mean(preds, axis=0)
    return out


def _brute_loo(nov, base, pdfs, avail, targets, values, sigma, method="hybrid"):
    """Really delete each target and smooth the reduced data."""
    ids = np.union1d(nov[nov >= 0], base[base >= 0])
    pairs, errs = [], []
    for j in ids[targets[ids]]:
        av = avail.copy()
        av[j] = False
        miss, P = smooth(nov, base, pdfs, av, PEGFB, sigma, method=method)
        pairs.append(j)
        errs.append(values[j] - P[np.searchsorted(miss, j)] @ A)
    return np.array(pairs), np.array(errs)


def _random_test(rng, n_rows=9, width=5):
    """Overlapping D/D' with swaps, new pairs and short lists; rows with 0 and
    1 available pdfs; rank 5 of D without any available pdf."""
    nov, base = np.full((n_rows, width), -1), np.full((n_rows, width), -1)
    nxt = 0
    for q in range(n_rows):
        pool = np.arange(nxt, nxt + 2 * width)
        nxt += 2 * width
        b = pool[:width]
        n = rng.permutation(pool[: width + 2])[:width] if q % 3 else np.concatenate([[pool[width]], b[:-1]])
        ln = width - (q % 4 == 3)
        nov[q, :ln], base[q, :width - (q % 5 == 4)] = n[:ln], b[:width - (q % 5 == 4)]
    pdfs = rng.dirichlet(np.full(5, 0.6), size=nxt)
    avail = rng.random(nxt) < 0.55
    ids0 = np.union1d(nov[0][nov[0] >= 0], base[0][base[0] >= 0])
    avail[ids0] = False                                   # row 0: nothing available
    ids1 = np.union1d(nov[1][nov[1] >= 0], base[1][base[1] >= 0])
    avail[ids1] = False
    avail[base[1, 2]] = True                              # row 1: one available pdf
    avail[nov[:, 4][nov[:, 4] >= 0]] = False              # D's rank 5: none available
    pdfs[~avail] = np.nan                                 # missing pdfs must not be read
    targets = avail & (rng.random(nxt) < 0.7)
    values = np.where(targets, rng.integers(0, 5, nxt).astype(float), np.nan)
    return nov, base, pdfs, avail, targets, values


# --------------------------------------------------------------------------- tests

@pytest.mark.parametrize("seed", [0, 1, 2])
def test_smooth_matches_naive_equations(seed):
    rng = np.random.default_rng(seed)
    nov, base, pdfs, avail, _, _ = _random_test(rng)
    for sigma, method in [(0.4, "hybrid"), (1.5, "hybrid"), (0.0, "hybrid"), (math.inf, "hybrid"),
                          (1.0, "position"), (1.0, "query")]:
        miss, P = smooth(nov, base, pdfs, avail, PEGFB, sigma, method=method)
        ref = _naive_smooth(nov, base, pdfs, avail, sigma, method)
        assert list(miss) == sorted(ref)
        np.testing.assert_allclose(P, np.array([ref[p] for p in miss]), rtol=0, atol=1e-12)
        np.testing.assert_allclose(P.sum(1), 1.0, atol=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_loo_closed_form_equals_brute_force(seed):
    rng = np.random.default_rng(100 + seed)
    nov, base, pdfs, avail, targets, values = _random_test(rng)
    assert targets.sum() >= 10
    for sigma, method in [(0.5, "hybrid"), (2.0, "hybrid"), (0.0, "hybrid"), (math.inf, "hybrid"),
                          (1.0, "position"), (1.0, "query")]:
        pairs, err = loo_errors(nov, base, pdfs, avail, targets, values, PEGFB, sigma, method=method)
        bp, be = _brute_loo(nov, base, pdfs, avail, targets, values, sigma, method)
        np.testing.assert_array_equal(pairs, bp)
        np.testing.assert_allclose(err, be, rtol=0, atol=1e-12)


def test_loo_fallbacks_when_removal_empties_rank_side_and_row():
    # D': only pair 1 (a target) is available, so leaving it out empties D''s rank, row and side;
    # D: pair 0 is the only available pdf at rank 1 and the only one in its row.
    nov = np.array([[0, 2, 3], [4, 5, -1]])
    base = np.array([[1, 6, 7], [-1, -1, -1]])
    rng = np.random.default_rng(7)
    pdfs = rng.dirichlet(np.ones(5), size=8)
    avail = np.zeros(8, bool)
    avail[[0, 1, 4, 5]] = True
    targets = avail.copy()
    values = np.arange(8, dtype=float) % 5
    for sigma in (0.0, 0.7, math.inf):
        pairs, err = loo_errors(nov, base, pdfs, avail, targets, values, PEGFB, sigma)
        bp, be = _brute_loo(nov, base, pdfs, avail, targets, values, sigma)
        np.testing.assert_array_equal(pairs, bp)
        np.testing.assert_allclose(err, be, rtol=0, atol=1e-12)
    # pair 1 on D' only: its prediction is the test-level mean of the other available pdfs
    _, err = loo_errors(nov, base, pdfs, avail, targets, values, PEGFB, 0.7)
    assert err[1] == pytest.approx(values[1] - pdfs[[0, 4, 5]].mean(0) @ A, abs=1e-12)
    # a test whose only available pdf is a target cannot be left out
    one = np.zeros(8, bool)
    one[0] = True
    with pytest.raises(ValueError, match="leaving out pair 0"):
        loo_errors(nov, base, pdfs, one, one, values, PEGFB, 1.0)


def test_sigma_limits_are_position_and_query():
    rng = np.random.default_rng(9)
    nov, base, pdfs, avail, targets, values = _random_test(rng)
    pos = smooth(nov, base, pdfs, avail, PEGFB, 1.0, method="position")[1]
    qry = smooth(nov, base, pdfs, avail, PEGFB, 1.0, method="query")[1]
    np.testing.assert_allclose(smooth(nov, base, pdfs, avail, PEGFB, 1e-6)[1], pos, atol=1e-12)
    np.testing.assert_allclose(smooth(nov, base, pdfs, avail, PEGFB, 0.0)[1], pos, atol=0)
    np.testing.assert_allclose(smooth(nov, base, pdfs, avail, PEGFB, 1e9)[1], qry, atol=1e-12)
    np.testing.assert_allclose(smooth(nov, base, pdfs, avail, PEGFB, math.inf)[1], qry, atol=0)
    assert np.abs(pos - qry).max() > 0.1
    e_pos = loo_errors(nov, base, pdfs, avail, targets, values, PEGFB, 0.0, method="position")[1]
    e_qry = loo_errors(nov, base, pdfs, avail, targets, values, PEGFB, 0.0, method="query")[1]
    np.testing.assert_allclose(loo_errors(nov, base, pdfs, avail, targets, values, PEGFB, 1e-6)[1], e_pos, atol=1e-12)
    np.testing.assert_allclose(loo_errors(nov, base, pdfs, avail, targets, values, PEGFB, 1e9)[1], e_qry, atol=1e-12)
    curve = loo_mse_curve(nov, base, pdfs, avail, targets, values, PEGFB, [0.0, math.inf])
    assert curve == pytest.approx([np.mean(e_pos**2), np.mean(e_qry**2)])


def _table3():
    """Paper Table 3 (rows = queries q1..q5, columns = ranks 1..5, None = missing)."""
    cols = [["B", "B", None, "B", "B"], [None, None, "F", "B", "B"], ["P", "E", None, None, "B"],
            ["G", None, None, None, None], [None] * 5]
    top = np.arange(25).reshape(5, 5)
    avail = np.zeros(25, bool)
    pdfs = np.full((25, 5), np.nan)
    for q, col in enumerate(cols):
        for r, g in enumerate(col):
            if g is not None:
                avail[top[q, r]] = True
                pdfs[top[q, r]] = AGREE[PEGFB.index([g])[0]]
    return top, np.full((5, 5), -1), pdfs, avail


def test_table3_cases():
    top, base, pdfs, avail = _table3()
    bad, fair = AGREE[0], AGREE[1]
    miss, Pq = smooth(top, base, pdfs, avail, PEGFB, 1.0, method="query")
    i = np.searchsorted(miss, top[0, 2])
    np.testing.assert_allclose(Pq[i], bad, atol=1e-15)                 # q1 = B,B,x,B,B -> Bad
    miss, Pp = smooth(top, base, pdfs, avail, PEGFB, 1.0, method="position")
    np.testing.assert_allclose(Pp[i], fair, atol=1e-15)                 # rank 3 holds only q2's F
    # weights: more, more similar grades -> larger w (q1 > q2 > q3 > q4 > q5 = 0)
    w, d, n = row_weights(top, pdfs, avail, PEGFB, 1.0)
    assert list(n) == [4, 3, 3, 1, 0]
    assert w[0] > w[1] > w[2] > w[3] > w[4] == 0.0 and d[4] == math.inf
    mB = AGREE[0] @ A
    vB = AGREE[0] @ A**2 - mB**2
    assert d[0] == pytest.approx(4 * vB / 16)                           # equal means: d = n Var / n^2
    # hybrid for q1 is biased to query smoothing (the printed eq. 11 would bias it to position)
    miss, Ph = smooth(top, base, pdfs, avail, PEGFB, 1.0)
    eq, ep, eh = bad @ A, fair @ A, Ph[i] @ A
    assert eh == pytest.approx(w[0] * eq + (1 - w[0]) * ep)
    assert eh < (eq + ep) / 2
    # q5 has no grade: position smoothing whatever sigma (rank 1 = mean of B, P, G)
    j = np.searchsorted(miss, top[4, 0])
    for sigma in (0.1, 10.0, math.inf):
        np.testing.assert_allclose(smooth(top, base, pdfs, avail, PEGFB, sigma)[1][j],
                                   AGREE[PEGFB.index(["B", "P", "G"])].mean(0), atol=1e-15)


def test_missing_pair_on_both_sides_is_averaged():
    # pair 9 missing, at rank 2 of D and rank 3 of D'; every rank has available pdfs on both sides
    nov = np.array([[0, 9, 1], [2, 3, 4]])
    base = np.array([[1, 0, 9], [3, 2, 4]])
    rng = np.random.default_rng(4)
    pdfs = rng.dirichlet(np.ones(5), size=10)
    avail = np.ones(10, bool)
    avail[[5, 6, 7, 8, 9]] = False
    miss, P = smooth(nov, base, pdfs, avail, PEGFB, 0.0)
    assert list(miss) == [9]
    p_d = pdfs[[3]].mean(0)             # D rank 2: pair 3 (row 1)
    p_b = pdfs[[4]].mean(0)             # D' rank 3: pair 4 (row 1)
    np.testing.assert_allclose(P[0], (p_d + p_b) / 2, atol=1e-15)


def _synthetic(rng, n_rows=200, width=5):
    """Two kinds of query: 'flat' rows (40 %) where every pair has the row's own
    grade and all of D' is judged -- query smoothing is right, position wrong;
    'graded' rows (60 %) where the grade falls with the rank (P,E,G,F,B) and only
    two pairs are judged -- after leaving one out query smoothing guesses from
    one pair of another rank, position smoothing is right. d_q separates them
    (four similar grades vs one), so a hybrid beats both."""
    nov, base = np.zeros((n_rows, width), np.int64), np.zeros((n_rows, width), np.int64)
    grades, avail = [], []
    nxt = 0
    for q in range(n_rows):
        b = np.arange(nxt, nxt + width)
        n = b.copy()
        n[[0, 1]] = n[[1, 0]]
        n[-1] = nxt + width
        nxt += width + 1
        nov[q], base[q] = n, b
        if q % 5 < 2:
            g = np.full(width + 1, rng.integers(0, 5))
            av = np.r_[np.ones(width, bool), False]
        else:
            g = np.r_[np.arange(width)[::-1], 0]
            av = np.zeros(width + 1, bool)
            av[rng.choice(width, 2, replace=False)] = True
        grades.append(g)
        avail.append(av)
    grades, avail = np.concatenate(grades), np.concatenate(avail)
    return nov, base, AGREE[grades], avail, avail.copy(), A[grades]


def test_hybrid_beats_position_and_query_and_choose_sigma_finds_the_optimum():
    args = _synthetic(np.random.default_rng(5))
    choice = choose_sigma(*args, PEGFB)
    assert choice.n_targets == int(args[4].sum())
    assert choice.mse < 0.8 * min(choice.mse_position, choice.mse_query)
    assert 1e-2 < choice.sigma < 10                                   # an interior optimum
    grid = np.geomspace(1e-3, 1e2, 2001)
    curve = loo_mse_curve(*args, PEGFB, grid)
    assert choice.mse <= curve.min() + 1e-9
    assert abs(np.log(choice.sigma / grid[np.argmin(curve)])) < 0.05
    assert loo_mse_curve(*args, PEGFB, [choice.sigma])[0] == pytest.approx(choice.mse, abs=1e-12)
    # the curve tends to the position / query MSE at its ends (Fig. 6)
    ends = loo_mse_curve(*args, PEGFB, [1e-6, 1e6])
    assert ends == pytest.approx([choice.mse_position, choice.mse_query], abs=1e-6)


def test_validation_errors():
    rng = np.random.default_rng(0)
    nov, base, pdfs, avail, targets, values = _random_test(rng)
    with pytest.raises(ValueError, match="no available grade pdf"):
        smooth(nov, base, pdfs, np.zeros_like(avail), PEGFB, 1.0)
    with pytest.raises(ValueError, match="sigma"):
        smooth(nov, base, pdfs, avail, PEGFB, -0.1)
    with pytest.raises(ValueError, match="sigma"):
        smooth(nov, base, pdfs, avail, PEGFB, float("nan"))
    with pytest.raises(ValueError, match="sigma"):
        loo_mse_curve(nov, base, pdfs, avail, targets, values, PEGFB, [1.0, -1.0])
    with pytest.raises(ValueError, match="method"):
        smooth(nov, base, pdfs, avail, PEGFB, 1.0, method="mixed")
    with pytest.raises(ValueError, match="pdfs: expected shape"):
        smooth(nov, base, pdfs[:, :4], avail, PEGFB, 1.0)
    with pytest.raises(ValueError, match="available: expected shape"):
        smooth(nov, base, pdfs, avail[:-1], PEGFB, 1.0)
    with pytest.raises(TypeError, match="available"):
        smooth(nov, base, pdfs, avail.astype(int), PEGFB, 1.0)
    with pytest.raises(TypeError, match="scale"):
        smooth(nov, base, pdfs, avail, "PEGFB", 1.0)
    with pytest.raises(ValueError, match="base_top"):
        smooth(nov, base[:-1], pdfs, avail, PEGFB, 1.0)
    with pytest.raises(ValueError, match="out of range"):
        smooth(np.where(nov >= 0, nov + 10_000, -1), base, pdfs, avail, PEGFB, 1.0)
    bad = pdfs.copy()
    bad[base[1, 2]] = np.nan                              # an available pair of the test
    with pytest.raises(ValueError, match="pdfs: the available pairs"):
        smooth(nov, base, bad, avail, PEGFB, 1.0)
    with pytest.raises(ValueError, match="targets: pair"):
        loo_errors(nov, base, pdfs, avail, targets | ~avail, values, PEGFB, 1.0)
    with pytest.raises(ValueError, match="target_values: pair"):
        loo_errors(nov, base, pdfs, avail, targets, np.full_like(values, np.nan), PEGFB, 1.0)
    with pytest.raises(ValueError, match="targets: expected shape"):
        loo_errors(nov, base, pdfs, avail, targets[:-1], values, PEGFB, 1.0)
    with pytest.raises(ValueError, match="bounds"):
        choose_sigma(nov, base, pdfs, avail, targets, values, PEGFB, bounds=(0.0, 1.0))
    with pytest.raises(ValueError, match="no target"):
        choose_sigma(nov, base, pdfs, avail, np.zeros_like(targets), values, PEGFB)
