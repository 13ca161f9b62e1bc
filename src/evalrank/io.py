"""File I/O at the edges: atomic writes, deterministic array and table files.

All writers go through :func:`atomic_path`: content for a new path or a regular
file is written to a temporary file in the destination folder and moved into
place with ``os.replace``, so an interrupted run never leaves a truncated output
that looks complete; a symlink keeps pointing where it did and the file it points
to is replaced; a device, a FIFO or ``/dev/stdout`` is written through, as the
shell's ``>`` would. OS errors name the path the caller gave.
Array files are ``.npz`` archives written with fixed zip timestamps, so the same
arrays always give the same bytes.
"""

from __future__ import annotations

import contextlib
import errno
import io as _io
import json
import os
import stat
import tempfile
import zipfile
from pathlib import Path
from typing import Iterator, Mapping

import numpy as np

__all__ = [
    "open_text",
    "atomic_path",
    "atomic_write_text",
    "save_arrays",
    "load_arrays",
    "DamagedFileError",
    "MissingArrayError",
    "Arrays",
    "damaged_archives",
    "write_table",
    "format_table",
    "read_table",
    "write_json",
]

_EPOCH = (1980, 1, 1, 0, 0, 0)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike, suffix: str | None = None) -> Iterator[Path]:
    """Yield the path to write ``path``'s content to.

    - A new path or a regular file: a temporary file beside it, moved onto it with
      ``os.replace`` on success; on any exception it is removed and ``path`` is untouched. A
      file that existed keeps its permission bits, a new one gets the umask's.
    - A symlink (to a file, or dangling): the same for the file it points to; the link stays.
    - Anything else -- a device (``/dev/null``), a FIFO, a link into ``/proc`` such as
      ``/dev/stdout`` or ``/dev/fd/N`` -- is written through: ``path`` itself is yielded and
      nothing is renamed, so the device stays a device.

    A directory raises :class:`IsADirectoryError`; every OS error (a full disk, a missing
    permission, a parent that is a file) is raised with ``path`` as its file name, never the
    temporary file's.
    """
    path = Path(path)
    try:
        target, through, mode = _destination(path)
    except OSError as e:
        raise _named(e, path) from None
    if through:
        try:
            yield path
        except OSError as e:
            if e.filename not in (None, str(path)):
                raise
            raise _named(e, path) from None
        return
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except FileExistsError:  # a parent is a file
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(path)) from None
    except OSError as e:
        raise _named(e, path) from None
    suffix = target.suffix if suffix is None else suffix
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=f".tmp{suffix}", dir=target.parent)
    except OSError as e:
        raise _named(e, path) from None
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        if tmp_path.exists():
            # mkstemp creates 0600: the old file's bits, or the usual umask-based mode
            os.chmod(tmp_path, 0o666 & ~_umask() if mode is None else stat.S_IMODE(mode))
        os.replace(tmp_path, target)
    except BaseException as e:
        with contextlib.suppress(FileNotFoundError):
            tmp_path.unlink()
        if isinstance(e, OSError) and e.filename in (None, tmp, str(target)):
            raise _named(e, path) from None
        raise


def _destination(path: Path) -> tuple[Path, bool, int | None]:
    """``(file to replace, write through?, its mode or None)`` for :func:`atomic_path`."""
    try:
        st = os.stat(path)  # follows symlinks
    except FileNotFoundError:
        st = None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    if st is not None and not stat.S_ISREG(st.st_mode):
        return path, True, None  # a device, a FIFO, a socket
    if not os.path.islink(path):
        return path, False, None if st is None else st.st_mode
    if _into_proc(path):
        return path, True, None  # /dev/stdout, /dev/fd/N: the shell's open file, whatever it is
    target = Path(os.path.realpath(path))
    if st is None:
        return target, False, None  # a dangling link: create the file it names
    real = os.stat(target)
    if (real.st_dev, real.st_ino) != (st.st_dev, st.st_ino):
        return path, True, None
    return target, False, st.st_mode


def _into_proc(path: Path) -> bool:
    """Whether ``path`` is, or leads through symlinks to, a link in ``/proc`` (``/dev/stdout`` ->
    ``/proc/self/fd/1``): such a link names an open file, not a place to put a new one."""
    p = os.path.abspath(path)
    for _ in range(40):
        parent = os.path.realpath(os.path.dirname(p))
        if parent == "/proc" or parent.startswith("/proc/"):
            return True
        if not os.path.islink(p):
            return False
        p = os.path.join(parent, os.readlink(p))
    return True  # a loop: written through, open() names it


def _named(e: OSError, path: Path) -> OSError:
    """``e`` with ``path`` as its file name (a temporary file's name, or none, replaced)."""
    if e.errno is None:
        return e
    return OSError(e.errno, e.strerror or os.strerror(e.errno), str(path))


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def open_bytes(path: str | os.PathLike):
    """Open a file for reading as bytes the way users' files come: gzip-compressed or not (by
    its magic bytes). A missing file or a directory raises with the path named."""
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a directory, not a file")
    if not path.exists():
        raise FileNotFoundError(f"{path} does not exist")
    with open(path, "rb") as fh:
        gz = fh.read(2) == b"\x1f\x8b"
    if gz:
        import gzip

        return gzip.open(path, "rb")
    return open(path, "rb")


def open_text(path: str | os.PathLike):
    """Open a text file for reading the way users' files come: :func:`open_bytes` (gzip or
    not), UTF-8 with or without a byte-order mark. A missing file or a directory raises with the
    path named."""
    return _io.TextIOWrapper(open_bytes(path), encoding="utf-8-sig", errors="strict")


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def save_arrays(path: str | os.PathLike, /, **arrays: np.ndarray) -> None:
    """Write arrays to an ``.npz`` archive atomically and byte-reproducibly.

    Object arrays are refused (they would need pickle); store strings as
    fixed-width unicode arrays instead.
    """
    with atomic_path(path, suffix=".npz") as tmp, open(tmp, "wb") as fh:
        # a device or a FIFO (written through) cannot be seeked in: zipfile streams to it
        out = fh if stat.S_ISREG(os.fstat(fh.fileno()).st_mode) else _Stream(fh)
        with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
            for name in sorted(arrays):
                arr = np.asarray(arrays[name])
                if arr.dtype == object:
                    raise TypeError(f"array {name!r} has dtype object; convert it to str or numbers")
                buf = _io.BytesIO()
                np.lib.format.write_array(buf, arr, allow_pickle=False)
                info = zipfile.ZipInfo(f"{name}.npy", date_time=_EPOCH)
                info.external_attr = 0o644 << 16
                zf.writestr(info, buf.getvalue())


class _Stream:
    """A file object that is only written to (zipfile then writes no back-patched headers)."""

    def __init__(self, fh):
        self._fh = fh

    def write(self, data):
        return self._fh.write(data)

    def flush(self):
        self._fh.flush()


class DamagedFileError(ValueError):
    """An array file exists but cannot be read back whole (truncated, overwritten, not an .npz)."""


class MissingArrayError(DamagedFileError):
    """An ``.npz`` archive lacks an array its reader needs (another program's file, an older
    format, an edited archive)."""


class Arrays(dict):
    """The arrays of one ``.npz`` file by name (:func:`load_arrays`); ``arrays["x"]`` for a
    name the file lacks raises :class:`MissingArrayError` naming the file and what it holds
    (``get`` and ``in`` as for any dict)."""

    def __init__(self, path, arrays):
        super().__init__(arrays)
        self.path = Path(path)

    def __missing__(self, key):
        held = ", ".join(sorted(self)) or "no arrays"
        raise MissingArrayError(f"{self.path} has no array {key!r} (it holds {held}): not a file of this stage, "
                                "or written by another version; delete it and rerun the workflow, which rebuilds it")


def load_arrays(path: str | os.PathLike) -> dict[str, np.ndarray]:
    """Load every array of an ``.npz`` archive into memory.

    A file that is not a complete archive (truncated by a full disk or a copy,
    a CRC error, another format) raises :class:`DamagedFileError` naming it.
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"array file {path} does not exist")
    if path.is_dir():
        raise IsADirectoryError(f"array file {path} is a directory")
    try:
        data = np.load(path, allow_pickle=False)
        if not isinstance(data, np.lib.npyio.NpzFile):  # a lone .npy array under this name
            raise ValueError("one .npy array, not an .npz archive of named arrays")
        with data:
            return Arrays(path, {k: data[k] for k in data.files})
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError, KeyError) as e:
        raise DamagedFileError(f"{path} is damaged or not an .npz archive ({type(e).__name__}: {e}); delete it "
                               "and rerun the workflow, which rebuilds it") from None


def damaged_archives(root: str | os.PathLike) -> list[Path]:
    """The ``.npz`` files below ``root`` that are not complete zip archives (a cheap check
    of the end record: what a truncation destroys). Temporary files are skipped."""
    out = []
    for p in sorted(Path(root).rglob("*.npz")):
        if p.name.startswith(".") or not p.is_file():
            continue
        if not zipfile.is_zipfile(p):
            out.append(p)
    return out


def write_table(df, path: str | os.PathLike, float_format: str = "%.6g") -> None:
    """Write a pandas DataFrame as CSV atomically with a fixed float format,
    so tables are byte-identical across runs and core counts."""
    with atomic_path(path) as tmp:
        df.to_csv(tmp, index=False, float_format=float_format, lineterminator="\n")


def format_table(df, fmt: str, float_format: str | None = "%.6g") -> str:
    """A table as programs read it: ``csv``, ``tsv`` (a header, one row per line, ``float_format``
    (None: every digit, Python's repr), blanks for missing values) or ``json`` (a list of records,
    null for missing values)."""
    if fmt == "json":
        return df.to_json(orient="records", indent=1, double_precision=15) + "\n"
    if fmt not in ("csv", "tsv"):
        raise ValueError(f"format {fmt!r}: not one of csv, tsv, json")
    return df.to_csv(sep="," if fmt == "csv" else "\t", index=False, float_format=float_format, lineterminator="\n")


def read_table(path: str | os.PathLike):
    import pandas as pd

    return pd.read_csv(path)


def write_json(path: str | os.PathLike, obj: Mapping) -> None:
    atomic_write_text(path, json.dumps(obj, indent=2, sort_keys=True, default=_json_default) + "\n")


def _json_default(o):
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    raise TypeError(f"not JSON serializable: {type(o).__name__}")
