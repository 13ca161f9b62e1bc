"""Write the golden trec_eval 9.0.8 outputs that every clone tests evalrank against.

How to run (from anywhere; needs make and a C compiler)::

    TREC_EVAL_SRC=<a git checkout of usnistgov/trec_eval> python tests/evaluation/golden/make_golden.py

(or ``TREC_EVAL=<a trec_eval 9.0.8 binary>``). ``tests/trec_eval_binary.py``'s ``build()``
clones the checkout into a temporary directory and builds it at tag v9.0.8 with its Makefile.

What it writes, next to this script (and nothing else; trec_eval's source and its test files
are never copied here):

* the inputs, made here from seeded numpy generators and fixed lines (deterministic: the same
  bytes on every run): ``a.qrels`` / ``a.run`` and ``b.qrels`` / ``b.run`` (randomized, 30
  and 20 topics), ``edge.qrels`` / ``edge.run`` (hand-written traps), ``a.qrels_jg`` (several
  judgement groups per topic, for ``-R qrels_jg``);
* ``out/<case>.txt.gz``: trec_eval's standard output for each case of ``cases()``, gzipped
  (reproducibly: no name, no time; ``zcat`` shows it) to keep the folder small; cases with equal
  outputs share the file of the first of them;
* ``manifest.json``: per case its name, trec_eval's argv (flags, then the input files by
  their names in this folder; trec_eval runs here, in this folder), the output file, trec_eval's
  exit status and its standard error.

What the inputs hold: tied scores, ties that need the document ids' string order (d10 < d9),
scores tied only once stored as C floats (trec_eval keeps a float), retrieved documents the
qrels do not list, judged negative relevance, judged documents never retrieved, topics missing
on either side, topics with no relevant judgement, topics whose ids sort differently as strings
and as numbers, run lines not in rank order (and wrong rank fields), extra fields after the
sixth, topics with one document, grades -2..4. ``edge`` adds: all scores of a topic equal
(1.0 and 1), scores written as 0.3 / 3e-1 / 0.30000001 / 0.30000000001 / +100.0 / 1e2 / -0 /
-1e-30, tabs as separators, a topic whose every retrieved document is unjudged (empty under -J),
and a different run tag on each topic's lines (trec_eval's runid is the last line's).

trec_eval 9.0.8 crashes (a memset of negative size in form_res_rels.c) on a topic whose best
grade is below -1; the generator gives no topic such grades.
"""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
OUT = "out"

# ---------------------------------------------------------------------------------------------
# inputs


def _ids(rng, n_pool: int, size: int, prefix: str = "d") -> list[str]:
    """``size`` distinct ids out of ``prefix0 .. prefix{n_pool-1}``: d9, d10, d100 sort differently
    as strings and as numbers."""
    return [f"{prefix}{i}" for i in rng.choice(n_pool, size=size, replace=False)]


def _score_text(rng, n: int, style: int) -> list[str]:
    """Scores as they are written: ties of several kinds."""
    if style == 0:      # few distinct values: many exact ties
        return [f"{v:g}" for v in rng.integers(0, 4, size=n) / 2.0]
    if style == 1:      # distinct in float64, some equal once stored as float32
        base = np.round(rng.random(n), 3)
        out = []
        for v in base:
            r = rng.random()
            # 1e-9 relative is far below float32's resolution (~6e-8): the same float
            out.append(f"{v * (1 + 1e-9):.12g}" if r < 0.3 else f"{v:.12g}")
        return out
    if style == 2:      # wide range, negative, exponent notation
        return [f"{v:.4e}" for v in rng.normal(0, 100, size=n)]
    return [f"{v:.6f}" for v in np.round(rng.random(n) * 10, 1)]   # decimals with ties


def random_pair(seed: int, qid_fmt: str, n_topics: int = 30, max_docs: int = 60, n_pool: int = 120):
    """(qrels lines, run lines) of one randomized pair."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for t in range(n_topics):
        qid = qid_fmt.format(t + 1)
        n_docs = 1 if t % 11 == 5 else int(rng.integers(2, max_docs + 1))   # some topics of one document
        pool = _ids(rng, n_pool, n_docs)
        in_qrels = t % 7 != 3          # run topics without qrels
        in_run = t % 9 != 4            # qrels topics without a run
        if in_qrels:
            n_judged = int(rng.integers(1, n_docs + 1))
            judged = list(rng.choice(pool, size=n_judged, replace=False))
            judged += [f"x{i}" for i in range(int(rng.integers(0, 4)))]   # judged, never retrieved
            if t % 8 == 2:             # no relevant judgement at all
                grades = rng.choice([-1, 0, 0], size=len(judged))
            else:
                grades = rng.choice([-2, -1, 0, 0, 0, 1, 1, 2, 3, 4], size=len(judged))
                if grades.max() < -1:  # trec_eval 9.0.8 crashes on a topic whose best grade is < -1
                    grades[0] = 0      # (form_res_rels.c: memset of (max_rel + 1) longs)
            it = "0" if t % 3 else "Q0"
            qrels += [f"{qid} {it} {d} {g}" for d, g in zip(judged, grades)]
        if in_run:
            docs = list(pool)
            rng.shuffle(docs)
            scores = _score_text(rng, len(docs), int(rng.integers(0, 4)))
            ranks = rng.permutation(len(docs)) + 1 if t % 4 == 1 else np.arange(1, len(docs) + 1)
            for r, (d, s) in enumerate(zip(docs, scores)):
                sep = "\t" if r % 5 == 0 else " "
                tail = " extra fields 7 8" if r % 9 == 3 else ""
                run.append(f"{qid}{sep}Q0 {d} {ranks[r]} {s} tag{seed}{tail}")
    rng.shuffle(run)                   # neither topic nor rank order
    rng.shuffle(qrels)
    return qrels, run


def jg_qrels(seed: int, qrels: list[str]) -> list[str]:
    """A qrels_jg file from ``qrels``: each topic judged by 1-3 judgement groups that disagree
    (a group's grades: the original, shifted or dropped)."""
    rng = np.random.default_rng(seed)
    by_topic: dict[str, list[tuple[str, int]]] = {}
    for line in qrels:
        q, _, d, g = line.split()
        by_topic.setdefault(q, []).append((d, int(g)))
    out = []
    for q in sorted(by_topic):
        for jg in range(int(rng.integers(1, 4))):
            for d, g in by_topic[q]:
                if jg and rng.random() < 0.25:
                    continue           # this group did not judge it
                g2 = g if jg == 0 else int(np.clip(g + rng.integers(-1, 2), -1, 4))
                out.append(f"{q} jg{jg} {d} {g2}")
    rng.shuffle(out)
    return out


EDGE_QRELS = """\
1 0 d1 1
1 0 d2 0
1 0 d9 2
1 0 d10 1
1 0 d11 -1
1 0 d100 4
1 0 d20 3
2 0 a 1
2 0 b 2
2 0 c 0
2 0 e 1
3 0 only 3
4 0 other 1
5 0 d1 0
5 0 d2 -1
5 0 d3 0
7 0 n1 2
7 0 n2 1
8 0 never1 1
8 0 never2 4
9 0 z 1
9 0 y 0
10 0 z 2
10 0 y 1
10 0 x 0
"""

EDGE_RUN = """\
1 Q0 d1 1 1.0 t1
1 Q0 d2 2 1.0 t1
1 Q0 d9 3 1.0 t1
1 Q0 d10 4 1.0 t1
1 Q0 d11 5 1.0 t1
1 Q0 d100 6 1.0 t1
1 Q0 d3 7 1.0 t1
1 Q0 d30 8 1 t1
2\tQ0\ta\t1\t0.30000001\tt2
2 Q0 b 2 0.3 t2 trailing fields are ignored
2 Q0 c 3 0.30000000001 t2
2 Q0 d 4 0.2999999999 t2
2 Q0 e 5 3e-1 t2
3 Q0 only 0 -5 t3
4 Q0 unjudged 0 7 t4
5 Q0 d3 1 2 t5
5 Q0 d2 1 1 t5
5 Q0 d1 1 0 t5
6 Q0 d1 1 1 t6
6 Q0 d2 2 0.5 t6
8 Q0 u1 1 0.9 t8
8 Q0 u2 2 0.8 t8
8 Q0 u3 3 0.8 t8
10 Q0 y 1 1e2 t10
10 Q0 z 2 100 t10
10 Q0 x 3 +100.0 t10
9 Q0 y 1 -0.5 t9
9 Q0 z 2 -1e-30 t9
9 Q0 q 3 -0 t9
"""


def inputs() -> dict[str, str]:
    """File name -> text of every input file (deterministic)."""
    files = {}
    for pair, seed, fmt, n_topics in (("a", 20240601, "{}", 30), ("b", 977, "q{}", 20)):
        qrels, run = random_pair(seed, fmt, n_topics)
        files[f"{pair}.qrels"] = "\n".join(qrels) + "\n"
        files[f"{pair}.run"] = "\n".join(run) + "\n"
        if pair == "a":
            files["a.qrels_jg"] = "\n".join(jg_qrels(seed + 1, qrels)) + "\n"
    files["edge.qrels"] = EDGE_QRELS
    files["edge.run"] = EDGE_RUN
    return files


# ---------------------------------------------------------------------------------------------
# cases: name -> trec_eval's argv (flags, then the qrels and the run, by their names here)

def _pair(p: str) -> list[str]:
    return [f"{p}.qrels", f"{p}.run"]


def cases() -> dict[str, list[str]]:
    c: dict[str, list[str]] = {}
    for p in ("a", "b", "edge"):
        for label, flags in (("default", []), ("all_trec", ["-m", "all_trec"]), ("official", ["-m", "official"])):
            c[f"{p}-{label}"] = flags + _pair(p)
            c[f"{p}-{label}-q"] = flags + ["-q"] + _pair(p)
        # -l below 0 (issue 49): unjudged documents (-1) and negative judgments (-2) reach the level in
        # the ranked measures, num_rel and num_rel_ret count judgments >= 0 only (form_res_rels.c)
        for label, flags in (("c", ["-c"]), ("c-M5", ["-c", "-M", "5"]), ("l2", ["-l", "2"]), ("J", ["-J"]),
                             ("N1000", ["-N", "1000"]), ("n", ["-n"]), ("l-1", ["-l", "-1"]),
                             ("l-2-J", ["-l", "-2", "-J"]), ("l0", ["-l", "0"]),
                             # -M 0 keeps no document (num_ret 0); a -M beyond long: atol saturates, no limit
                             ("M0", ["-M", "0"]), ("M-huge", ["-M", "99999999999999999999"])):
            c[f"{p}-all_trec-q-{label}"] = ["-m", "all_trec", "-q"] + flags + _pair(p)
    # the same flags on the measures evalrank has had from the start, named one by one
    known = [a for m in ("num_q", "num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "recip_rank", "P", "recall",
                         "ndcg", "ndcg_cut", "map_cut", "success") for a in ("-m", m)]
    for p in ("a", "b", "edge"):
        for label, flags in (("c", ["-c"]), ("c-M5", ["-c", "-M", "5"]), ("l2", ["-l", "2"]),
                             ("c-M5-l3", ["-c", "-M", "5", "-l", "3"])):
            c[f"{p}-base-q-{label}"] = known + ["-q"] + flags + _pair(p)
    # judgement groups
    c["a-jg-all_trec-q"] = ["-R", "qrels_jg", "-m", "all_trec", "-q", "a.qrels_jg", "a.run"]
    c["a-jg-avgjg-q"] = ["-R", "qrels_jg", "-m", "P_avgjg", "-m", "map_avgjg", "-m", "Rprec_mult_avgjg", "-q",
                         "a.qrels_jg", "a.run"]
    c["a-jg-qrels_jg-q"] = ["-R", "qrels_jg", "-m", "qrels_jg", "-q", "a.qrels_jg", "a.run"]
    # parameterised measures (and cut-offs as trec_eval parses them, errors included)
    params = {
        "P.1,3,23": ["-m", "P.1,3,23"],
        "ndcg-gains": ["-m", "ndcg.0=0,1=1,2=3,3=7"],
        "ndcg-gains-neg": ["-m", "ndcg.0=-1,4=2.5"],
        "ndcg_cut.3,7": ["-m", "ndcg_cut.3,7"],
        "iprec_at_recall.0.25,0.5": ["-m", "iprec_at_recall.0.25,0.5"],
        "Rprec_mult.0.5,3": ["-m", "Rprec_mult.0.5,3"],
        "utility.2,-1,0,0": ["-m", "utility.2,-1,0,0"],
        "utility.1,-1,0,1": ["-m", "utility.1,-1,0,1"],
        "utility.1,-1,0,1-N1000": ["-m", "utility.1,-1,0,1", "-N", "1000"],
        "set_F.0.5": ["-m", "set_F.0.5"],
        "success.2": ["-m", "success.2"],
        "relative_P.4": ["-m", "relative_P.4"],
        "map_cut.3": ["-m", "map_cut.3"],
        "recall.3": ["-m", "recall.3"],
        "relstring.10": ["-m", "relstring.10"],
        "11pt_avg.0.25,0.5": ["-m", "11pt_avg.0.25,0.5"],
        "G-binG-Rndcg": ["-m", "G", "-m", "binG", "-m", "Rndcg"],
        "P.23.4": ["-m", "P.23.4"],
        "P.5,5": ["-m", "P.5,5"],
        "P.10,5": ["-m", "P.10,5"],
        "P.0": ["-m", "P.0"],
        "P.": ["-m", "P."],
        "P.x": ["-m", "P.x"],
        "ndcg_cut.0": ["-m", "ndcg_cut.0"],
        "success.-1": ["-m", "success.-1"],
        "iprec_at_recall.1.5": ["-m", "iprec_at_recall.1.5"],
        "P.5-then-P.10": ["-m", "P.5", "-m", "P.10"],
        "nosuch": ["-m", "nosuch"],
    }
    for label, flags in params.items():
        c[f"a-{label}-q"] = flags + ["-q"] + _pair("a")
    return c


# ---------------------------------------------------------------------------------------------


def write_gzip(path: Path, text: str) -> None:
    """``text`` gzipped, the same bytes on every run (no file name, time 0)."""
    with open(path, "wb") as f, gzip.GzipFile(filename="", mode="wb", fileobj=f, mtime=0, compresslevel=9) as z:
        z.write(text.encode())


def main() -> int:
    sys.path.insert(0, str(HERE.parents[1]))          # tests/: trec_eval_binary
    from trec_eval_binary import TAG, build

    with tempfile.TemporaryDirectory() as work:
        binary, why = build(Path(work))
        if binary is None:
            print(f"make_golden: {why}", file=sys.stderr)
            return 1
        binary = binary.resolve()
        version = subprocess.run([str(binary), "-v"], capture_output=True, text=True)
        for name, text in inputs().items():
            (HERE / name).write_text(text)
        out_dir = HERE / OUT
        shutil.rmtree(out_dir, ignore_errors=True)
        out_dir.mkdir()
        rows, written = [], {}
        for name, argv in cases().items():
            r = subprocess.run([str(binary), *argv], cwd=HERE, capture_output=True, text=True)
            if r.stdout not in written:   # equal outputs are kept once (e.g. -N 1000 changes no all_trec value)
                written[r.stdout] = f"{OUT}/{name}.txt.gz"
                write_gzip(HERE / written[r.stdout], r.stdout)
            rows.append({"name": name, "argv": argv, "output": written[r.stdout], "exit_status": r.returncode,
                         "stderr": r.stderr})
    head = {"trec_eval": f"tag {TAG}; '-v' prints {(version.stdout + version.stderr).strip()!r}",
            "written_by": "tests/evaluation/golden/make_golden.py (its docstring says how to run it)",
            "cwd": "this folder: argv names the inputs by their names here"}
    lines = ["{"] + [f"  {json.dumps(k)}: {json.dumps(v)}," for k, v in head.items()] + ['  "cases": [']
    lines += [f"    {json.dumps(r)}," for r in rows]
    lines[-1] = lines[-1].rstrip(",")
    lines += ["  ]", "}"]
    (HERE / "manifest.json").write_text("\n".join(lines) + "\n")
    size = sum(p.stat().st_size for p in HERE.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    failed = sum(r["exit_status"] != 0 for r in rows)
    print(f"make_golden: {len(rows)} cases ({failed} with a non-zero exit status), {size / 1024:.0f} KiB in "
          f"{HERE.name}/")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
