"""MkDocs hooks (mkdocs.yml: hooks): the generated reference pages, written at build time from
the parsers and the schema by docs/reference_gen.py, never committed."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from mkdocs.structure.files import File

_spec = importlib.util.spec_from_file_location("reference_gen", Path(__file__).with_name("reference_gen.py"))
reference_gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(reference_gen)

#: the generated pages: path under docs/ -> the function that writes it
PAGES = {
    "reference/commands.md": reference_gen.command_reference,
    "reference/stages.md": reference_gen.stage_reference,
    "reference/config.md": reference_gen.config_reference,
}


def on_files(files, config):
    for path, make in PAGES.items():
        files.append(File.generated(config, path, content=make()))
    return files
