"""Downloader and extractor against a loopback HTTP server (no real network)."""

from __future__ import annotations

import hashlib
import http.server
import os
import socket
import threading
import zipfile
from pathlib import Path

import pytest

from evalrank.data.datasets import get_spec, missing_files, require_layout
from evalrank.data.download import (
    ArchiveError,
    ChecksumError,
    DownloadError,
    download,
    extract,
    fetch_dataset,
)

PAYLOAD = os.urandom(300_000)
SHA = hashlib.sha256(PAYLOAD).hexdigest()
CHUNK = 64 * 1024


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch):
    """Loopback requests must never go through a proxy from the environment."""
    for var in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    monkeypatch.setenv("EVALRANK_PROGRESS", "0")


class Handler(http.server.BaseHTTPRequestHandler):
    """Serves ``server.payload``; ``server.mode`` is 'range', 'ignore-range', 'truncate' or 'status:NNN'."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # keep test output clean
        pass

    def do_GET(self):
        srv = self.server
        srv.requests.append(dict(self.headers))
        data, mode = srv.payload, srv.mode
        if mode.startswith("status:"):
            return self._send(int(mode.split(":")[1]), b"nope")
        rng = self.headers.get("Range")
        if rng and mode == "range":
            start = int(rng.removeprefix("bytes=").rstrip("-"))
            if start >= len(data):
                return self._send(416, b"", {"Content-Range": f"bytes */{len(data)}"})
            headers = {"Content-Range": f"bytes {start}-{len(data) - 1}/{len(data)}"}
            return self._send(206, data[start:], headers)
        if mode == "truncate":
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            self.close_connection = True
            return None
        return self._send(200, data)

    def _send(self, code, body, headers=None):
        self.send_response(code)
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def server():
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    srv.payload, srv.mode, srv.requests = PAYLOAD, "range", []
    srv.url = f"http://127.0.0.1:{srv.server_address[1]}/archive.zip"
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url, dest, **kw):
    return download(url, dest, chunk_size=CHUNK, show_progress=False, timeout=5, **kw)


# ----------------------------------------------------------------------------- download


def test_full_download_with_checksum(server, tmp_path):
    dest = tmp_path / "sub" / "a.zip"
    assert _get(server.url, dest, sha256=SHA) == dest
    assert dest.read_bytes() == PAYLOAD
    assert not (tmp_path / "sub" / "a.zip.part").exists()
    assert "Range" not in server.requests[0]


def test_download_with_progress_bar(server, tmp_path, monkeypatch):
    monkeypatch.setenv("EVALRANK_PROGRESS", "1")
    dest = download(server.url, tmp_path / "a.zip", sha256=SHA.upper(), chunk_size=CHUNK)
    assert dest.read_bytes() == PAYLOAD


def test_checksum_mismatch_keeps_corrupt_copy(server, tmp_path):
    dest = tmp_path / "a.zip"
    wrong = "0" * 64
    with pytest.raises(ChecksumError) as info:
        _get(server.url, dest, sha256=wrong)
    msg = str(info.value)
    assert isinstance(info.value, ValueError)
    assert wrong in msg and SHA in msg and str(dest.absolute()) in msg
    assert not dest.exists()
    assert not (tmp_path / "a.zip.part").exists()
    assert (tmp_path / "a.zip.corrupt").read_bytes() == PAYLOAD
    assert info.value.actual == SHA and info.value.expected == wrong


def test_resume_from_partial_file(server, tmp_path):
    dest = tmp_path / "a.zip"
    n = 123_457
    (tmp_path / "a.zip.part").write_bytes(PAYLOAD[:n])
    _get(server.url, dest, sha256=SHA)
    assert server.requests[0]["Range"] == f"bytes={n}-"
    assert len(server.requests) == 1
    assert dest.read_bytes() == PAYLOAD


def test_server_ignoring_range_restarts_cleanly(server, tmp_path):
    server.mode = "ignore-range"
    dest = tmp_path / "a.zip"
    (tmp_path / "a.zip.part").write_bytes(b"stale garbage that must not survive")
    _get(server.url, dest, sha256=SHA)
    assert server.requests[0]["Range"].startswith("bytes=")
    assert dest.read_bytes() == PAYLOAD


def test_416_with_complete_part(server, tmp_path):
    dest = tmp_path / "a.zip"
    (tmp_path / "a.zip.part").write_bytes(PAYLOAD)
    _get(server.url, dest, sha256=SHA)
    assert len(server.requests) == 1
    assert dest.read_bytes() == PAYLOAD


def test_416_with_oversized_part_restarts(server, tmp_path):
    dest = tmp_path / "a.zip"
    (tmp_path / "a.zip.part").write_bytes(PAYLOAD + b"extra")
    _get(server.url, dest)
    assert len(server.requests) == 2 and "Range" not in server.requests[1]
    assert dest.read_bytes() == PAYLOAD


def test_connection_refused_gives_instructions(tmp_path):
    url = f"http://127.0.0.1:{_free_port()}/MSLR-WEB10K.zip"
    dest = tmp_path / "data" / "MSLR-WEB10K.zip"
    with pytest.raises(DownloadError) as info:
        _get(url, dest, homepage="https://example.org/project")
    msg = str(info.value)
    assert isinstance(info.value, RuntimeError)
    assert url in msg and str(dest.absolute()) in msg
    assert "offline" in msg and "https://example.org/project" in msg
    assert ".part" in msg
    assert not dest.exists()


def test_timeout_is_a_download_error(tmp_path):
    with socket.socket() as listener:  # accepts connections, never answers
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/x.zip"
        with pytest.raises(DownloadError, match="timed out"):
            download(url, tmp_path / "x.zip", timeout=0.3, show_progress=False)


def test_http_error_status(server, tmp_path):
    server.mode = "status:404"
    with pytest.raises(DownloadError, match="HTTP 404"):
        _get(server.url, tmp_path / "a.zip")


def test_cut_transfer_keeps_part_then_resumes(server, tmp_path):
    dest = tmp_path / "a.zip"
    server.mode = "truncate"
    with pytest.raises(DownloadError) as info:
        _get(server.url, dest, sha256=SHA)
    part = tmp_path / "a.zip.part"
    assert str(part.absolute()) in str(info.value)
    kept = part.stat().st_size
    assert 0 < kept < len(PAYLOAD)
    assert f"({kept} bytes)" in str(info.value)
    assert not dest.exists()
    server.mode = "range"
    _get(server.url, dest, sha256=SHA)
    assert server.requests[-1]["Range"] == f"bytes={kept}-"
    assert dest.read_bytes() == PAYLOAD


def test_present_file_needs_no_network(tmp_path):
    dest = tmp_path / "a.zip"
    dest.write_bytes(PAYLOAD)
    url = f"http://127.0.0.1:{_free_port()}/a.zip"  # nothing listens: any request would fail
    assert _get(url, dest) == dest
    assert _get(url, dest, sha256=SHA) == dest


def test_present_file_no_request_counted(server, tmp_path):
    dest = tmp_path / "a.zip"
    dest.write_bytes(PAYLOAD)
    _get(server.url, dest, sha256=SHA)
    assert server.requests == []


def test_present_file_with_wrong_digest_is_replaced(server, tmp_path):
    dest = tmp_path / "a.zip"
    dest.write_bytes(b"not the archive")
    _get(server.url, dest, sha256=SHA)
    assert dest.read_bytes() == PAYLOAD
    assert (tmp_path / "a.zip.corrupt").read_bytes() == b"not the archive"


@pytest.mark.parametrize(
    "kwargs, exc",
    [
        ({"sha256": "xyz"}, ValueError),
        ({"timeout": 0}, ValueError),
        ({"chunk_size": 0}, ValueError),
    ],
)
def test_bad_arguments(tmp_path, kwargs, exc):
    with pytest.raises(exc):
        download("http://127.0.0.1:1/a", tmp_path / "a", **kwargs)


def test_bad_url_and_dest(tmp_path):
    with pytest.raises(ValueError, match="url"):
        download("ftp://example.org/a", tmp_path / "a")
    with pytest.raises(ValueError, match="directory"):
        download("http://127.0.0.1:1/a", tmp_path)


# ----------------------------------------------------------------------------- extract


def _letor_zip(path: Path, prefix: str = "", folds=range(1, 6)) -> dict[str, bytes]:
    """Write a small LETOR-layout zip; return relative path -> content."""
    contents = {}
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(prefix + "readme.txt", "hello")
        for fold in folds:
            for split in ("train", "vali", "test"):
                rel = f"Fold{fold}/{split}.txt"
                data = f"{fold} qid:1 1:0.5 # {split}\n".encode() * (fold + 3)
                zf.writestr(prefix + rel, data)
                contents[rel] = data
        if prefix:
            zf.writestr("__MACOSX/" + prefix + "Fold1/._train.txt", "resource fork")
    return contents


@pytest.mark.parametrize("prefix", ["", "MSLR-WEB30K/"])
def test_extract_flat_and_nested(tmp_path, prefix):
    archive = tmp_path / "a.zip"
    contents = _letor_zip(archive, prefix)
    root = tmp_path / "root"
    paths = extract(archive, root, show_progress=False)
    assert sorted(paths) == sorted(root / rel for rel in contents)
    for rel, data in contents.items():
        assert (root / rel).read_bytes() == data
    assert not (root / "readme.txt").exists() and not (root / "__MACOSX").exists()
    assert require_layout(root, get_spec("mslr-web30k")) == root
    assert not [p for p in root.rglob("*") if p.name.startswith(".")]  # no temp files left


def test_extract_skips_present_files(tmp_path):
    archive = tmp_path / "a.zip"
    _letor_zip(archive)
    root = tmp_path / "root"
    extract(archive, root, show_progress=False)
    marker = root / "Fold1" / "train.txt"
    os.utime(marker, (1, 1))
    (root / "Fold2" / "test.txt").write_bytes(b"short")  # wrong size: rewritten
    extract(archive, root)
    assert marker.stat().st_mtime == 1
    assert (root / "Fold2" / "test.txt").stat().st_size > 5


def test_extract_not_a_zip(tmp_path):
    archive = tmp_path / "MSLR-WEB30K.zip"
    archive.write_bytes(b"<html>sign in to OneDrive</html>")
    with pytest.raises(ArchiveError, match="not a valid zip") as info:
        extract(archive, tmp_path / "root")
    assert str(archive.absolute()) in str(info.value)


def test_extract_corrupt_member(tmp_path):
    archive = tmp_path / "a.zip"
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_STORED) as zf:
        zf.writestr("Fold1/train.txt", b"A" * 1000)
    raw = bytearray(archive.read_bytes())
    raw[raw.index(b"A" * 100) + 10] = ord("B")  # break the CRC
    archive.write_bytes(bytes(raw))
    root = tmp_path / "root"
    with pytest.raises(ArchiveError, match="Fold1/train.txt") as info:
        extract(archive, root, show_progress=False)
    assert str(archive.absolute()) in str(info.value)
    assert not list((root / "Fold1").iterdir())  # nothing half-written


def test_extract_no_matching_member(tmp_path):
    archive = tmp_path / "a.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("other/file.txt", "x")
    with pytest.raises(ArchiveError, match="no member matching"):
        extract(archive, tmp_path / "root")


def test_extract_refuses_clashing_members(tmp_path):
    archive = tmp_path / "a.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("Fold1/train.txt", "x")
        zf.writestr("copy/Fold1/train.txt", "y")
    with pytest.raises(ArchiveError, match="both"):
        extract(archive, tmp_path / "root")


def test_extract_missing_archive(tmp_path):
    with pytest.raises(FileNotFoundError, match="nothing.zip"):
        extract(tmp_path / "nothing.zip", tmp_path / "root")


# ----------------------------------------------------------------------------- fetch_dataset


def test_fetch_dataset_end_to_end(server, tmp_path):
    zpath = tmp_path / "src.zip"
    _letor_zip(zpath, "MSLR-WEB10K/")
    server.payload = zpath.read_bytes()
    digest = hashlib.sha256(server.payload).hexdigest()
    spec = get_spec("mslr-web10k", url=server.url, sha256=digest)
    root = tmp_path / "data" / "mslr-web10k"
    assert fetch_dataset(spec, root, show_progress=False) == root
    assert missing_files(root, spec) == []
    assert (root / spec.archive).is_file()
    n_requests = len(server.requests)
    assert fetch_dataset(spec, root, show_progress=False) == root  # complete: no network
    assert len(server.requests) == n_requests


def test_fetch_dataset_offline_message(tmp_path):
    spec = get_spec("mslr-web30k", url=f"http://127.0.0.1:{_free_port()}/content")
    root = tmp_path / "data"
    with pytest.raises(DownloadError) as info:
        fetch_dataset(spec, root, show_progress=False)
    msg = str(info.value)
    assert str((root / "MSLR-WEB30K.zip").absolute()) in msg
    assert "https://www.microsoft.com/en-us/research/project/mslr/" in msg


def test_fetch_dataset_local_only_checks(tmp_path):
    spec = get_spec("local", n_features=46, max_grade=2)
    with pytest.raises(FileNotFoundError, match="dataset.root"):
        fetch_dataset(spec, tmp_path)
    with pytest.raises(TypeError, match="DatasetSpec"):
        fetch_dataset("mslr-web30k", tmp_path)


def test_rar_archive_without_a_tool_says_what_to_do(tmp_path, monkeypatch):
    """LETOR 4.0 ships .rar files: with no unrar/7z/bsdtar the error names the
    tools and the layout to create by hand."""
    import shutil

    from evalrank.data import download as dl

    archive = tmp_path / "MQ2008.rar"
    archive.write_bytes(b"Rar!\x1a\x07\x00")
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(dl.ArchiveError, match=r"none of unrar, 7z or bsdtar.*Fold1\.\.Fold5"):
        dl.extract(archive, tmp_path / "out")


def test_rar_archive_through_a_tool_moves_matching_members(tmp_path, monkeypatch):
    """The external-tool path: a stand-in 'unrar' (a shell script that lays
    out MQ2008's folders) is found on PATH; matching members land in root."""
    import os

    from evalrank.data import download as dl

    bindir = tmp_path / "bin"
    bindir.mkdir()
    tool = bindir / "unrar"
    tool.write_text("#!/bin/sh\n"
                    "dest=\"$5\"\n"
                    "mkdir -p \"$dest/MQ2008/Fold1\"\n"
                    "echo '2 qid:10 1:0.5 # docid = GX1' > \"$dest/MQ2008/Fold1/train.txt\"\n"
                    "echo 'x' > \"$dest/MQ2008/readme.txt\"\n")
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    archive = tmp_path / "MQ2008.rar"
    archive.write_bytes(b"Rar!")
    out = tmp_path / "root"
    got = dl.extract(archive, out)
    assert got == [out / "Fold1" / "train.txt"]
    assert (out / "Fold1" / "train.txt").read_text().startswith("2 qid:10")
    assert not any(p.name.startswith(".unrar-") for p in out.iterdir())  # scratch folder removed
