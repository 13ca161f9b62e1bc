"""``python -m evalrank evaluate`` against trec_eval 9.0.8 and ir_measures on TREC files (issue 17).

    .venv/bin/python benchmarks/bench_evaluate.py [--repeats 3] [--trec-eval PATH] [sizes ...]

Four cases, every speed a ratio against the peer timed the same way in the same run (one warm-up,
then the best of ``--repeats`` wall times; whole processes via ``subprocess`` and
``time.perf_counter``), on the configuration a user gets by default, values compared:

1. A kernel figure, not a user path: NDCG@10 on 30,000 queries x 120 documents, evalrank's
   ``metrics.ndcg`` (``trec`` preset, string document ids) on arrays already grouped by query
   against pytrec_eval's ``RelevanceEvaluator.evaluate`` on dicts built before the timing:
   ``bench_ndcg.py`` is run as it is (its own timing: one warm-up call, best of ``--repeats``
   calls, in one process), tie-free and heavy ties; its two ratios are parsed from its output.
   What users call, ``evalrank.evaluate`` on DataFrames or column arrays against the peers' whole
   calls from the same input, is ``benchmarks/bench_frames.py``.
2. ``evalrank evaluate -q -m ndcg_cut.10 QRELS RUN`` on one 5,000-topic x 1,000-document run file
   against ``trec_eval -q -m ndcg_cut.10 QRELS RUN``, whole processes (Python start-up included).
3. 100 runs x 50 topics x 1,000 documents: one ``evalrank evaluate -q -m ndcg_cut.10 QRELS RUN1 ...
   RUN100`` process against a loop of 100 trec_eval processes (the loop is one timing).
4. Start-up: ``python -c pass``, ``python -m evalrank --help``, ``evaluate`` and trec_eval on a tiny
   file (no target, just numbers).

Second peer (cases 2 and 3): ir_measures' Python API in one process per case (one for all the runs
of case 3): ``read_trec_qrels`` / ``read_trec_run`` on the same files, ``ir_measures.evaluator([
nDCG@10], qrels)`` once, then per run ``iter_calc`` with the measure's ``aggregator()`` (what
``calc_aggregate`` does, in the same pass), printed as trec_eval -q prints. ir_measures gives topics
that the qrels have and a run lacks a 0 (trec_eval's -c); the data here has none such, so all
tools average over the same topics.

trec_eval: ``--trec-eval PATH``, else built from the mirror by ``tests/trec_eval_binary.py``'s
``build()`` (tag v9.0.8, its Makefile's default ``CFLAGS = -g``: no optimisation, which is what
``make`` gives a user). Where it is built here, a second build with ``-O3`` (the Makefile's
commented-out alternative) is timed too, for information (``--no-o3`` skips it).

Data (seeded ``numpy`` Generator, written once per benchmark run into a temporary directory, not
in the repository): per topic a pool of candidate documents with a latent relevance; a run scores
each with ``quality * latent + noise``, keeps the best ``docs`` and writes them in rank order as
``qid Q0 docno rank score tag`` with 4-6 decimals (some scores tie, also in float32); the qrels
judge 100-500 documents per topic, drawn towards high latent relevance (most of them retrieved),
grades 0-3 and a few -1/-2. Document ids look like ClueWeb09/ClueWeb12/GOV2/MS MARCO v2 ids
(``clueweb09-en0000-12-34567``, ``GX000-00-0000000``, ``msmarco_doc_00_123456``: shared prefixes,
lengths 16-25); topic ids are distinct numbers up to 7 digits in numeric order. 2 % of the run
topics have no judgments (every tool skips them).

Values: evalrank's stdout must be byte-identical to trec_eval's (case 3: trec_eval's lines, each
prefixed with the run's file name and a tab) and equal on every per-topic and ``all`` value to the
4 printed decimals; ir_measures' values are compared with trec_eval's (|diff| <= 5e-5 expected
from trec_eval's rounding). Any difference is printed loudly. The time split of evalrank's process
(imports, reading, ranking, measures, formatting) is printed for cases 2 and 3.
"""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from importlib.metadata import version
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from _machine import cpu_model  # noqa: E402

PY = sys.executable
MEASURE = "ndcg_cut.10"
#: the environment of every timed process: a user's Python caches bytecode, so
#: ``PYTHONDONTWRITEBYTECODE`` (set in some sandboxes) is dropped and the ``.pyc`` files go to a
#: temporary ``PYTHONPYCACHEPREFIX`` (set in main), not into the source tree
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


# ---------------------------------------------------------------------------
# data: lines built as uint8 matrices whose NUL bytes are dropped at the end
# ---------------------------------------------------------------------------
def digits(a, width: int, zero_pad: bool) -> np.ndarray:
    """``(n, width)`` ASCII digits of non-negative ints; without ``zero_pad`` the leading zeros
    are NUL (removed when the line is joined), the last digit always kept."""
    a = np.asarray(a, dtype=np.int64).ravel()
    if a.size and (a.min() < 0 or a.max() >= 10 ** width):
        raise ValueError(f"value out of range for {width} digits")
    d = (a[:, None] // (10 ** np.arange(width - 1, -1, -1, dtype=np.int64))) % 10
    out = (d + 48).astype(np.uint8)
    if not zero_pad:
        lead = np.cumsum(d, axis=1) == 0
        lead[:, -1] = False
        out[lead] = 0
    return out


def const(s: bytes, n: int) -> np.ndarray:
    return np.broadcast_to(np.frombuffer(s, dtype=np.uint8), (n, len(s)))


def join_lines(*parts: np.ndarray) -> bytes:
    m = np.hstack(parts)
    return m[m != 0].tobytes()


def doc_ids(rng, nt: int, pool: int) -> np.ndarray:
    """``(nt * pool, 25)`` NUL-padded document ids, unique within each topic (the last field
    is an injective function of the pool slot)."""
    n = nt * pool
    slot = np.tile(np.arange(pool, dtype=np.int64), nt)
    off = np.repeat(rng.integers(0, 10 ** 7, nt), pool)
    fam = rng.choice(5, size=n, p=[0.6, 0.1, 0.1, 0.1, 0.1])
    seg = rng.integers(0, 10 ** 4, n)
    f2 = rng.integers(0, 100, n)
    out = np.zeros((n, 25), dtype=np.uint8)

    def put(mask, *parts):
        rows = np.flatnonzero(mask)
        m = np.hstack([p if p.shape[0] == rows.size else p[rows] for p in parts])
        out[rows, :m.shape[1]] = m

    def c(s, mask):
        return const(s, int(mask.sum()))

    d5 = (slot * 7919 + off) % 10 ** 5  # pool < 10^5: injective in the slot
    m = fam == 0  # clueweb09-en0000-12-34567
    put(m, c(b"clueweb09-en", m), digits(seg[m], 4, True), c(b"-", m), digits(f2[m], 2, True), c(b"-", m),
        digits(d5[m], 5, True))
    m = fam == 1  # clueweb09-enwp01-12-34567
    put(m, c(b"clueweb09-enwp0", m), digits(seg[m] % 4, 1, True), c(b"-", m), digits(f2[m], 2, True), c(b"-", m),
        digits(d5[m], 5, True))
    m = fam == 2  # clueweb12-0000wb-12-34567
    put(m, c(b"clueweb12-", m), digits(seg[m] % 2000, 4, True), c(b"wb-", m), digits(f2[m], 2, True), c(b"-", m),
        digits(d5[m], 5, True))
    m = fam == 3  # GX000-00-0000000
    put(m, c(b"GX", m), digits(seg[m] % 300, 3, True), c(b"-", m), digits(f2[m], 2, True), c(b"-", m),
        digits((slot[m] * 7919 + off[m]) % 10 ** 7, 7, True))
    m = fam == 4  # msmarco_doc_00_123456 (variable length)
    put(m, c(b"msmarco_doc_", m), digits(seg[m] % 60, 2, True), c(b"_", m),
        digits(slot[m] + pool * rng.integers(0, 10 ** 5, int(m.sum())), 10, False))
    return out


class Collection:
    """Topics with a pool of candidate documents each: latent relevance, ids, and qrels."""

    def __init__(self, rng, nt: int, pool: int, unjudged_frac: float = 0.02):
        self.rng, self.nt, self.pool = rng, nt, pool
        self.qid_num = np.sort(rng.choice(1_200_000, size=nt, replace=False) + 1)
        self.z = rng.standard_normal((nt, pool))
        self.ids = doc_ids(rng, nt, pool)
        self.judged_topics = np.sort(rng.choice(nt, size=nt - int(round(unjudged_frac * nt)), replace=False))
        # judged: 100-500 per topic, drawn towards high latent relevance (Gumbel top-k)
        t = self.judged_topics
        key = 0.8 * self.z[t] + rng.gumbel(size=(t.size, pool))
        n_j = np.minimum(rng.integers(100, 501, t.size), pool)
        order = np.argsort(-key, axis=1)
        take = np.arange(pool)[None, :] < n_j[:, None]
        self.q_topic = np.repeat(t, n_j)
        self.q_slot = order[take]
        zj = self.z[self.q_topic, self.q_slot]
        g = (zj > 0.9).astype(np.int64) + (zj > 1.5) + (zj > 2.1)
        u = rng.random(g.size)
        g = np.where(g > 0, g, np.where(u < 0.01, -2, np.where(u < 0.03, -1, 0)))
        self.grade = g
        self.judged = np.zeros((nt, pool), dtype=bool)
        self.judged[self.q_topic, self.q_slot] = True

    def qrels_bytes(self) -> bytes:
        n = self.q_topic.size
        g = self.grade
        sign = np.where(g < 0, np.uint8(45), np.uint8(0))[:, None]
        return join_lines(digits(self.qid_num[self.q_topic], 7, False), const(b" 0 ", n),
                          self.ids[self.q_topic * self.pool + self.q_slot], const(b" ", n), sign,
                          digits(np.abs(g), 1, True), const(b"\n", n))

    def run_bytes(self, docs: int, quality: float, decimals: int, tag: bytes) -> tuple[bytes, float]:
        """One run's file (every topic, ``docs`` documents each, in rank order) and the share of
        the judged documents of its judged topics that it retrieves."""
        rng, nt = self.rng, self.nt
        raw = quality * self.z + rng.standard_normal(self.z.shape)
        top = np.argsort(-raw, axis=1)[:, :docs]
        s = np.take_along_axis(raw, top, axis=1)
        scale = 10 ** decimals
        val = np.clip(np.round((5.0 + s) * scale), 0, 100 * scale - 1).astype(np.int64).ravel()
        topic = np.repeat(np.arange(nt), docs)
        n = topic.size
        lines = join_lines(digits(self.qid_num[topic], 7, False), const(b" Q0 ", n),
                           self.ids[topic * self.pool + top.ravel()], const(b" ", n),
                           digits(np.tile(np.arange(1, docs + 1), nt), 5, False), const(b" ", n),
                           digits(val // scale, 2, False), const(b".", n), digits(val % scale, decimals, True),
                           const(b" " + tag + b"\n", n))
        ret = np.zeros_like(self.judged)
        np.put_along_axis(ret, top, True, axis=1)
        jt = self.judged_topics
        share = float((ret[jt] & self.judged[jt]).sum() / self.judged[jt].sum())
        return lines, share


def write_data(args, work: Path) -> dict:
    rng = np.random.default_rng(args.seed)
    info = {}
    t0 = time.perf_counter()
    # case 2: one big run
    c2 = Collection(rng, args.queries, 2 * args.docs)
    (work / "qrels_big.txt").write_bytes(c2.qrels_bytes())
    dec = int(rng.integers(4, 7))
    data, share = c2.run_bytes(args.docs, 1.0, dec, b"bigrun_bm25")
    (work / "run_big.txt").write_bytes(data)
    info["big"] = dict(qrels=work / "qrels_big.txt", run=work / "run_big.txt", share=share, decimals=dec,
                       judgments=c2.grade.size, topics=args.queries, judged_topics=c2.judged_topics.size,
                       grades={int(k): int(v) for k, v in zip(*np.unique(c2.grade, return_counts=True))})
    del c2, data
    # case 3: many runs on one qrels
    c3 = Collection(rng, args.run_queries, int(2.5 * args.run_docs))
    (work / "qrels_many.txt").write_bytes(c3.qrels_bytes())
    rd = work / "runs"
    rd.mkdir(exist_ok=True)
    runs, shares = [], []
    for r in range(args.runs):
        q = float(rng.uniform(0.2, 1.5))
        data, share = c3.run_bytes(args.run_docs, q, int(rng.integers(4, 7)), b"sys%03d" % r)
        p = rd / f"input.sys{r:03d}"
        p.write_bytes(data)
        runs.append(p)
        shares.append(share)
    info["many"] = dict(qrels=work / "qrels_many.txt", runs=runs, share=float(np.mean(shares)),
                        judgments=c3.grade.size, topics=args.run_queries, judged_topics=c3.judged_topics.size)
    # start-up: a tiny file
    c4 = Collection(rng, 5, 40, unjudged_frac=0.0)
    c4_q = c4.qrels_bytes()
    (work / "qrels_tiny.txt").write_bytes(c4_q)
    (work / "run_tiny.txt").write_bytes(c4.run_bytes(20, 1.0, 4, b"tiny")[0])
    info["tiny"] = dict(qrels=work / "qrels_tiny.txt", run=work / "run_tiny.txt")
    info["seconds"] = time.perf_counter() - t0
    return info


# ---------------------------------------------------------------------------
# timing
# ---------------------------------------------------------------------------
def sh(argv) -> str:
    return " ".join(shlex.quote(str(a)) for a in argv)


def run_to(argv, out: Path, env=None) -> None:
    with open(out, "wb") as fh:
        p = subprocess.run([str(a) for a in argv], stdout=fh, stderr=subprocess.PIPE, env=env or ENV)
    if p.returncode != 0:
        raise RuntimeError(f"{sh(argv)} exited {p.returncode}: {p.stderr.decode(errors='replace')[-2000:]}")


def timed(fn, repeats: int) -> tuple[float, list[float]]:
    """One warm-up call, then the best of ``repeats`` wall times (the same for every tool)."""
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times), times


IR_MEASURES_SCRIPT = r'''
import os, sys
import ir_measures
from ir_measures import nDCG
qrels_path, runs = sys.argv[1], sys.argv[2:]
m = nDCG @ 10
ev = ir_measures.evaluator([m], ir_measures.read_trec_qrels(qrels_path))
out = []
for path in runs:
    pre = os.path.basename(path) + "\t" if len(runs) > 1 else ""
    agg = m.aggregator()
    for metric in ev.iter_calc(ir_measures.read_trec_run(path)):
        agg.add(metric.value)
        out.append(f"{pre}ndcg_cut_10\t{metric.query_id}\t{metric.value!r}")
    out.append(f"{pre}ndcg_cut_10\tall\t{agg.result()!r}")
if os.environ.get("BENCH_IR_MEASURES_PROVIDER"):
    print(type(ev).__module__, file=sys.stderr)
sys.stdout.write("\n".join(out) + "\n")
'''


def parse(path: Path, prefixed: bool) -> dict:
    """``{(run, qid): value}`` from trec_eval-shaped output."""
    out = {}
    for line in path.read_text().splitlines():
        f = line.split("\t")
        run = f.pop(0) if prefixed else ""
        out[(run, f[1])] = float(f[2])
    return out


def compare(name: str, ref: dict, got: dict, tol: float, problems: list) -> str:
    missing = sorted(set(ref) ^ set(got))
    common = [k for k in ref if k in got]
    diff = max((abs(ref[k] - got[k]) for k in common), default=float("nan"))
    alls = [k for k in common if k[1] == "all"]
    dall = max((abs(ref[k] - got[k]) for k in alls), default=float("nan"))
    msg = (f"{name} vs trec_eval: {len(common)} values compared ({len(alls)} 'all'), max |diff| {diff:.1e} "
           f"(all lines: {dall:.1e})")
    if missing:
        msg += f"; {len(missing)} (run, topic) keys on one side only, e.g. {missing[:3]}"
    if missing or not diff <= tol:
        msg = "**DIFFERENCE** " + msg + f" -- above the tolerance {tol:g}"
        problems.append(msg)
    return msg


def table(title: str, rows: list[tuple[str, float, list, float | None]], ratio: bool = True) -> str:
    """A Markdown table; the ratio column is the tool's best time over evalrank's (evalrank's speed-up)."""
    head = "| tool | seconds (best) | all timed runs |" + (" its time / evalrank's |" if ratio else "")
    lines = [f"### {title}", "", head, "|---|---|---|" + ("---|" if ratio else "")]
    for name, sec, times, r in rows:
        line = f"| {name} | {sec:.3f} | {', '.join(f'{t:.2f}' for t in times)} |"
        lines.append(line + (f" {r:.2f}x |" if ratio else ""))
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# the time split of evalrank's process (in a fresh process, after the warm-ups)
# ---------------------------------------------------------------------------
SPLIT_SCRIPT = r'''
import sys, time
t0 = time.perf_counter()
from evalrank.data.trec import read_trec
from evalrank.evaluation.engine import index_qrels, rank_run
from evalrank.metrics.trec import trec_measures
from evalrank.evaluation.evaluate import RunResult
from evalrank.evaluation.trec_text import format_trec
t_imp = time.perf_counter() - t0
qrels_path, runs = sys.argv[1], sys.argv[2:]
T = dict(read_qrels=0.0, read_run=0.0, rank_run=0.0, trec_measures=0.0, format=0.0)
t = time.perf_counter(); q = index_qrels(read_trec(qrels_path, "qrels")); T["read_qrels"] += time.perf_counter() - t
res = []
for p in runs:
    t = time.perf_counter(); run = read_trec(p, "run"); T["read_run"] += time.perf_counter() - t
    t = time.perf_counter(); rk = rank_run(run, q, name=p); T["rank_run"] += time.perf_counter() - t
    t = time.perf_counter()
    tm = trec_measures(rk.rels, rk.offsets, rk.judged, rk.judged_offsets, cutoffs=[10], relevance_level=1)
    T["trec_measures"] += time.perf_counter() - t
    res.append(RunResult(p, rk.qids, rk.missing, ["ndcg_cut_10"], tm["ndcg_cut_10"][:, None], run.run_tag, None))
t = time.perf_counter(); s = format_trec(res, per_query=True); T["format"] += time.perf_counter() - t
print("imports (evalrank.data.trec, .evaluation.engine, .metrics.trec, .evaluation.evaluate; numpy, numba) "
      f"{t_imp:.3f}", *(f"{k} {v:.3f}" for k, v in T.items()), sep="\n")
'''


def split_profile(qrels: Path, runs: list[Path]) -> str:
    p = subprocess.run([PY, "-c", SPLIT_SCRIPT, str(qrels), *map(str, runs)], capture_output=True, text=True,
                       env=ENV)
    if p.returncode:
        return f"(time split failed: {p.stderr[-500:]})"
    rows = [ln.rsplit(" ", 1) for ln in p.stdout.strip().splitlines()]
    return ("| step (one fresh process) | seconds |\n|---|---|\n"
            + "\n".join(f"| {k} | {float(v):.3f} |" for k, v in rows))


def import_profile(tiny: dict) -> str:
    """The slowest top-level imports of ``evaluate`` on the tiny file (``python -X importtime``)."""
    p = subprocess.run([PY, "-X", "importtime", "-m", "evalrank", "evaluate", "-q", "-m", MEASURE,
                        str(tiny["qrels"]), str(tiny["run"])], capture_output=True, text=True, env=ENV)
    rows = []
    for line in p.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        parts = [x.strip() for x in line[len("import time:"):].split("|")]
        try:
            cum = int(parts[1])
        except ValueError:
            continue
        name = parts[2]
        if not name.startswith(" ") and "." not in name.strip():  # top level
            rows.append((cum, name.strip()))
    rows.sort(reverse=True)
    total = sum(c for c, _ in rows)
    return (f"top-level imports of `evalrank evaluate` (python -X importtime, cumulative; all top-level: "
            f"{total / 1e6:.3f} s): " + ", ".join(f"{n} {c / 1e6:.3f} s" for c, n in rows[:8]))


# ---------------------------------------------------------------------------
def build_trec_eval(work: Path, given: str | None, o3: bool) -> tuple[Path, Path | None, str]:
    if given:
        return Path(given), None, f"given: {given}"
    sys.path.insert(0, str(ROOT / "tests"))
    from trec_eval_binary import TAG, build

    binary, why = build(work / "te_default")
    if binary is None:
        raise SystemExit(f"no trec_eval: {why} (pass --trec-eval PATH)")
    note = f"built from $TREC_EVAL_SRC at {TAG} with its Makefile's CFLAGS (-g, no -O)"
    opt = None
    if o3:
        d = work / "te_o3" / "trec_eval"
        d.parent.mkdir()
        shutil.copytree(binary.parent, d)
        subprocess.run(["make", "-C", str(d), "clean"], check=True, capture_output=True)
        subprocess.run(["make", "-C", str(d), r'CFLAGS=-g -I. -O3 -Wall -DVERSIONID=\"9.0.7\"'], check=True,
                       capture_output=True)
        opt = d / "trec_eval"
    return binary, opt, note


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--queries", type=int, default=5000, help="case 2: topics of the one run")
    ap.add_argument("--docs", type=int, default=1000, help="case 2: documents per topic")
    ap.add_argument("--runs", type=int, default=100, help="case 3: runs")
    ap.add_argument("--run-queries", type=int, default=50, help="case 3: topics per run")
    ap.add_argument("--run-docs", type=int, default=1000, help="case 3: documents per topic")
    ap.add_argument("--ndcg-queries", type=int, default=30_000, help="case 1 (bench_ndcg.py --queries)")
    ap.add_argument("--ndcg-docs", type=int, default=120, help="case 1 (bench_ndcg.py --docs)")
    ap.add_argument("--repeats", type=int, default=3, help="timed calls after the one warm-up, best taken")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--trec-eval", metavar="PATH", help="a trec_eval 9.0.8 binary (default: build one)")
    ap.add_argument("--no-o3", action="store_true", help="do not time an -O3 build of trec_eval as well")
    ap.add_argument("--skip-ndcg", action="store_true", help="skip case 1 (bench_ndcg.py)")
    ap.add_argument("--skip-ir-measures", action="store_true", help="do not time ir_measures")
    ap.add_argument("--workdir", help="where to write the data (default: a new temporary directory, removed)")
    a = ap.parse_args()

    import numba

    work = Path(a.workdir) if a.workdir else Path(tempfile.mkdtemp(prefix="bench_evaluate_"))
    work.mkdir(parents=True, exist_ok=True)
    ENV["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    problems: list[str] = []
    report: list[str] = []

    def say(s=""):
        print(s, flush=True)
        report.append(s)

    try:
        head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--short", "--", "src"], capture_output=True,
                               text=True).stdout.split("\n")
        dirty = [d for d in dirty if d.strip()]
        say(f"machine: {cpu_model()}, {os.cpu_count()} logical CPUs; Python {platform.python_version()}, "
            f"numpy {np.__version__}, numba {numba.__version__}; load average {os.getloadavg()[0]:.2f}")
        say(f"code: {head}" + (f" + uncommitted changes in src ({len(dirty)} files)" if dirty else ""))
        say(f"command: {sh([Path(PY).relative_to(ROOT) if Path(PY).is_relative_to(ROOT) else PY, *sys.argv])}")
        say(f"every tool: one warm-up, then the best of {a.repeats} whole-process wall times; Python processes "
            "with bytecode caching on (PYTHONPYCACHEPREFIX in the temporary directory"
            + (", PYTHONDONTWRITEBYTECODE of this shell dropped)" if os.environ.get("PYTHONDONTWRITEBYTECODE")
               else ")"))

        te, te_o3, te_note = build_trec_eval(work, a.trec_eval, not a.no_o3)
        say(f"trec_eval: {te_note}" + ("; also an -O3 build (for information)" if te_o3 else ""))

        info = write_data(a, work)
        big, many, tiny = info["big"], info["many"], info["tiny"]
        mb = lambda p: Path(p).stat().st_size / 1e6  # noqa: E731
        say(f"data written once in {info['seconds']:.1f} s to {work}:")
        say(f"- case 2: run {mb(big['run']):.1f} MB ({a.queries} topics x {a.docs} docs, {big['decimals']} decimals), "
            f"qrels {mb(big['qrels']):.1f} MB ({big['judgments']} judgments on {big['judged_topics']} topics, grades "
            f"{big['grades']}), {100 * big['share']:.0f}% of the judged documents retrieved")
        say(f"- case 3: {a.runs} runs of {a.run_queries} topics x {a.run_docs} docs, "
            f"{sum(mb(p) for p in many['runs']):.1f} MB in all; qrels {many['judgments']} judgments on "
            f"{many['judged_topics']} topics, {100 * many['share']:.0f}% of them retrieved by a run (mean)")

        ims = work / "ir_measures_eval.py"
        ims.write_text(IR_MEASURES_SCRIPT)
        if not a.skip_ir_measures:
            p = subprocess.run([PY, ims, tiny["qrels"], tiny["run"]], capture_output=True, text=True,
                               env={**ENV, "BENCH_IR_MEASURES_PROVIDER": "1"})
            say(f"ir_measures {version('ir_measures')}: nDCG@10 computed by {p.stderr.strip() or p.returncode} "
                f"(pytrec-eval-terrier {version('pytrec-eval-terrier')})")
        results = {}

        # ---------------- case 1 ----------------
        if not a.skip_ndcg:
            say("\n## Case 1 (kernel figure, not a user path): NDCG@10, metrics.ndcg on pre-grouped arrays "
                "vs pytrec_eval on prebuilt dicts (bench_ndcg.py, run as it is; user paths: bench_frames.py)\n")
            cmd = [PY, "bench_ndcg.py", "--queries", a.ndcg_queries, "--docs", a.ndcg_docs, "--repeats", a.repeats]
            p = subprocess.run([str(c) for c in cmd], cwd=HERE, capture_output=True, text=True, env=ENV)
            if p.returncode:
                raise RuntimeError(f"bench_ndcg.py failed: {p.stderr[-2000:]}")
            say(f"`cd benchmarks && {sh(['python', *cmd[1:]])}`\n")
            say(p.stdout.strip())
            case = None
            for line in p.stdout.splitlines():
                if line.startswith("### "):
                    case = line[4:].split(" (kernel figure")[0].strip()
                if case and line.startswith('| evalrank `ndcg(..., convention="trec", doc_ids=ids)`'):
                    results[f"1 {case}"] = float(line.rstrip(" |").rsplit("|", 1)[1].strip().rstrip("x"))
                if case and line.startswith("- pytrec_eval vs evalrank trec: max |diff|"):
                    if float(line.rsplit(" ", 1)[1]) > 1e-12:
                        problems.append(f"**DIFFERENCE** case 1 ({case}): {line}")

        # ---------------- case 2 ----------------
        say(f"\n## Case 2: one run file, {a.queries} topics x {a.docs} docs, `-q -m {MEASURE}`\n")
        o = {k: work / f"out2_{k}.txt" for k in ("te", "te3", "er", "im")}
        cmds = {"te": [te, "-q", "-m", MEASURE, big["qrels"], big["run"]],
                "er": [PY, "-m", "evalrank", "evaluate", "-q", "-m", MEASURE, big["qrels"], big["run"]],
                "im": [PY, ims, big["qrels"], big["run"]]}
        if te_o3:
            cmds["te3"] = [te_o3, *cmds["te"][1:]]
        rows = {}
        for k in ("er", "te", "te3", "im"):
            if k not in cmds or (k == "im" and a.skip_ir_measures):
                continue
            rows[k] = timed(lambda: run_to(cmds[k], o[k]), a.repeats)
        ref = parse(o["te"], False)
        same = o["er"].read_bytes() == o["te"].read_bytes()
        notes = [f"evalrank stdout byte-identical to trec_eval's: {same}",
                 compare("evalrank", ref, parse(o["er"], False), 0.0, problems)]
        if not same:
            problems.append("**DIFFERENCE** case 2: evalrank's output is not byte-identical to trec_eval's")
        if "im" in rows:
            notes.append(compare("ir_measures", ref, parse(o["im"], False), 5.0001e-5, problems))
        er = rows["er"][0]
        results["2"] = rows["te"][0] / er
        names = {"er": "`python -m evalrank evaluate -q -m ndcg_cut.10`", "te": "trec_eval 9.0.8 (`make`: -g, no -O)",
                 "te3": "trec_eval 9.0.8 built -O3 (information)",
                 "im": f"ir_measures {version('ir_measures')} (Python API, one process)"}
        say(table("case 2", [(names[k], t, ts, t / er) for k, (t, ts) in rows.items()]))
        say("")
        for n in notes:
            say(f"- {n}")
        say("\ncommands:\n")
        for k, c in cmds.items():
            say(f"    {sh(c)}")
        say("\nevalrank's process, split (fresh process, after the warm-up):\n")
        say(split_profile(big["qrels"], [big["run"]]))

        # ---------------- case 3 ----------------
        say(f"\n## Case 3: {a.runs} runs x {a.run_queries} topics x {a.run_docs} docs, `-q -m {MEASURE}`\n")
        runs = many["runs"]
        o3 = {k: work / f"out3_{k}" for k in ("te", "te3", "er", "im")}

        def te_loop(binary, dest):
            dest.mkdir(exist_ok=True)

            def go():
                for r in runs:
                    run_to([binary, "-q", "-m", MEASURE, many["qrels"], r], dest / r.name)
            return go

        rows = {}
        rows["er"] = timed(lambda: run_to([PY, "-m", "evalrank", "evaluate", "-q", "-m", MEASURE, many["qrels"],
                                           *runs], o3["er"]), a.repeats)
        rows["te"] = timed(te_loop(te, o3["te"]), a.repeats)
        if te_o3:
            rows["te3"] = timed(te_loop(te_o3, o3["te3"]), a.repeats)
        if not a.skip_ir_measures:
            rows["im"] = timed(lambda: run_to([PY, ims, many["qrels"], *runs], o3["im"]), a.repeats)
        expect = b"".join(b"".join(r.name.encode() + b"\t" + ln + b"\n"
                                   for ln in (o3["te"] / r.name).read_bytes().splitlines()) for r in runs)
        same = o3["er"].read_bytes() == expect
        if not same:
            problems.append("**DIFFERENCE** case 3: evalrank's output is not byte-identical to trec_eval's, "
                            "prefixed with the run's file name")
        tmp = work / "out3_te_joined.txt"
        tmp.write_bytes(expect)
        ref = parse(tmp, True)
        notes = [f"evalrank stdout byte-identical to the trec_eval loop's outputs, each line prefixed with the "
                 f"run's file name and a tab: {same}", compare("evalrank", ref, parse(o3["er"], True), 0.0, problems)]
        if "im" in rows:
            notes.append(compare("ir_measures", ref, parse(o3["im"], True), 5.0001e-5, problems))
        er = rows["er"][0]
        results["3"] = rows["te"][0] / er
        names = {"er": f"one `python -m evalrank evaluate -q -m ndcg_cut.10 QRELS RUN1 ... RUN{a.runs}`",
                 "te": f"loop of {a.runs} trec_eval processes (`make`: -g, no -O)",
                 "te3": f"loop of {a.runs} trec_eval processes, -O3 build (information)",
                 "im": f"ir_measures {version('ir_measures')}, one process for all runs"}
        say(table("case 3", [(names[k], t, ts, t / er) for k, (t, ts) in rows.items()]))
        say("")
        for n in notes:
            say(f"- {n}")
        say("\nevalrank's process, split (fresh process, after the warm-up):\n")
        say(split_profile(many["qrels"], runs))

        # ---------------- start-up ----------------
        say("\n## Start-up (tiny file: 5 topics x 20 docs)\n")
        o = work / "out_tiny.txt"
        st = {
            "`python -c pass`": [PY, "-c", "pass"],
            "`python -m evalrank --help`": [PY, "-m", "evalrank", "--help"],
            "`python -m evalrank evaluate -q -m ndcg_cut.10` (tiny)": [PY, "-m", "evalrank", "evaluate", "-q", "-m",
                                                                      MEASURE, tiny["qrels"], tiny["run"]],
            "trec_eval -q -m ndcg_cut.10 (tiny)": [te, "-q", "-m", MEASURE, tiny["qrels"], tiny["run"]],
        }
        if not a.skip_ir_measures:
            st["ir_measures script (tiny)"] = [PY, ims, tiny["qrels"], tiny["run"]]
        srows = []
        for name, c in st.items():
            t, ts = timed(lambda: run_to(c, o), max(a.repeats, 5))
            srows.append((name, t, ts, None))
        if os.environ.get("PYTHONDONTWRITEBYTECODE"):
            c = st["`python -m evalrank evaluate -q -m ndcg_cut.10` (tiny)"]
            nobc = dict(os.environ)
            t, ts = timed(lambda: run_to(c, o, env=nobc), max(a.repeats, 5))
            srows.append(("the same with PYTHONDONTWRITEBYTECODE=1 (no .pyc for the source tree)", t, ts, None))
        say(table("start-up", srows, ratio=False))
        say("")
        say(f"- {import_profile(tiny)}")

        # ---------------- summary ----------------
        say("\n## Issue 17's targets (this run)\n")
        say("| case | target | measured | met |\n|---|---|---|---|")
        tg = [("1 tie-free",
               f"kernel figure: metrics.ndcg on pre-grouped {a.ndcg_queries:,} x {a.ndcg_docs} arrays, trec preset + "
               "string ids, vs pytrec_eval's evaluate on prebuilt dicts, tie-free", 10),
              ("1 heavy ties (one decimal)", "the same kernel figure, heavy ties (one decimal)", 3),
              ("2", f"`evaluate -q` one {a.queries} x {a.docs} run vs trec_eval (whole process)", 1.5),
              ("3", f"{a.runs} runs in one process vs {a.runs} trec_eval processes", 2)]
        for key, what, target in tg:
            if key in results:
                r = results[key]
                say(f"| {what} | >= {target}x | {r:.2f}x | {'yes' if r >= target else '**no**'} |")
        say(f"\nload average at the end: {os.getloadavg()[0]:.2f}")
        if problems:
            say("\n**PROBLEMS:**")
            for p in problems:
                say(f"- {p}")
        else:
            say("\nvalues: evalrank equals trec_eval everywhere compared (byte-identical outputs); "
                "ir_measures within trec_eval's rounding")
    finally:
        if not a.workdir:
            shutil.rmtree(work, ignore_errors=True)
    if problems:
        sys.exit(1)


if __name__ == "__main__":
    main()
