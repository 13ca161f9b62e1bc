"""``evalrank evaluate`` (trec_eval's interface and output) and ``evalrank compare`` (a paired
comparison table with significance tests and risk measures).

Only the standard library at import time; the handlers import the package's compiled readers.
"""

from __future__ import annotations

import argparse
import os
import sys

from evalrank.cli.common import add_command, add_format, check_inputs_and_out
from evalrank.metrics.conventions import names_text

__all__ = ["add_parsers", "DEFAULT_MEASURES"]

#: what ``evaluate`` prints without ``-m``: trec_eval's default set (its nickname "official";
#: :data:`evalrank.metrics.names.NICKNAMES`, repeated here so that ``--help`` imports nothing)
DEFAULT_MEASURES = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                    "recip_rank", "iprec_at_recall", "P")

#: what ``compare`` compares without ``-m``
COMPARE_MEASURES = ("map", "ndcg_cut.10")

_MEASURE_HELP = ("a measure, by trec_eval's name (map, P.5,10, recall.100, recip_rank, Rprec, ndcg, "
                 "ndcg_cut.10,20, map_cut.k, success.k, num_q, num_ret, num_rel, num_rel_ret; nicknames "
                 "official, set, all_trec), by ir_measures' (AP, AP@100, P@10, P(rel=2)@5, R@100, RR, RR@10, "
                 "nDCG@10, nDCG(judged_only=True)@10, Rprec, Bpref, infAP, Judged@10, IPrec@0.5, SetP, SetR, "
                 "SetF, NumQ, NumRet, NumRel, NumRelRet, ERR@20, Success@5, RBP(p=0.8), RBP(rel=2): printed as "
                 "written; rel= and judged_only= set -l and -J for that measure, else -l and -J apply) or "
                 "evalrank's (ndcg@10, err@20, dcg@5, with options: ndcg(convention=gdeval)@20, "
                 "err(max_grade=3)@20); repeat -m for several")


def _write(text: str, out) -> None:
    if out:
        from evalrank.io import atomic_write_text

        atomic_write_text(out, text)
    else:
        sys.stdout.write(text)


def _progress(n_runs: int):
    """A bar over the runs on stderr when there are many (EVALRANK_PROGRESS=0 silences it)."""
    if n_runs < 10:
        return None, None
    from evalrank.progress import progress

    bar = progress(total=n_runs, desc="evaluating runs", unit="run")
    return bar, (lambda _name: bar.update(1))


_PREFS = ("prefs_num_prefs_poss, prefs_num_prefs_ful, prefs_num_prefs_ful_ret, prefs_simp, prefs_pair, "
          "prefs_avgjg, prefs_avgjg_Rnonrel, prefs_simp_ret, prefs_pair_ret, prefs_avgjg_ret, "
          "prefs_avgjg_Rnonrel_ret, prefs_simp_imp, prefs_pair_imp, prefs_avgjg_imp")


def _check_trec_flags(a) -> None:
    """trec_eval's flags evalrank takes by name but does not reproduce: one clear line each."""
    if a.R in ("prefs", "qrels_prefs"):
        raise ValueError(f"-R {a.R}: trec_eval's preference formats and their measures ({_PREFS}) are not "
                         "implemented in evalrank; use trec_eval for them")
    if a.T != "trec_results":
        raise ValueError(f"-T {a.T}: the only results format (trec_eval's too) is trec_results")
    if a.Z is not None:
        raise ValueError("-Z: trec_eval's z-scores against a file of per-topic means are not implemented in "
                         "evalrank")
    if a.D is not None:
        raise ValueError("-D: trec_eval's debug printout is not reproduced; evalrank's errors name the file "
                         "and line")


def _check_files(a) -> None:
    """What ``evaluate`` refuses before reading a file (one line naming the option): standard
    input ('-') given twice, ``-o ''``, ``-o`` naming one of the inputs (it would be replaced by
    the output), a negative ``-M`` (trec_eval 9.0.8 crashes), an unknown ``--convention``."""
    check_inputs_and_out([a.qrels, *a.runs], a.out)
    if getattr(a, "N", 0) < 0:
        raise ValueError(f"-N {a.N}: the number of documents in the collection must be 0 or more")
    if a.M is not None and a.M < 0:
        raise ValueError(f"-M {a.M}: must be 0 or more (0 keeps no document: num_ret 0, as trec_eval -M 0)")
    from evalrank.metrics.conventions import CONVENTIONS

    if a.convention not in CONVENTIONS:
        raise ValueError(f"--convention {a.convention!r}: not a convention; one of {names_text()}")


def cmd_evaluate(a) -> None:
    if "numpy" not in sys.modules:   # a new process: evaluate calls no BLAS, so numpy's import need not
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")   # start OpenBLAS's threads (unless asked to)
    from evalrank.evaluation.evaluate import evaluate_trec
    from evalrank.evaluation.trec_text import format_trec

    _check_trec_flags(a)
    _check_files(a)
    bar, tick = _progress(len(a.runs))
    try:
        if a.R == "qrels_jg":
            from evalrank.evaluation.judgment_groups import evaluate_jg

            res = evaluate_jg(a.qrels, a.runs, a.measures or list(DEFAULT_MEASURES), relevance_level=a.l, max_docs=a.M,
                              complete=a.c, precision=None if a.float64 else "float32", judged_only=a.J,
                              progress=tick)
        else:
            res = evaluate_trec(a.qrels, a.runs, a.measures or list(DEFAULT_MEASURES), relevance_level=a.l,
                                max_docs=a.M, complete=a.c, precision=None if a.float64 else "float32",
                                convention=a.convention, judged_only=a.J, num_docs=a.N, progress=tick)
    finally:
        if bar is not None:
            bar.close()
    if a.format == "text":
        text = format_trec(res, per_query=a.q, summary=not a.n)
    else:
        from evalrank.evaluation.trec_text import trec_table
        from evalrank.io import format_table

        text = format_table(trec_table(res, per_query=a.q, summary=not a.n), a.format, float_format=None)
    _write(text, a.out)


def cmd_compare(a) -> None:
    from evalrank.evaluation.compare import check_numeric_measures, check_options, compare

    check_inputs_and_out([a.qrels, *a.runs], a.out)
    measures = a.measures or list(COMPARE_MEASURES)
    check_numeric_measures(measures, "-m")  # the library's checks, each error naming its option
    check_options(a.correction, a.alpha, a.permutations, a.seed, a.risk_alpha, a.interval, a.level, a.resamples,
                  names={k: "--" + k.replace("_", "-") for k in ("alpha", "permutations", "seed", "risk_alpha",
                                                                  "level", "resamples")})
    table = compare(a.qrels, a.runs, measures, baseline=a.baseline, test=a.test or None,
                    correction=a.correction, alpha=a.alpha, permutations=a.permutations, seed=a.seed,
                    risk_alpha=a.risk_alpha, interval=a.interval, level=a.level, resamples=a.resamples,
                    relevance_level=a.l, max_docs=a.M, complete=a.c,
                    precision=None if a.float64 else "float32", convention=a.convention)
    if a.format == "text":
        text = _compare_text(table, a.alpha, wide=a.wide)
    else:
        from evalrank.io import format_table

        text = format_table(table, a.format, float_format="%.6g")
    _write(text, a.out)


#: compare's console table: what fits 100 columns (with run names up to ~12 characters), and with
#: --wide every column (the csv/tsv/json formats have every column, unformatted)
COMPACT = ["measure", "run", "mean", "delta", "delta_ci", "p_corrected", "sig", "w/l/t", "trisk"]
WIDE = ["measure", "run", "n_queries", "mean", "mean_ci", "delta", "delta_ci", "ttest_p", "randomization_p",
        "p_corrected", "significant", "wins", "losses", "ties", "urisk", "trisk", "georisk"]


def _compare_text(table, alpha: float, wide: bool = False) -> str:
    """An aligned table for the console, with the test and correction said underneath (lines of
    at most 100 characters)."""
    import textwrap

    shown = table.copy()
    shown["significant"] = shown["significant"].map({True: "yes", False: "no"}).fillna("")
    shown["sig"] = shown["significant"]
    counts = shown[["wins", "losses", "ties"]].astype(object).where(shown[["wins", "losses", "ties"]].notna(), None)
    shown["w/l/t"] = ["" if w is None else f"{w}/{lo}/{t}" for w, lo, t in counts.itertuples(index=False)]
    for what in ("mean", "delta"):  # the interval as one column: [low, high]
        low, high = shown[f"{what}_ci_low"], shown[f"{what}_ci_high"]
        shown[f"{what}_ci"] = [f"[{lo:.4f}, {hi:.4f}]" if lo == lo else "" for lo, hi in zip(low, high)]
    text = shown[WIDE if wide else COMPACT].to_string(index=False, float_format=lambda v: f"{v:.4f}", na_rep="")
    attrs = table.attrs
    method = ("paired t" if attrs.get("interval") == "t" else
              f"BCa bootstrap, {attrs.get('resamples')} resamples of the topics, seed {attrs.get('seed')}")
    n = sorted(set(table["n_queries"].dropna().astype(int).tolist()))
    notes = [f"baseline {attrs.get('baseline')}, {' or '.join(map(str, n))} topics; "
             + ("mean_ci, " if wide else "") + f"delta_ci: {attrs.get('level', 0) * 100:g}% confidence "
             f"intervals ({method}); p_corrected: the randomization test's p "
             f"({attrs.get('correction')} over the runs of each measure), significant at alpha {alpha}"
             + ("" if wide else "; w/l/t: topics won, lost, tied")
             + "; TRisk below -2: significantly riskier than the baseline (Dincer et al. 2016)"
             + ("" if wide else "; --wide: every column (t-test, URisk, GeoRisk, ...)")]
    tests = table[table["run"] != attrs.get("baseline")]
    if tests["trisk"].isna().any():
        notes.append("trisk blank: every topic's (risk-weighted) difference from the baseline is the same, so "
                     "its standard error is 0 and TRisk = URisk / SE is undefined (ttest_p likewise); "
                     + ("urisk gives the direction" if wide else "delta gives the direction"))
    return text + "\n\n" + "\n".join(textwrap.fill(note, width=100, break_on_hyphens=False) for note in notes) + "\n"


def _common(s, default_measures: str, stdin: bool = False) -> None:
    dash = " ('-': standard input)" if stdin else ""
    s.add_argument("qrels", metavar="QRELS", help=f"TREC qrels file: qid iter docno rel{dash}")
    s.add_argument("runs", metavar="RUN", nargs="+", help=f"TREC run file(s): qid Q0 docno rank score tag [...]{dash}")
    s.add_argument("-m", dest="measures", action="append", metavar="MEASURE",
                   help=f"{_MEASURE_HELP} (default: {default_measures})")
    s.add_argument("-c", action="store_true", help="average over every qrels topic: topics a run lacks count 0 "
                                                   "(trec_eval -c)")
    s.add_argument("-M", type=int, metavar="N", help="keep the first N ranked documents of each topic (trec_eval -M; "
                                                      "default: all)")
    s.add_argument("-l", type=int, default=1, metavar="L",
                   help="relevance level: a judgment >= L is relevant (trec_eval -l)")
    s.add_argument("--float64", action="store_true",
                   help="compare scores in float64 (trec_eval 10) instead of float32 (trec_eval 9, pytrec_eval)")
    s.add_argument("--convention", default="trec",
                   help=f"the NDCG preset of evalrank's own measures (ndcg@k, dcg@k): {names_text()}")
    s.add_argument("-o", "--out", metavar="FILE",
                   help="write to FILE (default: stdout): a regular file atomically (a new file renamed over it: "
                        "another hard link to the old file keeps the old content), a symlink's target likewise, "
                        "a device, FIFO or /dev/stdout written through")


def add_parsers(sub) -> None:
    s = add_command(
        sub, "evaluate", cmd_evaluate, "trec_eval's measures (and evalrank's) of TREC runs, as trec_eval prints them",
        description="Evaluate TREC runs against qrels as trec_eval 9.0.8 does: the same files read the same way\n"
                    "(extra fields after the sixth ignored, ties broken by document id), the same measures by the\n"
                    "same names, the same output: lines 'measure<TAB>qid<TAB>value', per topic with -q, then\n"
                    "'all'. With several runs each line starts with the run's file name.\n\n"
                    "Without -m: " + " ".join(DEFAULT_MEASURES) + " (trec_eval's default set, in part).\n\n"
                    "examples:\n"
                    "  evalrank evaluate -m map -m P.5,10 -m ndcg_cut.10 qrels.txt run.txt\n"
                    "  evalrank evaluate -q -m ndcg_cut.10 -m err@20 --format csv qrels.txt runs/*.txt\n"
                    "  zcat run.txt.gz | evalrank evaluate -m map qrels.txt -")
    _common(s, " ".join(DEFAULT_MEASURES), stdin=True)
    s.add_argument("-q", action="store_true", help="print each topic's values too, before 'all'")
    s.add_argument("-n", action="store_true", help="no summary: leave out the 'all' lines (trec_eval -n)")
    s.add_argument("-J", action="store_true",
                   help="judged documents only: unjudged documents leave each ranking before any measure "
                        "(trec_eval -J; easy to misread, as trec_eval warns)")
    s.add_argument("-N", type=int, default=0, metavar="NUM",
                   help="number of documents in the collection, for utility's 4th coefficient (trec_eval -N; "
                        "default 0)")
    s.add_argument("-R", default="qrels", choices=["qrels", "qrels_jg", "prefs", "qrels_prefs"], metavar="FORMAT",
                   help="the qrels file's format (trec_eval -R): qrels (default) or qrels_jg (qid group docno rel: "
                        "the measures map_avgjg, P_avgjg, Rprec_mult_avgjg); trec_eval's preference formats are "
                        "refused, naming their measures")
    add_format(s, "trec_eval's lines (measure, qid, value; the run first with several runs)")
    s.add_argument("-T", default="trec_results", metavar="FORMAT",
                   help="the run files' format (trec_eval -T): trec_results, the only one")
    from evalrank import __version__

    s.add_argument("-v", "--version", action="version", help="print the version and exit (trec_eval -v)",
                   version=f"evalrank {__version__} (trec_eval 9.0.8's measures and output)")
    s.add_argument("-D", metavar="LEVEL", help="trec_eval's debug level: refused, its debug printout is not "
                                               "reproduced (default: none)")
    s.add_argument("-Z", metavar="FILE", help="trec_eval's z-scores against a file of per-topic means: refused, "
                                              "not implemented (default: none)")

    s = add_command(
        sub, "compare", cmd_compare,
        "compare runs with a baseline: means and deltas with confidence intervals, significance tests, "
        "URisk/TRisk/GeoRisk",
        description="Compare runs with a baseline, per measure: mean and delta with confidence intervals (paired t\n"
                    "or BCa bootstrap), paired t-test, paired randomization test (the primary test, corrected for\n"
                    "the number of runs compared), wins/losses/ties, and the risk measures of Dincer et al. (2016)\n"
                    "against the baseline. Runs are named by their file names (runs sharing one, by the end of\n"
                    "their paths that tells them apart); --baseline and --test take a run's path or its name (with\n"
                    "or without the file's extension). The text table has the main columns within 100\n"
                    "characters; --wide or --format csv|tsv|json give every column.\n\n"
                    "examples:\n"
                    "  evalrank compare --baseline runs/bm25.txt -m map -m ndcg_cut.10 qrels.txt runs/*.txt\n"
                    "  evalrank compare --baseline bm25 --interval bootstrap --level 0.9 --wide qrels.txt runs/*.txt\n"
                    "  evalrank compare --baseline bm25 --format json qrels.txt runs/*.txt > comparison.json")
    _common(s, " ".join(COMPARE_MEASURES), stdin=True)
    s.add_argument("--baseline", required=True, metavar="RUN",
                   help="the baseline run: its path (as given or any path of the same file), its name, or its file "
                        "name without the extension (bm25 for runs/bm25.txt)")
    s.add_argument("--test", action="append", metavar="RUN",
                   help="a run to compare with the baseline, by path or name; repeat for several "
                        "(default: all others)")
    s.add_argument("--correction", default="holm", choices=["none", "bonferroni", "holm", "bh"],
                   help="multiple-testing correction over the runs of each measure")
    s.add_argument("--alpha", type=float, default=0.05, help="significance level")
    s.add_argument("--permutations", type=int, default=10_000,
                   help="random sign flips of the randomization test (exact enumeration up to 16 differing topics)")
    s.add_argument("--seed", type=int, default=0, help="seed of the randomization test and the bootstrap")
    s.add_argument("--interval", choices=["t", "bootstrap"], default="t",
                   help="confidence intervals of every mean and delta: paired Student t, or the BCa bootstrap "
                        "over topics (Efron & Tibshirani 1993)")
    s.add_argument("--level", type=float, default=0.95, help="confidence level of the intervals")
    s.add_argument("--resamples", type=int, default=10_000, help="bootstrap resamples (--interval bootstrap)")
    s.add_argument("--risk-alpha", type=float, default=1.0, help="the risk measures' alpha (loss weight 1 + alpha)")
    add_format(s, "an aligned table of the main columns within 100 characters (--wide: every column), the "
                  "test and intervals said underneath")
    s.add_argument("--wide", action="store_true",
                   help="the text table with every column of the csv/tsv/json formats (about 180 characters wide)")
