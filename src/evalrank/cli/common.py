"""What every command module of :mod:`evalrank.cli` shares: the log line, the help
formatter that shows each option's default, the parser class and small argument helpers.

Only the standard library is imported here (``evalrank --help`` must stay light).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

__all__ = ["FORMATS", "HelpFormatter", "Parser", "add_command", "add_format", "check_inputs_and_out", "deprecated", "_log", "named_paths", "partition_map", "stage_flags"]


def same_file(out, path) -> bool:
    """Whether the output ``out`` and the input ``path`` are one file (a link, another spelling
    of the path): writing one would replace the other."""
    try:
        return os.path.samefile(out, path)
    except OSError:   # either does not exist (yet)
        return os.path.abspath(out) == os.path.abspath(path)


def check_inputs_and_out(inputs, out) -> None:
    """What a command that reads ``inputs`` (file paths, '-' for standard input) and writes ``-o
    out`` refuses before reading anything: '-' given more than once (it can be read once), an
    empty ``-o``, and ``-o`` naming one of the inputs (:func:`same_file`: writing it would
    replace the input)."""
    if list(inputs).count("-") > 1:
        raise ValueError("'-' (standard input) is given more than once: it can be read once, as one file")
    if out is None:
        return
    if not out.strip():
        raise ValueError(f"-o {out!r}: an empty file name")
    for path in inputs:
        if path != "-" and same_file(out, path):
            raise ValueError(f"-o {out}: that is the input {path}; writing there would replace it")


#: ``--format`` of every command that prints a table: text for the console (each command's own),
#: the others for programs (:func:`evalrank.io.format_table`)
FORMATS = ("text", "csv", "tsv", "json")


def add_format(s, text: str, default: str = "text", note: str = "") -> None:
    """The ``--format text|csv|tsv|json`` option; ``text``: what the text format is; ``note``: said
    of the default (when it is None: chosen by the command)."""
    s.add_argument("--format", choices=FORMATS, default=default,
                   help=f"text: {text}; csv, tsv: one row per line with a header; json: a list of records{note}")


def deprecated(command: str, old: str, new: str) -> None:
    """The one line on stderr that an old spelling still works, and what replaces it."""
    print(f"evalrank {command}: {old} is deprecated and will be removed in the next release; {new}",
          file=sys.stderr, flush=True)


def _log(msg: str) -> None:
    """One progress line on stderr (into the rule's log)."""
    print(f"[evalrank {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def _show(value) -> str:
    if isinstance(value, (list, tuple)):
        return " ".join(map(str, value))
    return str(value)


class HelpFormatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """Descriptions as written (their line breaks kept); every option's help ends with its
    default, ``(default: 10)``, lists as the command line takes them (``0 1 5``). Required
    options show none, and an option whose default is None says in its own help what leaving
    it out means."""

    def __init__(self, prog, indent_increment=2, max_help_position=32, width=None):
        super().__init__(prog, indent_increment, max_help_position, _terminal_width() - 2 if width is None else width)

    def _get_help_string(self, action):
        text = action.help or ""
        if ("%(default)" in text or action.required or action.default is None
                or action.default is argparse.SUPPRESS or not action.option_strings):
            return text
        return f"{text} (default: {_show(action.default).replace('%', '%%')})"


def _terminal_width() -> int:
    """The help's width as argparse takes it, ``shutil.get_terminal_size().columns`` (``$COLUMNS``,
    else the terminal's, else 80), without importing shutil: argparse builds a formatter for every
    option it adds, and shutil (with bz2 and lzma) was 2.6 ms of a small ``evaluate``'s ~0.16 s."""
    try:
        columns = int(os.environ.get("COLUMNS", 0))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns if columns > 0 else 80


class Parser(argparse.ArgumentParser):
    """An argparse parser with :class:`HelpFormatter`; its sub-parsers are of this class too
    (argparse's default), so a command module that calls ``subparsers.add_parser`` directly
    gets the same help. Each parser records its command (``stage parse``) as the default
    ``command`` of the namespace: the innermost parser's wins, so ``main`` can name the
    command in its one-line errors."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)
        words = self.prog.split()
        self.set_defaults(command=" ".join(words[1:]) if len(words) > 1 else words[0])


def add_command(sub, name: str, func, help: str, description: str | None = None) -> argparse.ArgumentParser:
    """Register command ``name`` (handler ``func``, one-line ``help``) on a sub-parsers
    object and return its parser."""
    s = sub.add_parser(name, help=help, description=description or help[:1].upper() + help[1:] + ".")
    s.set_defaults(func=func)
    return s


def named_paths(items, option: str) -> dict:
    """``NAME=PATH`` items of ``option`` (``--models``, ``--predictions``) -> {name: path}; an item
    without a name or a path is a ``ValueError`` naming the option."""
    out = {}
    for item in items:
        name, _, path = str(item).partition("=")
        if not name or not path:
            raise ValueError(f"{option}: expected NAME=PATH, got {item!r}")
        out[name] = path
    return out


def parallel_lists(lists: dict, what: str) -> list[tuple]:
    """Options given as parallel lists (``--method m1 m2 --alpha a1 a2 --output o1 o2``),
    ``{option: values}`` in order -> their items zipped; lists of different lengths are a
    ``ValueError`` naming the options and ``what`` they count."""
    names, values = list(lists), list(lists.values())
    if len({len(v) for v in values}) > 1:
        counts = [str(len(v)) for v in values]
        raise ValueError(f"{', '.join(names[:-1])} and {names[-1]} must name the same number of {what}, got "
                         f"{', '.join(counts[:-1])} and {counts[-1]}")
    return list(zip(*values))


def partition_map(paths) -> dict:
    """{k: path} of parsed partition files named ``...S<k>.npz``."""
    import re

    out = {}
    for path in paths:
        m = re.search(r"S(\d)\.npz$", str(path))
        if not m:
            raise ValueError(f"partition file names must end in S<k>.npz, got {path}")
        out[int(m.group(1))] = path
    return out


def stage_flags(**options) -> str:
    """The one way a rule hands values to a stage command: ``flags(budgets=[10, 20],
    cost_feature=None, grid={"a": 1})`` -> ``--budgets 10 20 --grid '{"a": 1}'``.

    Each keyword becomes its option (``_`` -> ``-``), in the order given, by the value's type:
    a list or tuple gives its items (none: the option is left out); a mapping gives one JSON
    argument, its keys in the config's order (theory's scorers keep theirs); ``None`` and
    ``False`` leave the option out (a null config key means the stage's documented default);
    ``True`` gives the bare option; anything else its ``str``. Every word is shell-quoted, so the result goes into a shell line as it is
    (``{params.opts}``, no ``:q``). The stage's parser reads it back to the same values (tested).
    """
    import json  # here, not at the top: the commands' start-up (evalrank evaluate) needs neither
    import shlex

    words = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            words.append(flag)
        elif isinstance(value, dict):
            words += [flag, json.dumps(value)]
        elif isinstance(value, (list, tuple)):
            if value:
                words += [flag, *map(str, value)]
        else:
            words += [flag, str(value)]
    return " ".join(shlex.quote(w) for w in words)


def shell_python_problem(path: str | None = None) -> str | None:
    """Why the pipeline's rules, which run ``python -m evalrank ...`` in a shell, would fail from
    this environment, or None. ``path``: the PATH the jobs' shells see (default: this process's).

    The common mistake: ``snakemake`` started from a virtual environment by its full path (or an
    activated one left), while ``python`` on PATH is another interpreter without evalrank; each
    job would then fail alone with "No module named evalrank" in its log. Checked once when the
    DAG is built: the same ``bin/`` as this interpreter passes at once, anything else must
    import evalrank (one short subprocess).
    """
    import os
    import shutil
    import subprocess

    py = shutil.which("python", path=path)
    fix = ("put the environment that has evalrank first on PATH, e.g. `PATH=$PWD/.venv/bin:$PATH snakemake ...` "
           "after `make install`, or use `make run`")
    if py is None:
        return f"the rules run `python -m evalrank`, but there is no `python` on PATH: {fix}"
    if os.path.dirname(os.path.abspath(py)) == os.path.dirname(os.path.abspath(sys.executable)):
        return None
    env = dict(os.environ, **({"PATH": path} if path is not None else {}))
    done = subprocess.run([py, "-c", "import evalrank"], env=env, capture_output=True, timeout=120)
    if done.returncode != 0:
        return (f"the rules run `python -m evalrank`, but `python` on PATH ({py}) cannot import evalrank "
                f"(this Snakemake runs under {sys.executable}): {fix}")
    return None
