"""trec_eval 9.0.8's measure vocabulary: its measure table (:class:`TrecFamily` per measure, in
``measures.c``'s order: parameters, ``all`` line, printing), the nicknames (``all_trec``,
``official``, ``set``, ``qrels_jg``), :class:`TrecMeasure` (a measure with its parameters, and the
ir_measures settings it runs with) and the parameters after ``name.`` read as ``meas_init.c``
reads them (C's ``atol`` / ``atof``, sorted cut-offs, ``level=gain`` pairs). Names are parsed by
:func:`evalrank.metrics.names.parse_measure`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["TrecFamily", "TrecMeasure", "TREC_FAMILIES", "TREC_MEASURES", "TREC_ORDER", "COUNTS", "NICKNAMES",
           "DEFAULT_SET", "MAX_CUTOFF"]

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

#: the families of :class:`TrecMeasure` beyond trec_eval 9.0.8's: ir_measures' Judged, trec_eval 10's rbp
_IR_FAMILIES = {"Judged": TrecFamily("cut_long"), "rbp": TrecFamily("pairs")}


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

