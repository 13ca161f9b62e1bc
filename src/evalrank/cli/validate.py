"""Front door: ``evalrank validate-config CONFIG`` -- validate a workflow config file against
``schemas/config.schema.yaml`` and print it with the schema's defaults filled in (the
config the Snakemake rules see). A bad value, an unknown key or a key given twice in the
file (file:line) ends as one line per problem naming the dotted key, exit status 1, before
any job could start (:mod:`evalrank.config`)."""

from __future__ import annotations

import json

from evalrank.cli.common import add_command

__all__ = ["add_parsers"]


def cmd_validate_config(a):
    from evalrank.config import load_config

    cfg = load_config(a.config)
    print(json.dumps(cfg, indent=2, sort_keys=True))


def add_parsers(sub) -> None:
    s = add_command(sub, "validate-config", cmd_validate_config,
                    "validate a config file (types, ranges, keys given twice) and print it with defaults filled in",
                    description="Validate a workflow config file against the schema (types, ranges, unknown keys,\n"
                                "keys given twice) and print it as JSON with the schema's defaults filled in: the\n"
                                "config the Snakemake rules see. Each problem is one line naming the dotted key.\n\n"
                                "examples:\n"
                                "  evalrank validate-config config/config.yaml\n"
                                "  evalrank validate-config config/paper.yaml | jq .sawade2012")
    s.add_argument("config", help="a workflow config file (YAML), e.g. config/config.yaml")
