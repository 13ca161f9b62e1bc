"""The measure vocabulary (metrics/names.py): one parser for the CLI, the library, risk and theory."""

import pytest

from evalrank.metrics.names import RankMeasure, TrecMeasure, parse_measure, parse_measures


@pytest.mark.parametrize("name, kind, columns", [
    ("map", TrecMeasure, ["map"]),
    ("P.5,10", TrecMeasure, ["P_5", "P_10"]),
    ("P.10,5", TrecMeasure, ["P_5", "P_10"]),            # trec_eval sorts the cut-offs
    ("P", TrecMeasure, [f"P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]),
    ("success", TrecMeasure, ["success_1", "success_5", "success_10"]),
    ("ndcg_cut.10", TrecMeasure, ["ndcg_cut_10"]),
    ("P@5", TrecMeasure, ["P_5"]), ("map@100", TrecMeasure, ["map_cut_100"]), ("RR", TrecMeasure, ["recip_rank"]),
    ("ndcg", TrecMeasure, ["ndcg"]),                       # trec_eval's full-list ndcg
    ("ndcg@10", RankMeasure, ["ndcg@10"]), ("err@20", RankMeasure, ["err@20"]), ("dcg@5", RankMeasure, ["dcg@5"]),
    ("ndcg(convention=gdeval)@20", RankMeasure, ["ndcg(convention=gdeval)@20"]),
    ("err(max_grade=3)@20", RankMeasure, ["err(max_grade=3)@20"]),
    ("zipf@10", RankMeasure, ["zipf@10"]), ("poly(0.5)@frac:0.3", RankMeasure, ["poly:0.5@frac:0.3"]),
])
def test_names_and_columns(name, kind, columns):
    m = parse_measure(name)
    assert isinstance(m, kind) and m.columns == columns
    assert parse_measure(str(m)) == m or str(parse_measure(str(m))) == str(m)   # what it prints parses back


def test_options_and_wang_names_mean_the_same_ndcg():
    a, b = parse_measure("zipf@10"), parse_measure("ndcg(discount=zipf)@10")
    assert (a.family, a.k, a.discount) == (b.family, b.k, b.discount) == ("ndcg", 10, "zipf")
    assert parse_measure("err(max_grade=3)@20").option("max_grade") == 3


@pytest.mark.parametrize("bad, match", [
    ("", "empty"), ("P.0", "positive integers"), ("P.5,5", "repeated"), ("map.5", "no cut-offs"),
    ("ndcg.1=3.5", "per-level gains"), ("ndcg(foo=1)@3", "options are key=value"),
    ("dcg(max_grade=2)@5", "max_grade is an option of err only"), ("err(gain=exp)@5", "err takes"),
    ("ndcg@top", "k:"), ("cosine", "unknown discount"), ("poly:0@10", "beta"),
])
def test_bad_names_say_what_is_wrong(bad, match):
    with pytest.raises(ValueError, match=match):
        parse_measure(bad)


def test_a_trec_measure_twice_is_refused_not_silently_dropped():
    with pytest.raises(ValueError, match=r"P given twice .* e\.g\. P\.5,10"):
        parse_measures(["P.5", "P.10"])
    assert [str(m) for m in parse_measures(["map", "map", "ndcg@10"])] == ["map", "ndcg@10"]
    with pytest.raises(TypeError, match="measure"):
        parse_measure(5)
