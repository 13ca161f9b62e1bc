"""Power, the "resolves" line every finding carries, and powered(), the rule that turns a verdict the
run cannot resolve into "not tested" (evalrank.papers.common.findings; issue 30 item 2)."""

import math

import pytest

from evalrank.papers.common.findings import Z_RESOLVE, Finding, Power, powered, render_html, render_markdown


def test_power_states_what_is_given_in_one_line():
    p = Power(n=68, repetitions=5000, se=0.0162, of="ERR saving", how="delta method", percent=True)
    assert p.resolves == pytest.approx(Z_RESOLVE * 0.0162)
    assert p.text() == ("68 queries; 5,000 Monte Carlo repetitions; ERR saving ± 1.6 % (1 se, delta method): "
                        "differences under 3.2 % are not resolved")
    assert Power(n=30, unit="topics").text() == "30 topics" and Power().text() == "not stated"
    assert math.isnan(Power(n=3).resolves)


def test_power_rejects_bad_numbers():
    with pytest.raises(ValueError, match="Power.se"):
        Power(se=-1.0)
    with pytest.raises(TypeError, match="Power.n"):
        Power(n="many")
    with pytest.raises(TypeError, match="power"):
        Finding("c", "1", "reproduced", "r", power="68 queries")


@pytest.mark.parametrize("n,se,verdict", [
    (1000, 0.02, "reproduced"),     # 2 se = 4 points <= 5
    (1000, 0.026, "not tested"),    # 2 se = 5.2 points > 5
    (799, 0.01, "not tested"),      # pool below the minimum
    (800, 0.025, "reproduced"),     # both at their limits
    (None, None, "reproduced"),     # nothing known: the verdict stands, the line says so
])
def test_powered_turns_unresolved_verdicts_into_not_tested(n, se, verdict):
    f = powered("c", "ours", "reproduced", "within 5 points.", "t.csv", Power(n=n, se=se, of="saving"),
                tol=0.05, min_n=800, why="reason for 800")
    assert f.verdict == verdict and f.power.n == n
    if verdict == "not tested":
        assert f.reason.startswith("not tested: ") and f.reason.endswith('would read "reproduced": within 5 points.')
        assert ("799 queries cannot resolve this claim: it needs at least 800 (reason for 800)" in f.reason
                if n == 799 else "exceed the tolerance 0.05" in f.reason)


def test_a_not_tested_verdict_stays_as_it_is():
    f = powered("c", "—", "not tested", "no table", "", Power(n=3), min_n=800)
    assert f.verdict == "not tested" and f.reason == "no table"


def test_every_claim_gets_a_resolves_line():
    items = [Finding("a", "1", "reproduced", "r", power=Power(n=12, unit="topics")),
             Finding("b", "2", "partly", "r"), Finding.not_tested("c", "r")]
    md = render_markdown([("P", items)], name="n", seed=1)
    assert "- **resolves:** 12 topics" in md and "- **resolves:** not stated" in md
    assert "- **resolves:** nothing measured" in md
    assert md.count("- **resolves:** ") == 3
    assert render_html([("P", items)], name="n", seed=1).count("<b>resolves:</b>") == 3


def test_with_power_rejudges_a_finding():
    f = Finding("c", "1", "partly", "r", "t.csv")
    assert f.with_power(Power(n=40), min_n=30) == Finding("c", "1", "partly", "r", "t.csv", Power(n=40))
    g = f.with_power(Power(n=20, unit="topics"), min_n=30)
    assert g.verdict == "not tested" and g.reason.startswith("not tested: 20 topics cannot resolve")
