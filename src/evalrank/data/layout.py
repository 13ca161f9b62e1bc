"""Where a dataset's five query partitions S1..S5 come from: the files it has on disk.

Every stage reads five query partitions S1..S5 (MSLR's rotation, see
:data:`evalrank.data.datasets.FOLD_ROTATION`). A dataset's files give them in
one of these layouts (:func:`local_layout`, :func:`spec_layout`):

``folds``
    ``Fold1..Fold5/{train,vali,test}.txt``, a whole MSLR / LETOR release:
    partition ``S_k`` is the ``test.txt`` of the fold whose test set it is
    (:func:`~evalrank.data.datasets.partition_file`), read as it is.
``fold``
    one fold, ``FoldK/train.txt`` and ``FoldK/test.txt`` with ``vali.txt``
    optional (a release's single fold, or an excerpt of one);
``file``
    a single LETOR file with every query (``dataset.file``).

For ``fold`` and ``file`` the five partitions are derived
(:func:`derive_partitions`): every document of the layout's files is pooled
and grouped by query id (a query is kept whole, even when its documents are in
two files); the distinct query ids are permuted by the stream
``rng(seed, "partitions")`` of the config seed (:mod:`evalrank.seeds`) and the
permutation is cut into five consecutive runs whose sizes differ by at most one
(``np.array_split``): run k is ``S_k``, its queries in ascending id order.
The partitions depend on the queries alone, not on how the files spread them:
a missing ``vali.txt`` needs no split of its own, since the deal already splits
``train.txt`` by query, seeded. A LETOR fold of the pipeline (the NDCG stage's)
is then ``S1..S3`` / ``S4`` / ``S5`` of the derived partitions, as in MSLR.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from evalrank.data.collection import Collection
from evalrank.data.datasets import DatasetSpec, fold_file, partition_file
from evalrank.seeds import rng

__all__ = [
    "N_PARTITIONS",
    "Layout",
    "local_layout",
    "spec_layout",
    "deal_queries",
    "derive_partitions",
    "read_sources",
]

N_PARTITIONS = 5
_SPLITS = ("train", "vali", "test")
_PARTITION_STREAM = "partitions"


@dataclass(frozen=True)
class Layout:
    """A dataset's files: ``kind`` (``'folds'``, ``'fold'`` or ``'file'``) and
    ``sources``, the files to read: for ``folds`` the five partition files
    S1..S5 in order, else every file whose queries are dealt into S1..S5."""

    kind: str
    sources: tuple[Path, ...]

    @property
    def derived(self) -> bool:
        """Whether S1..S5 are dealt from the sources (:func:`derive_partitions`)."""
        return self.kind != "folds"


def _folds_layout(root: Path) -> Layout:
    return Layout("folds", tuple(partition_file(root, k) for k in range(1, N_PARTITIONS + 1)))


def local_layout(root, file=None, *, key: str = "dataset") -> Layout:
    """The layout of a ``local`` dataset: ``file`` (``dataset.file``, relative to
    ``root`` unless absolute) if given, else what ``root`` holds: all five folds,
    or exactly one fold with ``train.txt`` and ``test.txt``.

    Raises FileNotFoundError naming the config key (``key``.root or ``key``.file)
    and the files missing, and ValueError for an ambiguous folder (several
    incomplete folds).
    """
    root = Path(root)
    if file is not None:
        path = Path(file) if Path(file).is_absolute() else root / file
        if not path.is_file():
            why = "is a folder" if path.is_dir() else "does not exist"
            raise FileNotFoundError(f"{key}.file: {path} {why}; name a LETOR file (relative to {key}.root)")
        return Layout("file", (path,))
    if root.is_file():
        raise FileNotFoundError(f"{key}.root: {root} is a file, not a folder; to use a single LETOR file, "
                                f"set {key}.file to it (and {key}.root to its folder)")
    full = [fold_file(root, f, s) for f in range(1, N_PARTITIONS + 1) for s in _SPLITS]
    missing = [p for p in full if not p.is_file()]
    if not missing:
        return _folds_layout(root)
    single = [f for f in range(1, N_PARTITIONS + 1)
              if fold_file(root, f, "train").is_file() and fold_file(root, f, "test").is_file()]
    if len(single) == 1:
        f = single[0]
        vali = fold_file(root, f, "vali")
        files = [fold_file(root, f, "train")] + ([vali] if vali.is_file() else []) + [fold_file(root, f, "test")]
        return Layout("fold", tuple(files))
    expected = ("Fold1..Fold5/{train,vali,test}.txt, or one fold FoldK/train.txt + FoldK/test.txt "
                f"(vali.txt optional), or a single file named by {key}.file")
    if single:
        raise ValueError(f"{key}.root: {root} holds {', '.join(f'Fold{f}' for f in single)} but not all five "
                         f"folds ({len(missing)} files missing, e.g. {missing[0]}); expected {expected}")
    what = " (the folder does not exist)" if not root.exists() else ""
    raise FileNotFoundError(f"{key}.root: no LETOR layout under {root}{what}: expected {expected}; "
                            f"missing e.g. {missing[0]}")


def spec_layout(spec: DatasetSpec, root) -> Layout:
    """The layout a registered downloaded dataset has once fetched: its folds and splits."""
    root = Path(root)
    if spec.folds == tuple(range(1, N_PARTITIONS + 1)) and set(_SPLITS) <= set(spec.splits):
        return _folds_layout(root)
    if len(spec.folds) != 1 or not {"train", "test"} <= set(spec.splits):
        raise ValueError(f"dataset {spec.name!r}: folds {spec.folds} with splits {spec.splits} are neither "
                         "all five folds nor one fold with train and test")
    order = [s for s in _SPLITS if s in spec.splits]
    return Layout("fold", tuple(fold_file(root, spec.folds[0], s) for s in order))


def deal_queries(qids, seed: int, n_parts: int = N_PARTITIONS) -> list[np.ndarray]:
    """Deal the distinct query ids of ``qids`` into ``n_parts`` partitions.

    The ids (ascending) are permuted by ``rng(seed, "partitions")`` and the
    permutation cut into ``n_parts`` consecutive runs of sizes differing by at
    most one; each run is returned sorted. Every id is in exactly one partition.
    Raises ValueError with fewer distinct ids than partitions.
    """
    if isinstance(n_parts, bool) or not isinstance(n_parts, int) or n_parts < 1:
        raise ValueError(f"n_parts must be a positive int, got {n_parts!r}")
    ids = np.unique(np.asarray(qids, dtype=np.int64))
    if ids.size < n_parts:
        raise ValueError(f"the dataset has {ids.size} distinct query id(s); dealing them into {n_parts} "
                         "partitions needs at least one query per partition")
    perm = rng(seed, _PARTITION_STREAM).permutation(ids.size)
    return [np.sort(ids[run]) for run in np.array_split(perm, n_parts)]


def derive_partitions(collection: Collection, seed: int, n_parts: int = N_PARTITIONS) -> list[Collection]:
    """The partitions S1..S``n_parts`` of a pooled collection (:func:`deal_queries`).

    The documents of one query id stay together, in collection order, even when
    the id labels several query blocks (a query split over two files).
    """
    if not isinstance(collection, Collection):
        raise TypeError(f"collection must be a Collection, got {type(collection).__name__}")
    out = []
    for ids in deal_queries(collection.qids, seed, n_parts):
        pos = np.flatnonzero(np.isin(collection.qids, ids))
        pos = pos[np.argsort(collection.qids[pos], kind="stable")]
        sub = collection.select_queries(pos)
        first = np.ones(sub.n_queries, dtype=bool)
        first[1:] = sub.qids[1:] != sub.qids[:-1]
        offsets = np.append(sub.offsets[:-1][first], sub.offsets[-1])
        out.append(Collection(features=sub.features, labels=sub.labels, offsets=offsets,
                              qids=sub.qids[first], doc_ids=sub.doc_ids))
    return out


def read_sources(paths, *, n_features=None, max_grade=None) -> Collection:
    """Every document of the LETOR files ``paths``, in order (one collection).

    A malformed file raises :class:`~evalrank.data.letor.LetorFormatError`
    naming the file and the line."""
    from evalrank.data.letor import read_letor

    paths = [Path(p) for p in paths]
    if not paths:
        raise ValueError("paths must name at least one LETOR file")
    parts = [read_letor(p, n_features=n_features, max_grade=max_grade) for p in paths]
    width = max(c.n_features for c in parts)  # without n_features: each file's highest id
    return Collection.concat([c if c.n_features == width else _widen(c, width) for c in parts])


def _widen(c: Collection, width: int) -> Collection:
    features = np.zeros((c.n_docs, width), dtype=c.features.dtype)
    features[:, : c.n_features] = c.features
    return Collection(features=features, labels=c.labels, offsets=c.offsets, qids=c.qids, doc_ids=c.doc_ids)
