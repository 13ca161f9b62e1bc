"""-R qrels_jg (evaluation/judgment_groups.py): each group's judgments evaluated as plain qrels,
averaged over the topic's groups. Byte-identity with trec_eval 9.0.8 is in the golden tests; here
brute force on a hand-made case and the refusals."""

import pytest

from evalrank.data.trec import TrecFormatError
from evalrank.evaluation.judgment_groups import evaluate_jg, read_qrels_jg


def _ap(ranking, rel):
    hits, total = 0, 0.0
    for i, d in enumerate(ranking, 1):
        if rel.get(d, 0) >= 1:
            hits += 1
            total += hits / i
    n_rel = sum(1 for v in rel.values() if v >= 1)
    return total / n_rel if n_rel else 0.0


def test_map_and_p_avgjg_are_the_groups_mean_by_brute_force(tmp_path):
    groups = {"u1": {"a": 1, "b": 0, "c": 1}, "u2": {"b": 2, "d": 1}, "u3": {"z": 1}}
    (tmp_path / "qrels").write_text("".join(f"1 {g} {d} {r}\n" for g, js in groups.items() for d, r in js.items())
                                    + "2 u1 a 1\n")
    ranking = ["c", "b", "a", "d", "e"]
    (tmp_path / "run").write_text("".join(f"1 Q0 {d} {i} {10 - i} t\n" for i, d in enumerate(ranking)))
    (res,) = evaluate_jg(tmp_path / "qrels", [tmp_path / "run"], ["map_avgjg", "P_avgjg.2,5"])
    assert res.qids == ["1"]                       # topic 2 has no run lines
    want_map = sum(_ap(ranking, js) for js in groups.values()) / 3
    want_p2 = sum(sum(js.get(d, 0) >= 1 for d in ranking[:2]) / 2 for js in groups.values()) / 3
    assert res.columns == ["map_avgjg", "P_avgjg_2", "P_avgjg_5"]
    assert res.values[0, 0] == pytest.approx(want_map, abs=1e-15)
    assert res.values[0, 1] == pytest.approx(want_p2, abs=1e-15)
    assert res.means()["map_avgjg"] == pytest.approx(want_map, abs=1e-15)


def test_complete_counts_the_topics_a_run_lacks(tmp_path):
    (tmp_path / "qrels").write_text("1 u a 1\n2 u b 1\n")
    (tmp_path / "run").write_text("1 Q0 a 1 1 t\n")
    (res,) = evaluate_jg(tmp_path / "qrels", [tmp_path / "run"], ["qrels_jg"], complete=True)
    assert res.qids == ["1", "2"] and res.missing.tolist() == [False, True]
    m = res.means()
    assert m["num_q"] == 2 and m["map_avgjg"] == pytest.approx(0.5) and m["runid"] == "t"


@pytest.mark.parametrize("text, match", [
    ("1 u a\n", r"qrels:1: a qrels_jg line has 4 fields"),
    ("1 u a 1\n1 u a 0\n", r"qrels:2: document 'a' judged twice by group 'u' .*first on line 1"),
    ("1 u a x\n", r"qrels:1: relevance b'x' is not an integer"),
])
def test_bad_qrels_jg_lines_name_file_and_line(tmp_path, text, match):
    (tmp_path / "qrels").write_text(text)
    with pytest.raises(TrecFormatError, match=match):
        read_qrels_jg(tmp_path / "qrels")


def test_measures_that_need_plain_qrels_are_refused_in_one_line(tmp_path):
    (tmp_path / "qrels").write_text("1 u a 1\n")
    (tmp_path / "run").write_text("1 Q0 a 1 1 t\n")
    with pytest.raises(ValueError, match=r"with -R qrels_jg only .* not map, ndcg_cut"):
        evaluate_jg(tmp_path / "qrels", [tmp_path / "run"], ["map", "ndcg_cut.10"])
