"""LETOR folds from parsed query partitions (Busa-Fekete et al. 2012, Sec. 5:
"5-fold" MQ2008; the MSLR/LETOR rotation of :data:`FOLD_ROTATION`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from evalrank import seeds
from evalrank.data.collection import Collection
from evalrank.data.datasets import FOLD_ROTATION

__all__ = ["letor_fold", "fold_partitions"]


def fold_partitions(fold: int) -> dict[str, tuple[int, ...]]:
    """``{"train": (..), "vali": (..), "test": (..)}`` partition numbers of a fold."""
    if fold not in FOLD_ROTATION:
        raise ValueError(f"fold must be one of {sorted(FOLD_ROTATION)}, got {fold!r}")
    return FOLD_ROTATION[fold]


def letor_fold(partition_files: dict[int, str | Path], fold: int, *, max_train_queries: int | None = None,
               seed: int = 0) -> tuple[Collection, Collection, Collection]:
    """(train, vali, test) of ``fold`` from ``{partition: S{k}.npz}``.

    ``max_train_queries`` keeps a random subset of the training queries (in
    their original order; stream ``seeds.rng(seed, "ndcgstudy", "train",
    fold)``) to bound training time on large collections; validation and
    test sets are always complete.
    """
    parts = fold_partitions(fold)
    missing = [p for ps in parts.values() for p in ps if p not in partition_files]
    if missing:
        raise ValueError(f"fold {fold} needs partitions {sorted(set(missing))}, which were not given")
    load = {p: Collection.load(partition_files[p]) for ps in parts.values() for p in ps}
    train = Collection.concat(load[p] for p in parts["train"])
    if max_train_queries is not None and train.n_queries > max_train_queries:
        keep = seeds.rng(seed, "ndcgstudy", "train", fold).choice(train.n_queries, max_train_queries, replace=False)
        train = train.select_queries(np.sort(keep))
    vali = Collection.concat(load[p] for p in parts["vali"])
    test = Collection.concat(load[p] for p in parts["test"])
    return train, vali, test
