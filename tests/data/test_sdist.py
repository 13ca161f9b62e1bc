"""Datasets inside a source distribution, fetched with pip (evalrank.data.sdist); no real network:
the offline case points pip at a closed loopback port through pip's own environment settings."""

from __future__ import annotations

import dataclasses
import hashlib
import io
import sys
import tarfile

import pytest

from evalrank.data.datasets import DatasetSpec, fold_file, get_spec
from evalrank.data.download import ArchiveError, ChecksumError, DownloadError, fetch_dataset
from evalrank.data.sdist import extract_members, fetch_sdist, pip_command

TRAIN = b"2 qid:1 1:3 2:0.5\n0 qid:1 1:1 2:0\n"
TEST = b"1 qid:2 1:2 2:0.25\n"
MEMBERS = (("pkg-1.0/data/train.5k.txt", "Fold1/train.txt"), ("pkg-1.0/data/test.5k.txt", "Fold1/test.txt"))


def _sdist(path, files: dict) -> str:
    """A .tar.gz holding ``files`` (name -> bytes, or None for a folder); returns its sha256."""
    with tarfile.open(path, "w:gz") as tf:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            if data is None:
                info.type = tarfile.DIRTYPE
                tf.addfile(info)
            else:
                info.size = len(data)
                tf.addfile(info, io.BytesIO(data))
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _spec(sha: str) -> DatasetSpec:
    return dataclasses.replace(get_spec("mslr-excerpt"), archive="pkg-1.0.tar.gz", sha256=sha, members=MEMBERS,
                               n_features=2, pip="pkg==1.0")


@pytest.fixture
def offline(monkeypatch, tmp_path):
    """pip with the index on a closed loopback port, no retries, no user config, no cache."""
    monkeypatch.setenv("PIP_CONFIG_FILE", str(tmp_path / "no-pip.conf"))
    monkeypatch.setenv("PIP_INDEX_URL", "http://127.0.0.1:9/simple")
    monkeypatch.setenv("PIP_RETRIES", "0")  # no retry: pip then names no connection error
    monkeypatch.setenv("PIP_TIMEOUT", "5")
    monkeypatch.setenv("PIP_NO_CACHE_DIR", "1")
    for var in ("PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_NO_INDEX",
                "http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY"):
        monkeypatch.delenv(var, raising=False)


def test_the_registered_excerpt():
    spec = get_spec("mslr-excerpt")
    assert spec.pip == "rankeval==0.8.2" and spec.folds == (1,) and spec.splits == ("train", "test")
    assert [t for _, t in spec.members] == ["Fold1/train.txt", "Fold1/test.txt"]
    assert all(m.startswith("rankeval-0.8.2/rankeval/test/data/msn1.fold1.") for m, _ in spec.members)
    assert len(spec.sha256) == 64


def test_pip_command_is_the_ordinary_client(tmp_path):
    cmd = pip_command("rankeval==0.8.2", tmp_path)
    assert cmd[:4] == [sys.executable, "-m", "pip", "download"]
    assert cmd[cmd.index("--no-binary") + 1] == "rankeval" and "--no-deps" in cmd
    assert cmd[-3:] == ["rankeval==0.8.2", "-d", str(tmp_path)]
    with pytest.raises(ValueError, match="name==version"):
        pip_command("rankeval>=0.8", tmp_path)


def test_spec_checks():
    with pytest.raises(ValueError, match="pip needs"):
        DatasetSpec(name="x", kind="download", url="https://x", archive="x.tar.gz", pip="x==1")
    with pytest.raises(ValueError, match="target 'Fold2/test.txt'"):
        DatasetSpec(name="x", kind="download", url="https://x", archive="x.tar.gz", folds=(1,),
                    members=(("a", "Fold2/test.txt"),))


def test_a_hand_placed_sdist_is_extracted_without_network(tmp_path, offline):
    root = tmp_path / "root"
    root.mkdir()
    sha = _sdist(root / "pkg-1.0.tar.gz", {"pkg-1.0/data": None, MEMBERS[0][0]: TRAIN, MEMBERS[1][0]: TEST,
                                           "pkg-1.0/setup.py": b""})
    assert fetch_dataset(_spec(sha), root, show_progress=False) == root
    assert fold_file(root, 1, "train").read_bytes() == TRAIN and fold_file(root, 1, "test").read_bytes() == TEST
    assert sorted(p.name for p in (root / "Fold1").iterdir()) == ["test.txt", "train.txt"]


def test_extract_members_by_exact_name_only(tmp_path):
    arc = tmp_path / "a.tar.gz"
    _sdist(arc, {"../evil.txt": b"x", MEMBERS[0][0]: TRAIN, "pkg-1.0/data/test.5k.txt/": None})
    with pytest.raises(ArchiveError, match="is not a regular file"):
        extract_members(arc, tmp_path / "out", MEMBERS)
    assert not (tmp_path / "evil.txt").exists()
    with pytest.raises(ArchiveError, match="has no member 'pkg-1.0/data/vali.txt'"):
        extract_members(arc, tmp_path / "out", (("pkg-1.0/data/vali.txt", "Fold1/vali.txt"),))
    with pytest.raises(ValueError, match="relative path inside root"):
        extract_members(arc, tmp_path / "out", ((MEMBERS[0][0], "../Fold1/train.txt"),))
    (tmp_path / "bad.tar.gz").write_bytes(b"not a tar")
    with pytest.raises(ArchiveError, match="cannot be read as a tar archive"):
        extract_members(tmp_path / "bad.tar.gz", tmp_path / "out", MEMBERS)


def test_offline_gives_the_download_message(tmp_path, offline):
    with pytest.raises(DownloadError) as e:
        fetch_sdist(_spec("0" * 64), tmp_path / "root")
    text = str(e.value)
    assert "pip download pkg==1.0 found no version on the package index (is it reachable?)" in text
    assert "It looks like this machine is offline or the host is down." in text  # as MSLR's download says
    assert f"place it at {(tmp_path / 'root' / 'pkg-1.0.tar.gz').absolute()}" in text
    assert "Partial" not in text
    assert not list((tmp_path / "root").glob(".pip-*"))  # the scratch folder is gone


def test_pip_naming_a_connection_error_is_offline(tmp_path, offline, monkeypatch):
    monkeypatch.setenv("PIP_RETRIES", "1")
    with pytest.raises(DownloadError, match=r"could not reach the package index(.|\n)*offline or the host is down"):
        fetch_sdist(_spec("0" * 64), tmp_path / "root")


def test_a_mismatching_copy_is_set_aside(tmp_path, offline):
    root = tmp_path / "root"
    root.mkdir()
    _sdist(root / "pkg-1.0.tar.gz", {MEMBERS[0][0]: TRAIN, MEMBERS[1][0]: TEST})
    with pytest.raises(DownloadError, match=r"did not match the expected sha256(.|\n)*pkg-1\.0\.tar\.gz\.corrupt"):
        fetch_sdist(_spec("1" * 64), root)
    assert (root / "pkg-1.0.tar.gz.corrupt").is_file() and not (root / "pkg-1.0.tar.gz").exists()


def test_a_downloaded_sdist_with_the_wrong_checksum_is_refused(tmp_path, monkeypatch):
    import subprocess

    def fake_pip(cmd, **kw):  # pip "succeeds" with other bytes than the pinned ones
        (tmp_path / "root").mkdir(exist_ok=True)
        dest = cmd[cmd.index("-d") + 1]
        _sdist(__import__("pathlib").Path(dest) / "pkg-1.0.tar.gz", {MEMBERS[0][0]: TRAIN})
        return subprocess.CompletedProcess(cmd, 0, "Saved", "")

    monkeypatch.setattr("evalrank.data.sdist.subprocess.run", fake_pip)
    with pytest.raises(ChecksumError, match="sha256 mismatch"):
        fetch_sdist(_spec("2" * 64), tmp_path / "root")
    assert (tmp_path / "root" / "pkg-1.0.tar.gz.corrupt").is_file()
    assert not (tmp_path / "root" / "Fold1").exists()
