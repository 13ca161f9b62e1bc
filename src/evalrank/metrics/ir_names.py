"""ir_measures' measure vocabulary: its names (its spelling, case included, and its syntax
``Name(key=value)@k``: ``AP@100``, ``P(rel=2)@5``, ``nDCG(judged_only=True)@10``) as the trec_eval
measure and settings its pytrec_eval provider runs them with (``rel`` -> ``-l``, ``judged_only``
-> ``-J``), labelled as written; ``ERR@k`` and ``nDCG(dcg='exp-log2')@k`` as evalrank's own
measures. Names are parsed by :func:`evalrank.metrics.names.parse_measure`.
"""

from __future__ import annotations

import re

from evalrank.metrics.rank_names import RankMeasure
from evalrank.metrics.trec_names import TREC_MEASURES, TrecMeasure, _check_size

__all__ = ["IR_MEASURES"]

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
    except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError):   # 5,000 signs: nested too deep
        what = "the cut-off after @" if key == "@" else f"{key}="
        raise ValueError(f"measure {name!r}: {what} takes a number, True/False or a quoted string") from None


def _ir_args(text: str, head: str) -> tuple:
    """``(kind, args, k)`` of a name written the ir_measures way: the measure that ``head`` names
    (:data:`IR_MEASURES`), its parameters (``@``'s value under the parameter ``@`` sets, the
    name's presets added), each checked against ir_measures' parameters and types, and the
    cut-off (None: none)."""
    import ast

    try:
        node = ast.parse(text, mode="eval").body
    except (SyntaxError, RecursionError, MemoryError):   # RecursionError: nested too deep for Python's parser
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
    return kind, args, k


def _ir_measure(text: str):
    """A measure written the ir_measures way (ir_measures.parse_measure's syntax: Python's, with
    ``@`` for the cut-off) as the trec_eval measure and settings ir_measures runs it with (its
    pytrec_eval provider: ``rel`` -> ``-l``, ``judged_only`` -> ``-J``), labelled as written."""
    head = _ir_name(text)
    if head in _IR_OTHER:
        raise ValueError(f"measure {text!r}: ir_measures' {head} is not computed by evalrank (it computes "
                         f"{', '.join(dict.fromkeys(IR_MEASURES.values()))})")
    kind, args, k = _ir_args(text, head)
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

