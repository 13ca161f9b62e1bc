import hashlib

import numpy as np
import pandas as pd
import pytest

from evalrank import io


def test_save_arrays_is_byte_reproducible(tmp_path):
    arrays = dict(b=np.arange(5, dtype=np.int64), a=np.linspace(0, 1, 7), s=np.array(["x", "yy"]))
    io.save_arrays(tmp_path / "one.npz", **arrays)
    io.save_arrays(tmp_path / "two.npz", **arrays)
    h = [hashlib.sha256((tmp_path / f).read_bytes()).hexdigest() for f in ("one.npz", "two.npz")]
    assert h[0] == h[1]
    back = io.load_arrays(tmp_path / "one.npz")
    assert set(back) == set(arrays)
    for k in arrays:
        np.testing.assert_array_equal(back[k], arrays[k])
    # readable by numpy's own loader too
    with np.load(tmp_path / "one.npz") as z:
        np.testing.assert_array_equal(z["a"], arrays["a"])


def test_object_arrays_refused(tmp_path):
    with pytest.raises(TypeError, match="dtype object"):
        io.save_arrays(tmp_path / "x.npz", bad=np.array([1, "a", None], dtype=object))


def test_atomic_path_leaves_target_untouched_on_failure(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old")
    with pytest.raises(RuntimeError):
        with io.atomic_path(target) as tmp:
            tmp.write_text("half-written")
            raise RuntimeError("interrupted")
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_write_table_fixed_format(tmp_path):
    df = pd.DataFrame({"m": ["a", "b"], "v": [1 / 3, 2.0]})
    io.write_table(df, tmp_path / "t.csv")
    assert (tmp_path / "t.csv").read_text() == "m,v\na,0.333333\nb,2\n"


def test_load_missing_file_message(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        io.load_arrays(tmp_path / "missing.npz")


def test_atomic_files_get_umask_mode(tmp_path):
    import os

    io.atomic_write_text(tmp_path / "m.txt", "x")
    mask = os.umask(0)
    os.umask(mask)
    assert (tmp_path / "m.txt").stat().st_mode & 0o777 == 0o666 & ~mask
