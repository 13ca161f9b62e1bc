"""TREC qrels/run reading and `python -m evalrank ndcg` against pytrec_eval."""

import json

import numpy as np
import pytest
from cli_run import evalrank

from evalrank.data.trec import TrecFormatError, align, read_qrels, read_run


def write_case(trec_files, seed=0, n_queries=30):
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    qrel_d, run_d = {}, {}
    for q in range(n_queries):
        qid = f"q{q}"
        judged = {f"D{rng.integers(0, 60)}": int(rng.integers(-1, 3)) for _ in range(rng.integers(1, 15))}
        qrel_d[qid] = judged
        qrels += [f"{qid} 0 {d} {g}" for d, g in judged.items()]
        docs = {f"D{rng.integers(0, 60)}": float(rng.integers(0, 6)) for _ in range(rng.integers(1, 20))}
        run_d[qid] = docs
        run += [f"{qid} Q0 {d} {r} {s} tag" for r, (d, s) in enumerate(docs.items(), start=1)]
    run += ["extra Q0 D1 1 1.0 tag"]  # a query without qrels
    trec_files(qrels, run)
    return qrel_d, run_d


def test_cli_matches_pytrec_eval_with_unretrieved_and_unjudged_documents(tmp_path, trec_files):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrel_d, run_d = write_case(trec_files)
    out = evalrank("ndcg", "--qrels", tmp_path / "qrels", "--run", tmp_path / "run", "-k", "5", "--format", "json")
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    want = pytrec_eval.RelevanceEvaluator({q: {d: g for d, g in j.items()} for q, j in qrel_d.items()},
                                          {"ndcg_cut.5"}).evaluate(run_d)
    assert set(got["per_query"]) == set(want)
    for q, v in want.items():
        assert got["per_query"][q] == pytest.approx(v["ndcg_cut_5"], abs=1e-12)
    assert got["mean"] == pytest.approx(np.mean([v["ndcg_cut_5"] for v in want.values()]), abs=1e-12)
    assert "count as non-relevant" in out.stderr and "have no qrels" in out.stderr


def test_align_counts_and_ideal_from_all_judgments(trec_files):
    qrels, run = trec_files("1 0 a 1\n1 0 b 2\n1 0 c -1\n2 0 x 1\n", "1 Q0 a 1 0.5 t\n1 Q0 z 2 0.9 t\n3 Q0 a 1 0.1 t\n")
    t = align(read_qrels(qrels), read_run(run))
    assert t.qids.tolist() == ["1"] and t.unjudged == 1
    assert t.run_only == ["3"] and t.qrels_only == ["2"]
    assert t.labels.tolist() == [1, 0] and sorted(t.ideal_labels.tolist()) == [0, 1, 2]


@pytest.mark.parametrize("which, text, match", [
    ("qrels", "1 0 a\n", r"qrels:1: a qrels line has 4 fields"),
    ("qrels", "1 0 a 1\n1 0 a x\n", r"qrels:2: relevance 'x' is not an integer"),
    ("qrels", "1 0 a 1\n# c\n1 0 a 2\n", r"qrels:3: document 'a' judged twice"),
    ("run", "1 Q0 a 1\n", r"run:1: a run line has 6 fields"),
    ("run", "1 Q0 a 1 high t\n", r"run:1: score 'high' is not a number"),
    ("run", "1 Q0 a 1 nan t\n", r"run:1: score 'nan' is not finite"),
])
def test_malformed_lines_name_file_and_line(tmp_path, which, text, match):
    path = tmp_path / which
    path.write_text(text)
    reader = read_qrels if which == "qrels" else read_run
    with pytest.raises(TrecFormatError, match=match):
        reader(path)


def test_cli_letor_mode_and_errors(tmp_path):
    (tmp_path / "f.txt").write_text("2 qid:1 1:0.1\n0 qid:1 1:0.2\n0 qid:2 1:0.3\n")
    (tmp_path / "s.txt").write_text("0.1\n0.9\n0.5\n")
    run = lambda *args: evalrank("ndcg", *args)  # noqa: E731
    ok = run("--letor", str(tmp_path / "f.txt"), "--scores", str(tmp_path / "s.txt"), "--convention", "yahoo")
    assert ok.returncode == 0, ok.stderr
    lines = ok.stdout.strip().splitlines()
    assert lines[0].split("\t")[2] == f"{1 / np.log2(3):.6f}" and lines[1].split("\t")[2] == "1.000000"
    bad = run("--qrels", str(tmp_path / "f.txt"))
    assert bad.returncode == 1 and "--qrels and --run go together" in bad.stderr
    (tmp_path / "s2.txt").write_text("0.1\n")
    short = run("--letor", str(tmp_path / "f.txt"), "--scores", str(tmp_path / "s2.txt"))
    assert short.returncode == 1 and "has 1 scores but" in short.stderr


# ---------------------------------------------------------------------------
# issue 28 item 6: line ends, scores as trec_eval's atof reads them, pipes
# ---------------------------------------------------------------------------
RUN3 = b"q1 Q0 d1 1 0.3 t\nq1 Q0 d2 2 0.95 t\nq1 Q0 d3 3 0.9 t\n"
QRELS3 = b"q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 1\n"


@pytest.mark.parametrize("which, data, line", [
    ("run", RUN3.replace(b"\n", b"\r"), 1),                          # old-Mac: trec_eval reads one line
    ("qrels", QRELS3.replace(b"\n", b"\r"), 1),
    ("run", b"# made on a Mac\r" + RUN3.replace(b"\n", b"\r"), 1),  # a comment does not hide it
    ("run", RUN3 + b"q2 Q0 d1 1 0.5 t\rq2 Q0 d2 2 0.4 t\n", 4),      # one CR-only line among LF lines
    ("run", b"\r" + RUN3, 1),
])
def test_cr_only_line_ends_are_refused_with_file_and_line(tmp_path, which, data, line):
    path = tmp_path / which
    path.write_bytes(data)
    with pytest.raises(TrecFormatError, match=rf"{which}:{line}: a carriage return \(CR\) not followed by a newline"):
        (read_qrels if which == "qrels" else read_run)(path)


@pytest.mark.parametrize("ends", [b"\r\n", b"\r\r\n", b" \r \n", b"\t\r\n"])
def test_crlf_and_blanks_around_a_cr_stay_line_ends(tmp_path, ends):
    """A guard: CRLF (and a CR among trailing blanks, and a last CR with no LF) still read as
    LF files do."""
    (tmp_path / "lf").write_bytes(RUN3)
    (tmp_path / "crlf").write_bytes(RUN3.replace(b"\n", ends)[:-1])  # the file's last LF left out
    (tmp_path / "qrels").write_bytes(QRELS3.replace(b"\n", ends))
    assert read_run(tmp_path / "crlf") == read_run(tmp_path / "lf")
    assert read_qrels(tmp_path / "qrels") == {"q1": {"d1": 1, "d2": 0, "d3": 1}}


@pytest.mark.parametrize("score", ["0_9", "1_000.5", "\u0660.\u0669", "\uff11", "1\u00a0", "\u0661e1", "0x", "1e"])
def test_scores_c_strtod_does_not_read_whole_are_refused(tmp_path, score):
    """'0_9' (atof: 0), Arabic-Indic and fullwidth digits, a no-break space (all of which
    Python's float() takes), '0x' and '1e' (atof stops early): refused, naming file and line."""
    path = tmp_path / "run"
    path.write_text(f"q1 Q0 d0 1 0.5 t\nq1 Q0 d1 2 {score} t\n", encoding="utf-8")
    with pytest.raises(TrecFormatError, match=r"run:2: score .* is not a number"):
        read_run(path)


def _libc_strtod():
    """C's strtod of the C library (the "C" numeric locale: Python never sets LC_NUMERIC)."""
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    if name is None:
        pytest.skip("no C library to compare with")
    libc = ctypes.CDLL(name)
    libc.strtod.restype = ctypes.c_double
    libc.strtod.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p)]

    def strtod(tok: bytes):
        end = ctypes.c_char_p()
        buf = ctypes.create_string_buffer(tok)
        v = libc.strtod(buf, ctypes.byref(end))
        used = ctypes.cast(end, ctypes.c_void_p).value - ctypes.addressof(buf)
        return v, used == len(tok)
    return strtod


SCORES = ["1e3", "+1", ".5", "1.", "-.5e1", "1.5E-2", "0x1p3", "0x.8", "-0X1.8P1", "0xA", "007", "-0",
          "0.12345678901234567890123", "123456789012345678901234567890", "1e-400", "4.9e-324",
          "2.2250738585072011e-308", "9007199254740993", "0.1e23", "1e22", "1e23", "8.98846567431158e307", "1.7976931348623157e308"]


@pytest.mark.parametrize("score", SCORES)
def test_scores_are_read_as_c_strtod_reads_them(tmp_path, score):
    """Each score is the double the C library's strtod gives for the whole token (what
    trec_eval's atof reads): sign, leading point, trailing point, exponents, hexadecimal floats,
    long mantissas (the Python fallback), subnormals and the largest double."""
    strtod = _libc_strtod()
    want, whole = strtod(score.encode())
    assert whole
    path = tmp_path / "run"
    path.write_text(f"q1 Q0 d1 1 {score} t\n")
    got = read_run(path)["q1"]["d1"]
    assert got == want and np.signbit(got) == np.signbit(want), (score, got, want)


def test_random_scores_agree_with_c_strtod(tmp_path):
    """A guard: many random decimal tokens, through the numba fast path and the fallback alike."""
    strtod = _libc_strtod()
    rng = np.random.default_rng(28)
    toks = []
    for _ in range(3000):
        mant = "".join(rng.choice(list("0123456789"), size=rng.integers(1, 26)))
        cut = int(rng.integers(0, len(mant) + 1))
        tok = (rng.choice(["", "-", "+"]) + mant[:cut] + "." + mant[cut:] if rng.random() < 0.7 else mant)
        if rng.random() < 0.5:  # up to 1e305 (finite) and down into the subnormals and 0
            sign = rng.choice(["", "-", "+"])
            tok += rng.choice(["e", "E"]) + sign + str(int(rng.integers(0, 340 if sign == "-" else 280)))
        toks.append(tok)
    path = tmp_path / "run"
    path.write_text("".join(f"q1 Q0 d{i} 1 {t} t\n" for i, t in enumerate(toks)))
    got = read_run(path)["q1"]
    for i, t in enumerate(toks):
        want, whole = strtod(t.encode())
        assert whole and got[f"d{i}"] == want, (t, got[f"d{i}"], want)


@pytest.mark.parametrize("rel", ["\u0663", "\uff11", "0_1", "1e3", ".5"])
def test_relevance_atol_would_misread_is_refused(tmp_path, rel):
    """A guard: relevance is ASCII digits after an optional sign (a decimal part of digits
    allowed, as atol reads '2.0'); the rest is refused, naming file and line."""
    path = tmp_path / "qrels"
    path.write_text(f"q1 0 d0 1\nq1 0 d1 {rel}\n", encoding="utf-8")
    with pytest.raises(TrecFormatError, match=r"qrels:2: relevance .* is not an integer"):
        read_qrels(path)


def _feed(path, data: bytes):
    """Write ``data`` to a FIFO or a pipe's /dev/fd path from a thread; returns the thread and
    an event set once it has the file open."""
    import threading

    opened = threading.Event()

    def write():
        with open(path, "wb") as fh:
            opened.set()
            fh.write(data)
    t = threading.Thread(target=write, daemon=True)
    t.start()
    return t, opened


@pytest.mark.parametrize("gz", [False, True])
def test_a_fifo_or_a_pipe_is_read_as_a_stream(tmp_path, gz):
    """A FIFO and /dev/fd/N of a pipe (what a shell's <(...) gives): not seekable, not
    mappable; read as a stream, gzip too, to the values of the regular file."""
    import gzip
    import os

    if not hasattr(os, "mkfifo") or not os.path.isdir("/dev/fd"):
        pytest.skip("no FIFOs or /dev/fd here")
    text = b"".join(b"q%d Q0 d%d 1 0.%d t\n" % (i // 10, i, i) for i in range(5000))  # more than a pipe holds
    body = gzip.compress(text, mtime=0) if gz else text
    (tmp_path / "regular").write_bytes(text)
    want = read_run(tmp_path / "regular")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    t, _ = _feed(fifo, b"\xef\xbb\xbf" + body if not gz else body)
    assert read_run(fifo) == want
    t.join(10)
    r, w = os.pipe()
    try:
        t, opened = _feed(f"/dev/fd/{w}", body)
        assert opened.wait(10)
        os.close(w)  # the thread's own descriptor keeps the pipe open until it is done
        w = None
        assert read_run(f"/dev/fd/{r}") == want
        t.join(10)
    finally:
        os.close(r)
        if w is not None:
            os.close(w)


def test_query_ids_are_sorted_and_named_alike_interpreted_and_compiled():
    """sorted_codes: compiled, the distinct ids sorted by their bytes (an MSD sort, 8 bytes a
    step) and named by one decode; interpreted, by Python's sort of the names: the same codes,
    names and first rows, ids with NULs, shared prefixes longer than 8 bytes, characters beyond
    ASCII and newlines included; a first id that is not UTF-8 goes to ``decode`` in both."""
    from evalrank import _jit
    from evalrank.data.trec_scan import _sort_spans, sorted_codes

    rng = np.random.default_rng(11)
    alphabet = ["a", "b", "\x00", "é", "\x7f", "文", "\U0001F600", "aaaaaaaa", "aaaaaaaab", "\n"]
    cases = [[b"q1"], [b"\xff", b"a"], [b"", b"\x00", b"\x00\x00", b"a", b"a\x00"]]
    for _ in range(60):
        cases.append(["".join(rng.choice(alphabet, int(rng.integers(0, 5)))).encode()
                      for _ in range(int(rng.integers(1, 40)))])

    def decode(raw, i):
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError(f"row {i}") from None

    for words in cases:
        lens = np.array([len(w) for w in words], dtype=np.int64)
        end = np.cumsum(lens)
        start = end - lens
        buf = np.frombuffer(b"".join(words) or b"\0", dtype=np.uint8)
        got = {}
        for mode in ("python", "numba"):
            with _jit.mode(mode):
                assert [words[i] for i in _sort_spans(buf, start, end)] == sorted(words)
                try:
                    got[mode] = sorted_codes(buf, start, end, decode)
                except ValueError as e:
                    got[mode] = str(e)
        if isinstance(got["python"], str):
            assert got["numba"] == got["python"] == "row 0"
            continue
        (pc, pn, pf), (nc, nn, nf) = got["python"], got["numba"]
        assert pn == nn == sorted({w.decode() for w in words})
        np.testing.assert_array_equal(pc, nc)
        np.testing.assert_array_equal(pf, nf)


# ---------------------------------------------------------------------------
# issue 49: NUL bytes, blank lines in qrels, binary files
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("kind, data, line", [
    ("run", b"1 Q0 d1 1 0.9 t\n1 Q0 d\x002 2 0.8 t\n", 2),         # inside a document id
    ("run", b"\x001 Q0 d1 1 0.9 t\n1 Q0 d2 2 0.8 t\n", 1),          # the file's first byte
    ("run", b"1 Q0 d1 1 0.9 t\n1\x00 Q0 d2 2 0.8 t\n", 2),          # inside a query id
    ("run", b"# made\x00 here\n1 Q0 d1 1 0.9 t\n", 1),              # in a comment
    ("qrels", b"1 0 d1 1\n\n# c\n1 0 d\x002 1\n", 4),                # found before any other fault
    ("qrels", b"1 0 d1 1\n1 0 d2\x00 1\n", 2),
])
def test_a_nul_byte_is_refused_naming_its_line(tmp_path, kind, data, line):
    path = tmp_path / kind
    path.write_bytes(data)
    with pytest.raises(TrecFormatError, match=rf"{kind}:{line}: a NUL byte \(0x00\): not a text file"):
        (read_qrels if kind == "qrels" else read_run)(path)


@pytest.mark.parametrize("mode", ["python", "numba"])
def test_a_nul_byte_far_into_a_file_is_found_in_any_chunk(tmp_path, monkeypatch, mode):
    """Chunks of 64 bytes: the NUL of line 200 is counted from the lines of the chunks before."""
    from evalrank import _jit
    from evalrank.data import trec

    lines = [f"q{k % 3} Q0 d{k} {k} {k / 7:.3f} tag".encode() for k in range(300)]
    lines[199] = lines[199].replace(b"d199", b"d1\x0099")
    path = tmp_path / "run"
    path.write_bytes(b"\n".join(lines) + b"\n")
    monkeypatch.setattr(trec, "_CHUNK", 64)
    with _jit.mode(mode), pytest.raises(TrecFormatError, match=r"run:200: a NUL byte"):
        read_run(path)


@pytest.mark.parametrize("data, line", [
    (b"1 0 a 1\n\n1 0 b 2\n", 2),
    (b"1 0 a 1\n   \t\n1 0 b 2\n", 2),
    (b"1 0 a 1\r\n\r\n1 0 b 2\r\n", 2),
    (b"1 0 a 1\n1 0 b 2\n\n", 3),        # an empty last line: trec_eval 'Malformed line 3'
    (b"1 0 a 1\n1 0 b 2\n  ", 3),        # blanks on the last line, no newline
    (b"\n1 0 a 1\n", 1),
])
def test_a_blank_line_in_qrels_is_refused_as_trec_eval_refuses_it(tmp_path, data, line):
    """trec_eval 9.0.8 (get_qrels.c) stops at a blank qrels line: 'Malformed line N'."""
    path = tmp_path / "qrels"
    path.write_bytes(data)
    with pytest.raises(TrecFormatError, match=rf"qrels:{line}: a blank line in qrels \(trec_eval 9.0.8 stops here: "
                                              rf"'Malformed line {line}'\)"):
        read_qrels(path)


def test_blank_lines_in_a_run_are_skipped_as_trec_eval_skips_them(tmp_path):
    """get_trec_results.c: 'Ignore blank lines (people seem to insist on them!)'."""
    (tmp_path / "run").write_bytes(b"\n1 Q0 a 1 0.5 t\n  \n\r\n1 Q0 b 2 0.4 t\n\n")
    assert read_run(tmp_path / "run") == {"1": {"a": 0.5, "b": 0.4}}


@pytest.mark.parametrize("data", [
    b"1 Q0 d1 1 0.9 t\x01\r1 Q0 d2 1 0.9 t\n",    # a lone CR among control bytes: not old-Mac text
    b"\x7fELF\x02\x01\x01\n",                     # a line of too few fields
    b"1 0 a \x1b[1m\n",                           # qrels, too few fields
])
def test_binary_lines_are_said_to_be_binary(tmp_path, data):
    kind = "qrels" if data.startswith(b"1 0") else "run"
    path = tmp_path / kind
    path.write_bytes(data)
    with pytest.raises(TrecFormatError, match=rf"{kind}:1: control byte 0x[0-9a-f]{{2}}: not a text file"):
        (read_qrels if kind == "qrels" else read_run)(path)
