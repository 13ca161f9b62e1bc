"""trec_eval's gain-based measures (evalrank.metrics.trec_gain) against

* brute force: the formulas of trec_eval's help texts (``trec_eval -h -m <measure>``), written
  here on plain Python lists, on random topics with unjudged and negatively judged documents;
* hand-computed cases for the quirks (the truncating gain comparator, level-0 and negative
  gains, gains of levels that do not occur, a topic with only negative judgments, inf/NaN);
* golden values: the output of the real trec_eval on the qrels and run below, pasted as
  literals (4 decimals as printed, compared with abs tol 5e-5);
* pytrec_eval (trec_eval 9.0.8 compiled into a wheel) on random topics, where installed.
"""

import math

import numpy as np
import pytest

from evalrank import _jit
from evalrank.metrics import trec_gain as tg

NAN = float("nan")
INF = float("inf")
FAMILIES = ("G", "binG", "ndcg", "ndcg_rel", "Rndcg", "yaap", "relstring", "rbp", "rbp_resid", "unj")


@pytest.fixture(params=["python", "numba"], autouse=True)
def jit_mode(request):
    """Every test with the kernels interpreted and compiled (evalrank._jit's two modes)."""
    if not hasattr(_jit, "mode"):          # a _jit that always compiles
        if request.param == "python":
            pytest.skip("evalrank._jit has no interpreted mode")
        yield
        return
    with _jit.mode(request.param):
        yield


def close(got, expected, tol=5e-5):
    """Equal as trec_eval prints them: NaN with NaN and its sign bit set (trec_eval prints
    ``-nan``: x86's NaN), inf with inf, else within tol."""
    got, expected = np.asarray(got, dtype=float), np.asarray(expected, dtype=float)
    assert got.shape == expected.shape
    for g, e in zip(got.tolist(), expected.tolist()):
        if math.isnan(e):
            assert math.isnan(g) and math.copysign(1.0, g) < 0, (got, expected)
        elif math.isinf(e):
            assert g == e, (got, expected)
        else:
            assert abs(g - e) <= tol, (got, expected)


def flat(per_query):
    rels = np.array([r for q in per_query for r in q], dtype=np.int64)
    offsets = np.concatenate(([0], np.cumsum([len(q) for q in per_query]))).astype(np.int64)
    return rels, offsets


# ---------------------------------------------------------------------------------------------
# brute force from the help texts (default gains: a level's gain is the level; documents not
# judged or judged negative gain 0)
# ---------------------------------------------------------------------------------------------
def dcg(gains):
    return sum(g / math.log2(i + 2) for i, g in enumerate(gains))


def ideal_list(row):
    """The topic's judged documents with a positive gain, best first."""
    return sorted((g for g in range(len(row)) for _ in range(row[g]) if g > 0), reverse=True)


def gains_of(rels):
    return [max(r, 0) for r in rels]


def b_ndcg(rels, row, level):
    """DCG with gain = level and discount 1/log2(rank + 1), over the ideal DCG."""
    ideal = dcg(ideal_list(row))
    return dcg(gains_of(rels)) / ideal if ideal > 0 else 0.0


def b_G(rels, row, level):
    """'G(doc) == gain(doc) / log2(2 + ideal_gain(i) - results_gain(i))', the ideal's running
    gain counting at least 1 per rank and the run's including the doc; normalised by the
    ideal's total gain."""
    ideal = ideal_list(row)
    s, cost, got = 0.0, 0.0, 0.0
    for i, g in enumerate(gains_of(rels)):
        cost += max(ideal[i] if i < len(ideal) else 0, 1)
        got += g
        if g:
            s += g / math.log2(2 + cost - got)
    return s / sum(ideal) if ideal else 0.0


def num_rel(row, level):
    return sum(row[g] for g in range(len(row)) if g >= level)


def b_binG(rels, row, level):
    """'average over all rel docs of 1 / log2(2 + num_nonrel before doc)'."""
    s, nonrel, found = 0.0, 0, False
    for r in rels:
        if r >= level:
            s += 1 / math.log2(2 + nonrel)
            found = True
        else:
            nonrel += 1
    return s / num_rel(row, level) if found else 0.0


def b_yaap(rels, row, level):
    """'log((1 + sum_probrel) / (1 + num_rel - sum_probrel))', sum_probrel the sum over the
    relevant retrieved of the relevant up to it / its rank."""
    s, hits = 0.0, 0
    for i, r in enumerate(rels):
        if r >= level:
            hits += 1
            s += hits / (i + 1)
    return math.log((1 + s) / (1 + num_rel(row, level) - s))


def b_ndcg_rel(rels, row, level):
    """ndcg averaged over the relevant (gain > 0) documents: at each retrieved one
    DCG@rank / IDCG@rank (the ideal stops growing past its last relevant document), each one
    not retrieved DCG / IDCG of the whole list; over the number of relevant documents."""
    ideal, gains = ideal_list(row), gains_of(rels)
    if not ideal:
        return 0.0
    vals = [dcg(gains[: i + 1]) / dcg(ideal[: i + 1]) for i, g in enumerate(gains) if g > 0]
    vals += [dcg(gains) / dcg(ideal)] * (len(ideal) - len(vals))
    return sum(vals) / len(ideal) if sum(vals) > 0 else 0.0


def b_Rndcg(rels, row, level):
    """'Rndcg = 1/4 (ndcg_at_5 + ndcg_at_8 + ndcg_at_18 + ...)': ndcg at each R level (the
    number of docs at each positive gain level, cumulated best first), plus at num_retrieved
    when the list is longer (unjudged docs gain 0) -- by 2 or more: m_Rndcg.c's first loop
    has taken one more rank when it tests i < num_ret; 0 when the topic has no relevant doc."""
    if num_rel(row, level) == 0:
        return 0.0
    ideal, gains = ideal_list(row), gains_of(rels)
    cuts = [sum(row[g] for g in range(len(row)) if g >= top) for top in range(len(row) - 1, 0, -1) if row[top]]
    if len(gains) > len(ideal) + 1:
        cuts.append(len(gains))
    vals = [dcg(gains[:b]) / dcg(ideal[:b]) for b in cuts]
    return sum(vals) / len(vals)


def b_rbp(rels, row, level, p=0.9):
    """'(1 - p) sum gain_i p^(i-1)', gains scaled into [0, 1] by the largest level."""
    top = max((g for g in range(len(row)) if row[g]), default=0)
    scale = top if top > 1 else 1
    return (1 - p) * sum(g / scale * p**i for i, g in enumerate(gains_of(rels)))


def b_rbp_resid(rels, row, level, p=0.9):
    """RBP's residual: the mass of the unjudged documents and of the ranks past the list
    (0 when every retrieved document is judged)."""
    if all(r >= 0 for r in rels):
        return 0.0
    return p ** len(rels) + (1 - p) * sum(p**i for i, r in enumerate(rels) if r < 0)


def b_unj(rels, k):
    """'the fraction of unjudged documents' in the top k, missing ranks judged."""
    return sum(1 for r in rels[:k] if r < 0) / k


def b_relstring(rels, k=10):
    return "".join(str(r) if 0 <= r <= 9 else ">" if r > 9 else "-" if r == -1 else "." for r in rels[:k])


def random_topics(seed, nq=40, top=5):
    """Topics with 1..12 judgments (grades 0..top, some negative, at least one positive) and a
    ranking of some of them plus documents outside the qrels, some empty."""
    rng = np.random.default_rng(seed)
    per_query, levels = [], np.zeros((nq, top + 1), dtype=np.int64)
    for q in range(nq):
        judged = rng.integers(-1, top + 1, size=rng.integers(1, 13))
        judged[0] = rng.integers(1, top + 1)
        for g in judged[judged >= 0]:
            levels[q, g] += 1
        pool = [-2 if g < 0 else int(g) for g in judged]
        picked = [pool[i] for i in rng.permutation(len(pool))[: rng.integers(0, len(pool) + 1)]]
        ranking = picked + [-1] * int(rng.integers(0, 6))
        per_query.append([ranking[i] for i in rng.permutation(len(ranking))])
    return per_query, levels


BRUTE = {"G": b_G, "binG": b_binG, "ndcg": b_ndcg, "ndcg_rel": b_ndcg_rel, "Rndcg": b_Rndcg, "yaap": b_yaap,
         "rbp": b_rbp, "rbp_resid": b_rbp_resid}


@pytest.mark.parametrize("level", [1, 2, 0])
@pytest.mark.parametrize("family", sorted(BRUTE))
def test_brute_force(family, level):
    per_query, levels = random_topics(7 + level)
    rels, offsets = flat(per_query)
    got = getattr(tg, family)(rels, offsets, levels, relevance_level=level, params=None, num_docs=0)
    assert got.shape == (len(per_query), 1) and got.dtype == np.float64
    want = [BRUTE[family](q, levels[i].tolist(), level) for i, q in enumerate(per_query)]
    np.testing.assert_allclose(got[:, 0], want, rtol=1e-12, atol=1e-12)


def test_brute_force_params():
    per_query, levels = random_topics(3)
    rels, offsets = flat(per_query)
    for p in (0.5, 0.95):
        got = tg.rbp(rels, offsets, levels, relevance_level=1, params=(("p", p),), num_docs=0)
        np.testing.assert_allclose(got[:, 0], [b_rbp(q, levels[i].tolist(), 1, p) for i, q in enumerate(per_query)])
        got = tg.rbp_resid(rels, offsets, levels, relevance_level=1, params=(("p", p),), num_docs=0)
        np.testing.assert_allclose(got[:, 0], [b_rbp_resid(q, None, 1, p) for q in per_query])
    got = tg.unj(rels, offsets, levels, relevance_level=1, params=(7, 1, 3), num_docs=0)
    assert got.shape == (len(per_query), 3)
    np.testing.assert_allclose(got, [[b_unj(q, k) for k in (1, 3, 7)] for q in per_query])
    got = tg.unj(rels, offsets, levels, relevance_level=1, params=None, num_docs=0)
    np.testing.assert_allclose(got, [[b_unj(q, k) for k in (5, 10, 20)] for q in per_query])
    for k, params in ((10, None), (3, (3.0,)), (4, (4.7, 1.0)), (0, (-2.0,)), (0, (NAN,))):
        got = tg.relstring(rels, offsets, levels, relevance_level=1, params=params, num_docs=0)
        assert got == [b_relstring(q, k) for q in per_query]


# ---------------------------------------------------------------------------------------------
# hand-computed quirks
# ---------------------------------------------------------------------------------------------
def one(family, per_query, levels, level=1, params=None):
    rels, offsets = flat(per_query)
    return getattr(tg, family)(rels, offsets, np.array(levels, dtype=np.int64), relevance_level=level,
                               params=params, num_docs=0)[:, 0]


L3 = math.log2(3)


def test_truncating_comparator_orders_the_ideal():
    # gains 1.5 (level 1) and 1.2 (level 2) compare equal under (int)(a - b) and keep the typed
    # order, so the ideal ranking is level 2 (1.2) then level 1 (1.5): a run ranking level 1
    # first beats it. (trec_eval 9.0.8 prints 1.0516 for this topic.)
    pairs = (("1", 1.5), ("2", 1.2))
    close(one("ndcg", [[1, 2]], [[1, 1, 1]], params=pairs), [(1.5 + 1.2 / L3) / (1.2 + 1.5 / L3)])
    close(one("ndcg", [[1, 2]], [[1, 1, 1]], params=pairs), [1.0516])
    # 3 apart: sorted by gain, the ideal is level 1 (4.5) first and the same run is perfect
    close(one("ndcg", [[1, 2]], [[1, 1, 1]], params=(("1", 4.5), ("2", 1.2))), [1.0])


def test_level_zero_negative_and_absent_gains():
    # level 0 given gain 1 enters the ideal: 1 + 1 + 1 over ranks 1-3, met by any run of them
    close(one("ndcg", [[0, 1, 0]], [[2, 1]], params=(("0", 1.0),)), [1.0])
    # a negative gain ends the ideal ranking (level 2 only) and costs the run
    close(one("ndcg", [[2, 1]], [[0, 1, 1]], params=(("1", -1.0),)), [(2 - 1 / L3) / 2])
    # a gain for a level nobody has (7) adds no ideal document
    close(one("ndcg", [[1]], [[0, 1]], params=(("7", 9.0),)), [1.0])
    # the first of two pairs for one level holds the judgments, later ones nothing; a name
    # that is no number is level 0 (atol)
    # (level 1: 2, level 0: 3, so the ideal is level 0 then level 1)
    close(one("ndcg", [[1, 0]], [[1, 1]], params=(("1", 2.0), ("1", 9.0), ("x", 3.0))),
          [(2 + 3 / L3) / (3 + 2 / L3)])
    # documents outside the qrels (-1) can be given a gain, which no ideal document has
    close(one("ndcg", [[-1, 1]], [[0, 1]], params=(("-1", 2.0),)), [2 + 1 / L3])


def test_topic_with_only_negative_judgments_keeps_the_previous_rel_levels():
    # topic 2's row is all zero: trec_eval reuses topic 1's rel_levels (one doc at level 2),
    # so its -2 document (gain 5) scores 5 / 2 against that ideal; topic 3 comes after a
    # normal topic again. The same run with the row not inherited would score 0.
    per_query = [[2], [-2, -1], [1]]
    levels = [[0, 0, 1], [0, 0, 0], [0, 1, 0]]
    close(one("ndcg", per_query, levels, params=(("-2", 5.0),)), [1.0, 2.5, 1.0])
    # G: log2(2 + 2 - 5) of a negative: NaN (trec_eval prints -nan)
    close(one("G", per_query, levels, params=(("-2", 5.0),)), [1.0, NAN, 1.0])
    # but num_rel is the topic's own: 0
    close(one("Rndcg", per_query, levels, params=(("-2", 5.0),)), [1.0, 0.0, 1.0])
    # the first topic has nothing to inherit (trec_eval stops there): an empty table
    close(one("ndcg", [[-2]], [[0, 0, 0]], params=(("-2", 5.0),)), [0.0])


def test_Rndcg_counts_the_list_length_only_two_past_the_ideal():
    # one relevant document ranked second: with two documents, ndcg@1 alone (trec_eval 9.0.8
    # prints 0.0000); with three, also ndcg@3 (it prints 0.3155)
    close(one("Rndcg", [[0, 1]], [[1, 1]]), [0.0])
    close(one("Rndcg", [[0, 1, -1]], [[1, 1]]), [(0 + 1 / L3) / 2])


def test_division_by_zero_as_in_c():
    # -l -1: the -1 document counts as relevant for binG and yaap, num_rel (judged >= -1) is 0
    # (a topic's num_rel is 0 only when all its judgments are negative)
    close(one("binG", [[2], [-2, -1]], [[0, 0, 1], [0, 0, 0]], level=-1), [1.0, INF])
    close(one("binG", [[-1]], [[1]], level=-1), [1.0])       # num_rel 1 (level 0 >= -1)
    close(one("yaap", [[-2, -1]], [[0]], level=-2), [NAN])   # log((1 + 2) / (1 + 0 - 2))
    # -l 0 and only level-0 judgments: R > 0 but no positive gain, Rndcg averages nothing
    close(one("Rndcg", [[0]], [[2]], level=0), [NAN])
    # ndcg_rel: 0 * 0 / 0 is NaN and 'if (sum > 0.0)' leaves 0
    close(one("ndcg_rel", [[0]], [[1]]), [0.0])
    # an empty ranking
    close(one("ndcg", [[]], [[0, 2]]), [0.0])
    close(one("Rndcg", [[]], [[0, 2]]), [0.0])
    close(one("yaap", [[]], [[0, 2]]), [math.log(1 / 3)])


def test_inputs_refused():
    rels, offsets = flat([[1, 3]])
    with pytest.raises(ValueError):
        tg.ndcg(rels, offsets, np.array([[1, 1, 1]]), relevance_level=1, params=None, num_docs=0)   # 3 >= L
    with pytest.raises(ValueError):
        tg.ndcg(rels, np.array([0, 1]), np.array([[1, 1, 1, 1]]), relevance_level=1, params=None, num_docs=0)
    with pytest.raises(TypeError):
        tg.ndcg(rels, offsets, np.array([[1, 1, 1, 1]]), relevance_level=1.0, params=None, num_docs=0)
    with pytest.raises(ValueError):
        tg.unj(rels, offsets, np.array([[1, 1, 1, 1]]), relevance_level=1, params=(5, 5), num_docs=0)
    with pytest.raises(ValueError):
        tg.unj(rels, offsets, np.array([[1, 1, 1, 1]]), relevance_level=1, params=(0, 5), num_docs=0)


def test_no_topics():
    rels, offsets, levels = np.zeros(0, np.int64), np.zeros(1, np.int64), np.zeros((0, 1), np.int64)
    for family in FAMILIES:
        got = getattr(tg, family)(rels, offsets, levels, relevance_level=1, params=None, num_docs=0)
        assert (got == []) if family == "relstring" else got.shape == (0, 3 if family == "unj" else 1)


def test_specs_and_columns():
    assert set(tg.SPECS) == set(FAMILIES)
    for name, spec in tg.SPECS.items():
        assert callable(getattr(tg, name))
        assert set(spec) == {"params", "default", "aggregate", "per_query", "fmt"}
    assert tg.columns("ndcg", None, False) == ["ndcg"]
    assert tg.columns("ndcg", "0=0,1=1,2=3", True) == ["ndcg_0=0,1=1,2=3"]
    assert tg.columns("ndcg", (("0", 0.0), ("1", 1.0), ("2", 3.0)), True) == ["ndcg_0=0,1=1,2=3"]
    assert tg.columns("relstring", None, False) == ["relstring"]
    assert tg.columns("relstring", "2.9", True) == ["relstring_2.9"]
    assert tg.columns("relstring", (15.0,), True) == ["relstring_15"]
    assert tg.columns("binG", None, False) == ["binG"]
    assert tg.columns("unj", None, False) == ["unj_5", "unj_10", "unj_20"]
    assert tg.columns("unj", (50, 1, 3), True) == ["unj_1", "unj_3", "unj_50"]
    assert tg.columns("unj", "3,1", True) == ["unj_1", "unj_3"]


# ---------------------------------------------------------------------------------------------
# golden: trec_eval's printed output on these qrels and this run
# ---------------------------------------------------------------------------------------------
# Topic 1: grades 0..3 and 12 ('>'), a negative judgment (d08), relevant documents not
# retrieved (d10, d11), score ties broken by docno (d05 before d01, d99 before d08, d98 before
# d03); topic 2: no relevant judgment; topic 3: nothing retrieved is judged (empty under -J);
# topic 4: only negative judgments (trec_eval reuses topic 3's rel_levels); topic 5: one
# document. The run's lines are out of rank order on purpose.
QRELS = """\
1 0 d01 3
1 0 d02 2
1 0 d03 2
1 0 d04 1
1 0 d05 1
1 0 d06 0
1 0 d07 0
1 0 d08 -1
1 0 d09 12
1 0 d10 1
1 0 d11 3
2 0 e1 0
2 0 e2 0
2 0 e3 -1
3 0 f1 1
3 0 f2 2
4 0 g1 -1
4 0 g2 -1
5 0 h1 1
5 0 h2 0
"""
RUN = """\
1 Q0 d01 1 2.0 r
1 Q0 d05 2 2.0 r
1 Q0 d08 3 1.5 r
1 Q0 d99 4 1.5 r
1 Q0 d06 5 1.25 r
1 Q0 d02 6 1.0 r
1 Q0 d09 7 0.75 r
1 Q0 d03 8 0.5 r
1 Q0 d98 9 0.5 r
1 Q0 d07 10 0.25 r
1 Q0 d04 11 0.125 r
2 Q0 e1 1 3 r
2 Q0 e4 2 2 r
2 Q0 e2 3 1 r
2 Q0 e3 4 1 r
3 Q0 f8 1 1.0 r
3 Q0 f9 2 0.5 r
4 Q0 g1 1 2 r
4 Q0 g3 2 1 r
5 Q0 h1 1 1 r
"""
# what trec_eval's form_res_rels makes of them, by hand: rank order, -1 not in the qrels,
# -2 judged negative; rel_levels per topic (L = 13)
RELS = [[1, 3, -1, -2, 0, 2, 12, -1, 2, 0, 1], [0, -1, -2, 0], [-1, -1], [-2, -1], [1]]
RELS_J = [[1, 3, 0, 2, 12, 2, 0, 1], [0, 0], [], [], [1]]          # -J: judged (>= 0) only
LEVELS = np.zeros((5, 13), dtype=np.int64)
LEVELS[0, [0, 1, 2, 3, 12]] = [2, 3, 2, 2, 1]
LEVELS[1, 0] = 2
LEVELS[2, [1, 2]] = [1, 1]
LEVELS[4, [0, 1]] = [1, 1]


def form_res_rels(qrels: str, run: str, judged_only: bool):
    """The arrays as trec_eval 9.0.8's form_res_rels.c defines them (scores as C floats,
    descending, ties by docno descending), for checking the hand-built ones."""
    judged, ranked = {}, {}
    for line in qrels.splitlines():
        q, _, doc, rel = line.split()
        judged.setdefault(q, {})[doc] = int(rel)
    for line in run.splitlines():
        q, _, doc, _, score, _ = line.split()
        ranked.setdefault(q, []).append((np.float32(score), doc))
    per_query, levels = [], []
    for q in sorted(set(judged) & set(ranked)):
        docs = sorted(sorted(ranked[q], key=lambda t: t[1], reverse=True), key=lambda t: -t[0])
        rels = [judged[q].get(doc, -1) for _, doc in docs]
        rels = [-2 if r < -1 or (r == -1 and doc in judged[q]) else r for r, (_, doc) in zip(rels, docs)]
        if judged_only:
            rels = [r for r in rels if r >= 0]
        per_query.append(rels)
        levels.append(np.bincount([r for r in judged[q].values() if r >= 0], minlength=13))
    return per_query, np.array(levels, dtype=np.int64)


def test_hand_built_arrays_are_what_form_res_rels_makes():
    per_query, levels = form_res_rels(QRELS, RUN, False)
    assert per_query == RELS and np.array_equal(levels, LEVELS)
    assert form_res_rels(QRELS, RUN, True)[0] == RELS_J


def parse_pairs(text):
    return tuple((name, float(value)) for name, value in (p.split("=") for p in text.split(",")))


def options(key):
    """(-l, -J) of a golden key such as '-J -l 2'."""
    words = key.split()
    level = int(words[words.index("-l") + 1]) if "-l" in words else 1
    return level, "-J" in words


def check_golden(family, params, key, expected, printable=None):
    """The topics' values (and their mean against the 'all' line), the printed names."""
    level, judged = options(key)
    rels, offsets = flat(RELS_J if judged else RELS)
    got = getattr(tg, family)(rels, offsets, LEVELS, relevance_level=level, params=params, num_docs=0)
    names = tg.columns(family, printable if printable is not None else params, printable is not None)
    if family == "relstring":
        assert names == list(expected) and got == expected[names[0]]
        return
    assert names == list(expected) and got.shape == (5, len(names))
    for j, name in enumerate(names):
        close(got[:, j], expected[name][:5])
        close([got[:, j].mean()], expected[name][5:])   # aggregate "mean": the 'all' line


# trec_eval 9.0.8 (built from its v9.0.8 tag): `trec_eval -q <key> -m G -m binG -m ndcg
# -m ndcg_rel -m Rndcg -m yaap -m relstring QRELS RUN`, per measure the values printed for
# topics 1..5 and 'all' (relstring: topics only, without the quotes)
BASIC = {
    '': {
        'relstring': ['13-.02>-20', '0-.0', '--', '.-', '1'],
        'binG': [0.4506, 0.0000, 0.0000, 0.0000, 1.0000, 0.2901],
        'G': [0.2614, 0.0000, 0.0000, 0.0000, 1.0000, 0.2523],
        'ndcg': [0.4706, 0.0000, 0.0000, 0.0000, 1.0000, 0.2941],
        'ndcg_rel': [0.3494, 0.0000, 0.0000, 0.0000, 1.0000, 0.2699],
        'Rndcg': [0.2667, 0.0000, 0.0000, 0.0000, 1.0000, 0.2533],
        'yaap': [0.0690, 0.0000, -1.0986, 0.0000, 0.6931, -0.0673],
    },
    '-l 2': {
        'relstring': ['13-.02>-20', '0-.0', '--', '.-', '1'],
        'binG': [0.3522, 0.0000, 0.0000, 0.0000, 0.0000, 0.0704],
        'G': [0.2614, 0.0000, 0.0000, 0.0000, 1.0000, 0.2523],
        'ndcg': [0.4706, 0.0000, 0.0000, 0.0000, 1.0000, 0.2941],
        'ndcg_rel': [0.3494, 0.0000, 0.0000, 0.0000, 1.0000, 0.2699],
        'Rndcg': [0.2667, 0.0000, 0.0000, 0.0000, 0.0000, 0.0533],
        'yaap': [-0.4615, 0.0000, -0.6931, 0.0000, 0.0000, -0.2309],
    },
    '-J': {
        'relstring': ['1302>201', '00', '', '', '1'],
        'binG': [0.5491, 0.0000, 0.0000, 0.0000, 1.0000, 0.3098],
        'G': [0.2989, 0.0000, 0.0000, 0.0000, 1.0000, 0.2598],
        'ndcg': [0.5226, 0.0000, 0.0000, 0.0000, 1.0000, 0.3045],
        'ndcg_rel': [0.3884, 0.0000, 0.0000, 0.0000, 1.0000, 0.2777],
        'Rndcg': [0.3217, 0.0000, 0.0000, 0.0000, 1.0000, 0.2643],
        'yaap': [0.4613, 0.0000, -1.0986, 0.0000, 0.6931, 0.0112],
    },
    '-l 0': {
        'relstring': ['13-.02>-20', '0-.0', '--', '.-', '1'],
        'binG': [0.4792, 0.7500, 0.0000, 0.0000, 0.5000, 0.3458],
        'G': [0.2614, 0.0000, 0.0000, 0.0000, 1.0000, 0.2523],
        'ndcg': [0.4706, 0.0000, 0.0000, 0.0000, 1.0000, 0.2941],
        'ndcg_rel': [0.3494, 0.0000, 0.0000, 0.0000, 1.0000, 0.2699],
        'Rndcg': [0.2667, NAN, 0.0000, 0.0000, 1.0000, NAN],
        'yaap': [0.3622, 0.5108, -1.0986, 0.0000, 0.0000, -0.0451],
    },
    '-l -1': {
        'relstring': ['13-.02>-20', '0-.0', '--', '.-', '1'],
        'binG': [0.7417, 1.3155, 1.0000, INF, 0.5000, INF],
        'G': [0.2614, 0.0000, 0.0000, 0.0000, 1.0000, 0.2523],
        'ndcg': [0.4706, 0.0000, 0.0000, 0.0000, 1.0000, 0.2941],
        'ndcg_rel': [0.3494, 0.0000, 0.0000, 0.0000, 1.0000, 0.2699],
        'Rndcg': [0.2667, NAN, 0.0000, 0.0000, 1.0000, NAN],
        'yaap': [1.6480, 2.7081, 1.0986, 1.0986, 0.0000, 1.3107],
    },
    '-J -l 2': {
        'relstring': ['1302>201', '00', '', '', '1'],
        'binG': [0.4262, 0.0000, 0.0000, 0.0000, 0.0000, 0.0852],
        'G': [0.2989, 0.0000, 0.0000, 0.0000, 1.0000, 0.2598],
        'ndcg': [0.5226, 0.0000, 0.0000, 0.0000, 1.0000, 0.3045],
        'ndcg_rel': [0.3884, 0.0000, 0.0000, 0.0000, 1.0000, 0.2777],
        'Rndcg': [0.3217, 0.0000, 0.0000, 0.0000, 0.0000, 0.0643],
        'yaap': [-0.1335, 0.0000, -0.6931, 0.0000, 0.0000, -0.1653],
    },
}
# trec_eval 9.0.8: `trec_eval -q [-J] -m G.<pairs> -m ndcg.<pairs> -m ndcg_rel.<pairs>
# -m Rndcg.<pairs> QRELS RUN`, keyed '<pairs> [-J]'
PAIRS = {
    '0=1,2=5,7=9': {
        'G_0=1,2=5,7=9': [0.2575, 0.7500, 0.0000, 0.0000, 0.5000, 0.3015],
        'ndcg_0=1,2=5,7=9': [0.5130, 0.8772, 0.0000, 0.0000, 0.6131, 0.4007],
        'ndcg_rel_0=1,2=5,7=9': [0.3653, 0.9386, 0.0000, 0.0000, 0.8066, 0.4221],
        'Rndcg_0=1,2=5,7=9': [0.2276, 0.0000, 0.0000, 0.0000, 0.6131, 0.1682],
    },
    '0=1,2=5,7=9 -J': {
        'G_0=1,2=5,7=9': [0.3029, 1.0000, 0.0000, 0.0000, 0.5000, 0.3606],
        'ndcg_0=1,2=5,7=9': [0.5814, 1.0000, 0.0000, 0.0000, 0.6131, 0.4389],
        'ndcg_rel_0=1,2=5,7=9': [0.4203, 1.0000, 0.0000, 0.0000, 0.8066, 0.4454],
        'Rndcg_0=1,2=5,7=9': [0.3409, 0.0000, 0.0000, 0.0000, 0.6131, 0.1908],
    },
    '1=1.5,2=1.2,3=-1,12=0.5': {
        'G_1=1.5,2=1.2,3=-1,12=0.5': [0.4097, 0.0000, 0.0000, 0.0000, 1.0000, 0.2819],
        'ndcg_1=1.5,2=1.2,3=-1,12=0.5': [0.5702, 0.0000, 0.0000, 0.0000, 1.0000, 0.3140],
        'ndcg_rel_1=1.5,2=1.2,3=-1,12=0.5': [0.5971, 0.0000, 0.0000, 0.0000, 1.0000, 0.3194],
        'Rndcg_1=1.5,2=1.2,3=-1,12=0.5': [0.4117, 0.0000, 0.0000, 0.0000, 1.0000, 0.2823],
    },
    '1=1.5,2=1.2,3=-1,12=0.5 -J': {
        'G_1=1.5,2=1.2,3=-1,12=0.5': [0.4477, 0.0000, 0.0000, 0.0000, 1.0000, 0.2895],
        'ndcg_1=1.5,2=1.2,3=-1,12=0.5': [0.6305, 0.0000, 0.0000, 0.0000, 1.0000, 0.3261],
        'ndcg_rel_1=1.5,2=1.2,3=-1,12=0.5': [0.6411, 0.0000, 0.0000, 0.0000, 1.0000, 0.3282],
        'Rndcg_1=1.5,2=1.2,3=-1,12=0.5': [0.4920, 0.0000, 0.0000, 0.0000, 1.0000, 0.2984],
    },
    '-2=2,-1=0.5': {
        'G_-2=2,-1=0.5': [0.3411, 0.0000, 0.1755, 0.7927, 1.0000, 0.4619],
        'ndcg_-2=2,-1=0.5': [0.5410, 0.0000, 0.3100, 0.8801, 1.0000, 0.5462],
        'ndcg_rel_-2=2,-1=0.5': [0.3154, 0.0000, 0.2800, 0.9400, 1.0000, 0.5071],
        'Rndcg_-2=2,-1=0.5': [0.3111, 0.0000, 0.2800, 0.0000, 1.0000, 0.3182],
    },
    '-2=2,-1=0.5 -J': {
        'G_-2=2,-1=0.5': [0.2989, 0.0000, 0.0000, 0.0000, 1.0000, 0.2598],
        'ndcg_-2=2,-1=0.5': [0.5226, 0.0000, 0.0000, 0.0000, 1.0000, 0.3045],
        'ndcg_rel_-2=2,-1=0.5': [0.3884, 0.0000, 0.0000, 0.0000, 1.0000, 0.2777],
        'Rndcg_-2=2,-1=0.5': [0.3217, 0.0000, 0.0000, 0.0000, 1.0000, 0.2643],
    },
    '1=2.5,1=7,x=3': {
        'G_1=2.5,1=7,x=3': [0.2592, 0.7500, 0.0000, 0.0000, 0.3439, 0.2706],
        'ndcg_1=2.5,1=7,x=3': [0.5786, 0.8772, 0.0000, 0.0000, 0.5462, 0.4004],
        'ndcg_rel_1=2.5,1=7,x=3': [0.4513, 0.9386, 0.0000, 0.0000, 0.6898, 0.4159],
        'Rndcg_1=2.5,1=7,x=3': [0.3999, 0.0000, 0.0000, 0.0000, 0.6898, 0.2179],
    },
    '1=2.5,1=7,x=3 -J': {
        'G_1=2.5,1=7,x=3': [0.4188, 1.0000, 0.0000, 0.0000, 0.3439, 0.3525],
        'ndcg_1=2.5,1=7,x=3': [0.6467, 1.0000, 0.0000, 0.0000, 0.5462, 0.4386],
        'ndcg_rel_1=2.5,1=7,x=3': [0.5273, 1.0000, 0.0000, 0.0000, 0.6898, 0.4434],
        'Rndcg_1=2.5,1=7,x=3': [0.5439, 0.0000, 0.0000, 0.0000, 0.6898, 0.2467],
    },
    '-2=5': {
        'G_-2=5': [0.4916, 0.0000, 0.0000, NAN, 1.0000, NAN],
        'ndcg_-2=5': [0.5900, 0.0000, 0.0000, 1.9005, 1.0000, 0.6981],
        'ndcg_rel_-2=5': [0.4048, 0.0000, 0.0000, 2.2002, 1.0000, 0.7210],
        'Rndcg_-2=5': [0.3398, 0.0000, 0.0000, 0.0000, 1.0000, 0.2680],
    },
    '-2=5 -J': {
        'G_-2=5': [0.2989, 0.0000, 0.0000, 0.0000, 1.0000, 0.2598],
        'ndcg_-2=5': [0.5226, 0.0000, 0.0000, 0.0000, 1.0000, 0.3045],
        'ndcg_rel_-2=5': [0.3884, 0.0000, 0.0000, 0.0000, 1.0000, 0.2777],
        'Rndcg_-2=5': [0.3217, 0.0000, 0.0000, 0.0000, 1.0000, 0.2643],
    },
}
# trec_eval 9.0.8: `trec_eval -q -m relstring.<key> QRELS RUN`
RELSTRING = {
    '5': {
        'relstring_5': ['13-.0', '0-.0', '--', '.-', '1'],
    },
    '0': {
        'relstring_0': ['', '', '', '', ''],
    },
    '2.9': {
        'relstring_2.9': ['13', '0-', '--', '.-', '1'],
    },
    '-3': {
        'relstring_-3': ['', '', '', '', ''],
    },
    '20': {
        'relstring_20': ['13-.02>-201', '0-.0', '--', '.-', '1'],
    },
}
# trec_eval 10.0 (built from its v10.0 tag with its Makefile's flags: -g, no -O; m_rbp.c's
# uninitialised min and max held 0 there): `trec_eval -q [-J] -m <key> QRELS RUN`
V10 = {
    'rbp': {
        'rbp': [0.1039, 0.0000, 0.0000, 0.0000, 0.1000, 0.0408],
    },
    'rbp -J': {
        'rbp': [0.1224, 0.0000, 0.0000, 0.0000, 0.1000, 0.0445],
    },
    'rbp.p=0.5': {
        'rbp_p=0.5': [0.1149, 0.0000, 0.0000, 0.0000, 0.5000, 0.1230],
    },
    'rbp.p=0.5 -J': {
        'rbp_p=0.5': [0.1488, 0.0000, 0.0000, 0.0000, 0.5000, 0.1298],
    },
    'rbp.0=2,1=3,2=4': {
        'rbp_0=2,1=3,2=4': [0.1608, 0.0864, 0.0000, 0.0000, 0.0750, 0.0644],
    },
    'rbp.0=2,1=3,2=4 -J': {
        'rbp_0=2,1=3,2=4': [0.1914, 0.0950, 0.0000, 0.0000, 0.0750, 0.0723],
    },
    'rbp.p=0.8,3=0.5,12=1': {
        'rbp_p=0.8,3=0.5,12=1': [0.0502, 0.0000, 0.0000, 0.0000, 0.2000, 0.0500],
    },
    'rbp.p=0.8,3=0.5,12=1 -J': {
        'rbp_p=0.8,3=0.5,12=1': [0.0672, 0.0000, 0.0000, 0.0000, 0.2000, 0.0534],
    },
    'rbp_resid': {
        'rbp_resid': [0.5155, 0.8271, 1.0000, 1.0000, 0.0000, 0.6685],
    },
    'rbp_resid -J': {
        'rbp_resid': [0.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000],
    },
    'rbp_resid.p=0.5': {
        'rbp_resid_p=0.5': [0.1919, 0.4375, 1.0000, 1.0000, 0.0000, 0.5259],
    },
    'rbp_resid.p=0.5 -J': {
        'rbp_resid_p=0.5': [0.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000],
    },
    'unj': {
        'unj_5': [0.4000, 0.4000, 0.4000, 0.4000, 0.0000, 0.3200],
        'unj_10': [0.3000, 0.2000, 0.2000, 0.2000, 0.0000, 0.1800],
        'unj_20': [0.1500, 0.1000, 0.1000, 0.1000, 0.0000, 0.0900],
    },
    'unj -J': {
        'unj_5': [0.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000],
        'unj_10': [0.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000],
        'unj_20': [0.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000],
    },
    'unj.1,3,50': {
        'unj_1': [0.0000, 0.0000, 1.0000, 1.0000, 0.0000, 0.4000],
        'unj_3': [0.3333, 0.6667, 0.6667, 0.6667, 0.0000, 0.4667],
        'unj_50': [0.0600, 0.0400, 0.0400, 0.0400, 0.0000, 0.0360],
    },
    'unj.1,3,50 -J': {
        'unj_1': [0.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000],
        'unj_3': [0.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000],
        'unj_50': [0.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000],
    },
}


@pytest.mark.parametrize("key", list(BASIC))
def test_golden_trec_eval_9_0_8(key):
    for family in ("G", "binG", "ndcg", "ndcg_rel", "Rndcg", "yaap", "relstring"):
        check_golden(family, None, key, {family: BASIC[key][family]})


@pytest.mark.parametrize("key", list(PAIRS))
def test_golden_trec_eval_9_0_8_gains(key):
    typed = key.split()[0]
    for family in ("G", "ndcg", "ndcg_rel", "Rndcg"):
        name = f"{family}_{typed}"
        check_golden(family, parse_pairs(typed), key, {name: PAIRS[key][name]}, printable=typed)


@pytest.mark.parametrize("key", list(RELSTRING))
def test_golden_trec_eval_9_0_8_relstring(key):
    check_golden("relstring", (float(key),), "", RELSTRING[key], printable=key)


@pytest.mark.parametrize("key", list(V10))
def test_golden_trec_eval_10(key):
    measure = key.split()[0]
    family, _, typed = measure.partition(".")
    if not typed:
        params, printable = None, None
    elif family == "unj":
        params, printable = tuple(int(k) for k in typed.split(",")), typed
    else:
        params, printable = parse_pairs(typed), typed
    check_golden(family, params, key, V10[key], printable=printable)


# ---------------------------------------------------------------------------------------------
# pytrec_eval: trec_eval 9.0.8's C code in a wheel, on random topics (default gains)
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("level", [1, 2])
def test_pytrec_eval(level):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = np.random.default_rng(11 + level)
    qrels, run, per_query, levels = {}, {}, [], np.zeros((30, 5), dtype=np.int64)
    for q in range(30):
        qid = f"q{q:02d}"
        grades = rng.integers(-1, 5, size=rng.integers(1, 15))
        grades[0] = rng.integers(0, 5)
        qrels[qid] = {f"d{i:02d}": int(g) for i, g in enumerate(grades)}
        docs = [f"d{i:02d}" for i in rng.permutation(len(grades) + 6)[: rng.integers(1, len(grades) + 6)]]
        scores = rng.permutation(len(docs)) + 1.0               # distinct: the order is the scores'
        run[qid] = dict(zip(docs, scores.tolist()))
        ranked = [d for _, d in sorted(zip(-scores, docs))]
        per_query.append([-1 if d not in qrels[qid] else (-2 if qrels[qid][d] < 0 else qrels[qid][d])
                          for d in ranked])
        for g in grades[grades >= 0]:
            levels[q, g] += 1
    measures = ("G", "binG", "ndcg", "ndcg_rel", "Rndcg")
    theirs = pytrec_eval.RelevanceEvaluator(qrels, set(measures), relevance_level=level).evaluate(run)
    rels, offsets = flat(per_query)
    for family in measures:
        got = getattr(tg, family)(rels, offsets, levels, relevance_level=level, params=None, num_docs=0)[:, 0]
        want = [theirs[f"q{q:02d}"][family] for q in range(30)]
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12, err_msg=family)


# ---------------------------------------------------------------------------------------------
# issue 49: the cost of G, Rndcg, ndcg_rel (and the other tables) follows the list, not the grade
# ---------------------------------------------------------------------------------------------
def _cmp_rel_gain(a: float, b: float) -> int:
    """``comp_rel_gain``: ``(int)(a - b)`` as x86-64 truncates it (NaN, out of int: INT_MIN)."""
    d = a - b
    if d != d or d >= 2147483648.0 or d <= -2147483649.0:
        return -2147483648
    return int(d)


def _glibc_msort(items: list, key) -> list:
    """glibc's ``msort_with_tmp`` on the whole list, one entry per level: the reference."""
    if len(items) <= 1:
        return list(items)
    n1 = len(items) // 2
    left, right = _glibc_msort(items[:n1], key), _glibc_msort(items[n1:], key)
    out, i, j = [], 0, 0
    while i < len(left) and j < len(right):
        if _cmp_rel_gain(key(left[i]), key(right[j])) <= 0:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out + left[i:] + right[j:]


def test_sorted_tables_are_glibc_msort_of_every_entry():
    """The table kept as typed pairs and runs of default levels sorts as glibc's merge sort of
    every entry does (setup_gains: the pairs, then levels 0 .. t - 1 not typed), with gains
    that compare equal (< 1 apart), beyond int, NaN, and levels typed twice or out of range."""
    rng = np.random.default_rng(49)
    for _ in range(1500):
        t = int(rng.integers(0, 40))
        typed = []
        for _ in range(int(rng.integers(0, 7))):
            g = rng.choice([rng.normal() * 3, round(rng.normal() * 5, 1), float(rng.integers(-3, 45)), 3e9, -3e9,
                            2.2e9, NAN, rng.random() * 40])
            typed.append((int(rng.integers(-2, t + 3)), float(g)))
        entries = [[lv, g] for lv, g in typed] + [[i, float(i)] for i in range(t) if all(lv != i for lv, _ in typed)]
        want = [(lv, g) for lv, g in _glibc_msort(entries, key=lambda e: e[1])]
        tab = tg._Table(typed, t)
        got = []
        for item in tab.items:
            if item[0] == "P":
                got.append(typed[item[1]])
            else:
                got += [(tab.value(k), float(tab.value(k))) for k in range(item[1], item[2])]
        assert len(got) == len(want)
        for (la, ga), (lb, gb) in zip(got, want):
            assert la == lb and (ga == gb or (ga != ga and gb != gb)), (t, typed)


def _dense_cases():
    """The random topics and parameters whose values the dense implementation (one table entry
    per level, as wide as the largest grade squared) gave: data/trec_gain_dense_tables.json."""
    pairs_choice = [None, (), (("0", 0.0), ("1", 1.0), ("2", 3.0), ("3", 7.0)), (("1", 1.5), ("2", 1.2)),
                    (("0", -1.0), ("4", 2.5)), (("-1", 0.5), ("2", 0.2), ("2", 5.0)),
                    (("p", 0.8), ("3", 1.7), ("1", 2.6), ("x", 0.3)), (("5", 1e10), ("1", -3e9), ("2", 0.9)),
                    (("0", 2.0), ("1", 0.5), ("6", 4.4), ("3", 3.1), ("-2", 1.0))]
    rng = np.random.default_rng(49)
    for _ in range(150):
        nq = int(rng.integers(1, 6))
        top = int(rng.choice([1, 3, 5, 8, 12]))
        judged, jo, rels, off = [], [0], [], [0]
        for q in range(nq):
            k = int(rng.integers(0, 12))
            g = rng.integers(-2, top + 1, size=k)
            if q == 0 and k and g.max() < 0:
                g[0] = 0
            judged += g.tolist()
            jo.append(len(judged))
            pool = g.tolist()
            r = [int(rng.choice(pool)) if pool and rng.random() < 0.6 else -1 for _ in range(int(rng.integers(0, 15)))]
            rels += [(-2 if x < 0 and x != -1 else x) for x in r]
            off.append(len(rels))
        judged = np.array(judged, dtype=np.int64)
        seg = np.repeat(np.arange(nq), np.diff(jo))
        keep = judged >= 0
        levels = np.zeros((nq, int(judged[keep].max(initial=0)) + 1), dtype=np.int64)
        np.add.at(levels, (seg[keep], judged[keep]), 1)
        yield (np.array(rels, dtype=np.int64), np.array(off, dtype=np.int64), levels, int(rng.integers(-2, 3)),
               pairs_choice[int(rng.integers(0, len(pairs_choice)))])


def test_the_same_values_as_the_dense_tables():
    """Bit for bit what the dense tables gave on 150 random cases (every quirk of the table)."""
    import json
    from pathlib import Path

    want = json.loads((Path(__file__).parent / "data" / "trec_gain_dense_tables.json").read_text())
    for (rels, off, levels, level, pairs), row in zip(_dense_cases(), want, strict=True):
        for fam, values in zip(("G", "ndcg", "ndcg_rel", "Rndcg", "rbp"), row):
            got = getattr(tg, fam)(rels, off, levels, relevance_level=level, params=pairs)
            assert [repr(float(x)) for x in np.ravel(got)] == values, (fam, pairs, level)


def test_a_large_grade_costs_the_list_not_the_grade():
    """Grades of 100,000 (the dense tables: 100,001^2 entries, MemoryError): the values of the
    small grades scaled, and no memory beyond the rel_levels rows."""
    import tracemalloc

    rels, offsets = flat([[100_000, 1, -1], [50_000, 3]])
    levels = np.zeros((2, 100_001), dtype=np.int64)
    levels[0, [1, 100_000]] = 1
    levels[1, [3, 50_000]] = 1
    small_rels, small_off = flat([[5, 1, -1], [4, 3]])
    small = np.zeros((2, 6), dtype=np.int64)
    small[0, [1, 5]] = 1
    small[1, [3, 4]] = 1
    tracemalloc.start()
    try:
        got = {f: getattr(tg, f)(rels, offsets, levels) for f in ("G", "Rndcg", "ndcg_rel", "ndcg")}
        got["ndcg.1=2"] = tg.ndcg(rels, offsets, levels, params=(("1", 2.0),))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20 * 2**20, peak            # rel_levels itself is 1.6 MB
    for f in ("G", "Rndcg", "ndcg_rel", "ndcg"):   # perfect rankings: 1 at any grade
        assert got[f].shape == (2, 1)
        close(got[f][:, 0], getattr(tg, f)(small_rels, small_off, small)[:, 0])
    assert 0 < got["ndcg.1=2"][0, 0] <= 1
