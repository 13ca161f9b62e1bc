import errno
import hashlib
import io as _io
import os
import stat
import threading

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
    io.atomic_write_text(tmp_path / "m.txt", "x")
    mask = os.umask(0)
    os.umask(mask)
    assert (tmp_path / "m.txt").stat().st_mode & 0o777 == 0o666 & ~mask


# ---------------------------------------------------------------------------
# issue 28 item 6: where the output is not a regular file
# ---------------------------------------------------------------------------
def _reader(path):
    """Read ``path`` (a FIFO, a pipe) in a thread; ``got`` holds the bytes once it is joined."""
    got = []

    def read():
        with open(path, "rb") as fh:
            got.append(fh.read())
    t = threading.Thread(target=read, daemon=True)
    t.start()
    return t, got


WRITERS = {
    "atomic_write_text": lambda p: io.atomic_write_text(p, "m\tall\t0.5\n"),
    "write_table": lambda p: io.write_table(pd.DataFrame({"m": ["a"], "v": [0.5]}), p),
    "write_json": lambda p: io.write_json(p, {"a": 1}),
    "save_arrays": lambda p: io.save_arrays(p, a=np.arange(3)),
}


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_fifo_is_written_through_and_stays_a_fifo(tmp_path, writer):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    t, got = _reader(fifo)
    regular = tmp_path / "regular"
    WRITERS[writer](regular)
    WRITERS[writer](fifo)
    t.join(10)
    assert not t.is_alive(), "nothing reached the FIFO's reader"
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    if writer == "save_arrays":  # streamed: the same arrays, the zip's headers written once
        with np.load(_io.BytesIO(got[0])) as z:
            np.testing.assert_array_equal(z["a"], np.arange(3))
    else:
        assert got[0] == regular.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.fifo", "regular"]  # no temporary file left


def test_a_symlink_stays_a_symlink_and_its_target_is_replaced(tmp_path):
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "table.txt"
    target.write_text("old")
    target.chmod(0o640)
    link = tmp_path / "out.txt"
    link.symlink_to(os.path.join("real", "table.txt"))
    io.atomic_write_text(link, "new\n")
    assert link.is_symlink() and os.readlink(link) == os.path.join("real", "table.txt")
    assert target.read_text() == "new\n" and stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(p.name for p in (tmp_path / "real").iterdir()) == ["table.txt"]
    dangling = tmp_path / "dangling.txt"
    dangling.symlink_to("made.txt")
    io.write_table(pd.DataFrame({"v": [1]}), dangling)
    assert dangling.is_symlink() and (tmp_path / "made.txt").read_text() == "v\n1\n"


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_dev_null_is_written_through(no_replace, writer):
    WRITERS[writer]("/dev/null")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_a_full_device_says_so_and_stays_a_device(no_replace):
    """/dev/full through the write-through path only (no_replace fails the test before any
    rename could replace it): the error is ENOSPC naming /dev/full."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    with pytest.raises(OSError) as e:
        io.atomic_write_text("/dev/full", "x" * 100_000)
    assert e.value.errno == errno.ENOSPC and e.value.filename == "/dev/full"
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_a_pipe_named_in_dev_fd_is_written_through(no_replace):
    """/dev/fd/N (a shell's >(...), and what /dev/stdout leads to) is a link into /proc that
    names an open file: written through, never replaced."""
    if not os.path.isdir("/dev/fd"):
        pytest.skip("no /dev/fd here")
    r, w = os.pipe()
    t, got = _reader(f"/dev/fd/{r}")
    try:
        io.atomic_write_text(f"/dev/fd/{w}", "through the pipe\n")
    finally:
        os.close(w)
    t.join(10)
    os.close(r)
    assert got == [b"through the pipe\n"]


def test_a_full_disk_names_the_output_not_the_temporary_file(tmp_path):
    """An OS error while writing the temporary file (a full disk) names the path given, leaves
    the old file whole and no temporary file behind."""
    target = tmp_path / "out.txt"
    target.write_text("old")
    with pytest.raises(OSError) as e:
        with io.atomic_path(target) as tmp:
            tmp.write_text("half")
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    assert e.value.errno == errno.ENOSPC and e.value.filename == str(target)
    assert target.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_an_existing_file_keeps_its_mode(tmp_path):
    target = tmp_path / "private.txt"
    target.write_text("old")
    target.chmod(0o600)
    io.atomic_write_text(target, "new")
    assert target.read_text() == "new" and stat.S_IMODE(target.stat().st_mode) == 0o600


def test_a_directory_or_a_file_as_parent_is_named(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(IsADirectoryError) as e:
        io.atomic_write_text(tmp_path, "x")
    assert e.value.filename == str(tmp_path)
    with pytest.raises(NotADirectoryError) as e:
        io.write_table(pd.DataFrame({"v": [1]}), tmp_path / "file" / "t.csv")
    assert e.value.filename == str(tmp_path / "file" / "t.csv")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


def test_an_archive_without_an_array_is_named_with_what_it_holds(tmp_path):
    """Issue 49: 'evalrank stage split: error: missing 'features'' named no file."""
    from cli_run import evalrank

    p = tmp_path / "S1.npz"
    io.save_arrays(p, labels=np.zeros(3, np.int8), offsets=np.array([0, 3]), qids=np.array([1]))
    a = io.load_arrays(p)
    assert a.get("doc_ids") is None and "labels" in a
    with pytest.raises(io.MissingArrayError, match=r"S1\.npz has no array 'features' \(it holds labels, offsets, qids\)"):
        a["features"]
    out = evalrank("stage", "split", "--partition", p, "--train", tmp_path / "t.npz", "--seed", "1")
    assert out.returncode == 1 and out.stderr.count("\n") == 1, out.stderr
    assert f"{p} has no array 'features'" in out.stderr and not (tmp_path / "t.npz").exists()


def test_a_lone_npy_array_under_an_npz_name_is_a_damaged_file(tmp_path):
    p = tmp_path / "x.npz"
    with open(p, "wb") as fh:
        np.save(fh, np.zeros(3))
    with pytest.raises(io.DamagedFileError, match=r"x\.npz is damaged or not an \.npz archive .*one \.npy array"):
        io.load_arrays(p)
