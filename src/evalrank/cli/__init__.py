"""Command line: ``python -m evalrank COMMAND ...`` (the ``evalrank`` console script).

Two kinds of commands:

- the front door, for users: the commands ``evalrank --help`` lists (``ndcg``, ``risk``,
  ``validate-config``, ...). Each module named in :data:`FRONT_DOOR` exposes
  ``add_parsers(subparsers)`` and registers its commands there; adding a module to that
  tuple is all it takes to add commands.
- ``evalrank stage NAME ...``: the pipeline stage commands, one per Snakemake rule
  (``workflow/rules/*.smk``), listed by ``evalrank stage --help`` in groups. Each module
  named in :data:`STAGES` exposes ``TITLE`` (its group's heading) and
  ``add_stage_parsers(subparsers)``.

Each command parses arguments, calls library functions and writes its files atomically.
Heavy modules (numpy, pandas, the learners, matplotlib, Snakemake) are imported inside the
handlers only, so building the parser -- ``--help`` -- imports none of them (tested).

Defaults live in one place. A stage command option that carries a config value has no
default of its own: it is required, and the rule passes the value of the validated config
(whose defaults come from ``schemas/config.schema.yaml``), always the same way:
``params: opts=flags(...)``, :func:`evalrank.cli.common.stage_flags`. The only stage options
left out are those whose absence means something no config value does, and they default to
None: a config key that may be null (``--train-pairs``, ``--cost-feature``,
``--max-train-queries``, ``clicks-dbn --gamma``), "infer it from the file" (``parse
--n-features``) or "do not write it" (``split --vali``); and a few options no config key
sets (``synthesize --layout``, ``theory-lists --stream-partition``) keep a documented default. The front door's commands
(``ndcg``, ``risk``) have no config behind them and keep sensible documented defaults.
``evalrank <command> --help`` shows every option's default.

Every error ends as one line ``evalrank <command>: error: ...`` on stderr (``evalrank stage
parse: error: ...`` for a stage), exit status 1 (2 for bad arguments, from argparse; 130 on
Ctrl-C), never a traceback; ``EVALRANK_DEBUG=1`` shows the traceback of an unexpected error.
A command about to compile kernels that numba's cache does not hold (the first call after
installing) says so in one line on stderr first (:data:`COMPILING`).
An OS error names the file and the option that gave it (``-o /dev/full: No space left on
device``), never ``[Errno N]``; standard output closed (``>&-``) or full is said so; a reader of
standard output that goes away (``| head``) ends the command quietly, as it ends other Unix tools.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import os
import sys

from evalrank.cli.common import Parser

__all__ = ["main", "build_parser", "FRONT_DOOR", "STAGES", "DEPRECATED", "COMPILING"]

# LightGBM/OpenMP threads busy-wait between parallel regions by default; with
# several jobs sharing few cores that spinning slows every job down.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

#: The user commands' modules, in the order ``evalrank --help`` lists them; each has
#: ``add_parsers(subparsers)``.
FRONT_DOOR = (
    "evalrank.cli.evaluate",
    "evalrank.cli.active",
    "evalrank.cli.ndcg",
    "evalrank.cli.risk",
    "evalrank.cli.validate",
)

#: The stage commands' modules, in the order ``evalrank stage --help`` lists their groups;
#: each has ``TITLE`` and ``add_stage_parsers(subparsers)``.
STAGES = (
    "evalrank.cli.data",
    "evalrank.cli.models",
    "evalrank.papers.sawade2012.stages",
    "evalrank.papers.busafekete2012.stages",
    "evalrank.papers.dincer2016.stages",
    "evalrank.papers.ozertem2011.stages",
    "evalrank.papers.wang2013.stages",
    "evalrank.papers.common.stages",
)

#: User commands kept for one release, listed apart in ``evalrank --help``; each says on stderr
#: what replaces it.
DEPRECATED = ("ndcg",)

STAGE_HELP = "pipeline stage commands (called by the Snakemake rules)"

#: said on stderr (after ``evalrank COMMAND: ``) when a command is about to compile kernels that
#: numba's cache does not hold: the first call after installing (evalrank._jit.on_first_compile)
COMPILING = ("compiling numba kernels on first use (once: later calls load them from numba's cache); this "
             "can take a minute...")

#: Commands whose module's parsers are built alone when a command line starts with them:
#: ``evalrank evaluate`` runs once per run file in shell loops, and building every command's
#: parser costs more than evaluating a small run. Each is registered by its module here
#: (tested against :func:`build_parser`'s whole parser).
FAST = {"evaluate": "evalrank.cli.evaluate", "compare": "evalrank.cli.evaluate"}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or only that of ``command``'s module where ``command``
    is one of :data:`FAST` (the same sub-parser: the same options, help and errors)."""
    if command in FAST:
        p = Parser(prog="evalrank")
        sub = p.add_subparsers(dest="_name", metavar="COMMAND", required=True, help=argparse.SUPPRESS)
        importlib.import_module(FAST[command]).add_parsers(sub)
        p.usage = "%(prog)s [-h] COMMAND [OPTIONS ...]"   # after the sub-parsers, which take their prog from it
        return p
    p = Parser(prog="evalrank",
               epilog="examples:\n"
                      "  evalrank evaluate -m map -m ndcg_cut.10 qrels.txt run.txt\n"
                      "  evalrank compare --baseline bm25 qrels.txt runs/*.txt\n"
                      "  evalrank risk --baseline bm25 qrels.txt runs/*.txt\n\n"
                      "'evalrank COMMAND --help' describes a command and its options, with examples.")
    from evalrank import __version__

    p.add_argument("--version", action="version", version=f"evalrank {__version__}")
    # the listings are written into the descriptions (the sub-parsers' own list is hidden), so
    # that the user commands come first and alone and the stages come in groups
    sub = p.add_subparsers(dest="_name", metavar="COMMAND", required=True, help=argparse.SUPPRESS)
    for name in FRONT_DOOR:
        importlib.import_module(name).add_parsers(sub)
    front = [n for n in sub.choices if n not in DEPRECATED]

    stage = sub.add_parser("stage", help=STAGE_HELP, description=STAGE_HELP)
    stage_sub = stage.add_subparsers(dest="_stage", metavar="STAGE", required=True, help=argparse.SUPPRESS)
    groups = []
    for name in STAGES:
        module = importlib.import_module(name)
        before = set(stage_sub.choices)
        module.add_stage_parsers(stage_sub)
        groups.append((f"{module.TITLE}:", [n for n in stage_sub.choices if n not in before]))

    p.usage = "%(prog)s [-h] COMMAND [OPTIONS ...]"
    p.description = "\n".join([
        "evalrank: measure ranking functions honestly and cheaply.", "",
        _listing([("commands:", front), ("", ["stage"]),
                  ("deprecated (removed in the next release):", list(DEPRECATED))], sub)])
    stage.usage = "%(prog)s [-h] STAGE [OPTIONS ...]"
    stage.description = "\n".join([
        "Pipeline stage commands, one per Snakemake rule (workflow/rules/*.smk): the rules pass every",
        "option that carries a config value ('evalrank stage STAGE --help' shows a stage's options).", "",
        _listing(groups, stage_sub)])
    return p


def _listing(groups, sub) -> str:
    """Command names with their one-line help, in titled groups."""
    helps = {a.dest: a.help for a in sub._choices_actions}
    width = max(len(n) for _, names in groups for n in names) + 2
    lines = []
    for title, names in groups:
        lines += ([""] if lines else []) + ([title] if title else [])
        lines += [f"  {n:<{width}}{helps.get(n) or ''}".rstrip() for n in names]
    return "\n".join(lines)


def main(argv=None) -> int:
    """Run one command. Every error ends as one line ``evalrank <command>: error: ...`` on
    stderr and exit status 1 (2 for bad arguments, from argparse; 130 on Ctrl-C), never a
    traceback; ``EVALRANK_DEBUG=1`` shows the traceback of an unexpected error."""
    # before anything can load libgomp (LightGBM, numba's omp layer): both entry points,
    # `evalrank` and `python -m evalrank`, come here first (evalrank.models._omp says why)
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    words = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(str(words[0]) if words else None)
    args = parser.parse_args(argv)
    if sys.stderr is None:  # 2>&-: print(file=None) would write to stdout
        sys.stderr = open(os.devnull, "w")
    stdout = sys.stdout
    sys.stdout = _Stdout(stdout)
    from evalrank import _jit

    _jit.on_first_compile(lambda: print(f"evalrank {args.command}: {COMPILING}", file=sys.stderr, flush=True))
    try:
        args.func(args)
        sys.stdout.flush()
    except KeyboardInterrupt:
        print(f"evalrank {args.command}: interrupted", file=sys.stderr)
        return 130
    except _StdoutGone:  # '| head': the reader has what it wanted
        _silence_stdout(stdout)
        return 1
    except (ValueError, TypeError, OSError, RuntimeError, LookupError) as e:
        print(f"evalrank {args.command}: error: {_message(e, _options(parser, args, argv))}", file=sys.stderr)
        return 1
    except Exception as e:  # a bug, or a library's own exception type: still one line
        if os.environ.get("EVALRANK_DEBUG"):
            raise
        from evalrank.extras import message_for  # an optional dependency not installed: which extra

        print(f"evalrank {args.command}: error: " + (message_for(e) or f"{type(e).__name__}: {_message(e)} "
              "(EVALRANK_DEBUG=1 shows the traceback)"), file=sys.stderr)
        return 1
    finally:
        _jit.on_first_compile(None)
        if isinstance(sys.stdout, _Stdout):
            sys.stdout = stdout
    return 0


class _StdoutGone(BrokenPipeError):
    """Standard output's reader went away."""


class _Stdout:
    """Standard output as the commands write to it: its OS errors say 'standard output'
    (there is no file name to give), a closed one (``>&-``, ``sys.stdout`` None) fails when
    written to, not before, and a broken pipe is told apart from a FIFO given as ``-o``."""

    def __init__(self, stream):
        self._stream = stream

    def _call(self, name, *a):
        if self._stream is None:
            raise OSError(errno.EBADF, "standard output is closed (Bad file descriptor)")
        try:
            return getattr(self._stream, name)(*a)
        except BrokenPipeError:
            raise _StdoutGone(errno.EPIPE, os.strerror(errno.EPIPE)) from None
        except OSError as e:
            if e.errno is None:
                raise
            raise OSError(e.errno, f"standard output: {e.strerror or os.strerror(e.errno)}") from None

    def write(self, text):
        return self._call("write", text)

    def writelines(self, lines):
        return self._call("writelines", lines)

    def flush(self):
        if self._stream is not None:
            self._call("flush")

    def __getattr__(self, name):
        if self._stream is None:
            raise AttributeError(name)
        return getattr(self._stream, name)


def _silence_stdout(stdout) -> None:
    """Point file descriptor 1 at /dev/null, so that the interpreter's last flush of what is
    still buffered does not fail on the broken pipe again."""
    try:
        fd = stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, fd)
    os.close(null)


def _options(parser, args, argv) -> dict:
    """{value: option} of the path-like options the command was given (``-o out.txt`` ->
    ``{'out.txt': '-o'}``), the option as typed where it can be told."""
    argv = sys.argv[1:] if argv is None else [str(a) for a in argv]
    sub = parser
    while True:  # the innermost parser: 'evalrank stage parse'
        actions = [a for a in sub._actions if isinstance(a, argparse._SubParsersAction)]
        if not actions or getattr(args, actions[0].dest, None) is None:
            break
        sub = actions[0].choices[getattr(args, actions[0].dest)]
    out = {}
    for action in sub._actions:
        if not action.option_strings or action.dest in ("help", "func", "command"):
            continue
        value = getattr(args, action.dest, None)
        typed = next((o for o in action.option_strings
                      if any(t == o or t.startswith(o + "=") or (len(o) == 2 and t.startswith(o) and len(t) > 2)
                             for t in argv)), max(action.option_strings, key=len))
        for v in value if isinstance(value, (list, tuple)) else [value]:
            if isinstance(v, (str, os.PathLike)) and str(v):
                out.setdefault(os.path.normpath(os.fspath(v)), typed)
    return out


def _message(e: BaseException, options: dict | None = None) -> str:
    """The exception's text; for OS errors 'path: reason', with the option that gave the path
    ('-o path: reason'), never '[Errno N]'."""
    if isinstance(e, OSError) and e.filename and e.strerror and str(e.filename) not in e.strerror:
        return f"{_with_option(str(e.filename), options)}: {e.strerror}"
    if isinstance(e, OSError) and e.errno is not None and e.strerror:
        return e.strerror  # no file name: '[Errno 28] ...' would say less
    if isinstance(e, MemoryError):
        return "out of memory"
    text = str(e)
    if isinstance(e, KeyError) and len(e.args) == 1:
        text = f"missing {e.args[0]!r}"
    if isinstance(e, OSError) and options:  # our own 'PATH does not exist' and the like
        for value, opt in options.items():
            if text.startswith(value + " ") or text.startswith(value + ":"):
                return f"{opt} {text}"
    return text or type(e).__name__


def _with_option(path: str, options: dict | None) -> str:
    """``path`` prefixed with the option whose value it is, or lies under (``--out-dir``)."""
    p = os.path.normpath(path)
    best = None
    for value, opt in (options or {}).items():
        if (p == value or p.startswith(value.rstrip(os.sep) + os.sep)) and (best is None or len(value) > len(best[0])):
            best = (value, opt)
    return path if best is None else f"{best[1]} {path}"
