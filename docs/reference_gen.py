"""The documentation's generated pages: the command reference from the argparse parsers
(:func:`evalrank.cli.build_parser`) and the configuration reference from the JSON schema
(``src/evalrank/schemas/config.schema.yaml``).

``docs/hooks.py`` calls these at every ``mkdocs build`` / ``mkdocs serve``, so the pages are never
committed and cannot go stale; ``tests/test_docs.py`` calls them on a parser and a schema it
extends. Only the standard library, PyYAML and evalrank are imported.
"""

from __future__ import annotations

import argparse
import html
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "src" / "evalrank" / "schemas" / "config.schema.yaml"
#: the width the usage lines are wrapped at (the terminal's does not matter)
WIDTH = 100

__all__ = ["command_reference", "stage_reference", "config_reference", "schema_keys", "front_door_commands"]


def cell(text) -> str:
    """Text for a Markdown table cell: nothing in it is read as Markdown or HTML."""
    return html.escape(" ".join(str(text).split()), quote=False).translate(_ENTITIES)


#: the characters Markdown would read, as HTML entities
_ENTITIES = str.maketrans({ch: f"&#{ord(ch)};" for ch in "|*_`[]\\#"})


def code(text) -> str:
    """Text as inline code in a table cell (a code span; HTML where it holds a pipe or a backtick)."""
    text = " ".join(str(text).split())
    return f"<code>{cell(text)}</code>" if "|" in text or "`" in text else f"`{text}`"


def fence(text: str) -> str:
    return "```text\n" + text.rstrip("\n").replace("```", "'''") + "\n```\n"


# -- commands ----------------------------------------------------------------------------------
def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """A parser's sub-commands, each once (aliases left out), in their order."""
    out = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            seen = set()
            for name, sub in action.choices.items():
                if id(sub) not in seen:
                    seen.add(id(sub))
                    out[name] = sub
    return out


def front_door_commands(parser: argparse.ArgumentParser | None = None) -> list[str]:
    """The user commands ``evalrank --help`` lists, sub-commands as ``active plan``."""
    parser = parser or _parser()
    names = []
    for name, sub in _subparsers(parser).items():
        if name == "stage":
            continue
        inner = _subparsers(sub)
        names += [f"{name} {n}" for n in inner] if inner else [name]
    return names


def _parser() -> argparse.ArgumentParser:
    from evalrank.cli import build_parser

    return build_parser()


def _formatter(parser: argparse.ArgumentParser):
    return parser.formatter_class(prog=parser.prog, width=WIDTH)


def _usage(parser: argparse.ArgumentParser) -> str:
    f = _formatter(parser)
    f.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups)
    return f.format_help().strip()


def _options_table(parser: argparse.ArgumentParser) -> str:
    f = _formatter(parser)
    rows = []
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)) or action.help == argparse.SUPPRESS:
            continue
        invocation = f._format_action_invocation(action)
        try:
            help_text = f._expand_help(action) if action.help is not None else f._get_help_string(action)
        except (TypeError, ValueError, KeyError):   # a help string with a stray '%'
            help_text = action.help or ""
        if action.required and action.option_strings:
            help_text = f"(required) {help_text}"
        rows.append(f"| {code(invocation)} | {cell(help_text)} |")
    if not rows:
        return ""
    return "| option | what it does (default) |\n| --- | --- |\n" + "\n".join(rows) + "\n"


def _command_section(parser: argparse.ArgumentParser, level: int) -> list[str]:
    """One command: its heading, description, usage and options, then its sub-commands."""
    out = [f"{'#' * level} `{parser.prog}`\n"]
    if parser.description:
        out.append(fence(parser.description))
    out.append("Usage:\n\n" + fence(_usage(parser)))
    table = _options_table(parser)
    if table:
        out.append(table)
    if parser.epilog:
        out.append(fence(parser.epilog))
    for sub in _subparsers(parser).values():
        out += _command_section(sub, min(level + 1, 4))
    return out


def command_reference(parser: argparse.ArgumentParser | None = None) -> str:
    """The user commands (``evalrank --help``'s), every option with its help and default, as
    Markdown; ``parser`` is :func:`evalrank.cli.build_parser`'s unless given."""
    parser = parser or _parser()
    out = ["# Command reference\n",
           "Generated from the command-line parsers (`evalrank.cli.build_parser`) when the site is built: "
           "it is what `evalrank COMMAND --help` prints. The pipeline's stage commands are on "
           "[their own page](stages.md).\n",
           f"## `{parser.prog}`\n", fence(parser.description or ""), "Usage:\n\n" + fence(_usage(parser))]
    table = _options_table(parser)
    if table:
        out.append(table)
    for name, sub in _subparsers(parser).items():
        if name != "stage":
            out += _command_section(sub, 2)
    return "\n".join(out)


def stage_reference(parser: argparse.ArgumentParser | None = None) -> str:
    """``evalrank stage NAME``: the pipeline's commands, one per Snakemake rule, as Markdown."""
    parser = parser or _parser()
    stage = _subparsers(parser)["stage"]
    out = ["# Stage commands\n",
           "Generated from the parsers like the [command reference](commands.md). The Snakemake rules call "
           "these (`python -m evalrank stage NAME ...`) and pass every option that carries a config value; "
           "you need them only to run one step by hand.\n",
           f"## `{stage.prog}`\n", fence(stage.description or "")]
    for sub in _subparsers(stage).values():
        out += _command_section(sub, 3)
    return "\n".join(out)


# -- configuration -----------------------------------------------------------------------------
def _load_schema(schema):
    if schema is None or isinstance(schema, (str, Path)):
        import yaml

        return yaml.safe_load(Path(schema or SCHEMA).read_text(encoding="utf-8"))
    return schema


def _target(schema: dict, ref: str) -> dict:
    node = schema
    for part in ref.lstrip("#/").split("/"):
        node = node[part]
    return node


def _is_block(node: dict) -> bool:
    return isinstance(node, dict) and "properties" in node


def _def_name(ref: str) -> str | None:
    """'#/$defs/dataset' -> 'dataset' (a whole $defs entry), else None."""
    parts = ref.lstrip("#/").split("/")
    return parts[1] if len(parts) == 2 and parts[0] == "$defs" else None


def _resolved(schema: dict, node: dict) -> dict:
    """A leaf's own keys over its $ref target's (recursively)."""
    if isinstance(node, dict) and "$ref" in node:
        base = _resolved(schema, _target(schema, node["$ref"]))
        return {**base, **{k: v for k, v in node.items() if k != "$ref"}}
    return node


def _merge(base: dict, over: dict) -> dict:
    """``over``'s keys over ``base``'s; its ``properties`` (only those) merged with base's, recursively."""
    out = {**{k: v for k, v in base.items() if k != "properties"}, **over}
    if "properties" in over:
        props = base.get("properties", {})
        out["properties"] = {k: _merge(_resolved_props(props.get(k, {})), v) for k, v in over["properties"].items()}
    return out


def _resolved_props(node):
    return node if isinstance(node, dict) else {}


def _range(node: dict) -> str:
    parts = []
    for key, sign in (("minimum", "≥"), ("exclusiveMinimum", ">"), ("maximum", "≤"), ("exclusiveMaximum", "<")):
        if key in node and not isinstance(node[key], bool):
            parts.append(f"{sign} {node[key]}")
    return (" " + ", ".join(parts)) if parts else ""


def _type(schema: dict, node: dict, depth: int = 0) -> str:
    node = _resolved(schema, node)
    if depth > 3:
        return "value"
    if "const" in node:
        return json.dumps(node["const"])
    if "enum" in node:
        return "one of " + ", ".join(json.dumps(v) if not isinstance(v, str) else v for v in node["enum"])
    for key in ("oneOf", "anyOf"):
        if key in node:
            return " or ".join(_type(schema, n, depth + 1) for n in node[key])
    types = node.get("type")
    types = [types] if isinstance(types, str) else list(types or [])
    words = []
    for t in types:
        if t == "array" and "items" in node:
            words.append(f"list of ({_type(schema, node['items'], depth + 1)})")
        elif t == "object" and not node.get("properties") and isinstance(node.get("additionalProperties"), dict):
            words.append(f"map of name → ({_type(schema, node['additionalProperties'], depth + 1)})")
        elif t == "object" and node.get("properties"):
            words.append("section")
        else:
            words.append(t)
    if not words:
        return "section" if node.get("properties") else "value"
    return " or ".join(words) + (_range(node) if any(t in ("integer", "number") for t in types) else "")


def _default(node: dict) -> str:
    if "default" not in node:
        return ""
    return code(json.dumps(node["default"], ensure_ascii=False))


def _rows(schema: dict, props: dict, prefix: str, required=()) -> list[str]:
    rows = []
    for key, node in props.items():
        dotted = f"{prefix}{key}"
        ref = node.get("$ref") if isinstance(node, dict) else None
        block = _def_name(ref) if ref else None
        desc = node.get("description") or _resolved(schema, node).get("description", "")
        if block and _is_block(_target(schema, ref)):
            what = f"a {block} block: see [{block}](#defs-{block.replace('_', '-')})"
            rows.append(f"| {code(dotted)} | {what} | {_default(node)} | {cell(desc)} |")
            if _is_block(node):   # the keys this place sets apart from the block's
                merged = _merge(_target(schema, ref), node)["properties"]
                rows += _rows(schema, merged, dotted + ".")
            continue
        default = _default(node) or ("required" if key in required else "")
        rows.append(f"| {code(dotted)} | {cell(_type(schema, node))} | {default} | {cell(desc)} |")
        if _is_block(node):
            rows += _rows(schema, node["properties"], dotted + ".", node.get("required", ()))
    return rows


TABLE_HEAD = "| key | type | default | description |\n| --- | --- | --- | --- |\n"


def config_reference(schema=None) -> str:
    """Every key of the config schema, dotted, with its type, default and description, as
    Markdown: one table per top-level section, then the shared blocks of ``$defs``."""
    schema = _load_schema(schema)
    props = schema.get("properties", {})
    required = schema.get("required", ())
    out = ["# Configuration reference\n",
           "Generated from the config schema (`src/evalrank/schemas/config.schema.yaml`) when the site is "
           "built: every key, dotted as `evalrank validate-config` and the error messages name it, with "
           "its type, default and description. A key left out takes its default; `evalrank "
           "validate-config FILE` prints a config with every default filled in.\n",
           cell(schema.get("description", "")) + "\n",
           "## Top level\n", TABLE_HEAD + "\n".join(
               _rows(schema, {k: v for k, v in props.items() if not _is_block(v)}, "", required)) + "\n"]
    for key, node in props.items():
        if _is_block(node):
            out += [f"## `{key}`\n", cell(node.get("description", "")) + "\n",
                    TABLE_HEAD + "\n".join(_rows(schema, {key: node}, "", required)) + "\n"]
    defs = {k: v for k, v in schema.get("$defs", {}).items() if _is_block(v)}
    if defs:
        out.append("## Shared blocks\n\nSections of the schema used in more than one place (`$defs`).\n")
    for name, node in defs.items():
        out += [f"### {name} {{ #defs-{name.replace('_', '-')} }}\n", cell(node.get("description", "")) + "\n",
                TABLE_HEAD + "\n".join(_rows(schema, node["properties"], f"{name}.", node.get("required", ()))) + "\n"]
    return "\n".join(out)


def schema_keys(schema=None) -> list[str]:
    """The dotted keys :func:`config_reference` lists (top-level sections and shared blocks)."""
    import re

    return re.findall(r"^\| `([^`]+)` \|", config_reference(schema), flags=re.M)
