"""Dataset layouts and the derived partition rotation (evalrank.data.layout)."""

from __future__ import annotations

import numpy as np
import pytest
from toy_data import toy_collection

from evalrank.data.collection import Collection
from evalrank.data.datasets import fold_file, get_spec, partition_file
from evalrank.data.layout import (
    deal_queries,
    derive_partitions,
    local_layout,
    read_sources,
    spec_layout,
)
from evalrank.data.letor import LetorFormatError, write_letor


@pytest.fixture(autouse=True)
def _quiet(monkeypatch):
    monkeypatch.setenv("EVALRANK_PROGRESS", "0")


def _touch(*paths):
    for p in paths:
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("0 qid:1 1:0\n")


# -- layouts ------------------------------------------------------------------------------------
def test_five_folds_read_as_the_rotation(tmp_path):
    _touch(*[fold_file(tmp_path, f, s) for f in range(1, 6) for s in ("train", "vali", "test")])
    lay = local_layout(tmp_path)
    assert lay.kind == "folds" and not lay.derived
    assert lay.sources == tuple(partition_file(tmp_path, k) for k in range(1, 6))


def test_one_fold_with_and_without_vali(tmp_path):
    _touch(fold_file(tmp_path, 1, "train"), fold_file(tmp_path, 1, "test"))
    lay = local_layout(tmp_path)
    assert lay.kind == "fold" and lay.derived
    assert lay.sources == (fold_file(tmp_path, 1, "train"), fold_file(tmp_path, 1, "test"))
    _touch(fold_file(tmp_path, 1, "vali"))
    assert local_layout(tmp_path).sources == tuple(fold_file(tmp_path, 1, s) for s in ("train", "vali", "test"))


def test_a_single_file_relative_to_root_or_absolute(tmp_path):
    _touch(tmp_path / "all.txt")
    assert local_layout(tmp_path, "all.txt").sources == (tmp_path / "all.txt",)
    assert local_layout(tmp_path / "elsewhere", str(tmp_path / "all.txt")).kind == "file"


def test_layout_errors_name_the_config_key_and_the_file(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"dataset\.root: no LETOR layout .*Fold1[/\\]train\.txt"):
        local_layout(tmp_path)
    with pytest.raises(FileNotFoundError, match=r"does not exist"):
        local_layout(tmp_path / "nope")
    with pytest.raises(FileNotFoundError, match=r"dincer2016\.learning\.dataset\.file: .*missing\.txt does not exist"):
        local_layout(tmp_path, "missing.txt", key="dincer2016.learning.dataset")
    _touch(tmp_path / "x.txt")
    with pytest.raises(FileNotFoundError, match=r"dataset\.root: .*x\.txt is a file.*dataset\.file"):
        local_layout(tmp_path / "x.txt")
    _touch(fold_file(tmp_path, 1, "train"), fold_file(tmp_path, 1, "test"),
           fold_file(tmp_path, 3, "train"), fold_file(tmp_path, 3, "test"))
    with pytest.raises(ValueError, match=r"dataset\.root: .*Fold1, Fold3 but not all five"):
        local_layout(tmp_path)


def test_registered_layouts(tmp_path):
    assert spec_layout(get_spec("mslr-web30k"), tmp_path).kind == "folds"
    lay = spec_layout(get_spec("mslr-excerpt"), tmp_path)
    assert lay.kind == "fold" and lay.sources == (fold_file(tmp_path, 1, "train"), fold_file(tmp_path, 1, "test"))


# -- the deal -----------------------------------------------------------------------------------
def test_every_query_in_exactly_one_partition_sizes_within_one():
    qids = np.repeat(np.arange(100, 187), 3)  # 87 queries, ids repeated as documents are
    parts = deal_queries(qids, seed=5)
    assert len(parts) == 5
    allq = np.concatenate(parts)
    assert np.array_equal(np.sort(allq), np.arange(100, 187)) and allq.size == 87
    assert sorted(p.size for p in parts) == [17, 17, 17, 18, 18]
    assert all(np.all(np.diff(p) > 0) for p in parts)


def test_the_deal_is_deterministic_per_seed():
    qids = np.arange(50)
    a, b, c = deal_queries(qids, seed=1), deal_queries(qids, seed=1), deal_queries(qids, seed=2)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c))
    # the order the ids come in does not matter: only the set of queries
    d = deal_queries(qids[::-1], seed=1)
    assert all(np.array_equal(x, y) for x, y in zip(a, d))


def test_the_deal_needs_one_query_per_partition():
    with pytest.raises(ValueError, match="4 distinct query id"):
        deal_queries([1, 1, 2, 3, 4], seed=0)
    with pytest.raises(ValueError, match="n_parts"):
        deal_queries([1, 2], seed=0, n_parts=0)


def _docs_by_query(c: Collection) -> dict:
    return {int(q): (c.features[a:b], c.labels[a:b]) for q, a, b in zip(c.qids, c.offsets[:-1], c.offsets[1:])}


def test_derived_partitions_keep_queries_whole():
    pooled = toy_collection(23, seed=3)
    parts = derive_partitions(pooled, seed=9)
    whole = _docs_by_query(pooled)
    seen = {}
    for p in parts:
        seen.update(_docs_by_query(p))
    assert sorted(seen) == sorted(whole)
    for q, (X, y) in whole.items():
        assert np.array_equal(seen[q][0], X) and np.array_equal(seen[q][1], y)
    assert sum(p.n_docs for p in parts) == pooled.n_docs


def test_a_query_split_over_two_files_is_one_query():
    c = toy_collection(6, seed=4)
    a, b = c.select_queries([0, 1, 2, 3, 4, 5]), c.select_queries([2])  # qid of query 2 again
    b = Collection(features=b.features + 1, labels=b.labels, offsets=b.offsets, qids=b.qids)
    parts = derive_partitions(Collection.concat([a, b]), seed=0)
    q = int(c.qids[2])
    holder = next(p for p in parts if q in p.qids)
    i = int(np.flatnonzero(holder.qids == q)[0])
    rows = slice(holder.offsets[i], holder.offsets[i + 1])
    n = c.query_sizes[2]
    assert holder.n_queries == len(set(holder.qids.tolist()))
    assert np.array_equal(holder.features[rows], np.concatenate([c.features[c.offsets[2]:c.offsets[3]],
                                                                 b.features]))
    assert rows.stop - rows.start == 2 * n


# -- files: vali optional, one file, errors -----------------------------------------------------
def test_vali_is_optional_the_partitions_depend_on_the_queries_only(tmp_path):
    pooled = toy_collection(30, seed=6)
    train, vali, test = (pooled.select_queries(np.arange(a, b)) for a, b in ((0, 18), (18, 24), (24, 30)))
    write_letor(fold_file(tmp_path / "three", 1, "train"), train)
    write_letor(fold_file(tmp_path / "three", 1, "vali"), vali)
    write_letor(fold_file(tmp_path / "three", 1, "test"), test)
    write_letor(fold_file(tmp_path / "two", 1, "train"), Collection.concat([train, vali]))
    write_letor(fold_file(tmp_path / "two", 1, "test"), test)
    write_letor(tmp_path / "one" / "all.txt", Collection.concat([test, vali, train]))
    results = []
    for root, file in ((tmp_path / "three", None), (tmp_path / "two", None), (tmp_path / "one", "all.txt")):
        lay = local_layout(root, file)
        results.append(derive_partitions(read_sources(lay.sources, n_features=8, max_grade=4), seed=11))
    for other in results[1:]:
        for x, y in zip(results[0], other):
            assert np.array_equal(x.qids, y.qids) and np.array_equal(x.offsets, y.offsets)
            assert np.array_equal(x.features, y.features) and np.array_equal(x.labels, y.labels)
    # and the train/test cut of the release is not kept: the deal mixes them
    test_ids = set(test.qids.tolist())
    assert all(not set(p.qids.tolist()) <= test_ids for p in results[0])


def test_a_malformed_file_is_named_with_its_line(tmp_path):
    good, bad = tmp_path / "train.txt", tmp_path / "test.txt"
    good.write_text("1 qid:1 1:0.5 2:1\n0 qid:1 1:0.1 2:0\n")
    bad.write_text("1 qid:2 1:0.5 2:1\n7 qid:2 1:0.5 2:1\n")
    with pytest.raises(LetorFormatError, match=r"test\.txt:2: .*label"):
        read_sources([good, bad], n_features=2, max_grade=4)


def test_files_of_different_widths_are_widened_without_n_features(tmp_path):
    (tmp_path / "a.txt").write_text("1 qid:1 1:0.5\n")
    (tmp_path / "b.txt").write_text("0 qid:2 1:0.5 3:2\n")
    c = read_sources([tmp_path / "a.txt", tmp_path / "b.txt"])
    assert c.n_features == 3 and c.features[0, 2] == 0 and c.features[1, 2] == 2


# -- the stage ----------------------------------------------------------------------------------
def test_the_derive_partitions_stage(tmp_path):
    from cli_run import evalrank

    pooled = toy_collection(12, seed=8)
    write_letor(tmp_path / "train.txt", pooled.select_queries(np.arange(8)))
    write_letor(tmp_path / "test.txt", pooled.select_queries(np.arange(8, 12)))
    outs = [tmp_path / f"S{k}.npz" for k in range(1, 6)]
    ran = evalrank("stage", "derive-partitions", "--inputs", tmp_path / "train.txt", tmp_path / "test.txt",
                   "--outputs", *outs, "--seed", 3, "--n-features", 8, "--max-grade", 4)
    assert ran.returncode == 0, ran.stderr
    for path, ids in zip(outs, deal_queries(pooled.qids, 3)):
        assert np.array_equal(Collection.load(path).qids, ids)
    (tmp_path / "test.txt").write_text("1 qid:99 1:0.5\n9 qid:99 1:0.5\n")
    ran = evalrank("stage", "derive-partitions", "--inputs", tmp_path / "train.txt", tmp_path / "test.txt",
                   "--outputs", *outs, "--seed", 3, "--n-features", 8, "--max-grade", 4)
    assert ran.returncode != 0 and "test.txt:2:" in ran.stderr and "Traceback" not in ran.stderr
    assert len(ran.stderr.strip().splitlines()) == 1
