"""What the Ozertem et al. findings resolve (issue 30 item 2): counts behind each claim, the se of a
Pearson r and of a share; the study's claims need MIN_TEST_N tests."""

import math

import numpy as np
import pandas as pd
import pytest

from evalrank.papers.common.findings import MIN_TEST_N, Outputs
from evalrank.papers.ozertem2011 import findings as ozertem
from papers.ozertem2011.test_findings import _find, _tables


def test_r_se_matches_a_monte_carlo():
    """(1 − r²)/√(n − 1) against the sd of r over 4,000 bivariate normal samples of n = 400."""
    rng = np.random.default_rng(np.random.SeedSequence(2011))
    r, n = 0.7, 400
    cov = [[1, r], [r, 1]]
    rs = [np.corrcoef(*rng.multivariate_normal([0, 0], cov, n).T)[0, 1] for _ in range(4000)]
    assert np.std(rs) == pytest.approx(ozertem._r_se(r, n), rel=0.05)


def test_claims_state_their_counts(tmp_path):
    _tables(tmp_path)
    items = ozertem.findings(Outputs(tmp_path))
    assert "printed numbers" in _find(items, "Table 2").resolves
    assert "query-URL pairs" in _find(items, "Sec. 2.1").resolves
    t4 = _find(items, "Table 4")
    n = int(pd.read_csv(tmp_path / "ozertem2011/table4.csv")["unique_query_urls"].sum())
    assert f"{n:,} query-URLs" in t4.resolves
    cov = _find(items, "Secs. 3.1")
    assert cov.power.se == pytest.approx(math.sqrt(0.09 / cov.power.n))


def test_the_study_needs_its_tests(tmp_path):
    _tables(tmp_path)
    p = tmp_path / "ozertem2011/study.csv"
    st = pd.read_csv(p)
    st["tests"] = MIN_TEST_N - 1
    st.to_csv(p, index=False)
    items = ozertem.findings(Outputs(tmp_path))
    for claim in ("Sec. 5.2.2 / Fig. 8", "Secs. 3.1"):
        f = _find(items, claim)
        assert f.verdict == "not tested" and f"{MIN_TEST_N - 1} tests cannot resolve" in f.reason
