"""The documentation (issue 50, items 1 and 2): the MkDocs site builds with warnings as errors;
the command and configuration references are generated from the parsers and the schema, so an
option or a key added there appears in them; the README is a front page whose quick-start
commands run verbatim on toy data and print what it shows."""

from __future__ import annotations

import copy
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from test_lean_install import readme_files

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def _reference_gen():
    spec = importlib.util.spec_from_file_location("reference_gen", ROOT / "docs" / "reference_gen.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


gen = _reference_gen()


# -- the site ----------------------------------------------------------------------------------
def test_the_site_builds_with_warnings_as_errors(tmp_path):
    for module in ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python"):
        pytest.importorskip(module)
    out = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(ROOT / "mkdocs.yml"),
                          "--site-dir", str(tmp_path / "site")], capture_output=True, text=True, cwd=ROOT,
                         env={**os.environ, "NO_MKDOCS_2_WARNING": "1"}, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "WARNING" not in out.stderr, out.stderr[-3000:]
    for page in ("reference/commands", "reference/stages", "reference/config", "api/evaluation", "api/active",
                 "api/metrics", "guides/labelling"):
        assert (tmp_path / "site" / page / "index.html").is_file(), page
    commands = (tmp_path / "site" / "reference" / "commands" / "index.html").read_text()
    assert "evalrank active estimate" in commands
    api = (tmp_path / "site" / "api" / "active" / "index.html").read_text()
    assert "finite_estimate" in api and "extend" in api


# -- the command reference ---------------------------------------------------------------------
def _subparsers(parser):
    import argparse

    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices


def test_the_command_reference_has_every_front_door_command_and_option():
    from evalrank.cli import build_parser

    parser = build_parser()
    text = gen.command_reference(parser)
    commands = [n for n in _subparsers(parser) if n != "stage"]
    assert commands and "evaluate" in commands and "active" in commands
    for name in commands:
        assert f"## `evalrank {name}`" in text, name
    for name in _subparsers(_subparsers(parser)["active"]):
        assert f"`evalrank active {name}`" in text, name
    assert gen.front_door_commands(parser)[:2] == ["evaluate", "compare"]
    # every option of evaluate, with its help
    for action in _subparsers(parser)["evaluate"]._actions:
        for flag in action.option_strings:
            assert flag in text, flag
    assert "evalrank stage" not in text.split("## `evalrank evaluate`")[1]


def test_an_option_added_to_a_parser_appears_in_the_command_reference():
    from evalrank.cli import build_parser

    parser = build_parser()
    before = gen.command_reference(parser)
    _subparsers(parser)["compare"].add_argument("--docs-probe", type=int, default=7, help="a probe of the docs test")
    _subparsers(parser)["validate-config"].add_argument("--other-probe", action="store_true", help="another probe")
    text = gen.command_reference(parser)
    assert "--docs-probe" not in before and "a probe of the docs test (default: 7)" in text
    compare_section = text.split("## `evalrank compare`")[1].split("\n## ")[0]
    assert "`--docs-probe DOCS_PROBE`" in compare_section and "[--docs-probe DOCS_PROBE]" in compare_section
    assert "`--other-probe`" in text.split("## `evalrank validate-config`")[1]


def test_the_stage_reference_has_every_stage():
    from evalrank.cli import build_parser

    parser = build_parser()
    text = gen.stage_reference(parser)
    stages = _subparsers(_subparsers(parser)["stage"])
    assert len(stages) > 10
    for name in stages:
        assert f"### `evalrank stage {name}`" in text, name


# -- the configuration reference ---------------------------------------------------------------
def _schema():
    return yaml.safe_load(gen.SCHEMA.read_text(encoding="utf-8"))


def _keys(props: dict, prefix: str = ""):
    """Every dotted key of a properties block, through nested properties (not through $ref)."""
    for key, node in props.items():
        yield prefix + key
        if isinstance(node, dict) and "properties" in node:
            yield from _keys(node["properties"], f"{prefix}{key}.")


def test_the_config_reference_has_every_schema_key():
    schema = _schema()
    text = gen.config_reference(schema)
    keys = list(_keys(schema["properties"]))
    for name, block in schema["$defs"].items():
        if "properties" in block:
            keys += list(_keys(block["properties"], f"{name}."))
    assert len(keys) > 100
    for key in keys:
        assert f"| `{key}` |" in text, key
    assert set(gen.schema_keys(schema)) == set(keys)
    # a key's type, default and description, as the schema gives them
    row = next(line for line in text.splitlines() if line.startswith("| `quality.k` |"))
    assert "integer ≥ 1" in row and "`10`" in row and "Cut-off k" in row


def test_a_key_added_to_the_schema_appears_in_the_config_reference():
    schema = copy.deepcopy(_schema())
    schema["properties"]["quality"]["properties"]["docs_probe"] = {
        "type": "number", "minimum": 0, "default": 0.5, "description": "A probe of the docs test."}
    schema["properties"]["docs_section"] = {"type": "object", "default": {}, "description": "A probe section.",
                                            "properties": {"inner": {"enum": ["a", "b"], "default": "a"}}}
    text = gen.config_reference(schema)
    assert "docs_probe" not in gen.config_reference(_schema())
    row = next(line for line in text.splitlines() if line.startswith("| `quality.docs_probe` |"))
    assert "number ≥ 0" in row and "`0.5`" in row and "A probe of the docs test." in row
    assert "## `docs_section`" in text and '| `docs_section.inner` | one of a, b | `"a"` |' in text


# -- the README --------------------------------------------------------------------------------
def _blocks(text: str):
    """The README's fenced blocks, in order: (language, body)."""
    return re.findall(r"^```(\w*)\n(.*?)^```", text, flags=re.S | re.M)


def _shown(expected: str, got: str) -> bool:
    """``got`` is what the README shows: its lines in order, a line ``...`` standing for any lines."""
    pattern = "".join(r"(?:.*\n)*?" if line.strip() == "..." else re.escape(line) + r"\n"
                      for line in expected.splitlines())
    return re.fullmatch(pattern, got if got.endswith("\n") else got + "\n") is not None


def test_the_readme_is_a_front_page():
    text = README.read_text(encoding="utf-8")
    lines = text.splitlines()
    assert len(lines) <= 250
    assert max(len(line) for line in lines) <= 160
    assert not re.search(r"\b20\d\d-\d\d-\d\d\b", text), "a date"
    assert not re.search(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b", text), "a commit hash"
    assert "not on the package index yet" in text and "git clone" in text
    for command in ("make run", "make test", "mkdocs serve", "mkdocs build"):
        assert command in text, command
    for paper in ("Sawade", "Busa-Fekete", "Dinçer", "Ozertem", "Wang"):
        assert re.search(rf"^- .*{paper}", text, flags=re.M), paper
    assert "```bash\nmake run     # creates .venv" in text and "\nmake test    # creates .venv if needed" in text


def test_the_readme_quick_start_runs_as_shown(tmp_path):
    """Every README bash block made of evalrank commands, verbatim in bash (the installed
    `evalrank`) on the toy files tests/test_lean_install.readme_files writes; where a text block
    follows one, its output is what the block shows. The Python block runs too."""
    d = readme_files(tmp_path)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "EVALRANK_PROGRESS": "0"}
    blocks = _blocks(README.read_text(encoding="utf-8"))
    ran = shown = 0
    for i, (lang, body) in enumerate(blocks):
        commands = [ln for ln in body.splitlines() if ln.strip() and not ln.startswith("#")]
        if lang == "python":
            done = subprocess.run([sys.executable, "-c", body], cwd=d, capture_output=True, text=True, env=env, timeout=120)
            assert done.returncode == 0, done.stderr[-2000:]
            ran += 1
            continue
        if lang != "bash" or not commands or not all(c.startswith("evalrank ") for c in commands):
            continue
        done = subprocess.run(["bash", "-euo", "pipefail", "-c", body], cwd=d, capture_output=True, text=True,
                              env=env, timeout=300)
        assert done.returncode == 0, (body, done.stderr[-2000:])
        ran += 1
        if i + 1 < len(blocks) and blocks[i + 1][0] == "text":
            assert _shown(blocks[i + 1][1], done.stdout), (body, done.stdout[-3000:])
            shown += 1
    assert ran >= 4 and shown >= 2, (ran, shown)


def test_the_ellipsis_rule():
    assert _shown("a\n...\nc\n", "a\nb\nb2\nc\n") and _shown("...\nc\n...\n", "a\nc\nd")
    assert not _shown("a\nc\n", "a\nb\nc\n")
