"""environment.yml must mirror pyproject.toml (runtime deps + workflow/test/peers extras)."""

import re
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def norm(req: str) -> str:
    name, spec = re.match(r"^\s*([A-Za-z0-9_.\-\[\]]+)\s*(.*)$", req).groups()
    return re.sub(r"[-_.]+", "-", name.lower()) + spec.replace(" ", "")


def test_environment_matches_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = set(map(norm, project["dependencies"]))
    for extra in ("workflow", "test", "peers"):
        wanted |= set(map(norm, project["optional-dependencies"][extra]))
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict) and "pip" in d)
    got = {norm(r) for r in pip if not r.startswith("-e")}
    assert got == wanted, f"only in pyproject: {wanted - got}; only in environment.yml: {got - wanted}"
    assert "-e ." in pip
    py = next(d for d in env["dependencies"] if isinstance(d, str) and d.startswith("python"))
    assert py.replace("python", "") == project["requires-python"]
