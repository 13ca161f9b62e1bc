"""Where the labelling tool's estimate cannot beat random sampling, and why (issue 48).

For each world of ``benchmarks/campaign_worlds.py`` two measurements, with no label model claim:

1. **Exact** (no Monte Carlo): the variance of one importance-weighted term
   ``(L_x - b f_x) / q(x)``, ``sum_x (L_x - b f_x)^2 / q(x) - (sum_x (L_x - b f_x))^2``, under the
   plan's ``q`` and under uniform sampling, for control-variate slopes ``b`` from 0 to 1.25,
   relative to uniform sampling without a control variate (random sampling's term). Below 1: the
   design can beat random sampling at that slope, whatever the number of labels; the smallest
   value over ``b`` is the most any slope can give.
2. **Monte Carlo** (``--campaigns``, draws of ``--labels`` distinct queries, without replacement):
   the root mean squared error over a simple random sample's (``sqrt((1 - n/N) S^2 / n)``), for the
   draws from uniform sampling and from the plan's ``q``, with three estimators on the same draws:
   ``default`` (:func:`evalrank.active.finite.finite_estimate`'s estimate: the Des Raj terms with
   the recalibrated control variate, its slope learned from earlier labels), ``retro`` (the same
   terms with one slope for all of them, chosen after the fact to minimize their weighted
   variance: the classic control-variate estimator, not predictable, so no interval of the tool
   could rest on it; here only to bound what a better slope could give) and ``none`` (no control
   variate: the Des Raj terms with a constant prediction; under uniform draws this *is* the
   random sample's mean).

3. **Exact, the first round** (``--first-round``; no Monte Carlo): what a plan's first round --
   drawn before any label, so one rule for every world -- can do. Over a grid of first rounds
   (a share ``lambda0`` of uniform sampling mixed into ``q``, a control-variate slope ``b0``), the
   rounds that keep the savings where the model is useful (each useful world's term variance
   ratio at most the square of the old default's RMSE ratio at 10 labels, :data:`OLD_AT_10`: the
   first round's 10 labels in a pool of 400 are nearly a with-replacement sample, so the square
   of the RMSE ratio is about the term variance ratio); on those, the smallest term variance ratio in each weak world, ``r1``,
   and a bound on 20 labels, ``2 / (1/r1 + 1/r2)``: the first round's 10 combined at the best
   weights (inverse variance) with 10 later labels at the best later design of the same family,
   ``r2`` (the grid's smallest ratio, its mix and slope chosen with hindsight). Above 1: no first round
   that keeps the useful worlds' savings lets any later rounds of this family reach random
   sampling at 20 labels. The bound uses with-replacement term variances; in a pool of 43 the
   finite population changes both sides, which ``campaign_worlds.py``'s Monte Carlo measures
   (``--first-mix``, ``--first-shape``, ``--later-srs``).

    .venv/bin/python benchmarks/campaign_limits.py --excerpt DIR [--campaigns 2000] [--labels 20]
        [--worlds excerpt43_dcg10,excerpt43_err,two_rankers,...] [--first-round]

``DIR``: the two files of rankeval 0.8.2's sdist (``pip download --no-deps --no-binary rankeval
rankeval==0.8.2``; ``rankeval/test/data``), needed by the excerpt worlds only.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SLOPES = (0.0, 0.25, 0.5, 0.75, 1.0, 1.25)
LOOKS = (5, 10, 20, 50)


def _worlds_module():
    sys.path.insert(0, str(HERE))
    import campaign_worlds

    return campaign_worlds


def term_variance(q, r) -> float:
    """The variance of ``r_x / q(x)`` for ``x ~ q`` (a with-replacement term on the pool's sum)."""
    return float(np.sum(r * r / q) - np.sum(r) ** 2)


def exact_rows(w) -> dict:
    """Part 1 (module docstring): per slope, the term variance under q and under uniform sampling
    over random sampling's."""
    L, f, q = w["L"], w["f"], w["q"]
    u = np.full(L.size, 1.0 / L.size)
    base = term_variance(u, L)
    return {b: (term_variance(q, L - b * f) / base, term_variance(u, L - b * f) / base) for b in SLOPES}


#: the old default's RMSE over random sampling's at 10 labels where the model is useful (one ranker;
#: benchmarks/RESULTS.md, "The labelling tool in worlds it was not tuned on", 1,000 campaigns)
OLD_AT_10 = {"skewed_overconfident": 0.133, "skewed_err": 0.277}
#: the weak worlds the first-round bound is computed for (one ranker, as the useful ones)
WEAK = ("excerpt43_dcg10", "excerpt43_err", "skewed_uninformative")
FIRST_MIXES = tuple(round(0.05 * k, 2) for k in range(21))
FIRST_SLOPES = tuple(round(0.05 * k, 2) for k in range(26))


def first_round_grid(w, mixes=FIRST_MIXES, slopes=FIRST_SLOPES) -> np.ndarray:
    """Part 3 (module docstring): the term variance over random sampling's for each first round,
    ``(len(mixes), len(slopes))``: draws from ``(1 - lambda0) q + lambda0 / N``, control variate
    ``b0 f``."""
    from evalrank.active.campaign_state import mixed_rounds

    L, f = w["L"], w["f"]
    base = term_variance(np.full(L.size, 1.0 / L.size), L)
    qs = mixed_rounds(w["q"], list(mixes))
    return np.array([[term_variance(ql, L - b * f) / base for b in slopes] for ql in qs])


def first_round_bound(useful: dict, weak: np.ndarray) -> dict:
    """Part 3's bound for one weak world. ``useful``: ``{name: (grid, old)}``, each useful world's
    :func:`first_round_grid` and its old default's RMSE ratio at 10 labels; ``weak``: the weak
    world's grid (the same mixes and slopes). Returns the number of first rounds that keep every
    useful world's savings, the smallest ``r1`` among them and where (grid indices), ``r2`` (the
    smallest of the whole grid: the best later round, chosen with hindsight) and the 20-label bound
    on the variance and on the RMSE ratio."""
    ok = np.ones(weak.shape, dtype=bool)
    for grid, old in useful.values():
        ok &= grid <= old ** 2
    if not ok.any():
        return {"feasible": 0}
    r1 = np.where(ok, weak, np.inf)
    at = np.unravel_index(int(np.argmin(r1)), r1.shape)
    r2 = float(weak.min())
    var = 2.0 / (1.0 / float(r1[at]) + 1.0 / r2)
    return {"feasible": int(ok.sum()), "r1": float(r1[at]), "at": (int(at[0]), int(at[1])), "r2": r2,
            "var": var, "rmse": float(np.sqrt(var))}


def retro_estimate(q, seq, values, f, weight) -> np.ndarray:
    """After each label, the Des Raj terms' weighted mean with one slope chosen after the fact
    (module docstring): each term is ``A_t + b B_t`` with ``B_t`` of mean 0; ``b`` minimizes the
    weighted variance of the terms (slope 1 before the third label)."""
    from evalrank.active.adapt import draw_probabilities

    N = f.size
    pi = draw_probabilities(q, seq, np.zeros(seq.size, dtype=np.int64))
    fx = f[seq]
    S = np.concatenate(([0.0], np.cumsum(values)[:-1]))
    G = f.sum() - np.concatenate(([0.0], np.cumsum(fx)[:-1]))
    A = (S + values / pi) / N
    B = (G - fx / pi) / N
    a = np.where(np.isfinite(weight), weight, 0.0)
    out = np.empty(seq.size)
    for k in range(1, seq.size + 1):
        if not np.isfinite(weight[k - 1]):    # the pool's last query: its term is the exact value
            out[k - 1] = A[k - 1] + B[k - 1]
            continue
        ak, Ak, Bk = a[:k], A[:k], B[:k]
        Am, Bm = np.sum(ak * Ak) / ak.sum(), np.sum(ak * Bk) / ak.sum()
        vb = np.sum(ak * (Bk - Bm) ** 2)
        b = -np.sum(ak * (Ak - Am) * (Bk - Bm)) / vb if k >= 3 and vb > 0 else 1.0
        out[k - 1] = Am + b * Bm
    return out


def monte_carlo(w, campaigns: int, n_labels: int, seed: int) -> dict:
    """Part 2 (module docstring): ``{(design, estimator): errors}``, each an array (campaigns, labels)."""
    from evalrank.active.finite import desraj_terms, distinct_order, _running_estimate

    cw = _worlds_module()
    L, f = w["L"], w["f"]
    N = L.size
    n_labels = min(n_labels, N)
    flat = np.full(N, float(f.mean()))
    out: dict = {}
    for design, q in (("uniform", np.full(N, 1.0 / N)), ("q", w["q"])):
        rng = np.random.default_rng(np.random.SeedSequence([seed, 48, 2]))
        err = {k: np.empty((campaigns, n_labels)) for k in ("default", "retro", "none")}
        for c in range(campaigns):
            seq = distinct_order(cw.draws_until(q, n_labels, rng))[0]
            terms = desraj_terms(q, seq, L[seq], f, w["lo"], w["hi"])
            err["default"][c] = _running_estimate(terms) - L.mean()
            err["retro"][c] = retro_estimate(q, seq, L[seq], f, terms["weight"]) - L.mean()
            err["none"][c] = _running_estimate(desraj_terms(q, seq, L[seq], flat, w["lo"], w["hi"])) - L.mean()
        for k, v in err.items():
            out[(design, k)] = v
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--campaigns", type=int, default=2000)
    ap.add_argument("--labels", type=int, default=20)
    ap.add_argument("--seed", type=int, default=2048)
    ap.add_argument("--worlds", default="excerpt43_dcg10,excerpt43_err,excerpt86_dcg10,two_rankers,skewed_overconfident,"
                                        "skewed_uninformative")
    ap.add_argument("--excerpt", help="the folder of rankeval 0.8.2's msn1.fold1.{train,test}.5k.txt")
    ap.add_argument("--first-round", action="store_true",
                    help="part 3 only: the exact bound on a first round that keeps the useful worlds' savings")
    a = ap.parse_args(argv)
    cw = _worlds_module()
    if a.first_round:
        return _first_round_main(cw, a)
    names = a.worlds.split(",")
    specs = dict(cw.generated_worlds(a.seed))
    if any(n.startswith("excerpt") for n in names):
        if not a.excerpt:
            ap.error("the excerpt worlds need --excerpt DIR")
        specs.update(cw.excerpt_worlds(a.excerpt))
    unknown = [n for n in names if n not in specs]
    if unknown:
        ap.error(f"--worlds: unknown {', '.join(unknown)} (known: {', '.join(sorted(specs))})")
    print("| world | N | corr(f, L) | term variance / random sampling's, q at b = " + " / ".join(map(str, SLOPES))
          + " | uniform at the same b |")
    print("|---|---:|---:|---|---|")
    arrays = {}
    for name in names:
        pool, grades, measure = specs[name]
        w = cw.world_arrays(pool, grades, measure)
        arrays[name] = w
        rows = exact_rows(w)
        print(f"| {name} | {w['L'].size} | {np.corrcoef(w['L'], w['f'])[0, 1]:.2f} | "
              + " / ".join(f"{rows[b][0]:.2f}" for b in SLOPES) + " | "
              + " / ".join(f"{rows[b][1]:.2f}" for b in SLOPES) + " |", flush=True)
    print()
    print(f"RMSE / random sampling's, {a.campaigns} campaigns (Monte Carlo se about "
          f"{100 / np.sqrt(2 * a.campaigns):.1f} %), at " + ", ".join(map(str, LOOKS)) + " labels")
    print()
    print("| world | draws | default | retro | none |")
    print("|---|---|---|---|---|")
    for name in names:
        w = arrays[name]
        L = w["L"]
        N = L.size
        S2 = float(L.var(ddof=1))
        mc = monte_carlo(w, a.campaigns, a.labels, a.seed)
        for design in ("uniform", "q"):
            cells = []
            for est in ("default", "retro", "none"):
                e = mc[(design, est)]
                vals = [np.sqrt(np.mean(e[:, n - 1] ** 2)) / np.sqrt((1 - n / N) * S2 / n)
                        for n in LOOKS if n <= e.shape[1] and n < N]
                cells.append(", ".join(f"{v:.3f}" for v in vals))
            print(f"| {name} | {design} | " + " | ".join(cells) + " |", flush=True)
    return 0


def _first_round_main(cw, a) -> int:
    """Part 3's table (module docstring)."""
    if not a.excerpt:
        raise SystemExit("campaign_limits.py: --first-round needs --excerpt DIR (its weak worlds are the excerpt's)")
    specs = dict(cw.generated_worlds(a.seed))
    specs.update(cw.excerpt_worlds(a.excerpt))
    grids = {}
    for name in (*OLD_AT_10, *WEAK):
        pool, grades, measure = specs[name]
        grids[name] = first_round_grid(cw.world_arrays(pool, grades, measure))
    useful = {n: (grids[n], OLD_AT_10[n]) for n in OLD_AT_10}
    print("first rounds kept: each useful world's term variance ratio <= (old RMSE ratio at 10)^2: "
          + ", ".join(f"{n} {o}^2" for n, o in OLD_AT_10.items()))
    print()
    print("| weak world | tool's first round (lambda0 0, b0 1) | best kept first round r1 (lambda0, b0) "
          "| best later r2 | 20 labels: variance / RMSE over random sampling's |")
    print("|---|---:|---|---:|---|")
    for n in WEAK:
        b = first_round_bound(useful, grids[n])
        if not b["feasible"]:
            print(f"| {n} | -- | no first round keeps the savings | -- | -- |")
            continue
        lam, b0 = FIRST_MIXES[b["at"][0]], FIRST_SLOPES[b["at"][1]]
        print(f"| {n} | {grids[n][0, FIRST_SLOPES.index(1.0)]:.3f} | {b['r1']:.3f} ({lam}, {b0}) | {b['r2']:.3f} "
              f"| {b['var']:.3f} / **{b['rmse']:.3f}** |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
