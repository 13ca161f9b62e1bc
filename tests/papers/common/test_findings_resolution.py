"""The rule every finding goes through (evalrank.papers.common.findings.within_resolution): a
judged number within its resolution of the threshold where the verdict changes reads "not tested
(resolution …)" (issue 51 item 1)."""

import math

import pytest

from evalrank.papers.common.findings import Z_RESOLVE, Finding, Margin, Power, within_resolution


@pytest.mark.parametrize("value,se,verdict", [
    (0.146, 0.020, "not tested"),    # Sawade 1: 14.6 % ± 2.0 %, band edge 15 %: 0.4 points < 4 points
    (0.154, 0.020, "not tested"),    # the other side of the edge, still inside
    (0.146, 0.001, "partly"),        # below the edge, resolved (0.4 points > 0.2)
    (0.154, 0.001, "reproduced"),    # above the edge, resolved
    (0.10, 0.020, "partly"),         # 5 points below the edge, resolution 4 points
    (0.20, 0.020, "reproduced"),     # 5 points above
])
def test_a_value_near_the_threshold_is_not_tested_on_either_side(value, se, verdict):
    alone = "reproduced" if value >= 0.15 else "partly"
    p = Power(se=se, of="ERR saving", percent=True, value=value, thresholds=(0.05, 0.15, 0.60))
    f = Finding("claim", "ours", alone, "the rule's reason", "a.csv", p)
    assert f.verdict == verdict
    if verdict == "not tested":
        assert f.reason.startswith(f"not tested (resolution {Z_RESOLVE * se * 100:.1f} %): ERR saving")
        assert "threshold 15.0 %" in f.reason and f"\"{alone}\": the rule's reason" in f.reason
    else:
        assert f.reason == "the rule's reason"


def test_wang_14_gap_inside_its_resolution():
    """A gap of 0.066 against 0 with a stated resolution of 0.081 (not from an se)."""
    p = Power(n=1000, resolution=0.081, of="limit gap", value=0.066, thresholds=(0.0,))
    assert p.resolves == 0.081 and "resolution 0.081" in p.text()
    f = Finding("c", "o", "reproduced", "r", power=p)
    assert f.verdict == "not tested" and f.reason.startswith("not tested (resolution 0.081): limit gap 0.066 lies 0.066")
    assert Finding("c", "o", "reproduced", "r", power=Power(resolution=0.05, value=0.066, thresholds=(0.0,))).verdict \
        == "reproduced"


def test_several_judged_numbers_each_with_its_own_resolution():
    far = Margin("Reward/Risk margin", 0.30, 0.0, 0.10)
    near = Margin("W/L margin", 0.02, 0.0, 0.05)
    assert not far.unresolved and near.unresolved
    assert Finding("c", "o", "partly", "r", power=Power(margins=(far,))).verdict == "partly"
    f = Finding("c", "o", "partly", "r", power=Power(margins=(far, near)))
    assert f.verdict == "not tested" and "W/L margin 0.02" in f.reason


def test_nothing_judged_or_unknown_resolution_leaves_the_verdict():
    assert within_resolution("reproduced", "r", None) is None
    assert within_resolution("reproduced", "r", Power(se=0.1)) is None            # no value
    assert within_resolution("reproduced", "r", Power(value=0.1, thresholds=(0.1,))) is None  # no se
    assert not Margin("x", 0.1, 0.1, math.nan).unresolved
    assert not Margin("x", math.nan, 0.1, 1.0).unresolved
    # exactly at the resolution: resolved ("within" is strictly closer)
    assert Finding("c", "o", "reproduced", "r", power=Power(resolution=0.5, value=1.5, thresholds=(1.0,))).verdict \
        == "reproduced"
    # a "not tested" finding is left as it is
    f = Finding.not_tested("c", "no table", power=Power(se=1.0, value=0.0, thresholds=(0.0,)))
    assert f.reason == "no table"


def test_the_resolves_line_names_the_nearest_threshold():
    p = Power(se=0.01, of="gap", value=0.3, thresholds=(0.0, 0.25))
    assert "judged: gap 0.3 against the threshold 0.25 (resolution 0.02), the nearest of 2 thresholds" in p.text()
    with pytest.raises(TypeError, match="Margin"):
        Power(margins=((0.1, 0.0, 0.05),))
    with pytest.raises(ValueError, match="resolution"):
        Power(resolution=-1.0)


def test_a_tie_reads_as_zero():
    f = Finding("c", "o", "partly", "r", power=Power(margins=(Margin("a − b", -0.0, 0.0, 1.0),)))
    assert "a − b 0 lies 0 from the threshold 0" in f.reason and "−0" not in f.reason
