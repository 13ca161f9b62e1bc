"""What the Wang et al. findings resolve (issue 30 item 2): list length, R samples, the se of a mean
relative to its limit and of a share; verdicts turn "not tested" when R shrinks or the queries of
Sec. 4 are too few."""

import pandas as pd
import pytest

from evalrank.papers.common.findings import MIN_TEST_N, Outputs
from evalrank.papers.wang2013 import findings as wang
from papers.wang2013.test_findings import by_claim, write


def _rewrite(out, rel, **cols):
    """Change columns of a written table; returns fresh Outputs (an Outputs caches what it read)."""
    p = out.root / rel
    t = pd.read_csv(p)
    for k, f in cols.items():
        t[k] = f(t)
    t.to_csv(p, index=False)
    return Outputs(out.root)


def test_limit_power_is_the_largest_relative_se(tmp_path):
    out = write(tmp_path)
    f = by_claim(wang.findings(out), "Theorems 3, 10")
    g = pd.read_csv(out.root / "wang2013/gaps.csv")
    g = g[g.theorem == "Theorems 3, 10"]
    assert f.power.se == pytest.approx((g["se"] / g["limit"]).max()) and f.power.repetitions == 100
    assert f.verdict == "reproduced"


def test_fewer_samples_make_the_limits_and_shares_not_tested(tmp_path):
    out = write(tmp_path)
    # se 100x larger: 2 se of poly:0.5's mean = 2 x 0.01 x 100 / 10 / 0.7 ~ 29 % > the 2 % tolerance
    out = _rewrite(out, "wang2013/gaps.csv", se=lambda t: t["se"] * 100)
    f = by_claim(wang.findings(out), "Theorems 3, 10")
    # (the gap itself, 1.9 points from the tolerance, is inside its own resolution first)
    assert f.verdict == "not tested" and f.reason.startswith("not tested (resolution 2")
    # R = 16: a share's se at ½ is 0.125, 2 se = 0.25 > COIN = 0.15
    out = _rewrite(out, "wang2013/distinguishability.csv", R=lambda t: 16)
    items = wang.findings(out)
    assert by_claim(items, "Theorem 2, Definition 3").verdict == "not tested"
    assert "± 0.125" in by_claim(items, "Theorem 2, Definition 3").resolves


def test_lists_need_their_queries(tmp_path):
    out = write(tmp_path, lists_se=0.005)  # every judged number resolved
    assert by_claim(wang.findings(out), "Fig. 2").resolves.startswith("40 queries per list")
    out = _rewrite(out, "wang2013/lists.csv", queries=lambda t: MIN_TEST_N - 1)
    f = by_claim(wang.findings(out), "Fig. 2")
    assert f.verdict == "not tested" and f"{MIN_TEST_N - 1} queries per list cannot resolve" in f.reason


def test_gamma_se_is_the_fits_monte_carlo_spread():
    """gamma_se: the spread of the fitted γ when each size's mean moves by its se."""
    import numpy as np
    import pandas as pd

    from evalrank.papers.wang2013.experiments import gap_rate

    n = np.array([100, 300, 1000, 3000, 10000], dtype=float)
    gap = 0.6 / np.log(n)
    se = 0.02 * gap
    conv = pd.DataFrame({"measure": "log2", "scorer": "a", "n": n, "mean": 1 - gap, "se": se})
    rng = np.random.default_rng(np.random.SeedSequence(13))
    fits = [gap_rate(n, gap + rng.normal(0, se))[0] for _ in range(4000)]
    assert wang.gamma_se(conv, "log2", "a") == pytest.approx(np.std(fits), rel=0.05)


def test_a_move_over_the_last_size_step_is_judged_at_its_paired_se(tmp_path):
    """Figs. 2 and 4's 'settled' (every move over the last size step <= SETTLED) judges the largest
    move at lists.csv's step_se (paired by query): near SETTLED at a coarse step_se it is 'not
    tested'; resolved at a fine one; outputs without the column judge no move."""
    from evalrank.papers.wang2013.claims_lists import SETTLED

    def moved(sub, step_se):
        out = write(tmp_path / sub, lists_se=0.005)
        p = out.root / "wang2013/lists.csv"
        t = pd.read_csv(p)
        hit = (t["ranker"] == "ranksvm") & (t["measure"] == "poly:0.5") & (t["n"] == 1000)
        t.loc[hit, "mean"] += SETTLED - 0.005          # a move of 0.015 against 0.02
        if step_se is not None:
            t["step_se"] = step_se
        t.to_csv(p, index=False)
        return by_claim(wang.findings(Outputs(out.root)), "Fig. 2")

    near = moved("a", 0.005)                          # resolution 2 x 0.005 > 0.005 from SETTLED
    assert near.verdict == "not tested" and "ranksvm's move over the last size step" in near.reason
    assert moved("b", 0.001).verdict == "reproduced"
    assert moved("c", None).verdict == "reproduced"   # no step_se: the move is not judged
