"""make run's console (evalrank/console.py): a screenful from Snakemake's output."""

from __future__ import annotations

import io
import sys
from pathlib import Path

from evalrank.console import Progress, main, stage_of_rules

ROOT = Path(__file__).resolve().parents[1]

LOG = """\
Building DAG of jobs...
Job stats:
job              count
-------------  -------
synthesize           1
train_model          2
risk_learn           2
all                  1
total                6

rule synthesize:
    output: results/x/data/raw
    log: results/x/logs/data/synthesize.log
    jobid: 3
Finished jobid: 3 (Rule: synthesize)
1 of 6 steps (17%) done
rule train_model:
    jobid: 4
rule train_model:
    jobid: 5
rule risk_learn:
    jobid: 6
Finished jobid: 4 (Rule: train_model)
2 of 6 steps (33%) done
Finished jobid: 5 (Rule: train_model)
3 of 6 steps (50%) done
rule risk_learn:
    jobid: 7
Finished jobid: 6 (Rule: risk_learn)
4 of 6 steps (67%) done
Finished jobid: 7 (Rule: risk_learn)
5 of 6 steps (83%) done
localrule all:
    jobid: 0
Finished jobid: 0 (Rule: all)
6 of 6 steps (100%) done
"""


class Clock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        self.t += 7.0
        return self.t


def test_rules_map_to_their_stage_files():
    known = stage_of_rules(ROOT / "workflow" / "rules")
    assert known["train_model"] == "models" and known["risk_learn"] == "dincer2016" and known["theory_sample"] == "wang2013"
    assert known["active_mc"] == "sawade2012" and known["clicks_dbn"] == "ozertem2011"


def test_a_run_in_a_few_lines():
    out = io.StringIO()
    p = Progress(stage_of_rules(ROOT / "workflow" / "rules"), out=out, every=20.0, clock=Clock())
    for line in LOG.splitlines(True):
        p.feed(line)
    lines = out.getvalue().splitlines()
    text = "\n".join(lines)
    assert "5 jobs to run: data 1, models 2, dincer2016 2" in lines[0]
    for stage, n in (("data", 1), ("models", 2), ("dincer2016", 2)):
        assert f"stage {stage} starts" in text and f"stage {stage} done ({n} jobs)" in text
    assert lines[-1].endswith("6/6 jobs (100%)")
    assert any("running risk_learn x2" in line or "running" in line for line in lines)
    assert len(lines) <= 12            # not one line per job
    assert p.done == p.total == 6 and not p.running


def test_a_failed_job_shows_its_log(tmp_path, capsys):
    log = tmp_path / "job.log"
    log.write_text("step 1\nTraceback...\nValueError: the reason\n")
    fake = tmp_path / "fake_snakemake.py"
    fake.write_text("import sys\nprint('Error in rule train_model:')\nprint('    jobid: 4')\n"
                    f"print('    log: {log} (check log file(s) for error details)')\n"
                    "print('Exiting because a job execution failed.')\nsys.exit(1)\n")
    runner = tmp_path / "snakemake"
    runner.write_text(f"#!/bin/sh\nexec {sys.executable} {fake} \"$@\"\n")
    runner.chmod(0o755)
    rc = main(["--log", str(tmp_path / "smk.log"), "--snakemake", str(runner), "--", "--cores", "1"])
    out = capsys.readouterr().out
    assert rc == 1
    assert "FAILED (exit 1)" in out and "rule train_model:" in out and "ValueError: the reason" in out
    assert (tmp_path / "smk.log").read_text().startswith("Error in rule train_model:")


def test_the_results_dir_is_the_merged_configs_name(tmp_path, monkeypatch, capsys):
    """Snakemake merges --configfile's files in order, so the last `name` decides results/<name>/
    (the log goes there too); `--configfile=FILE` and `--configfiles` count as well."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.yaml").write_text("name: first\nseed: 1\n")
    (tmp_path / "b.yaml").write_text("name: second\n")
    (tmp_path / "c.yaml").write_text("seed: 2\n")           # no name: the earlier one stays
    runner = tmp_path / "snakemake"
    runner.write_text("#!/bin/sh\nexit 0\n")
    runner.chmod(0o755)
    for args, name in ((["--configfile", "a.yaml", "b.yaml", "c.yaml", "--cores", "1"], "second"),
                       (["--configfile=a.yaml", "--cores", "1"], "first"),
                       (["--configfiles", "b.yaml", "a.yaml"], "first"),
                       (["--cores", "1"], "synthetic")):
        assert main(["--snakemake", str(runner), "--", *args]) == 0
        out = capsys.readouterr().out
        assert f"-> results/{name}/" in out, (args, out)
        assert any((tmp_path / "results" / name / "logs").glob("snakemake-*.log")), args
    assert main(["--snakemake", str(runner), "--", "--configfile", "a.yaml", "b.yaml", "c.yaml"]) == 0
    assert "a.yaml + b.yaml + c.yaml -> results/second/" in capsys.readouterr().out


def test_a_config_that_is_not_yaml_is_named_with_its_line_before_snakemake_starts(tmp_path, monkeypatch, capsys):
    """Snakemake's own reader says "not valid JSON or YAML" (or prints a traceback for bytes that
    are not UTF-8) without the file; make run's console reads the config files first."""
    monkeypatch.chdir(tmp_path)
    runner = tmp_path / "snakemake"
    runner.write_text("#!/bin/sh\necho started > started\nexit 0\n")
    runner.chmod(0o755)
    for raw, where in ((b"name: t\nseed: [1\n", "bad.yaml:3:1: not valid YAML"),
                       (b"name: caf\xe9\n", "bad.yaml:1: not UTF-8 text")):
        (tmp_path / "bad.yaml").write_bytes(raw)
        assert main(["--snakemake", str(runner), "--", "--configfile", "bad.yaml"]) == 1
        err = capsys.readouterr().err
        assert err.startswith(f"evalrank.console: error: {where}") and err.count("\n") == 1, err
    assert not (tmp_path / "started").exists() and not (tmp_path / "results").exists()


def test_a_name_the_schema_refuses_does_not_become_the_log_folder(tmp_path, monkeypatch, capsys):
    """A 300-character name: the log goes under results/synthetic/ and the run itself names the key
    (mkdir of results/<name>/logs failed with 'File name too long' and a traceback)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "long.yaml").write_text(f"name: {'a' * 300}\n")
    runner = tmp_path / "snakemake"
    runner.write_text("#!/bin/sh\nexit 0\n")
    runner.chmod(0o755)
    assert main(["--snakemake", str(runner), "--", "--configfile", "long.yaml"]) == 0
    assert "-> results/synthetic/" in capsys.readouterr().out


def test_a_heartbeat_while_a_long_job_prints_nothing():
    """Nothing from Snakemake for a minute while a job runs: one progress line (the job and the
    elapsed time); nothing while nothing runs or a line was printed within the minute."""
    out = io.StringIO()
    t = [0.0]
    p = Progress(stage_of_rules(ROOT / "workflow" / "rules"), out=out, every=60.0, clock=lambda: t[0])
    for line in LOG.splitlines(True)[:21]:     # the stats, one job done, two started
        p.feed(line)
    assert p.running
    before = out.getvalue()
    t[0] = 59.0
    p.heartbeat()
    assert out.getvalue() == before
    t[0] = 125.0
    p.heartbeat()
    new = out.getvalue()[len(before):]
    assert new.startswith("[2:05] ") and "running" in new and "2:05 elapsed" in new
    t[0] = 150.0
    p.heartbeat()
    assert out.getvalue()[len(before):] == new          # printed 25 s ago: quiet


def test_the_console_beats_while_snakemake_is_silent(tmp_path, capsys):
    """A Snakemake that starts a job and says nothing for 1.5 s, with --every 0.3: heartbeat lines."""
    fake = tmp_path / "fake_snakemake.py"
    fake.write_text("import time\nprint('rule train_model:', flush=True)\nprint('    jobid: 4', flush=True)\n"
                    "time.sleep(1.5)\nprint('Finished jobid: 4 (Rule: train_model)')\nprint('1 of 1 steps (100%) done')\n")
    runner = tmp_path / "snakemake"
    runner.write_text(f"#!/bin/sh\nexec {sys.executable} {fake} \"$@\"\n")
    runner.chmod(0o755)
    rc = main(["--log", str(tmp_path / "smk.log"), "--every", "0.3", "--snakemake", str(runner), "--", "--cores", "1"])
    out = capsys.readouterr().out
    assert rc == 0 and out.count("running train_model") >= 2, out
