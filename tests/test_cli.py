"""``python -m evalrank``: the front door (user commands alone), ``evalrank stage`` (the
pipeline stages in groups), help text and defaults of every option, light imports, and every
shell line of the workflow parsed by the CLI."""

import argparse
import json
import re
import shlex
import subprocess
import sys

import pytest

from evalrank.cli import DEPRECATED, FRONT_DOOR, STAGES, build_parser
from evalrank.cli.common import HelpFormatter, stage_flags

FRONT = ["evaluate", "compare", "active", "risk", "validate-config"]
STAGE_NAMES = ["synthesize", "download", "parse", "derive-partitions", "data-facts", "describe", "split", "train",
               "predict", "quality",
               "active-setup", "active-mc", "active-summary", "ndcg-train", "ndcg-report", "ndcg-audit",
               "risk-example", "risk-population", "risk-table6", "risk-baseline", "risk-learn", "risk-table7",
               "clicks-simulate", "clicks-dbn", "clicks-estimate", "clicks-report",
               "theory-sample", "theory-lists", "theory-report", "findings"]
HEAVY = {"numpy", "pandas", "scipy", "numba", "matplotlib", "sklearn", "lightgbm", "snakemake", "mord", "xgboost"}


def run(*args):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=120)


def _sub(parser):
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))


def commands():
    """{'ndcg': parser, ..., 'stage parse': parser, ...}: every command, as typed."""
    top = _sub(build_parser()).choices
    out = {name: p for name, p in top.items() if name != "stage"}
    out.update({f"stage {name}": p for name, p in _sub(top["stage"]).choices.items()})
    out.update({f"active {name}": p for name, p in _sub(top["active"]).choices.items()})
    return out


def test_front_door_lists_the_user_commands_alone():
    out = run("-m", "evalrank", "--help")
    assert out.returncode == 0, out.stderr
    listing, deprecated = out.stdout.split("commands:")[1].split("options:")[0].split("deprecated (removed")
    names = [line.split()[0] for line in listing.splitlines() if line.strip()]
    # the user commands first (more may follow FRONT: FRONT_DOOR grows), then stage, last; the
    # deprecated commands apart, after them
    assert names[:len(FRONT)] == FRONT and names[-1] == "stage" and names.count("stage") == 1, names
    assert [line.split()[0] for line in deprecated.splitlines()[1:] if line.strip()] == list(DEPRECATED) == ["ndcg"]
    assert "pipeline stage commands (called by the Snakemake rules)" in listing
    for stage in ("synthesize", "active-mc", "clicks-simulate", "theory-sample", "risk-table7", "ndcg-train"):
        assert stage not in out.stdout


def test_stage_help_lists_every_stage_in_groups():
    out = run("-m", "evalrank", "stage", "--help")
    assert out.returncode == 0, out.stderr
    listed = re.findall(r"^  ([a-z0-9-]+)  +\S", out.stdout, re.M)
    assert sorted(listed) == sorted(STAGE_NAMES)
    for rules in ("data", "models", "sawade2012", "busafekete2012", "dincer2016", "ozertem2011", "wang2013", "findings"):
        assert f"(workflow/rules/{rules}.smk):" in out.stdout
    assert sorted(n.split()[1] for n in commands() if n.startswith("stage ")) == sorted(STAGE_NAMES)


def test_registries_name_modules_with_their_hooks():
    import importlib

    for name in FRONT_DOOR:
        assert callable(importlib.import_module(name).add_parsers)
    for name in STAGES:
        m = importlib.import_module(name)
        assert callable(m.add_stage_parsers) and m.TITLE


@pytest.mark.parametrize("argv", [["--help"], ["stage", "--help"], ["stage", "active-mc", "--help"],
                                  ["ndcg", "--help"]])
def test_help_imports_no_heavy_module(argv):
    code = ("import sys\n"
            "from evalrank.cli import main\n"
            "try:\n"
            f"    main({argv!r})\n"
            "except SystemExit:\n"
            "    pass\n"
            "print(' '.join(sorted({m.split('.')[0] for m in sys.modules})), file=sys.stderr)\n")
    out = run("-c", code)
    assert out.returncode == 0, out.stderr
    imported = set(out.stderr.split())
    assert "evalrank" in imported and not imported & HEAVY, sorted(imported & HEAVY)


def test_python_m_evalrank_help_imports_no_heavy_module():
    out = run("-X", "importtime", "-m", "evalrank", "stage", "--help")
    assert out.returncode == 0, out.stderr
    names = {line.split("|")[-1].strip().split(".")[0] for line in out.stderr.splitlines() if "|" in line}
    assert "evalrank" in names and not names & HEAVY, sorted(names & HEAVY)


#: either input of `ndcg` (a TREC run, or a LETOR file and scores): no default to show
INPUTS = {"--qrels", "--run", "--letor", "--scores"}


def test_every_option_has_help_and_shows_its_default():
    formatter = HelpFormatter("evalrank")
    for name, parser in commands().items():
        for action in parser._actions:
            if isinstance(action, (argparse._HelpAction, argparse._VersionAction)):
                continue
            text = formatter._get_help_string(action)
            assert action.help and action.help.strip(), (name, action.dest)
            if action.option_strings and not action.required and not (name == "ndcg" and
                                                                      action.option_strings[0] in INPUTS):
                # shown by the formatter, or said in the help (what leaving the option out means)
                assert "default" in text, (name, action.option_strings, text)
        parser.format_help()  # every help string formats


#: the only stage options with a default of their own: no config key sets them (the rest is
#: required, the rules pass the config's value; or None, meaning what the help says)
STAGE_DEFAULTS = {("stage synthesize", "layout"), ("stage synthesize", "threads"),
                  ("stage theory-lists", "stream_partition"), ("stage risk-baseline", "grid")}


def test_stage_options_do_not_repeat_config_defaults():
    got = set()
    for name, parser in commands().items():
        if not name.startswith("stage "):
            continue
        for action in parser._actions:
            if action.option_strings and not action.required and action.default not in (None, argparse.SUPPRESS):
                got.add((name, action.dest))
    assert got == STAGE_DEFAULTS


def test_import_without_snakemake_or_heavy_learners():
    code = (
        "import sys, evalrank, evalrank.metrics, evalrank.io, evalrank.config, evalrank.seeds\n"
        "from evalrank.metrics import ndcg, err, dcg\n"
        "bad = [m for m in ('snakemake', 'lightgbm', 'mord', 'sklearn', 'matplotlib') if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    out = run("-c", code)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""


def test_validate_config_reports_key(tmp_path):
    cfg = tmp_path / "bad.yaml"
    cfg.write_text("name: x\nseed: 1\ndataset: {kind: synthetic, root: d}\nmodels: {threads: 0}\n")
    out = run("-m", "evalrank", "validate-config", str(cfg))
    assert out.returncode == 1
    assert "models.threads" in out.stderr


def test_stage_errors_name_the_stage(tmp_path):
    out = run("-m", "evalrank", "stage", "parse", "--input", str(tmp_path / "none.txt"), "--output",
              str(tmp_path / "o.npz"))
    assert out.returncode == 1 and out.stderr.startswith("evalrank stage parse: error: "), out.stderr
    out = run("-m", "evalrank", "stage", "train", "--model", "rf")
    assert out.returncode == 2 and "evalrank stage train: error: the following arguments are required" in out.stderr
    out = run("-m", "evalrank", "synthesize", "--root", str(tmp_path))  # stages are not top-level commands
    assert out.returncode == 2 and "invalid choice: 'synthesize'" in out.stderr


def test_every_workflow_shell_line_parses(tmp_path):
    """The tiny config's dry run prints every job's shell line: each is one `python -m evalrank
    stage ...` call that the parser accepts (every required option passed, every value typed)."""
    pytest.importorskip("snakemake")
    from dagrun import snakemake

    out = snakemake(tmp_path, "-n", "-p", "--cores", "2")
    lines = [line[line.index("python -m evalrank"):] for line in (out.stdout + out.stderr).splitlines()
             if "python -m evalrank" in line]
    import yaml
    from dagrun import TINY

    tiny = yaml.safe_load(TINY.read_text())
    parser, seen, seeds = build_parser(), set(), set()
    for line in lines:
        argv = shlex.split(re.sub(r"\s2>\s.*$", "", line))[3:]
        assert argv[0] == "stage", line
        try:
            ns = parser.parse_args(argv)
        except SystemExit:
            pytest.fail(f"does not parse: {line}")
        seen.add(ns.command)
        # config values arrive as the config has them (tests/workflow/tiny.yaml)
        if ns.command != "stage synthesize" and getattr(ns, "seed", None) is not None:
            seeds.add(ns.seed)
        if ns.command == "stage active-mc":
            assert ns.budgets == tiny["sawade2012"]["budgets"] and ns.shards == tiny["sawade2012"]["shards"], line
            assert ns.repetitions == tiny["sawade2012"]["repetitions"], line
    # every stage but download and derive-partitions (the tiny config's data are synthetic)
    assert seen == {f"stage {n}" for n in STAGE_NAMES} - {"stage download", "stage derive-partitions"}, seen
    assert seeds == {tiny["seed"]}


def test_stage_flags_read_back_by_the_parser():
    """stage_flags (the rules' one way to pass config values, workflow/rules/common.smk) renders
    options that argparse reads back to the values given, through a shell's word splitting."""
    p = argparse.ArgumentParser()
    p.add_argument("--budgets", type=float, nargs="+")
    p.add_argument("--measures", nargs="+")
    p.add_argument("--grid")
    p.add_argument("--cost-feature", type=int)
    p.add_argument("--sizes", type=int, nargs="*")
    p.add_argument("--root")
    p.add_argument("--dry", action="store_true")
    p.add_argument("--slow", action="store_true")
    grid = {"z": [1, 2], "a": {"nested": "x y"}, "m": "it's"}
    text = stage_flags(budgets=[10, 20.5], measures=["ndcg@10", "log2@frac:0.3"], grid=grid, cost_feature=None,
                       sizes=[], root="a folder/with 'quotes'", dry=True, slow=False)
    ns = p.parse_args(shlex.split(text))
    assert ns.budgets == [10.0, 20.5] and ns.measures == ["ndcg@10", "log2@frac:0.3"]
    assert json.loads(ns.grid) == grid and list(json.loads(ns.grid)) == ["z", "a", "m"]  # the config's order
    assert ns.cost_feature is None and ns.sizes is None and ns.dry is True and ns.slow is False
    assert ns.root == "a folder/with 'quotes'"
    assert "--cost-feature" not in text and "--sizes" not in text and "--slow" not in text
    assert stage_flags() == ""


def test_named_paths_refuses_an_item_without_name_or_path():
    from evalrank.cli.common import named_paths

    assert named_paths(["rf=a/b.pkl", "x=y=z"], "--models") == {"rf": "a/b.pkl", "x": "y=z"}
    for bad in ("rf", "=a.pkl", "rf="):
        with pytest.raises(ValueError, match=rf"--models: expected NAME=PATH, got '{re.escape(bad)}'"):
            named_paths([bad], "--models")


def test_parallel_lists_zips_and_refuses_unequal_lengths():
    """The batched stages' --method/--alpha/--output (risk-learn) and --learner/--convention/--output
    (ndcg-train) are parallel lists: zipped in order, or refused naming every option."""
    from evalrank.cli.common import parallel_lists

    assert parallel_lists({"--method": ["u-cro", "georisk"], "--alpha": [1.0, 5.0], "--output": ["a", "b"]},
                          "learners") == [("u-cro", 1.0, "a"), ("georisk", 5.0, "b")]
    with pytest.raises(ValueError, match=r"^--method, --alpha and --output must name the same number of learners, "
                                         r"got 2, 1 and 2$"):
        parallel_lists({"--method": ["u-cro", "georisk"], "--alpha": [1.0], "--output": ["a", "b"]}, "learners")


def test_shell_python_problem_names_the_python_the_rules_would_run(tmp_path):
    """The pipeline refuses to start when the jobs' `python` cannot import evalrank (each job would
    fail alone with "No module named evalrank"): no python on PATH, or one without evalrank; this
    interpreter's own bin/ passes."""
    import os
    import sys

    from evalrank.cli.common import shell_python_problem

    assert shell_python_problem(os.path.dirname(sys.executable)) is None
    empty = tmp_path / "empty"
    empty.mkdir()
    assert "no `python` on PATH" in shell_python_problem(str(empty))
    other = tmp_path / "other"
    other.mkdir()
    fake = other / "python"
    fake.write_text("#!/bin/sh\nexit 1\n")
    fake.chmod(0o755)
    why = shell_python_problem(str(other))
    assert f"`python` on PATH ({fake})" in why and "cannot import evalrank" in why and ".venv/bin" in why
    ok = tmp_path / "ok"
    ok.mkdir()
    wrapper = ok / "python"  # another bin/ whose python has evalrank
    wrapper.write_text(f"#!/bin/sh\nexec '{sys.executable}' \"$@\"\n")
    wrapper.chmod(0o755)
    assert shell_python_problem(str(ok)) is None


def test_version_at_the_top_level():
    from cli_run import evalrank

    import evalrank as pkg

    out = evalrank("--version")
    assert out.returncode == 0 and out.stdout.strip() == f"evalrank {pkg.__version__}", out
