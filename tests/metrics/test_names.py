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
    # parameters as trec_eval 9.0.8 reads and prints them (meas_init.c: atol, atof, as typed)
    ("P.23.4", TrecMeasure, ["P_23"]), ("P.010,5", TrecMeasure, ["P_5", "P_10"]),
    ("iprec_at_recall.0.5,.25", TrecMeasure, ["iprec_at_recall_0.25", "iprec_at_recall_0.50"]),
    ("Rprec_mult", TrecMeasure, [f"Rprec_mult_{v:3.2f}" for v in (0.2, 0.4, 0.6, 0.8, 1, 1.2, 1.4, 1.6, 1.8, 2)]),
    ("set_F.0.5", TrecMeasure, ["set_F_0.5"]), ("set_F", TrecMeasure, ["set_F"]),
    ("utility.2,-1,0,0", TrecMeasure, ["utility_2,-1,0,0"]), ("11pt_avg", TrecMeasure, ["11pt_avg"]),
    ("ndcg.0=0,1=1,2=3", TrecMeasure, ["ndcg_0=0,1=1,2=3"]), ("gm_map", TrecMeasure, ["gm_map"]),
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
    ("", "empty"), ("P.0", "positive integers"), ("P.x", "positive integers"), ("P.5,5", "repeated"),
    ("P.5,5.2", "repeated"), ("map.5", "takes no parameters"), ("ndcg.1=3.5=2", "level=gain pairs"),
    ("ndcg.1", "level=gain pairs"), ("iprec_at_recall.0.5,.5", "repeated"), ("ndcg(foo=1)@3", "options are key=value"),
    ("dcg(max_grade=2)@5", "max_grade is an option of err only"), ("err(gain=exp)@5", "err takes"),
    ("ndcg@top", "k:"), ("cosine", "unknown discount"), ("poly:0@10", "beta"),
])
def test_bad_names_say_what_is_wrong(bad, match):
    with pytest.raises(ValueError, match=match):
        parse_measure(bad)


def test_nicknames_expand_to_trec_evals_sets_and_yield_to_given_parameters():
    from evalrank.metrics.names import NICKNAMES, TREC_ORDER

    ms = parse_measures(["all_trec", "relstring.20"])
    assert sorted(m.name for m in ms) == sorted(NICKNAMES["all_trec"])
    assert [m.columns for m in ms if m.name == "relstring"] == [["relstring_20"]]
    assert [m.name for m in parse_measures("official")] == list(NICKNAMES["official"])
    assert set(NICKNAMES["all_trec"]) <= set(TREC_ORDER)


def test_a_trec_measure_twice_is_refused_not_silently_dropped():
    with pytest.raises(ValueError, match=r"P given twice .* e\.g\. P\.5,10"):
        parse_measures(["P.5", "P.10"])
    assert [str(m) for m in parse_measures(["map", "map", "ndcg@10"])] == ["map", "ndcg@10"]
    with pytest.raises(TypeError, match="measure"):
        parse_measure(5)
