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
    # a measure prints as asked (issue 50): evalrank's aliases and ir_measures' names as written; trec_eval's
    # own names as trec_eval prints them; an alias with a list of cut-offs as trec_eval's columns
    ("p@5", TrecMeasure, ["p@5"]), ("map@100", TrecMeasure, ["map@100"]), ("rr", TrecMeasure, ["rr"]),
    ("mrr", TrecMeasure, ["mrr"]), ("MRR@10", TrecMeasure, ["MRR@10"]), ("R-prec", TrecMeasure, ["R-prec"]),
    ("recip_rank", TrecMeasure, ["recip_rank"]), ("p.5,10", TrecMeasure, ["P_5", "P_10"]),
    ("P@5", TrecMeasure, ["P@5"]), ("RR", TrecMeasure, ["RR"]), ("AP@100", TrecMeasure, ["AP@100"]),
    ("P(rel=2)@5", TrecMeasure, ["P(rel=2)@5"]), ("ERR@20", RankMeasure, ["ERR@20"]),
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
    ("ndcg@top", "k:"), ("cosine", "is not known"), ("poly:0@10", "beta"),
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


@pytest.mark.parametrize("name, trec, cutoffs, rel, judged_only, max_docs", [
    ("AP", "map", None, None, None, None), ("MAP", "map", None, None, None, None),
    ("AP@100", "map_cut", (100,), None, None, None), ("AP(rel=2)", "map", None, 2, None, None),
    ("AP(judged_only=True)@5", "map_cut", (5,), None, True, None),
    ("P@10", "P", (10,), None, None, None), ("Precision(rel=2)@5", "P", (5,), 2, None, None),
    ("R@100", "recall", (100,), None, None, None), ("Recall(judged_only=False)@5", "recall", (5,), None, False, None),
    ("RR", "recip_rank", None, None, None, None), ("MRR@10", "recip_rank", None, None, None, 10),
    ("RR(rel=3)@10", "recip_rank", None, 3, None, 10),
    ("nDCG", "ndcg", None, None, None, None), ("NDCG@10", "ndcg_cut", (10,), None, None, None),
    ("nDCG(judged_only=True)@10", "ndcg_cut", (10,), None, True, None),
    ("Rprec(rel=2)", "Rprec", None, 2, None, None), ("RPrec", "Rprec", None, None, None, None),
    ("Bpref", "bpref", None, None, None, None), ("BPref(rel=2)", "bpref", None, 2, None, None),
    ("infAP(rel=2)", "infAP", None, 2, None, None),
    ("Judged@10", "Judged", (10,), None, None, None), ("Judged", "Judged", None, None, None, None),
    ("IPrec@0.5", "iprec_at_recall", (0.5,), None, None, None),
    ("IPrec(rel=2)@0.123", "iprec_at_recall", (0.12,), 2, None, None),     # ir_measures: %.2f
    ("SetP", "set_P", None, None, None, None), ("SetRelP", "set_relative_P", None, None, None, None),
    ("SetP(relative=True,rel=2)", "set_relative_P", None, 2, None, None),
    ("SetR", "set_recall", None, None, None, None), ("SetF", "set_F", (1.0,), None, None, None),
    ("SetF(beta=0.5)", "set_F", (0.5,), None, None, None), ("SetAP", "set_map", None, None, None, None),
    ("NumQ", "num_q", None, None, None, None), ("NumRet", "num_ret", None, None, None, None),
    ("NumRelRet", "num_rel_ret", None, None, None, None), ("NumRet(rel=2)", "num_rel_ret", None, 2, None, None),
    ("NumRel", "num_rel", None, None, None, None), ("Success@5", "success", (5,), None, None, None),
    ("RBP", "rbp", (("p", 0.8),), None, None, None), ("RBP(p=0.5, rel=2)@10", "rbp", (("p", 0.5),), 2, None, 10),
])
def test_ir_measures_names_map_onto_trec_evals_measures_and_settings(name, trec, cutoffs, rel, judged_only,
                                                                       max_docs):
    m = parse_measure(name)
    assert isinstance(m, TrecMeasure)
    assert (m.name, m.cutoffs, m.rel, m.judged_only, m.max_docs) == (trec, cutoffs, rel, judged_only, max_docs)
    assert m.columns == [name] and str(m) == name and parse_measure(str(m)) == m


def test_ir_measures_err_and_gdeval_ndcg_are_evalranks_own_measures():
    err = parse_measure("ERR@20")
    assert (err.family, err.k, err.options, err.columns) == ("err", 20, (), ["ERR@20"])
    g = parse_measure("nDCG(dcg='exp-log2')@10")
    assert (g.family, g.k, g.option("convention")) == ("ndcg", 10, "gdeval")
    assert parse_measure("err@20").columns == ["err@20"]       # evalrank's spelling is untouched


def test_ir_measures_at_several_cut_offs_are_separate_columns():
    assert [c for m in parse_measures(["P@5", "P@10", "P.5,10"]) for c in m.columns] == ["P@5", "P@10", "P_5", "P_10"]
    assert [str(m) for m in parse_measures(["AP", "AP", "MAP"])] == ["AP", "MAP"]


@pytest.mark.parametrize("bad, match", [
    ("P", None), ("R", "R needs a cutoff, e.g. R@10"), ("IPrec", "needs a recall"), ("P@0", "positive"),
    ("P(foo=1)@5", "P takes cutoff, rel, judged_only, not foo="), ("P(rel=2.5)@5", "rel must be int"),
    ("Bpref(judged_only=True)", "Bpref takes rel, not judged_only="), ("NumQ@5", "takes no @"),
    ("AP@x", "cut-off after @"), ("P(2)@5", "syntax"), ("AP(rel=2)@5 junk", "syntax"),
    ("RBP(p=1.5)", "persistence p"), ("IPrec@1.5", "recall level"),
    ("nDCG(gains={0: 0, 1: 1})@5", "gains= is not computed"), ("nDCG(dcg='exp-log2', judged_only=True)@5", "gdeval"),
    ("SDCG@10", "ir_measures' SDCG is not computed by evalrank"), ("alpha_nDCG@20", "not computed by evalrank"),
])
def test_ir_measures_names_evalrank_refuses_say_why(bad, match):
    if match is None:           # trec_eval's P (all its cut-offs), not ir_measures' P, which needs one
        assert parse_measure(bad).columns[0] == "P_5"
        return
    with pytest.raises(ValueError, match=match) as e:
        parse_measure(bad)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("bad, message", [
    ("ndcg_cutt.10", "measure 'ndcg_cutt.10' is not known; nearest: ndcg_cut, ndcg, ndcg_rel"),
    ("recip_rnk", "measure 'recip_rnk' is not known; nearest: recip_rank, Precision"),
    ("judged@10", "measure 'judged@10' is not known; nearest: Judged"),
    ("offical", "measure 'offical' is not known; nearest: official"),
    ("sucess.10", "measure 'sucess.10' is not known; nearest: success"),
])
def test_an_unknown_measure_is_one_line_naming_the_nearest_names(bad, message):
    with pytest.raises(ValueError) as e:
        parse_measure(bad)
    assert str(e.value) == message


def test_an_unknown_measure_far_from_every_name_says_where_names_come_from():
    with pytest.raises(ValueError, match=r"^measure 'xyzzy' is not known; names are trec_eval's .*ir_measures'") as e:
        parse_measure("xyzzy")
    assert "\n" not in str(e.value) and len(str(e.value)) < 200
