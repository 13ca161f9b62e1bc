"""A campaign's files (``evalrank active plan|estimate``): the run(s) as a pool, the label
model (PROBS), the costs, the plan (TSV) -- read and written with errors naming file and line.

PROBS: one line per run document, ``qid docno p_0 p_1 ... p_G`` (whitespace separated; G from
the column count, the same on every line; each row sums to 1 within 1e-6). COSTS: ``qid cost``
per line (cost > 0). PLAN: a TSV with ``#`` header lines (``# evalrank active plan``, then
``# settings {json}``: measure, method, seed, budget, the inputs' fingerprint, ...), a column
header ``draw qid q weight new cost cumulative_cost`` and one row per draw in draw order.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from evalrank.active.campaign import Plan, Pool
from evalrank.data.trec import TrecFormatError

__all__ = ["read_probs", "read_costs", "read_lengths", "calibrated_probs", "model_probs", "pool_from_trec", "write_plan",
           "read_plan", "labels_from_qrels", "fingerprint"]

#: the fewest judged run documents --calibrate-from fits a calibrator on
MIN_CALIBRATION_DOCS = 20

PLAN_MAGIC = "# evalrank active plan"
PLAN_COLUMNS = ("draw", "qid", "q", "weight", "new", "cost", "cumulative_cost")


def _lines(path):
    from evalrank.io import open_text

    with open_text(path) as fh:
        for number, line in enumerate(fh, start=1):
            s = line.strip()
            if s and not s.startswith("#"):
                yield number, s.split()


def fingerprint(*paths) -> str:
    """sha256 over the bytes of the inputs (None skipped), 16 hex digits."""
    h = hashlib.sha256()
    for p in paths:
        h.update(b"\0" if p is None else Path(p).read_bytes())
    return h.hexdigest()[:16]


def read_probs(path) -> dict:
    """``{(qid, docno): (row, line)}`` rows of grade probabilities, checked (module docstring)."""
    out, width = {}, None
    for number, f in _lines(path):
        if len(f) < 4:
            raise TrecFormatError(f"{path}:{number}: a probs line is 'qid docno p_0 p_1 ... p_G' (at least two "
                                  f"grades), got {len(f)} fields")
        if width is None:
            width = len(f) - 2
        elif len(f) - 2 != width:
            raise TrecFormatError(f"{path}:{number}: {len(f) - 2} probabilities, earlier lines have {width}")
        try:
            p = np.array([float(x) for x in f[2:]])
        except ValueError:
            raise TrecFormatError(f"{path}:{number}: probabilities must be numbers, got {' '.join(f[2:])!r}") from None
        if not np.isfinite(p).all() or (p < 0).any():
            raise TrecFormatError(f"{path}:{number}: probabilities must be finite and >= 0")
        if abs(p.sum() - 1.0) > 1e-6:
            raise TrecFormatError(f"{path}:{number}: probabilities sum to {p.sum():.6g}, not 1")
        key = (f[0], f[1])
        if key in out:
            raise TrecFormatError(f"{path}:{number}: document {f[1]!r} of query {f[0]!r} given twice (first on "
                                  f"line {out[key][1]})")
        out[key] = (p, number)
    if not out:
        raise TrecFormatError(f"{path}: no probabilities (the file is empty)")
    return out


def read_costs(path) -> dict:
    """``{qid: cost}``, every cost finite and > 0."""
    out = {}
    for number, f in _lines(path):
        if len(f) != 2:
            raise TrecFormatError(f"{path}:{number}: a costs line is 'qid cost', got {len(f)} fields")
        try:
            c = float(f[1])
        except ValueError:
            raise TrecFormatError(f"{path}:{number}: cost {f[1]!r} is not a number") from None
        if not (np.isfinite(c) and c > 0):
            raise TrecFormatError(f"{path}:{number}: cost must be > 0, got {f[1]}")
        if f[0] in out:
            raise TrecFormatError(f"{path}:{number}: query {f[0]!r} given twice")
        out[f[0]] = c
    return out


def read_lengths(path) -> dict:
    """``{(qid, docno): length}`` from ``qid docno length`` lines (length >= 0): Sawade's costs,
    ``lambda(x) = sum_z log(1 + len(z))`` over the query's documents, mean 1 (:mod:`.costs`)."""
    out = {}
    for number, f in _lines(path):
        if len(f) != 3:
            raise TrecFormatError(f"{path}:{number}: a lengths line is 'qid docno length', got {len(f)} fields")
        try:
            v = float(f[2])
        except ValueError:
            raise TrecFormatError(f"{path}:{number}: length {f[2]!r} is not a number") from None
        if not (np.isfinite(v) and v >= 0):
            raise TrecFormatError(f"{path}:{number}: length must be >= 0, got {f[2]}")
        out[(f[0], f[1])] = v
    return out


def calibrated_probs(run, qrels, *, run_b=None, n_grades: int | None = None) -> dict:
    """A label model for users without one: per run, a one-dimensional ordered logit from its
    score to the grade (:class:`evalrank.models.calibrate.GradeCalibrator`), fitted on the run's
    documents the qrels already judge (negative grades as 0); every run document then gets the
    calibrated probabilities of its score (with ``run_b``, a document both runs rank gets the
    mixture of the two models, as Sawade et al. Sec. 5.2 mix two models' probabilities).
    ``n_grades``: grades 0..n_grades-1 (default: the qrels' top grade + 1). Returns the table of
    :func:`read_probs`."""
    from evalrank.data.trec import read_run
    from evalrank.models.calibrate import GradeCalibrator

    judged: dict = {}
    for (q, d), (g, _) in _qrels_grades(qrels).items():
        judged[(q, d)] = g
    top = max(judged.values(), default=0)
    n_grades = int(n_grades) if n_grades is not None else top + 1
    if n_grades < 2:
        raise ValueError(f"{qrels}: every judgment is grade 0; a label model needs at least two grades")
    tables = []
    for path in [run] + ([run_b] if run_b is not None else []):
        r = read_run(path)
        keys = [(q, d) for q, docs in r.items() for d in docs]
        scores = np.array([r[q][d] for q, d in keys])
        known = np.array([k in judged for k in keys])
        if known.sum() < MIN_CALIBRATION_DOCS:
            raise ValueError(f"--calibrate-from {qrels}: only {int(known.sum())} documents of {path} are judged; "
                             f"a calibrator needs at least {MIN_CALIBRATION_DOCS}")
        grades = np.array([min(judged[k], n_grades - 1) for k, ok in zip(keys, known) if ok])
        cal = GradeCalibrator(n_grades=n_grades).fit(scores[known], grades)
        tables.append(dict(zip(keys, cal.predict_proba(scores))))
    out = {}
    for key in set().union(*tables):
        rows = [t[key] for t in tables if key in t]
        out[key] = (np.mean(rows, axis=0), 0)
    return out


def model_probs(letor, model) -> dict:
    """A label model from the zoo: ``model`` (a file of :func:`evalrank.models.zoo.save_model`,
    e.g. ``results/<name>/fold1/models/rf.pkl``) predicts the grade probabilities of every
    document of the LETOR file ``letor`` (its ``#docid = ...`` comments name the documents, its
    ``qid:`` the queries, as in the run). Returns the table of :func:`read_probs`."""
    from evalrank.data.letor import read_letor
    from evalrank.models.zoo import load_model

    c = read_letor(letor, doc_ids=True)
    if c.doc_ids is None or not all(c.doc_ids):
        raise ValueError(f"{letor}: every line needs a document id in its comment ('# docid = ...') to be matched "
                         "with the run's documents")
    m = load_model(model)
    probs = m.predict_proba(c.features)
    qids = np.repeat(c.qids, np.diff(c.offsets)).astype(str)
    out = {}
    for q, d, p in zip(qids.tolist(), np.asarray(c.doc_ids).tolist(), probs):
        if (q, d) in out:
            raise ValueError(f"{letor}: document {d!r} of query {q!r} appears twice")
        out[(q, d)] = (p, 0)
    return out


def _qrels_grades(qrels) -> dict:
    from evalrank.data.trec import read_trec

    t = read_trec(qrels, "qrels")
    return {(t.qids[t.qid[j]], t.doc_id(j)): (max(int(t.value[j]), 0), int(t.line[j])) for j in range(len(t))}


def _run_rows(path):
    """A run's documents per query, ranked as trec_eval ranks them (the ``trec`` preset's rule:
    score compared in float32, then docno, both descending; :func:`evalrank.metrics.ranking.rank_order`):
    ``{qid: [(docno, line), ...]}`` in rank order."""
    from evalrank.data.trec import read_trec
    from evalrank.metrics.ranking import rank_order, round_scores

    t = read_trec(path, "run")
    ids = np.array([bytes(t.buf[s:e]).decode("utf-8", "replace")
                    for s, e in zip(t.doc_start.tolist(), t.doc_end.tolist())])
    grouped = np.argsort(t.qid, kind="stable")
    offsets = np.concatenate(([0], np.cumsum(np.bincount(t.qid, minlength=len(t.qids))))).astype(np.int64)
    order = grouped[rank_order(round_scores(t.value[grouped], "float32"), offsets, ties="docid",
                               doc_ids=ids[grouped], docid_order="descending")]
    out: dict[str, list] = {}
    for j in order.tolist():
        out.setdefault(t.qids[t.qid[j]], []).append((str(ids[j]), int(t.line[j])))
    for q, docs in out.items():
        seen = {}
        for d, line in docs:
            if d in seen:
                raise TrecFormatError(f"{path}:{line}: document {d!r} retrieved twice for query {q!r}")
            seen[d] = line
    return out


def pool_from_trec(run, probs, *, run_b=None, costs=None, lengths=None) -> tuple[Pool, list]:
    """The pool of a campaign from TREC run(s) and the label model: its queries (those of the
    run, sorted), every run document's probabilities (a document of the run without a line in
    ``probs`` is an error naming the run's file and line), each ranker's order, the costs (one
    per query when ``costs`` is None; a query without a cost is an error). With ``run_b`` the
    pool is the union of both runs' documents per query; each ranker ranks its own documents.
    ``probs`` is a PROBS path or a table of :func:`calibrated_probs`; ``lengths`` (instead of
    ``costs``): a :func:`read_lengths` file, Sawade's costs.
    Returns ``(pool, doc_ids)`` with ``doc_ids[i]`` = ``(qid, docno)`` of pool row ``i``."""
    if costs is not None and lengths is not None:
        raise ValueError("give costs or lengths, not both")
    table = read_probs(probs) if isinstance(probs, (str, Path)) else probs
    length_map = read_lengths(lengths) if lengths is not None else None
    ra = _run_rows(run)
    rb = _run_rows(run_b) if run_b is not None else None
    qids = sorted(ra)
    if rb is not None:
        only = sorted(set(rb) ^ set(ra))
        if only:
            raise ValueError(f"{run} and {run_b} must rank the same queries; {len(only)} differ (e.g. {only[:5]})")
    cost_map = read_costs(costs) if costs is not None else None
    rows, doc_ids, order_a, order_b, offsets, cvals = [], [], [], [], [0], []
    for q in qids:
        docs = [d for d, _ in ra[q]]
        if rb is not None:
            docs = docs + [d for d, _ in rb[q] if d not in set(docs)]
        base = len(rows)
        index = {}
        for d in docs:
            key = (q, d)
            if key not in table:
                line = dict(ra[q]).get(d) or dict(rb[q]).get(d)
                src = run if d in dict(ra[q]) else run_b
                where = probs if isinstance(probs, (str, Path)) else "the label model (--calibrate-from / --letor)"
                raise TrecFormatError(f"{src}:{line}: document {d!r} of query {q!r} has no probabilities in {where}")
            index[d] = len(rows)
            rows.append(table[key][0])
            doc_ids.append(key)
        order_a += [index[d] for d, _ in ra[q]]
        if rb is not None:
            order_b += [index[d] for d, _ in rb[q]]
        offsets.append(base + len(docs))
        if cost_map is not None:
            if q not in cost_map:
                raise ValueError(f"{costs}: no cost for query {q!r} of {run}")
            cvals.append(cost_map[q])
    if length_map is not None:
        from evalrank.active.costs import query_costs

        missing = [k for k in doc_ids if k not in length_map]
        if missing:
            raise ValueError(f"{lengths}: no length for document {missing[0][1]!r} of query {missing[0][0]!r} (and "
                             f"{len(missing) - 1} more)")
        cvals = query_costs(np.array([length_map[k] for k in doc_ids]), np.array(offsets)).tolist()
    elif cost_map is None:
        cvals = [1.0] * len(qids)
    if isinstance(probs, (str, Path)):
        fp = fingerprint(run, run_b, probs, costs, lengths)
    else:   # a calibrated model: fingerprint its probabilities
        h = hashlib.sha256(fingerprint(run, run_b, costs, lengths).encode())
        h.update(np.round(np.vstack(rows), 12).tobytes())
        fp = h.hexdigest()[:16]
    pool = Pool(qids, np.array(offsets, dtype=np.int64), np.vstack(rows), np.array(order_a, dtype=np.int64),
                np.array(cvals, dtype=np.float64), np.array(order_b, dtype=np.int64) if rb is not None else None, fp)
    return pool, doc_ids


def write_plan(path, p: Plan) -> None:
    """The plan as a TSV (module docstring), atomically."""
    from evalrank.io import atomic_write_text

    lines = [PLAN_MAGIC, "# settings " + json.dumps({**p.settings, "spent": p.spent, "whole_pool": p.whole_pool,
                                                     "exhausted": p.exhausted, "capped": p.capped}, sort_keys=True),
             "\t".join(PLAN_COLUMNS)]
    for r in p.rows():
        lines.append(f"{r['draw']}\t{r['qid']}\t{r['q']!r}\t{r['weight']!r}\t{r['new']}\t{r['cost']!r}\t"
                     f"{r['cumulative_cost']!r}")
    atomic_write_text(path, "\n".join(lines) + "\n")


def read_plan(path, pool: Pool) -> Plan:
    """A plan written by :func:`write_plan`, checked against ``pool`` (the same inputs)."""
    path = Path(path)
    text = path.read_text(encoding="utf-8").splitlines()
    if not text or text[0] != PLAN_MAGIC:
        raise TrecFormatError(f"{path}:1: not an evalrank active plan (first line {text[0]!r} if any)")
    if len(text) < 3 or not text[1].startswith("# settings "):
        raise TrecFormatError(f"{path}:2: the settings line is missing")
    try:
        settings = json.loads(text[1][len("# settings "):])
    except json.JSONDecodeError as e:
        raise TrecFormatError(f"{path}:2: damaged settings ({e})") from None
    if tuple(text[2].split("\t")) != PLAN_COLUMNS:
        raise TrecFormatError(f"{path}:3: the column header must be {' '.join(PLAN_COLUMNS)}")
    if settings.get("fingerprint") != pool.fingerprint or settings.get("difference") != pool.difference:
        raise ValueError(f"{path}: the plan was made for other inputs (the run, --run-b, --probs or --costs "
                         "differ from those given to 'active plan')")
    pos = {q: i for i, q in enumerate(pool.qids)}
    draws = []
    for number, line in enumerate(text[3:], start=4):
        f = line.split("\t")
        if len(f) != len(PLAN_COLUMNS):
            raise TrecFormatError(f"{path}:{number}: {len(f)} columns, expected {len(PLAN_COLUMNS)}")
        if f[1] not in pos:
            raise TrecFormatError(f"{path}:{number}: query {f[1]!r} is not in the pool")
        draws.append(pos[f[1]])
    meta = {k: settings.pop(k) for k in ("spent", "whole_pool", "exhausted", "capped")}
    from evalrank.active.campaign import sampling_distribution

    q = sampling_distribution(pool, settings["measure"], settings["method"])
    return Plan(list(pool.qids), q, pool.costs.copy(), np.array(draws, dtype=np.int64), float(meta["spent"]),
                bool(meta["whole_pool"]), bool(meta["exhausted"]), bool(meta["capped"]), settings)


def labels_from_qrels(qrels, pool: Pool, doc_ids: list, plan: Plan, *, unjudged: str = "error") -> np.ndarray:
    """Grades per pool document from a qrels file: -1 where not judged. A qrels topic the pool
    does not have is an error naming the line; judgments of pool queries outside the plan are
    ignored (they are not part of the sample: using them would bias eq. 6); negative grades
    count 0; a grade above the label model's top grade is an error. ``unjudged``: "error" (a
    document of a planned query without a judgment stops the estimate) or "nonrelevant" (it
    counts as grade 0)."""
    from evalrank.data.trec import read_trec

    if unjudged not in ("error", "nonrelevant"):
        raise ValueError(f"unjudged must be 'error' or 'nonrelevant', got {unjudged!r}")
    t = read_trec(qrels, "qrels")
    known = set(pool.qids)
    for j in range(len(t)):
        q = t.qids[t.qid[j]]
        if q not in known:
            raise TrecFormatError(f"{qrels}:{t.line[j]}: topic {q!r} is not a query of the run")
    index = {key: i for i, key in enumerate(doc_ids)}
    labels = np.full(len(doc_ids), -1, dtype=np.int64)
    top = pool.probs.shape[1] - 1
    for j in range(len(t)):
        key = (t.qids[t.qid[j]], t.doc_id(j))
        i = index.get(key)
        if i is None:
            continue   # judged documents the rankers did not retrieve play no part in DCG/ERR of the run
        g = max(int(t.value[j]), 0)
        if g > top:
            raise TrecFormatError(f"{qrels}:{t.line[j]}: grade {g} is above the label model's top grade {top}")
        labels[i] = g
    if unjudged == "nonrelevant":
        planned = np.zeros(pool.n_queries, dtype=bool)
        planned[plan.labelled] = True
        seg = np.repeat(np.arange(pool.n_queries), np.diff(pool.offsets))
        labels[(labels < 0) & planned[seg]] = 0
    return labels
