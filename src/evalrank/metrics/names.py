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

evalrank's lower-case aliases mean the same measure and print trec_eval's names: ``p@5``
(``P_5``), ``recall@100``, ``success@10``, ``map@100`` (``map_cut.100``), ``rr`` / ``mrr``
(``recip_rank``), ``R-prec``.

**ir_measures' names** (its spelling, case included, and its syntax ``Name(key=value)@k``) are
printed as written and evaluated as ir_measures' pytrec_eval provider hands them to trec_eval:
``AP`` / ``MAP`` (map), ``AP@k`` (map_cut.k), ``P@k``, ``R@k`` (recall.k), ``RR`` / ``MRR``
(recip_rank), ``RR@k`` (recip_rank of the first k), ``nDCG`` (ndcg), ``nDCG@k`` (ndcg_cut.k),
``Rprec``, ``Bpref``, ``infAP``, ``IPrec@r`` (iprec_at_recall.r, r to 2 decimals), ``SetP``
(set_P; ``SetRelP``, ``relative=True``: set_relative_P), ``SetR``, ``SetF(beta=b)`` (set_F.b),
``SetAP`` (set_map), ``NumQ``, ``NumRet``, ``NumRelRet`` / ``NumRet(rel=l)`` (num_rel_ret),
``NumRel``, ``Success@k``; ``rel=l`` is trec_eval's ``-l l`` and ``judged_only=True`` its ``-J``
for that measure alone (without them the call's ``relevance_level`` / ``judged_only`` apply).
``Judged@k`` is the fraction of the top k that is judged; ``ERR@k`` is evalrank's ``err@k``
(gdeval.pl's, max grade 4); ``nDCG(dcg='exp-log2')@k`` gdeval.pl's NDCG; ``RBP(p=x)`` trec_eval
10's ``rbp.p=x`` (graded gains), ``RBP(rel=l, p=x)`` the same with gain 1 from grade l up. An
unknown name is refused in one line naming the nearest known ones.

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
    "yaap": TrecFamily(),
    # trec_eval 10.0's (not in 9.0.8): rank-biased precision and its residual, unjudged fraction
    "rbp": TrecFamily("pairs"),
    "rbp_resid": TrecFamily("pairs"),
    "unj": TrecFamily("cut_long", (5, 10, 20)),
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
    ``printable``, the parameters as typed after the ``.`` (``None`` for the defaults).

    A measure named the ir_measures way (``AP@100``, ``P(rel=2)@5``) has its ``label``, the name
    as written, which it prints under (:attr:`columns`, one column), and the settings trec_eval
    runs it with: ``rel`` (``-l``), ``judged_only`` (``-J``), ``max_docs`` (a cut of the ranking
    after ``-J``: ``RR@10``, ``RBP@k``); ``None`` follows the call's ``relevance_level`` /
    ``judged_only`` / nothing. Besides trec_eval's families, ``name`` may be ``Judged``
    (ir_measures' judgment rate) or ``rbp`` (trec_eval 10's, :mod:`evalrank.metrics.trec_gain`)."""

    name: str
    cutoffs: tuple | None = None
    printable: str | None = None
    label: str | None = None
    rel: int | None = None
    judged_only: bool | None = None
    max_docs: int | None = None

    @property
    def family(self) -> TrecFamily:
        return TREC_FAMILIES[self.name] if self.name in TREC_FAMILIES else _IR_FAMILIES[self.name]

    @property
    def columns(self) -> list[str]:
        """The names it prints under: the ``label`` if it has one, else :attr:`trec_columns`."""
        return [self.label] if self.label is not None else self.trec_columns

    @property
    def trec_columns(self) -> list[str]:
        """The names trec_eval prints: ``P_5``, ``P_10``; ``iprec_at_recall_0.10``; ``map``;
        ``set_F_0.5`` (``meas_init.c``: append_long, append_float, append_string)."""
        kind = self.family.params if self.name in TREC_FAMILIES or self.name in _IR_FAMILIES else "cut_long"
        if kind == "cut_long" and self.cutoffs is not None:
            return [f"{self.name}_{k}" for k in self.cutoffs]
        if kind == "cut_float" and self.cutoffs is not None:
            return [f"{self.name}_{v:3.2f}" for v in self.cutoffs]
        if self.printable is not None and kind in ("float", "pairs"):
            return [f"{self.name}_{self.printable}"]
        return [self.name]

    def __str__(self) -> str:
        if self.label is not None:
            return self.label
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
    if m and "@" not in text and m.group("name") not in TREC_MEASURES:
        m = m if _ir_name(text) is None else None    # RR, NumQ, MAP: ir_measures' names, below
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
    if _ir_name(text) is not None:
        return _ir_measure(text)
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
        if "unknown discount" in str(e):
            raise ValueError(_unknown(name)) from None
        raise ValueError(f"measure {name!r}: {e}") from None
    cut = None if not k else _rank_cutoff(k, name)
    return RankMeasure("ndcg", cut, (("discount", d),), d if cut is None else f"{d}@{cut}")


def _check_discount(value, name: str) -> str:
    from evalrank.metrics.discounts import parse_discount

    try:
        return str(parse_discount(str(value)))
    except (TypeError, ValueError) as e:
        raise ValueError(f"measure {name!r}: {e}") from None


def _unknown(name) -> str:
    """One line: the name is not known, and the known names nearest to it (difflib, ignoring case,
    over trec_eval's measures and nicknames, ir_measures' names and evalrank's ndcg/dcg/err@k)."""
    import difflib

    word = re.split(r"[.(@]", str(name).strip(), maxsplit=1)[0].strip()
    pool: dict = {}
    for n in (*TREC_ORDER, *NICKNAMES, *IR_MEASURES, *(f"{f}@k" for f in _RANK_FAMILIES)):
        pool.setdefault(n.lower().removesuffix("@k"), []).append(n)
    hits = difflib.get_close_matches(word.lower(), list(pool), n=3, cutoff=0.5)
    near = [pool[h][0] for h in hits]     # one name per spelling: ndcg (not nDCG, NDCG, ndcg@k too)
    if near:
        return f"measure {name!r} is not known; nearest: {', '.join(near)}"
    return (f"measure {name!r} is not known; names are trec_eval's (map, P.5,10, ndcg_cut.10), ir_measures' "
            "(AP@100, nDCG@10, P(rel=2)@5) or evalrank's (ndcg@10, err@20)")


# ---------------------------------------------------------------------------
# ir_measures' names
# ---------------------------------------------------------------------------
#: ir_measures' names evalrank computes (its spelling, case included) -> the measure they name
IR_MEASURES = {"AP": "AP", "MAP": "AP", "P": "P", "Precision": "P", "R": "R", "Recall": "R", "RR": "RR",
               "MRR": "RR", "nDCG": "nDCG", "NDCG": "nDCG", "Rprec": "Rprec", "RPrec": "Rprec", "Bpref": "Bpref",
               "BPref": "Bpref", "infAP": "infAP", "Judged": "Judged", "IPrec": "IPrec", "SetP": "SetP",
               "SetRelP": "SetP", "SetR": "SetR", "SetF": "SetF", "SetAP": "SetAP", "NumQ": "NumQ",
               "NumRet": "NumRet", "NumRelRet": "NumRet", "NumRel": "NumRel", "ERR": "ERR", "Success": "Success",
               "RBP": "RBP"}
#: the parameters a name fixes (ir_measures: ``SetRelP = SetP(relative=True)``, ``NumRelRet = NumRet(rel=1)``)
_IR_PRESET = {"SetRelP": {"relative": True}, "NumRelRet": {"rel": None}}
#: ir_measures' names evalrank does not compute (diversity, C/W/L and other measures)
_IR_OTHER = ("AP_IA", "Accuracy", "BPM", "Compat", "ERR_IA", "INSQ", "INST", "MAP_IA", "NERR10", "NERR11", "NERR8",
             "NERR9", "NRBP", "P_IA", "SDCG", "StRecall", "alpha_DCG", "alpha_nDCG", "nERR_IA", "nNRBP")
_CUT, _REL, _JO = ("cutoff", int), ("rel", int), ("judged_only", bool)
#: per measure: its parameters (ir_measures' SUPPORTED_PARAMS) with their types, and what ``@`` sets
_IR_PARAMS = {
    "AP": (dict([_CUT, _REL, _JO]), "cutoff"), "P": (dict([_CUT, _REL, _JO]), "cutoff"),
    "R": (dict([_CUT, _REL, _JO]), "cutoff"), "RR": (dict([_CUT, _REL, _JO]), "cutoff"),
    "Success": (dict([_CUT, _REL, _JO]), "cutoff"),
    "nDCG": (dict([_CUT, ("dcg", str), ("gains", dict), _JO]), "cutoff"),
    "Rprec": (dict([_REL, _JO]), None), "Bpref": (dict([_REL]), None), "infAP": (dict([_REL]), None),
    "Judged": (dict([_CUT]), "cutoff"), "IPrec": (dict([("recall", float), _REL, _JO]), "recall"),
    "SetP": (dict([_REL, ("relative", bool), _JO]), None), "SetR": (dict([_REL]), None),
    "SetF": (dict([_REL, ("beta", float), _JO]), None), "SetAP": (dict([_REL, _JO]), None),
    "NumQ": ({}, None), "NumRet": (dict([_REL]), None), "NumRel": (dict([_REL]), None),
    "ERR": (dict([_CUT]), "cutoff"), "RBP": (dict([_CUT, ("p", float), _REL]), "cutoff"),
}
_IR_REQUIRED = {"P": "cutoff", "R": "cutoff", "Success": "cutoff", "IPrec": "recall"}
#: ir_measures measure -> trec_eval's measure without / with a cut-off (None: a cut of the ranking)
_IR_TREC = {"AP": ("map", "map_cut"), "P": (None, "P"), "R": (None, "recall"), "RR": ("recip_rank", None),
            "Success": (None, "success"), "nDCG": ("ndcg", "ndcg_cut"), "Rprec": ("Rprec", None),
            "Bpref": ("bpref", None), "infAP": ("infAP", None), "SetR": ("set_recall", None),
            "SetAP": ("set_map", None), "NumQ": ("num_q", None), "NumRel": ("num_rel", None)}
#: the families of :class:`TrecMeasure` beyond trec_eval 9.0.8's: ir_measures' Judged, trec_eval 10's rbp
_IR_FAMILIES = {"Judged": TrecFamily("cut_long"), "rbp": TrecFamily("pairs")}
_IR_HEAD = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s*(?=$|[(@])")


def _ir_name(text: str) -> str | None:
    """The measure name of ``text`` when it is written the ir_measures way (``Name``,
    ``Name(k=v, ...)``, ``Name@x``) with one of ir_measures' names, else None."""
    m = _IR_HEAD.match(text)
    if m and (m.group(1) in IR_MEASURES or m.group(1) in _IR_OTHER):
        return m.group(1)
    return None


def _ir_value(node, name: str, key: str):
    import ast

    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError):
        what = "the cut-off after @" if key == "@" else f"{key}="
        raise ValueError(f"measure {name!r}: {what} takes a number, True/False or a quoted string") from None


def _ir_measure(text: str):
    """A measure written the ir_measures way (ir_measures.parse_measure's syntax: Python's, with
    ``@`` for the cut-off) as the trec_eval measure and settings ir_measures runs it with (its
    pytrec_eval provider: ``rel`` -> ``-l``, ``judged_only`` -> ``-J``), labelled as written."""
    import ast

    head = _ir_name(text)
    if head in _IR_OTHER:
        raise ValueError(f"measure {text!r}: ir_measures' {head} is not computed by evalrank (it computes "
                         f"{', '.join(dict.fromkeys(IR_MEASURES.values()))})")
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        raise ValueError(f"measure {text!r}: not ir_measures' syntax (Name, Name(key=value, ...), Name@k)") from None
    args, at = {}, None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        at, node = _ir_value(node.right, text, "@"), node.left
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.args:
        for kw in node.keywords:
            if kw.arg is None or kw.arg in args:
                raise ValueError(f"measure {text!r}: parameters are key=value, each once")
            args[kw.arg] = _ir_value(kw.value, text, kw.arg)
        node = node.func
    if not isinstance(node, ast.Name) or node.id != head:
        raise ValueError(f"measure {text!r}: not ir_measures' syntax (Name, Name(key=value, ...), Name@k)")
    kind = IR_MEASURES[head]
    params, at_param = _IR_PARAMS[kind]
    if at is not None:
        if at_param is None:
            raise ValueError(f"measure {text!r}: {head} takes no @ (a cut-off)")
        if at_param in args:
            raise ValueError(f"measure {text!r}: {at_param} given twice")
        args[at_param] = at
    for key, value in args.items():
        if key not in params:
            raise ValueError(f"measure {text!r}: {head} takes {', '.join(params) or 'no parameters'}, not {key}=")
        want = params[key]
        ok = (isinstance(value, bool) if want is bool else isinstance(value, str) if want is str else
              isinstance(value, dict) if want is dict else
              isinstance(value, (int, float) if want is float else int) and not isinstance(value, bool))
        if not ok:
            raise ValueError(f"measure {text!r}: {key} must be {want.__name__}, got {value!r}")
    for key, value in _IR_PRESET.get(head, {}).items():
        args.setdefault(key, value)
    if kind in _IR_REQUIRED and _IR_REQUIRED[kind] not in args:
        raise ValueError(f"measure {text!r}: {head} needs a {_IR_REQUIRED[kind]}, e.g. "
                         f"{head}@{'0.5' if kind == 'IPrec' else '10'}")
    k = args.get("cutoff")
    if k is not None:
        if k < 1:
            raise ValueError(f"measure {text!r}: the cut-off must be a positive integer")
        _check_size(k, str(k), text)
    rel, jo = args.get("rel"), args.get("judged_only")
    if kind == "ERR":
        return RankMeasure("err", k, (), text)
    if kind == "nDCG":
        if "gains" in args:
            raise ValueError(f"measure {text!r}: nDCG's gains= is not computed by evalrank (trec_eval's ndcg.0=0,"
                             "1=1,2=3 gives per-level gains to the whole list; evalrank's ndcg(gain=...)@k)")
        if args.get("dcg", "log2") not in ("log2", "exp-log2"):
            raise ValueError(f"measure {text!r}: dcg is 'log2' or 'exp-log2', got {args['dcg']!r}")
        if args.get("dcg") == "exp-log2":           # ir_measures: gdeval.pl's nDCG@k, 0 where it skips
            if jo:
                raise ValueError(f"measure {text!r}: judged_only with dcg='exp-log2' (gdeval) is not defined")
            return RankMeasure("ndcg", k, (("convention", "gdeval"), ("empty", 0.0)), text)
    if kind == "Judged":
        return TrecMeasure("Judged", None if k is None else (k,), label=text)
    if kind == "RBP":
        p = float(args.get("p", 0.8))
        if not 0.0 < p < 1.0:
            raise ValueError(f"measure {text!r}: the persistence p must lie between 0 and 1")
        return TrecMeasure("rbp", (("p", p),), label=text, rel=rel, max_docs=k)
    if kind == "IPrec":
        r = float(args["recall"])
        if not 0.0 <= r <= 1.0:
            raise ValueError(f"measure {text!r}: the recall level must lie between 0 and 1")
        # ir_measures hands pytrec_eval iprec_at_recall_%.2f: the level rounded to 2 decimals
        return TrecMeasure("iprec_at_recall", (float(f"{r:.2f}"),), label=text, rel=rel, judged_only=jo)
    if kind == "SetP":
        name = "set_relative_P" if args.get("relative") else "set_P"
        return TrecMeasure(name, label=text, rel=rel, judged_only=jo)
    if kind == "SetF":
        return TrecMeasure("set_F", (float(args.get("beta", 1.0)),), label=text, rel=rel, judged_only=jo)
    if kind == "NumRet":
        name = "num_rel_ret" if "rel" in args else "num_ret"
        return TrecMeasure(name, label=text, rel=rel)
    plain, cut = _IR_TREC[kind]
    if k is not None and cut is not None:
        return TrecMeasure(cut, (k,), label=text, rel=rel, judged_only=jo)
    return TrecMeasure(plain, TREC_MEASURES[plain], label=text, rel=rel, judged_only=jo, max_docs=k)


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
        key = m.name if isinstance(m, TrecMeasure) and m.label is None else str(m)   # AP@10, AP@100: two
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
