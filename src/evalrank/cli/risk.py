"""Risk-sensitive evaluation (Dinçer et al. 2016).

Front door: ``evalrank risk`` -- URisk, TRisk, T*Risk, ZRisk and GeoRisk of a population of
TREC runs (Table 6 for any runs). The stage commands of the paper's experiments are
:mod:`evalrank.papers.dincer2016.stages`.

``risk``'s options have documented defaults (the paper's Table 6).
"""

from __future__ import annotations

from pathlib import Path

from evalrank.cli.common import _log, add_command
from evalrank.papers.dincer2016.stages import table6_args, write_table6

__all__ = ["add_parsers"]


def cmd_risk(a):
    import numpy as np

    from evalrank.papers.dincer2016 import population

    runs_dir = Path(a.runs)
    if not runs_dir.is_dir():
        raise FileNotFoundError(f"--runs {runs_dir} is not a directory of TREC run files")
    paths = sorted(p for p in runs_dir.iterdir() if p.is_file() and not p.name.startswith("."))
    if len(paths) < 2:
        raise ValueError(f"--runs {runs_dir} holds {len(paths)} run file(s); risk needs a population (>= 2)")
    # every argument is checked before a file is read or written
    if a.baseline not in {p.name for p in paths}:
        raise ValueError(f"--baseline {a.baseline!r} is not a run of --runs {runs_dir} (the file names, e.g. "
                         f"{[p.name for p in paths[:5]]})")
    if a.top < 1:
        raise ValueError(f"--top must be >= 1, got {a.top}")
    if any(al < 0 for al in a.alphas):
        raise ValueError(f"--alphas must be >= 0, got {a.alphas}")
    from evalrank.metrics.names import parse_measure

    parse_measure(a.measure)
    if a.out_dir and Path(a.out_dir).exists() and not Path(a.out_dir).is_dir():
        raise NotADirectoryError(f"--out-dir {a.out_dir} exists and is not a directory")
    names, topics, X, notes = population.score_trec_runs(a.qrels, paths, measure=a.measure, max_grade=a.max_grade,
                                                         convention=a.convention)
    for n in notes:
        _log(n)
    _log(f"{len(names)} runs x {len(topics)} topics, {a.measure}")
    zero = [t for t, z in zip(topics, X.sum(axis=0) == 0) if z]
    if zero:
        if a.zero_totals == "raise":
            raise ValueError(f"every run scores 0 on {len(zero)} topic(s) ({', '.join(zero[:10])}"
                             f"{', ...' if len(zero) > 10 else ''}): ZRisk and GeoRisk are undefined there (their "
                             "expected value S_i T_j / N is 0); --zero-totals ignore counts those cells as z = 0 "
                             "(evalrank.metrics.risk's zero_totals='ignore')")
        _log(f"{len(zero)} topic(s) where every run scores 0: z = 0 there (--zero-totals ignore)")
    if a.out_dir:
        from evalrank import io

        out = Path(a.out_dir)
        t6, _ = write_table6(names, X, a, out, f"GeoRisk, top {a.top} of {len(names)} runs")
        io.save_arrays(out / "population.npz", names=np.asarray(names), topics=np.asarray(topics), X=X)
    else:
        t6 = population.table6(names, X, baseline=a.baseline, alphas=a.alphas, top=a.top, measure=a.measure,
                               zero_totals=a.zero_totals)
    if a.format == "json":
        print(t6.to_json(orient="records", indent=1))
    else:
        print(t6.to_csv(sep="\t", index=False, float_format="%.4f"), end="")


def add_parsers(sub) -> None:
    s = add_command(sub, "risk", cmd_risk,
                    "URisk/TRisk/T*Risk/ZRisk/GeoRisk of TREC runs (Dinçer et al. 2016, Table 6)",
                    description="URisk, TRisk, ZRisk and GeoRisk (Dinçer et al. 2016, Table 6) of a population of\n"
                                "TREC runs against one baseline run, every run scored with ERR@k or NDCG@k\n"
                                "against the qrels; the table on stdout (TSV or JSON).")
    s.add_argument("--qrels", required=True, help="TREC qrels: qid iter docno rel")
    s.add_argument("--runs", required=True, help="directory of TREC run files (the population; file name = run)")
    s.add_argument("--baseline", required=True, help="name of the single baseline run (URisk, TRisk)")
    table6_args(s, defaults=True)
    s.add_argument("--max-grade", type=int, default=4, help="ERR's top grade (gdeval: 4)")
    s.add_argument("--convention", default="gdeval", help="NDCG preset for --measure ndcg@k (gdeval: the Web track's)")
    s.add_argument("--out-dir", help="also write table6.csv, observations.csv, georisk_curves.csv, fig3.png "
                                     "(default: only the table on stdout)")
    s.add_argument("--zero-totals", choices=["raise", "ignore"], default="raise",
                   help="a topic on which every run scores 0: refuse (raise, as the library) or count its "
                        "ZRisk/GeoRisk cells as z = 0 (ignore)")
    s.add_argument("--format", choices=["tsv", "json"], default="tsv", help="output on stdout")
