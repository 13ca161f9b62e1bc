r"""Monte Carlo of Algorithm 1 over repetitions x budgets, vectorized.

One draw sequence per repetition; every budget of the grid is a prefix of it
(Algorithm 1 with budget ``Lambda`` stops at the first draw whose *new* labelling
cost would exceed ``Lambda``, so a larger budget only continues the same
sequence). Deterministic labelling mode (the dataset experiments of Sawade et
al. Sec. 5): repeated queries are looked up for free.

Every run terminates and the work is bounded whatever ``q`` looks like: the
termination rules of :mod:`evalrank.active.estimate` (whole pool, exhausted,
draw cap) apply per budget, and a repetition consumes its uniforms in chunks
of at most :data:`CHUNK` draws (memory does not grow with the number of draws).

Repetition ``r`` draws its uniforms from ``seeds.rng(seed, *stream, r)``, its own
``SeedSequence`` stream, so a repetition's result does not depend on which
shard, process or core ran it; shards are just ranges of repetition numbers
(:func:`shard_range`) and merging shards gives the same arrays for any shard
count. Numerically identical to :func:`evalrank.active.estimate.algorithm1`
fed the same uniforms (tested).

Beside eq. 6 each (repetition, budget) keeps the running sums of ``w``, ``w v``,
``w^2``, ``w^2 v`` and ``w^2 v^2`` over its draws, so that every run's standard
error and interval (:mod:`evalrank.active.interval`) come out of the same pass
(:func:`standard_errors`; the active stage's coverage study).
"""

from __future__ import annotations

import numba
import numpy as np

from evalrank.active.estimate import check_max_draws, check_sampling, query_cdf
from evalrank.seeds import stream_rngs  # re-exported: the Monte Carlo's repetition streams

__all__ = ["simulate", "shard_file", "standard_errors", "SUMS", "shard_range", "stream_rngs", "CHUNK", "STOP_BUDGET", "STOP_EXHAUSTED",
           "STOP_CAPPED", "STOP_WHOLE_POOL"]

#: The running sums kept per (repetition, budget), for the standard error of eq. 6.
SUMS = ("sum_w", "sum_wv", "sum_ww", "sum_wwv", "sum_wwvv")
#: Most uniforms drawn at once per repetition (bounds memory).
CHUNK = 1 << 16
#: Why a (repetition, budget) stopped: the next new query would exceed the budget ...
STOP_BUDGET = 0
#: ... every drawable query was labelled (the estimate is their mean, the loop's limit) ...
STOP_EXHAUSTED = 1
#: ... the draw cap was reached ...
STOP_CAPPED = 2
#: ... the budget covers the whole pool (no draw; the estimate is the exact pool mean).
STOP_WHOLE_POOL = 3


def guide_table(cdf) -> np.ndarray:
    """``searchsorted(cdf, k / K, side="right")`` for ``k = 0..K``, ``K = len(cdf)``: the range of
    queries a uniform of ``[k / K, (k + 1) / K)`` can map to (:func:`_inverse_cdf`)."""
    K = cdf.shape[0]
    return np.searchsorted(cdf, np.arange(K + 1) / K, side="right").astype(np.int64)


@numba.njit(cache=True, inline="always")
def _inverse_cdf(cdf, guide, u):
    """``min(searchsorted(cdf, u, side="right"), len(cdf) - 1)`` (as
    :func:`evalrank.active.estimate.draws_from_cdf`), by binary search between the guide table's
    entries (:func:`guide_table`) of the buckets next to ``u``'s, one bucket of slack either side
    for the rounding of ``u K``: the count of entries ``<= u`` is monotone in ``u``, so it lies
    between the counts at the buckets' ends."""
    K = cdf.shape[0]
    k = int(u * K)
    lo = guide[max(k - 1, 0)]
    hi = guide[min(k + 2, K)]
    while lo < hi:
        mid = (lo + hi) >> 1
        if cdf[mid] <= u:
            lo = mid + 1
        else:
            hi = mid
    return min(lo, K - 1)


@numba.njit(cache=True)
def _rows(U, rows, init, tag0, cdf, guide, costs, w, wv, ww, wwv, wwvv, drawable_mean, budgets, max_draws, n_drawable, stamp,
          fstate, istate, est, imp, n_used, spent_out, stop, sums, done):
    """Continue repetitions ``rows`` (indices into the (R, ...) state and output arrays), row ``k``
    with the uniforms ``U[k]``; ``init``: start them (fresh state). A row labels its queries in
    ``stamp`` with the tag ``tag0 + rows[k]``, so a row continued after others ran must have been
    restarted with a tag no other row used. Each uniform becomes a query
    by the inverse CDF as :func:`evalrank.active.estimate.draws_from_cdf` (``searchsorted(cdf, u,
    side="right")`` capped at the last query), only when the run consumes it. ``done[k]``: every
    budget of row ``rows[k]`` is settled (False: its uniforms ran out first)."""
    for k in range(rows.shape[0]):
        i = rows[k]
        if init:
            fstate[i, :] = 0.0
            istate[i, 0] = 0
            istate[i, 1] = 0
            istate[i, 2] = n_drawable
        done[k] = _run(U[k], cdf, guide, costs, w, wv, ww, wwv, wwvv, drawable_mean, budgets, max_draws, stamp, tag0 + i,
                       fstate[i], istate[i], est[i], imp[i], n_used[i], spent_out[i], stop[i], sums[i])


@numba.njit(cache=True)
def _run(u, cdf, guide, costs, w, wv, ww, wwv, wwvv, drawable_mean, budgets, max_draws, stamp, tag, fstate, istate,
         est, imp, n_used, spent_out, stop, sums):
    """Continue one repetition with the next chunk of uniforms ``u``; fills row outputs per budget.

    ``fstate`` = (spent, sum w, sum w v, sum w^2, sum w^2 v, sum w^2 v^2) and ``istate`` =
    (next budget, draws used, drawable queries not yet labelled) carry the run across
    chunks; ``sums`` (n_budgets, 5) receives the five running sums at each budget's stop
    (the standard error's, :func:`evalrank.active.interval.interval_from_sums`). Returns
    True when every budget is settled, False when the chunk ran out first.
    """
    nb = budgets.shape[0]
    spent, sw, swv, sww, swwv, swwvv = fstate[0], fstate[1], fstate[2], fstate[3], fstate[4], fstate[5]
    b, n, unseen = istate[0], istate[1], istate[2]
    done = False
    j = 0
    while True:
        if b == nb:
            done = True
            break
        if unseen == 0 or n >= max_draws:
            # every drawable query is labelled (further draws are free and the
            # estimate converges to their mean), or the draw cap is reached
            code = STOP_EXHAUSTED if unseen == 0 else STOP_CAPPED
            while b < nb:
                if code == STOP_EXHAUSTED:
                    est[b] = drawable_mean
                    imp[b] = drawable_mean
                elif n > 0:
                    est[b] = swv / sw
                    imp[b] = swv / n
                else:
                    est[b] = np.nan
                    imp[b] = np.nan
                n_used[b] = n
                spent_out[b] = spent
                stop[b] = code
                sums[b, 0], sums[b, 1], sums[b, 2], sums[b, 3], sums[b, 4] = sw, swv, sww, swwv, swwvv
                b += 1
            done = True
            break
        if j == u.shape[0]:
            break
        x = _inverse_cdf(cdf, guide, u[j])
        j += 1
        new = stamp[x] != tag
        c = costs[x] if new else 0.0
        while b < nb and spent + c > budgets[b]:
            if n > 0:
                est[b] = swv / sw
                imp[b] = swv / n
            else:
                est[b] = np.nan
                imp[b] = np.nan
            n_used[b] = n
            spent_out[b] = spent
            stop[b] = STOP_BUDGET
            sums[b, 0], sums[b, 1], sums[b, 2], sums[b, 3], sums[b, 4] = sw, swv, sww, swwv, swwvv
            b += 1
        if b == nb:
            done = True
            break
        spent += c
        if new:
            stamp[x] = tag
            unseen -= 1
        n += 1
        sw += w[x]
        swv += wv[x]
        sww += ww[x]
        swwv += wwv[x]
        swwvv += wwvv[x]
    fstate[0], fstate[1], fstate[2], fstate[3], fstate[4], fstate[5] = spent, sw, swv, sww, swwv, swwvv
    istate[0], istate[1], istate[2] = b, n, unseen
    return done


#: Most uniforms held at once over the repetitions of one batch of :func:`simulate` (bounds memory).
BATCH_UNIFORMS = 1 << 21
#: Repetitions of :func:`simulate`'s first batch, whose draws size the first chunk of the others.
PROBE = 100


def shard_range(n_repetitions: int, shard: int, n_shards: int) -> range:
    """Repetition numbers of shard ``shard`` (0-based) of ``n_shards`` (contiguous, balanced)."""
    for name, v in (("n_repetitions", n_repetitions), ("n_shards", n_shards), ("shard", shard)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"{name} must be an integer, got {v!r}")
    if n_repetitions < 1 or n_shards < 1:
        raise ValueError("n_repetitions and n_shards must be >= 1")
    if n_shards > n_repetitions:
        raise ValueError(f"n_shards ({n_shards}) must not exceed n_repetitions ({n_repetitions}): "
                         "a shard would be empty")
    if not 0 <= shard < n_shards:
        raise ValueError(f"shard must be in 0..{n_shards - 1}, got {shard}")
    lo = shard * n_repetitions // n_shards
    hi = (shard + 1) * n_repetitions // n_shards
    return range(lo, hi)


def _checked(q, costs, values, budgets):
    """:func:`simulate`'s inputs checked: (q, costs, values, budgets) as float arrays."""
    budgets = np.asarray(budgets, dtype=np.float64)
    if budgets.ndim != 1 or budgets.size == 0 or np.any(np.diff(budgets) <= 0):
        raise ValueError("budgets must be a non-empty, strictly increasing 1-d array")
    q, costs = check_sampling(q, costs, budgets)
    values = np.asarray(values, dtype=np.float64)
    if values.shape != q.shape:
        raise ValueError(f"values must have shape {q.shape} (one per pool query), got {values.shape}")
    if not np.all(np.isfinite(values)):
        raise ValueError("values must be finite")
    return q, costs, values, budgets


def simulate(q, costs, values, budgets, *, seed: int, stream: tuple, repetitions, max_draws: int | None = None) -> dict:
    """Run Algorithm 1 (deterministic labelling) for every repetition and budget.

    Parameters
    ----------
    q : (n_queries,) sampling distribution over the pool.
    costs : (n_queries,) labelling costs.
    values : (n_queries,) each query's loss under its true labels (``L`` or ``delta``).
    budgets : increasing budgets ``Lambda``; the smallest must cover the cheapest drawable query.
    seed, stream : repetition ``r`` uses ``seeds.rng(seed, *stream, r)``.
    repetitions : iterable of repetition numbers (e.g. :func:`shard_range`).
    max_draws : the draw cap of one run (None: :func:`evalrank.active.estimate.default_max_draws`).

    Returns a dict of arrays of shape (n_repetitions, n_budgets): ``estimate``
    (eq. 6), ``importance``, ``n`` (draws), ``spent``, ``stop`` (why the run
    stopped at that budget: :data:`STOP_BUDGET`, :data:`STOP_EXHAUSTED`,
    :data:`STOP_CAPPED`, :data:`STOP_WHOLE_POOL`) and its booleans ``exhausted``,
    ``capped``, ``whole_pool``; the running sums over the draws made, :data:`SUMS`
    (``sum w``, ``sum w v``, ``sum w^2``, ``sum w^2 v``, ``sum w^2 v^2``, ``w = p/q``;
    for a whole-pool run every query once with ``w = 1``), from which
    :func:`standard_errors` gives eq. 6's standard error; and ``repetition`` (n_repetitions,).
    """
    q, costs, values, budgets = _checked(q, costs, values, budgets)
    cap = check_max_draws(max_draws, q.size)
    reps = np.asarray(list(repetitions), dtype=np.int64)
    m = q.size
    drawable = q > 0
    with np.errstate(divide="ignore"):
        w = np.where(drawable, 1.0 / (m * q), 0.0)
    wv = w * values
    ww = w * w
    wwv = ww * values
    wwvv = wwv * values
    drawable_mean = float(values[drawable].mean())
    # budgets at or above the pool's cost label the whole pool, without a draw
    partial = budgets < costs.sum()
    nb = int(partial.sum())
    R, B = reps.size, budgets.size
    out = {
        "estimate": np.empty((R, B)), "importance": np.empty((R, B)),
        "n": np.empty((R, B), dtype=np.int64), "spent": np.empty((R, B)),
        "stop": np.empty((R, B), dtype=np.int8), "repetition": reps,
    }
    sums = np.empty((R, B, 5))
    out["estimate"][:, nb:] = out["importance"][:, nb:] = values.mean()
    # the whole pool, every query once with weight 1 (as evalrank.active.campaign's whole-pool plan)
    sums[:, nb:] = [values.size, values.sum(), values.size, values.sum(), np.dot(values, values)]
    out["n"][:, nb:] = m
    out["spent"][:, nb:] = costs.sum()
    out["stop"][:, nb:] = STOP_WHOLE_POOL
    if nb:
        # first chunk: the draws that spend the largest partial budget if no query
        # repeated, with headroom; later chunks continue the same stream
        mean_cost = float(np.dot(q, costs))
        first = int(min(2 * budgets[nb - 1] / mean_cost + 64, CHUNK))
        stamp = np.full(m, -1, dtype=np.int64)
        cdf = query_cdf(q)
        run_budgets = np.ascontiguousarray(budgets[:nb])
        fstate, istate = np.zeros((R, 6)), np.zeros((R, 3), dtype=np.int64)
        args = (cdf, guide_table(cdf), costs, w, wv, ww, wwv, wwvv, drawable_mean, run_budgets, cap, np.int64(drawable.sum()), stamp,
                fstate, istate, out["estimate"], out["importance"], out["n"], out["spent"], out["stop"], sums)
        gens = list(stream_rngs(seed, stream, reps))
        lo = 0
        while lo < R:
            # the first chunk of a block of repetitions in one call; a repetition that outgrows it
            # continues alone with doubling chunks (up to CHUNK): a run that repeats queries often
            # needs a few times the first chunk, not 65,536 uniforms (the stream is the same for any
            # chunking, and a uniform becomes a query only when the run consumes it)
            # (the first block is small: it sizes the first chunk of the others)
            rows = np.arange(lo, min(lo + max(1, min(BATCH_UNIFORMS // first, PROBE if lo == 0 else R)), R),
                             dtype=np.int64)
            lo = rows[-1] + 1
            U = np.empty((rows.size, first))
            for k, i in enumerate(rows):
                U[k] = gens[i].random(first)
            done = np.zeros(rows.size, dtype=np.bool_)
            _rows(U, rows, True, 0, *args, done)
            for k in np.flatnonzero(~done):
                # the rows after it overwrote its labels in ``stamp``: restart it alone on its first
                # chunk under a fresh tag (R + i), then continue its stream
                one, one_done = rows[k:k + 1], np.zeros(1, dtype=np.bool_)
                _rows(U[k:k + 1], one, True, R, *args, one_done)
                size = first
                while not one_done[0]:
                    size = min(2 * size, CHUNK)
                    _rows(gens[rows[k]].random(size)[None, :], one, False, R, *args, one_done)
            # uniforms are cheap and become queries only when consumed: let the next blocks' first
            # chunk hold what 19 in 20 runs of this block consumed (draws to the largest partial
            # budget, plus the one that stopped it), so that few runs need restarting
            used = np.quantile(out["n"][rows, nb - 1], 0.95) + 1
            first = int(min(max(first, 1.25 * used), CHUNK))
    out["exhausted"] = out["stop"] == STOP_EXHAUSTED
    out["capped"] = out["stop"] == STOP_CAPPED
    out["whole_pool"] = out["stop"] == STOP_WHOLE_POOL
    for k, name in enumerate(SUMS):
        out[name] = sums[:, :, k]
    return out


def standard_errors(sim: dict, q, *, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """``(stderr, half width)`` of every (repetition, budget) of :func:`simulate`'s output ``sim``
    for sampling distribution ``q``: eq. 6's delta-method standard error from the running sums
    and its Student interval (:func:`evalrank.active.interval.interval_from_sums`, the formula
    :func:`evalrank.active.campaign.estimate` uses), with the termination rules treated as
    ``campaign.estimate`` treats them: a whole-pool run, and an exhausted run whose ``q`` is
    positive everywhere (every query labelled), are exact (stderr and half width 0); an
    exhausted run with undrawable queries returns the drawable queries' mean, which is not
    eq. 6 over its draws, so it has no interval (NaN), as has a run without a draw. Fewer than
    two draws give an infinite half width."""
    from evalrank.active.interval import interval_from_sums

    q = np.asarray(q, dtype=np.float64)
    _, se, half = interval_from_sums(*(sim[name] for name in SUMS), sim["n"], level=level)
    exact = sim["whole_pool"] | (sim["exhausted"] & bool((q > 0).all()))
    none = (sim["n"] == 0) | (sim["exhausted"] & ~exact)
    se = np.where(exact, 0.0, np.where(none, np.nan, se))
    half = np.where(exact, 0.0, np.where(none, np.nan, half))
    return se, half


def shard_file(setup, *, budgets, repetitions: int, shard: int, shards: int, seed: int, campaign_repetitions: int,
               campaign_budgets, epsilons, tune_budget: float, level: float, output, log=None,
               rounds_repetitions: int = 0) -> None:
    """One shard of the Monte Carlo of Algorithm 1 (Sec. 5; :func:`simulate` of every measure and
    method of :data:`evalrank.active.sampling.METHODS`, with eq. 6's standard error of every run)
    on the experiment of ``setup`` (setup.npz), and of the labelling tool's campaign study
    (:func:`evalrank.papers.sawade2012.campaignstudy.simulate_campaigns`; none when
    ``campaign_repetitions`` is 0; ``rounds_repetitions`` of those campaigns, :func:`rounds_campaigns`,
    also continued with the labels, :func:`~evalrank.papers.sawade2012.campaignstudy.simulate_rounds`)
    -> ``output`` (shard<k>.npz). Repetition ``r`` draws from
    ``seeds.rng(seed, "active-mc", experiment, fold, measure, method, r)``, so shards merge to the
    same arrays for any shard count; a calibrated twin (:mod:`evalrank.papers.sawade2012.calibrated`)
    uses its base experiment's streams and has no campaign study."""
    import json
    import time

    from evalrank import io
    from evalrank.active.sampling import METHODS
    from evalrank.progress import progress

    say = log or (lambda message: None)
    setup = io.load_arrays(setup)
    meta = json.loads(str(setup["meta"]))
    reps = shard_range(repetitions, shard, shards)
    out = {"repetition": np.asarray(reps, dtype=np.int64), "budgets": np.asarray(budgets, dtype=np.float64),
           "meta": setup["meta"], "n_repetitions": np.int64(repetitions)}
    t0 = time.perf_counter()
    jobs = [(m, method) for m in meta["measures"] for method in METHODS]
    for m, method in progress(jobs, desc=f"{meta['experiment']} fold {meta['fold']} shard {shard}", unit="curve"):
        # a calibrated twin draws the uniforms of its base experiment (common random numbers: passive
        # and active_uniD, whose q it shares, repeat the base's runs exactly)
        sim = simulate(setup[f"q_{m}_{method}"], setup["costs"], setup[f"values_{m}"], budgets, seed=seed,
                       stream=("active-mc", meta.get("base", meta["experiment"]), meta["fold"], m, method),
                       repetitions=reps)
        for k in ("estimate", "n", "spent", "stop"):
            out[f"{k}_{m}_{method}"] = sim[k]
        out[f"stderr_{m}_{method}"] = standard_errors(sim, setup[f"q_{m}_{method}"])[0]
    out.update(_campaigns(setup, meta, campaign_repetitions, shard, shards, campaign_budgets, epsilons, seed,
                          tune_budget, level, rounds_repetitions))
    io.save_arrays(output, **out)
    say(f"{len(reps) * len(jobs)} runs x {len(budgets)} budgets in {time.perf_counter() - t0:.1f}s")
    pool_cost = float(setup["costs"].sum())
    whole = [b for b in budgets if b >= pool_cost]
    if whole:
        say(f"budget(s) {', '.join(f'{b:g}' for b in whole)} cover the whole pool (cost {pool_cost:.6g}): "
            "every query is labelled there, the estimate is the truth (error 0)")
    capped = sum(int((out[f"stop_{m}_{method}"] == STOP_CAPPED).sum()) for m, method in jobs)
    if capped:
        say(f"{capped} (run, budget) pairs stopped at the draw cap (evalrank.active.estimate.default_max_draws)")


def rounds_campaigns(campaigns: int, rounds: int) -> set:
    """The campaign numbers (of ``0 .. campaigns - 1``) that the campaign study also runs continued
    with the labels: ``rounds`` of them (at most all), spread evenly, ``floor(j campaigns / rounds)``
    for ``j < rounds``, so that every shard of a range of campaigns gets its share."""
    k = min(int(rounds), int(campaigns))
    return {j * int(campaigns) // k for j in range(k)} if k > 0 else set()


def _campaigns(setup, meta, campaign_repetitions, shard, shards, budgets, epsilons, seed, tune_budget, level,
               rounds_repetitions: int = 0) -> dict:
    """:func:`shard_file`'s arrays of the campaign study (empty when it does not run on the experiment)."""
    from evalrank.active.campaign_plan import DEFAULT_EPSILON
    from evalrank.papers.sawade2012.campaignstudy import (in_campaign_study, simulate_campaigns, simulate_finite,
                                                          simulate_rounds)
    from evalrank.progress import progress

    if not (campaign_repetitions and in_campaign_study(meta["experiment"])) or meta.get("calibrated"):
        return {}
    creps = shard_range(campaign_repetitions, shard, shards)
    rounds = rounds_campaigns(campaign_repetitions, rounds_repetitions)
    out = {"campaign_repetition": np.asarray(creps, dtype=np.int64),
           "campaign_budgets": np.asarray(budgets, dtype=np.float64),
           "epsilons": np.asarray(epsilons, dtype=np.float64), "n_campaigns": np.int64(campaign_repetitions)}
    for m in progress(meta["measures"], desc=f"{meta['experiment']} campaigns", unit="measure"):
        sim = simulate_campaigns(setup, m, epsilons=epsilons, budgets=budgets, repetitions=creps, seed=seed,
                                 stream=("active-campaign", meta["experiment"], meta["fold"], m),
                                 tune_budget=tune_budget, level=level)
        out.update({f"camp_{m}_{k}": v for k, v in sim.items()})
        # the tool's default (the finite-population estimator) at the default floor
        # on the asymptotic sequence's draws at the same floor (common random numbers: the same draws
        # where the q is the same, a difference), so that the two designs' RMSEs compare campaign by campaign
        same = [i for i, e in enumerate(epsilons) if float(e) == DEFAULT_EPSILON]
        fin = simulate_finite(setup, m, difference=meta["kind"] != "estimate", epsilon=DEFAULT_EPSILON,
                              budgets=budgets, repetitions=creps, seed=seed,
                              stream=("active-campaign", meta["experiment"], meta["fold"], m),
                              tune_budget=tune_budget, level=level,
                              draw_stream=f"eps{same[0]}" if same else "finite")
        out.update({f"camp_{m}_{k}": v for k, v in fin.items()})
        # the same default continued with the labels at each budget (plan --continue --qrels), on
        # rounds_repetitions of the campaigns spread evenly over them (each shard its share)
        rreps = [r for r in creps if r in rounds]
        if rreps:
            rnd = simulate_rounds(setup, m, difference=meta["kind"] != "estimate", epsilon=DEFAULT_EPSILON,
                                  budgets=budgets, repetitions=rreps, seed=seed,
                                  stream=("active-campaign", meta["experiment"], meta["fold"], m), level=level)
            out.update({f"camp_{m}_{k}": v for k, v in rnd.items()})
    return out
