"""The product core installs alone (issue 29, item 2): `pip install evalrank` runs `evaluate`,
`compare`, `active plan` and `active estimate` as the README shows them without scikit-learn,
LightGBM, mord, skops, matplotlib or Snakemake (the `models` and `repro` extras), and a command
that needs a missing extra says which in one line.

The fast tests run here, in the full environment, and check the imports; the slow one makes a
fresh venv with `pip install <repo>` (pip's cache reused) and runs the README's commands in it."""

from __future__ import annotations

import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_run import evalrank
from toy_data import write_campaign_files

ROOT = Path(__file__).resolve().parents[1]
#: the modules only the extras install (evalrank.extras.EXTRA_OF)
EXTRA_MODULES = ("sklearn", "lightgbm", "mord", "skops", "joblib", "threadpoolctl", "matplotlib", "snakemake")
#: the distributions a core install must not have
NOT_IN_CORE = {"scikit-learn", "lightgbm", "mord", "skops", "matplotlib", "snakemake"}
#: the README's example commands of the product core
README_COMMANDS = re.compile(r"^evalrank (evaluate|compare|active plan|active estimate) ")


def readme_commands() -> list[str]:
    """The README's `evalrank evaluate|compare|active plan|active estimate` lines of its bash blocks,
    in order, without their trailing comments."""
    text = (ROOT / "README.md").read_text()
    lines = []
    for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S):
        for line in block.splitlines():
            if README_COMMANDS.match(line):
                lines.append(line.split("  #")[0].strip())
    return lines


def readme_files(d: Path) -> Path:
    """The files the README's commands name, from a 120-topic labelling campaign (tests/toy_data):
    qrels.txt = labels.qrels, run.txt, bm25.txt, runs/*.txt, probs.txt, costs.txt."""
    write_campaign_files(d, 5, n_topics=120)
    (d / "runs").mkdir()
    for src, dst in [("qrels", "qrels.txt"), ("qrels", "labels.qrels"), ("run", "run.txt"), ("runb", "bm25.txt"),
                     ("run", "runs/a.txt"), ("runb", "runs/b.txt"), ("probs", "probs.txt"), ("costs", "costs.txt")]:
        shutil.copyfile(d / src, d / dst)
    (d / "letor.txt").write_text("".join(f"0 qid:{i} 1:0.5 # docid = D{i}-0\n" for i in range(3)))
    return d


def test_the_readme_shows_the_core_commands():
    got = [" ".join(c.split()[:3]) for c in readme_commands()]
    for want in ("evalrank evaluate -m", "evalrank compare --baseline", "evalrank active plan", "evalrank active estimate"):
        assert any(g.startswith(want) for g in got), (want, got)


def test_core_modules_import_no_extra():
    """Every module outside evalrank.papers, and every command's parser (the papers' stage
    modules included), imported in a fresh interpreter: no module of an extra comes with them."""
    code = ("import importlib, pkgutil, sys, evalrank\n"
            "for m in pkgutil.walk_packages(evalrank.__path__, 'evalrank.'):\n"
            "    if not m.name.startswith(('evalrank.papers', 'evalrank.__main__')):\n"
            "        importlib.import_module(m.name)\n"
            "from evalrank.cli import build_parser\n"
            "build_parser()\n"
            f"print(sorted(m for m in {EXTRA_MODULES!r} if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_the_readme_commands_import_no_extra(tmp_path):
    """The README's evaluate/compare/active commands, run by evalrank.cli.main in a fresh
    interpreter, succeed without importing a module of an extra."""
    d = readme_files(tmp_path)
    argvs = [[a for word in shlex.split(c)[1:] for a in (sorted(glob.glob(word, root_dir=d)) if "*" in word
                                                        else [word])] for c in readme_commands()]
    code = ("import json, sys\n"
            "from evalrank.cli import main\n"
            f"rcs = [main(argv) for argv in {argvs!r}]\n"
            f"print(json.dumps([rcs, sorted(m for m in {EXTRA_MODULES!r} if m in sys.modules)]), file=sys.stderr)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=d,
                         env={**os.environ, "EVALRANK_PROGRESS": "0"})
    assert out.returncode == 0, out.stderr
    rcs, extras = json.loads(out.stderr.strip().splitlines()[-1])
    assert rcs == [0] * len(argvs) and extras == [], out.stderr
    assert (d / "plan2.tsv").exists()


def test_a_missing_extra_is_one_line_naming_it(tmp_path, monkeypatch):
    import importlib.util

    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name in ("sklearn", "mord")
                        else find_spec(name, *a))
    d = readme_files(tmp_path)
    for option, extra_args in [("--calibrate-from", ["--calibrate-from", d / "labels.qrels"]),
                               ("--model", ["--letor", d / "letor.txt", "--model", d / "m.pkl"])]:
        out = evalrank("active", "plan", "--run", d / "run.txt", *extra_args, "--budget", "5", "--out", d / "p.tsv")
        assert out.returncode == 1 and out.stderr.strip().splitlines() == [
            f"evalrank active plan: error: {option} needs scikit-learn, mord: pip install 'evalrank[models]'"], out.stderr


def test_an_extras_module_missing_anywhere_is_named_with_its_extra(tmp_path):
    """Any command that reaches a module of an extra that is not installed (here matplotlib,
    hidden from the interpreter) ends with one line naming the extra."""
    d = readme_files(tmp_path)
    code = ("import sys\n"
            "sys.modules.update({'matplotlib': None, 'matplotlib.pyplot': None})\n"
            "from evalrank.cli import main\n"
            "sys.exit(main(['risk', 'qrels.txt', 'runs', '--baseline', 'a.txt', "
            "'--out-dir', 'risk']))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=d,
                         env={**os.environ, "EVALRANK_PROGRESS": "0"})
    assert out.returncode == 1 and out.stderr.strip().splitlines()[-1] == (
        "evalrank risk: error: this needs matplotlib, which is not installed: pip install 'evalrank[repro]'"), out.stderr
    assert "Traceback" not in out.stderr


# -- the real thing: a fresh venv, pip install <repo> ------------------------------------------
def _run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


@pytest.mark.slow
def test_pip_install_of_the_repository_is_the_lean_core(tmp_path):
    """A fresh venv, `pip install <repo>` (non-editable, pip's cache reused): pip list has no
    learner, plotting or Snakemake; the README's commands run; `evalrank --help` and `evalrank
    stage --help` work; a command that needs the models extra says so in one line."""
    venv = tmp_path / "venv"
    # no pip in the venv (ensurepip's install of pip cost 7 of the test's 78 CPU-s): this session's
    # pip installs into it and lists it through --python, running in the venv's interpreter
    made = _run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    if made.returncode != 0:
        pytest.skip(f"python -m venv fails here: {made.stderr.strip()[-300:]}")
    pip = [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "--disable-pip-version-check"]
    probe = _run([*pip, "install", "--dry-run", "--no-deps", "numpy"], timeout=300)
    if probe.returncode != 0:
        pytest.skip(f"no package index reachable: {probe.stderr.strip()[-300:]}")
    # the project as pip sees it, copied so that the build leaves the working tree alone
    src = tmp_path / "evalrank-src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copyfile(ROOT / name, src / name)
    shutil.copytree(ROOT / "src", src / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    # --no-compile: no .pyc for every module of numpy, scipy, pandas and numba (CPU the test does not
    # need; the commands below compile what they import)
    installed = _run([*pip, "install", "--quiet", "--no-compile", str(src)], timeout=900)
    assert installed.returncode == 0, installed.stderr[-3000:]
    listed = _run([*pip, "list", "--format=json"])
    names = {p["name"].lower().replace("_", "-") for p in json.loads(listed.stdout)}
    assert "evalrank" in names and not names & NOT_IN_CORE, sorted(names & NOT_IN_CORE)

    (tmp_path / "work").mkdir()
    d = readme_files(tmp_path / "work")
    env = {**os.environ, "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}", "EVALRANK_PROGRESS": "0"}
    env.pop("PYTHONPATH", None)
    # the venv's modules have no .pyc (--no-compile): the first command writes those it imports and
    # the rest load them; with PYTHONDONTWRITEBYTECODE set (as on some machines) each of the 12
    # commands compiled numpy's, scipy's, pandas' and numba's sources again (~2.7 CPU-s each)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    outs = {}
    for line in ["evalrank --help", "evalrank stage --help", *readme_commands()]:
        outs[line] = out = _run(["bash", "-c", line], cwd=d, env=env)
        assert out.returncode == 0, (line, out.stderr[-2000:])
    # the README's estimate of the continued plan prints its JSON (its own run above, not a rerun)
    est = outs["evalrank active estimate --plan plan2.tsv --qrels labels.qrels --run run.txt"]
    assert json.loads(est.stdout)["labelled_queries"] > 0, est.stderr
    for options, message in [
            ("--calibrate-from labels.qrels", "--calibrate-from needs scikit-learn, mord, threadpoolctl"),
            ("--letor letor.txt --model m.pkl", "--model needs scikit-learn, lightgbm, mord, skops, joblib, threadpoolctl")]:
        out = _run(["bash", "-c", f"evalrank active plan --run run.txt {options} --budget 5 --out p.tsv"], cwd=d, env=env)
        assert out.returncode == 1 and out.stderr.strip().splitlines() == [
            f"evalrank active plan: error: {message}: pip install 'evalrank[models]'"], out.stderr
