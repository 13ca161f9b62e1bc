"""What the workflow's data-tied config checks need to know about a dataset.

A config that suits MSLR-WEB30K can be wrong for the user's own data: a
training size larger than the training half, a budget above what the pool
costs, a feature id the data does not have. :func:`evalrank.config.data_problems`
checks the config against the :class:`DataFacts` of the five query partitions
S1..S5, before any expensive job runs:

* for the synthetic dataset the facts follow from the config alone
  (:func:`synthetic_facts`: the generator draws the documents per query first,
  from the partition's own stream), so the check runs when the DAG is built;
* for any other dataset they are read from the parsed partitions
  (:func:`partition_facts`, the workflow's ``data_facts`` job), so the check runs
  as soon as the data is parsed, before the first model is trained.

The facts are independent of the config (no job reruns when a config value
changes); they are stored as JSON (:func:`write_facts`, :func:`read_facts`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

__all__ = ["DataFacts", "partition_facts", "synthetic_facts", "write_facts", "read_facts"]


@dataclass(frozen=True)
class DataFacts:
    """Facts about the partitions S1..S5 of a dataset.

    ``query_sizes[k]``: documents per query of partition ``k``, in file order.
    ``n_features``: columns of the parsed features. ``used_features``: the
    highest 1-based feature id with a non-zero value anywhere (None: unknown).
    ``length_like``: 1-based ids of the features whose values are all
    non-negative integers, the only ones that can be document lengths (None:
    unknown). ``max_label``: the largest grade (None: unknown).
    """

    query_sizes: dict[int, np.ndarray]
    n_features: int
    used_features: int | None = None
    length_like: frozenset[int] | None = None
    max_label: int | None = None
    source: str = field(default="", compare=False)

    def n_queries(self, part: int) -> int:
        return int(self.query_sizes[part].size)

    def pool_queries(self, fold: int) -> int:
        """Queries of the evaluation pool of ``fold`` (the other four partitions)."""
        return sum(self.n_queries(p) for p in self.query_sizes if p != fold)


def partition_facts(partitions: dict) -> DataFacts:
    """Facts from parsed partitions ``{k: Collection}`` (or ``{k: path of its .npz}``,
    loaded one at a time so memory holds one partition)."""
    from evalrank.data.collection import Collection

    sizes, n_features, used, length_like, max_label = {}, None, 0, None, 0
    for k in sorted(partitions):
        c = partitions[k]
        if not isinstance(c, Collection):
            c = Collection.load(c)
        if n_features is None:
            n_features = c.n_features
        elif c.n_features != n_features:
            raise ValueError(f"partition S{k} has {c.n_features} features, S{min(sizes)} has {n_features}")
        sizes[int(k)] = c.query_sizes.astype(np.int64)
        X = c.features
        nonzero = np.flatnonzero((X != 0).any(axis=0))
        used = max(used, int(nonzero[-1]) + 1 if nonzero.size else 0)
        ok = (X >= 0).all(axis=0) & (X == np.floor(X)).all(axis=0)
        length_like = ok if length_like is None else length_like & ok
        max_label = max(max_label, int(c.labels.max()) if c.n_docs else 0)
    return DataFacts(query_sizes=sizes, n_features=int(n_features), used_features=used,
                     length_like=frozenset((np.flatnonzero(length_like) + 1).tolist()), max_label=max_label)


def synthetic_facts(config: dict) -> DataFacts:
    """The facts of the config's synthetic dataset, without generating it.

    Exact: the generator draws the documents per query first from partition
    ``k``'s stream ``seeds.rng(seed, "synthetic", k)`` (tested against
    :func:`partition_facts` of the generated data). Feature values are not
    predicted (``used_features`` = ``n_features``, ``length_like`` unknown).
    """
    from evalrank.data.synthetic import N_PARTITIONS, partition_query_sizes

    ds = config["dataset"]
    syn = ds["synthetic"]
    sizes = {k: partition_query_sizes(syn["queries_per_partition"], seed=config["seed"], partition=k,
                                      mean_docs=syn["mean_docs"], p_small=syn["p_small"], max_docs=syn["max_docs"])
             for k in range(1, N_PARTITIONS + 1)}
    return DataFacts(query_sizes=sizes, n_features=int(ds["n_features"]), used_features=int(ds["n_features"]),
                     max_label=int(ds["max_grade"]), source="the synthetic generator's settings")


def write_facts(facts: DataFacts, path) -> None:
    from evalrank import io

    obj = {
        "n_features": facts.n_features,
        "used_features": facts.used_features,
        "length_like": None if facts.length_like is None else sorted(facts.length_like),
        "max_label": facts.max_label,
        "partitions": {str(k): {"queries": int(v.size), "documents": int(v.sum()), "query_sizes": v.tolist()}
                       for k, v in sorted(facts.query_sizes.items())},
    }
    io.write_json(path, obj)


def read_facts(path) -> DataFacts:
    path = Path(path)
    try:
        obj = json.loads(path.read_text(encoding="utf-8"))
        return DataFacts(
            query_sizes={int(k): np.asarray(v["query_sizes"], dtype=np.int64) for k, v in obj["partitions"].items()},
            n_features=int(obj["n_features"]),
            used_features=obj["used_features"],
            length_like=None if obj["length_like"] is None else frozenset(obj["length_like"]),
            max_label=obj["max_label"],
            source=str(path),
        )
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ValueError(f"{path} is not a data-facts file written by 'evalrank stage data-facts' ({e}); "
                         "delete it and the workflow rebuilds it") from None
