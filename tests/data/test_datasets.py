"""Dataset registry, Fold layout checks and the MSLR partition rotation."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from evalrank.data.datasets import (
    DATASETS,
    FOLD_ROTATION,
    DatasetSpec,
    fold_file,
    get_spec,
    known_datasets,
    missing_files,
    partition_file,
    require_layout,
)


def _make_layout(root: Path, folds=range(1, 6), splits=("train", "vali", "test")) -> None:
    for fold in folds:
        for split in splits:
            path = fold_file(root, fold, split)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("0 qid:1 1:0\n")


# ----------------------------------------------------------------------------- registry


def test_registry_contents():
    assert known_datasets() == ["local", "mq2008", "mslr-excerpt", "mslr-web10k", "mslr-web30k", "synthetic"]
    mq = get_spec("mq2008")
    assert (mq.kind, mq.archive, mq.n_features, mq.max_grade) == ("download", "MQ2008.rar", 46, 2)
    web30k = get_spec("mslr-web30k")
    assert web30k.kind == "download" and web30k.archive == "MSLR-WEB30K.zip"
    assert web30k.sha256 == "08cb7977e1d5cbdeb57a9a2537a0923dbca6d46a76db9a6afc69e043c85341ae"
    assert web30k.url.endswith("s!AtsMfWUz5l8nbXGPBlwD1rnFdBY/root/content")
    assert (web30k.n_features, web30k.max_grade, web30k.folds) == (136, 4, (1, 2, 3, 4, 5))
    assert web30k.splits == ("train", "vali", "test")
    assert web30k.homepage == "https://www.microsoft.com/en-us/research/project/mslr/"
    web10k = get_spec("MSLR-WEB10K")  # names are case-insensitive
    assert web10k.name == "mslr-web10k" and web10k.archive == "MSLR-WEB10K.zip"
    assert web10k.sha256 == "2902142ea33f18c59414f654212de5063033b707d5c3939556124b1120d3a0ba"
    synthetic = get_spec("synthetic")
    assert (synthetic.kind, synthetic.n_features, synthetic.max_grade) == ("synthetic", 136, 4)
    assert len(synthetic.folds) == 5


def test_unknown_name_lists_known():
    with pytest.raises(ValueError) as info:
        get_spec("yahoo-ltr")
    msg = str(info.value)
    assert "yahoo-ltr" in msg
    assert all(name in msg for name in DATASETS)


def test_overrides():
    spec = get_spec("mslr-web30k", url="https://mirror.example/w30k.zip", sha256=None, folds=[1, 2])
    assert spec.url == "https://mirror.example/w30k.zip" and spec.sha256 is None
    assert spec.folds == (1, 2)
    assert DATASETS["mslr-web30k"].url.startswith("https://api.onedrive.com")  # registry untouched
    assert get_spec("mslr-web10k", sha256="AB" * 32).sha256 == "ab" * 32
    local = get_spec("local", path="/data/letor", n_features=46, max_grade=2)
    assert (local.kind, local.path, local.n_features, local.max_grade) == ("local", "/data/letor", 46, 2)


@pytest.mark.parametrize(
    "overrides, exc, word",
    [
        ({"colour": "red"}, TypeError, "colour"),
        ({"kind": "local"}, ValueError, "kind"),
        ({"name": "x"}, ValueError, "name"),
        ({"n_features": 0}, ValueError, "n_features"),
        ({"n_features": 1.5}, TypeError, "n_features"),
        ({"max_grade": -1}, ValueError, "max_grade"),
        ({"sha256": "abc"}, ValueError, "sha256"),
        ({"folds": (0, 1)}, ValueError, "folds"),
        ({"folds": ()}, ValueError, "folds"),
        ({"splits": ("train", "../x")}, ValueError, "splits"),
        ({"archive": "sub/MSLR.zip"}, ValueError, "archive"),
        ({"url": None}, ValueError, "url"),
    ],
)
def test_bad_overrides(overrides, exc, word):
    with pytest.raises(exc, match=word):
        get_spec("mslr-web30k", **overrides)


def test_local_needs_features_and_grades():
    with pytest.raises(ValueError, match="n_features and max_grade"):
        get_spec("local", path="/x")
    with pytest.raises(ValueError, match="max_grade"):
        get_spec("local", n_features=10)


def test_spec_is_frozen():
    spec = get_spec("synthetic")
    with pytest.raises(AttributeError):
        spec.n_features = 3
    with pytest.raises(ValueError, match="kind"):
        DatasetSpec(name="x", kind="ftp")
    with pytest.raises(TypeError):
        get_spec(30)


# ----------------------------------------------------------------------------- layout


def test_fold_file():
    assert fold_file("/data", 3, "vali") == Path("/data/Fold3/vali.txt")
    with pytest.raises(ValueError, match="fold"):
        fold_file("/data", 0, "train")
    with pytest.raises(ValueError, match="split"):
        fold_file("/data", 1, "../train")


def test_missing_files_and_require_layout(tmp_path):
    spec = get_spec("mslr-web30k")
    assert len(missing_files(tmp_path, spec)) == 15
    _make_layout(tmp_path)
    assert missing_files(tmp_path, spec) == []
    assert require_layout(tmp_path, spec) == tmp_path
    fold_file(tmp_path, 4, "vali").unlink()
    assert missing_files(tmp_path, spec) == [tmp_path / "Fold4" / "vali.txt"]


def test_missing_download_layout_message(tmp_path):
    spec = get_spec("mslr-web30k")
    root = tmp_path / "mslr"
    _make_layout(root, folds=(1, 2, 3, 5))
    with pytest.raises(FileNotFoundError) as info:
        require_layout(root, spec)
    msg = str(info.value)
    assert "3 of 15 files missing" in msg
    for split in ("train", "vali", "test"):
        assert str(root / "Fold4" / f"{split}.txt") in msg
    assert "Fold1" not in msg.replace("Fold1..", "")
    assert "snakemake --configfile config/paper.yaml" in msg
    assert spec.url in msg and spec.homepage in msg
    assert f"place it at {(root / 'MSLR-WEB30K.zip').absolute()}" in msg
    assert "the workflow extracts it" in msg


def test_message_mentions_present_archive(tmp_path):
    (tmp_path / "MSLR-WEB10K.zip").write_bytes(b"zip")
    with pytest.raises(FileNotFoundError, match="already there"):
        require_layout(tmp_path, get_spec("mslr-web10k"))


def test_missing_local_layout_message(tmp_path):
    spec = get_spec("local", n_features=46, max_grade=2)
    with pytest.raises(FileNotFoundError) as info:
        require_layout(tmp_path / "nope", spec)
    msg = str(info.value)
    assert "does not exist" in msg and "15 of 15" in msg
    assert "point dataset.root at a folder with Fold1..Fold5/{train,vali,test}.txt" in msg


def test_missing_synthetic_layout_message(tmp_path):
    with pytest.raises(FileNotFoundError, match="generated by the workflow"):
        require_layout(tmp_path, get_spec("synthetic"))


# ----------------------------------------------------------------------------- rotation


def test_rotation_each_partition_once_test_once_vali_thrice_train():
    assert sorted(FOLD_ROTATION) == [1, 2, 3, 4, 5]
    counts = {split: Counter() for split in ("train", "vali", "test")}
    for fold, splits in FOLD_ROTATION.items():
        assert set(splits) == {"train", "vali", "test"}
        parts = splits["train"] + splits["vali"] + splits["test"]
        assert sorted(parts) == [1, 2, 3, 4, 5]  # a fold uses every partition once
        for split, ks in splits.items():
            counts[split].update(ks)
    assert counts["test"] == Counter({k: 1 for k in range(1, 6)})
    assert counts["vali"] == Counter({k: 1 for k in range(1, 6)})
    assert counts["train"] == Counter({k: 3 for k in range(1, 6)})


def test_rotation_matches_mslr_table():
    assert FOLD_ROTATION[1] == {"train": (1, 2, 3), "vali": (4,), "test": (5,)}
    for fold in range(1, 6):  # every fold shifts Fold1 by fold - 1
        shift = lambda ks: tuple((k - 1 + fold - 1) % 5 + 1 for k in ks)  # noqa: E731
        assert FOLD_ROTATION[fold] == {s: shift(ks) for s, ks in FOLD_ROTATION[1].items()}


def test_partition_file():
    expected = {5: 1, 1: 2, 2: 3, 3: 4, 4: 5}
    for k, fold in expected.items():
        assert partition_file("/d", k) == Path(f"/d/Fold{fold}/test.txt")
        assert FOLD_ROTATION[fold]["test"] == (k,)
    with pytest.raises(ValueError, match="1..5"):
        partition_file("/d", 6)
    with pytest.raises(TypeError):
        partition_file("/d", "1")
