"""The tool-conventions table (Busa-Fekete et al. 2012, Sec. 3, redone for
today's tools), filled by *running* every tool on crafted edge cases.

Each behaviour is read off the tool's output on a tiny case built so that
the possible conventions give different numbers:

``gain``       labels (1, 2), the grade-1 document first, NDCG@2:
               linear 0.859719, exp 0.796708.
``empty``      a query whose labels are all 0: the value, or "no value".
``short``      labels (1, 2, 0) scored (2, 1, 3), NDCG@10 of a 3-document
               list: the whole-list value ("pad") or 0 ("zero").
``ties``       two tied documents, NDCG@1: (labels 1,0, ids d1,d2),
               (0,1, d1,d2), (1,0, d2,d1) give 1,0,1 for input order,
               0,1,1 for doc id descending, 1,0,0 ascending, 0.5 each for
               averaging; plus 40 tied documents with the relevant one first,
               which an unstable sort may move.
``precision``  scores 1.0 (relevant) and 1.0 + 1e-9: a tie in float32, not
               in float64.

The historical tools of the paper are rows computed from evalrank's presets
on the same cases. Every tool row also says whether the matching evalrank
preset gives the same numbers on every case.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from evalrank.papers.busafekete2012 import peers
from evalrank.metrics import ndcg

__all__ = ["TOOLS", "HISTORICAL", "audit_table", "probe"]

_LIN = (1 + 2 / np.log2(3)) / (2 + 1 / np.log2(3))
_EXP = (1 + 3 / np.log2(3)) / (3 + 1 / np.log2(3))


def _one(values):
    v = float(np.asarray(values, dtype=float)[0])
    return v


def _cases():
    """name -> (scores, labels, offsets, doc_ids, k)"""
    a = lambda *x: np.array(x)  # noqa: E731
    return {
        "gain": (a(2.0, 1.0), a(1, 2), a(0, 2), a("d1", "d2"), 2),
        "empty": (a(1.0, 0.0), a(0, 0), a(0, 2), a("d1", "d2"), 2),
        "short": (a(2.0, 1.0, 3.0), a(1, 2, 0), a(0, 3), a("d1", "d2", "d3"), 10),
        "tie_a": (a(1.0, 1.0), a(1, 0), a(0, 2), a("d1", "d2"), 1),
        "tie_b": (a(1.0, 1.0), a(0, 1), a(0, 2), a("d1", "d2"), 1),
        "tie_c": (a(1.0, 1.0), a(1, 0), a(0, 2), a("d2", "d1"), 1),
        "tie_long": (np.ones(40), np.r_[1, np.zeros(39, dtype=int)], a(0, 40),
                     np.array([f"d{50 - i:02d}" for i in range(40)]), 1),  # ids descending = input order
        "precision": (a(1.0, 1.0 + 1e-9), a(1, 0), a(0, 2), a("d2", "d1"), 1),
    }


def probe(fn) -> dict[str, float]:
    """Run ``fn(scores, labels, offsets, k, doc_ids)`` on every crafted case."""
    return {name: _one(fn(s, y, off, k, ids)) for name, (s, y, off, ids, k) in _cases().items()}


def _classify(v: dict, tol: float = 1e-9) -> dict[str, str]:
    out = {}
    g = v["gain"]
    out["gain"] = "linear" if abs(g - _LIN) < tol else "exp (2^y-1)" if abs(g - _EXP) < tol else f"other ({g:.6f})"
    e = v["empty"]
    out["empty"] = "no value" if np.isnan(e) else f"{e:g}"
    sh = v["short"]
    pad = ndcg(np.array([2.0, 1.0, 3.0]), np.array([1, 2, 0]), np.array([0, 3]), 10,
               gain="linear" if out["gain"] == "linear" else "exp")[0]
    out["short"] = "pad (whole list)" if abs(sh - pad) < tol else "zero" if sh == 0 else f"other ({sh:.6f})"
    t = (v["tie_a"], v["tie_b"], v["tie_c"])
    rules = {(1.0, 0.0, 1.0): "input order", (0.0, 1.0, 1.0): "doc id, descending",
             (1.0, 0.0, 0.0): "doc id, ascending", (0.0, 1.0, 0.0): "reverse input order",
             (0.5, 0.5, 0.5): "average over tie orders"}
    rule = rules.get(tuple(round(x, 9) for x in t), f"other {t}")
    if rule == "input order" and v["tie_long"] != 1.0:
        rule = "input order up to ~15 docs; unstable sort beyond"
    out["ties"] = rule
    out["precision"] = "float32 (1.0 and 1.0+1e-9 tie)" if v["precision"] == v["tie_c"] else "float64"
    return out


def _tools():
    """(tool, measure, version key, adapter, evalrank equivalent (convention, overrides))"""
    p = peers
    return [
        ("pytrec_eval", "ndcg_cut.k", "pytrec_eval", lambda *a: p.pytrec_eval_ndcg(*a), ("trec", {})),
        ("pytrec_eval", "ndcg_cut.k, qrels relabelled 2^y-1", "pytrec_eval",
         lambda *a: p.pytrec_eval_ndcg(*a, gain="exp"), ("trec", {"gain": "exp"})),
        ("ir_measures", "nDCG@k", "ir_measures", lambda *a: p.ir_measures_ndcg(*a), ("trec", {})),
        ("gdeval.pl", "ndcg@k (TREC Web track, Perl)", "gdeval", lambda *a: p.gdeval_ndcg(*a), ("gdeval", {})),
        ("ranx", "ndcg@k", "ranx", lambda *a: p.ranx_ndcg(*a, variant="ndcg"),
         ("trec", {"precision": "float64", "ties": "stable"})),
        ("ranx", "ndcg_burges@k", "ranx", lambda *a: p.ranx_ndcg(*a, variant="ndcg_burges"),
         ("trec", {"precision": "float64", "ties": "stable", "gain": "exp"})),
        ("scikit-learn", "ndcg_score(ignore_ties=False)", "sklearn",
         lambda *a: p.sklearn_ndcg(*a, ignore_ties=False), ("sklearn", {})),
        ("lightgbm", "ndcg@k (eval metric)", "lightgbm", lambda *a: p.lightgbm_ndcg(*a), ("lightgbm", {})),
        ("xgboost", "ndcg@k", "xgboost", lambda *a: p.xgboost_ndcg(*a, empty_one=True), ("xgboost", {})),
        ("xgboost", "ndcg@k-", "xgboost", lambda *a: p.xgboost_ndcg(*a, empty_one=False),
         ("xgboost", {"empty": 0.0})),
    ]


TOOLS = tuple(t[0] for t in _tools())

#: tools that print rounded values (gdeval.pl: 5 decimals) are compared to that precision
TOLERANCE = {"gdeval.pl": 6e-6}

#: the paper's tools, as evalrank presets (their scripts are no longer distributed)
HISTORICAL = (("LETOR 3.0 (Perl)", "letor3"), ("LETOR 4.0 (Perl)", "letor4"), ("MS / MSLR (Perl)", "ms"),
              ("YAHOO (Python)", "yahoo"), ("RankLib (Java)", "ranklib"), ("trec_eval (C)", "trec"))


def _preset_fn(convention, overrides):
    def fn(s, y, off, k, ids):
        return ndcg(s, y, off, k, convention=convention, doc_ids=ids, **overrides)
    return fn


def _describe(convention, overrides):
    extra = ", ".join(f"{k}={v!r}" for k, v in overrides.items())
    return convention + (f" ({extra})" if extra else "")


def audit_table() -> pd.DataFrame:
    """One row per tool (installed peers run for real; missing ones are
    listed as not installed) and per historical preset."""
    versions = peers.peer_versions()
    available = peers.available_peers()
    rows = []
    for tool, measure, key, fn, (conv, over) in _tools():
        row = {"tool": tool, "measure": measure, "version": versions.get(key), "source": "ran the tool"}
        if not available.get(key, False):
            row.update(source="not installed", evalrank_preset=_describe(conv, over))
            rows.append(row)
            continue
        values = probe(fn)
        mine = probe(_preset_fn(conv, over))
        tol = TOLERANCE.get(tool, 1e-9)
        same = all((np.isnan(values[c]) and (np.isnan(mine[c]) or c == "empty")) or abs(values[c] - mine[c]) < tol
                   for c in values)
        row.update(_classify(values, tol))
        row.update(evalrank_preset=_describe(conv, over), preset_matches_cases=same)
        row.update({f"value_{c}": values[c] for c in values})
        rows.append(row)
    for tool, conv in HISTORICAL:
        values = probe(_preset_fn(conv, {}))
        row = {"tool": tool, "measure": "NDCG@k", "version": "as described by Busa-Fekete et al. (2012), Sec. 3",
               "source": "evalrank preset"}
        row.update(_classify(values))
        row.update(evalrank_preset=conv, preset_matches_cases=True)
        row.update({f"value_{c}": values[c] for c in values})
        rows.append(row)
    return pd.DataFrame(rows)
