"""The audit reads each behaviour off crafted cases; check the reader on
stand-in tools with known rules, and the table on the installed tools."""

import numpy as np
import pytest

from evalrank.papers.busafekete2012 import audit
from evalrank.metrics import ndcg


def classify(**opts):
    return audit._classify(audit.probe(lambda s, y, off, k, ids: ndcg(s, y, off, k, doc_ids=ids, **opts)))


@pytest.mark.parametrize("opts, field, want", [
    (dict(gain="linear"), "gain", "linear"),
    (dict(gain="exp"), "gain", "exp (2^y-1)"),
    (dict(empty=1.0), "empty", "1"),
    (dict(empty="skip"), "empty", "no value"),
    (dict(short="zero"), "short", "zero"),
    (dict(short="pad"), "short", "pad (whole list)"),
    (dict(ties="stable"), "ties", "input order"),
    (dict(ties="docid"), "ties", "doc id, descending"),
    (dict(ties="docid", docid_order="ascending"), "ties", "doc id, ascending"),
    (dict(ties="average"), "ties", "average over tie orders"),
    (dict(precision="float32"), "precision", "float32 (1.0 and 1.0+1e-9 tie)"),
    (dict(), "precision", "float64"),
])
def test_classifier_reads_known_rules(opts, field, want):
    assert classify(**opts)[field] == want


def test_unstable_sort_is_noticed():
    def unstable(s, y, off, k, ids):  # input order for 2 documents, reversed for long lists
        if len(s) > 15:
            return ndcg(s[::-1], y[::-1], off, k)
        return ndcg(s, y, off, k)
    assert audit._classify(audit.probe(unstable))["ties"].startswith("input order up to")


def test_audit_table_on_installed_tools():
    t = audit.audit_table()
    ran = t[t["source"] == "ran the tool"].set_index(["tool", "measure"])
    if ("pytrec_eval", "ndcg_cut.k") in ran.index:
        row = ran.loc[("pytrec_eval", "ndcg_cut.k")]
        assert (row["gain"], row["ties"], row["empty"]) == ("linear", "doc id, descending", "0")
        assert row["preset_matches_cases"]
    if ("gdeval.pl", "ndcg@k (TREC Web track, Perl)") in ran.index:
        row = ran.loc[("gdeval.pl", "ndcg@k (TREC Web track, Perl)")]
        assert (row["gain"], row["ties"], row["empty"], row["precision"]) == (
            "exp (2^y-1)", "doc id, descending", "no value", "float64")
        assert row["preset_matches_cases"]
    if ("lightgbm", "ndcg@k (eval metric)") in ran.index:
        assert ran.loc[("lightgbm", "ndcg@k (eval metric)"), "empty"] == "1"
    hist = t[t["source"] == "evalrank preset"].set_index("tool")
    assert hist.loc["LETOR 4.0 (Perl)", "short"] == "zero"
    assert hist.loc["YAHOO (Python)", "empty"] == "1"
    assert np.all(hist["preset_matches_cases"])


def test_the_audit_names_registry_presets_and_covers_them_all():
    """Each tool's evalrank equivalent and each historical tool is a preset of the registry, and every
    preset is audited (a new preset must say which tool it stands for)."""
    from evalrank.metrics.conventions import CONVENTIONS
    from evalrank.papers.busafekete2012.findings import PAPER_PRESETS

    tools = {conv for *_, (conv, _) in audit._tools()}
    historical = {conv for _, conv in audit.HISTORICAL}
    assert tools <= set(CONVENTIONS) and historical <= set(CONVENTIONS) and set(PAPER_PRESETS) <= historical
    assert tools | historical == set(CONVENTIONS)
