"""The TREC reader reads files in chunks and keeps only the document ids and a few numbers per
line (issue 28, item 4: peak memory): whatever the chunk size, the arrays, line numbers and
errors are those of one whole-file pass, for regular files, gzip and pipes."""

from __future__ import annotations

import gzip
import os
import threading

import numpy as np
import pytest

from evalrank import _jit
from evalrank.data import trec
from evalrank.data.trec import TrecFormatError, read_trec


def _run_text(seed: int) -> bytes:
    """A run with what trips a chunked reader: comments and blank lines (line numbers), CRLF,
    a line longer than the smallest chunk, scores left to strtod (hex, long mantissas,
    exponents), topics that come back (segments), a BOM."""
    rng = np.random.default_rng(seed)
    lines = ["\ufeff# a comment first"]
    for k in range(300):
        q = f"q{int(rng.integers(0, 7))}"
        d = f"doc-{int(rng.integers(0, 10 ** 6))}" + ("x" * 150 if k == 40 else "")
        s = rng.choice([f"{rng.random():.4f}", "0x1p-3", "0.12345678901234567890123", "1e-30", "-2", "+.5"])
        end = "\r" if k % 17 == 0 else ""
        lines.append(f"{q} Q0 {d} {k} {s} tag{k % 3}{end}")
        if k % 29 == 0:
            lines.append("")
        if k % 41 == 0:
            lines.append("   # indented comment")
    return ("\n".join(lines) + "\n").encode()


def _qrels_text(seed: int) -> bytes:
    rng = np.random.default_rng(seed)
    lines = []
    for k in range(200):
        lines.append(f"q{int(rng.integers(0, 7))} 0 doc-{int(rng.integers(0, 10 ** 6))} {int(rng.integers(-1, 4))}")
        if k % 31 == 0:
            lines.append("# c")
    return ("\n".join(lines)).encode()   # no newline at the end


def _arrays(t) -> dict:
    return {"qids": t.qids, "qid": t.qid.tolist(), "ids": [t.doc_id(j) for j in range(len(t))],
            "hash": t.doc_hash.tolist(), "value": t.value.tolist(), "line": t.line.tolist(),
            "line_of": [t.line_of(j) for j in range(len(t))], "tag": t.run_tag}


def _lines_by_hand(text: bytes) -> list:
    """1-based numbers of the data lines (not blank, not a comment)."""
    out = []
    for i, raw in enumerate(text.decode("utf-8-sig").split("\n"), start=1):
        s = raw.strip()
        if s and not s.startswith("#"):
            out.append(i)
    return out


@pytest.mark.parametrize("mode", ["python", "numba"])
@pytest.mark.parametrize("kind", ["run", "qrels"])
def test_any_chunk_size_gives_the_arrays_of_one_pass(tmp_path, monkeypatch, mode, kind):
    text = _run_text(1) if kind == "run" else _qrels_text(1)
    path = tmp_path / kind
    path.write_bytes(text)
    with _jit.mode(mode):
        whole = _arrays(read_trec(path, kind))
        assert whole["line"] == _lines_by_hand(text) == whole["line_of"]
        for chunk, fb, start in [(64, 2, 2), (97, 1, 3), (4096, 4096, 1 << 16)]:
            monkeypatch.setattr(trec, "_CHUNK", chunk)
            monkeypatch.setattr(trec, "_FB_CAP", fb)
            monkeypatch.setattr(trec, "_START", start)
            assert _arrays(read_trec(path, kind)) == whole, (chunk, fb)
    if kind == "run":
        assert whole["value"][:1] and 0.125 in whole["value"] and whole["tag"] == "tag2"   # 0x1p-3; the last line's


def test_streams_and_gzip_grow_their_arrays(tmp_path, monkeypatch):
    """A pipe or a gzip file has no size to go by: the arrays start small and grow."""
    text = _run_text(2)
    plain = tmp_path / "run"
    plain.write_bytes(text)
    gz = tmp_path / "run.gz"
    gz.write_bytes(gzip.compress(text))
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    want = _arrays(read_trec(plain, "run"))
    monkeypatch.setattr(trec, "_CHUNK", 128)
    monkeypatch.setattr(trec, "_START", 2)   # every array grows, several times
    assert _arrays(read_trec(gz, "run")) == want
    (tmp_path / "ungrouped.gz").write_bytes(gzip.compress(b"".join(f"q{k % 5} Q0 d{k} 1 0.5 t\n".encode()
                                                                   for k in range(100))))
    t = read_trec(tmp_path / "ungrouped.gz", "run")   # 100 segments
    assert t.qids == [f"q{k}" for k in range(5)] and t.qid.tolist() == [k % 5 for k in range(100)]

    def feed():
        with open(fifo, "wb") as fh:
            fh.write(text)

    t = threading.Thread(target=feed)
    t.start()
    got = read_trec(fifo, "run")
    t.join()
    assert _arrays(got) == want


@pytest.mark.parametrize("chunk", [32, 1 << 24])
def test_errors_name_the_line_whatever_the_chunk(tmp_path, monkeypatch, chunk):
    monkeypatch.setattr(trec, "_CHUNK", chunk)
    good = [f"q1 Q0 d{k} {k} {1 / (k + 1):.3f} t" for k in range(40)]
    cases = [
        (good[:25] + ["q1 Q0 dx 1 0.5"] + good[25:], "run:26: a run line has 6 fields"),
        (good[:30] + ["", "q1 Q0 dx 1 high t"], "run:32: score 'high' is not a number"),
        (good[:12] + ["q1 Q0 dx 1 1e400 t"] + good[12:], "run:13: score '1e400' is not finite"),
        (good[:20] + ["q1 Q0 dx 1 0.5 t\rq2 Q0 dy 2 0.4 t"], "run:21: a carriage return"),
    ]
    for lines, match in cases:
        p = tmp_path / "run"
        p.write_text("\n".join(lines) + "\n")
        with pytest.raises(TrecFormatError, match=match):
            read_trec(p, "run")
    q = tmp_path / "qrels"
    q.write_text("\n".join([f"q1 0 d{k} 1" for k in range(30)] + ["q1 0 dz x"]) + "\n")
    with pytest.raises(TrecFormatError, match="qrels:31: relevance 'x' is not an integer"):
        read_trec(q, "qrels")


def test_empty_and_comment_only_files_are_refused(tmp_path):
    for text in ["", "# only\n\n   \n"]:
        p = tmp_path / "run"
        p.write_text(text)
        with pytest.raises(TrecFormatError, match="no run lines"):
            read_trec(p, "run")


def test_a_file_whose_first_lines_are_long_grows_its_arrays(tmp_path, monkeypatch):
    """The room for lines is estimated from the first chunk; short lines after long ones
    outnumber it and the arrays grow: the same arrays as one pass."""
    long = [f"q{k % 3} Q0 {'x' * 40}{k} {k} 0.{k} t" for k in range(200)]
    short = [f"q{k % 3} Q0 d{k} 1 {k} t" for k in range(6000)]
    p = tmp_path / "run"
    p.write_text("\n".join(long + short) + "\n")
    want = _arrays(read_trec(p, "run"))
    monkeypatch.setattr(trec, "_CHUNK", 8192)
    assert _arrays(read_trec(p, "run")) == want
    assert len(want["ids"]) == 6200 and want["ids"][-1] == "d5999"


def _plain_or_not(rng, kind: str) -> tuple[bytes, bool]:
    """A random small file, and whether it is plain (``trec._read_plain`` reads it): blanks of
    every kind between fields, CRLF, UTF-8 ids, topics that come back, scores and relevances in
    the forms the kernel takes, a last line with or without its newline; one in two has one
    irregular line (blank, comment, lone CR, a field too few or too many, a score or relevance
    the kernel refuses or leaves to strtod as not finite, a relevance of 19 digits)."""
    run = kind == "run"
    lines = []
    for k in range(int(rng.integers(1, 60))):
        q = f"q{int(rng.integers(0, 5))}" if rng.random() < 0.9 else "é"
        d = f"d{int(rng.integers(0, 10 ** int(rng.integers(1, 9))))}" + ("ü" if rng.random() < 0.1 else "")
        if run:
            v = rng.choice([f"{rng.normal():.6f}", repr(float(rng.normal())), "-0", "+.5", "1.", "1e3", "0x1p-3",
                            "0.12345678901234567890123", "7E-30"])
            fields = [q, "Q0", d, str(k), v, f"t{k % 3}"] + (["extra"] if rng.random() < 0.1 else [])
        else:
            fields = [q, "0", d, str(rng.choice(["2", "-1", "0", "+3", "2.0", "007", "1."]))]
        sep = [str(rng.choice([" ", "  ", "\t", " \x0b", "\x0c "])) for _ in fields]
        lines.append(str(rng.choice(["", " "])) + "".join(f + s for f, s in zip(fields, sep)).rstrip())
    crlf = rng.random() < 0.2
    plain = rng.random() < 0.5
    if not plain:
        bad = rng.choice(["", "   ", "# comment", " #c", "q1 Q0 d 1 0.5 t\rq2 Q0 e 2 0.4 t", "q1 Q0 d 1 0.5",
                          "q1 0 d 1 2", "q1 Q0 d 1 0_9 t", "q1 Q0 d 1 inf t", "q1 Q0 d 1 1e400 t", "q1 0 d x",
                          "q1 0 d 1234567890123456789", "q1 0 d"])
        lines.insert(int(rng.integers(0, len(lines) + 1)), str(bad))
    text = ("\r\n" if crlf else "\n").join(lines) + str(rng.choice(["", "\n"]) if not crlf else "\r\n")
    return text.encode(), plain


@pytest.mark.parametrize("kind", ["run", "qrels"])
def test_small_plain_files_are_read_as_the_kernel_reads_them(tmp_path, monkeypatch, kind):
    """Interpreted, a small file whose lines are plain is read with bytes methods
    (``trec._read_plain``); its arrays, line numbers and tag are the scan kernel's (the same
    mode, the fast path switched off), and every other file, or its error, is the kernel's."""
    rng = np.random.default_rng(11 if kind == "run" else 12)
    path = tmp_path / kind
    plain_path = trec._read_plain
    taken = []

    def spy(*args):
        got = plain_path(*args)
        taken.append(got is not None)
        return got

    def read(fast: bool):
        monkeypatch.setattr(trec, "_read_plain", spy if fast else (lambda *a: None))
        try:
            return _arrays(read_trec(path, kind))
        except TrecFormatError as e:
            return str(e)

    n_plain = 0
    with _jit.mode("python"):
        for _ in range(150):
            text, plain = _plain_or_not(rng, kind)
            path.write_bytes(text)
            taken.clear()
            got, want = read(True), read(False)
            assert got == want, text
            assert taken == [plain], text   # plain files take the fast path, the others the kernel
            n_plain += plain
    assert 50 < n_plain < 100
