"""Findings: each paper's claims next to our numbers, rendered from a run's outputs.

``results/<name>/findings.md`` (and ``findings.html`` for the report) is written by the
``findings`` rule at the end of every config's DAG (``evalrank stage findings``). Per paper,
each claim the paper makes, *our* number, a verdict and the reason for it. Our numbers are
read from the run's tables when the page is rendered, never typed: a number that drifts
from its CSV cannot exist. The paper's own numbers are typed (they are the paper's).

One module per paper (:data:`PAPERS`), each exposing

- ``TITLE``: the paper, as the page's section heading;
- ``REQUIRES``: the output files (relative to ``results/<name>/``) the section reads; if one
  is missing the stage did not run in this config and the section says "not tested";
- ``findings(out: Outputs) -> list[Finding]``: the claims, each with its verdict computed
  from the numbers by a rule stated in the module (so a changed number can change a verdict).

A claim this run does not measure is :meth:`Finding.not_tested` (the one way to say it). The
claims' texts are data (module-level constants), each verdict rule a small function.

Every finding states what the run can resolve (:class:`Power`, issue 30 item 2): the queries (or
topics, sessions) in the pool or behind the test, the Monte Carlo repetitions and the standard
error of the number the verdict compares, and from these the smallest difference the run can
tell (:data:`Z_RESOLVE` standard errors). :func:`powered` turns a verdict into "not tested", with
the numbers, when that resolution is coarser than the tolerance that separates the verdicts, or
the pool is smaller than the claim's stated minimum: a small pool must not read like one of
thousands.

One rule more, which every finding goes through (:func:`within_resolution`, applied when a
:class:`Finding` is made): a verdict is only as strong as the run. A finding whose power names the
number it judges and the thresholds where its verdict changes (:class:`Margin`: ``Power.value`` and
``Power.thresholds`` with the power's resolution, or ``Power.margins`` for a verdict decided by
several numbers, each with the resolution of that number) reads "not tested (resolution …)" when a
judged number lies closer to a threshold than its resolution: the run cannot tell on which side it is.
"""

from __future__ import annotations

import html
import importlib
import math
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Finding", "Power", "Margin", "within_resolution", "Outputs", "VERDICTS", "PAPERS", "Z_RESOLVE", "collect", "render_markdown",
           "render_html", "fmt", "pct", "verdict_within", "is_nan", "powered", "MIN_TEST_N"]

#: The verdicts, in the order the summary counts them.
VERDICTS = ("reproduced", "partly", "not reproduced", "not tested")

#: The papers' modules, in the order the page lists them.
PAPERS = (
    "evalrank.papers.sawade2012.findings",
    "evalrank.papers.busafekete2012.findings",
    "evalrank.papers.dincer2016.findings",
    "evalrank.papers.ozertem2011.findings",
    "evalrank.papers.wang2013.findings",
)


#: A difference counts as resolved when it is at least this many standard errors: the two-sided
#: 95 % normal quantile, rounded (1.96). A verdict whose tolerance is smaller than Z_RESOLVE
#: standard errors of the number it judges cannot be told from its neighbours by this run.
Z_RESOLVE = 2.0

#: The fewest queries (or topics) behind a test (paired t, a z-score per topic, Kendall's tau of
#: orders built from per-query means) whose verdict this page states. The t and z statistics the
#: papers use are normal approximations of a mean over queries; per-query NDCG/ERR differences are
#: bounded, skewed and tied at 0, and the central limit theorem's usual rule of thumb for such
#: means is about 30 (a TREC track, the papers' unit, has 50 topics a year).
MIN_TEST_N = 30


@dataclass(frozen=True)
class Margin:
    """One number a verdict judges against one threshold where the verdict changes, with the
    resolution of *that* number (the smallest difference the run tells; :data:`Z_RESOLVE` standard
    errors of it): ``of`` names the number. :attr:`unresolved` when the number lies closer to the
    threshold than the resolution (NaN numbers or resolutions never are)."""

    of: str
    value: float
    threshold: float
    resolution: float
    percent: bool = False

    @property
    def distance(self) -> float:
        return abs(float(self.value) - float(self.threshold))

    @property
    def unresolved(self) -> bool:
        v, t, r = (float(x) if not is_nan(x) else float("nan") for x in (self.value, self.threshold, self.resolution))
        return not (math.isnan(v) or math.isnan(t) or math.isnan(r)) and abs(v - t) < r

    def _num(self, x) -> str:
        return _number(x, self.percent)

    def text(self) -> str:
        """e.g. "ERR saving 14.6 % against the threshold 15.0 % (resolution 4.0 %)"."""
        return (f"{self.of + ' ' if self.of else ''}{self._num(self.value)} against the threshold "
                f"{self._num(self.threshold)} (resolution {self._num(self.resolution)})")


def _number(x, percent: bool) -> str:
    if not is_nan(x) and float(x) == 0:
        x = 0.0  # not "−0"
    if not percent:
        return fmt(x)
    return pct(x, 1) if is_nan(x) or abs(float(x)) >= 0.001 else f"{fmt(100 * float(x), 2)} %"


@dataclass(frozen=True)
class Power:
    """What a run can resolve for one claim, stated beside its verdict (issue 30 item 2).

    ``n``: the queries (``unit``: or topics, sessions, systems) in the pool or behind the test;
    ``repetitions``: Monte Carlo repetitions (campaigns) behind the number; ``se``: the standard
    error of the number the verdict compares (``of``: what that number is, e.g. "ERR saving"),
    Monte Carlo or sampling (``how`` says which and how it was computed); ``note``: anything else
    in a few words. Every field is optional; :meth:`text` prints those given, one short line.
    """

    n: float | None = None
    unit: str = "queries"
    repetitions: float | None = None
    se: float | None = None
    of: str = ""
    how: str = ""
    note: str = ""
    percent: bool = False
    #: the number the verdict judges (in the unit of ``se``) and the thresholds where the verdict
    #: changes: each a :class:`Margin` with :attr:`resolves` (:meth:`judged`)
    value: float | None = None
    thresholds: tuple = ()
    #: the resolution of the judged number when it is not :data:`Z_RESOLVE` ``se`` (e.g. a rank's
    #: smallest step); None: from ``se``
    resolution: float | None = None
    #: further judged numbers, each with its own resolution (a verdict decided by several numbers)
    margins: tuple = ()

    def __post_init__(self):
        object.__setattr__(self, "thresholds", tuple(self.thresholds))
        object.__setattr__(self, "margins", tuple(self.margins))
        if any(not isinstance(m, Margin) for m in self.margins):
            raise TypeError("Power.margins must hold Margin objects")
        for k in ("n", "repetitions", "se", "resolution"):
            v = getattr(self, k)
            if v is not None and not isinstance(v, (int, float)) and not hasattr(v, "__float__"):
                raise TypeError(f"Power.{k} must be a number or None, got {type(v).__name__}")
            if v is not None and not is_nan(float(v)) and float(v) < 0:
                raise ValueError(f"Power.{k} must be >= 0, got {v}")

    @property
    def resolves(self) -> float:
        """The smallest difference this run resolves: :data:`Z_RESOLVE` standard errors (NaN
        without a standard error)."""
        if self.resolution is not None:
            return float(self.resolution)
        return float("nan") if self.se is None or is_nan(float(self.se)) else Z_RESOLVE * float(self.se)

    def judged(self) -> tuple:
        """The :class:`Margin` s the verdict is judged on: ``value`` against each of ``thresholds``
        (resolution :attr:`resolves`), then ``margins``."""
        own = () if self.value is None else tuple(
            Margin(self.of, self.value, t, self.resolves, self.percent) for t in self.thresholds)
        return own + self.margins

    def _num(self, x) -> str:
        return _number(x, self.percent)

    def text(self) -> str:
        """One line: e.g. "68 queries in the pool; 5,000 campaigns; ERR saving ± 1.2 % (1 se, delta
        method), so differences under 2.4 % are not resolved"."""
        parts = []
        if self.n is not None:
            parts.append(f"{fmt(self.n)} {self.unit}")
        if self.repetitions is not None:
            parts.append(f"{fmt(self.repetitions)} Monte Carlo repetitions")
        if self.se is not None:
            how = f", {self.how}" if self.how else ""
            parts.append(f"{self.of + ' ' if self.of else ''}± {self._num(self.se)} (1 se{how}): differences "
                         f"under {self._num(self.resolves)} are not resolved")
        if self.resolution is not None and self.se is None:
            parts.append(f"{self.of + ' ' if self.of else ''}resolution {self._num(self.resolution)}")
        judged = self.judged()
        if judged:
            near = min(judged, key=lambda m: m.distance / m.resolution
                       if not is_nan(m.resolution) and m.resolution > 0 else math.inf)
            parts.append("judged: " + near.text() + (f", the nearest of {len(judged)} thresholds" if len(judged) > 1
                                                     else ""))
        if self.note:
            parts.append(self.note)
        return "; ".join(parts) if parts else "not stated"

    def shortfall(self, *, tol: float | None = None, min_n: float | None = None, why: str = "") -> str:
        """Why this run cannot support a verdict, or ''. ``min_n``: the smallest pool (in ``unit``)
        the claim needs, ``why`` the reason for that size in a few words; ``tol``: the tolerance
        that separates the verdicts (same unit as ``se``), which :attr:`resolves` must not exceed."""
        out = []
        if min_n is not None and self.n is not None and float(self.n) < min_n:
            out.append(f"{fmt(self.n)} {self.unit} cannot resolve this claim: it needs at least {fmt(min_n)}"
                       + (f" ({why})" if why else ""))
        if tol is not None and self.se is not None and not is_nan(self.resolves) and self.resolves > tol:
            out.append(f"{Z_RESOLVE:g} se of {self.of or 'the number'} ({self._num(self.resolves)}) exceed the "
                       f"tolerance {self._num(tol)} that separates the verdicts")
        return "; ".join(out)


def powered(claim: str, ours: str, verdict: str, reason: str, source: str, power: Power, *,
            tol: float | None = None, min_n: float | None = None, why: str = "") -> Finding:
    """A finding whose verdict stands only if ``power`` resolves it (:meth:`Power.shortfall`):
    otherwise "not tested", the reason first, then what the numbers alone would say."""
    short = power.shortfall(tol=tol, min_n=min_n, why=why) if verdict != "not tested" else ""
    if short:
        return Finding(claim, ours, "not tested", f"not tested: {short}. The numbers alone would read "
                                                  f"\"{verdict}\": {reason}", source, power)
    return Finding(claim, ours, verdict, reason, source, power)


@dataclass(frozen=True)
class Finding:
    """One claim of a paper and what this run says about it.

    ``claim``: the paper's claim in words (with the paper's number, typed: it is the
    paper's). ``ours``: our number(s), formatted from the outputs. ``verdict``: one of
    :data:`VERDICTS`. ``reason``: why that verdict (numbers in it come from the outputs
    too). ``source``: the file(s) ``ours`` was read from, relative to ``results/<name>/``.
    ``power``: what the run resolves for this claim (:class:`Power`), printed on every claim.
    """

    claim: str
    ours: str
    verdict: str
    reason: str
    source: str = ""
    power: Power | None = None

    def __post_init__(self):
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {list(VERDICTS)}, got {self.verdict!r}")
        if self.power is not None and not isinstance(self.power, Power):
            raise TypeError(f"power must be a Power or None, got {type(self.power).__name__}")
        ruled = within_resolution(self.verdict, self.reason, self.power)
        if ruled is not None:  # the one rule every finding goes through (module docstring)
            object.__setattr__(self, "verdict", "not tested")
            object.__setattr__(self, "reason", ruled)

    def with_power(self, power: Power, **rule) -> Finding:
        """This finding with ``power`` attached and its verdict re-judged by :func:`powered`
        (``rule``: its ``tol``, ``min_n``, ``why``). The judged numbers of this finding's own power
        (:attr:`Power.margins`, each with its resolution) are carried over to ``power``; a verdict
        already made "not tested" by :func:`within_resolution` stays so."""
        if self.power is not None and self.power.margins:
            from dataclasses import replace

            power = replace(power, margins=tuple(power.margins) + tuple(m for m in self.power.margins
                                                                          if m not in power.margins))
        return powered(self.claim, self.ours, self.verdict, self.reason, self.source, power, **rule)

    @property
    def resolves(self) -> str:
        """The "resolves" line: the power's text; for a claim without one, "nothing measured" when
        it is not tested, else "not stated"."""
        if self.power is not None:
            return self.power.text()
        return "nothing measured" if self.verdict == "not tested" else "not stated"

    @classmethod
    def not_tested(cls, claim: str, reason: str, source="", power: Power | None = None) -> Finding:
        """The one way to say a claim is not measured by this run: ``ours`` is "—", the verdict
        "not tested", ``reason`` says why (a stage or a row the config lacks). ``source``: a file,
        or several (joined by ", ")."""
        if not isinstance(source, str):
            source = ", ".join(source)
        return cls(claim=claim, ours="—", verdict="not tested", reason=reason, source=source, power=power)


def within_resolution(verdict: str, reason: str, power: Power | None) -> str | None:
    """The rule every finding goes through (applied by :class:`Finding` itself): a verdict is only
    as strong as the run. When a number the verdict judges lies closer to a threshold where the
    verdict changes than that number's resolution (:meth:`Power.judged`, :attr:`Margin.unresolved`),
    the finding reads "not tested (resolution …)": returns that reason, naming the number, the
    threshold and the resolution, then what the numbers alone would say; None when the verdict
    stands (already "not tested", no power, nothing judged, or every judged number resolved)."""
    if verdict == "not tested" or power is None:
        return None
    near = [m for m in power.judged() if m.unresolved]
    if not near:
        return None
    m = min(near, key=lambda m: m.distance)
    more = f" (and {len(near) - 1} more judged number(s) inside theirs)" if len(near) > 1 else ""
    return (f"not tested (resolution {m._num(m.resolution)}): {m.of + ' ' if m.of else ''}{m._num(m.value)} lies "
            f"{m._num(m.distance)} from the threshold {m._num(m.threshold)} where the verdict changes, inside the "
            f"resolution{more}: this run cannot tell on which side it is. The numbers alone would read "
            f"\"{verdict}\": {reason}")


class Outputs:
    """A run's output directory, ``results/<name>/``: tables read on demand (cached); ``seed`` the
    config's seed, from which any resampling a finding does draws its stream."""

    def __init__(self, root, seed: int = 0):
        self.root = Path(root)
        self.seed = int(seed)
        self._cache = {}

    def has(self, *rel: str) -> bool:
        return all((self.root / r).is_file() for r in rel)

    def missing(self, rel) -> list[str]:
        """The files of ``rel`` (relative paths) that this run does not have."""
        return [r for r in rel if not (self.root / r).is_file()]

    def path(self, rel: str) -> Path:
        p = self.root / rel
        if not p.is_file():
            raise FileNotFoundError(f"{p}: no such output (is its stage enabled in this config?)")
        return p

    def csv(self, rel: str):
        """The table ``rel`` as a pandas DataFrame."""
        if rel not in self._cache:
            import pandas as pd

            self._cache[rel] = pd.read_csv(self.path(rel))
        return self._cache[rel]

    def text(self, rel: str) -> str:
        return self.path(rel).read_text(encoding="utf-8")


def is_nan(x) -> bool:
    """None or a float NaN: a number the tables do not have."""
    return x is None or (isinstance(x, float) and math.isnan(x))


def fmt(x, digits: int = 3) -> str:
    """``x`` with ``digits`` significant digits (thousands separated for large integers);
    'n/a' for NaN or None."""
    if is_nan(x):
        return "n/a"
    x = float(x)
    if math.isnan(x):  # a numpy NaN
        return "n/a"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    if x == int(x) and abs(x) >= 1000:
        return f"{int(x):,}"
    s = f"{x:.{digits}g}"
    if "e" in s:
        mant, exp = s.split("e")
        return f"{mant}·10^{int(exp)}"
    return s.replace("-", "−")


def pct(x, digits: int = 1) -> str:
    """A share (0.123) as a percentage ('12.3 %')."""
    if is_nan(x):
        return "n/a"
    return f"{100 * float(x):.{digits}f} %".replace("-", "−")


def verdict_within(ours: float, paper: float, *, rel: float | None = None, abs_: float | None = None,
                   partly_factor: float = 3.0) -> str:
    """'reproduced' when ``|ours - paper|`` is within the tolerance (``rel`` of ``|paper|`` or
    ``abs_``), 'partly' within ``partly_factor`` times it, else 'not reproduced'."""
    if is_nan(ours):
        return "not tested"
    tol = (abs(paper) * rel if rel is not None else 0.0) + (abs_ or 0.0)
    d = abs(float(ours) - float(paper))
    if d <= tol:
        return "reproduced"
    if d <= partly_factor * tol:
        return "partly"
    return "not reproduced"


def collect(root, seed: int = 0) -> list[tuple[str, list[Finding]]]:
    """``[(paper title, findings)]`` for every paper of :data:`PAPERS` from the outputs under
    ``root`` (``seed``: the config's, :class:`Outputs`); a paper whose ``REQUIRES`` are not all
    there gets one 'not tested' finding."""
    out = Outputs(root, seed)
    sections = []
    for name in PAPERS:
        module = importlib.import_module(name)
        missing = out.missing(module.REQUIRES)
        if missing:
            items = [Finding.not_tested("every claim of the paper: its stage does not run in this config",
                                        "its stage is not part of this config (no " + ", ".join(missing) + ")")]
        else:
            items = list(module.findings(out))
        sections.append((module.TITLE, items))
    return sections


def _counts(items) -> dict:
    return {v: sum(f.verdict == v for f in items) for v in VERDICTS}


HEADER = ("Rendered from this run's tables by `evalrank stage findings`: every number under *ours* "
          "is read from the file named with it when this page is written; the papers' numbers are "
          "the papers'. Verdicts: **reproduced** (our number agrees within the stated tolerance, or "
          "the claimed pattern holds), **partly** (part of the claim holds, or the agreement is "
          "loose), **not reproduced** (our data contradict it), **not tested** (this config does not "
          "measure it, or cannot resolve it: too few queries, a Monte Carlo error larger than the "
          "tolerance, or a judged number closer to the threshold where its verdict changes than its "
          "resolution: \"not tested (resolution …)\"). **resolves** states, per claim, the queries behind our number, the Monte Carlo "
          "repetitions and the standard error of the number the verdict compares.")


def render_markdown(sections, *, name: str, seed) -> str:
    lines = [f"# Findings: `{name}` (seed {seed})", "", HEADER, "",
             "| paper | " + " | ".join(VERDICTS) + " |", "|---|" + "---|" * len(VERDICTS)]
    for title, items in sections:
        c = _counts(items)
        lines.append(f"| {title} | " + " | ".join(str(c[v]) for v in VERDICTS) + " |")
    for title, items in sections:
        lines += ["", f"## {title}", ""]
        for i, f in enumerate(items, 1):
            lines += [f"### {i}. {f.claim}", "",
                      f"- **ours:** {f.ours}" + (f" (`{f.source}`)" if f.source else ""),
                      f"- **verdict:** {f.verdict}",
                      f"- **resolves:** {f.resolves}",
                      f"- **why:** {f.reason}", ""]
    return "\n".join(lines).rstrip() + "\n"


def _inline(text: str) -> str:
    """Markdown's `code` and **bold** as HTML, the rest escaped."""
    import re

    s = html.escape(text)
    s = re.sub(r"`([^`]+)`", r"<code>\1</code>", s)
    return re.sub(r"\*\*([^*]+)\*\*", r"<b>\1</b>", s)


def render_html(sections, *, name: str, seed) -> str:
    css = ("body{font-family:sans-serif;max-width:60em;margin:1em auto;line-height:1.4}"
           "table{border-collapse:collapse}td,th{border:1px solid #bbb;padding:2px 8px}"
           ".reproduced{color:#176e17}.partly{color:#9a6a00}.not-reproduced{color:#b21b1b}"
           ".not-tested{color:#666}")
    out = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>Findings: {html.escape(name)}</title>"
           f"<style>{css}</style></head><body>",
           f"<h1>Findings: <code>{html.escape(name)}</code> (seed {html.escape(str(seed))})</h1>",
           f"<p>{_inline(HEADER)}</p>",
           "<table><tr><th>paper</th>" + "".join(f"<th>{v}</th>" for v in VERDICTS) + "</tr>"]
    for title, items in sections:
        c = _counts(items)
        out.append(f"<tr><td>{_inline(title)}</td>" + "".join(f"<td>{c[v]}</td>" for v in VERDICTS) + "</tr>")
    out.append("</table>")
    for title, items in sections:
        out.append(f"<h2>{_inline(title)}</h2><ol>")
        for f in items:
            cls = f.verdict.replace(" ", "-")
            src = f" (<code>{html.escape(f.source)}</code>)" if f.source else ""
            out.append(f"<li><p><b>{_inline(f.claim)}</b></p><ul><li><b>ours:</b> {_inline(f.ours)}{src}</li>"
                       f"<li><b>verdict:</b> <span class='{cls}'>{f.verdict}</span></li>"
                       f"<li><b>resolves:</b> {_inline(f.resolves)}</li>"
                       f"<li><b>why:</b> {_inline(f.reason)}</li></ul></li>")
        out.append("</ol>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"
