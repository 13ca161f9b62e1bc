"""The fixed-budget t-interval's quantile (evalrank.active.interval)."""

import subprocess
import sys

import numpy as np
from scipy import stats

from evalrank.active.interval import _t_quantile, half_width


def test_half_width_is_students_quantile_times_the_standard_error():
    n = np.array([1, 2, 3, 10, 11, 500, 10_000, 10])
    se = np.array([0.1, 0.2, np.nan, 0.05, 0.5, 0.01, 0.3, 1.0])
    for level in (0.5, 0.8, 0.9, 0.95, 0.99):
        want = stats.t.ppf(0.5 + level / 2, np.maximum(n - 1, 1)) * se
        want = np.where(np.isnan(se), np.nan, np.where(n > 1, want, np.inf))
        np.testing.assert_array_equal(half_width(se, n, level), want)
        assert _t_quantile(0.5 + level / 2, 7) == stats.t.ppf(0.5 + level / 2, 7)


def test_the_interval_does_not_import_scipy_stats():
    # an active-mc job's start-up: scipy.stats costs ~1 CPU-s per process
    code = ("import sys; from evalrank.active.interval import half_width; import numpy as np; "
            "half_width(np.ones(3), np.array([2, 3, 4]), 0.95); print('scipy.stats' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_counts_shared_by_many_rows_give_the_broadcast_results():
    """interval_from_sums passes the draw counts as given (one row of prefix counts for many
    campaigns): the same arrays as with the counts broadcast to the full shape first."""
    from evalrank.active.interval import interval_from_sums

    rng = np.random.default_rng(5)
    R, T = 7, 40
    w = rng.gamma(1.0, size=(R, T))
    v = rng.lognormal(size=(R, T))
    sums = [np.cumsum(x, axis=1) for x in (w, w * v, w * w, w * w * v, w * w * v * v)]
    t = np.arange(1, T + 1)
    got = interval_from_sums(*sums, t, level=0.9)
    full = np.broadcast_to(t, (R, T)).copy()
    want = interval_from_sums(*sums, full, level=0.9)
    for g, x in zip(got, want):
        assert g.shape == (R, T)
        np.testing.assert_array_equal(g, x)
    se = want[1]
    np.testing.assert_array_equal(half_width(se, t, 0.9), half_width(se, full, 0.9))
    np.testing.assert_array_equal(want[2][:, 5], stats.t.ppf(0.95, 5) * se[:, 5])
