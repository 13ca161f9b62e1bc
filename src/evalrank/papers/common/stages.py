"""``evalrank stage findings``: each paper's claims next to this run's numbers
(:mod:`evalrank.papers.common.findings`; ``workflow/rules/findings.smk``) -> ``findings.md`` and
``findings.html`` (the report's page).

Defaults: see :mod:`evalrank.cli` -- an option carrying a config value is required.
"""

from __future__ import annotations

from evalrank.cli.common import _log, add_command

__all__ = ["TITLE", "add_stage_parsers"]

TITLE = "findings (workflow/rules/findings.smk)"


def cmd_findings(a):
    from evalrank import io
    from evalrank.papers.common.findings import collect, render_html, render_markdown

    sections = collect(a.results, a.seed)
    io.atomic_write_text(a.out_md, render_markdown(sections, name=a.name, seed=a.seed))
    io.atomic_write_text(a.out_html, render_html(sections, name=a.name, seed=a.seed))
    n = sum(len(items) for _, items in sections)
    _log(f"{n} findings of {len(sections)} papers -> {a.out_md}, {a.out_html}")


def add_stage_parsers(sub) -> None:
    s = add_command(sub, "findings", cmd_findings,
                    "each paper's claims, our numbers read from the run's tables, verdicts -> findings.md/.html")
    s.add_argument("--results", required=True, help="the run's output directory, results/<name>")
    s.add_argument("--name", required=True, help="the config's name (the page's title)")
    s.add_argument("--seed", required=True, type=int, help="the config's seed (shown on the page; the stream of any resampling a finding does)")
    s.add_argument("--out-md", required=True, help="findings.md to write")
    s.add_argument("--out-html", required=True, help="findings.html to write (the report's page)")
