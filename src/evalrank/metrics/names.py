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

evalrank's lower-case aliases mean the same measure and, like every name that is not trec_eval's
own spelling, print as written: ``p@5`` (``P_5``), ``recall@100``, ``success@10``, ``map@100``
(``map_cut.100``), ``rr`` / ``mrr`` (``recip_rank``), ``R-prec``; an alias with a list of
cut-offs (``p.5,10``) prints trec_eval's columns (``P_5``, ``P_10``).

**The rule for printed names**: a measure prints under the name it was asked for, except
trec_eval's own names, which print as trec_eval prints them (``evaluate``'s output is
trec_eval's: ``P.5,10`` -> ``P_5``, ``P_10``; ``ndcg_cut.10`` -> ``ndcg_cut_10``), and evalrank's
ranking measures, which print their options in one order (below).

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

This module parses; each vocabulary has its module: trec_eval's (its measure table,
:class:`TrecMeasure`, its parameters) :mod:`evalrank.metrics.trec_names`, ir_measures'
:mod:`evalrank.metrics.ir_names`, evalrank's own (:class:`RankMeasure`, options, cut-off rules)
:mod:`evalrank.metrics.rank_names`; the names above are importable from here too.
"""

from __future__ import annotations

import re

from evalrank.metrics.ir_names import IR_MEASURES, _ir_measure, _ir_name
from evalrank.metrics.rank_names import (_RANK_FAMILIES, _RANK_OPTIONS, _RANK_RE, RankMeasure, _check_discount,
                                         _option_value, _rank_cutoff)
from evalrank.metrics.trec_names import (COUNTS, DEFAULT_SET, MAX_CUTOFF, NICKNAMES, TREC_FAMILIES, TREC_MEASURES,
                                         TREC_ORDER, TrecFamily, TrecMeasure, _cutoffs, _trec_params)

__all__ = ["TrecMeasure", "RankMeasure", "parse_measure", "parse_measures", "TREC_MEASURES", "TREC_ORDER",
           "TREC_FAMILIES", "TrecFamily", "COUNTS", "NICKNAMES", "DEFAULT_SET", "MAX_CUTOFF", "IR_MEASURES"]

_ALIASES = {"rr": "recip_rank", "mrr": "recip_rank", "r-prec": "Rprec", "rprec": "Rprec", "p": "P"}
_AT_ALIASES = {"p": "P", "recall": "recall", "success": "success", "map": "map_cut", "ndcg_cut": "ndcg_cut",
               "map_cut": "map_cut"}


_TREC_RE = re.compile(r"^(?P<name>[A-Za-z0-9_\-]+)(?:\.(?P<cuts>\S+))?$")


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
        written = m.group("name")
        base = written if written in TREC_MEASURES else _ALIASES.get(written.lower(), written)
        if base in TREC_MEASURES:
            cuts = m.group("cuts")
            if cuts is None:
                return _as_written(TrecMeasure(base, TREC_MEASURES[base]), text, written != base)
            kind = TREC_FAMILIES[base].params
            if kind is None:
                raise ValueError(f"measure {name!r}: {base} takes no parameters")
            params = _trec_params(kind, cuts, name)
            return _as_written(TrecMeasure(base, params, cuts if kind in ("float", "pairs", "cut_float") else None),
                               text, written != base)
    if _ir_name(text) is not None:
        return _ir_measure(text)
    m = _RANK_RE.match(text)
    fam, opts, k = (m.group("fam"), m.group("opts"), m.group("k")) if m else ("", None, None)
    low = fam.lower()
    if opts is None and k is not None and low in _AT_ALIASES:   # P@5, recall@100, map@100
        base = _AT_ALIASES[low]
        return _as_written(TrecMeasure(base, _cutoffs(k, name)), text, True)
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


def _as_written(m: TrecMeasure, text: str, alias: bool) -> TrecMeasure:
    """An alias of a trec_eval measure labelled as written (it prints so), where it is one column."""
    if not alias or len(m.trec_columns) != 1:
        return m
    import dataclasses

    return dataclasses.replace(m, label=text)


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
