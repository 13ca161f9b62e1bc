"""``make run``'s console: Snakemake's run in a screenful, its full output in a log file.

``python -m evalrank.console [--log FILE] -- SNAKEMAKE ARGS...`` runs ``snakemake ARGS`` with
its output (thousands of lines: every job's rule, inputs, outputs and shell command) going to
``FILE`` (default ``results/<config name>/logs/snakemake-<time>.log``), and prints what a person
needs: the config and where its outputs go, the jobs per stage, a progress line whenever a
stage starts or finishes and at most every ``--every`` seconds otherwise (jobs done of all,
percent, elapsed time, what is running) -- and at least that often while jobs run (a heartbeat:
a job of many minutes prints nothing until it ends) -- and at the end where the outputs and logs
are. A
failed job is shown with its rule, its log file and that log's last lines.

A stage is the rule file a rule is written in (``workflow/rules/<stage>.smk``); rules made in
loops (the data rules of each dataset) are found by name prefix.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

__all__ = ["main", "stage_of_rules", "Progress"]

_RULE_DEF = re.compile(r"^\s*(?:rule|checkpoint)\s+(\w+)\s*:", re.M)
_STATS_ROW = re.compile(r"^(\w+)\s+(\d+)\s*$")
_FINISHED = re.compile(r"Finished job(?:id)?:? (\d+)(?: \(Rule: (\w+)\))?")
_STEPS = re.compile(r"^(\d+) of (\d+) steps \((\d+)%\) done")
_RULE_START = re.compile(r"^(?:local)?(?:rule|checkpoint) (\w+):")
_JOBID = re.compile(r"^\s+jobid: (\d+)")
_LOG = re.compile(r"^\s+log: (\S+)")
_ERROR = re.compile(r"^Error in rule (\w+):")


def stage_of_rules(rules_dir: Path) -> dict:
    """``{rule: stage}`` from ``rules_dir/<stage>.smk``'s ``rule NAME:`` lines."""
    out = {}
    for f in sorted(Path(rules_dir).glob("*.smk")):
        for name in _RULE_DEF.findall(f.read_text()):
            out[name] = f.stem
    return out


#: a rule made in a loop (not found in a rule file) by its name's prefix -> its stage, the rule file
#: ``workflow/rules/<stage>.smk`` (risk_download, risk_parse_partition: the learning set of dincer2016)
_PREFIX_STAGE = {"risk": "dincer2016", "ndcg": "busafekete2012", "clicks": "ozertem2011", "theory": "wang2013",
                 "active": "sawade2012"}


def _stage(rule: str, known: dict) -> str:
    if rule in known:
        return known[rule]
    if rule == "all":
        return "all"
    for prefix, stage in _PREFIX_STAGE.items():
        if rule.startswith(prefix + "_"):
            return stage
    return "data"


def _fmt(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


class Progress:
    """Reads Snakemake's output line by line and says, in a few lines, what is happening."""

    def __init__(self, known: dict, out=None, every: float = 60.0, clock=time.monotonic):
        self.known, self.out, self.every, self.clock = known, out, every, clock
        self.start = clock()
        self.last = self.start
        self.total_by_stage: Counter = Counter()
        self.done_by_stage: Counter = Counter()
        self.running: dict = {}        # jobid -> rule
        self.logs: dict = {}           # jobid -> log path
        self.pending_rule = None
        self.in_stats = False
        self.stats_seen = 0
        self.done = self.total = 0
        self.failed: list = []
        self.complete_log = None
        self.nothing = False
        self.said = self.start         # when the last line was printed
        self.lock = threading.Lock()   # feed (the reading loop) and heartbeat (a timer thread) both print

    def say(self, text: str) -> None:
        with self.lock:
            now = self.clock()
            self.said = now
            print(f"[{_fmt(now - self.start)}] {text}", file=self.out or sys.stdout, flush=True)

    def heartbeat(self) -> None:
        """A progress line if nothing was printed for ``every`` seconds while jobs run (a job of
        many minutes prints nothing until it ends: the console still says it is alive)."""
        if self.running and self.clock() - self.said >= self.every:
            running = self._running()
            self.say(f"{self.done}/{self.total} jobs done" + (f"; running {running}" if running else "")
                     + f"; {_fmt(self.clock() - self.start)} elapsed")

    def _running(self) -> str:
        # a snapshot first: the heartbeat's thread calls this while feed adds and removes jobs
        # (list() of a dict's values is one step under the GIL; iterating the dict is not)
        c = Counter(_stage(r, self.known) + ":" + r for r in list(self.running.values()))
        return ", ".join(f"{k.split(':', 1)[1]} x{n}" if n > 1 else k.split(":", 1)[1] for k, n in c.most_common(3))

    def feed(self, line: str) -> None:
        line = line.rstrip("\n")
        if line.startswith("Job stats:"):
            self.in_stats, self.stats_seen = True, self.stats_seen + 1
            self.total_by_stage = Counter()
            return
        if self.in_stats:
            m = _STATS_ROW.match(line)
            if m and m.group(1) not in ("total", "job"):
                self.total_by_stage[_stage(m.group(1), self.known)] += int(m.group(2))
            elif line.startswith("total"):
                self.in_stats = False
                if self.stats_seen == 1:
                    parts = [f"{s} {n}" for s, n in self.total_by_stage.items() if s != "all"]
                    self.say(f"{sum(self.total_by_stage.values()) - self.total_by_stage['all']} jobs to run: "
                             + ", ".join(parts))
            return
        m = _RULE_START.match(line)
        if m:
            self.pending_rule = m.group(1)
            return
        m = _JOBID.match(line)
        if m and self.pending_rule:
            jid = m.group(1)
            first = not any(_stage(r, self.known) == _stage(self.pending_rule, self.known)
                            for r in self.running.values()) and \
                self.done_by_stage[_stage(self.pending_rule, self.known)] == 0
            self.running[jid] = self.pending_rule
            if first and self.pending_rule != "all":
                self.say(f"stage {_stage(self.pending_rule, self.known)} starts ({self.pending_rule})")
            return
        m = _LOG.match(line)
        if m and self.running:
            self.logs[list(self.running)[-1]] = m.group(1)
            return
        m = _FINISHED.search(line)
        if m:
            rule = self.running.pop(m.group(1), m.group(2) or "")
            stage = _stage(rule, self.known)
            self.done_by_stage[stage] += 1
            if stage != "all" and self.done_by_stage[stage] == self.total_by_stage.get(stage, -1):
                self.say(f"stage {stage} done ({self.done_by_stage[stage]} jobs)")
            return
        m = _STEPS.match(line)
        if m:
            self.done, self.total = int(m.group(1)), int(m.group(2))
            now = self.clock()
            if now - self.last >= self.every or self.done == self.total:
                self.last = now
                running = self._running()
                self.say(f"{self.done}/{self.total} jobs ({m.group(3)}%)" + (f"; running {running}" if running
                                                                                else ""))
            return
        m = _ERROR.match(line)
        if m:
            self.failed.append(m.group(1))
            return
        if line.startswith("Complete log"):
            self.complete_log = line.split(":", 1)[1].strip()
        elif line.startswith("Nothing to be done"):
            self.nothing = True


def _failed_logs(log_text: str) -> list[tuple[str, str]]:
    """``(rule, log path)`` of each failed job, from Snakemake's error blocks."""
    out, rule = [], None
    for line in log_text.splitlines():
        m = _ERROR.match(line)
        if m:
            rule = m.group(1)
            continue
        if rule:
            m = _LOG.match(line)
            if m:
                out.append((rule, m.group(1)))
                rule = None
    return out


def _beat(prog: Progress, stop: threading.Event, period: float) -> None:
    """The heartbeat's thread: :meth:`Progress.heartbeat` every ``period`` seconds until ``stop``."""
    while not stop.wait(period):
        prog.heartbeat()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m evalrank.console", description=__doc__.split("\n\n")[0])
    p.add_argument("--log", help="Snakemake's full output goes here (default: results/<name>/logs/snakemake-<time>.log)")
    p.add_argument("--every", type=float, default=60.0, help="seconds between progress lines (default: 60)")
    p.add_argument("--snakemake", default="snakemake", help="the snakemake executable (default: snakemake)")
    p.add_argument("args", nargs=argparse.REMAINDER, help="snakemake's arguments (after --)")
    a = p.parse_args(argv)
    args = [x for x in a.args if x != "--"] if a.args[:1] == ["--"] else a.args
    configs = _config_files(args)
    problem = _config_problem(["config/config.yaml", *configs])
    if problem:  # Snakemake's own reader would say "not valid JSON or YAML", or print a traceback
        print(f"evalrank.console: error: {problem}", file=sys.stderr)
        return 1
    config = " + ".join(configs) if configs else "config/config.yaml"
    name = _config_name(["config/config.yaml", *configs])
    results = Path("results") / name
    log = Path(a.log) if a.log else results / "logs" / f"snakemake-{time.strftime('%Y%m%d-%H%M%S')}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    known = stage_of_rules(Path("workflow/rules"))
    prog = Progress(known, every=a.every)
    prog.say(f"{config} -> {results}/  (full Snakemake output: {log})")
    with open(log, "w") as fh:
        proc = subprocess.Popen([a.snakemake, *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                bufsize=1)
        stop = threading.Event()
        beat = threading.Thread(target=_beat, args=(prog, stop, min(a.every, 10.0)), daemon=True)
        beat.start()
        try:
            for line in proc.stdout:
                fh.write(line)
                prog.feed(line)
        except KeyboardInterrupt:
            proc.terminate()
            proc.wait()
            prog.say(f"interrupted; rerun the same command to resume (done jobs are kept). Log: {log}")
            return 130
        finally:
            stop.set()
        rc = proc.wait()
    if rc == 0:
        if prog.nothing:
            prog.say(f"nothing to do: every output of {config} is up to date under {results}/")
        else:
            prog.say(f"done: {prog.done} jobs in {_fmt(prog.clock() - prog.start)}; outputs under {results}/ "
                     f"(a map: results/README.md), per-job logs under {results}/logs/, Snakemake's log {log}")
        return 0
    prog.say(f"FAILED (exit {rc}) after {prog.done} of {prog.total} jobs; Snakemake's log: {log}")
    for rule, path in _failed_logs(log.read_text(errors="replace"))[:3]:
        print(f"  rule {rule}: {path}", file=sys.stdout)
        tail = Path(path).read_text(errors="replace").splitlines()[-15:] if Path(path).exists() else []
        for t in tail:
            print(f"    {t}", file=sys.stdout)
    if not prog.failed:
        tail = log.read_text(errors="replace").splitlines()[-15:]
        for t in tail:
            print(f"    {t}", file=sys.stdout)
    print("  rerun the same command to resume (done jobs are kept)", file=sys.stdout)
    return rc


def _config_files(args) -> list[str]:
    """The config files of Snakemake's command line, in order: the values after ``--configfile``
    / ``--configfiles`` (up to the next option) and ``--configfile=FILE``."""
    out, taking = [], False
    for x in args:
        if x in ("--configfile", "--configfiles"):
            taking = True
        elif x.startswith(("--configfile=", "--configfiles=")):
            out.append(x.split("=", 1)[1])
            taking = False
        elif taking and not x.startswith("-"):
            out.append(x)
        else:
            taking = False
    return out


def _config_problem(configs) -> str | None:
    """The first config file of ``configs`` that is not YAML evalrank reads (bytes that are not
    UTF-8, a syntax error, a tag, a key given twice, an alias bomb), as one line with file:line
    (:func:`evalrank.config.read_yaml`); None if each one that exists reads."""
    try:
        from evalrank.config import read_yaml
    except ImportError:  # the run's own error says what is missing
        return None
    for config in configs:
        if Path(config).is_file():
            try:
                read_yaml(config)
            except ValueError as e:
                return str(e)
    return None


def _config_name(configs) -> str:
    """The ``name`` (results/<name>/) Snakemake's merged config gets from ``configs`` (the
    Snakefile's default config first, then the command line's files: a later file's ``name``
    wins), without importing yaml for the whole config; ``synthetic`` where none can be read or
    the name is not one the schema allows (the run itself then says why)."""
    name = None
    for config in configs:
        try:
            import yaml

            data = yaml.safe_load(Path(config).read_text()) or {}
        except (OSError, ImportError, ValueError):
            continue
        if isinstance(data, dict) and data.get("name"):
            name = str(data["name"])
    if name is not None and not _name_allowed(name):
        name = None
    return name or "synthetic"


def _name_allowed(name: str) -> bool:
    """``name`` fits config.schema.yaml's rule for the key ``name`` (pattern, length)."""
    try:
        from evalrank.config import read_yaml, schema_path
    except ImportError:
        return True
    rule = read_yaml(schema_path())["properties"]["name"]
    return len(name) <= rule.get("maxLength", len(name)) and re.search(rule.get("pattern", ""), name) is not None


if __name__ == "__main__":
    sys.exit(main())
