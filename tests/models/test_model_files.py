"""Model files cannot run code when loaded (issue 29, item 6): evalrank.models.zoo writes skops
files and reads them as data, refusing a pickle and any type that is not the zoo's before
anything is built; `active plan --model` says so in one line."""

from __future__ import annotations

import os
import pickle
import zipfile

import numpy as np
import pytest
from cli_run import evalrank
from toy_data import toy_collection

from evalrank.models import zoo


class _Hostile:
    """Unpickling this object runs ``exec``: it writes the marker file."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return exec, (f"open({self.marker!r}, 'w').write('ran')",)


@pytest.fixture(scope="module")
def fitted():
    train, vali, _ = (toy_collection(12, s) for s in (1, 2, 3))
    return zoo.make_model("ordered_logit").fit(train, vali, grid={}, seed=0)


def test_a_saved_model_is_a_skops_file_that_loads_identically(fitted, tmp_path):
    path = tmp_path / "m.pkl"
    zoo.save_model(fitted, path)
    assert zipfile.is_zipfile(path) and "schema.json" in zipfile.ZipFile(path).namelist()
    back = zoo.load_model(path)
    X = toy_collection(5, 9).features
    assert np.array_equal(back.score(X), fitted.score(X)) and np.array_equal(back.predict_proba(X),
                                                                             fitted.predict_proba(X))


@pytest.mark.parametrize("compress", [None, 3])
def test_a_pickle_is_refused_without_running_it(tmp_path, compress):
    import joblib

    marker, path = tmp_path / "ran", tmp_path / "model.pkl"
    if compress is None:
        path.write_bytes(pickle.dumps(_Hostile(marker)))
    else:  # the .pkl files of evalrank before skops: joblib, zlib-compressed
        joblib.dump(_Hostile(marker), path, compress=compress)
    with pytest.raises(ValueError, match=r"model\.pkl is not a model file of evalrank.*pickle.*runs the file's code"):
        zoo.load_model(path)
    assert not marker.exists()
    # the pickle does run when unpickled: the test would see it
    if compress is None:
        pickle.loads(path.read_bytes())
        assert marker.exists()


def test_a_skops_file_with_a_type_outside_the_zoo_is_refused_naming_it(fitted, tmp_path):
    import skops.io as sio

    fitted_with_hook = zoo.make_model("ordered_logit")
    fitted_with_hook.__dict__.update(fitted.__dict__, hook=os.system)
    path = tmp_path / "evil.pkl"
    sio.dump(fitted_with_hook, path)
    with pytest.raises(ValueError, match=r"evil\.pkl: refused: .*\b(posix|os)\.system\b"):
        zoo.load_model(path)
    path.write_bytes(sio.dumps({"a": np.arange(3)}))  # only trusted types, but not a model
    with pytest.raises(TypeError, match="does not hold an evalrank RankingModel"):
        zoo.load_model(path)


def test_a_damaged_file_is_refused(fitted, tmp_path):
    path = tmp_path / "m.pkl"
    zoo.save_model(fitted, path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match=r"m\.pkl is not (a model file|a readable skops model file)"):
        zoo.load_model(path)
    with zipfile.ZipFile(path, "w") as z:  # a zip without skops' schema
        z.writestr("x.txt", "hello")
    with pytest.raises(ValueError, match=r"m\.pkl is not a readable skops model file"):
        zoo.load_model(path)


def test_every_type_of_the_zoo_is_trusted():
    names = zoo.trusted_types()
    for cls in zoo.MODELS.values():
        assert f"{cls.__module__}.{cls.__qualname__}" in names
    assert not [n for n in names if n.startswith(("builtins.", "os.", "posix.", "subprocess."))]


def test_active_plan_refuses_a_hostile_model_in_one_line(tmp_path):
    marker = tmp_path / "ran"
    (tmp_path / "m.pkl").write_bytes(pickle.dumps(_Hostile(marker)))
    (tmp_path / "run").write_text("q1 Q0 d1 1 1.0 r\n")
    (tmp_path / "x.letor").write_text("0 qid:1 1:0.5 # docid = d1\n")
    out = evalrank("active", "plan", "--run", tmp_path / "run", "--letor", tmp_path / "x.letor", "--model",
                   tmp_path / "m.pkl", "--budget", "1", "--out", tmp_path / "plan.tsv")
    errors = [line for line in out.stderr.splitlines() if "error" in line.lower()]   # (and the reader's bar)
    assert out.returncode == 1 and "Traceback" not in out.stderr and len(errors) == 1, out.stderr
    assert errors[0].startswith("evalrank active plan: error: ") and "runs the file's code" in errors[0]
    assert not marker.exists()


def test_model_help_says_the_file_runs_no_code():
    out = evalrank("active", "plan", "--help")
    text = " ".join(out.stdout.split())
    assert "a type that is not the zoo's is refused, so it runs no code" in text
