"""The command line's start-up (issue 28, item 4): ``evalrank evaluate`` and ``compare`` build
only their own module's parsers (evalrank.cli.FAST), which must be the whole parser's. That a
small ``evaluate`` imports no numba, scipy or pandas is tests/test_jit.py's. A stage command
imports what its work uses: the zoo imports the learner it is asked for, ``ndcg-train`` and
``theory-sample`` import no learner, pandas or scikit-learn they do not use (checked on real
stage runs in fresh interpreters)."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from evalrank.cli import FAST, build_parser, main
from evalrank.models import zoo


def _commands(parser) -> dict:
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices


@pytest.mark.parametrize("command", sorted(FAST))
def test_a_fast_command_is_the_whole_parsers_command(command):
    whole = _commands(build_parser())[command]
    fast = _commands(build_parser(command))[command]
    assert whole.get_default("func").__module__ == FAST[command]
    assert fast.format_help() == whole.format_help()
    assert fast.get_default("func") is whole.get_default("func")


@pytest.mark.parametrize("argv", [["evaluate", "--no-such-option", "q", "r"], ["evaluate"], ["compare", "q"]])
def test_a_fast_commands_errors_are_the_whole_parsers(argv):
    def stderr_of(parser):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), pytest.raises(SystemExit) as e:
            parser.parse_args(argv)
        return e.value.code, err.getvalue()

    fast, whole = stderr_of(build_parser(argv[0])), stderr_of(build_parser())
    assert fast == whole and fast[0] == 2 and "error:" in fast[1]


def test_main_takes_the_fast_path_only_for_fast_commands(monkeypatch):
    seen = []
    real = build_parser

    def spy(command=None):
        seen.append(command)
        return real(command)

    monkeypatch.setattr("evalrank.cli.build_parser", spy)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        for argv in (["evaluate", "--help"], ["--help"], ["validate-config", "--help"]):
            with pytest.raises(SystemExit):
                main(argv)
    assert seen == ["evaluate", "--help", "validate-config"]


# -- what a stage command imports (each pipeline job is one `python -m evalrank stage ...` process) --
ROOT = Path(__file__).resolve().parents[1]
#: every learner module of the zoo, and the modules only some of them use
LEARNERS = {spec.split(":")[0] for spec in zoo._CLASSES.values()} | {"evalrank.models.calibrate",
                                                                     "evalrank.models.pairs"}


def _imported_by(code: str) -> set[str]:
    """The modules a fresh interpreter has after running ``code`` (a stage's work included)."""
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys, json\nprint(json.dumps(sorted(sys.modules)))"],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-3000:]
    return set(json.loads(out.stdout.splitlines()[-1]))


def test_the_zoo_imports_a_learner_only_when_one_is_asked_for():
    """Naming, listing and trusting the zoo's models imports no learner; make_model imports the
    one asked for (and what it builds on), not the other eleven with their numba kernels."""
    mods = _imported_by("from evalrank.models import zoo\n"
                        "assert list(zoo.MODELS)[0] == 'rf' and 'afs' in zoo.MODELS and 'x' not in zoo.MODELS\n"
                        "zoo.trusted_types(); zoo.default_grids()\n")
    assert mods & LEARNERS == set()
    mods = _imported_by("from evalrank.models import zoo\nzoo.make_model('lambdamart')\n")
    assert mods & LEARNERS == {"evalrank.models.lambdamart"}
    assert not mods & {"numba", "scipy", "sklearn", "pandas", "lightgbm"}  # LightGBM: when it fits
    mods = _imported_by("from evalrank.models import zoo\nzoo.make_model('afs')\n")
    assert mods & LEARNERS == {"evalrank.models.afs", "evalrank.models.coordinate_ascent"}


def test_trusted_types_are_the_classes_names():
    """trusted_types() names the classes without importing them: the names are the classes'."""
    from evalrank.models import FeatureTransform
    from evalrank.models.calibrate import GradeCalibrator

    classes = [*zoo.MODELS.values(), FeatureTransform, GradeCalibrator]
    assert set(zoo.trusted_types()) == {f"{c.__module__}.{c.__qualname__}" for c in classes} | set(zoo.LIBRARY_TYPES)
    assert [zoo.MODELS[n].name for n in zoo.MODELS] == list(zoo.MODELS)  # each name gives its own class


#: the score learners' grade calibrator (and what it builds on): not fitted by ndcg-train, which keeps scores only
CALIBRATOR = {"evalrank.models.calibrate", "evalrank.models.ordered_logit"}


def _partitions(d: Path) -> list[Path]:
    """Five small LETOR partitions S1..S5 (random features and grades; 8 queries of 12 documents)."""
    from evalrank.data.collection import Collection

    rng = np.random.default_rng(5)
    files = []
    for k in range(1, 6):
        offsets = np.arange(0, 12 * 9, 12, dtype=np.int64)
        c = Collection(features=rng.random((offsets[-1], 6)).astype(np.float32),
                       labels=rng.integers(0, 5, offsets[-1]).astype(np.int8), offsets=offsets,
                       qids=np.arange(8, dtype=np.int64) + 100 * k)
        files.append(d / f"S{k}.npz")
        c.save(files[-1])
    return files


@pytest.mark.parametrize("learner, own, absent", [
    ("rankboost", {"evalrank.models.rankboost", "evalrank.models.pairs", "evalrank.models.ranksvm"},
     {"lightgbm", "matplotlib", "skops", "mord", "sklearn", "scipy.stats", *CALIBRATOR}),
    ("lambdamart", {"evalrank.models.lambdamart"}, {"matplotlib", "skops", "mord", *CALIBRATOR}),
])
def test_ndcg_train_imports_its_learner_only(tmp_path, learner, own, absent):
    """`stage ndcg-train` (one job per fold; before, 84 of make run's 250 jobs) imports the
    learner it trains and no other
    (before: every learner of the zoo, numba and scipy.special with them), and nothing a
    learner without LightGBM does not use. The study keeps test scores only, so it fits no grade
    calibrator (fit(calibrate=False)): no mord, and so no scikit-learn or scipy.stats, for a
    learner that does not need them (LightGBM imports scikit-learn itself)."""
    files = _partitions(tmp_path)
    argv = ["stage", "ndcg-train", "--partitions", *map(str, files), "--fold", "1", "--learner", learner,
            "--convention", "ranklib", "--grid", "{}", "--params", "{}", "--seed", "3", "--threads", "1",
            "--output", str(tmp_path / "run.npz")]
    mods = _imported_by(f"from evalrank.cli import main\nassert main({argv!r}) == 0\n")
    assert (tmp_path / "run.npz").exists()
    assert mods & LEARNERS == own
    assert not mods & absent, sorted(mods & absent)


def test_theory_sample_imports_no_pandas(tmp_path):
    """`stage theory-sample` (9 jobs of make run) draws NDCG samples: no pandas, no plots."""
    from evalrank.config import load_config

    theory = load_config(ROOT / "tests" / "workflow" / "tiny.yaml")["wang2013"]
    params = {k: theory[k] for k in ("population", "scorers", "measures", "pairs")}  # common.smk's THEORY_PARAMS
    argv = ["stage", "theory-sample", "--params", json.dumps(params), "--n", "10", "--repetitions", "20",
            "--block", "10", "--seed", "3", "--output", str(tmp_path / "s.npz")]
    mods = _imported_by(f"from evalrank.cli import main\nassert main({argv!r}) == 0\n")
    assert (tmp_path / "s.npz").exists()
    assert not mods & {"pandas", "matplotlib", "sklearn", "lightgbm", "scipy.stats"}, sorted(mods)


@pytest.mark.parametrize("columns", [None, "123", "7", "0", "-5", "wide"])
def test_help_width_is_shutils_without_importing_it(monkeypatch, columns):
    """The help formatter's width (evalrank.cli.common._terminal_width) is what argparse would take
    from shutil.get_terminal_size(), $COLUMNS set or not, valid or not; the formatter no longer
    imports shutil to get it (2.6 ms of a small evaluate)."""
    import shutil

    from evalrank.cli.common import HelpFormatter, _terminal_width

    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert _terminal_width() == shutil.get_terminal_size().columns
    assert HelpFormatter("evalrank")._width == argparse.HelpFormatter("evalrank")._width
    code = "import sys; from evalrank.cli.common import HelpFormatter; HelpFormatter('x'); print('shutil' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip() == "False"
