"""Hostile configs (issue 49, beyond its list): `evalrank validate-config` and what the pipeline
reads before any job (evalrank.config.read_yaml / validate_config, make run's console) on files
and values a careless or hostile user writes. Each refusal is one line naming file:line or the
dotted key, exit status 1, nothing on stdout, no traceback, a short message; each acceptance is
checked for the value it gives. In-process: no snakemake run here (the pipeline's dry runs of
such configs: tests/workflow/test_lint_and_dry_runs.py)."""

from __future__ import annotations

import copy
import gzip

import pytest
from cli_run import evalrank

from evalrank.config import MAX_YAML_VALUES, ConfigError, check_yaml_files, read_yaml, validate_config

HEAD = "seed: 1\ndataset: {kind: synthetic, root: d}\n"
MINIMAL = {"name": "t", "seed": 1, "dataset": {"kind": "synthetic", "root": "d"}}

# (file bytes, what the one line says): refused by validate-config
REFUSED = {
    "empty file": (b"", "config key 'name': is required"),
    "a list": (b"- a\n- b\n", "a config file holds a mapping of keys (key: value lines), got a list"),
    "a number": (b"3\n", "got a number"),
    "name with a slash": (b"name: a/b\n" + HEAD.encode(), "config key 'name': 'a/b' does not match"),
    "name with a space": (b"name: a b\n" + HEAD.encode(), "config key 'name': 'a b' does not match"),
    "empty name": (b"name: ''\n" + HEAD.encode(), "config key 'name': '' does not match"),
    "name '.'": (b"name: .\n" + HEAD.encode(), "config key 'name': '.' does not match"),
    "non-ASCII name": ("name: café\n".encode() + HEAD.encode(), "config key 'name': 'café' does not match"),
    "numeric name": (b"name: 123\n" + HEAD.encode(), "config key 'name': 123 is not of type 'string'"),
    "binary name": (b"name: !!binary aGVsbG8=\n" + HEAD.encode(), "config key 'name': b'hello' is not of type"),
    "negative seed": (b"name: t\nseed: -1\ndataset: {kind: synthetic, root: d}\n", "config key 'seed': -1 is less"),
    "boolean seed": (b"name: t\nseed: true\ndataset: {kind: synthetic, root: d}\n", "config key 'seed': True is not of"),
    "infinite seed": (b"name: t\nseed: .inf\ndataset: {kind: synthetic, root: d}\n", "config key 'seed': inf is not an"),
    "a tab as indentation": (b"name: t\n\tseed: 1\n", ":2:1: not valid YAML (found a tab character"),
    "an unknown tag": (b"name: !custom t\n" + HEAD.encode(), ":1:7: not valid YAML (could not determine a constructor"),
    "a python tag": (b"seed: !!python/name:os.system\nname: t\n", ":1:7: not valid YAML"),
    "nested 5,000 deep": (b"a: " + b"[" * 5000 + b"]" * 5000 + b"\n", "not valid YAML (exceeded maximum nesting depth)"),
    "a 2 MB key": (b"name: t\n" + b"x" * 2_000_000 + b": 1\n", ":2:2000001: not valid YAML"),
    "UTF-16": ("name: t\n".encode("utf-16"), ":1: not UTF-8 text (byte 0xff at offset 0"),
    "a PNG": (b"\x89PNG\r\n\x1a\n\x00\x00", ":1: not UTF-8 text (byte 0x89 at offset 0"),
    "Latin-1 on line 3": (b"name: t\nseed: 1\nroot: Bj\xf6rk\n", ":3: not UTF-8 text (byte 0xf6 at offset 24"),
    "a key given twice under a merge": (b"base: &b {x: 1}\nuse:\n  <<: *b\n  y: 2\n  y: 3\n" + HEAD.encode(),
                                        "config key 'use.y': given twice"),
    "an unknown 900-character key": (b"name: t\n" + HEAD.encode() + b"k" * 900 + b": 1\n",
                                      "(900 characters in all)"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_validate_config_refuses_in_one_short_line(tmp_path, case):
    raw, fragment = REFUSED[case]
    p = tmp_path / "c.yaml"
    p.write_bytes(raw)
    out = evalrank("validate-config", p)
    assert out.returncode == 1 and out.stdout == "", (case, out.stdout[:500])
    assert "Traceback" not in out.stderr and len(out.stderr) < 2000, (case, out.stderr[:2000])
    assert out.stderr.startswith("evalrank validate-config: error: ") and fragment in out.stderr, (case, out.stderr)
    if "YAML" in fragment or "UTF-8" in fragment:
        assert f"{p}:" in out.stderr, out.stderr
    if case != "empty file":  # the one config with two problems (two required keys), one line each
        assert out.stderr.count("\n") == 1, (case, out.stderr)


@pytest.mark.parametrize("case, raw", [pytest.param(case, raw, id=case) for case, raw in [
    ("a byte-order mark", "\ufeffname: t\n".encode() + HEAD.encode()),
    ("gzip-compressed", gzip.compress(b"name: t\n" + HEAD.encode(), mtime=0)),   # the same bytes in every worker
    ("CRLF line ends", (b"name: t\n" + HEAD.encode()).replace(b"\n", b"\r\n")),
    ("a 100-character name", f"name: {'n' * 100}\n".encode() + HEAD.encode()),
    ("a name with dots inside", b"name: v1.2_run-3\n" + HEAD.encode()),
    ("aliases within the bound", b"a0: &a0 [1, 1, 1]\nname: t\n" + HEAD.encode() + b"folds: *a0\n".replace(
        b"*a0", b"[1]")),
]])
def test_validate_config_accepts_what_is_a_config(tmp_path, case, raw):
    p = tmp_path / "c.yaml"
    p.write_bytes(raw)
    doc = read_yaml(p)
    assert doc["seed"] == 1, case
    assert doc["name"] in ("t", "n" * 100, "v1.2_run-3"), case


def test_the_alias_bound_counts_expanded_values_not_bytes(tmp_path):
    """MAX_YAML_VALUES values are read; one more level of aliases than that is refused at the line
    of the innermost value past the bound, whatever else the file holds."""
    p = tmp_path / "c.yaml"
    # 10 x 10 x 10 x 10 ones through aliases: 11,111 values, under the bound
    lines = ["a0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]"] + [
        f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 4)]
    p.write_text("\n".join(lines) + "\n")
    assert len(read_yaml(p)["a3"]) == 10
    p.write_text("\n".join(lines + ["a4: &a4 [" + ", ".join(["*a3"] * 10) + "]",
                                    "a5: [" + ", ".join(["*a4"] * 10) + "]"]) + "\n")
    assert 11_111 * 10 > MAX_YAML_VALUES
    with pytest.raises(ValueError, match=r"c\.yaml:5: this value expands"):
        read_yaml(p)


def test_a_mapping_alias_bomb_is_refused_too(tmp_path):
    p = tmp_path / "c.yaml"
    lines = ["m0: &m0 {a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7, h: 8, i: 9, j: 10}"] + [
        f"m{i}: &m{i} {{" + ", ".join(f"k{j}: *m{i - 1}" for j in range(10)) + "}" for i in range(1, 6)]
    p.write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError, match=r"c\.yaml:5: this value expands"):
        check_yaml_files([p])


@pytest.mark.parametrize("key, value, fragment", [
    ("name", "x" * 10_000_000, "(10,000,000 characters in all) is longer than 100 characters"),
    ("seed", "1" * 100_000, "(100,002 characters in all) is text, not a number"),
    ("folds", list(range(1_000_000)), "... and more problems (the first 20 are shown)"),
])
def test_huge_values_from_the_command_line_give_short_messages(key, value, fragment):
    """--config name=... or a merged file: the value is clipped in the message, never shown whole."""
    cfg = copy.deepcopy(MINIMAL) | {key: value}
    with pytest.raises(ConfigError) as exc:
        validate_config(cfg)
    assert fragment in str(exc.value) and len(str(exc.value)) < 2000, str(exc.value)[:3000]


def test_a_config_path_that_is_not_a_file(tmp_path):
    assert "is a directory, not a file" in evalrank("validate-config", tmp_path).stderr
    out = evalrank("validate-config", tmp_path / "missing.yaml")
    assert out.returncode == 1 and "config file" in out.stderr and "does not exist" in out.stderr


def test_make_runs_console_refuses_a_key_given_twice_before_snakemake(tmp_path, monkeypatch, capsys):
    from evalrank.console import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.yaml").write_text("name: t\nname: u\n")
    runner = tmp_path / "snakemake"
    runner.write_text("#!/bin/sh\nexit 0\n")
    runner.chmod(0o755)
    assert main(["--snakemake", str(runner), "--", "--configfile", "c.yaml"]) == 1
    err = capsys.readouterr().err
    assert "config key 'name': given twice, at c.yaml:1 and again at c.yaml:2" in err, err
