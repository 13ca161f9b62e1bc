"""Adapters that compute NDCG@k with external tools ("peers") on evalrank's
flat-array layout, so that evalrank's NDCG conventions can be checked
against the tools themselves.

Every adapter takes

``scores``  (n_docs,) float64 -- higher = ranked earlier;
``labels``  (n_docs,) non-negative integer grades;
``offsets`` (n_queries + 1,) int64 -- query ``q`` owns rows
            ``offsets[q]:offsets[q + 1]``; a query may own 0 rows;
``k``       int >= 1 -- the cut-off;
``doc_ids`` optional (n_docs,) strings, unique within a query. Only
            pytrec_eval / ir_measures use them (their tie rule); ranx hashes
            them but its tie rule does not depend on them. Default:
            ``"d%09d" % j`` with ``j`` the row's position inside its query,
            so the default string order is the input order.

and returns a (n_queries,) float64 array of per-query NDCG values, NaN where
the tool gives no value for a query. **Every adapter returns NaN for a
query with 0 rows**: no tool can represent it (it is absent from both qrels
and run; LightGBM and XGBoost reject empty groups).

Each tool is imported lazily inside its adapter; a missing tool raises
:class:`ImportError` naming the pip package. :func:`available_peers` says
which import, :func:`peer_versions` which versions are installed.

Behaviour below was established by running the tools on crafted cases
(pytrec-eval-terrier 0.5.11, ranx 0.3.21, ir-measures 0.4.3,
scikit-learn 1.9.1, lightgbm 4.7.0, xgboost(-cpu) 3.2.0, numpy 2.4.6,
numba 0.68.1) and then on randomized tie-heavy inputs against an
independent reimplementation (agreement to <= 1e-12). Common to all tools:
discount ``1 / log2(r + 1)`` for 1-based rank ``r`` (rank 1 weight 1, rank 2
weight ``1/log2 3``); the ideal DCG@k is the DCG of the top ``min(k, n)``
labels sorted descending; a list shorter than ``k`` is scored over the whole
list with the ideal over all its labels ("pad" == "truncate-ideal" when the
judged set equals the ranked list, as here).

Summary (``empty`` = value of a query whose labels are all 0):

============  =======  =====  ========  ==========================================
tool          gain     empty  scores    ties
============  =======  =====  ========  ==========================================
pytrec_eval   linear   0      float32   doc id, descending strcmp order
ranx ndcg     linear   0      float64   numba ``np.argsort(-s)`` on input order
ranx burges   exp      0      float64   (same)
ir_measures   linear*  0      float32   = pytrec_eval (it is the provider used)
sklearn       linear   0      float64   averaged (ignore_ties=False) or
                                        ``np.argsort(s)[::-1]`` (ignore_ties=True)
lightgbm      exp**    1      float64   stable (input order)
xgboost       exp***   1 / 0  float32   stable (input order)
============  =======  =====  ========  ==========================================

``*`` ``nDCG(gains=...)`` maps grades to integer gains. ``**`` ``label_gain``
(default ``2^i - 1``, i = 0..30). ``***`` ``ndcg_exp_gain`` (default True).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import shutil
import subprocess
import tempfile
from importlib import resources
from pathlib import Path

import numpy as np

__all__ = [
    "available_peers",
    "peer_versions",
    "pytrec_eval_ndcg",
    "ranx_ndcg",
    "ir_measures_ndcg",
    "gdeval_ndcg",
    "sklearn_ndcg",
    "lightgbm_ndcg",
    "xgboost_ndcg",
]

# import name -> pip distribution names to look up (first found wins)
_PEERS = {
    "pytrec_eval": ("pytrec-eval-terrier", "pytrec_eval"),
    "ranx": ("ranx",),
    "ir_measures": ("ir-measures", "ir_measures"),
    "sklearn": ("scikit-learn",),
    "lightgbm": ("lightgbm",),
    "xgboost": ("xgboost", "xgboost-cpu"),
}


def _require(module: str):
    try:
        return importlib.import_module(module)
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            f"the NDCG peer {module!r} is not installed; install it with "
            f"`pip install {_PEERS[module][0]}`") from exc


def available_peers() -> dict[str, bool]:
    """Which peer tools import: ``{"pytrec_eval": True, "ranx": False, ...}``;
    ``"gdeval"`` needs ir-measures (which ships gdeval.pl) and ``perl``."""
    out = {}
    for module in _PEERS:
        try:
            importlib.import_module(module)
            out[module] = True
        except Exception:  # ImportError, or a broken install raising anything else
            out[module] = False
    out["gdeval"] = out["ir_measures"] and shutil.which("perl") is not None
    return out


def peer_versions() -> dict[str, str | None]:
    """Installed distribution version of each peer (None if not installed)."""
    out = {"gdeval": None}
    for module, dists in _PEERS.items():
        out[module] = None
        for dist in dists:
            try:
                out[module] = importlib.metadata.version(dist)
                break
            except importlib.metadata.PackageNotFoundError:
                continue
    if out["ir_measures"]:
        out["gdeval"] = f"as shipped with ir-measures {out['ir_measures']}"
    return out


# ----------------------------------------------------------------------------- input


def _check(scores, labels, offsets, k, doc_ids):
    scores = np.asarray(scores, dtype=np.float64)
    labels = np.asarray(labels)
    offsets = np.asarray(offsets)
    if scores.ndim != 1 or labels.shape != scores.shape:
        raise ValueError(f"scores and labels must be 1-d of equal length, got {scores.shape} and {labels.shape}")
    if not np.issubdtype(labels.dtype, np.integer):
        if not np.issubdtype(labels.dtype, np.floating) or np.any(labels != np.round(labels)):
            raise TypeError("labels must be integer grades")
    if np.isnan(scores).any():
        raise ValueError("scores must not be NaN (the tools order NaN inconsistently)")
    labels = labels.astype(np.int64)
    if labels.size and labels.min() < 0:
        raise ValueError("labels must be non-negative grades")
    if offsets.ndim != 1 or offsets.size < 1 or not np.issubdtype(offsets.dtype, np.integer):
        raise ValueError("offsets must be a 1-d integer array of length n_queries + 1")
    offsets = offsets.astype(np.int64)
    if offsets[0] != 0 or offsets[-1] != scores.shape[0] or np.any(np.diff(offsets) < 0):
        raise ValueError("offsets must start at 0, be non-decreasing and end at n_docs")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be a positive int, got {k!r}")
    k = int(k)
    if doc_ids is None:
        pos = np.arange(scores.shape[0], dtype=np.int64) - np.repeat(offsets[:-1], np.diff(offsets))
        doc_ids = [f"d{j:09d}" for j in pos]
    else:
        doc_ids = [str(d) for d in np.asarray(doc_ids).ravel()]
        if len(doc_ids) != scores.shape[0]:
            raise ValueError(f"doc_ids must have length {scores.shape[0]}, got {len(doc_ids)}")
        for q in range(offsets.size - 1):
            ids = doc_ids[offsets[q]:offsets[q + 1]]
            if len(set(ids)) != len(ids):
                raise ValueError(f"doc_ids must be unique within a query (query {q} repeats one)")
    return scores, labels, offsets, k, doc_ids


def _qid(q: int) -> str:
    # fixed width: string order == numeric order (ranx sorts its query ids)
    return f"q{q:09d}"


def _nonempty(offsets):
    return [q for q in range(offsets.size - 1) if offsets[q + 1] > offsets[q]]


def _qrels_run(scores, labels, offsets, doc_ids, gains=None):
    """{qid: {doc: grade}}, {qid: {doc: score}} for the non-empty queries, in input order."""
    qrels, run = {}, {}
    for q in _nonempty(offsets):
        lo, hi = offsets[q], offsets[q + 1]
        ids = doc_ids[lo:hi]
        lab = labels[lo:hi] if gains is None else gains[lo:hi]
        qrels[_qid(q)] = {d: int(y) for d, y in zip(ids, lab)}
        run[_qid(q)] = {d: float(s) for d, s in zip(ids, scores[lo:hi])}
    return qrels, run


def _exp_int_gains(labels):
    if labels.size and labels.max() > 62:
        raise ValueError("exp gain needs labels <= 62 to stay an exact int64")
    return (np.int64(1) << labels) - 1


# ----------------------------------------------------------------------------- pytrec_eval


def pytrec_eval_ndcg(scores, labels, offsets, k, doc_ids=None, gain="linear"):
    """Per-query ``ndcg_cut.k`` of pytrec_eval (trec_eval 9.x inside).

    Probed with pytrec-eval-terrier 0.5.11. The run and the qrels both hold
    every document of the query (the qrels with its grade, zeros included).

    * gain: **linear**, the qrels grade itself: grades (a:1, b:2) ranked
      a, b give ``(1 + 2/log2 3) / (2 + 1/log2 3) = 0.859719`` (exp would be
      0.796708). ``gain="exp"`` relabels the qrels with ``2^y - 1`` (ints)
      before calling the tool. Negative qrels grades contribute gain 0.
    * discount: ``1/log2(r + 1)``, r = 1, 2, ... (``ndcg_cut_1`` of the
      example is 1/2 = grade of rank 1 over the best grade).
    * empty (all grades 0): **0.0**. A query in the run but not in the qrels
      gets no value (left out of the result); a query in the qrels but not
      in the run also gets no value from pytrec_eval itself (trec_eval
      ``-c`` behaviour is not applied). Neither case arises here.
    * short lists / unretrieved judged docs: the ideal DCG comes from *all*
      qrels of the query, retrieved or not (qrels a,b,c = 1 and run [a]:
      ``ndcg_cut_2 = 1/(1 + 1/log2 3) = 0.613147``); a list shorter than k
      is scored as if padded with non-relevant docs. Run documents missing
      from the qrels count as grade 0.
    * ties: by **document id in descending strcmp (byte) order** among
      equal scores: 'd2' before 'd10' before 'd1', 'xy' before 'x', 'a'
      before 'B'; independent of input order.
    * precision: scores are stored as **float32** (C ``float``, round to
      nearest even): 1.0 and 1.0 + 1e-8 tie, 1.0 and 1.0 + 1e-7 do not;
      1e-6 and 1e-6 + 1e-12 do not tie (relative float32 resolution);
      1 + 3*2^-24 ties 1 + 2^-22 (half-way case to even); |s| > 3.4e38
      becomes inf (1e300 and 2e300 tie). The repo's ``trec`` preset needs
      ``precision="float32"`` to match this tool on near-tied scores.
    * k > list length: fine (as short). k = 1, single-doc queries: fine.
    * mean: the tool returns per-query values; this adapter returns them.
    """
    pytrec_eval = _require("pytrec_eval")
    scores, labels, offsets, k, doc_ids = _check(scores, labels, offsets, k, doc_ids)
    if gain == "linear":
        gains = None
    elif gain == "exp":
        gains = _exp_int_gains(labels)
    else:
        raise ValueError(f"gain must be 'linear' or 'exp', got {gain!r}")
    qrels, run = _qrels_run(scores, labels, offsets, doc_ids, gains)
    out = np.full(offsets.size - 1, np.nan)
    if not qrels:
        return out
    res = pytrec_eval.RelevanceEvaluator(qrels, {f"ndcg_cut.{k}"}).evaluate(run)
    key = f"ndcg_cut_{k}"
    for q in range(offsets.size - 1):
        vals = res.get(_qid(q))
        if vals is not None:
            out[q] = vals[key]
    return out


# ----------------------------------------------------------------------------- ranx


#: the query the ranx adapter adds (sorts after every ``_qid``) and its one document's id length
_RANX_PAD_QID = "q~pad"
_RANX_ID_WIDTH = 32


def ranx_ndcg(scores, labels, offsets, k, doc_ids=None, variant="ndcg"):
    """Per-query ``ndcg@k`` / ``ndcg_burges@k`` of ``ranx.evaluate`` on
    ``ranx.Qrels`` / ``ranx.Run`` objects (return_mean=False).

    Probed with ranx 0.3.21 (numba 0.68.1).

    * gain: ``variant="ndcg"`` **linear** (Jarvelin); ``"ndcg_burges"``
      **exp** ``2^y - 1``. Only qrels grades >= 1 (rel_lvl) count.
    * discount: ``1/log2(r + 1)``, r = 1, 2, ...
    * empty (all grades 0): **0.0** (ranx sets IDCG = 0 to 1). Query-id
      mismatch between qrels and run raises AssertionError unless
      ``make_comparable=True``, which gives queries missing from the run 0.0
      and drops run-only queries (not used here).
    * short lists: scored over the list; the ideal comes from all qrels with
      grade >= 1 (qrels a,b,c = 1, run [a]: ndcg@2 = 0.613147). Run docs
      missing from the qrels are non-relevant.
    * ties: ``Run`` sorts each query's docs by
      ``numba np.argsort(-scores)`` (numba's quicksort) applied to the docs
      in dict insertion (= input) order, and scores the list in that order.
      For lists of up to 15 docs this is input order (numba's quicksort
      insertion-sorts partitions shorter than 16); from 16 docs on it is
      *not* stable (an all-tied list of 16 is already permuted), but it is
      reproduced exactly (randomized tie-heavy lists of up to 600 docs) by
      the same numba argsort on the negated scores in input order, e.g.
      ``numba.njit(lambda x: np.argsort(x))(-scores)``. Independent of doc
      ids. (Passing plain dicts to
      ``ranx.evaluate`` instead of Run objects sorts by
      ``np.argsort(s)[::-1]`` in numba -- a different tie order; not used.)
      Doc ids are hashed to float64 internally (collisions are possible in
      principle, negligible in practice).
    * precision: float64 (1 ulp apart ranks correctly).
    * k > list length, k = 1, single docs: fine.
    * mean: evaluate(return_mean=True) is the plain mean over queries
      (all-zero queries counted as 0); this adapter returns per-query values
      (ranx orders its results by sorted query id; mapped back here).
    * cost: ranx's numba kernels are compiled on the first call in a fresh
      environment (~30 s; ~3 s per new process once numba's cache exists).
      They are specialised on the doc ids' width (``Run`` / ``Qrels`` build
      ``<U{longest id}`` arrays): each new width compiled ``create_and_sort``
      again, 8-30 CPU-s a width (measured, fresh cache). So this adapter adds
      one query of its own, :data:`_RANX_PAD_QID`, whose one document's id is
      :data:`_RANX_ID_WIDTH` characters long, to the qrels and the run: every
      id shorter than that is held at that one width, which numba compiles
      once; the ids themselves, and every other query's value, are
      unchanged (ranx scores each query on its own), and the pad query's
      value is dropped.
    """
    ranx = _require("ranx")
    if variant not in ("ndcg", "ndcg_burges"):
        raise ValueError(f"variant must be 'ndcg' or 'ndcg_burges', got {variant!r}")
    scores, labels, offsets, k, doc_ids = _check(scores, labels, offsets, k, doc_ids)
    qrels, run = _qrels_run(scores, labels, offsets, doc_ids)
    out = np.full(offsets.size - 1, np.nan)
    if not qrels:
        return out
    import warnings

    metric = f"{variant}@{k}"
    pad = "~" * _RANX_ID_WIDTH
    qrels[_RANX_PAD_QID] = {pad: 1}
    run[_RANX_PAD_QID] = {pad: 1.0}
    r = ranx.Run(run)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba parallel warnings
        ranx.evaluate(ranx.Qrels(qrels), r, metric, return_mean=False)
    per = r.scores[metric]
    for q in range(offsets.size - 1):
        if _qid(q) in per:
            out[q] = float(per[_qid(q)])
    return out


# ----------------------------------------------------------------------------- ir_measures


def ir_measures_ndcg(scores, labels, offsets, k, doc_ids=None, gain="linear"):
    """Per-query ``nDCG@k`` of ``ir_measures.iter_calc`` (default pipeline).

    Probed with ir-measures 0.4.3: for ``nDCG@k`` the default pipeline's
    providers are [pytrec_eval, ranx] and it **uses pytrec_eval** (same tie
    rule and float32 rounding as :func:`pytrec_eval_ndcg`; its own ranx
    provider rejects list-of-namedtuple input). ``gain="exp"`` uses
    ``nDCG(cutoff=k, gains={y: 2^y - 1})``, which works (gains must be
    ints: a float gain raises ``TypeError: Expected relevance to be
    integer``; grades absent from the mapping keep their own value).

    * gain linear (grade), discount ``1/log2(r + 1)``, empty **0.0**.
    * a query in the qrels but not in the run gets **0.0** here (unlike
      bare pytrec_eval, which omits it); run-only queries are omitted.
    * short lists: ideal from all qrels; unjudged run docs non-relevant.
    * ties: doc id, descending strcmp; scores rounded to float32.
    * mean: ``calc_aggregate`` is the plain mean over the queries it
      reports; this adapter returns per-query values.
    """
    irm = _require("ir_measures")
    scores, labels, offsets, k, doc_ids = _check(scores, labels, offsets, k, doc_ids)
    if gain == "linear":
        measure = irm.nDCG @ k
    elif gain == "exp":
        grades = np.unique(labels).tolist()
        _exp_int_gains(labels)
        measure = irm.nDCG(cutoff=k, gains={int(y): (1 << int(y)) - 1 for y in grades})
    else:
        raise ValueError(f"gain must be 'linear' or 'exp', got {gain!r}")
    qrels, run = _qrels_run(scores, labels, offsets, doc_ids)
    out = np.full(offsets.size - 1, np.nan)
    if not qrels:
        return out
    qrel_list = [irm.Qrel(qid, d, y) for qid, docs in qrels.items() for d, y in docs.items()]
    run_list = [irm.ScoredDoc(qid, d, s) for qid, docs in run.items() for d, s in docs.items()]
    index = {_qid(q): q for q in range(offsets.size - 1)}
    for m in irm.iter_calc([measure], qrel_list, run_list):
        out[index[m.query_id]] = m.value
    return out


# ----------------------------------------------------------------------------- gdeval.pl


def gdeval_ndcg(scores, labels, offsets, k, doc_ids=None):
    """Per-query ``ndcg@k`` of gdeval.pl, the TREC Web track's evaluation
    script (2010-2014), as shipped in ir-measures' package data, run with
    ``perl`` on temporary qrels/run files (ir-measures' own wrapper adds a 0
    for every qrels topic gdeval does not report; this adapter does not).

    Read from the script and confirmed by running it: gain ``2^y - 1``,
    discount ``1/log(r + 1)`` (natural log, cancels in the ratio), ideal
    from every positive judgment, ties by docno in **descending** order
    (``runOrder``), scores compared as Perl doubles, a topic without a
    positive judgment is **not reported** (NaN here), grades above 4 are
    refused (``$MAX_JUDGMENT``).
    """
    irm = _require("ir_measures")
    if shutil.which("perl") is None:
        raise ImportError("gdeval.pl needs perl on the PATH")
    scores, labels, offsets, k, doc_ids = _check(scores, labels, offsets, k, doc_ids)
    if labels.size and labels.max() > 4:
        raise ValueError("gdeval.pl refuses grades above 4")
    out = np.full(offsets.size - 1, np.nan)
    queries = _nonempty(offsets)
    if not queries:
        return out
    script = resources.files(irm) / "bin" / "gdeval.pl"
    with tempfile.TemporaryDirectory() as tmp:
        qrels, run = Path(tmp) / "qrels", Path(tmp) / "run"
        with open(qrels, "w") as fq, open(run, "w") as fr:
            for q in queries:  # gdeval wants numeric topics
                for j in range(offsets[q], offsets[q + 1]):
                    fq.write(f"{q + 1} 0 {doc_ids[j]} {labels[j]}\n")
                    fr.write(f"{q + 1} Q0 {doc_ids[j]} 0 {float(scores[j])!r} evalrank\n")
        text = subprocess.run(["perl", str(script), str(qrels), str(run), str(k)], capture_output=True, text=True,
                              check=True).stdout
    for line in text.splitlines()[1:]:
        if line:
            f = line.split(",")
            out[int(f[1]) - 1] = float(f[2])
    return out


# ----------------------------------------------------------------------------- sklearn


def sklearn_ndcg(scores, labels, offsets, k, doc_ids=None, ignore_ties=False):
    """Per-query ``sklearn.metrics.ndcg_score(y_true=[labels], y_score=[scores], k=k)``,
    one call per query (one-row 2-d arrays).

    Probed with scikit-learn 1.9.1.

    * gain: **linear** (``y_true`` is the gain); negative ``y_true`` raises.
    * discount: ``1/log2(r + 1)``.
    * empty (all grades 0): **0.0**.
    * short lists (k > n): the whole list, ideal over all labels
      (k=10 on 3 docs == k=None).
    * ties: ``ignore_ties=False`` **averages** the gain over each tie group
      (McSherry & Najork), also when the group straddles the cut-off
      (labels [2,1,0] all tied, k=2: ``(1 + 1/log2 3)/(2 + 1/log2 3)``).
      ``ignore_ties=True`` ranks by ``np.argsort(y_score)[:, ::-1]``
      (numpy's default, *unstable* quicksort, reversed). For 2 or 3 docs
      ties come out in reverse input order (last row first), but numpy's
      SIMD argsort (numpy 2.4 on an AVX-512 CPU) is not stable from 4 docs
      on (e.g. 60 of the 243 score vectors in {0,1,2}^5), so the order is
      reproducible only by calling ``np.argsort(s)[::-1]`` with the same
      numpy on the same CPU (1-d and one-row 2-d argsort agree).
    * precision: float64 (ties are exact equality; 1 ulp breaks a tie).
    * single-document query: sklearn raises ``ValueError: Computing NDCG is
      only meaningful when there is more than 1 document. Got 1 instead.``
      -> this adapter returns **NaN** for queries with fewer than 2 docs.
    * mean: ``ndcg_score`` on several rows returns the plain (or
      ``sample_weight``-weighted) mean over rows; rows must have equal
      length, hence the per-query calls here.
    """
    _require("sklearn")
    from sklearn.metrics import ndcg_score

    scores, labels, offsets, k, doc_ids = _check(scores, labels, offsets, k, doc_ids)
    out = np.full(offsets.size - 1, np.nan)
    for q in range(offsets.size - 1):
        lo, hi = offsets[q], offsets[q + 1]
        if hi - lo < 2:
            continue
        out[q] = ndcg_score(labels[None, lo:hi], scores[None, lo:hi], k=k, ignore_ties=ignore_ties)
    return out


# ----------------------------------------------------------------------------- LightGBM


def lightgbm_ndcg(scores, labels, offsets, k, doc_ids=None, gain="exp"):
    """Per-query LightGBM ``ndcg@k`` eval metric (``metric="ndcg"``,
    ``eval_at=[k]``) of the *given* scores.

    Method: a ``lgb.Booster`` with zero trees (never updated) on a training
    Dataset of all non-empty queries with ``init_score=scores`` and one
    dummy feature; each query is added as its own validation Dataset
    (``group=[n_q]``, ``init_score`` = its scores) and
    ``booster.eval_valid()`` evaluates the metric on the init scores alone
    (checked: 1-ulp score differences rank correctly, so nothing is added).

    Probed with lightgbm 4.7.0.

    * gain: **exp**, ``label_gain[y]`` with default ``2^i - 1`` (i < 31;
      larger grades are rejected by LightGBM). ``gain="linear"`` passes
      ``label_gain = [0, 1, 2, ...]`` (gives the linear value 0.859719 on
      the gain example).
    * discount: ``1/log2(r + 1)`` (k=1 on grades (1,2) ranked 1,2: 1/3).
    * empty (all grades 0): **1.0** (also for single-doc queries).
    * short lists: the whole list, ideal over all labels.
    * ties: **stable** -- input order within the query.
    * precision: float64 (``init_score`` is double; 1 ulp breaks a tie).
    * mean: the metric LightGBM reports on a multi-query set is the mean
      over queries weighted by query weights, a query's weight being the
      mean of its rows' ``weight`` (plain mean without weights; all-zero
      queries count as 1). This adapter returns per-query values.
    """
    lgb = _require("lightgbm")
    scores, labels, offsets, k, doc_ids = _check(scores, labels, offsets, k, doc_ids)
    out = np.full(offsets.size - 1, np.nan)
    queries = _nonempty(offsets)
    if not queries:
        return out
    params = dict(objective="lambdarank", metric="ndcg", eval_at=[k], verbosity=-1, num_threads=1)
    if gain == "linear":
        params["label_gain"] = list(range(max(31, int(labels.max()) + 1)))
    elif gain != "exp":
        raise ValueError(f"gain must be 'exp' or 'linear', got {gain!r}")
    sizes = np.diff(offsets)[queries]
    rows = np.concatenate([np.arange(offsets[q], offsets[q + 1]) for q in queries])
    train = lgb.Dataset(np.zeros((rows.size, 1)), label=labels[rows].astype(np.float64), group=sizes,
                        init_score=scores[rows], params={"verbosity": -1}, free_raw_data=False)
    booster = lgb.Booster(params=params, train_set=train)
    names = {}
    for q in queries:
        lo, hi = offsets[q], offsets[q + 1]
        valid = lgb.Dataset(np.zeros((hi - lo, 1)), label=labels[lo:hi].astype(np.float64), group=[hi - lo],
                            init_score=scores[lo:hi].copy(), reference=train)
        name = _qid(q)
        booster.add_valid(valid, name)
        names[name] = q
    metric = f"ndcg@{k}"
    for data_name, metric_name, value, _ in booster.eval_valid():
        if metric_name == metric:
            out[names[data_name]] = float(value)
    return out


# ----------------------------------------------------------------------------- XGBoost


def xgboost_ndcg(scores, labels, offsets, k, doc_ids=None, empty_one=True, gain="exp"):
    """Per-query XGBoost ``ndcg@k`` (``empty_one=True``) or ``ndcg@k-``
    (``empty_one=False``) eval metric of the *given* scores.

    Method: ``xgb.train({"objective": "rank:ndcg", "eval_metric": ...},
    dtrain, num_boost_round=0)`` (no trees) and ``booster.eval(d)`` on one
    DMatrix per query with ``base_margin`` = the query's scores and
    ``set_group([n_q])``; the printed value (17 significant digits) is
    parsed back. With ``base_margin`` given, ``base_score`` is not added.
    (``learning_rate=0`` with one round gives the same values.)

    Probed with xgboost(-cpu) 3.2.0.

    * gain: **exp** ``2^y - 1`` (``ndcg_exp_gain=True``, the default;
      XGBoost then requires grades <= 31). ``gain="linear"`` sets
      ``ndcg_exp_gain=False`` (linear value 0.859719 on the gain example).
    * discount: ``1/log2(r + 1)``.
    * empty (all grades 0): **1.0** for ``ndcg@k``, **0.0** for ``ndcg@k-``
      (single-doc all-zero queries alike).
    * short lists: the whole list, ideal over all labels.
    * ties: **stable** -- input order within the query.
    * precision: **float32** -- margins are stored as float32 (round to
      nearest), so 1.0 and 1.0 + 1 ulp(float64), or 1.0 + 1e-8, tie (then
      input order decides); 1.0 + 1e-6 does not.
    * mean: on a multi-query DMatrix the metric is the mean over queries
      weighted by the per-group weights of ``set_weight`` (plain mean
      without weights; empty queries count as 1 resp. 0). This adapter
      returns per-query values.
    """
    xgb = _require("xgboost")
    scores, labels, offsets, k, doc_ids = _check(scores, labels, offsets, k, doc_ids)
    out = np.full(offsets.size - 1, np.nan)
    queries = _nonempty(offsets)
    if not queries:
        return out
    metric = f"ndcg@{k}" + ("" if empty_one else "-")
    params = {"objective": "rank:ndcg", "eval_metric": metric, "nthread": 1}
    if gain == "linear":
        params["ndcg_exp_gain"] = False
    elif gain != "exp":
        raise ValueError(f"gain must be 'exp' or 'linear', got {gain!r}")
    rows = np.concatenate([np.arange(offsets[q], offsets[q + 1]) for q in queries])
    dtrain = xgb.DMatrix(np.zeros((rows.size, 1)), label=labels[rows].astype(np.float64),
                         base_margin=scores[rows])
    dtrain.set_group(np.diff(offsets)[queries])
    booster = xgb.train(params, dtrain, num_boost_round=0)
    for q in queries:
        lo, hi = offsets[q], offsets[q + 1]
        d = xgb.DMatrix(np.zeros((hi - lo, 1)), label=labels[lo:hi].astype(np.float64),
                        base_margin=scores[lo:hi].copy())
        d.set_group([hi - lo])
        text = booster.eval(d, name="q")
        out[q] = float(text.rsplit(":", 1)[1])
    return out
