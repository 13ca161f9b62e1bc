"""Datasets shipped inside a Python source distribution, fetched with pip.

A registry spec with ``pip`` (``mslr-excerpt``: rankeval 0.8.2, whose sdist
carries an MSLR-WEB30K Fold1 excerpt for its tests) is fetched by
:func:`fetch_sdist`: ``python -m pip download --no-deps --no-binary NAME
NAME==VERSION`` into a scratch folder under ``root`` -- the ordinary client, so
the user's pip configuration (index URL, proxy, certificates) applies -- then
the sdist's sha256 is checked (:func:`evalrank.data.download.sha256_file`), the
file kept as ``root/archive`` and the spec's ``members`` extracted by their
exact names (no member name ever becomes a path). ``--no-binary`` is limited
to the package itself: ``:all:`` would build pip's build backend and its
dependencies from source too, to prepare the sdist's metadata.

With no package index reachable it raises the same
:class:`~evalrank.data.download.DownloadError` as an archive download (how to
place the file by hand); a sdist placed there by hand is used without network.
"""

from __future__ import annotations

import gzip
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zlib
from pathlib import Path

from evalrank.data.datasets import DatasetSpec, require_layout
from evalrank.data.download import (
    ArchiveError,
    _Context,
    _set_aside_mismatch,
    _verify,
    sha256_file,
)
from evalrank.io import atomic_path

__all__ = ["fetch_sdist", "pip_command", "extract_members", "NETWORK_SIGNS"]

#: pip's words for an index it could not reach (urllib3 / requests errors it prints while retrying)
NETWORK_SIGNS = (
    "NewConnectionError", "Failed to establish a new connection", "Temporary failure in name resolution",
    "Name or service not known", "nodename nor servname", "ConnectTimeout", "ReadTimeout", "timed out",
    "Max retries exceeded", "ProxyError", "Network is unreachable", "No route to host", "Connection refused",
    "Could not fetch URL", "SSLError",
)
_CHUNK = 1 << 20


def pip_command(requirement: str, dest) -> list[str]:
    """The ``pip download`` command line that fetches ``requirement``'s sdist into ``dest``."""
    m = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([A-Za-z0-9._+!-]+)", requirement or "")
    if not m:
        raise ValueError(f"requirement must be 'name==version', got {requirement!r}")
    return [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", m.group(1),
            "--disable-pip-version-check", requirement, "-d", str(dest)]


def fetch_sdist(spec: DatasetSpec, root, *, timeout: float = 900) -> Path:
    """Make ``root`` hold the layout of a ``pip`` spec and return ``Path(root)``.

    ``root/spec.archive`` is reused when its sha256 matches (a copy placed by
    hand); otherwise pip downloads it (a mismatching copy is moved aside to
    ``<archive>.corrupt``). Raises DownloadError (no index reachable, or pip
    failed), ChecksumError and ArchiveError.
    """
    if not isinstance(spec, DatasetSpec) or spec.pip is None:
        raise TypeError(f"spec must be a DatasetSpec with pip, got {spec!r}")
    root = Path(root)
    archive = root / spec.archive
    notes: list[str] = []
    if archive.is_file():
        actual = sha256_file(archive)
        if actual != spec.sha256:
            notes.append(_set_aside_mismatch(archive, spec.sha256, actual))
    if not archive.is_file():
        root.mkdir(parents=True, exist_ok=True)
        _pip_download(spec, archive, notes, timeout)
    extract_members(archive, root, spec.members)
    return require_layout(root, spec)


def _pip_download(spec: DatasetSpec, archive: Path, notes: list[str], timeout: float) -> None:
    """pip download into a scratch folder next to ``archive``; checked, then moved onto it."""
    ctx = _Context(f"{spec.url} (pip download {spec.pip})", archive, None, spec.homepage, notes)
    with tempfile.TemporaryDirectory(dir=archive.parent, prefix=".pip-") as tmp:
        try:
            done = subprocess.run(pip_command(spec.pip, tmp), capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            raise ctx.error(f"pip download {spec.pip} took over {timeout:g} s.", offline=True) from exc
        except OSError as exc:
            raise ctx.error(f"pip could not be started ({exc}).", offline=False) from exc
        text = done.stdout + done.stderr
        got = Path(tmp) / spec.archive
        if done.returncode != 0 or not got.is_file():
            # pip names a connection error only while it retries; with none left (retries: 0) an
            # unreachable index reads as an index without the version
            unreachable = any(sign in text for sign in NETWORK_SIGNS)
            offline = unreachable or "(from versions: none)" in text
            last = [ln.strip() for ln in text.splitlines() if ln.strip()][-3:]
            what = ("could not reach the package index" if unreachable else
                    "found no version on the package index (is it reachable?)" if offline else "failed")
            detail = " | ".join(last) if done.returncode != 0 else f"it saved no {spec.archive}"
            raise ctx.error(f"pip download {spec.pip} {what}: {detail}", offline=offline)
        ctx.part = got
        _verify(ctx, spec.sha256)  # a mismatch: kept as <archive>.corrupt, ChecksumError
        os.replace(got, archive)


def extract_members(archive, root, members) -> list[Path]:
    """Extract each ``(member, target)`` of the tar ``archive`` to ``root/target``.

    Members are looked up by their exact names and must be regular files; the
    targets come from the registry (``FoldK/split.txt``), never from the
    archive. A target already present with the member's size is kept; the
    others are written atomically. Raises ArchiveError for an unreadable
    archive or a missing member.
    """
    archive, root = Path(archive), Path(root)
    out = []
    try:
        with tarfile.open(archive, "r:*") as tf:
            for name, target in members:
                dest = root / target
                if Path(target).is_absolute() or ".." in Path(target).parts:
                    raise ValueError(f"members: target {target!r} must be a relative path inside root")
                try:
                    info = tf.getmember(name)
                except KeyError:
                    raise ArchiveError(f"{archive.absolute()} has no member {name!r}; delete it and re-run "
                                       "to download it again") from None
                if not info.isfile():
                    raise ArchiveError(f"{archive.absolute()}: member {name!r} is not a regular file")
                if not (dest.is_file() and dest.stat().st_size == info.size):
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    with atomic_path(dest) as tmp, tf.extractfile(info) as src, open(tmp, "wb") as dst:
                        shutil.copyfileobj(src, dst, _CHUNK)
                out.append(dest)
    except (tarfile.TarError, EOFError, gzip.BadGzipFile, zlib.error) as exc:
        raise ArchiveError(f"{archive.absolute()} cannot be read as a tar archive ({exc}); delete it and "
                           "re-run to download it again") from exc
    return out

