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
