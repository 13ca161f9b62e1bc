"""LETOR / SVMlight ranking text files: :func:`load_letor`, :func:`read_letor` with an
``.npz`` cache keyed on the file's identity (:func:`cache_path`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from evalrank.data.collection import Collection
from evalrank.data.letor_read import PARSER_VERSION, _check_path, read_letor

__all__ = ["load_letor", "cache_path"]

_READ_KWARGS = ("n_features", "max_grade", "doc_ids", "show_progress")
_RESULT_KWARGS = ("n_features", "max_grade", "doc_ids")  # show_progress does not change the result


def cache_path(path, *, cache_dir=None, **read_kwargs) -> Path:
    """Where :func:`load_letor` caches ``path`` read with ``read_kwargs``:
    ``<cache_dir or the file's folder>/.<name>.<hash>.npz``, the hash covering the
    absolute path, size, mtime_ns, :data:`PARSER_VERSION` and the read options."""
    import hashlib
    import json

    path = _check_path(path).resolve()
    unknown = sorted(set(read_kwargs) - set(_READ_KWARGS))
    if unknown:
        raise TypeError(f"unexpected read_letor argument(s): {', '.join(unknown)}")
    st = path.stat()
    key = {
        "path": str(path),
        "size": st.st_size,
        "mtime_ns": st.st_mtime_ns,
        "parser_version": PARSER_VERSION,
        "read": {k: _jsonable(read_kwargs[k]) for k in _RESULT_KWARGS if k in read_kwargs},
    }
    # defaults and explicit defaults must hash alike
    defaults = {"n_features": None, "max_grade": None, "doc_ids": False}
    key["read"] = {k: key["read"].get(k, defaults[k]) for k in _RESULT_KWARGS}
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]
    folder = path.parent if cache_dir is None else _check_path(cache_dir, "cache_dir")
    return Path(folder) / f".{path.name}.{digest}.npz"


def _jsonable(v):
    return v.item() if isinstance(v, np.generic) else v


def load_letor(path, *, cache_dir=None, **read_kwargs) -> Collection:
    """:func:`read_letor` with an ``.npz`` cache (see :func:`cache_path`).

    The first call parses the file and saves the Collection atomically; later
    calls load the cache as long as the file's size and mtime are unchanged
    (a stale cache has a different name and is ignored). An unreadable cache
    is re-created; a cache that cannot be written only gives a warning.
    """
    import warnings

    target = cache_path(path, cache_dir=cache_dir, **read_kwargs)
    if target.exists():
        try:
            return Collection.load(target)
        except Exception as exc:  # corrupt / truncated by hand: parse again
            warnings.warn(f"ignoring unreadable LETOR cache {target}: {exc}", stacklevel=2)
    collection = read_letor(path, **read_kwargs)
    try:
        collection.save(target)
    except OSError as exc:
        warnings.warn(f"could not write LETOR cache {target}: {exc}", stacklevel=2)
    return collection
