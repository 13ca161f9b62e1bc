"""Measure names: the one vocabulary of the CLI, the library and the stages.

Two families of names.

**trec_eval's measures**, spelled as trec_eval spells them (``-m`` syntax) and
printed as it prints them::

    map  recip_rank  Rprec  ndcg  num_q  num_ret  num_rel  num_rel_ret
    P.5,10      -> P_5, P_10            (cut-offs; trec_eval's defaults when none:
    recall.100  -> recall_100            5,10,15,20,30,100,200,500,1000; success: 1,5,10)
    ndcg_cut.10 -> ndcg_cut_10
    map_cut.k   -> map_cut_k
    success.k   -> success_k

ir_measures-style aliases are accepted and mean the same measure: ``P@5``,
``recall@100``, ``success@10``, ``map@100`` (``map_cut.100``), ``RR`` / ``mrr``
(``recip_rank``), ``R-prec``.

**evalrank's ranking measures**, a family, options and a cut-off::

    ndcg@10   dcg@5   err@20   ndcg   err
    ndcg(convention=gdeval)@20   dcg(gain=linear,discount=zipf)@10   err(max_grade=3)@20
    ndcg(discount=poly:0.5)@frac:0.3            (a cut-off rule growing with the list)

Options are those of :func:`evalrank.metrics.ndcg.ndcg` (``convention``,
``gain``, ``discount``, ``empty``, ``short``, ``ties``, ``precision``) and
``max_grade`` for ERR. Wang et al. (2013) name an NDCG by its discount alone,
and so does the theory stage: ``zipf@10`` is ``ndcg(discount=zipf)@10``,
``log2@frac:0.3`` is ``ndcg(discount=log2)@frac:0.3`` -- written back as given.

:func:`parse_measure` turns a name into a :class:`TrecMeasure` or a
:class:`RankMeasure` and raises ``ValueError`` naming the measure otherwise.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["TrecMeasure", "RankMeasure", "parse_measure", "parse_measures", "TREC_MEASURES", "TREC_ORDER"]

#: trec_eval's measures evalrank computes, with their default cut-offs (None: no cut-off).
TREC_MEASURES = {
    "num_q": None, "num_ret": None, "num_rel": None, "num_rel_ret": None,
    "map": None, "Rprec": None, "recip_rank": None,
    "P": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
    "recall": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
    "ndcg": None,
    "ndcg_cut": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
    "map_cut": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
    "success": (1, 5, 10),
}
#: the order trec_eval prints measures in (its measure table, ``measures.c``), whatever the
#: order of ``-m`` options
TREC_ORDER = ("num_q", "num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "recip_rank", "P", "recall", "ndcg",
              "ndcg_cut", "map_cut", "success")
#: the measures trec_eval prints as integers, summed (not averaged) in the "all" line
COUNTS = ("num_q", "num_ret", "num_rel", "num_rel_ret")

_ALIASES = {"rr": "recip_rank", "mrr": "recip_rank", "r-prec": "Rprec", "rprec": "Rprec", "p": "P"}
_AT_ALIASES = {"p": "P", "recall": "recall", "success": "success", "map": "map_cut", "ndcg_cut": "ndcg_cut",
               "map_cut": "map_cut"}
_RANK_FAMILIES = ("ndcg", "dcg", "err")
_RANK_OPTIONS = {"convention", "gain", "discount", "empty", "short", "ties", "precision", "max_grade"}


@dataclass(frozen=True)
class TrecMeasure:
    """A trec_eval measure: ``name`` (trec_eval's) and its cut-offs (``None``: none)."""

    name: str
    cutoffs: tuple[int, ...] | None = None

    @property
    def columns(self) -> list[str]:
        """The names trec_eval prints: ``P_5``, ``P_10``; ``map``."""
        if self.cutoffs is None:
            return [self.name]
        return [f"{self.name}_{k}" for k in self.cutoffs]

    def __str__(self) -> str:
        return self.name if self.cutoffs is None else f"{self.name}.{','.join(map(str, self.cutoffs))}"


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


_TREC_RE = re.compile(r"^(?P<name>[A-Za-z_\-]+)(?:\.(?P<cuts>[^\s]+))?$")
_RANK_RE = re.compile(r"^(?P<fam>[A-Za-z0-9_]+)(?:\((?P<opts>[^()]*)\))?(?:@(?P<k>.+))?$")


#: the largest cut-off (the engine counts ranks in int64)
MAX_CUTOFF = 2**63 - 1


def _digits(text: str) -> bool:
    """ASCII digits only (``str.isdigit`` takes Arabic-Indic and fullwidth digits too)."""
    return text.isascii() and text.isdigit()


def _check_size(k: int, part: str, name: str) -> None:
    if k > MAX_CUTOFF:
        raise ValueError(f"measure {name!r}: cut-off {part.strip()} is too large (at most {MAX_CUTOFF})")


def _cutoffs(text: str, name: str) -> tuple[int, ...]:
    out = []
    for part in text.split(","):
        if not _digits(part.strip()) or int(part) < 1:
            raise ValueError(f"measure {name!r}: cut-offs must be positive integers separated by commas, got "
                             f"{part!r}")
        _check_size(int(part), part, name)
        out.append(int(part))
    if len(set(out)) != len(out):
        raise ValueError(f"measure {name!r}: a cut-off is repeated (trec_eval: 'Cutoffs must be positive without "
                         "duplicates')")
    return tuple(sorted(out))


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


def parse_measure(name) -> TrecMeasure | RankMeasure:
    """A measure from its name (module docstring); ``ValueError`` names the measure."""
    if isinstance(name, (TrecMeasure, RankMeasure)):
        return name
    if not isinstance(name, str):
        raise TypeError(f"measure: expected a name such as 'ndcg_cut.10' or 'err@20', got {type(name).__name__}")
    text = name.strip()
    if not text:
        raise ValueError("measure: an empty name")
    m = _TREC_RE.match(text)
    if m and "@" not in text:
        base = m.group("name")
        base = base if base in TREC_MEASURES else _ALIASES.get(base.lower(), base)
        if base in TREC_MEASURES:
            cuts = m.group("cuts")
            if cuts is None:
                return TrecMeasure(base, TREC_MEASURES[base])
            if TREC_MEASURES[base] is None:
                if base == "ndcg":
                    raise ValueError(f"measure {name!r}: trec_eval's per-level gains (ndcg.1=3.5,...) are not "
                                     "supported; use dcg/ndcg(gain=...)@k, or relabel the qrels")
                raise ValueError(f"measure {name!r}: {base} takes no cut-offs")
            return TrecMeasure(base, _cutoffs(cuts, name))
    m = _RANK_RE.match(text)
    fam, opts, k = (m.group("fam"), m.group("opts"), m.group("k")) if m else ("", None, None)
    low = fam.lower()
    if opts is None and k is not None and low in _AT_ALIASES:   # P@5, recall@100, map@100
        base = _AT_ALIASES[low]
        return TrecMeasure(base, _cutoffs(k, name))
    if low in _RANK_FAMILIES:
        options = {}
        if opts:
            for item in opts.split(","):
                key, eq, val = item.partition("=")
                key = key.strip()
                if not eq or key not in _RANK_OPTIONS:
                    raise ValueError(f"measure {name!r}: options are key=value with keys {sorted(_RANK_OPTIONS)}, "
                                     f"got {item.strip()!r}")
                options[key] = _option_value(val)
        if "max_grade" in options and low != "err":
            raise ValueError(f"measure {name!r}: max_grade is an option of err only")
        if low == "err" and set(options) - {"max_grade", "ties", "precision"}:
            raise ValueError(f"measure {name!r}: err takes max_grade, ties and precision only")
        if "discount" in options:
            options["discount"] = _check_discount(options["discount"], name)
        cut = None if k is None else _rank_cutoff(k, name)
        canon = RankMeasure(low, cut, tuple(sorted(options.items())))
        return RankMeasure(low, cut, canon.options, str(canon) if text != str(canon) else "")
    # Wang's notation: a discount family alone names an NDCG (theory stage)
    disc, _, k = text.partition("@")
    try:
        from evalrank.metrics.discounts import parse_discount

        d = str(parse_discount(disc.strip()))
    except (TypeError, ValueError) as e:
        raise ValueError(f"{_unknown(name)}, or an NDCG named by its discount ({e})") from None
    cut = None if not k else _rank_cutoff(k, name)
    return RankMeasure("ndcg", cut, (("discount", d),), d if cut is None else f"{d}@{cut}")


def _check_discount(value, name: str) -> str:
    from evalrank.metrics.discounts import parse_discount

    try:
        return str(parse_discount(str(value)))
    except (TypeError, ValueError) as e:
        raise ValueError(f"measure {name!r}: {e}") from None


def _unknown(name) -> str:
    return (f"measure {name!r} is not known: trec_eval's {', '.join(TREC_ORDER)} (e.g. P.5,10, ndcg_cut.10), "
            "or ndcg@k / dcg@k / err@k with options, e.g. ndcg(convention=gdeval)@20")


def parse_measures(names) -> list:
    """Parse several names (a string or an iterable); the same trec_eval measure twice is an error
    (trec_eval would silently keep the first: ``-m P.5 -m P.10`` prints P_5 only)."""
    if isinstance(names, (str, TrecMeasure, RankMeasure)):
        names = [names]
    out, seen = [], {}
    for n in names:
        m = parse_measure(n)
        key = m.name if isinstance(m, TrecMeasure) else str(m)
        if key in seen:
            if isinstance(m, TrecMeasure) and m != seen[key]:
                raise ValueError(f"measure {m.name} given twice ({seen[key]} and {m}): give its cut-offs once, "
                                 f"e.g. {m.name}.{','.join(map(str, sorted(set((seen[key].cutoffs or ()) + (m.cutoffs or ())))))}")
            continue
        seen[key] = m
        out.append(m)
    if not out:
        raise ValueError("measures: give at least one measure")
    return out
