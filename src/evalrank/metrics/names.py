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

_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_RECALL_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


@dataclass(frozen=True)
class TrecFamily:
    """How trec_eval 9.0.8 handles one of its measures (its ``TREC_MEAS`` struct in ``m_*.c``).

    ``params``: what ``-m name.params`` takes -- ``None`` (nothing), ``"cut_long"`` (cut-offs
    read with ``atol``, sorted, one column each: ``P_5``), ``"cut_float"`` (``atof``, sorted,
    ``iprec_at_recall_0.10``), ``"float"`` (a list of floats, one column, named ``name_<params
    as typed>`` when given: ``set_F_0.5``) or ``"pairs"`` (``level=gain`` pairs, likewise:
    ``ndcg_0=0,1=1``); ``default``: the parameters without ``.params``; ``aggregate``: the
    ``all`` line -- ``"mean"`` (sum in topic order / topics), ``"sum"`` (counts), ``"gm"``
    (geometric mean of max(v, 1e-5)), ``"num_q"``, ``"runid"``, ``"none"`` (no ``all`` line);
    ``per_query``: printed per topic with ``-q``; ``fmt``: ``"float"`` (%6.4f), ``"long"``
    (%ld of the value cast to long) or ``"string"``.
    """

    params: str | None = None
    default: tuple | None = None
    aggregate: str = "mean"
    per_query: bool = True
    fmt: str = "float"


_COUNT = TrecFamily(aggregate="sum", fmt="long")
#: trec_eval 9.0.8's measures (standard qrels and results formats), in the order of its measure
#: table (``measures.c``): the order it prints them in, whatever the order of ``-m`` options
TREC_FAMILIES = {
    "runid": TrecFamily(aggregate="runid", per_query=False, fmt="string"),
    "num_q": TrecFamily(aggregate="num_q", per_query=False, fmt="long"),
    "num_ret": _COUNT, "num_rel": _COUNT, "num_rel_ret": _COUNT,
    "map": TrecFamily(),
    "gm_map": TrecFamily(aggregate="gm", per_query=False),
    "Rprec": TrecFamily(),
    "bpref": TrecFamily(),
    "recip_rank": TrecFamily(),
    "iprec_at_recall": TrecFamily("cut_float", _RECALL_POINTS),
    "P": TrecFamily("cut_long", _CUTS),
    "relstring": TrecFamily("float", (10.0,), aggregate="none", fmt="string"),
    "recall": TrecFamily("cut_long", _CUTS),
    "infAP": TrecFamily(),
    "gm_bpref": TrecFamily(aggregate="gm", per_query=False),
    "Rprec_mult": TrecFamily("cut_float", (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)),
    "utility": TrecFamily("float", (1.0, -1.0, 0.0, 0.0)),
    "11pt_avg": TrecFamily("float", _RECALL_POINTS),
    "binG": TrecFamily(),
    "G": TrecFamily("pairs"),
    "ndcg": TrecFamily("pairs"),
    "ndcg_rel": TrecFamily("pairs"),
    "Rndcg": TrecFamily("pairs"),
    "ndcg_cut": TrecFamily("cut_long", _CUTS),
    "map_cut": TrecFamily("cut_long", _CUTS),
    "relative_P": TrecFamily("cut_long", _CUTS),
    "success": TrecFamily("cut_long", (1, 5, 10)),
    "set_P": TrecFamily(), "set_relative_P": TrecFamily(), "set_recall": TrecFamily(), "set_map": TrecFamily(),
    "set_F": TrecFamily("float", (1.0,)),
    "num_nonrel_judged_ret": _COUNT,
    # -R qrels_jg only (evalrank.evaluation.judgment_groups)
    "map_avgjg": TrecFamily(),
    "P_avgjg": TrecFamily("cut_long", _CUTS),
    "Rprec_mult_avgjg": TrecFamily("cut_float", (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)),
}
#: trec_eval's measures evalrank computes, with their default parameters (None: none)
TREC_MEASURES = {name: f.default for name, f in TREC_FAMILIES.items()}
#: the order trec_eval prints measures in
TREC_ORDER = tuple(TREC_FAMILIES)
#: the measures trec_eval prints as integers, summed (not averaged) in the "all" line
COUNTS = tuple(n for n, f in TREC_FAMILIES.items() if f.fmt == "long")
#: trec_eval's nicknames for sets of measures (``measures.c``): ``-m all_trec``
NICKNAMES = {
    "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P"),
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
            "set_relative_P", "set_map", "set_F"),
    "all_trec": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "utility",
                 "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut", "ndcg_cut", "ndcg_rel",
                 "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map", "set_F",
                 "num_nonrel_judged_ret"),
}
NICKNAMES["qrels_jg"] = ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg")
#: what trec_eval prints without -m
DEFAULT_SET = NICKNAMES["official"]

_ALIASES = {"rr": "recip_rank", "mrr": "recip_rank", "r-prec": "Rprec", "rprec": "Rprec", "p": "P"}
_AT_ALIASES = {"p": "P", "recall": "recall", "success": "success", "map": "map_cut", "ndcg_cut": "ndcg_cut",
               "map_cut": "map_cut"}
_RANK_FAMILIES = ("ndcg", "dcg", "err")
_RANK_OPTIONS = {"convention", "gain", "discount", "empty", "short", "ties", "precision", "max_grade"}


@dataclass(frozen=True)
class TrecMeasure:
    """A trec_eval measure: ``name`` (trec_eval's), its parameters (``cutoffs``: cut-offs, float
    parameters or ``(level, gain)`` pairs as :class:`TrecFamily` says; ``None``: none) and
    ``printable``, the parameters as typed after the ``.`` (``None`` for the defaults)."""

    name: str
    cutoffs: tuple | None = None
    printable: str | None = None

    @property
    def family(self) -> TrecFamily:
        return TREC_FAMILIES[self.name]

    @property
    def columns(self) -> list[str]:
        """The names trec_eval prints: ``P_5``, ``P_10``; ``iprec_at_recall_0.10``; ``map``;
        ``set_F_0.5`` (``meas_init.c``: append_long, append_float, append_string)."""
        kind = TREC_FAMILIES[self.name].params if self.name in TREC_FAMILIES else "cut_long"
        if kind == "cut_long" and self.cutoffs is not None:
            return [f"{self.name}_{k}" for k in self.cutoffs]
        if kind == "cut_float" and self.cutoffs is not None:
            return [f"{self.name}_{v:3.2f}" for v in self.cutoffs]
        if self.printable is not None and kind in ("float", "pairs"):
            return [f"{self.name}_{self.printable}"]
        return [self.name]

    def __str__(self) -> str:
        if self.printable is not None:
            return f"{self.name}.{self.printable}"
        if self.cutoffs is None or self.family.params not in ("cut_long",):
            return self.name
        return f"{self.name}.{','.join(map(str, self.cutoffs))}"


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


_TREC_RE = re.compile(r"^(?P<name>[A-Za-z0-9_\-]+)(?:\.(?P<cuts>\S+))?$")
_RANK_RE = re.compile(r"^(?P<fam>[A-Za-z0-9_]+)(?:\((?P<opts>[^()]*)\))?(?:@(?P<k>.+))?$")


#: the largest cut-off (the engine counts ranks in int64)
MAX_CUTOFF = 2**63 - 1


def _digits(text: str) -> bool:
    """ASCII digits only (``str.isdigit`` takes Arabic-Indic and fullwidth digits too)."""
    return text.isascii() and text.isdigit()


def _check_size(k: int, part: str, name: str) -> None:
    if k > MAX_CUTOFF:
        raise ValueError(f"measure {name!r}: cut-off {part.strip()} is too large (at most {MAX_CUTOFF})")


_ATOL = re.compile(r"[ \t\n\v\f\r]*([+-]?[0-9]+)")
_ATOF = re.compile(r"[ \t\n\v\f\r]*([+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)")


def _atol(text: str) -> int:
    """C's ``atol``: the longest leading integer, 0 if none (``"23.4"`` -> 23)."""
    m = _ATOL.match(text)
    return int(m.group(1)) if m else 0


def _atof(text: str) -> float:
    """C's ``atof`` on decimal text: the longest leading number, 0.0 if none."""
    m = _ATOF.match(text)
    return float(m.group(1)) if m else 0.0


def _cutoffs(text: str, name: str) -> tuple[int, ...]:
    """Cut-offs as trec_eval reads them (``get_long_cutoffs``: ``atol`` of each comma-separated
    part, sorted; then refused if one is not positive or one repeats)."""
    out = sorted(_atol(part) for part in text.split(","))
    if out[0] <= 0:
        raise ValueError(f"measure {name!r}: cut-offs must be positive integers separated by commas (trec_eval: "
                         "'Negative cutoff detected')")
    for k in out:
        _check_size(k, str(k), name)
    if len(set(out)) != len(out):
        raise ValueError(f"measure {name!r}: a cut-off is repeated (trec_eval: 'Cutoffs must be positive without "
                         "duplicates')")
    return tuple(out)


def _trec_params(kind: str, text: str, name: str) -> tuple:
    """The parameters after ``name.`` as trec_eval 9.0.8 reads them (``meas_init.c``)."""
    if kind == "cut_long":
        return _cutoffs(text, name)
    if kind == "cut_float":                       # get_float_cutoffs: atof, sorted, no repeats
        out = sorted(_atof(part) for part in text.split(","))
        if len(set(out)) != len(out):
            raise ValueError(f"measure {name!r}: a cut-off is repeated (trec_eval: 'duplicate cutoffs detected')")
        return tuple(out)
    if kind == "float":                           # get_float_params: atof, in the order given
        return tuple(_atof(part) for part in text.split(","))
    # get_param_pairs: name=value,name=value
    pairs = []
    for part in text.split(","):
        key, eq, val = part.partition("=")
        if not eq or not key or "=" in val:
            raise ValueError(f"measure {name!r}: parameters are level=gain pairs separated by commas, e.g. "
                             f"ndcg.0=0,1=1,2=3 (trec_eval: 'malformed pair parameters')")
        pairs.append((key, _atof(val)))
    return tuple(pairs)


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
            kind = TREC_FAMILIES[base].params
            if kind is None:
                raise ValueError(f"measure {name!r}: {base} takes no parameters")
            params = _trec_params(kind, cuts, name)
            return TrecMeasure(base, params, cuts if kind in ("float", "pairs", "cut_float") else None)
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
    (trec_eval would silently keep the first: ``-m P.5 -m P.10`` prints P_5 only). trec_eval's
    nicknames (``all_trec``, ``official``, ``set``: :data:`NICKNAMES`) stand for their measures
    with default parameters; a measure also given by name with parameters keeps those
    (``-m all_trec -m relstring.20``)."""
    if isinstance(names, (str, TrecMeasure, RankMeasure)):
        names = [names]
    out, seen, nick = [], {}, []
    for n in names:
        if isinstance(n, str) and n.strip() in NICKNAMES:
            nick.extend(NICKNAMES[n.strip()])
            continue
        m = parse_measure(n)
        key = m.name if isinstance(m, TrecMeasure) else str(m)
        if key in seen:
            if isinstance(m, TrecMeasure) and m != seen[key]:
                both = sorted(set((seen[key].cutoffs or ()) + (m.cutoffs or ())))
                raise ValueError(f"measure {m.name} given twice ({seen[key]} and {m}): give its parameters once, "
                                 f"e.g. {m.name}.{','.join(map(str, both))}")
            continue
        seen[key] = m
        out.append(m)
    for name in nick:
        if name not in seen:
            seen[name] = TrecMeasure(name, TREC_MEASURES[name])
            out.append(seen[name])
    if not out:
        raise ValueError("measures: give at least one measure")
    return out
