"""Download, verify and extract dataset archives; built for flaky or no network.

:func:`download` streams into ``<dest>.part`` and resumes it with an HTTP
``Range`` request, checks the sha256 before anything appears at ``dest``, and
turns every network failure into a :class:`DownloadError` that says how to
place the file by hand. :func:`extract` pulls the LETOR split files out of a
zip (flat or nested in a top folder), each written atomically.
:func:`fetch_dataset` does both for a registry spec. Only :mod:`urllib` is used.
"""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import os
import re
import socket
import urllib.error
import urllib.request
import zipfile
import zlib
from pathlib import Path

from evalrank.data.datasets import DatasetSpec, missing_files, require_layout
from evalrank.io import atomic_path
from evalrank.progress import progress

__all__ = [
    "DownloadError",
    "ChecksumError",
    "ArchiveError",
    "download",
    "extract",
    "fetch_dataset",
    "sha256_file",
    "LETOR_MEMBERS",
]

LETOR_MEMBERS = r"Fold\d/(train|vali|test)\.txt$"
USER_AGENT = "evalrank-downloader/0.1 (+urllib)"
_HASH_CHUNK = 1 << 20


class DownloadError(RuntimeError):
    """The file could not be fetched (offline, host down, HTTP error, cut transfer)."""


class ChecksumError(ValueError):
    """A downloaded file does not have the expected sha256.

    Attributes ``path`` (where the bad bytes were kept), ``expected`` and
    ``actual`` (hex digests).
    """

    def __init__(self, message: str, *, path: Path, expected: str, actual: str):
        super().__init__(message)
        self.path = path
        self.expected = expected
        self.actual = actual


class ArchiveError(ValueError):
    """An archive is not a readable zip, or lacks / mangles the expected members."""


class _ReadFailed(Exception):
    """Internal: the connection broke while streaming the body."""


# --------------------------------------------------------------------------- download


def sha256_file(path, chunk_size: int = _HASH_CHUNK) -> str:
    """Hex sha256 digest of a file, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(chunk_size):
            digest.update(chunk)
    return digest.hexdigest()


def download(
    url: str,
    dest,
    *,
    sha256: str | None = None,
    timeout: float = 60,
    chunk_size: int = 1 << 20,
    show_progress: bool = True,
    homepage: str | None = None,
) -> Path:
    """Fetch ``url`` to ``dest``, resuming a previous partial download.

    If ``dest`` already exists and matches ``sha256`` (or no digest is given)
    it is returned without touching the network. Otherwise the body is
    streamed into ``<dest>.part`` (resumed with ``Range: bytes=N-`` when that
    file exists; a server that answers 200 restarts it from zero), verified,
    and only then moved onto ``dest`` with ``os.replace``.

    Raises
    ------
    DownloadError
        host unreachable, DNS failure, timeout, HTTP error or a cut transfer;
        the message says where to put a hand-downloaded copy.
    ChecksumError
        the bytes do not match ``sha256``; they are kept as ``<dest>.corrupt``.
    """
    dest, sha256 = _check_download_args(url, dest, sha256, timeout, chunk_size)
    notes: list[str] = []
    if dest.exists():
        actual = None if sha256 is None else sha256_file(dest)
        if actual == sha256:
            return dest
        notes.append(_set_aside_mismatch(dest, sha256, actual))
    dest.parent.mkdir(parents=True, exist_ok=True)
    part = _part_path(dest)
    ctx = _Context(url, dest, part, homepage, notes)
    _fetch_into_part(ctx, sha256, timeout, chunk_size, show_progress)
    if sha256 is not None:
        _verify(ctx, sha256)
    os.replace(part, dest)
    return dest


class _Context:
    """What error messages need to know about one download."""

    def __init__(self, url: str, dest: Path, part: Path, homepage: str | None, notes: list[str]):
        self.url, self.dest, self.part, self.homepage, self.notes = url, dest, part, homepage, notes

    def error(self, headline: str, *, offline: bool) -> DownloadError:
        """A DownloadError with instructions for getting the file by hand."""
        lines = [headline]
        if offline:
            lines.append("It looks like this machine is offline or the host is down.")
        source = self.url if self.homepage is None else f"{self.url} (project page: {self.homepage})"
        lines.append(
            f"Download the archive by hand from {source} and place it at {self.dest.absolute()}, then re-run."
        )
        size = None if self.part is None else _file_size(self.part)
        if size is None:
            pass  # no partial file (pip fetches in one go)
        elif size:
            lines.append(f"Partial data ({size} bytes) kept at {self.part.absolute()} will be resumed.")
        else:
            lines.append(f"Partial downloads are kept at {self.part.absolute()} and resumed on the next run.")
        return DownloadError("\n".join(lines + self.notes))


def _check_download_args(url, dest, sha256, timeout, chunk_size) -> tuple[Path, str | None]:
    """Validate arguments; return ``dest`` as a Path and the lower-case digest."""
    if not isinstance(url, str) or not re.match(r"https?://", url, re.IGNORECASE):
        raise ValueError(f"url must be an http:// or https:// URL, got {url!r}")
    if not isinstance(dest, (str, os.PathLike)):
        raise TypeError(f"dest must be a path, got {type(dest).__name__}")
    dest = Path(dest)
    if dest.is_dir():
        raise ValueError(f"dest must be a file path, but {dest} is a directory")
    if sha256 is not None:
        if not isinstance(sha256, str) or not re.fullmatch(r"[0-9a-fA-F]{64}", sha256.strip()):
            raise ValueError(f"sha256 must be 64 hexadecimal characters or None, got {sha256!r}")
        sha256 = sha256.strip().lower()
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive int, got {chunk_size!r}")
    return dest, sha256


def _part_path(dest: Path) -> Path:
    return dest.with_name(dest.name + ".part")


def _corrupt_path(dest: Path) -> Path:
    return dest.with_name(dest.name + ".corrupt")


def _file_size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


def _set_aside_mismatch(dest: Path, sha256: str, actual: str) -> str:
    """Move an existing ``dest`` with the wrong digest to ``<dest>.corrupt``; return a note."""
    corrupt = _corrupt_path(dest)
    os.replace(dest, corrupt)
    return (
        f"Note: the existing {dest.absolute()} did not match the expected sha256 "
        f"(expected {sha256}, got {actual}); it was moved to {corrupt.absolute()}."
    )


def _fetch_into_part(ctx: _Context, sha256, timeout, chunk_size, show_progress) -> None:
    """Make ``ctx.part`` hold the whole body (resuming when possible).

    At most one restart from zero happens, for a server whose answer to a
    Range request does not fit the partial file.
    """
    for _attempt in range(2):
        offset = _file_size(ctx.part)
        try:
            resp = _open(ctx.url, offset, timeout)
        except urllib.error.HTTPError as exc:
            with contextlib.closing(exc):
                if exc.code == 416 and offset:
                    if _part_is_complete(exc, offset, ctx.part, sha256):
                        return
                    ctx.part.unlink()
                    continue
                raise ctx.error(f"{ctx.url} answered HTTP {exc.code} {exc.reason}.", offline=False) from exc
        except (OSError, http.client.HTTPException) as exc:
            raise ctx.error(f"Could not reach {ctx.url} ({_reason(exc)}).", offline=True) from exc
        with resp:
            if _stream_response(ctx, resp, offset, chunk_size, show_progress):
                return
        ctx.part.unlink()
    raise ctx.error(f"{ctx.url} kept answering Range requests inconsistently.", offline=False)


def _open(url: str, offset: int, timeout: float):
    """Issue the GET (with ``Range`` when resuming); a fresh opener honours the current proxy env."""
    headers = {"User-Agent": USER_AGENT, "Accept-Encoding": "identity"}
    if offset:
        headers["Range"] = f"bytes={offset}-"
    request = urllib.request.Request(url, headers=headers)
    return urllib.request.build_opener().open(request, timeout=timeout)


def _reason(exc: BaseException) -> str:
    """Short human reason for a network failure (DNS, refused, timeout...)."""
    reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
    if isinstance(reason, TimeoutError) or str(reason) == "timed out":
        return "timed out"
    if not isinstance(reason, BaseException):
        return str(reason)
    if isinstance(reason, socket.gaierror):
        return f"DNS lookup failed: {reason}"
    return f"{type(reason).__name__}: {reason}" if str(reason) else type(reason).__name__


def _part_is_complete(exc: urllib.error.HTTPError, offset: int, part: Path, sha256) -> bool:
    """After a 416: is the partial file already the whole body?"""
    total = _content_range(exc.headers.get("Content-Range"))[2]
    if total is not None:
        return total == offset
    return sha256 is not None and sha256_file(part) == sha256


def _content_range(value: str | None) -> tuple[int | None, int | None, int | None]:
    """Parse ``bytes START-END/TOTAL`` or ``bytes */TOTAL`` (missing parts are None)."""
    m = re.fullmatch(r"\s*bytes\s+(?:(\d+)-(\d+)|\*)/(\d+|\*)\s*", value or "")
    if not m:
        return None, None, None
    start, end, total = (None if g in (None, "*") else int(g) for g in m.groups())
    return start, end, total


def _stream_response(ctx: _Context, resp, offset: int, chunk_size: int, show_progress: bool) -> bool:
    """Write the body into the part file; False if the 206 range does not fit it."""
    if resp.status == 206:
        start, _end, total = _content_range(resp.headers.get("Content-Range"))
        if start != offset:
            return False
        mode = "ab"
    else:  # 200 (Range ignored or not sent): start over cleanly
        offset, mode = 0, "wb"
        length = resp.headers.get("Content-Length")
        total = int(length) if length and length.isdigit() else None
    bar = _bar(ctx.dest.name, total, offset) if show_progress else None
    try:
        with open(ctx.part, mode) as out:
            _copy_body(resp, out, chunk_size, bar)
    except _ReadFailed as exc:
        cause = exc.__cause__
        raise ctx.error(f"Could not reach {ctx.url} ({_reason(cause)}).", offline=True) from cause
    finally:
        if bar is not None:
            bar.close()
    _check_complete(ctx, total)
    return True


def _bar(desc: str, total: int | None, initial: int):
    return progress(total=total, desc=desc, unit="B", unit_scale=True, unit_divisor=1024, initial=initial)


def _copy_body(resp, out, chunk_size: int, bar) -> None:
    """Copy the response body to ``out`` chunk by chunk; read errors become _ReadFailed."""
    while True:
        try:
            chunk = resp.read(chunk_size)
        except (OSError, http.client.HTTPException) as exc:
            out.flush()
            raise _ReadFailed() from exc
        if not chunk:
            return
        out.write(chunk)
        if bar is not None:
            bar.update(len(chunk))


def _check_complete(ctx: _Context, total: int | None) -> None:
    """A body that ended before its announced size is a cut transfer."""
    size = _file_size(ctx.part)
    if total is not None and size < total:
        raise ctx.error(
            f"The transfer from {ctx.url} ended early ({size} of {total} bytes).", offline=True
        )


def _verify(ctx: _Context, sha256: str) -> None:
    """Raise ChecksumError (keeping the bytes as ``<dest>.corrupt``) on a digest mismatch."""
    actual = sha256_file(ctx.part)
    if actual == sha256:
        return
    corrupt = _corrupt_path(ctx.dest)
    os.replace(ctx.part, corrupt)
    raise ChecksumError(
        f"sha256 mismatch for {ctx.dest.absolute()} downloaded from {ctx.url}:\n"
        f"  expected {sha256}\n  actual   {actual}\n"
        f"The downloaded bytes were kept as {corrupt.absolute()} for inspection; delete it and re-run "
        "to download again. If this repeats, the upstream file changed or the host serves an error page.",
        path=corrupt,
        expected=sha256,
        actual=actual,
    )


# --------------------------------------------------------------------------- extract


def extract(
    archive, out_dir, *, members_pattern: str = LETOR_MEMBERS, show_progress: bool = True
) -> list[Path]:
    """Extract the members of a zip matching ``members_pattern`` into ``out_dir``.

    The pattern is matched (``re.match``) against each member path with 0, 1,
    2... leading folders stripped, so ``Fold1/train.txt`` and
    ``MSLR-WEB30K/Fold1/train.txt`` both land in ``out_dir/Fold1/train.txt``.
    Files already present with the right size are skipped; the others are
    written atomically. Returns the output paths (present or written), sorted.

    Raises FileNotFoundError if the archive is missing and ArchiveError if it
    is not a readable zip, has no matching member, or two members would land
    on the same file.
    """
    archive, out_dir = Path(archive), Path(out_dir)
    pattern = _compile_pattern(members_pattern)
    if not archive.is_file():
        raise FileNotFoundError(f"archive {archive.absolute()} does not exist")
    if archive.suffix.lower() == ".rar":
        return _extract_rar(archive, out_dir, pattern)
    try:
        with zipfile.ZipFile(archive) as zf:
            plan = _plan_members(zf, pattern, archive)
            return _extract_plan(zf, plan, out_dir, archive, show_progress)
    except zipfile.BadZipFile as exc:
        raise ArchiveError(
            f"{archive.absolute()} is not a valid zip archive ({exc}); delete it and download it again"
        ) from exc


RAR_TOOLS = (("unrar", ["x", "-o+", "-idq"]), ("7z", ["x", "-y", "-bd"]), ("bsdtar", ["-xf"]))


def _extract_rar(archive: Path, out_dir: Path, pattern: re.Pattern) -> list[Path]:
    """RAR archives (LETOR 4.0's MQ2007/MQ2008) through the first of unrar, 7z
    or bsdtar on PATH: unpacked into a scratch folder under ``out_dir``, then
    the members matching ``pattern`` are moved into place (atomic renames on
    one file system)."""
    import shutil
    import subprocess
    import tempfile

    for tool, args in RAR_TOOLS:
        exe = shutil.which(tool)
        if exe is None:
            continue
        out_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=out_dir, prefix=".unrar-") as tmp:
            if tool == "7z":
                cmd = [exe, *args, f"-o{tmp}", str(archive.absolute())]
            elif tool == "bsdtar":
                cmd = [exe, *args, str(archive.absolute()), "-C", tmp]
            else:
                cmd = [exe, *args, str(archive.absolute()), tmp + os.sep]
            done = subprocess.run(cmd, capture_output=True, text=True)
            if done.returncode != 0:
                raise ArchiveError(f"{tool} could not extract {archive.absolute()}: {done.stderr.strip()[-500:]}")
            moved = []
            for path in sorted(Path(tmp).rglob("*.txt")):
                rel = path.relative_to(tmp).as_posix()
                parts = rel.split("/")
                for strip in range(len(parts)):
                    tail = "/".join(parts[strip:])
                    if pattern.match(tail):
                        dest = out_dir / tail
                        dest.parent.mkdir(parents=True, exist_ok=True)
                        os.replace(path, dest)
                        moved.append(dest)
                        break
            if not moved:
                raise ArchiveError(f"{archive.absolute()} has no member matching {pattern.pattern!r}")
            return sorted(moved)
    raise ArchiveError(
        f"{archive.absolute()} is a RAR archive and none of unrar, 7z or bsdtar is on PATH. Install one "
        f"(e.g. `apt install unrar` or `apt install libarchive-tools`), or extract it by hand "
        f"so that {out_dir.absolute()}/Fold1..Fold5/{{train,vali,test}}.txt exist, then re-run."
    )


def _compile_pattern(members_pattern) -> re.Pattern:
    if not isinstance(members_pattern, str):
        raise TypeError(f"members_pattern must be a regular expression string, got {members_pattern!r}")
    try:
        return re.compile(members_pattern)
    except re.error as exc:
        raise ValueError(
            f"members_pattern {members_pattern!r} is not a valid regular expression: {exc}"
        ) from exc


def _plan_members(zf: zipfile.ZipFile, pattern: re.Pattern, archive: Path) -> dict[str, zipfile.ZipInfo]:
    """Map output relative path -> zip member, refusing unsafe or clashing paths."""
    plan: dict[str, zipfile.ZipInfo] = {}
    for info in zf.infolist():
        if info.is_dir():
            continue
        rel = _relative_name(info.filename, pattern)
        if rel is None:
            continue
        if rel in plan:
            raise ArchiveError(
                f"{archive.absolute()}: members {plan[rel].filename!r} and {info.filename!r} "
                f"would both be extracted to {rel}"
            )
        plan[rel] = info
    if not plan:
        sample = ", ".join(n for n in zf.namelist()[:5]) or "(empty archive)"
        raise ArchiveError(
            f"{archive.absolute()} has no member matching {pattern.pattern!r}; "
            f"its first members are: {sample}"
        )
    return dict(sorted(plan.items()))


def _relative_name(filename: str, pattern: re.Pattern) -> str | None:
    """The member path minus leading folders, if some such suffix matches."""
    parts = [p for p in filename.replace("\\", "/").split("/") if p]
    if any(p in (".", "..") for p in parts) or filename.startswith(("/", "\\")):
        return None  # never write outside out_dir
    for i in range(len(parts)):
        suffix = "/".join(parts[i:])
        if pattern.match(suffix):
            return suffix
    return None


def _extract_plan(zf, plan: dict, out_dir: Path, archive: Path, show_progress: bool) -> list[Path]:
    """Write every planned member that is not already present with the right size."""
    todo = {rel: info for rel, info in plan.items() if not _present(out_dir / rel, info.file_size)}
    bar = None
    if show_progress and todo:
        total = sum(info.file_size for info in todo.values())
        bar = _bar(f"extract {archive.name}", total, 0)
    try:
        for rel, info in todo.items():
            _extract_member(zf, info, out_dir / rel, archive, bar)
    finally:
        if bar is not None:
            bar.close()
    return [out_dir / rel for rel in plan]


def _present(path: Path, size: int) -> bool:
    """A regular file of exactly ``size`` bytes is taken as already extracted."""
    return path.is_file() and path.stat().st_size == size


def _extract_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, target: Path, archive: Path, bar) -> None:
    """Decompress one member into ``target`` atomically; CRC or format errors name the member."""
    try:
        with atomic_path(target) as tmp, zf.open(info) as src, open(tmp, "wb") as dst:
            while chunk := src.read(_HASH_CHUNK):
                dst.write(chunk)
                if bar is not None:
                    bar.update(len(chunk))
    except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
        raise ArchiveError(
            f"{archive.absolute()} is corrupt: member {info.filename!r} cannot be read ({exc}); "
            "delete the archive and download it again"
        ) from exc
    except NotImplementedError as exc:
        raise ArchiveError(
            f"{archive.absolute()}: member {info.filename!r} uses a compression method Python cannot "
            f"read ({exc}); extract it with `unzip` or 7-Zip into {target.parent.parent.absolute()}"
        ) from exc


# --------------------------------------------------------------------------- fetch


def fetch_dataset(spec: DatasetSpec, root, *, show_progress: bool = True) -> Path:
    """Make ``root`` hold the Fold layout of ``spec`` and return ``Path(root)``.

    For a ``download`` spec whose files are missing: ``pip download`` of
    ``spec.pip`` when it has one (:func:`evalrank.data.sdist.fetch_sdist`), else
    download ``spec.url`` to
    ``root/spec.archive`` (resuming, sha256-checked), extract the split files,
    then check the layout. A complete layout is returned without network.
    For ``local`` and ``synthetic`` specs there is nothing to fetch; the layout
    is only checked (FileNotFoundError explains how to obtain it).
    """
    if not isinstance(spec, DatasetSpec):
        raise TypeError(f"spec must be a DatasetSpec (see get_spec), got {type(spec).__name__}")
    root = Path(root)
    if spec.kind != "download" or not missing_files(root, spec):
        return require_layout(root, spec)
    if spec.pip is not None:
        from evalrank.data.sdist import fetch_sdist

        return fetch_sdist(spec, root)
    archive = download(
        spec.url,
        root / spec.archive,
        sha256=spec.sha256,
        show_progress=show_progress,
        homepage=spec.homepage,
    )
    extract(archive, root, members_pattern=_spec_pattern(spec), show_progress=show_progress)
    return require_layout(root, spec)


def _spec_pattern(spec: DatasetSpec) -> str:
    """Members pattern selecting exactly the spec's folds and splits."""
    folds = "|".join(str(f) for f in spec.folds)
    splits = "|".join(re.escape(s) for s in spec.splits)
    return rf"Fold({folds})/({splits})\.txt$"
