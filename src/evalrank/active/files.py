"""A campaign's files (``evalrank active plan|estimate``): the run(s) as a pool, the label
model (PROBS), the costs, the plan (TSV) -- read and written with errors naming file and line.

PROBS: one line per run document, ``qid docno p_0 p_1 ... p_G`` (whitespace separated; G from
the column count, the same on every line); a row summing to 1 within
:data:`PROBS_TOLERANCE` (e.g. written with ``%.6f``) is renormalised, and stderr says so once.
COSTS: ``qid cost`` per line (cost > 0).

PLAN (format 2): a TSV that carries everything ``estimate`` and ``plan --continue`` need besides
the labels and the run(s)::

    # evalrank active plan 2
    # settings {json}                 measure, method, seed, epsilon, budget, rounds, t_star, ...
    # largest importance weight W (epsilon E)
    # digest <sha256 of the settings line, the weight line and the pool table>
    # pool<TAB>qid<TAB>q<TAB>f<TAB>var<TAB>cost
    #p<TAB>qid<TAB>q<TAB>f<TAB>var<TAB>cost          one line per pool query
    draw<TAB>qid<TAB>q<TAB>weight<TAB>new<TAB>cost<TAB>cumulative_cost
    1<TAB>...                                       one row per draw, in draw order

``q`` the sampling distribution, ``f`` / ``var`` the label model's expected measure and its
variance per pool query, floats written with ``repr`` (they read back exactly). The queries to
label are the draw rows with ``new = 1``. :func:`read_plan` refuses a plan whose settings or pool
table were edited (the digest), and recomputes the draws from the seed, ``q``, the costs and
the budget: a cut plan, a deleted, duplicated or edited row, or settings that do not match the
draws stop with the file and line.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from evalrank.active.campaign_state import Plan, Pool, Rankings, mixed_rounds
from evalrank.data.trec import TrecFormatError

__all__ = ["read_probs", "read_costs", "read_lengths", "calibrated_probs", "model_probs", "rankings_from_trec",
           "pool_from_trec", "write_plan", "read_plan", "labels_from_qrels", "fingerprint"]

#: the fewest judged run documents --calibrate-from fits a calibrator on
MIN_CALIBRATION_DOCS = 20

#: a PROBS row may sum to 1 within this much (it is renormalised); further off it is refused
PROBS_TOLERANCE = 1e-3

PLAN_MAGIC = "# evalrank active plan 2"
PLAN_MAGIC_V1 = "# evalrank active plan"
PLAN_COLUMNS = ("draw", "qid", "q", "weight", "new", "cost", "cumulative_cost")
POOL_HEADER = "# pool\tqid\tq\tf\tvar\tcost"
POOL_TAG = "#p"
WEIGHT_PREFIX = "# largest importance weight "
DIGEST_PREFIX = "# digest "
#: the settings that are the end of the draws, not inputs (written on the settings line too)
PLAN_FLAGS = ("spent", "whole_pool", "exhausted", "capped")
#: the settings a plan file must have
PLAN_SETTINGS = ("measure", "method", "seed", "epsilon", "budget", "rounds", "round_budgets", "round_draws",
                 "t_star", "max_draws", "n_queries", "n_grades", "pool_cost", "max_weight", "f_pool", "runs",
                 "model", "difference") + PLAN_FLAGS


def _lines(path):
    """The fields of each line that is neither blank nor a comment, with its number; a line that is
    not UTF-8 text, or holds a NUL byte, stops with the file and line (a binary file given by
    mistake). gzip-compressed or not, as :func:`evalrank.io.open_bytes` opens them."""
    from evalrank.io import open_bytes

    with open_bytes(path) as fh:
        for number, raw in enumerate(fh, start=1):
            if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            if b"\x00" in raw:
                raise TrecFormatError(f"{path}:{number}: a NUL byte (0x00): not a text file")
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise TrecFormatError(f"{path}:{number}: byte 0x{raw[e.start]:02x} is not UTF-8 text (a binary "
                                      "file?)") from None
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
    """``{(qid, docno): (row, line)}`` rows of grade probabilities, checked (module docstring):
    rows off 1 by at most :data:`PROBS_TOLERANCE` are renormalised (one line on stderr says how
    many and the largest deviation), rows further off stop with the file and line."""
    out, width = {}, None
    renormalised, worst = 0, 0.0
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
        off = abs(p.sum() - 1.0)
        if not off <= PROBS_TOLERANCE:
            raise TrecFormatError(f"{path}:{number}: probabilities sum to {p.sum():.6g}, not 1 (more than "
                                  f"{PROBS_TOLERANCE:g} off)")
        if off > 1e-9:
            p = p / p.sum()
            renormalised += 1
            worst = max(worst, off)
        key = (f[0], f[1])
        if key in out:
            raise TrecFormatError(f"{path}:{number}: document {f[1]!r} of query {f[0]!r} given twice (first on "
                                  f"line {out[key][1]})")
        out[key] = (p, number)
    if not out:
        raise TrecFormatError(f"{path}: no probabilities (the file is empty)")
    if renormalised:
        from evalrank.cli.common import _log

        _log(f"{path}: {renormalised} row{'s' if renormalised > 1 else ''} of probabilities summed to 1 only within "
             f"{PROBS_TOLERANCE:g} (largest deviation {worst:.3g}; written rounded?): renormalised")
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
    grades_lines = _qrels_grades(qrels)
    for (q, d), (g, _) in grades_lines.items():
        judged[(q, d)] = g
    n_grades = _n_grades(n_grades, grades_lines, qrels)
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
        grades = np.array([judged[k] for k, ok in zip(keys, known) if ok])
        cal = GradeCalibrator(n_grades=n_grades).fit(scores[known], grades)
        tables.append(dict(zip(keys, cal.predict_proba(scores))))
    out = {}
    for key in set().union(*tables):
        rows = [t[key] for t in tables if key in t]
        out[key] = (np.mean(rows, axis=0), 0)
    return out


def _n_grades(n_grades, grades_lines: dict, path) -> int:
    """``--grades`` checked against the judgments it must cover (default: their top grade + 1)."""
    top = max((g for g, _ in grades_lines.values()), default=0)
    if n_grades is None:
        return top + 1
    if isinstance(n_grades, bool) or not isinstance(n_grades, (int, np.integer)) or n_grades < 2:
        raise ValueError(f"--grades must be an integer >= 2 (grades 0..G-1), got {n_grades!r}")
    bad = sorted((line, g) for g, line in grades_lines.values() if g >= n_grades)
    if bad:
        line, g = bad[0]
        raise TrecFormatError(f"{path}:{line}: grade {g} is above --grades {n_grades} (grades 0..{n_grades - 1}); "
                              "raise --grades or leave it out")
    return int(n_grades)


#: with ``--judge`` and no reference judgments, the probability that a true grade differs from the
#: judge's, spread evenly over the other grades (the estimate recalibrates the model on the labels;
#: its interval does not depend on it)
JUDGE_NOISE = 0.4


def judge_probs(run, judge, *, run_b=None, n_grades: int | None = None, reference=None) -> dict:
    """A label model from a cheap judge: one grade per run document (``judge``, TREC qrels: an
    LLM's, a crowd worker's, a heuristic's), turned into grade probabilities by the judge's
    confusion matrix ``P(true grade | judge's grade)``: estimated on the documents ``reference``
    (qrels of true grades) and the judge both grade, each cell smoothed by one pseudo-document, or
    without a reference ``1 - JUDGE_NOISE`` on the judge's grade and the rest spread evenly.
    Every run document needs the judge's grade (an error names the run's line). ``n_grades``: the
    grades 0..G-1 (default: the top grade of the judge and the reference + 1). Returns the table
    of :func:`read_probs`."""
    judged = _qrels_grades(judge)
    ref = _qrels_grades(reference) if reference is not None else {}
    top = max((g for g, _ in [*judged.values(), *ref.values()]), default=0)
    if n_grades is None and top < 1:
        raise ValueError(f"{judge}: every judgment is grade 0; a label model needs at least two grades")
    G = _n_grades(top + 1 if n_grades is None else n_grades, judged, judge)
    if ref:
        _n_grades(G, ref, reference)
        counts = np.ones((G, G))            # [judge's grade, true grade], one pseudo-document each
        for key, (y, _) in ref.items():
            if key in judged:
                counts[judged[key][0], y] += 1.0
        confusion = counts / counts.sum(axis=1, keepdims=True)
    else:
        confusion = np.full((G, G), JUDGE_NOISE / (G - 1))
        np.fill_diagonal(confusion, 1.0 - JUDGE_NOISE)
    out = {}
    for path in [run] + ([run_b] if run_b is not None else []):
        for q, docs in _run_rows(path).items():
            for d, line in docs:
                if (q, d) not in judged:
                    raise TrecFormatError(f"{path}:{line}: document {d!r} of query {q!r} has no grade in --judge "
                                          f"{judge}")
                out[(q, d)] = (confusion[judged[(q, d)][0]], 0)
    return out


def model_probs(letor, model) -> dict:
    """A label model from the zoo: ``model`` (a file of :func:`evalrank.models.zoo.save_model`,
    e.g. ``results/<name>/fold1/models/rf.skops``) predicts the grade probabilities of every
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


def _rankings(run, run_b=None) -> tuple[Rankings, list, dict]:
    """:func:`rankings_from_trec` and where each document is in the run files:
    ``{(qid, docno): (path, line)}`` (for errors)."""
    ra = _run_rows(run)
    rb = _run_rows(run_b) if run_b is not None else None
    qids = sorted(ra)
    if rb is not None:
        only = sorted(set(rb) ^ set(ra))
        if only:
            raise ValueError(f"{run} and {run_b} must rank the same queries; {len(only)} differ (e.g. {only[:5]})")
    doc_ids, where, order_a, order_b, offsets, offs_a, offs_b = [], {}, [], [], [0], [0], [0]
    for q in qids:
        docs = [d for d, _ in ra[q]]
        where.update({(q, d): (run, line) for d, line in ra[q]})
        if rb is not None:
            seen = set(docs)
            docs += [d for d, _ in rb[q] if d not in seen]
            where.update({(q, d): (run_b, line) for d, line in rb[q] if (q, d) not in where})
        index = {d: len(doc_ids) + i for i, d in enumerate(docs)}
        doc_ids += [(q, d) for d in docs]
        order_a += [index[d] for d, _ in ra[q]]
        offs_a.append(len(order_a))
        if rb is not None:
            order_b += [index[d] for d, _ in rb[q]]
            offs_b.append(len(order_b))
        offsets.append(len(doc_ids))

    def arr(x):
        return np.array(x, dtype=np.int64)

    b = rb is not None
    h = hashlib.sha256(json.dumps([list(k) for k in doc_ids]).encode())
    for a in (order_a, offs_a) + ((order_b, offs_b) if b else ()):
        h.update(arr(a).tobytes())
    r = Rankings(qids, arr(offsets), arr(order_a), arr(order_b) if b else None, arr(offs_a),
                 arr(offs_b) if b else None, h.hexdigest()[:16])
    return r, doc_ids, where


def rankings_from_trec(run, run_b=None) -> tuple[Rankings, list]:
    """The rankers' orders from TREC run(s) (no label model: what ``estimate`` needs): the
    queries of the run, sorted; per query the run's documents (with ``run_b``, then those only
    ``run_b`` retrieved), each ranker's order of its own documents as trec_eval ranks them
    (:func:`_run_rows`); the fingerprint hashes the documents and orders (a run re-sorted or
    re-scored to the same rankings has the same). Returns ``(rankings, doc_ids)`` with
    ``doc_ids[i]`` = ``(qid, docno)`` of pool row ``i``."""
    r, doc_ids, _ = _rankings(run, run_b)
    return r, doc_ids


def pool_from_trec(run, probs, *, run_b=None, costs=None, lengths=None) -> tuple[Pool, list]:
    """The pool of a campaign from TREC run(s) and the label model: the rankings of
    :func:`rankings_from_trec`, every pool document's probabilities (a document of the run
    without a line in ``probs`` is an error naming the run's file and line) and the costs (one
    per query when ``costs`` is None; a query without a cost is an error). ``probs`` is a PROBS
    path or a table of :func:`calibrated_probs` / :func:`model_probs`; ``lengths`` (instead of
    ``costs``): a :func:`read_lengths` file, Sawade's costs.
    Returns ``(pool, doc_ids)`` with ``doc_ids[i]`` = ``(qid, docno)`` of pool row ``i``."""
    if costs is not None and lengths is not None:
        raise ValueError("give costs or lengths, not both")
    table = read_probs(probs) if isinstance(probs, (str, Path)) else probs
    length_map = read_lengths(lengths) if lengths is not None else None
    r, doc_ids, where = _rankings(run, run_b)
    missing = next((k for k in doc_ids if k not in table), None)
    if missing is not None:
        src, line = where[missing]
        what = probs if isinstance(probs, (str, Path)) else "the label model (--calibrate-from / --letor)"
        raise TrecFormatError(f"{src}:{line}: document {missing[1]!r} of query {missing[0]!r} has no probabilities "
                              f"in {what}")
    rows = np.vstack([table[k][0] for k in doc_ids])
    if length_map is not None:
        from evalrank.active.costs import query_costs

        gone = [k for k in doc_ids if k not in length_map]
        if gone:
            raise ValueError(f"{lengths}: no length for document {gone[0][1]!r} of query {gone[0][0]!r} (and "
                             f"{len(gone) - 1} more)")
        cvals = query_costs(np.array([length_map[k] for k in doc_ids]), r.offsets)
    elif costs is not None:
        cost_map = read_costs(costs)
        gone = [q for q in r.qids if q not in cost_map]
        if gone:
            raise ValueError(f"{costs}: no cost for query {gone[0]!r} of {run}")
        cvals = [cost_map[q] for q in r.qids]
    else:
        cvals = [1.0] * r.n_queries
    pool = Pool(r.qids, r.offsets, rows, r.order_a, np.asarray(cvals, dtype=np.float64), r.order_b, r.fingerprint,
                r.offsets_a, r.offsets_b)
    return pool, doc_ids


# -- the plan file --------------------------------------------------------------------------------
def _weight_line(settings: dict) -> str:
    return f"{WEIGHT_PREFIX}{settings['max_weight']!r} (epsilon {settings['epsilon']!r})"


def _digest(settings_line: str, weight_line: str, pool_lines: list) -> str:
    h = hashlib.sha256()
    for line in [settings_line, weight_line, POOL_HEADER, *pool_lines]:
        h.update(line.encode("utf-8") + b"\n")
    return h.hexdigest()


def _row_text(r: dict) -> str:
    return (f"{r['draw']}\t{r['qid']}\t{r['q']!r}\t{r['weight']!r}\t{r['new']}\t{r['cost']!r}\t"
            f"{r['cumulative_cost']!r}")


def write_plan(path, p: Plan) -> None:
    """The plan as a TSV (module docstring), atomically."""
    from evalrank.io import atomic_write_text

    odd = next((q for q in p.qids if not str(q) or len(str(q).split()) != 1 or str(q) != str(q).strip()), None)
    if odd is not None:
        raise ValueError(f"query ids must be non-empty and without whitespace to be written in a plan, got {odd!r}")
    settings = {**p.settings, "spent": p.spent, "whole_pool": p.whole_pool, "exhausted": p.exhausted,
                "capped": p.capped}
    settings_line = "# settings " + json.dumps(settings, sort_keys=True)
    weight_line = _weight_line(settings)
    pool_lines = [f"{POOL_TAG}\t{qid}\t{float(q)!r}\t{float(f)!r}\t{float(v)!r}\t{float(c)!r}"
                  for qid, q, f, v, c in zip(p.qids, p.q.tolist(), p.f.tolist(), p.var.tolist(), p.costs.tolist())]
    lines = [PLAN_MAGIC, settings_line, weight_line, DIGEST_PREFIX + _digest(settings_line, weight_line, pool_lines),
             POOL_HEADER, *pool_lines, "\t".join(PLAN_COLUMNS), *(_row_text(r) for r in p.rows())]
    atomic_write_text(path, "\n".join(lines) + "\n")


def _plan_header(path, text: list) -> tuple[dict, int]:
    """The settings of a plan's header lines, checked; and the number of the pool header line."""
    first = text[0] if text else ""
    if first == PLAN_MAGIC_V1:
        raise TrecFormatError(f"{path}:1: a plan of an older evalrank (format 1: no label model, no digest); "
                              "make it again with 'evalrank active plan'")
    if first != PLAN_MAGIC:
        raise TrecFormatError(f"{path}:1: not an evalrank active plan (the first line is {first!r}, not "
                              f"{PLAN_MAGIC!r})")
    if len(text) < 5 or not text[1].startswith("# settings "):
        raise TrecFormatError(f"{path}:2: the settings line is missing")
    try:
        settings = json.loads(text[1][len("# settings "):])
    except json.JSONDecodeError as e:
        raise TrecFormatError(f"{path}:2: damaged settings ({e})") from None
    except RecursionError:
        raise TrecFormatError(f"{path}:2: damaged settings (nested too deep to be a plan's)") from None
    if not isinstance(settings, dict):
        raise TrecFormatError(f"{path}:2: the settings must be a JSON object")
    lacking = [k for k in PLAN_SETTINGS if k not in settings]
    if lacking:
        raise TrecFormatError(f"{path}:2: the settings lack {', '.join(lacking)}")
    if text[2] != _weight_line(settings):
        raise TrecFormatError(f"{path}:3: the weight line must read {_weight_line(settings)!r} (the settings' "
                              "max_weight and epsilon)")
    if not text[3].startswith(DIGEST_PREFIX):
        raise TrecFormatError(f"{path}:4: the digest line is missing")
    if text[4] != POOL_HEADER:
        raise TrecFormatError(f"{path}:5: the pool table's header must be {POOL_HEADER!r}")
    return settings, 5


def _pool_table(path, text: list, start: int):
    """The ``#p`` lines from line ``start + 1``: qids, q, f, var, costs; and the next line's index."""
    qids, rows, seen = [], [], {}
    i = start
    while i < len(text) and text[i].startswith(POOL_TAG + "\t"):
        f = text[i].split("\t")
        if len(f) != 6:
            raise TrecFormatError(f"{path}:{i + 1}: a pool line is '#p qid q f var cost' (6 tab-separated fields), "
                                  f"got {len(f)}")
        try:
            vals = [float(x) for x in f[2:]]
        except ValueError:
            raise TrecFormatError(f"{path}:{i + 1}: q, f, var and cost must be numbers") from None
        if f[1] in seen:
            raise TrecFormatError(f"{path}:{i + 1}: query {f[1]!r} is in the pool table twice (first on line "
                                  f"{seen[f[1]]})")
        seen[f[1]] = i + 1
        qids.append(f[1])
        rows.append(vals)
        i += 1
    if not rows:
        raise TrecFormatError(f"{path}:{start + 1}: the pool table is empty")
    a = np.array(rows, dtype=np.float64)
    return qids, a[:, 0].copy(), a[:, 1].copy(), a[:, 2].copy(), a[:, 3].copy(), i


def _compare_rows(path, text: list, start: int, want: list) -> None:
    """The draw rows from line ``start + 1`` against the recomputed ``want`` (:meth:`Plan.rows`):
    the first row that differs, a missing row (a cut plan) or an extra one stops with its line."""
    rows = [(i + 1, line) for i, line in enumerate(text[start:], start=start) if line.strip()]
    for j, r in enumerate(want):
        if j >= len(rows):
            end = rows[-1][0] if rows else start
            raise TrecFormatError(f"{path}:{end + 1}: the plan is cut: {len(rows)} draw rows, its settings give "
                                  f"{len(want)} (the next is draw {r['draw']}, query {r['qid']!r})")
        number, line = rows[j]
        if line != _row_text(r):
            got = line.split("\t")
            what = (f"query {got[1]!r}, the plan's draw {r['draw']} is query {r['qid']!r}"
                    if len(got) > 1 and got[1] != r["qid"] else f"the plan's draw {r['draw']} reads "
                                                                f"{_row_text(r)!r}")
            raise TrecFormatError(f"{path}:{number}: this row differs from the draws its seed, q and budget give "
                                  f"({what}): a row was edited, deleted or duplicated")
    if len(rows) > len(want):
        number, _ = rows[len(want)]
        raise TrecFormatError(f"{path}:{number}: a row beyond the plan's {len(want)} draws (a row was duplicated or "
                              "added)")


def read_plan(path) -> Plan:
    """A plan written by :func:`write_plan`, checked (module docstring): the header and the pool
    table against the digest, the settings against the pool table and the draws
    (:func:`evalrank.active.campaign.check_plan`), every draw row against the draws recomputed
    from the seed, ``q``, the costs and the budget. Errors name the file and line."""
    from evalrank.active.campaign_plan import check_plan, round_draws

    path = Path(path)
    text = path.read_text(encoding="utf-8").splitlines()
    settings, start = _plan_header(path, text)
    qids, q, f, var, costs, end = _pool_table(path, text, start)
    if _digest(text[1], text[2], text[start:end]) != text[3][len(DIGEST_PREFIX):].strip():
        raise TrecFormatError(f"{path}:4: the plan was edited: the digest does not match the settings (line 2) and "
                              f"the pool table (lines {start + 1}-{end}); use the plan as 'active plan' wrote it")
    if end >= len(text) or tuple(text[end].split("\t")) != PLAN_COLUMNS:
        raise TrecFormatError(f"{path}:{end + 1}: the column header must be {' '.join(PLAN_COLUMNS)}")
    flags = {k: settings.pop(k) for k in PLAN_FLAGS}
    try:
        mix = settings.get("round_mix") or [0.0] * len(settings["round_budgets"])
        qs = mixed_rounds(q, mix)
        d = round_draws(qs, costs, settings["round_budgets"], settings["seed"], settings["max_draws"])
    except (TypeError, ValueError, KeyError) as e:
        raise TrecFormatError(f"{path}:2: the draws cannot be recomputed from the settings and pool ({e})") from None
    p = Plan(qids, q, costs, f, var, d["queries"], float(flags["spent"]), bool(flags["whole_pool"]),
             bool(flags["exhausted"]), bool(flags["capped"]), settings)
    problems = check_plan(p)
    if problems:
        raise TrecFormatError(f"{path}:2: the settings do not match the plan's draws: {problems[0]}")
    _compare_rows(path, text, end + 1, p.rows())
    return p


def labels_from_qrels(qrels, rankings, doc_ids: list, plan: Plan, *, unjudged: str = "error") -> np.ndarray:
    """Grades per pool document from a qrels file: -1 where not judged. A qrels topic the pool
    does not have is an error naming the line; judgments of pool queries outside the plan are
    ignored (they are not part of the sample: using them would bias the estimate); a grade of a
    pool document below 0 or above the label model's top grade (the plan's ``n_grades``) is an
    error naming the line, and so is a run document judged twice (both lines, as ``evaluate``
    refuses it). ``rankings``: the :class:`~evalrank.active.campaign.Rankings` (or
    pool) of ``doc_ids``. ``unjudged``: "error" (a document of a planned query without a
    judgment stops the estimate) or "nonrelevant" (it counts as grade 0)."""
    from evalrank.data.trec import read_trec

    if unjudged not in ("error", "nonrelevant"):
        raise ValueError(f"unjudged must be 'error' or 'nonrelevant', got {unjudged!r}")
    t = read_trec(qrels, "qrels")
    known = set(rankings.qids)
    for j in range(len(t)):
        q = t.qids[t.qid[j]]
        if q not in known:
            raise TrecFormatError(f"{qrels}:{t.line[j]}: topic {q!r} is not a query of the run")
    index = {key: i for i, key in enumerate(doc_ids)}
    labels = np.full(len(doc_ids), -1, dtype=np.int64)
    first_line = np.zeros(len(doc_ids), dtype=np.int64)
    top = int(plan.settings["n_grades"]) - 1
    for j in range(len(t)):
        key = (t.qids[t.qid[j]], t.doc_id(j))
        i = index.get(key)
        if i is None:
            continue   # judged documents the rankers did not retrieve play no part in DCG/ERR of the run
        if first_line[i]:
            raise TrecFormatError(f"{qrels}:{t.line[j]}: document {key[1]!r} of topic {key[0]!r} is judged twice "
                                  f"(first on line {first_line[i]}, grade {labels[i]}; here grade {int(t.value[j])}): "
                                  "keep one judgment per document")
        first_line[i] = t.line[j]
        g = int(t.value[j])
        if g < 0:
            raise TrecFormatError(f"{qrels}:{t.line[j]}: grade {g} is negative; the label model's grades are "
                                  f"0..{top} (judge a document that is not relevant 0)")
        if g > top:
            raise TrecFormatError(f"{qrels}:{t.line[j]}: grade {g} is above the label model's top grade {top}")
        labels[i] = g
    if unjudged == "nonrelevant":
        planned = np.zeros(len(rankings.qids), dtype=bool)
        planned[plan.labelled] = True
        seg = np.repeat(np.arange(len(rankings.qids)), np.diff(rankings.offsets))
        labels[(labels < 0) & planned[seg]] = 0
    return labels
