"""evalrank's own measure vocabulary: :class:`RankMeasure` (``ndcg``, ``dcg``, ``err`` with
options and a cut-off: ``ndcg(convention=gdeval)@20``, ``err(max_grade=3)@20``, Wang's
``zipf@10``) and the parsing of its options and cut-offs (a number or a rule ``frac:c`` /
``pow:a``: :mod:`evalrank.metrics.cutoffs`). Names are parsed by
:func:`evalrank.metrics.names.parse_measure`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from evalrank.metrics.trec_names import _check_size, _digits

__all__ = ["RankMeasure"]

_RANK_FAMILIES = ("ndcg", "dcg", "err")
_RANK_OPTIONS = {"convention", "gain", "discount", "empty", "short", "ties", "precision", "max_grade"}


@dataclass(frozen=True)
class RankMeasure:
    """An evalrank ranking measure: ``family`` ndcg/dcg/err, options, a cut-off
    (None, an int, or a rule ``"frac:c"`` / ``"pow:a"``), and the text it was given as."""

    family: str
    k: int | str | None = None
    options: tuple = field(default_factory=tuple)   # sorted (key, value) pairs
    text: str = ""

    @property
    def columns(self) -> list[str]:
        return [str(self)]

    @property
    def discount(self) -> str:
        return dict(self.options).get("discount", "log2")

    def option(self, key, default=None):
        return dict(self.options).get(key, default)

    def __str__(self) -> str:
        if self.text:
            return self.text
        opts = ",".join(f"{a}={b}" for a, b in self.options)
        head = self.family + (f"({opts})" if opts else "")
        return head if self.k is None else f"{head}@{self.k}"


_RANK_RE = re.compile(r"^(?P<fam>[A-Za-z0-9_]+)(?:\((?P<opts>[^()]*)\))?(?:@(?P<k>.+))?$")


def _rank_cutoff(k: str, name: str):
    from evalrank.metrics.cutoffs import parse_cutoff

    k = k.strip()
    cut = int(k) if _digits(k) else k
    if isinstance(cut, int):
        _check_size(cut, k, name)
    try:
        parse_cutoff(cut)
    except (TypeError, ValueError) as e:
        raise ValueError(f"measure {name!r}: {e}") from None
    return cut


def _option_value(v: str):
    v = v.strip()
    try:
        return int(v)
    except ValueError:
        pass
    try:
        return float(v)
    except ValueError:
        return v


def _check_discount(value, name: str) -> str:
    from evalrank.metrics.discounts import parse_discount

    try:
        return str(parse_discount(str(value)))
    except (TypeError, ValueError) as e:
        raise ValueError(f"measure {name!r}: {e}") from None
