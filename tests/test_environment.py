"""environment.yml must mirror pyproject.toml: the core dependencies and the extras `make install`
installs (repro -- which names models -- test and peers), and the Makefile installs those extras."""

import re
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
#: the extras of make install (the Makefile's pip line) and of environment.yml
INSTALLED = ("repro", "test", "peers")


def norm(req: str) -> str:
    name, spec = re.match(r"^\s*([A-Za-z0-9_.\-\[\]]+)\s*(.*)$", req).groups()
    return re.sub(r"[-_.]+", "-", name.lower()) + spec.replace(" ", "")


def expand(extras: dict, names) -> set[str]:
    """The requirements of ``names``, an extra's 'evalrank[other]' replaced by other's."""
    out = set()
    for name in names:
        for req in extras[name]:
            own = re.fullmatch(r"evalrank\[([a-z,]+)\]", req.replace(" ", ""))
            out |= expand(extras, own.group(1).split(",")) if own else {norm(req)}
    return out


def test_environment_matches_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    wanted = set(map(norm, project["dependencies"])) | expand(extras, INSTALLED)
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict) and "pip" in d)
    got = {norm(r) for r in pip if not r.startswith("-e")}
    assert got == wanted, f"only in pyproject: {wanted - got}; only in environment.yml: {got - wanted}"
    assert "-e ." in pip
    py = next(d for d in env["dependencies"] if isinstance(d, str) and d.startswith("python"))
    assert py.replace("python", "") == project["requires-python"]


def test_make_install_installs_the_pipelines_extras():
    line = next(ln for ln in (ROOT / "Makefile").read_text().splitlines() if "pip install" in ln)
    assert re.search(r"-e '\.\[([a-z,]+)\]'", line).group(1).split(",") == list(INSTALLED)


def test_the_core_leaves_the_learners_plotting_and_snakemake_to_the_extras():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    core = {re.split(r"[<>=!\[ ]", r)[0].lower() for r in project["dependencies"]}
    assert not core & {"scikit-learn", "lightgbm", "mord", "matplotlib", "snakemake", "skops"}, core
    extras = project["optional-dependencies"]
    models = {re.split(r"[<>=!\[ ]", r)[0].lower() for r in expand(extras, ["models"])}
    assert {"scikit-learn", "lightgbm", "mord", "skops"} <= models
    repro = {re.split(r"[<>=!\[ ]", r)[0].lower() for r in expand(extras, ["repro"])}
    assert models <= repro and {"matplotlib", "snakemake"} <= repro
    assert expand(extras, ["workflow"]) == expand(extras, ["repro"])   # the earlier name still installs it
