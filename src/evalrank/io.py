"""File I/O at the edges: atomic writes, deterministic array and table files.

All writers go through :func:`atomic_path`: content is written to a temporary
file in the destination folder and moved into place with ``os.replace``, so an
interrupted run never leaves a truncated output that looks complete.
Array files are ``.npz`` archives written with fixed zip timestamps, so the same
arrays always give the same bytes.
"""

from __future__ import annotations

import contextlib
import io as _io
import json
import os
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
    "damaged_archives",
    "write_table",
    "read_table",
    "write_json",
]

_EPOCH = (1980, 1, 1, 0, 0, 0)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike, suffix: str | None = None) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on success move it onto ``path``.

    On any exception the temporary file is removed and ``path`` is untouched.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    suffix = path.suffix if suffix is None else suffix
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=f".tmp{suffix}", dir=path.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        if tmp_path.exists():
            # mkstemp creates 0600; give the final file the usual umask-based mode.
            os.chmod(tmp_path, 0o666 & ~_umask())
        os.replace(tmp_path, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp_path.unlink()
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def open_text(path: str | os.PathLike):
    """Open a text file for reading the way users' files come: gzip-compressed or not (by
    its magic bytes), UTF-8 with or without a byte-order mark. A missing file or a
    directory raises with the path named."""
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a directory, not a file")
    if not path.exists():
        raise FileNotFoundError(f"{path} does not exist")
    with open(path, "rb") as fh:
        gz = fh.read(2) == b"\x1f\x8b"
    if gz:
        import gzip

        return gzip.open(path, "rt", encoding="utf-8-sig", errors="strict")
    return open(path, encoding="utf-8-sig", errors="strict")


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def save_arrays(path: str | os.PathLike, /, **arrays: np.ndarray) -> None:
    """Write arrays to an ``.npz`` archive atomically and byte-reproducibly.

    Object arrays are refused (they would need pickle); store strings as
    fixed-width unicode arrays instead.
    """
    with atomic_path(path, suffix=".npz") as tmp:
        with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
            for name in sorted(arrays):
                arr = np.asarray(arrays[name])
                if arr.dtype == object:
                    raise TypeError(f"array {name!r} has dtype object; convert it to str or numbers")
                buf = _io.BytesIO()
                np.lib.format.write_array(buf, arr, allow_pickle=False)
                info = zipfile.ZipInfo(f"{name}.npy", date_time=_EPOCH)
                info.external_attr = 0o644 << 16
                zf.writestr(info, buf.getvalue())


class DamagedFileError(ValueError):
    """An array file exists but cannot be read back whole (truncated, overwritten, not an .npz)."""


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
        with np.load(path, allow_pickle=False) as data:
            return {k: data[k] for k in data.files}
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
