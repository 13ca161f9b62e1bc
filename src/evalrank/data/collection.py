"""The one representation of a ranked collection: flat arrays + query offsets.

Query ``q`` owns rows ``offsets[q]:offsets[q + 1]`` of ``features`` and
``labels``. Nothing here creates a Python object per document.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from evalrank import io

__all__ = ["Collection", "check_offsets", "query_rows", "segment_ids"]


def check_offsets(offsets, n_docs: int | None = None, name: str = "offsets") -> np.ndarray:
    """Validate query offsets (int, starts at 0, non-decreasing, ends at n_docs)."""
    offsets = np.asarray(offsets)
    if offsets.ndim != 1 or offsets.size < 1:
        raise ValueError(f"{name} must be a 1-d array of length n_queries + 1")
    if not np.issubdtype(offsets.dtype, np.integer):
        raise TypeError(f"{name} must be integers, got dtype {offsets.dtype}")
    offsets = offsets.astype(np.int64, copy=False)
    if offsets[0] != 0:
        raise ValueError(f"{name}[0] must be 0, got {offsets[0]}")
    if np.any(np.diff(offsets) < 0):
        raise ValueError(f"{name} must be non-decreasing")
    if n_docs is not None and offsets[-1] != n_docs:
        raise ValueError(f"{name}[-1] must equal the number of documents ({n_docs}), got {offsets[-1]}")
    return offsets


def query_rows(offsets: np.ndarray, index) -> tuple[np.ndarray, np.ndarray]:
    """Rows of the queries ``index`` (positions, in the given order) and their
    new offsets: ``rows`` picks those queries' documents from a flat array."""
    offsets = np.asarray(offsets, dtype=np.int64)
    index = np.asarray(index, dtype=np.int64)
    sizes = np.diff(offsets)[index]
    new = np.zeros(len(index) + 1, dtype=np.int64)
    np.cumsum(sizes, out=new[1:])
    rows = np.repeat(offsets[index] - new[:-1], sizes) + np.arange(new[-1], dtype=np.int64)
    return rows, new


def segment_ids(offsets: np.ndarray) -> np.ndarray:
    """Query index of every document (length ``offsets[-1]``)."""
    return np.repeat(np.arange(len(offsets) - 1, dtype=np.int64), np.diff(offsets))


@dataclass(frozen=True, eq=False)
class Collection:
    """Documents of many queries, stored contiguously per query.

    Attributes
    ----------
    features : float32 (n_docs, n_features)
    labels : int8 (n_docs,) graded relevance, 0 = irrelevant
    offsets : int64 (n_queries + 1,)
    qids : int64 (n_queries,) query ids as in the source file
    doc_ids : str (n_docs,) or None
    """

    features: np.ndarray
    labels: np.ndarray
    offsets: np.ndarray
    qids: np.ndarray
    doc_ids: np.ndarray | None = None

    def __post_init__(self):
        offsets = check_offsets(self.offsets, len(self.labels))
        if self.features.ndim != 2 or self.features.shape[0] != len(self.labels):
            raise ValueError(
                f"features must have shape (n_docs, n_features) with n_docs={len(self.labels)}, "
                f"got {self.features.shape}"
            )
        if len(self.qids) != len(offsets) - 1:
            raise ValueError(f"qids must have one entry per query ({len(offsets) - 1}), got {len(self.qids)}")
        if self.doc_ids is not None and len(self.doc_ids) != len(self.labels):
            raise ValueError("doc_ids must have one entry per document")
        object.__setattr__(self, "offsets", offsets)

    # -- sizes ---------------------------------------------------------------
    @property
    def n_queries(self) -> int:
        return len(self.offsets) - 1

    @property
    def n_docs(self) -> int:
        return len(self.labels)

    @property
    def n_features(self) -> int:
        return self.features.shape[1]

    @property
    def query_sizes(self) -> np.ndarray:
        return np.diff(self.offsets)

    def __repr__(self) -> str:
        return f"Collection(n_queries={self.n_queries}, n_docs={self.n_docs}, n_features={self.n_features})"

    # -- selection -----------------------------------------------------------
    def select_queries(self, index) -> "Collection":
        """The sub-collection of the queries ``index`` (positions, in the given order)."""
        index = np.asarray(index, dtype=np.int64)
        rows, offsets = query_rows(self.offsets, index)
        return Collection(
            features=self.features[rows],
            labels=self.labels[rows],
            offsets=offsets,
            qids=self.qids[index],
            doc_ids=None if self.doc_ids is None else self.doc_ids[rows],
        )

    @staticmethod
    def concat(parts) -> "Collection":
        parts = list(parts)
        if not parts:
            raise ValueError("parts must contain at least one Collection")
        sizes = np.concatenate([p.query_sizes for p in parts])
        offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        with_ids = all(p.doc_ids is not None for p in parts)
        return Collection(
            features=np.concatenate([p.features for p in parts]),
            labels=np.concatenate([p.labels for p in parts]),
            offsets=offsets,
            qids=np.concatenate([p.qids for p in parts]),
            doc_ids=np.concatenate([p.doc_ids for p in parts]) if with_ids else None,
        )

    # -- files ---------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        arrays = dict(features=self.features, labels=self.labels, offsets=self.offsets, qids=self.qids)
        if self.doc_ids is not None:
            arrays["doc_ids"] = self.doc_ids.astype(str)
        io.save_arrays(path, **arrays)

    @classmethod
    def load(cls, path: str | Path) -> "Collection":
        a = io.load_arrays(path)
        return cls(
            features=a["features"],
            labels=a["labels"],
            offsets=a["offsets"],
            qids=a["qids"],
            doc_ids=a.get("doc_ids"),
        )
