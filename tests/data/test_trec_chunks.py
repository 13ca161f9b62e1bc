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
