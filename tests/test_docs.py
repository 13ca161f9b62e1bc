"""The documentation (issue 50, items 1 and 2): the MkDocs site builds with warnings as errors;
the command and configuration references are generated from the parsers and the schema, so an
option or a key added there appears in them; the README is a front page; every shell and Python
example of the README, the home page and the user guides runs verbatim on toy data and prints what
it shows (a block that cannot run in a test is marked ``<!-- not run: why -->`` in the Markdown)."""

from __future__ import annotations

import copy
import functools
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml
from test_lean_install import readme_files
from toy_data import toy_collection

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


# -- the examples of the README and the guides ------------------------------------------------
#: the Markdown files whose examples run: the README, the home page and every guide
EXAMPLE_DOCS = [README, ROOT / "docs" / "index.md", *sorted((ROOT / "docs" / "guides").glob("*.md"))]
#: an example that cannot run in a test says so, and why, on the line before its fence
NOT_RUN = re.compile(r"<!-- not run: (.+?) -->\s*$")
_FENCE = re.compile(r"^( *)```(\w*)\n(.*?)^\1```[ \t]*$", flags=re.S | re.M)
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def _blocks(text: str):
    """The fenced blocks of a Markdown text, in order, indented ones (in a list item) dedented:
    (language, body, the text before the block since the previous one)."""
    out, last = [], 0
    for m in _FENCE.finditer(text):
        indent = len(m.group(1))
        body = "".join(line[indent:] for line in m.group(3).splitlines(keepends=True))
        out.append((m.group(2), body, text[last:m.start()]))
        last = m.end()
    return out


def _output_of(gap: str) -> bool:
    """Whether a text block is the shown output of the code block before it: nothing lies between
    them, or one paragraph that ends with a colon ("prints:", "The second estimate ...:")."""
    gap = gap.strip()
    return not gap or ("\n\n" not in gap and gap.endswith(":") and not gap.startswith(("#", "-", "<!--")))


def _same_line(want: str, got: str) -> bool:
    """A shown line against a printed one, trailing spaces aside (editors strip them): the text
    between numbers exactly, integers exactly, every other number to the digits shown (within one
    unit of its last digit, or 1e-9 relative for longer ones: a float printed in full may differ in
    its last digits between machines)."""
    want, got = want.rstrip(), got.rstrip()
    if want == got:
        return True
    w, g = _NUMBER.split(want), _NUMBER.split(got)
    if w != g:
        return False
    for a, b in zip(_NUMBER.findall(want), _NUMBER.findall(got)):
        if not re.search(r"[.eE]", a):
            if a != b:
                return False
            continue
        unit = 10.0 ** -len(a.split(".")[1]) if "." in a and "e" not in a.lower() else 0.0
        if abs(float(a) - float(b)) > max(unit, 1e-9 * abs(float(a))):
            return False
    return True


def _shown(expected: str, got: str) -> bool:
    """``got`` is what the block shows: its lines in order, a line ``...`` standing for any lines,
    numbers compared as :func:`_same_line` says."""
    want, have = expected.splitlines(), got.splitlines()

    @functools.cache
    def match(i: int, j: int) -> bool:
        if i == len(want):
            return j == len(have)
        if want[i].strip() == "...":
            return any(match(i + 1, k) for k in range(j, len(have) + 1))
        return j < len(have) and _same_line(want[i], have[j]) and match(i + 1, j + 1)

    return match(0, 0)


def _graded_run(grades: list, name: str, noise: float, rng) -> str:
    """A TREC run ranking each topic's judged documents by grade + ``noise`` * N(0, 1)."""
    lines, by_topic = [], {}
    for q, _, doc, g in grades:
        by_topic.setdefault(q, []).append((int(g) + noise * rng.standard_normal(), doc))
    for q, docs in by_topic.items():
        lines += [f"{q} Q0 {doc} {i + 1} {s:.4f} {name}" for i, (s, doc) in enumerate(sorted(docs, reverse=True))]
    return "\n".join(lines) + "\n"


def doc_files(d: Path) -> Path:
    """The toy files the README's and the guides' examples name, from tests/toy_data: the README's
    (test_lean_install.readme_files: a 120-topic labelling campaign, run.txt and bm25.txt scoring
    at random; labels.qrels, every grade, stands for the annotators), with runs/a.txt and runs/b.txt
    (and a.txt, b.txt) ranking by grade plus noise, qrels.adhoc.txt with nine such runs in
    trec2012/ (indriCASP among them) and data/synthetic/Fold1/test.txt (LETOR, 136 features, eight queries)."""
    readme_files(d)
    rng = np.random.default_rng(2012)
    grades = [line.split() for line in (d / "qrels").read_text().splitlines()]
    for name, noise in [("a", 1.5), ("b", 1.0)]:
        text = _graded_run(grades, name, noise, rng)
        (d / "runs" / f"{name}.txt").write_text(text)
        (d / f"{name}.txt").write_text(text)
    shutil.copyfile(d / "qrels", d / "qrels.adhoc.txt")
    (d / "trec2012").mkdir()
    for r, name in enumerate(["indriCASP", *(f"run{i}" for i in range(1, 9))]):
        (d / "trec2012" / f"{name}.txt").write_text(_graded_run(grades, name, 0.75 + 0.25 * r, rng))
    fold = d / "data" / "synthetic" / "Fold1"
    fold.mkdir(parents=True)
    c = toy_collection(8, seed=3, min_docs=6, max_docs=16)
    labels = c.labels.copy()
    labels[c.offsets[0]:c.offsets[1]] = 0  # a query without a relevant document, as MSLR has
    X = rng.random((labels.size, 136))
    X[:, 129] = c.features[:, 0]
    qids = np.repeat(c.qids, c.query_sizes)
    fold.joinpath("test.txt").write_text("".join(
        f"{y} qid:{q} " + " ".join(f"{j + 1}:{v:.4f}" for j, v in enumerate(x)) + "\n"
        for y, q, x in zip(labels, qids, X)))
    return d


def run_examples(doc: Path, d: Path) -> tuple[int, int, list[str]]:
    """Every bash and python block of ``doc`` not marked ``<!-- not run: why -->``, in order, in
    ``d`` (blocks of a page share it, as a reader's shell would): bash verbatim (``-euo pipefail``,
    the installed ``evalrank`` on the PATH), python with the interpreter; each must succeed, and
    where a text block follows as its output (:func:`_output_of`) it must print what that shows
    (:func:`_shown`). Returns (blocks run, outputs compared, reasons of the blocks not run)."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "EVALRANK_PROGRESS": "0"}
    blocks = _blocks(doc.read_text(encoding="utf-8"))
    ran, shown, skipped = 0, 0, []
    for i, (lang, body, gap) in enumerate(blocks):
        if lang not in ("bash", "python"):
            continue
        why = NOT_RUN.search(gap.rstrip().splitlines()[-1] if gap.strip() else "")
        if why:
            skipped.append(why.group(1))
            continue
        argv = [sys.executable, "-c", body] if lang == "python" else ["bash", "-euo", "pipefail", "-c", body]
        done = subprocess.run(argv, cwd=d, capture_output=True, text=True, env=env, timeout=300)
        where = f"{doc.relative_to(ROOT) if doc.is_relative_to(ROOT) else doc}, block {i + 1}:\n{body}"
        assert done.returncode == 0, (where, done.stderr[-2000:])
        ran += 1
        if i + 1 < len(blocks) and blocks[i + 1][0] == "text" and _output_of(blocks[i + 1][2]):
            assert _shown(blocks[i + 1][1], done.stdout), (where, done.stdout[-3000:])
            shown += 1
    return ran, shown, skipped


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


@pytest.mark.parametrize("doc", EXAMPLE_DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_the_examples_run_as_shown(doc, tmp_path):
    """Every shell and Python example of the README, the home page and the user guides runs
    verbatim on toy data (doc_files) and prints the output shown after it (run_examples); every
    block not marked ``<!-- not run: why -->`` runs, so a new example cannot go untested."""
    ran, shown, skipped = run_examples(doc, doc_files(tmp_path))
    code = sum(lang in ("bash", "python") for lang, _, _ in _blocks(doc.read_text(encoding="utf-8")))
    assert ran + len(skipped) == code, (ran, skipped, code)
    if doc == README:  # the quick start: evaluate, compare, Python, a labelling campaign; two outputs shown
        assert ran >= 4 and shown >= 2, (ran, shown)


def test_the_examples_rules():
    # a line "..." stands for any lines; numbers to the digits shown
    assert _shown("a\n...\nc\n", "a\nb\nb2\nc\n") and _shown("...\nc\n...\n", "a\nc\nd")
    assert not _shown("a\nc\n", "a\nb\nc\n") and not _shown("a\n", "a\nb\n")
    assert _shown("map\tall\t0.7468\n", "map\tall\t0.7469") and not _shown("map\tall\t0.7468", "map\tall\t0.7479")
    assert _shown('"x": 0.5134604879398114,', '"x": 0.5134604879398115,') and not _shown("n 66", "n 67")
    assert not _shown("P_5 0.1", "P_10 0.1")
    # a text block is the output of the block before it when nothing, or one paragraph ending in ':', lies between
    assert _output_of("\n\n") and _output_of("\nThe second estimate, after two rounds:\n\n")
    assert not _output_of("\nA paragraph.\n\nAnother one:\n") and not _output_of("\n- a list item:\n")
    blocks = _blocks("<!-- not run: why -->\n```bash\nmake\n```\n\n- item\n\n  ```text\n  a\n  ```\n")
    assert blocks[0][0] == "bash" and NOT_RUN.search(blocks[0][2]).group(1) == "why"
    assert blocks[1][:2] == ("text", "a\n")


def test_a_stale_output_or_a_failing_example_fails(tmp_path):
    doc = tmp_path / "guide.md"
    doc.write_text("Prints:\n\n```bash\necho 0.25; echo 3\n```\n\n```text\n0.25\n3\n```\n\n"
                   "<!-- not run: a cluster -->\n```bash\nsbatch job\n```\n\n```python\nprint(1 + 1)\n```\n")
    assert run_examples(doc, tmp_path) == (2, 1, ["a cluster"])
    for stale in ("0.25\n4\n", "0.26\n3\n", "0.25\n"):
        doc.write_text(f"```bash\necho 0.25; echo 3\n```\n\n```text\n{stale}```\n")
        with pytest.raises(AssertionError):
            run_examples(doc, tmp_path)
    doc.write_text("```python\nimport no_such_module\n```\n")
    with pytest.raises(AssertionError, match="no_such_module"):
        run_examples(doc, tmp_path)
