"""evaluate(): inputs, reading rules, errors, the CLI's evaluate and compare (the measures
themselves are checked against trec_eval in test_trec_eval_conformance.py)."""

from __future__ import annotations

import gzip

import numpy as np
import pandas as pd
import pytest
from cli_run import evalrank

import evalrank as er
from evalrank.evaluation.evaluate import evaluate_trec, format_trec, summarize

QRELS = "1 0 a 2\n1 0 b 1\n1 0 c 0\n1 0 x 1\n2 0 a 1\n3 0 z 1\n"
RUN = "1 Q0 b 1 0.9 t\n1 Q0 a 2 0.5 t\n1 Q0 d 3 0.5 t\n2 Q0 a 1 1 t\n4 Q0 a 1 1 t\n"


@pytest.fixture
def files(trec_files):
    return trec_files(QRELS, RUN)


def test_hand_computed_values(files):
    df = er.evaluate(*files, ["map", "P.2", "recip_rank", "ndcg_cut.3", "num_rel", "num_ret"])
    v = {(q, m): x for q, m, x in zip(df.qid, df.measure, df.value)}
    # topic 1, trec_eval's order: b (0.9), then the tie a/d at 0.5 broken by docno descending: d, a
    assert v["1", "map"] == pytest.approx((1 / 1 + 2 / 3) / 3)      # relevant: a, b, x (x never retrieved)
    assert v["1", "P_2"] == 0.5 and v["1", "recip_rank"] == 1.0
    dcg = 1 / np.log2(2) + 0 + 2 / np.log2(4)
    idcg = 2 / np.log2(2) + 1 / np.log2(3) + 1 / np.log2(4)
    assert v["1", "ndcg_cut_3"] == pytest.approx(dcg / idcg)
    assert v["1", "num_rel"] == 3 and v["1", "num_ret"] == 3
    assert sorted(set(df.qid)) == ["1", "2"]                          # 3: no run; 4: no qrels
    full = er.evaluate(*files, ["map"], complete=True)
    assert sorted(full.qid) == ["1", "2", "3"] and full.value[full.qid == "3"].item() == 0.0


def test_inputs_of_every_shape_agree(files):
    qrels, run = files
    want = er.evaluate(qrels, run, ["map", "ndcg_cut.10"])
    qd = {"1": {"a": 2, "b": 1, "c": 0, "x": 1}, "2": {"a": 1}, "3": {"z": 1}}
    rd = {"1": {"b": 0.9, "a": 0.5, "d": 0.5}, "2": {"a": 1.0}, "4": {"a": 1.0}}
    cols = {"query_id": np.array(["1", "1", "1", "2", "4"]), "doc_id": np.array(["b", "a", "d", "a", "a"]),
            "score": np.array([0.9, 0.5, 0.5, 1.0, 1.0])}
    for q, r in [(qd, rd), (qd, cols), (qd, pd.DataFrame(cols))]:
        got = er.evaluate(q, r, ["map", "ndcg_cut.10"])
        assert got.run.unique().tolist() == ["run"]
        np.testing.assert_array_equal(got.value.to_numpy(), want.value.to_numpy())
    named = er.evaluate(qd, {"mine": rd, "theirs": str(run)}, ["map"])
    assert named.run.unique().tolist() == ["mine", "theirs"]
    with pytest.raises(TypeError, match="name in-memory runs with a mapping"):
        er.evaluate(qd, [rd], ["map"])
    with pytest.raises(ValueError, match="r: no score column"):
        er.evaluate(qd, {"r": {"query_id": ["1"], "doc_id": ["a"], "rank": [1]}}, ["map"])


def test_files_as_users_have_them(tmp_path, files):
    qrels, run = files
    want = format_trec(evaluate_trec(qrels, [run], ["map", "P.5"], ), per_query=True)
    text = "\ufeff# a comment\n" + RUN.replace("\n", "\r\n").replace(" t\r\n", " t extra fields\r\n") + "\n\n"
    (tmp_path / "run.gz").write_bytes(gzip.compress(text.encode()))
    got = format_trec(evaluate_trec(qrels, [tmp_path / "run.gz"], ["map", "P.5"]), per_query=True)
    assert got == want


@pytest.mark.parametrize("qrels, run, match", [
    ("1 0 a 1\n1 0 a 0\n", "1 Q0 a 1 1 t\n", r"qrels:2: document 'a' judged twice for topic '1' \(first on line 1"),
    ("1 0 a 1\n1 0 a 1 x\n", "1 Q0 a 1 1 t\n", r"qrels:2: a qrels line has 4 fields"),
    ("1 0 a high\n", "1 Q0 a 1 1 t\n", r"qrels:1: relevance 'high' is not an integer"),
    ("1 0 a 1\n", "1 Q0 a 1 1 t\n1 Q0 b 2 x t\n", r"run:2: score 'x' is not a number"),
    ("1 0 a 1\n", "1 Q0 a 1 inf t\n", r"run:1: score 'inf' is not finite"),
    ("1 0 a 1\n", "1 Q0 a 1 1 t\n1 Q0 a 2 0 t\n", r"run:2: document 'a' retrieved twice for topic '1'"),
    # the repeat ranks first: the message cites the repeat's line, and the first's (issue 49)
    ("1 0 a 1\n", "1 Q0 a 1 0 t\n1 Q0 b 2 0.5 t\n1 Q0 a 3 1 t\n",
     r"run:3: document 'a' retrieved twice for topic '1' \(first on line 1;"),
    ("1 0 a 1\n", "2 Q0 a 1 1 t\n", r"no topic of the run has qrels"),
    ("1 0 a 1\n", "# nothing\n", r"run: no run lines"),
])
def test_bad_files_are_refused_naming_file_and_line(trec_files, qrels, run, match):
    files = trec_files(qrels, run)
    with pytest.raises(ValueError, match=match):
        er.evaluate(*files, ["map"])
    out = evalrank("evaluate", "-m", "map", *files)
    assert out.returncode == 1 and out.stdout == ""
    assert out.stderr.startswith("evalrank evaluate: error: ") and "Traceback" not in out.stderr


def test_a_duplicate_judgment_of_a_topic_not_evaluated_is_read_as_trec_eval_reads_it(trec_files):
    files = trec_files("1 0 a 1\n2 0 b 1\n2 0 b 0\n", "1 Q0 a 1 1 t\n")
    assert er.evaluate(*files, ["map"]).value.tolist() == [1.0]


@pytest.mark.parametrize("bad, match", [
    (["P.5", "P.10"], "measure P given twice"), (["nope"], "measure 'nope' is not known"), (["map.5"], "takes no parameters"),
])
def test_bad_measures(files, bad, match):
    with pytest.raises(ValueError, match=match):
        er.evaluate(*files, bad)


def test_cli_evaluate_prints_trec_evals_lines_and_names_runs(tmp_path, files):
    qrels, run = files
    out = evalrank("evaluate", "-q", "-m", "map", "-m", "P.5", "-m", "err@20", qrels, run)
    assert out.returncode == 0, out.stderr
    assert out.stdout == format_trec(evaluate_trec(qrels, [run], ["map", "P.5", "err@20"]), per_query=True)
    lines = out.stdout.splitlines()
    assert lines[0] == "map                   \t1\t0.5556" and lines[-1].startswith("err@20                \tall\t")
    (tmp_path / "run2").write_text(RUN)
    out = evalrank("evaluate", "-m", "map", "-o", tmp_path / "out.txt", qrels, run, tmp_path / "run2")
    assert out.returncode == 0 and out.stdout == ""
    assert (tmp_path / "out.txt").read_text().splitlines() == ["run\tmap                   \tall\t0.7778",
                                                               "run2\tmap                   \tall\t0.7778"]
    summary = summarize(er.evaluate(qrels, [run, tmp_path / "run2"], ["map"]))
    assert summary.value.round(4).tolist() == [0.7778, 0.7778]


def test_compare_end_to_end(tmp_path):
    rng = np.random.default_rng(3)
    qrels = [f"{q} 0 d{d} {rng.integers(0, 3)}" for q in range(30) for d in range(20)]
    (tmp_path / "qrels").write_text("\n".join(qrels) + "\n")
    runs = []
    for name, noise in [("base", 1.0), ("better", 0.3), ("same", 1.0)]:
        lines = [f"{q} Q0 d{d} {d} {rng.normal() * noise - d * 0.1:.5f} {name}" for q in range(30) for d in range(20)]
        (tmp_path / name).write_text("\n".join(lines) + "\n")
        runs.append(tmp_path / name)
    per_query = er.evaluate(tmp_path / "qrels", runs, ["map", "ndcg_cut.10"])
    table = er.compare(tmp_path / "qrels", runs, ["map", "ndcg_cut.10"], baseline="base", seed=1)
    assert table.measure.tolist() == ["map"] * 3 + ["ndcg_cut_10"] * 3
    means = per_query.groupby(["measure", "run"]).value.mean()
    for row in table.itertuples():
        assert row.mean == pytest.approx(means[row.measure, row.run])
        assert row.delta == pytest.approx(means[row.measure, row.run] - means[row.measure, "base"])
    out = evalrank("compare", "--baseline", "base", "--format", "csv", "-m", "map", "--seed", "1",
                   tmp_path / "qrels", *runs)
    assert out.returncode == 0, out.stderr
    csv = pd.read_csv(pd.io.common.StringIO(out.stdout))
    assert csv.randomization_p.round(6).tolist()[1:] == table[table.measure == "map"].randomization_p.round(6).tolist()[1:]
    bad = evalrank("compare", "--baseline", "nope", tmp_path / "qrels", *runs)
    assert bad.returncode == 1 and "baseline" in bad.stderr and "Traceback" not in bad.stderr


def test_startup_on_files_imports_no_pandas(files):
    """evaluate on files never imports pandas (start-up time); the DataFrame API does."""
    import subprocess
    import sys

    code = ("import sys; from evalrank.cli import main; main(['evaluate', '-m', 'map', %r, %r]); "
            "print('PANDAS' if 'pandas' in sys.modules else 'NO-PANDAS')" % tuple(map(str, files)))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[-1] == "NO-PANDAS", out


def test_summarize_sums_up_each_measure_as_the_all_line_does(tmp_path):
    """summarize() on evaluate()'s frame gives format_trec's all line: means, sums for counts under
    either vocabulary (num_ret, NumRet), geometric means for gm_map; -c's missing topics count 0."""
    from evalrank.evaluation.evaluate import evaluate

    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n2 0 d 1\n3 0 e 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n2 Q0 d 1 3 t\n2 Q0 x 2 2 t\n2 Q0 c 3 1 t\n")
    ms = ["map", "gm_map", "num_ret", "NumRet", "P.2", "runid"]
    for complete in (False, True):
        df = evaluate(tmp_path / "q", tmp_path / "r", ms, complete=complete)
        assert "runid" not in set(df.measure)                  # text, not a number
        got = dict(zip(summarize(df).measure, summarize(df).value))
        (res,) = evaluate_trec(tmp_path / "q", [tmp_path / "r"], ms, complete=complete)
        want = res.means()
        for m in ("map", "gm_map", "num_ret", "NumRet", "P_2"):
            assert got[m] == pytest.approx(want[m], rel=1e-12), (complete, m)
    assert want["gm_map"] < want["map"] and want["NumRet"] == 5


# ---------------------------------------------------------------------------------------------
# in-memory inputs (issue 28, item 4): every id dtype, as fast paths and fallbacks, both JIT modes
# ---------------------------------------------------------------------------------------------
def _random_pairs(seed: int, n_topics: int = 60, numeric: bool = False):
    """(qrels rows, run rows) as (qid, docno, value) with ties, unjudged and negative judgments, a
    topic without qrels and one without a run; docnos numeric strings where ``numeric``."""
    rng = np.random.default_rng(seed)
    run, qrels = [], []
    for t in range(n_topics):
        q = str(1000 + t) if numeric else f"T{t:03d}"
        docs = rng.choice(10 ** 6, size=int(rng.integers(1, 80)), replace=False)
        name = (lambda d: str(int(d))) if numeric else (lambda d: f"doc-{int(d)}")
        scores = np.round(rng.random(docs.size), int(rng.integers(1, 4)))
        if t != 7:
            run += [(q, name(d), float(s)) for d, s in zip(docs, scores)]
        if t != 3:
            judged = rng.choice(docs, size=int(rng.integers(1, docs.size + 1)), replace=False)
            qrels += [(q, name(d), int(rng.integers(-1, 4))) for d in judged]
    return qrels, run


def _write(path, rows, kind):
    path.write_text("".join(f"{q} 0 {d} {v}\n" if kind == "qrels" else f"{q} Q0 {d} {i} {v!r} t\n"
                            for i, (q, d, v) in enumerate(rows)))


def _cols(rows, kind, as_):
    q, d, v = (list(x) for x in zip(*rows))
    vname = "relevance" if kind == "qrels" else "score"
    if as_ == "int":
        q, d = np.array([int(x) for x in q]), np.array([int(x) for x in d])
    elif as_ == "U":
        q, d = np.array(q), np.array(d)
    elif as_ == "S":
        q, d = np.array(q).astype("S"), np.array(d).astype("S")
    elif as_ == "list":
        return {"query_id": q, "doc_id": d, vname: v}
    else:
        q, d = np.array(q, dtype=object), np.array(d, dtype=object)
    cols = {"query_id": q, "doc_id": d, vname: np.array(v)}
    if as_ == "frame-object":
        return pd.DataFrame({k: pd.Series(x, dtype=object) if x.dtype == object else x for k, x in cols.items()})
    if as_ in ("frame-string", "frame-str"):
        dt = "string" if as_ == "frame-string" else "str"
        return pd.DataFrame({k: pd.array(x, dtype=dt) if x.dtype == object else x for k, x in cols.items()})
    return cols


MEASURES = ["map", "ndcg_cut.10", "P.5", "recip_rank", "num_rel_ret"]


@pytest.mark.parametrize("mode", ["python", "numba"])
@pytest.mark.parametrize("shuffle", [False, True])
def test_every_id_dtype_gives_the_values_of_the_files(tmp_path, mode, shuffle):
    """DataFrames (object, pandas "string" and "str" ids) and column mappings (numpy U, S, object,
    int64, lists) evaluate exactly as the same lines written to files; rows of a topic together
    (one id converted per topic) or shuffled (every row converted)."""
    from evalrank import _jit

    for numeric in (False, True):
        qrels, run = _random_pairs(1 + numeric, numeric=numeric)
        if shuffle:
            rng = np.random.default_rng(5)
            qrels, run = [qrels[i] for i in rng.permutation(len(qrels))], [run[i] for i in rng.permutation(len(run))]
        _write(tmp_path / "q", qrels, "qrels")
        _write(tmp_path / "r", run, "run")
        with _jit.mode(mode):
            want = er.evaluate(tmp_path / "q", tmp_path / "r", MEASURES)
            kinds = ["frame-object", "frame-string", "frame-str", "U", "S", "object", "list"] + (["int"] if numeric else [])
            for as_ in kinds:
                got = er.evaluate(_cols(qrels, "qrels", as_), _cols(run, "run", as_), MEASURES)
                assert got.qid.tolist() == want.qid.tolist(), as_
                np.testing.assert_array_equal(got.value.to_numpy(), want.value.to_numpy(), err_msg=as_)


def test_frame_values_equal_pytrec_eval():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = _random_pairs(7, n_topics=200)
    got = er.evaluate(_cols(qrels, "qrels", "frame-string"), _cols(run, "run", "frame-object"), ["map", "ndcg_cut.10"])
    qd, rd = {}, {}
    for q, d, v in qrels:
        qd.setdefault(q, {})[d] = v
    for q, d, v in run:
        rd.setdefault(q, {})[d] = v
    want = pytrec_eval.RelevanceEvaluator(qd, {"map", "ndcg_cut.10"}).evaluate(rd)
    assert len(got) == 2 * len(want)
    for q, m, v in zip(got.qid, got.measure, got.value):
        assert v == pytest.approx(want[q][m], abs=1e-12), (q, m)


@pytest.mark.parametrize("mode", ["python", "numba"])
def test_ids_beyond_ascii_with_newlines_bytes_or_mixed_types(mode):
    """The fallbacks: numpy U ids beyond ASCII, str ids holding a newline (the join cannot be
    split), bytes and ints among str in an object column: the same values as plain ids."""
    from evalrank import _jit

    qrels, run = _random_pairs(3, n_topics=40)
    ren = {d: f"é{d}文" for _, d, _ in qrels + run}
    nl = {d: d.replace("-", "\n") for d in ren}
    with _jit.mode(mode):
        want = er.evaluate(_cols(qrels, "qrels", "object"), _cols(run, "run", "object"), MEASURES)
        for mapping, as_ in [(ren, "U"), (ren, "object"), (nl, "object")]:
            q2 = [(q, mapping[d], v) for q, d, v in qrels]
            r2 = [(q, mapping[d], v) for q, d, v in run]
            got = er.evaluate(_cols(q2, "qrels", as_), _cols(r2, "run", as_), MEASURES)
            np.testing.assert_array_equal(got.value.to_numpy(), want.value.to_numpy())
        # an object column mixing str, bytes and ints: "7" == b"7" == 7 as ids
        q3 = {"query_id": np.array(["a", b"a", "b"], dtype=object), "doc_id": np.array([7, b"8", "9"], dtype=object),
              "relevance": np.array([1, 1, 1])}
        r3 = {"query_id": np.array([b"a", "a", "b"], dtype=object), "doc_id": np.array(["7", 8, b"9"], dtype=object),
              "score": np.array([0.5, 0.4, 0.1])}
        got = er.evaluate(q3, r3, ["map", "num_rel_ret"])
        v = {(q, m): x for q, m, x in zip(got.qid, got.measure, got.value)}
        assert v == {("a", "map"): 1.0, ("a", "num_rel_ret"): 2.0, ("b", "map"): 1.0, ("b", "num_rel_ret"): 1.0}


@pytest.mark.parametrize("bad, row", [
    (np.array(["q1", None, "q2"], dtype=object), 1),
    (pd.array(["q1", "q1", pd.NA], dtype="string"), 2),
    (np.array([1.0, np.nan, 2.0]), 1),
])
def test_a_missing_query_id_is_refused_naming_its_row(bad, row):
    run = {"query_id": bad, "doc_id": np.array(["a", "b", "c"]), "score": np.array([0.3, 0.2, 0.1])}
    with pytest.raises(ValueError, match=f"run: row {row}: query id is missing"):
        er.evaluate({"q1": {"a": 1}}, run, ["map"])
    docs = {"query_id": np.array(["q1"] * 3), "doc_id": bad, "score": np.array([0.3, 0.2, 0.1])}
    with pytest.raises(ValueError, match=f"run: row {row}: document id is missing"):
        er.evaluate({"q1": {"a": 1}}, docs, ["map"])


def test_the_numpy_fnv1a_of_the_interpreted_mode_is_the_kernels():
    """Interpreted, column ids are hashed by NumPy a byte position at a time: the same FNV-1a as
    the reader's kernel, so a file and a DataFrame match each other's ids in either mode."""
    from evalrank.data.trec_scan import fnv1a
    from evalrank.data.trec_scan import _fnv1a_np

    rng = np.random.default_rng(4)
    words = [b"", b"d1", bytes(range(256))] + [rng.integers(0, 256, int(rng.integers(0, 40)), dtype=np.uint8).tobytes()
                                                for _ in range(300)]
    buf = np.frombuffer(b"".join(words), dtype=np.uint8)
    end = np.cumsum([len(w) for w in words]).astype(np.int64)
    start = end - [len(w) for w in words]
    got = _fnv1a_np(buf, start, end)
    assert got.tolist() == [int(fnv1a(buf.tobytes(), int(a), int(b))) for a, b in zip(start, end)]


@pytest.mark.parametrize("mode", ["python", "numba"])
def test_the_ucs4_kernel_counts_characters_beyond_ascii(mode):
    from evalrank import _jit
    from evalrank.evaluation.inputs import _ucs4_bytes

    a = np.array(["ab", "c", "", "é", "x文"])
    flat = a.view(np.uint32).ravel()
    out = np.empty(flat.size, dtype=np.uint8)
    with _jit.mode(mode):
        assert _ucs4_bytes(flat, out) == 2
        assert _ucs4_bytes(flat[:6], out[:6]) == 0
    assert out[:6].tobytes() == b"ab" + b"c\0" + b"\0\0"


@pytest.mark.parametrize("mode", ["python", "numba"])
def test_the_int_kernels_write_str_of_each_value(mode):
    """Integer ids as text: lengths, then the digits two at a time from the end."""
    from evalrank import _jit
    from evalrank.evaluation.inputs import _PAIRS, _int_ids, _int_lengths

    a = np.array([0, -1, 5, 9, 10, 11, 99, 100, 101, -100, 999, 1000, 123456789, -9223372036854775807,
                  9223372036854775807, 10 ** 18, 10 ** 18 - 1], dtype=np.int64)
    want = [str(v).encode() for v in a.tolist()]
    lens = np.empty(a.size, np.int64)
    with _jit.mode(mode):
        _int_lengths(a, lens)
        end = np.cumsum(lens)
        start = end - lens
        out = np.zeros(int(end[-1]), dtype=np.uint8)
        _int_ids(a, out, start, end, _PAIRS)
    data = out.tobytes()
    assert [data[s:e] for s, e in zip(start, end)] == want


@pytest.mark.parametrize("mode", ["python", "numba"])
def test_runs_of_equal_fixed_width_ids_a_word_at_a_time(mode):
    """Query ids of numpy S and U of every width (rows compared 8, 4, 2 or 1 bytes a step, as
    width and alignment allow; a field of a packed structured array is unaligned): the first
    row of every run of equal ids, as NumPy finds them."""
    from evalrank import _jit
    from evalrank.evaluation.inputs import _runs_of_equal

    rng = np.random.default_rng(9)
    for width in range(1, 18):
        words = np.array(["".join(rng.choice(list("ab\x00"), width)) for _ in range(6)], dtype=object)
        ids = words[np.repeat(rng.integers(0, 6, 40), rng.integers(1, 4, 40))]
        for arr in (ids.astype(f"U{width}"), ids.astype(f"U{width}").astype(f"S{width}")):
            packed = np.zeros(arr.size, dtype=[("pad", "u1"), ("id", arr.dtype)])
            packed["id"] = arr
            want = np.flatnonzero(np.concatenate(([True], arr[1:] != arr[:-1])))
            with _jit.mode(mode):
                for a in (arr, packed["id"]):
                    np.testing.assert_array_equal(_runs_of_equal(a), want)


@pytest.mark.parametrize("mode", ["python", "numba"])
def test_the_fixed_width_kernel_spans_and_hashes_as_numpy_does(mode):
    """numpy S ids four at a time (hashes interleaved) and the rest one by one: the spans
    NumPy's trailing-NUL rule gives and the reader's FNV-1a, any count and padding."""
    from evalrank import _jit
    from evalrank.data.trec_scan import _fnv1a_np
    from evalrank.evaluation.inputs import _fixed_ids, _fixed_np

    rng = np.random.default_rng(10)
    for n in (0, 1, 3, 4, 5, 8, 11):
        for w in (1, 3, 8, 13):
            raw = rng.choice(np.array([0, 0, 97, 98, 255], dtype=np.uint8), size=n * w)
            flat = raw.copy()
            start, end, dh = np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n, np.uint64)
            with _jit.mode(mode):
                _fixed_ids(flat, w, start, end, dh)
            ws, we = _fixed_np(flat.reshape(n, w))
            np.testing.assert_array_equal(start, ws)
            np.testing.assert_array_equal(end, we)
            np.testing.assert_array_equal(dh, _fnv1a_np(flat, ws, we))


@pytest.mark.parametrize("mode", ["python", "numba"])
def test_the_span_hash_kernel_is_fnv1a_of_each_span(mode):
    """Spans of any length (empty ones too) hashed four at a time and the rest one by one: the
    reader's FNV-1a of each."""
    from evalrank import _jit
    from evalrank.data.trec_scan import fnv1a
    from evalrank.evaluation import inputs

    rng = np.random.default_rng(12)
    data = rng.integers(0, 256, 400, dtype=np.uint8)
    for n in (0, 1, 4, 6, 9, 17):
        start = rng.integers(0, 200, n).astype(np.int64)
        end = start + rng.integers(0, 30, n)
        dh = np.empty(n, np.uint64)
        with _jit.mode(mode):  # the module's global: the kernel of that mode (a name imported before is not)
            inputs._hash_spans(data, start, end, dh)
        assert dh.tolist() == [int(fnv1a(data.tobytes(), int(s), int(e))) for s, e in zip(start, end)]
