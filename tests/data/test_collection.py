import numpy as np
import pytest

from evalrank.data.collection import Collection, segment_ids


def make(sizes=(3, 0, 2)):
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    n = int(offsets[-1])
    return Collection(
        features=np.arange(n * 2, dtype=np.float32).reshape(n, 2),
        labels=np.arange(n, dtype=np.int8) % 5,
        offsets=offsets,
        qids=np.array([10, 11, 12][: len(sizes)], dtype=np.int64),
        doc_ids=np.array([f"d{i}" for i in range(n)]),
    )


def test_select_and_concat_round_trip():
    c = make()
    sub = c.select_queries([2, 0])
    assert sub.qids.tolist() == [12, 10]
    assert sub.offsets.tolist() == [0, 2, 5]
    assert sub.doc_ids.tolist() == ["d3", "d4", "d0", "d1", "d2"]
    back = Collection.concat([sub.select_queries([1]), c.select_queries([1]), sub.select_queries([0])])
    for name in ("features", "labels", "offsets", "qids", "doc_ids"):
        np.testing.assert_array_equal(getattr(back, name), getattr(c, name))


def test_save_load(tmp_path):
    c = make()
    c.save(tmp_path / "c.npz")
    d = Collection.load(tmp_path / "c.npz")
    for name in ("features", "labels", "offsets", "qids", "doc_ids"):
        np.testing.assert_array_equal(getattr(d, name), getattr(c, name))


def test_segment_ids_and_sizes():
    c = make()
    assert segment_ids(c.offsets).tolist() == [0, 0, 0, 2, 2]
    assert c.query_sizes.tolist() == [3, 0, 2] and c.n_queries == 3 and c.n_docs == 5


@pytest.mark.parametrize(
    "change, match",
    [
        (dict(offsets=np.array([1, 3, 5])), r"offsets\[0\] must be 0"),
        (dict(offsets=np.array([0, 4, 3, 5])), "non-decreasing"),
        (dict(offsets=np.array([0, 3, 3, 6])), "number of documents"),
        (dict(qids=np.array([1])), "qids"),
        (dict(features=np.zeros((4, 2), np.float32)), "features"),
    ],
)
def test_validation_names_the_field(change, match):
    c = make()
    kw = dict(features=c.features, labels=c.labels, offsets=c.offsets, qids=c.qids)
    kw.update(change)
    with pytest.raises(ValueError, match=match):
        Collection(**kw)
