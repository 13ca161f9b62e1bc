r"""Monte Carlo of Algorithm 1 over repetitions x budgets, vectorized.

One draw sequence per repetition; every budget of the grid is a prefix of it
(Algorithm 1 with budget ``Lambda`` stops at the first draw whose *new* labelling
cost would exceed ``Lambda``, so a larger budget only continues the same
sequence). Deterministic labelling mode (the dataset experiments of Sawade et
al. Sec. 5): repeated queries are looked up for free.

Repetition ``r`` draws its uniforms from ``seeds.rng(seed, *stream, r)``, its own
``SeedSequence`` stream, so a repetition's result does not depend on which
shard, process or core ran it; shards are just ranges of repetition numbers
(:func:`shard_range`) and merging shards gives the same arrays for any shard
count. Numerically identical to :func:`evalrank.active.estimate.algorithm1`
fed the same uniforms (tested).
"""

from __future__ import annotations

import numba
import numpy as np

from evalrank import seeds
from evalrank.active.estimate import check_sampling, draws_from_cdf, query_cdf

__all__ = ["simulate", "shard_range"]


@numba.njit(cache=True)
def _run(draws, costs, w, wv, drawable_mean, n_drawable, budgets, stamp, tag, est, imp, n_used, spent_out, exhausted):
    """Process one repetition's draw sequence; fills row outputs per budget.

    Returns True when every budget was settled, False when the sequence ran out first.
    """
    nb = budgets.shape[0]
    b = 0
    spent = 0.0
    sw = 0.0
    swv = 0.0
    n = 0
    unseen = n_drawable
    for j in range(draws.shape[0]):
        if unseen == 0:
            break
        x = draws[j]
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
            exhausted[b] = False
            b += 1
        if b == nb:
            return True
        spent += c
        if new:
            stamp[x] = tag
            unseen -= 1
        n += 1
        sw += w[x]
        swv += wv[x]
    if unseen > 0:
        return False
    # every drawable query is labelled: further draws are free and the estimate
    # converges to the mean over them (as evalrank.active.estimate.algorithm1)
    while b < nb:
        est[b] = drawable_mean
        imp[b] = drawable_mean
        n_used[b] = n
        spent_out[b] = spent
        exhausted[b] = True
        b += 1
    return True


def shard_range(n_repetitions: int, shard: int, n_shards: int) -> range:
    """Repetition numbers of shard ``shard`` (0-based) of ``n_shards`` (contiguous, balanced)."""
    for name, v in (("n_repetitions", n_repetitions), ("n_shards", n_shards), ("shard", shard)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"{name} must be an integer, got {v!r}")
    if n_repetitions < 1 or n_shards < 1:
        raise ValueError("n_repetitions and n_shards must be >= 1")
    if not 0 <= shard < n_shards:
        raise ValueError(f"shard must be in 0..{n_shards - 1}, got {shard}")
    lo = shard * n_repetitions // n_shards
    hi = (shard + 1) * n_repetitions // n_shards
    return range(lo, hi)


def simulate(q, costs, values, budgets, *, seed: int, stream: tuple, repetitions) -> dict:
    """Run Algorithm 1 (deterministic labelling) for every repetition and budget.

    Parameters
    ----------
    q : (n_queries,) sampling distribution over the pool.
    costs : (n_queries,) labelling costs.
    values : (n_queries,) each query's loss under its true labels (``L`` or ``delta``).
    budgets : increasing budgets ``Lambda``; the smallest must cover the cheapest drawable query.
    seed, stream : repetition ``r`` uses ``seeds.rng(seed, *stream, r)``.
    repetitions : iterable of repetition numbers (e.g. :func:`shard_range`).

    Returns a dict of arrays of shape (n_repetitions, n_budgets): ``estimate``
    (eq. 6), ``importance``, ``n`` (draws), ``spent``, ``exhausted``; and
    ``repetition`` (n_repetitions,).
    """
    budgets = np.asarray(budgets, dtype=np.float64)
    if budgets.ndim != 1 or budgets.size == 0 or np.any(np.diff(budgets) <= 0):
        raise ValueError("budgets must be a non-empty, strictly increasing 1-d array")
    q, costs = check_sampling(q, costs, budgets)
    values = np.asarray(values, dtype=np.float64)
    if values.shape != q.shape:
        raise ValueError(f"values must have shape {q.shape} (one per pool query), got {values.shape}")
    if not np.all(np.isfinite(values)):
        raise ValueError("values must be finite")
    reps = np.asarray(list(repetitions), dtype=np.int64)
    m = q.size
    drawable = q > 0
    with np.errstate(divide="ignore"):
        w = np.where(drawable, 1.0 / (m * q), 0.0)
    wv = w * values
    drawable_mean = float(values[drawable].mean())
    n_drawable = int(drawable.sum())
    # expected draws to spend the largest budget if no query repeated, with headroom
    mean_cost = float(np.dot(q, costs))
    first = int(min(2 * budgets[-1] / mean_cost + 64, 1 << 22))

    R, B = reps.size, budgets.size
    out = {
        "estimate": np.empty((R, B)), "importance": np.empty((R, B)),
        "n": np.empty((R, B), dtype=np.int64), "spent": np.empty((R, B)),
        "exhausted": np.empty((R, B), dtype=np.bool_), "repetition": reps,
    }
    stamp = np.full(m, -1, dtype=np.int64)
    cdf = query_cdf(q)
    for i, r in enumerate(reps):
        gen = seeds.rng(seed, *stream, int(r))
        u = gen.random(first)
        while True:
            draws = draws_from_cdf(cdf, u)
            done = _run(draws, costs, w, wv, drawable_mean, n_drawable, budgets, stamp, np.int64(i),
                        out["estimate"][i], out["importance"][i], out["n"][i], out["spent"][i], out["exhausted"][i])
            if done:
                break
            # the sequence ran out before the largest budget: continue the same stream
            u = np.concatenate([u, gen.random(u.size)])
            stamp[:] = -1
    return out
