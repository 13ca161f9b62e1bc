"""``evalrank stage`` commands of the clicks stage (Ozertem et al. 2011;
``workflow/rules/ozertem2011.smk``). Each reads files, calls the library and writes its
outputs atomically.

- ``clicks-simulate``: the world -> ``world.npz``, ``tests.csv``, ``sessions.tsv``, ``judgments.tsv``
- ``clicks-dbn``: click models from ``sessions.tsv`` -> ``dbn.npz``, ``dbn_recovery.csv``
- ``clicks-estimate``: every estimator on every test -> ``estimates.npz``, ``summaries.csv``, ...
- ``clicks-report``: Tables 2, 4-8, the many-test study and Figs. 1-8

Defaults: see :mod:`evalrank.cli` -- an option carrying a config value is required.
"""

from __future__ import annotations

import argparse
import json

from evalrank.cli.common import _log, add_command, named_paths

__all__ = ["TITLE", "add_stage_parsers"]

TITLE = "clicks (workflow/rules/ozertem2011.smk)"


def cmd_simulate(a):
    from evalrank.papers.ozertem2011.pipeline import simulate_files

    simulate_files(predictions=named_paths(a.predictions, "--predictions"), agreement=a.agreement,
                   params=json.loads(a.params), seed=a.seed, out_dir=a.out_dir, grades=a.grades, log=_log)


def cmd_dbn(a):
    from evalrank.papers.ozertem2011.pipeline import click_model_files

    click_model_files(world=a.world, sessions=a.sessions, views_grid=a.views_grid, gamma=a.gamma, prior=a.prior,
                      max_iter=a.max_iter, tol=a.tol, output=a.output, table=a.table, log=_log)


def cmd_estimate(a):
    from evalrank.papers.ozertem2011.pipeline import estimate_files

    estimate_files(world=a.world, sessions=a.sessions, judgments=a.judgments, dbn=a.dbn, agreement=a.agreement,
                   out_dir=a.out_dir, grades=a.grades, model=a.model, prior_depth=a.prior_depth, eps=a.eps,
                   min_samples=a.min_samples, min_views=a.min_views, views_grid=a.views_grid,
                   views_folds=a.views_folds, sigma=a.sigma, sigma_bounds=a.sigma_bounds,
                   curve_points=a.curve_points, cj_min_train=a.cj_min_train, cj_alpha=a.cj_alpha, z=a.z, log=_log)


def cmd_report(a):
    from evalrank.papers.ozertem2011.pipeline import report_files

    report_files(world=a.world, in_dir=a.in_dir, agreement=a.agreement, printed_table2=a.printed_table2,
                 out_dir=a.out_dir, grades=a.grades, paper_tests=a.paper_tests, coverage_z=a.coverage_z, log=_log)


def _views(v):
    if v == "loo":
        return v
    try:
        n = int(v)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected 'loo' or an integer >= 1, got {v!r}")
    return n



def add_stage_parsers(sub) -> None:
    def grades(s):
        s.add_argument("--grades", nargs="+", required=True, help="grade names, lowest first (ozertem2011.grades)")

    s = add_command(sub, "clicks-simulate", cmd_simulate,
                    "simulate the search world: sessions, tests, editors (Ozertem 2011)")
    s.add_argument("--predictions", nargs="+", required=True, help="NAME=predictions.npz of each ranker on the pool")
    s.add_argument("--agreement", required=True, help="inter-editor agreement matrix CSV, Table 1 (ozertem2011.agreement)")
    s.add_argument("--params", required=True, help="JSON of the world's parameters (ozertem2011.world)")
    s.add_argument("--seed", type=int, required=True, help="the config's seed")
    s.add_argument("--out-dir", required=True, help="folder of world.npz, tests.csv, sessions.tsv, judgments.tsv")
    grades(s)

    s = add_command(sub, "clicks-dbn", cmd_dbn, "simplified DBN (eq. 1) and full DBN by EM from a session log")
    s.add_argument("--world", required=True, help="world.npz of clicks-simulate")
    s.add_argument("--sessions", required=True, help="sessions.tsv of clicks-simulate")
    s.add_argument("--views-grid", type=int, nargs="+", required=True,
                   help="view thresholds at which to report the recovery of the simulator's parameters "
                        "(ozertem2011.dbn.min_views_grid)")
    s.add_argument("--gamma", type=float,
                   help="EM's continuation probability (ozertem2011.dbn.gamma; default: none, EM fits it)")
    s.add_argument("--prior", type=float, nargs=2, required=True, help="Beta pseudo-counts of EM's M-step "
                                                                      "(ozertem2011.dbn.prior)")
    s.add_argument("--max-iter", type=int, required=True, help="EM iterations at most (ozertem2011.dbn.max_iter)")
    s.add_argument("--tol", type=float, required=True, help="EM's convergence tolerance (ozertem2011.dbn.tol)")
    s.add_argument("--output", required=True, help="dbn.npz")
    s.add_argument("--table", required=True, help="recovery of the simulator's parameters (CSV)")

    s = add_command(sub, "clicks-estimate", cmd_estimate, "ΔDCG@k of every test by every estimator")
    for arg, text in (("--world", "world.npz of clicks-simulate"), ("--sessions", "sessions.tsv of clicks-simulate"),
                      ("--judgments", "judgments.tsv of clicks-simulate"), ("--dbn", "dbn.npz of clicks-dbn"),
                      ("--agreement", "inter-editor agreement matrix CSV (ozertem2011.agreement)"),
                      ("--out-dir", "folder of estimates.npz, summaries.csv, sigma.csv, loo_curve.csv, sources.npz, "
                                    "min_views.csv")):
        s.add_argument(arg, required=True, help=text)
    s.add_argument("--model", choices=["simplified", "em"], required=True,
                   help="click model behind smoothed-DBN; the other one is reported as smoothed_<model> "
                        "(ozertem2011.dbn.model)")
    s.add_argument("--prior-depth", type=int, required=True, help="p(g) from the baseline's top prior-depth "
                                                                  "(ozertem2011.mapping.prior_depth)")
    s.add_argument("--eps", type=float, required=True, help="click relevance clipped to [eps, 1 - eps] "
                                                            "(ozertem2011.mapping.eps)")
    s.add_argument("--min-samples", type=int, required=True, help="fewer samples of a grade: the pooled beta fit "
                                                                  "(ozertem2011.mapping.min_samples)")
    s.add_argument("--min-views", type=_views, required=True,
                   help="views a pair's click estimate needs: 'loo' (chosen by leave-one-out) or an integer "
                        "(ozertem2011.dbn.min_views)")
    s.add_argument("--views-grid", type=int, nargs="+", required=True,
                   help="candidate thresholds of --min-views loo (ozertem2011.dbn.min_views_grid)")
    s.add_argument("--views-folds", type=int, required=True,
                   help="query folds of the cross-fitted click posterior (ozertem2011.dbn.min_views_folds)")
    s.add_argument("--sigma", required=True, help="'loo' or a number (ozertem2011.smoothing.sigma)")
    s.add_argument("--sigma-bounds", type=float, nargs=2, required=True,
                   help="bounds of the search for sigma (ozertem2011.smoothing.sigma_bounds)")
    s.add_argument("--curve-points", type=int, required=True, help="sigmas on Fig. 6's grid "
                                                                   "(ozertem2011.smoothing.curve_points)")
    s.add_argument("--cj-min-train", type=int, required=True,
                   help="Carterette & Jones train on queries with this many sessions "
                        "(ozertem2011.carterette.min_train_impressions)")
    s.add_argument("--cj-alpha", type=float, required=True, help="Carterette & Jones' L2 strength "
                                                                 "(ozertem2011.carterette.alpha)")
    s.add_argument("--z", type=float, required=True, help="a test's call is + or - when |ΔDCG| > z SD (ozertem2011.z)")
    grades(s)

    s = add_command(sub, "clicks-report", cmd_report, "Tables 2, 4-8, the many-test study and Figs. 1-8")
    for arg, text in (("--world", "world.npz of clicks-simulate"), ("--in-dir", "the folder of clicks-estimate"),
                      ("--agreement", "inter-editor agreement matrix CSV (ozertem2011.agreement)"),
                      ("--printed-table2", "Table 2 as printed, CSV (ozertem2011.printed_table2)"),
                      ("--out-dir", "folder of the tables and figures")):
        s.add_argument(arg, required=True, help=text)
    s.add_argument("--paper-tests", type=int, required=True, help="tests shown in Tables 4 and 7 "
                                                                  "(ozertem2011.paper_tests)")
    s.add_argument("--coverage-z", type=float, required=True,
                   help="coverage: share of tests with the truth within ± coverage-z SD (ozertem2011.coverage_z)")
    grades(s)
