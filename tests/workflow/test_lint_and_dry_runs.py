"""CI checks of the workflow itself (issue 19, acceptance 5), run by `make test` like every test:

- every key of the config schema has a description;
- `snakemake --lint` reports nothing but the findings listed in ACCEPTED_LINTS, each a deliberate choice;
- a dry run of every config shipped in config/ builds its DAG (overlays such as scale.yaml on top of
  the config they name, as the README runs them);
- every rule hands config values to its command one way: ``params.opts = flags(...)`` (common.smk).

Dry runs need no data: a downloaded kind whose files are missing plans its download job. About 20 s."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from dagrun import REPO, snakemake

SCHEMA = REPO / "src" / "evalrank" / "schemas" / "config.schema.yaml"
CONFIGS = REPO / "config"

# Overlays: a config file that only replaces some sections of another one (its header says which),
# dry-run on top of it. Every other config in config/ runs on its own (over config/config.yaml, which
# the Snakefile always loads first).
OVERLAYS = {"scale.yaml": "paper.yaml"}

# Lints that are deliberate choices, not oversights (title prefix -> why):
ACCEPTED_LINTS = {
    # One software environment for the whole workflow: `make` installs the package into .venv
    # (environment.yml for conda users) and every rule calls `python -m evalrank`; per-rule conda
    # environments would duplicate it 30 times and pin nothing more.
    "Specify a conda environment or container for each rule.",
}


def _schema_properties(node, path=""):
    """(path, schema) of every named property, through nested objects, arrays, maps and $defs."""
    if not isinstance(node, dict):
        return
    for key, sub in (node.get("properties") or {}).items():
        p = f"{path}.{key}" if path else key
        yield p, sub
        yield from _schema_properties(sub, p)
    for key in ("items", "additionalProperties"):
        if isinstance(node.get(key), dict):
            yield from _schema_properties(node[key], f"{path}[]")
    for key in ("oneOf", "anyOf", "allOf"):
        for sub in node.get(key) or []:
            yield from _schema_properties(sub, path)
    for key, sub in (node.get("$defs") or {}).items():
        yield from _schema_properties(sub, f"$defs.{key}")


def test_every_schema_key_is_described():
    schema = yaml.safe_load(SCHEMA.read_text())
    props = list(_schema_properties(schema))
    assert len(props) > 150  # the walk reaches the nested sections
    bare = [p for p, sub in props if not str(sub.get("description", "")).strip()]
    assert not bare, f"{len(bare)} schema keys without a description: {bare}"


def _lints(text: str) -> list[tuple[str, str]]:
    """(rule or snakefile, lint title) of every finding in `snakemake --lint`'s text output."""
    out, where = [], None
    for line in text.splitlines():
        m = re.match(r"Lints for (?:rule|snakefile) (\S+)", line)
        if m:
            where = m.group(1)
            continue
        m = re.match(r"    \* (.+?):?$", line)
        if m and where:
            out.append((where, m.group(1).rstrip(":")))
    return out


def test_snakemake_lint(tmp_path):
    pytest.importorskip("snakemake")
    out = snakemake(tmp_path, "--lint", configs=(CONFIGS / "config.yaml",), check=False)
    text = out.stdout + out.stderr
    found = _lints(text)
    if out.returncode != 0:
        assert found, f"snakemake --lint failed without lints:\n{text[-4000:]}"
    left = [f"{where}: {title}" for where, title in found if not title.startswith(tuple(ACCEPTED_LINTS))]
    assert not left, "snakemake --lint:\n" + "\n".join(left)


def _shipped_configs():
    names = sorted(p.name for p in CONFIGS.glob("*.yaml"))
    return [(OVERLAYS[n], n) if n in OVERLAYS else (n,) for n in names]


@pytest.mark.parametrize("files", _shipped_configs(), ids=lambda f: "+".join(f))
def test_dry_run(tmp_path, files):
    pytest.importorskip("snakemake")
    out = snakemake(tmp_path, "-n", "--quiet", "rules", configs=[CONFIGS / f for f in files])
    text = out.stdout + out.stderr
    assert "Job stats" in text and re.search(r"^all\s+1$", text, re.M), text[-3000:]


def test_every_overlay_exists():
    for overlay, base in OVERLAYS.items():
        assert (CONFIGS / overlay).exists() and (CONFIGS / base).exists()
        assert base in (CONFIGS / overlay).read_text()  # its header names the config it goes on


# What a rule's shell line may name: files, wildcards, threads, the log, the folder of its outputs
# (or inputs) and params.opts, every other value rendered by flags() (evalrank.cli.common.stage_flags).
SHELL_FIELDS = re.compile(r"^(input|output|log|threads|wildcards)(\.\w+)?$|^params\.(opts|out|src)$")
PARAMS_NAMES = {"opts", "out", "src"}


def _rule_sections(text, section):
    """The lines of every `<section>:` block of a .smk file (indented deeper than its header)."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = re.match(rf"^(\s*){section}:\s*$", line)
        if not m:
            continue
        depth, block = len(m.group(1)), []
        for nxt in lines[i + 1:]:
            if nxt.strip() and len(nxt) - len(nxt.lstrip()) <= depth:
                break
            block.append(nxt)
        yield depth, block


@pytest.mark.parametrize("smk", sorted((REPO / "workflow" / "rules").glob("*.smk")), ids=lambda p: p.name)
def test_config_values_reach_commands_one_way(smk):
    text = smk.read_text()
    for _, block in _rule_sections(text, "shell"):
        for field in re.findall(r"(?<!{){([^{}]+)}(?!})", "\n".join(block)):
            name = field.split(":")[0]
            assert SHELL_FIELDS.match(name), f"{smk.name}: shell line names {{{field}}}; pass it through params.opts"
    for depth, block in _rule_sections(text, "params"):
        names = {m.group(1) for line in block if (m := re.match(rf"^\s{{{depth + 4}}}(\w+)=", line))}
        assert names <= PARAMS_NAMES, f"{smk.name}: params {sorted(names - PARAMS_NAMES)}; render them with flags()"
    assert "json.dumps" not in text and '" ".join' not in text, f"{smk.name}: render values with flags()"


def test_a_model_that_takes_anothers_tuning_trains_after_it(tmp_path):
    """models.params_from (config/paper.yaml: the ordinal forest takes the random forest's tuning):
    its training job reads the other model's file and passes it as --params-from."""
    pytest.importorskip("snakemake")
    cfg = yaml.safe_load((CONFIGS / "paper.yaml").read_text())
    assert cfg["models"]["params_from"] == {"ordinal_rf": "rf"}
    out = snakemake(tmp_path, "-n", "-p", "results/mslr-web30k/fold2/models/ordinal_rf.skops",
                    "results/mslr-web30k/fold2/models/rf.skops", configs=[CONFIGS / "paper.yaml"])
    text = out.stdout + out.stderr
    commands = [line for line in text.splitlines() if "stage train " in line]
    ordinal = [c for c in commands if "--model ordinal_rf" in c]
    assert len(commands) == 2 and len(ordinal) == 1, text[-3000:]
    assert "--params-from results/mslr-web30k/fold2/models/rf.skops" in ordinal[0]
    assert text.index("--model rf ") < text.index("--model ordinal_rf")
    rf = [c for c in commands if "--model rf " in c][0]
    assert "--params-from" not in rf


def test_a_learner_declares_only_the_threads_it_keeps_busy(tmp_path):
    """models.threads (config/paper.yaml: 2) for the forests' training and predictions, one for
    RankSVM's (liblinear: RankSVMModel.threads_used), also as the --threads its command gets."""
    pytest.importorskip("snakemake")
    out = snakemake(tmp_path, "-n", "-p", "--cores", "16", *(f"results/mslr-web30k/fold2/predictions/{m}.npz"
                                            for m in ("rf", "ranksvm", "rf_n200000")),
                    configs=[CONFIGS / "paper.yaml"])
    text = out.stdout + out.stderr
    threads = {}
    for block in re.split(r"^rule ", text, flags=re.M)[1:]:  # a job: its rule, threads (absent: 1), command
        rule, cmd = block.split(":", 1)[0], re.search(r"^Shell command: (.*)$", block, re.M)
        if rule in ("train_model", "train_sized", "predict_pool") and cmd:
            n = re.search(r"^\s+threads: (\d+)$", block, re.M)
            model = re.search(r"--model(?:-file)? (\S+)", cmd.group(1)).group(1).rsplit("/", 1)[-1]
            threads[(rule, model)] = (int(n.group(1)) if n else 1, cmd.group(1))
    want = {("train_model", "rf"): 2, ("train_model", "ranksvm"): 1, ("train_sized", "rf"): 2,
            ("predict_pool", "rf.skops"): 2, ("predict_pool", "ranksvm.skops"): 1, ("predict_pool", "rf_n200000.skops"): 2}
    assert {k: v[0] for k, v in threads.items()} == want, text[-3000:]
    assert all(f"--threads {n} " in cmd for n, cmd in threads.values())


# -- issue 49: a dry run changes nothing; a config that is not one is named before any job ----------
def test_a_dry_run_leaves_a_damaged_output_as_it_is(tmp_path):
    """A truncated partition of an earlier run: the dry run names it and keeps its bytes (it used to
    remove it: `workflow.dryrun` is False while Snakemake 9 parses the Snakefile). That a real run
    removes and rebuilds it: test_dag_rerun.py."""
    pytest.importorskip("snakemake")
    bad = tmp_path / "results" / "tiny" / "data" / "S1.npz"
    bad.parent.mkdir(parents=True)
    bad.write_bytes(b"PK\x03\x04" + bytes(range(36)))
    before = bad.read_bytes()
    out = snakemake(tmp_path, "-n", "--quiet", "rules")
    assert bad.read_bytes() == before
    assert "results/tiny/data/S1.npz is damaged (not a complete .npz archive): left as it is; a run (without -n) " \
           "removes and rebuilds it" in out.stdout + out.stderr


def _one_line_refusal(out, fragment):
    text = out.stdout + out.stderr
    assert out.returncode != 0 and fragment in text, text[-3000:]
    assert len(text) < 5000, text[:3000]   # no 10 MB message


def test_a_dry_run_refuses_a_long_name_in_one_line(tmp_path):
    long = tmp_path / "long.yaml"
    long.write_text(f"name: {'a' * 300}\n")
    out = snakemake(tmp_path, "-n", configs=(REPO / "tests" / "workflow" / "tiny.yaml", long), check=False)
    _one_line_refusal(out, "config key 'name': 'aaaa")
    text = out.stdout + out.stderr
    assert "is longer than 100 characters" in text and "File name too long" not in text


def test_a_dry_run_refuses_an_alias_bomb_at_its_line(tmp_path):
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("a0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n" + "".join(
        f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]\n" for i in range(1, 7)) + "folds: *a6\n")
    out = snakemake(tmp_path, "-n", configs=(REPO / "tests" / "workflow" / "tiny.yaml", bomb), check=False)
    _one_line_refusal(out, f"{bomb}:5: this value expands, through YAML aliases")  # a4: 111,111 values


def test_a_dry_run_names_the_line_of_the_default_config_that_is_not_yaml(tmp_path):
    """config/config.yaml (the Snakefile's configfile) is read by evalrank first: file:line where
    Snakemake's reader says only "not valid JSON or YAML". (A --configfile is read by Snakemake's
    command line before the Snakefile: make run's console checks those, tests/test_console.py.)"""
    bad = tmp_path / "default.yaml"
    bad.write_text((CONFIGS / "config.yaml").read_text() + "seed: [1\n")
    out = snakemake(tmp_path / "wd", "-n", check=False, default_config=bad)
    _one_line_refusal(out, "config/config.yaml:")
    text = out.stdout + out.stderr
    assert "not valid YAML (did not find expected" in text and "not valid JSON or YAML" not in text



def test_figure_names_are_unique_across_the_results_tree(tmp_path):
    """Every figure the default config's DAG writes has a file name of its own (three figures were
    all fig1.png), and the Ozertem figures the rules declare are the ones plots.FIGURES writes."""
    pytest.importorskip("snakemake")
    from evalrank.papers.ozertem2011.plots import FIGURES

    common = (REPO / "workflow" / "rules" / "common.smk").read_text(encoding="utf-8")
    declared = re.search(r"CLICKS_FIGURES = \[(.*?)\]", common, re.S).group(1)
    assert tuple(re.findall(r'"([^"]+)"', declared)) == FIGURES
    out = snakemake(tmp_path, "--summary", "--cores", "1", configs=(CONFIGS / "config.yaml",))
    figs = sorted({line.split("\t")[0] for line in out.stdout.splitlines() if line.split("\t")[0].endswith(".png")})
    names = [Path(f).name for f in figs if "/fold" not in f]
    assert len(names) >= 30 and len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
