"""LETOR reader/writer: malformed input, round trips, sklearn as the peer, caching."""

from __future__ import annotations

import decimal
import os
import re

import numpy as np
import pytest
from sklearn.datasets import load_svmlight_file

from evalrank.data import letor_cache, letor_read
from evalrank.data.collection import Collection
from evalrank.data.letor import LetorFormatError, cache_path, load_letor, read_letor, write_letor


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------
def _write(tmp_path, text: str | bytes, name: str = "train.txt"):
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


def _read(path, **kw):
    return read_letor(path, show_progress=False, **kw)


def _bits(a: np.ndarray) -> np.ndarray:
    """float32 bit patterns, so that -0.0 != 0.0 and nan == nan (same payload)."""
    return np.ascontiguousarray(a, dtype=np.float32).view(np.int32)


def _sklearn(path):
    X, y, q = load_svmlight_file(str(path), query_id=True, dtype=np.float32)
    return X.toarray(), y, q


def _random_collection(rng, n_queries=12, n_features=9, with_ids=True) -> Collection:
    sizes = rng.integers(1, 15, n_queries)
    offsets = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    n = int(offsets[-1])
    kind = rng.integers(0, 4, (n, n_features))
    values = np.select(
        [kind == 0, kind == 1, kind == 2],
        [rng.integers(0, 30, (n, n_features)),
         np.round(rng.normal(0, 50, (n, n_features)), 6),
         np.round(rng.random((n, n_features)) * 10.0 ** (d := rng.integers(1, 7, (n, n_features)))) / 10.0**d],
        rng.integers(-(10**9), 10**9, (n, n_features)),
    ).astype(np.float32)
    values[0, :4] = [np.inf, -np.inf, 3e38, -1.5e20]
    ids = np.array([f"GX{i:03d}-{rng.integers(10**6)}" for i in range(n)]) if with_ids else None
    return Collection(
        features=values,
        labels=rng.integers(0, 5, n).astype(np.int8),
        offsets=offsets,
        qids=rng.choice(10**6, n_queries, replace=False).astype(np.int64),
        doc_ids=ids,
    )


def _assert_same(a: Collection, b: Collection):
    np.testing.assert_array_equal(_bits(a.features), _bits(b.features))
    np.testing.assert_array_equal(a.labels, b.labels)
    np.testing.assert_array_equal(a.offsets, b.offsets)
    np.testing.assert_array_equal(a.qids, b.qids)
    assert a.labels.dtype == np.int8 and a.qids.dtype == np.int64 and a.features.dtype == np.float32
    if a.doc_ids is None or b.doc_ids is None:
        assert a.doc_ids is None and b.doc_ids is None
    else:
        np.testing.assert_array_equal(a.doc_ids, b.doc_ids)


# ---------------------------------------------------------------------------
# writer
# ---------------------------------------------------------------------------
def test_write_formats_values_compactly(tmp_path):
    feats = np.array([[0, 12, 0.5, -3.25, 1 / 3, -0.0, 1e-7, -2.5e-7, 16777216, np.nan]], dtype=np.float32)
    c = Collection(features=feats, labels=np.array([2], np.int8), offsets=[0, 1], qids=np.array([10]),
                   doc_ids=np.array(["GX008-86-4444840"]))
    path = tmp_path / "out.txt"
    write_letor(path, c)
    assert path.read_text() == (
        "2 qid:10 1:0 2:12 3:0.5 4:-3.25 5:0.333333 6:0 7:0 8:0 9:16777216 10:nan #docid = GX008-86-4444840\n"
    )
    write_letor(path, c, decimals=2)
    assert " 5:0.33 " in path.read_text()


def test_write_matches_printf_rounding(tmp_path):
    """Each token equals Python's '%.{d}f' of the float32 value, trailing zeros stripped."""
    rng = np.random.default_rng(1)
    vals = (rng.standard_normal(4000) * 10.0 ** rng.integers(-8, 12, 4000)).astype(np.float32)
    vals[:6] = [0.5, 2.5e-6, -2.5e-6, 1.5e-6, 0.0000005, 123456.7]  # ties and near-ties
    c = Collection(features=vals.reshape(-1, 1), labels=np.zeros(4000, np.int8), offsets=[0, 4000],
                   qids=np.array([1]))
    for d in (0, 3, 6, 9):
        path = tmp_path / f"w{d}.txt"
        write_letor(path, c, decimals=d)
        got = [line.split()[2][2:] for line in path.read_text().splitlines()]
        want = []
        for v in vals.tolist():
            s = ("%.*f" % (d, v))
            s = s.rstrip("0").rstrip(".") if "." in s else s
            want.append("0" if s == "-0" else s)
        assert got == want


def test_write_validates_arguments(tmp_path):
    c = _random_collection(np.random.default_rng(0), with_ids=False)
    with pytest.raises(ValueError, match="decimals"):
        write_letor(tmp_path / "x.txt", c, decimals=10)
    with pytest.raises(TypeError, match="decimals"):
        write_letor(tmp_path / "x.txt", c, decimals=1.5)
    with pytest.raises(TypeError, match="collection"):
        write_letor(tmp_path / "x.txt", c.features)
    with pytest.raises(TypeError, match="path"):
        write_letor(3, c)
    bad = Collection(features=c.features, labels=c.labels, offsets=c.offsets, qids=c.qids,
                     doc_ids=np.array(["a b"] * c.n_docs))
    with pytest.raises(ValueError, match="doc_ids"):
        write_letor(tmp_path / "x.txt", bad)
    assert not (tmp_path / "x.txt").exists()  # atomic: nothing left behind
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------------------
# round trip and sklearn as the independent peer
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("with_ids", [True, False])
def test_round_trip(tmp_path, with_ids):
    c = _random_collection(np.random.default_rng(2), with_ids=with_ids)
    path = tmp_path / "rt.txt"
    write_letor(path, c)
    back = _read(path, doc_ids=with_ids)
    _assert_same(back, c)
    X, y, q = _sklearn(path)
    np.testing.assert_array_equal(_bits(X), _bits(back.features))


def _nasty_value(rng) -> str:
    """A value token of one of many spellings sklearn's float() accepts."""
    k = rng.integers(0, 16)
    if k == 0:
        return str(rng.integers(0, 100))
    if k == 1:
        return rng.choice(["-0.0", "-0", "+3", "1e-5", "1E+05", "2.5e3", ".5", "5.", "-.25", "0.000012",
                           "1e300", "-1e-400", "inf", "-Infinity", "1_000", "0e999", "00012.5000"])
    if k == 2:  # long mantissa, beyond the fast path
        return "%.25f" % rng.random()
    if k == 3:
        return "%.17g" % (rng.standard_normal() * 10.0 ** rng.integers(-30, 30))
    if k == 4:  # near a float32 rounding midpoint: the double rounding sklearn does
        a = np.float32(rng.random() * 100)
        mid = (float(a) + float(np.nextafter(a, np.float32(np.inf)))) / 2
        extra = rng.choice(["", "1", "-1"])
        with decimal.localcontext(decimal.Context(prec=200)):
            d = decimal.Decimal(mid) + (decimal.Decimal(f"{extra}e-30") if extra else 0)
        return str(d)
    if k == 5:
        return "%.15g" % (rng.standard_normal() * 10.0 ** rng.integers(-25, 25))
    if k == 6:
        return str(rng.integers(-(10**15), 10**15))
    return str(np.round(rng.random() * 10.0 ** rng.integers(0, 4), rng.integers(0, 8)))


def _nasty_file(rng, n_queries=40, n_features=136) -> bytes:
    lines = ["# a header comment", ""]
    qids = rng.choice(10**9, n_queries, replace=False)
    for qid in qids:
        for _ in range(rng.integers(1, 12)):
            label = rng.choice(["0", "1", "2", "2.0", "+1", "4", "3"])
            dense = rng.random() < 0.7
            idx = np.arange(1, n_features + 1) if dense else np.sort(
                rng.choice(np.arange(1, n_features + 1), rng.integers(0, 20), replace=False))
            sep = rng.choice([" ", "  ", "\t"])
            toks = [label, f"qid:{qid}"] + [f"{i}:{_nasty_value(rng)}" for i in idx]
            line = sep.join(toks)
            r = rng.random()
            if r < 0.2:
                line += " #docid = GX%d inc = 1 prob = 0.5" % rng.integers(10**6)
            elif r < 0.3:
                line += "#comment right after a value"
            elif r < 0.4:
                line += rng.choice([" ", "\t", " \t "])
            lines.append(line + ("\r" if rng.random() < 0.3 else ""))
            if rng.random() < 0.05:
                lines.append(rng.choice(["", "   ", "  # indented comment", "#"]))
    lines.append(f"1 qid:{qids[-1]} {n_features}:0.5")  # the largest index occurs; no final newline
    return "\n".join(lines).encode()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_identical_to_sklearn_on_nasty_file(tmp_path, seed, monkeypatch):
    path = _write(tmp_path, _nasty_file(np.random.default_rng(seed)))
    X, y, q = _sklearn(path)
    c = _read(path)
    assert c.features.shape == X.shape
    np.testing.assert_array_equal(_bits(c.features), _bits(X))
    np.testing.assert_array_equal(c.labels, y.astype(np.int8))
    np.testing.assert_array_equal(np.repeat(c.qids, c.query_sizes), q)
    # sklearn's float64 parse then astype(float32) is the same thing
    X64, _, _ = load_svmlight_file(str(path), query_id=True)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(_bits(X64.toarray().astype(np.float32)), _bits(X))
    # tiny windows, a tiny fallback buffer and late widening give the same result
    monkeypatch.setattr(letor_read, "_READ_CHUNK_BYTES", 97)
    monkeypatch.setattr(letor_read, "_FB_CAP", 4)
    _assert_same(_read(path), c)


def test_width_grows_and_declared_n_features(tmp_path):
    path = _write(tmp_path, "1 qid:1 2:0.5\n0 qid:1 1:1 7:2\n2 qid:2\n")
    c = _read(path)
    np.testing.assert_array_equal(c.features, [[0, 0.5, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0, 2], [0] * 7])
    np.testing.assert_array_equal(c.offsets, [0, 2, 3])
    np.testing.assert_array_equal(c.qids, [1, 2])
    assert _read(path, n_features=10).features.shape == (3, 10)
    assert _read(path).doc_ids is None


def test_doc_ids(tmp_path):
    path = _write(
        tmp_path,
        "0 qid:1 1:1 #docid = GX008-86-4444840 inc = 1 prob = 0.086622\n"
        "1 qid:1 1:2 #docid=abc\r\n"
        "2 qid:1 1:3 #  just a comment \t\r\n"
        "0 qid:2 1:4\n"
        "0 qid:2 1:5 # docid =\n",
    )
    c = _read(path, doc_ids=True)
    assert c.doc_ids.tolist() == ["GX008-86-4444840", "abc", "just a comment", "", "docid ="]


# ---------------------------------------------------------------------------
# malformed files
# ---------------------------------------------------------------------------
MALFORMED = [
    # (content, line, words the reason must contain, kwargs)
    ("0 qid:1 1:1\n1 1:0.5 2:1\n", 2, ["qid:", "'1:0.5'"], {}),
    ("0 qid:1 1:1\n\n1\n", 3, ["qid:", "ends after the label"], {}),
    ("x qid:1 1:1\n", 1, ["non-numeric label", "'x'"], {}),
    ("0 qid:1 1:1\n0 qid:1 1:abc\n", 2, ["non-numeric value", "'abc'"], {}),
    ("0 qid:1 1:1 2:\n", 1, ["non-numeric value", "''"], {}),
    ("1.5 qid:1 1:1\n", 1, ["label", "'1.5'", "not an integer"], {}),
    ("nan qid:1 1:1\n", 1, ["label", "'nan'", "not an integer"], {}),
    ("5 qid:1 1:1\n", 1, ["label", "'5'", "0..4"], {"max_grade": 4}),
    ("-1 qid:1 1:1\n", 1, ["label", "'-1'", "0..4"], {"max_grade": 4}),
    ("200 qid:1 1:1\n", 1, ["label", "'200'", "-128..127"], {}),
    ("2.00000000000000000000001e2 qid:1 1:1\n", 1, ["label", "-128..127"], {}),
    ("0 qid:a 1:1\n", 1, ["qid", "'qid:a'"], {}),
    ("0 qid:1 1:1\n0 qid:2 1:1\n0 qid:2 1:1\n# c\n0 qid:1 1:1\n", 5, ["qid 1", "line 1", "contiguous"], {}),
    ("0 qid:1 1:1 137:0.5\n", 1, ["137", "declared n_features=136"], {"n_features": 136}),
    ("0 qid:1 0:1\n", 1, ["index 0 < 1", "'0:1'"], {}),
    ("0 qid:1 -3:1\n", 1, ["index -3 < 1"], {}),
    ("0 qid:1 2:1 2:1\n", 1, ["strictly increasing", "2 follows 2"], {}),
    ("0 qid:1 3:1 2:1\n", 1, ["strictly increasing", "2 follows 3"], {}),
    ("0 qid:1 1:1 foo\n", 1, ["no ':'", "'foo'"], {}),
    ("0 qid:1 x:1\n", 1, ["invalid feature index", "'x'"], {}),
    ("", 0, ["no documents"], {}),
    ("# only a comment\n\n   \n", 1, ["no documents"], {}),
]


@pytest.mark.parametrize("content,line,words,kwargs", MALFORMED)
def test_malformed(tmp_path, content, line, words, kwargs):
    path = _write(tmp_path, content, name="bad_file.txt")
    with pytest.raises(LetorFormatError) as info:
        _read(path, **kwargs)
    e = info.value
    assert isinstance(e, ValueError)
    assert e.line == line and e.path == str(path)
    assert str(e) == f"{path}:{line}: {e.reason}"
    assert "bad_file.txt" in str(e)
    for w in words:
        assert w in e.reason, (w, e.reason)


def test_interleaved_across_windows(tmp_path, monkeypatch):
    body = "".join(f"0 qid:{q} 1:{i}\n" for i, q in enumerate([7] * 30 + [8] * 30 + [9] * 30 + [7]))
    path = _write(tmp_path, body)
    monkeypatch.setattr(letor_read, "_READ_CHUNK_BYTES", 50)
    with pytest.raises(LetorFormatError, match=r":91: qid 7 reappears .* line 1 "):
        _read(path)


def test_first_error_wins(tmp_path, monkeypatch):
    # a hard token (Python fallback) on line 2 fails before the kernel error on line 3
    path = _write(tmp_path, "0 qid:1 1:1\n0 qid:1 1:1_x\n0 qid:1 0:1\n")
    with pytest.raises(LetorFormatError, match=r":2: non-numeric value '1_x'"):
        _read(path)


def test_read_validates_arguments(tmp_path):
    path = _write(tmp_path, "0 qid:1 1:1\n")
    with pytest.raises(ValueError, match="n_features"):
        _read(path, n_features=0)
    with pytest.raises(TypeError, match="n_features"):
        _read(path, n_features=2.0)
    with pytest.raises(ValueError, match="max_grade"):
        _read(path, max_grade=200)
    with pytest.raises(TypeError, match="doc_ids"):
        _read(path, doc_ids="yes")
    with pytest.raises(TypeError, match="path"):
        _read(None)


def test_error_pickles(tmp_path):
    import pickle

    e = pickle.loads(pickle.dumps(LetorFormatError("a.txt", 3, "why")))
    assert (e.path, e.line, e.reason, str(e)) == ("a.txt", 3, "why", "a.txt:3: why")


# ---------------------------------------------------------------------------
# cache
# ---------------------------------------------------------------------------
def test_load_letor_cache(tmp_path, monkeypatch):
    c = _random_collection(np.random.default_rng(5))
    path = tmp_path / "train.txt"
    write_letor(path, c)
    first = load_letor(path, doc_ids=True, show_progress=False)
    _assert_same(first, c)
    cached = cache_path(path, doc_ids=True)
    assert cached.exists() and cached.parent == tmp_path
    assert re.fullmatch(r"\.train\.txt\.[0-9a-f]{16}\.npz", cached.name)

    def boom(*a, **k):
        raise AssertionError("parsed again")

    monkeypatch.setattr(letor_cache, "read_letor", boom)
    _assert_same(load_letor(path, doc_ids=True), c)  # hit: no parse
    assert cache_path(path, doc_ids=True, show_progress=True) == cached  # progress is not part of the key
    assert cache_path(path) != cached  # other options, other cache

    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    assert cache_path(path, doc_ids=True) != cached
    with pytest.raises(AssertionError, match="parsed again"):
        load_letor(path, doc_ids=True)  # stale: parses again
    monkeypatch.undo()

    other = tmp_path / "cache"
    again = load_letor(path, cache_dir=other, show_progress=False)
    assert again.doc_ids is None
    assert len(list(other.glob(".train.txt.*.npz"))) == 1
    with pytest.raises(TypeError, match="unexpected"):
        load_letor(path, n_feature=3)


def test_fast_path_agrees_with_python_float():
    """The compiled fast path, where it accepts a token, gives float()'s exact double."""
    rng = np.random.default_rng(7)
    toks = [_nasty_value(rng) for _ in range(3000)]
    toks += ["%.*f" % (int(rng.integers(0, 12)), rng.standard_normal() * 10.0 ** rng.integers(-6, 9)) for _ in range(3000)]
    toks += ["%.*e" % (int(rng.integers(0, 17)), rng.standard_normal() * 10.0 ** rng.integers(-40, 40)) for _ in range(3000)]
    toks += ["9007199254740993", "9007199254740992", "123456789012345678", "1e22", "1e23", "1e-22", "-", ".", "e5", "1e"]
    accepted = 0
    for tok in toks:
        b = np.frombuffer(tok.encode(), dtype=np.uint8)
        ok, v = letor_read._fast_float(b, 0, len(b))
        if ok:
            accepted += 1
            assert np.float64(v).view(np.int64) == np.float64(float(tok)).view(np.int64), tok
    assert accepted > len(toks) // 2


def test_a_fifo_is_read_as_a_stream_and_an_empty_one_is_refused(tmp_path):
    """A FIFO (what a shell's <(...) gives) has no size: it is read, not refused as empty (issue
    28 item 6), to the regular file's values; an empty FIFO is still 'empty'."""
    import threading

    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    text = "".join(f"{g} qid:{q} 1:{0.5 + q} 2:{g / 3:.4f} # docid = d{q}-{i}\n"
                   for q in range(300) for i, g in enumerate((0, 2, 1, 4)))   # more than a pipe holds
    regular = _write(tmp_path, text)
    want = read_letor(regular, n_features=2, doc_ids=True)

    def feed(path, data):
        def write():
            with open(path, "wb") as fh:
                fh.write(data)
        t = threading.Thread(target=write, daemon=True)
        t.start()
        return t

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    t = feed(fifo, text.encode())
    got = read_letor(fifo, n_features=2, doc_ids=True)
    t.join(10)
    assert np.array_equal(got.features, want.features) and np.array_equal(got.labels, want.labels)
    assert np.array_equal(got.offsets, want.offsets) and list(got.doc_ids) == list(want.doc_ids)
    t = feed(fifo, b"")
    with pytest.raises(LetorFormatError, match="empty"):
        read_letor(fifo)
    t.join(10)
