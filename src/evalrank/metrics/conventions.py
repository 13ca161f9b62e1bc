"""NDCG conventions of evaluation tools, by name (Busa-Fekete et al. 2012, Sec. 3).

The definition of NDCG (Busa-Fekete eqs. 1-3) leaves five choices open, and
every tool fixes them differently:

``gain``      "exp" (2^y - 1, eq. 1), "linear" (y: trec_eval uses the label
              itself), or a per-grade array.
``discount``  "log2" (eq. 3), another name of :mod:`evalrank.metrics.discounts`
              ("log", "poly:beta", "zipf", "geometric:p") or a callable of the rank.
``empty``     the value of a query whose ideal DCG@k is 0 (no relevant
              document): 0.0, 1.0, or "skip" (NaN: left out of a nan-mean).
``short``     a list shorter than ``k``:
              "pad" -- as if padded with non-relevant documents: DCG@k over
              the list, ideal DCG@k over the judged labels (trec_eval);
              "truncate-ideal" -- the cut-off becomes the list length for the
              ideal too (RankLib: ``size = min(k, list size)``); identical to
              "pad" unless the judged set (``ideal_labels``) is longer than
              the ranked list;
              "zero" -- NDCG@k = 0 when the list has fewer than ``k``
              documents (LETOR 4.0 and MS scripts, Busa-Fekete eq. 4).
``ties``      "stable", "pessimistic", "optimistic", "docid", "average"
              (:mod:`evalrank.metrics.ranking`); ``precision`` "float32"
              rounds scores first (ties appear where the tool cannot tell
              scores apart).

A query with no relevant document *and* fewer than ``k`` documents gets
``empty`` (the emptiness rule is applied first).

Presets
-------
Historical tools, as Busa-Fekete et al. (2012) describe them (the scripts
are no longer downloadable; behaviour from the paper's Sec. 3):

* ``letor3`` -- LETOR 3.0 Perl script: exp gain, empty 0, short pad.
* ``letor4`` -- LETOR 4.0 Perl script: exp gain, empty 0, short **zero**
  (the script itself accepts grades 0-2 only; not enforced here).
* ``ms`` -- MSLR Perl script: as ``letor4`` (grades 0-4).
* ``yahoo`` -- Yahoo! LTR Challenge script: exp gain, empty **1.0**, short pad.
* ``ranklib`` -- RankLib: exp gain, empty 0, short truncate-ideal.
* ``trec`` -- trec_eval (``ndcg_cut.k``): **linear** gain (the label
  itself; relabel 0,1,2 -> 0,1,3 for exp gains, or pass ``gain="exp"``),
  empty 0, short pad, ties by document id in *descending* strcmp order
  (trec_eval sorts by score, then docno, both decreasing), scores compared
  in **float32** (pytrec_eval: 1.0 and 1.0 + 1e-8 tie; 1.0 + 1e-7 does not).
* ``gdeval`` -- gdeval.pl, the TREC Web track's NDCG@k/ERR@k tool (2010-2014;
  Dinçer et al. 2016 evaluate with it): exp gain, short pad, ties by
  document id in descending order (its ``runOrder``), float64 scores, and a
  topic without a positive judgment is not reported (``empty="skip"``).
  Checked against gdeval.pl itself (``tests/papers/busafekete2012/test_gdeval.py``).

The Perl/Python/Java scripts rank ties by their language's built-in sort;
Busa-Fekete et al. call the result implementation dependent. Their presets
use ``ties="stable"`` (input order) as a deterministic stand-in.

Today's tools, matched by running them (``tests/papers/busafekete2012/test_peers.py``
and the audit table ``results/<dataset>/busafekete2012/tool_conventions.csv``):

* ``sklearn`` -- ``sklearn.metrics.ndcg_score``: linear gain (``y_true`` is
  the gain), empty 0, short pad, ties **average** (``ignore_ties=False``).
* ``lightgbm`` -- LightGBM ``ndcg@k`` eval metric: exp gain
  (``label_gain`` 2^i - 1), empty **1.0**, short pad, ties stable.
* ``xgboost`` -- XGBoost ``ndcg@k``: exp gain, empty **1.0** (``ndcg@k-``
  gives 0: pass ``empty=0.0``), short pad, scores rounded to **float32**,
  ties stable.

Not presets, because no rule reproduces their tie order: ranx (linear
``ndcg@k`` / exp ``ndcg_burges@k``, empty 0, pad, float64) orders ties by
numba's unstable ``np.argsort(-scores)`` (input order up to 15 documents,
permuted from 16), and ``ndcg_score(ignore_ties=True)`` by NumPy's
``argsort(s)[::-1]``; on tie-free scores they equal ``trec`` with
``precision=None`` (and ``gain="exp"`` for ndcg_burges) and ``sklearn``.

Explicit keyword options override a preset: ``ndcg(..., convention="trec",
gain="exp")`` is trec_eval on exponentially relabelled qrels.
"""

from __future__ import annotations

import types

__all__ = ["CONVENTIONS", "DEFAULTS", "OPTION_NAMES", "SHORT", "resolve", "names_text"]

SHORT = ("pad", "truncate-ideal", "zero")
OPTION_NAMES = ("gain", "discount", "empty", "short", "ties", "docid_order", "precision")

#: The package default (no convention named): the textbook definition.
DEFAULTS = types.MappingProxyType(dict(gain="exp", discount="log2", empty=0.0, short="pad", ties="stable",
                                       docid_order="descending", precision=None))

_EXP_STANDARD = dict(gain="exp", empty=0.0, short="pad", ties="stable")

#: The presets by name: the one registry of convention names (the CLI's help, the config schema's
#: ``$defs.convention`` enum, the Busa-Fekete study's tables, figures and audit follow it; tested).
CONVENTIONS = types.MappingProxyType({
    "trec": dict(gain="linear", empty=0.0, short="pad", ties="docid", docid_order="descending", precision="float32"),
    "gdeval": dict(gain="exp", empty="skip", short="pad", ties="docid", docid_order="descending", precision=None),
    "ranklib": dict(_EXP_STANDARD, short="truncate-ideal"),
    "letor3": dict(_EXP_STANDARD),
    "letor4": dict(_EXP_STANDARD, short="zero"),
    "ms": dict(_EXP_STANDARD, short="zero"),
    "yahoo": dict(_EXP_STANDARD, empty=1.0),
    "sklearn": dict(gain="linear", empty=0.0, short="pad", ties="average"),
    "lightgbm": dict(_EXP_STANDARD, empty=1.0),
    "xgboost": dict(_EXP_STANDARD, empty=1.0, precision="float32"),
})


def names_text(last: str = "or") -> str:
    """The presets' names in the registry's order as a sentence's list, for help texts:
    ``"trec, gdeval, ranklib, ..., lightgbm or xgboost"``."""
    names = list(CONVENTIONS)
    return ", ".join(names[:-1]) + f" {last} " + names[-1]


def resolve(convention: str | None = None, **overrides) -> dict:
    """Options of a preset (or of :data:`DEFAULTS`), with every explicit,
    non-``None`` keyword overriding it."""
    if convention is None:
        opts = dict(DEFAULTS)
    elif isinstance(convention, str) and convention in CONVENTIONS:
        opts = dict(DEFAULTS, **CONVENTIONS[convention])
    else:
        raise ValueError(f"convention must be one of {sorted(CONVENTIONS)} or None, got {convention!r}")
    unknown = set(overrides) - set(OPTION_NAMES)
    if unknown:
        raise TypeError(f"unknown NDCG option(s) {sorted(unknown)}; allowed: {list(OPTION_NAMES)}")
    opts.update({key: value for key, value in overrides.items() if value is not None})
    if opts["short"] not in SHORT:
        raise ValueError(f"short must be one of {SHORT}, got {opts['short']!r}")
    empty = opts["empty"]
    if not (empty == "skip" or (isinstance(empty, (int, float)) and not isinstance(empty, bool))):
        raise ValueError(f"empty must be a number or 'skip', got {empty!r}")
    return opts
