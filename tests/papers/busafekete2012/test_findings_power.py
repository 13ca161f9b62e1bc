"""What the Busa-Fekete et al. findings resolve (issue 30 item 2): the test queries, the identities as
exact, the paired tests' standard errors; the tests turn "not tested" below MIN_TEST_N queries."""

import numpy as np
import pytest
from scipy import stats

from evalrank.papers.common.findings import MIN_TEST_N
from papers.busafekete2012.test_findings import _claims, _curves, _get, _ordering, _write


def test_every_claim_states_its_queries_and_the_identities_are_exact(tmp_path):
    items = _write(tmp_path)
    for i in range(7):
        assert _get(items, i).resolves.startswith("800 test queries")
    assert "exact" in _get(items, 0).resolves and "exact" in _get(items, 1).resolves
    assert "crafted cases" in _get(items, 7).resolves
    # the training tests' se: median of |Δ| / t_{n-1}^{-1}(1 - p/2) over claims.csv's three rows
    d = np.array([-0.0106, 0.0018, -0.0108])
    p = np.array([0.00274, 0.68, 0.0146])
    se = np.median(np.abs(d) / stats.t.isf(p / 2, 799))
    assert _get(items, 2).power.se == pytest.approx(se)


def test_ordering_se_is_the_t_tests_own(tmp_path):
    o = _ordering()
    o["t_statistic"] = o["mean_difference"] / 0.004  # every test's se is 0.004
    assert _get(_write(tmp_path, ordering=o), 5).power.se == pytest.approx(0.004)


def test_tests_on_too_few_queries_are_not_tested(tmp_path):
    c = _curves()
    c["n_queries"] = MIN_TEST_N - 1
    items = _write(tmp_path, curves=c, claims=_claims())
    for i in (2, 4, 5, 6):
        f = _get(items, i)
        assert f.verdict == "not tested" and f"{MIN_TEST_N - 1} test queries cannot resolve" in f.reason
    assert _get(items, 0).verdict != "not tested"  # an identity needs no sample size
