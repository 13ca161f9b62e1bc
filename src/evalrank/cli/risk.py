"""Risk-sensitive evaluation (Dinçer et al. 2016).

Front door: ``evalrank risk`` -- URisk, TRisk, T*Risk, ZRisk and GeoRisk of a population of
TREC runs (Table 6 for any runs). The stage commands of the paper's experiments are
:mod:`evalrank.papers.dincer2016.stages`.

``risk``'s options have documented defaults (the paper's Table 6).
"""

from __future__ import annotations

from evalrank.cli.common import _log, add_command
from evalrank.papers.dincer2016.stages import table6_args

__all__ = ["add_parsers"]


def cmd_risk(a):
    from evalrank.papers.dincer2016.tables import trec_table6

    t6 = trec_table6(a.qrels, a.runs, baseline=a.baseline, measure=a.measure, alphas=a.alphas, top=a.top,
                     max_grade=a.max_grade, convention=a.convention, zero_totals=a.zero_totals, out_dir=a.out_dir,
                     log=_log)
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
