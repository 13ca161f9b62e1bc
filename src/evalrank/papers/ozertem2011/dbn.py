"""The Chapelle-Zhang DBN click model: sampling, the simplified DBN, EM.

Ozertem, Jones & Dumoulin (WWW 2011), Sec. 2 and 2.1, estimate the relevance
of a query-URL pair from clicks with the dynamic Bayesian network of Chapelle &
Zhang ("A dynamic Bayesian network click model for web search ranking",
WWW 2009). A user scans a result list u_1..u_m top-down::

    E_1 = 1
    A_r ~ Bernoulli(a[u_r])                  attractiveness
    C_r = E_r * A_r                          click
    S_r ~ Bernoulli(s[u_r]) if C_r else 0    satisfaction
    E_{r+1} = E_r * (1 - S_r) * Bernoulli(gamma)

and nothing happens after the list's end. The relevance of a pair is a * s.

- :func:`sample_sessions` draws click bitmasks from the model.
- :func:`simplified_dbn` is the paper's eq. 1: ranks up to the last click are
  examined, the rest are not (footnote 2); a = clicks / views,
  s = last clicks / clicks.
- :func:`fit_dbn` fits a, s (and optionally gamma) by EM.
- :func:`log_likelihood` is the exact marginal log-likelihood of a log.

**The E-step in closed form.** With the clicks of a session observed and the
last click at rank l, every rank <= l was examined, clicks before l were not
satisfying and the user continued after every rank < l. Only S_l and the
examination after l are latent. With Z_r = P(no click at ranks r..m | E_r = 1),
Z_{m+1} = 1, Z_r = (1 - a_r)(1 - gamma + gamma Z_{r+1}):

    P(S_l = 1 | clicks)     = s_l / D,   D = s_l + (1 - s_l)(1 - gamma + gamma Z_{l+1})
    P(E_{l+1} = 1 | clicks) = (1 - s_l) gamma Z_{l+1} / D           (E_1 = 1 if l = 0)
    P(E_{r+1} = 1 | clicks) = P(E_r = 1 | clicks) * (1 - a_r) gamma Z_{r+1} / Z_r    (r > l)
    P(A_r = 1 | clicks)     = P(E_r = 0 | clicks) * a_r                          (r > l)

and the likelihood is prod_{r<l} [a_r (1 - s_r) if clicked else 1 - a_r] *
gamma^(l-1) * a_l * D (l >= 1), or Z_1 (l = 0). These posteriors depend on a
session only through its serp and l, so :func:`fit_dbn` pools the log once
into session counts per (serp, last-click rank) and clicks per (serp, rank)
and runs every EM iteration on those tables: an iteration costs
O(serps x depth), whatever the number of sessions or distinct rows.

**The M-step** with Beta pseudo-counts ``prior = (alpha, beta)``:
a = (clicks + alpha) / (expected examinations + alpha + beta) -- the clicks
are observed, only the examinations are expected counts (A_r only matters
when E_r = 1, so this is EM with the examinations as the missing data; its
fixed points are those of the variant that also imputes A on unexamined
ranks, which converges more slowly); s = (expected satisfied clicks + alpha)
/ (clicks + alpha + beta); gamma (when estimated) = expected continuations /
expected chances to continue (examined, unsatisfied ranks above the list's
last rank). Each EM step does not decrease the log-posterior
``log L + sum over pairs of alpha log a + beta log(1 - a) + alpha log s + beta
log(1 - s)`` (tracked in ``DBNFit.log_posterior``); with ``prior = (0, 0)``
that is the log-likelihood itself (tracked in ``DBNFit.log_likelihood`` in
every case).

**Acceleration.** Plain EM crawls here: most sessions end without a click or
after one, so where users stopped looking is largely missing, and a pair's
attractiveness trades off against the attractiveness and satisfaction of the
pairs above it along flat ridges of the likelihood (hundreds of iterations
per digit on a Zipf-like log). :func:`fit_dbn` therefore runs SQUAREM
(Varadhan & Roland, Scand. J. Statist. 2008, scheme SqS3) by default: two EM
steps, an extrapolation along them (clipped to [0, 1]), one EM step from the
extrapolated point, which is kept only if its log-posterior beats that of the
first EM step (else the second EM step is kept), so the accepted points never
lose log-posterior. Its fixed points are EM's.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from evalrank.papers.ozertem2011.logs import _CHUNK, SessionLog, check_serps
from evalrank.progress import progress

__all__ = ["sample_sessions", "SimplifiedDBN", "simplified_dbn", "DBNFit", "fit_dbn", "log_likelihood"]



# ---------------------------------------------------------------- validation

def _probabilities(x, name: str, n: int | None = None) -> np.ndarray:
    x = np.asarray(x)
    if x.ndim != 1 or not (np.issubdtype(x.dtype, np.floating) or np.issubdtype(x.dtype, np.integer)) \
            or x.dtype == bool:
        raise TypeError(f"{name}: expected a 1-D array of probabilities, got dtype {x.dtype}, shape {x.shape}")
    x = x.astype(np.float64)
    if n is not None and x.size != n:
        raise ValueError(f"{name}: expected {n} values (one per pair), got {x.size}")
    if x.size and not (np.all(np.isfinite(x)) and x.min() >= 0 and x.max() <= 1):
        raise ValueError(f"{name}: probabilities must lie in [0, 1]")
    return x


def _gamma(gamma, name: str = "gamma") -> float:
    if isinstance(gamma, bool) or not isinstance(gamma, numbers.Real):
        raise TypeError(f"{name}: expected a number in [0, 1], got {gamma!r}")
    g = float(gamma)
    if not 0.0 <= g <= 1.0:
        raise ValueError(f"{name}: must lie in [0, 1], got {g}")
    return g


def _int(x, name: str, low: int) -> int:
    if isinstance(x, bool) or not isinstance(x, numbers.Integral):
        raise TypeError(f"{name}: expected an integer, got {x!r}")
    if x < low:
        raise ValueError(f"{name}: must be >= {low}, got {x}")
    return int(x)


def _check_log(log, n_pairs) -> int:
    if not isinstance(log, SessionLog):
        raise TypeError(f"log: expected a SessionLog, got {type(log).__name__}")
    n_pairs = _int(n_pairs, "n_pairs", 0)
    if log.serps.size and log.serps.max() >= n_pairs:
        raise ValueError(f"n_pairs: the log shows pair id {int(log.serps.max())}, but n_pairs is {n_pairs}")
    return n_pairs


def _safe_div(num, den):
    out = np.zeros(np.broadcast(num, den).shape)
    np.divide(num, den, out=out, where=den > 0)
    return out


def _xlog(c, p):
    """c * log(p) with 0 * log(0) = 0 (and -inf where c > 0 = p)."""
    c, p = np.broadcast_arrays(np.asarray(c, dtype=np.float64), np.asarray(p, dtype=np.float64))
    out = np.zeros(c.shape)
    pos = c != 0
    with np.errstate(divide="ignore"):
        np.log(p, out=out, where=pos)
    return np.multiply(c, out, out=out, where=pos)


# ---------------------------------------------------------------- sampling

def sample_sessions(serps, row_serp, attract, satisfy, gamma, rng) -> np.ndarray:
    """Draw one session per entry of ``row_serp`` from the DBN.

    serps: (n_serps, depth) int pair ids, ``-1`` past the list's end.
    row_serp: (n_sessions,) the serp each session sees.
    attract, satisfy: (n_pairs,) per-pair probabilities a and s in [0, 1].
    gamma: continuation probability in [0, 1].
    rng: a ``numpy.random.Generator``.

    Returns (n_sessions,) uint32 click bitmasks (bit r = a click at rank r + 1).
    Vectorized over sessions with a loop over ranks; only sessions still
    examining draw random numbers.
    """
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng: expected a numpy.random.Generator, got {type(rng).__name__}")
    a = _probabilities(attract, "attract")
    s = _probabilities(satisfy, "satisfy", a.size)
    g = _gamma(gamma)
    serps = check_serps(serps, a.size)
    row_serp = np.asarray(row_serp)
    if row_serp.ndim != 1 or not np.issubdtype(row_serp.dtype, np.integer):
        raise TypeError("row_serp: expected a 1-D integer array of serp indices")
    n_serps, depth = serps.shape
    if row_serp.size and (row_serp.min() < 0 or row_serp.max() >= n_serps):
        raise ValueError(f"row_serp: serp indices must lie in [0, {n_serps - 1}]")
    out = np.zeros(row_serp.size, dtype=np.uint32)
    for lo in range(0, row_serp.size, _CHUNK):
        rs = row_serp[lo:lo + _CHUNK].astype(np.int64)
        idx = np.arange(rs.size)                        # sessions still examining, within the chunk
        clicks = np.zeros(rs.size, dtype=np.uint32)
        for r in range(depth):
            pair = serps[rs[idx], r]
            shown = pair >= 0
            idx, pair = idx[shown], pair[shown]
            if idx.size == 0:
                break
            click = rng.random(idx.size) < a[pair]
            clicks[idx[click]] |= np.uint32(1 << r)
            satisfied = np.zeros(idx.size, dtype=bool)
            satisfied[click] = rng.random(int(click.sum())) < s[pair[click]]
            idx = idx[~satisfied]
            idx = idx[rng.random(idx.size) < g]
        out[lo:lo + rs.size] = clicks
    return out


# ---------------------------------------------------------------- pooled statistics

@dataclass(frozen=True)
class _Pooled:
    """Sufficient statistics of a log (every count session-weighted): sessions
    per (serp, last-click rank), clicks per (serp, rank), and the per-pair
    counts that enter the likelihood with known exponents."""

    serps: np.ndarray       # (n_serps, depth) pair ids, -1 past the end
    valid: np.ndarray       # (n_serps, depth) bool, rank shown
    last: np.ndarray        # (n_serps, depth + 1) sessions with last click at l (0 = no click)
    clicks: np.ndarray      # (n_serps, depth) sessions clicking rank r
    at_last: np.ndarray     # (n_serps, depth) sessions whose last click is at rank r
    after: np.ndarray       # (n_serps, depth) sessions whose last click is below rank r
    pair_clicks: np.ndarray     # (n_pairs,) clicks
    pair_not_last: np.ndarray   # (n_pairs,) clicks that were not a session's last (S = 0 observed)
    pair_skips: np.ndarray      # (n_pairs,) unclicked ranks above a session's last click (A = 0 observed)
    continued: float            # continuations observed (ranks above a session's last click)
    n_sessions: int

    @property
    def depth(self) -> int:
        return int(self.serps.shape[1])

    @property
    def sessions(self) -> np.ndarray:
        """(n_serps,) sessions per serp."""
        return self.last.sum(axis=1)


def _pool(log: SessionLog, n_pairs: int) -> _Pooled:
    n_serps = log.serps.shape[0]
    last, clicks = log.serp_counts()
    tail = np.cumsum(last[:, ::-1], axis=1)[:, ::-1]      # tail[:, l] = sessions with last click >= l
    after = np.concatenate([tail[:, 2:], np.zeros((n_serps, 1))], axis=1)
    at_last = last[:, 1:]
    valid = log.serps >= 0
    ids = log.serps[valid]

    def per_pair(x):
        return np.bincount(ids, weights=x[valid], minlength=n_pairs)

    not_last = clicks - at_last
    return _Pooled(log.serps, valid, last, clicks, at_last, after, per_pair(clicks), per_pair(not_last),
                   per_pair(after - not_last), float(after.sum()), int(log.counts.sum()))


def _scatter(pooled: _Pooled, values: np.ndarray, n_pairs: int) -> np.ndarray:
    """Sum per-(serp, rank) values onto their pairs."""
    v = pooled.valid
    return np.bincount(pooled.serps[v], weights=values[v], minlength=n_pairs)


# ---------------------------------------------------------------- E-step

def _examination_tail(A: np.ndarray, valid: np.ndarray, gamma: float) -> np.ndarray:
    """Z (n, depth + 1): Z[:, j] = P(no click at ranks j..m | E_j = 1), 1 at
    and past the list's end (0-based ranks)."""
    n, depth = A.shape
    Z = np.ones((n, depth + 1))
    for j in range(depth - 1, -1, -1):
        Z[:, j] = np.where(valid[:, j], (1 - A[:, j]) * (1 - gamma + gamma * Z[:, j + 1]), 1.0)
    return Z


def _expected(pooled: _Pooled, attract: np.ndarray, satisfy: np.ndarray, gamma: float) -> dict:
    """Pooled E-step: expected counts per (serp, rank) and the log-likelihood.

    Returns ``examined`` (E[#E_r = 1]), ``satisfied`` (E[#S_r = 1]),
    ``cont`` (E[#E_{r+1} = 1], ranks above the last shown one),
    ``chances`` (E[#(E_r = 1, S_r = 0)], same ranks) and ``loglik``.
    """
    P, valid = pooled.serps, pooled.valid
    pair = np.where(valid, P, 0)
    A = np.where(valid, attract[pair], 0.0)
    S = np.where(valid, satisfy[pair], 0.0)
    Z = _examination_tail(A, valid, gamma)
    at_last, after = pooled.at_last, pooled.after
    stay = 1 - gamma + gamma * Z[:, 1:]                   # P(no more clicks after r | not satisfied at r)
    D = S + (1 - S) * stay                                # P(no click after a last click at r | C_r = 1)
    q = _safe_div(S, D)                                   # P(S_r = 1 | last click at r)
    go = _safe_div((1 - S) * gamma * Z[:, 1:], D)         # P(E_{r+1} = 1 | last click at r)
    t = _safe_div(gamma * Z[:, 1:], stay)                 # P(E_{r+1} = 1 | E_r = 1, no click at r..)
    n, depth = A.shape
    F = np.zeros((n, depth))                              # examined mass of sessions with no click at >= r
    f = pooled.last[:, 0].astype(np.float64)
    for j in range(depth):
        F[:, j] = np.where(valid[:, j], f, 0.0)
        f = F[:, j] * t[:, j] + at_last[:, j] * go[:, j]
    above_end = np.zeros_like(valid)
    above_end[:, :-1] = valid[:, 1:]                      # a rank with a shown rank below it
    examined = np.where(valid, after + at_last + F, 0.0)
    satisfied = at_last * q
    cont = np.where(above_end, after + at_last * go + F * t, 0.0)
    chances = np.where(above_end, after + at_last * (1 - q) + F, 0.0)
    ll = (_xlog(pooled.pair_clicks, attract) + _xlog(pooled.pair_not_last, 1 - satisfy)
          + _xlog(pooled.pair_skips, 1 - attract)).sum()
    ll += _xlog(at_last, D).sum() + float(_xlog(pooled.continued, gamma)) + _xlog(pooled.last[:, 0], Z[:, 0]).sum()
    return {"examined": examined, "satisfied": satisfied, "cont": cont, "chances": chances,
            "loglik": float(ll)}


def _posteriors(log: SessionLog, attract, satisfy, gamma: float) -> dict:
    """Per-row posteriors of the closed-form E-step (module docstring), for
    checks against brute force; :func:`fit_dbn` uses the pooled form.

    Returns (n_rows, depth) arrays ``E`` = P(E_r = 1 | clicks), ``A`` =
    P(A_r = 1 | clicks), ``S`` = P(S_r = 1 | clicks), ``cont`` = P(E_{r+1} = 1
    | clicks) (0 at the list's last rank), and ``loglik`` (n_rows,) log P(clicks).
    Zero past the list's end.
    """
    a = np.asarray(attract, dtype=np.float64)
    s = np.asarray(satisfy, dtype=np.float64)
    P = log.serps[log.row_serp]
    valid = P >= 0
    pair = np.where(valid, P, 0)
    A, S = np.where(valid, a[pair], 0.0), np.where(valid, s[pair], 0.0)
    C = log.click_matrix()
    l = log.last_clicks()
    Z = _examination_tail(A, valid, gamma)
    n, depth = A.shape
    out = {k: np.zeros((n, depth)) for k in ("E", "A", "S", "cont")}
    ll = np.where(l == 0, np.log(np.maximum(Z[:, 0], 1e-300)), 0.0)
    ll[(l == 0) & (Z[:, 0] == 0)] = -np.inf
    cur = np.ones(n)                                       # P(E_j = 1 | clicks) for j >= l
    with np.errstate(divide="ignore"):
        for j in range(depth):
            v = valid[:, j]
            before, at = j < l - 1, j == l - 1
            stay = 1 - gamma + gamma * Z[:, j + 1]
            D = S[:, j] + (1 - S[:, j]) * stay
            e = np.where(j < l, 1.0, cur) * v
            out["E"][:, j] = e
            out["A"][:, j] = np.where(j < l, C[:, j], (1 - e) * A[:, j]) * v
            out["S"][:, j] = np.where(at, _safe_div(S[:, j], D), 0.0)
            cur = np.where(before, 1.0, np.where(at, _safe_div((1 - S[:, j]) * gamma * Z[:, j + 1], D),
                                                 e * _safe_div(gamma * Z[:, j + 1], stay)))
            below = valid[:, j + 1] if j + 1 < depth else np.zeros(n, dtype=bool)
            out["cont"][:, j] = np.where(below, cur, 0.0)
            ll += np.where(before, np.where(C[:, j], np.log(A[:, j]) + np.log(1 - S[:, j]), np.log(1 - A[:, j]))
                           + np.log(gamma), 0.0)
            ll += np.where(at, np.log(A[:, j]) + np.log(D), 0.0)
    out["loglik"] = ll
    return out


# ---------------------------------------------------------------- simplified DBN

@dataclass(frozen=True)
class SimplifiedDBN:
    """The simplified DBN of eq. 1 (per-pair arrays, session-weighted).

    views: sessions in which the pair was at or above the last click.
    clicks, last_clicks: sessions clicking the pair / with their last click on it.
    attract = clicks / views (0 without views); satisfy = last_clicks / clicks
    (0 without clicks); relevance = attract * satisfy; reliable = views >= min_views.
    """

    views: np.ndarray
    clicks: np.ndarray
    last_clicks: np.ndarray
    attract: np.ndarray
    satisfy: np.ndarray
    relevance: np.ndarray
    reliable: np.ndarray


def _simplified(pooled: _Pooled, n_pairs: int, min_views: int) -> SimplifiedDBN:
    at_last = pooled.at_last
    viewed = pooled.after + at_last                       # last click at or below the rank
    views = np.rint(_scatter(pooled, viewed, n_pairs)).astype(np.int64)
    clicks = np.rint(_scatter(pooled, pooled.clicks, n_pairs)).astype(np.int64)
    last = np.rint(_scatter(pooled, at_last, n_pairs)).astype(np.int64)
    a = _safe_div(clicks.astype(np.float64), views)
    s = _safe_div(last.astype(np.float64), clicks)
    return SimplifiedDBN(views, clicks, last, a, s, a * s, views >= min_views)


def simplified_dbn(log: SessionLog, n_pairs: int, min_views: int = 10) -> SimplifiedDBN:
    """The paper's simplified DBN (eq. 1 with footnote 2).

    In a session whose last click is at rank l, ranks 1..l count as viewed
    (a session without clicks views nothing), every clicked rank counts a
    click and rank l a last click; counts are weighted by ``log.counts`` and
    summed over every serp and rank where a pair appears. Pairs with
    ``views >= min_views`` are ``reliable`` (paper: 10).
    """
    n_pairs = _check_log(log, n_pairs)
    min_views = _int(min_views, "min_views", 0)
    return _simplified(_pool(log, n_pairs), n_pairs, min_views)


# ---------------------------------------------------------------- full DBN by EM

@dataclass(frozen=True)
class DBNFit:
    """The DBN fitted by EM (:func:`fit_dbn`).

    attract, satisfy, relevance (= attract * satisfy): per pair.
    impressions: sessions that showed the pair.
    examinations: expected examinations of the pair at the fitted parameters.
    views, reliable: simplified-DBN views (eq. 1) and ``views >= min_views``.
    gamma: the continuation probability (fixed or estimated).
    n_iter: iterations run (a SQUAREM cycle or a plain EM step each);
    e_steps: E-steps run after the starting point (3 per SQUAREM cycle, 1 per
    plain EM step); converged: whether the relative gain of the log-posterior
    over an iteration fell to ``tol`` within ``max_iter`` iterations.
    log_likelihood, log_posterior: (n_iter + 1,) values at the starting point
    and after every iteration. The log-posterior (log-likelihood plus the Beta
    pseudo-count terms) never decreases; with ``prior = (0, 0)`` the two agree.
    """

    attract: np.ndarray
    satisfy: np.ndarray
    relevance: np.ndarray
    impressions: np.ndarray
    examinations: np.ndarray
    views: np.ndarray
    reliable: np.ndarray
    gamma: float
    n_iter: int
    e_steps: int
    log_likelihood: np.ndarray
    log_posterior: np.ndarray
    converged: bool


def _prior(prior) -> tuple[float, float]:
    try:
        al, be = prior
        al, be = float(al), float(be)
    except (TypeError, ValueError):
        raise TypeError(f"prior: expected two Beta pseudo-counts (alpha, beta), got {prior!r}") from None
    if not (np.isfinite(al) and np.isfinite(be) and al >= 0 and be >= 0):
        raise ValueError(f"prior: pseudo-counts must be finite and >= 0, got {prior!r}")
    return al, be


def _log_prior(a, s, al, be) -> float:
    return float(_xlog(al, a).sum() + _xlog(be, 1 - a).sum() + _xlog(al, s).sum() + _xlog(be, 1 - s).sum())


def _fit_args(gamma, prior, max_iter, tol, min_views, accelerate, progress_desc):
    """:func:`fit_dbn`'s arguments checked: (gamma, alpha, beta, max_iter, min_views)."""
    if gamma is not None:
        gamma = _gamma(gamma)
    al, be = _prior(prior)
    max_iter = _int(max_iter, "max_iter", 1)
    if isinstance(tol, bool) or not isinstance(tol, numbers.Real) or not (tol >= 0 and np.isfinite(tol)):
        raise ValueError(f"tol: must be a finite number >= 0, got {tol!r}")
    min_views = _int(min_views, "min_views", 0)
    if not isinstance(accelerate, (bool, np.bool_)):
        raise TypeError(f"accelerate: expected True or False, got {accelerate!r}")
    if progress_desc is not None and not isinstance(progress_desc, str):
        raise TypeError(f"progress_desc: expected a string or None, got {progress_desc!r}")
    return gamma, al, be, max_iter, min_views


class _EM:
    """EM of :func:`fit_dbn` on a pooled log: the parameter vector theta = (a, s[, gamma]), the
    E-step (expected examinations and satisfactions, log-posterior) and the M-step (Beta pseudo-counts
    ``al``, ``be`` added; gamma re-estimated when ``gamma`` is None)."""

    def __init__(self, pooled: _Pooled, n_pairs: int, clicks, gamma, al: float, be: float):
        self.pooled, self.n_pairs, self.clicks = pooled, n_pairs, clicks
        self.gamma, self.fit_gamma, self.al, self.be = gamma, gamma is None, al, be

    def pack(self, a, s, g):
        return np.concatenate([a, s, [g] if self.fit_gamma else []])

    def unpack(self, theta):
        n = self.n_pairs
        return theta[:n], theta[n:2 * n], float(theta[-1]) if self.fit_gamma else self.gamma

    def e_step(self, theta):
        a, s, g = self.unpack(theta)
        ex = _expected(self.pooled, a, s, g)
        ex["log_posterior"] = ex["loglik"] + _log_prior(a, s, self.al, self.be)
        return ex

    def m_step(self, theta, ex):
        a, s, g = self.unpack(theta)
        al, be, clicks, n_pairs = self.al, self.be, self.clicks, self.n_pairs
        den = _scatter(self.pooled, ex["examined"], n_pairs) + al + be
        a = np.where(den > 0, _safe_div(clicks + al, den), a)
        den = clicks + al + be
        s = np.where(den > 0, _safe_div(_scatter(self.pooled, ex["satisfied"], n_pairs) + al, den), s)
        if self.fit_gamma:
            chances = ex["chances"].sum()
            if chances > 0:
                g = min(1.0, max(0.0, float(ex["cont"].sum() / chances)))
        return self.pack(a, s, g)

    def squarem(self, theta, ex, new):
        """SQUAREM (Varadhan & Roland 2008, SqS3): two EM steps, an extrapolation along them, one EM
        step from there -- kept only if the extrapolated point beats the first EM step, so the
        sequence of accepted points never loses log-posterior. ``new``: the first EM step from theta."""
        ex1 = self.e_step(new)
        second = self.m_step(new, ex1)
        r = new - theta
        v = second - new - r
        nv = float(np.linalg.norm(v))
        alpha = min(-float(np.linalg.norm(r)) / nv, -1.0) if nv > 0 else -1.0
        point = theta - 2 * alpha * r + alpha ** 2 * v
        np.clip(point, 0.0, 1.0, out=point)
        exp_ = self.e_step(point)
        return self.m_step(point, exp_) if exp_["log_posterior"] >= ex1["log_posterior"] else second


def fit_dbn(log: SessionLog, n_pairs: int, *, gamma: float | None = 0.9, prior: tuple[float, float] = (1.0, 1.0),
            max_iter: int = 200, tol: float = 1e-8, min_views: int = 10, accelerate: bool = True,
            progress_desc: str | None = None) -> DBNFit:
    """Fit the Chapelle-Zhang DBN by EM (E- and M-step: module docstring).

    gamma: the continuation probability, or None to estimate one global gamma.
    prior: Beta pseudo-counts (alpha, beta) added in every M-step of a and s;
        (0, 0) gives maximum likelihood.
    max_iter, tol: stop after ``max_iter`` iterations (an accelerated
        iteration is a SQUAREM cycle of 3 E-steps) or once an iteration raises
        the log-posterior by at most ``tol * |log-posterior|``.
    min_views: simplified-DBN views (eq. 1) that make a pair ``reliable``.
    accelerate: SQUAREM cycles (module docstring); False runs plain EM.
    progress_desc: show a progress bar with this label (None: no bar).

    Starts from the simplified DBN with add-one smoothing
    (a = (clicks + 1) / (views + 2), s = (last clicks + 1) / (clicks + 2)) and
    gamma = 0.5 when estimated. The log is pooled once (module docstring), so
    aggregated and raw logs give the same fit and an iteration costs
    O(serps x depth).
    """
    n_pairs = _check_log(log, n_pairs)
    gamma, al, be, max_iter, min_views = _fit_args(gamma, prior, max_iter, tol, min_views, accelerate, progress_desc)
    pooled = _pool(log, n_pairs)
    simp = _simplified(pooled, n_pairs, min_views)
    clicks = simp.clicks.astype(np.float64)
    impressions = np.rint(_scatter(pooled, np.broadcast_to(pooled.sessions[:, None], pooled.valid.shape),
                                   n_pairs)).astype(np.int64)
    em = _EM(pooled, n_pairs, clicks, gamma, al, be)
    theta = em.pack((clicks + 1) / (simp.views + 2), (simp.last_clicks + 1) / (clicks + 2), 0.5)
    ex = em.e_step(theta)
    lls, lps = [ex["loglik"]], [ex["log_posterior"]]
    converged = False
    n_iter = e_steps = 0
    bar = progress(total=max_iter, desc=progress_desc, unit="iter") if progress_desc is not None else None
    try:
        while n_iter < max_iter:
            new = em.m_step(theta, ex)
            if accelerate:
                new, steps = em.squarem(theta, ex, new), 3
            else:
                steps = 1
            theta, ex = new, em.e_step(new)
            n_iter += 1
            e_steps += steps
            lls.append(ex["loglik"])
            lps.append(ex["log_posterior"])
            if bar is not None:
                bar.update(1)
            if lps[-1] - lps[-2] <= tol * abs(lps[-1]):
                converged = True
                break
    finally:
        if bar is not None:
            bar.close()
    a, s, g = em.unpack(theta)
    return DBNFit(a, s, a * s, impressions, _scatter(pooled, ex["examined"], n_pairs), simp.views, simp.reliable,
                  float(g), n_iter, e_steps, np.asarray(lls), np.asarray(lps), converged)


def log_likelihood(log: SessionLog, attract, satisfy, gamma: float) -> float:
    """Exact marginal log-likelihood of the log's clicks under the DBN with
    per-pair ``attract``, ``satisfy`` and ``gamma`` (session-weighted sum;
    -inf when some observed click pattern is impossible)."""
    if not isinstance(log, SessionLog):
        raise TypeError(f"log: expected a SessionLog, got {type(log).__name__}")
    a = _probabilities(attract, "attract")
    if log.serps.size and log.serps.max() >= a.size:
        raise ValueError(f"attract: the log shows pair id {int(log.serps.max())}, but only {a.size} values are given")
    s = _probabilities(satisfy, "satisfy", a.size)
    return _expected(_pool(log, a.size), a, s, _gamma(gamma))["loglik"]
