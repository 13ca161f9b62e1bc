"""Click-model relevance -> grade pdf (Ozertem et al. 2011, Sec. 3.3, Figs. 1-5).

The click model gives a relevance ``x`` in [0, 1] for a query-URL pair. On the
*intersection* -- pairs with both an editorial grade and an ``x`` -- the
paper fits

- ``p(x|g)``: a Beta distribution per grade, by maximum likelihood
  (:func:`fit_beta`, Fig. 2);
- ``p(g)``: the grade prior, the histogram of the judged grades, *position
  aware*: for DCG_1 the grades at rank 1, for DCG_5 those in the top 5
  (:func:`grade_prior`, Fig. 3);

and maps any ``x`` to the posterior ``p(g|x) ∝ p(x|g) p(g)`` (Bayes rule,
:func:`posterior`, Figs. 4-5). Grades are column indices of a
:class:`~evalrank.papers.ozertem2011.grades.GradeScale`, lowest first.

Click relevance can be exactly 0 or 1 (a pair never clicked, or always the
last click), where a Beta log-density is infinite; ``x`` is clipped to
``[eps, 1 - eps]`` both when fitting and when evaluating. A grade with fewer
than ``min_samples`` samples gets the fit of all samples pooled (flagged in
:attr:`BetaFits.pooled`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special, stats
from scipy.special import logsumexp

__all__ = ["BetaFits", "fit_beta", "grade_prior", "posterior"]


@dataclass(frozen=True)
class BetaFits:
    """Per-grade Beta fits of ``p(x|g)``: ``params`` (n_grades, 2) = (α, β),
    ``n_samples`` (n_grades,) the samples of each grade, ``pooled``
    (n_grades,) bool: the grade had fewer than ``min_samples`` samples and got
    the fit of all samples pooled."""

    params: np.ndarray
    n_samples: np.ndarray
    pooled: np.ndarray

    @property
    def n_grades(self) -> int:
        return int(self.params.shape[0])


def _check_eps(eps) -> float:
    eps = float(eps)
    if not (0 < eps < 0.5):
        raise ValueError(f"eps: must lie in (0, 0.5), got {eps}")
    return eps


def _check_n_grades(n_grades) -> int:
    if isinstance(n_grades, (bool, np.bool_)) or not isinstance(n_grades, (int, np.integer)):
        raise TypeError(f"n_grades: expected an int, got {type(n_grades).__name__}")
    if n_grades < 1:
        raise ValueError(f"n_grades: must be >= 1, got {n_grades}")
    return int(n_grades)


def _check_x(x, name="x") -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 1:
        raise ValueError(f"{name}: expected a 1-d array, got shape {x.shape}")
    if x.size and (not np.isfinite(x).all() or x.min() < 0 or x.max() > 1):
        raise ValueError(f"{name}: click relevances must be finite and lie in [0, 1]")
    return x


def _check_grades(grades, n, n_grades, name="grades") -> np.ndarray:
    g = np.asarray(grades)
    if g.shape != (n,):
        raise ValueError(f"{name}: expected shape ({n},), got {g.shape}")
    if g.size and not np.issubdtype(g.dtype, np.integer):
        raise TypeError(f"{name}: expected integer grade indices, got dtype {g.dtype}")
    g = g.astype(np.int64)
    if g.size and (g.min() < 0 or g.max() >= n_grades):
        raise ValueError(f"{name}: grade indices must lie in [0, {n_grades - 1}]")
    return g


def _fit(xc: np.ndarray, tol: float = 1e-10, max_iter: int = 200) -> tuple[float, float]:
    """Beta ML fit with loc 0 and scale 1, by Newton's method on the score
    equations ``ψ(α) - ψ(α+β) = mean log x``, ``ψ(β) - ψ(α+β) = mean log(1-x)``.

    The log-likelihood is concave in (α, β) (an exponential family in
    (α-1, β-1)), so Newton from the method-of-moments start, halving steps
    that leave α, β > 0 or lower the likelihood, converges to the unique
    maximum. ``scipy.stats.beta.fit(floc=0, fscale=1)`` solves the same
    equations but gives up ("failed to converge") on samples massed at the
    clipped ends, which sparse click counts produce (x = 0 or 1 after a few
    views); on other samples the two agree (tests/papers/ozertem2011/test_mapping.py)."""
    s1, s2 = np.mean(np.log(xc)), np.mean(np.log1p(-xc))
    m, v = float(np.mean(xc)), float(np.var(xc))
    common = m * (1 - m) / v - 1 if v > 0 else 1.0
    theta = np.array([m, 1 - m]) * max(common, 1e-3)

    def loglik(t):
        return (t[0] - 1) * s1 + (t[1] - 1) * s2 - special.betaln(t[0], t[1])

    ll = loglik(theta)
    for _ in range(max_iter):
        a, b = theta
        dab = special.digamma(a + b)
        grad = np.array([s1 - special.digamma(a) + dab, s2 - special.digamma(b) + dab])
        t_ab = special.polygamma(1, a + b)
        hess = -np.array([[special.polygamma(1, a) - t_ab, -t_ab], [-t_ab, special.polygamma(1, b) - t_ab]])
        step = -np.linalg.solve(hess, grad)
        lam = 1.0
        while lam > 1e-12:
            cand = theta + lam * step
            if cand.min() > 0 and (new_ll := loglik(cand)) >= ll - 1e-15 * abs(ll):
                break
            lam *= 0.5
        else:
            break
        theta, ll = cand, new_ll
        if np.max(np.abs(lam * step) / np.maximum(theta, 1.0)) < tol:
            break
    return float(theta[0]), float(theta[1])


def fit_beta(x, grades, n_grades: int, *, eps: float = 1e-4, min_samples: int = 5) -> BetaFits:
    """Maximum-likelihood Beta fit of ``p(x|g)`` for each grade (Fig. 2).

    ``x`` (n,) click relevances in [0, 1], ``grades`` (n,) grade indices in
    ``[0, n_grades)``. ``x`` is clipped to ``[eps, 1 - eps]`` and each grade's
    samples fitted by ``scipy.stats.beta.fit(.., floc=0, fscale=1)``. A grade
    with fewer than ``min_samples`` samples (or whose samples are all equal
    after clipping, where the likelihood has no maximum) gets the pooled fit
    of all samples and ``pooled[g] = True``. Raises ValueError if fewer than
    ``min_samples`` samples in all, or if all samples are equal."""
    n_grades = _check_n_grades(n_grades)
    eps = _check_eps(eps)
    if isinstance(min_samples, (bool, np.bool_)) or not isinstance(min_samples, (int, np.integer)) \
            or min_samples < 2:
        raise ValueError(f"min_samples: expected an int >= 2, got {min_samples!r}")
    x = _check_x(x)
    g = _check_grades(grades, x.size, n_grades)
    if x.size < min_samples:
        raise ValueError(f"x: {x.size} samples, fewer than min_samples={min_samples}; cannot fit even pooled")
    xc = np.clip(x, eps, 1.0 - eps)
    if np.ptp(xc) == 0:
        raise ValueError("x: all samples are equal (after clipping); a Beta fit needs spread")
    counts = np.bincount(g, minlength=n_grades)
    pooled_fit = _fit(xc)
    params = np.empty((n_grades, 2))
    pooled = np.zeros(n_grades, bool)
    for j in range(n_grades):  # one ML fit per grade (a loop over the few grades)
        xs = xc[g == j]
        if counts[j] < min_samples or np.ptp(xs) == 0:
            params[j], pooled[j] = pooled_fit, True
        else:
            params[j] = _fit(xs)
    return BetaFits(params=params, n_samples=counts, pooled=pooled)


def grade_prior(grades, ranks, depth: int, n_grades: int, pseudo: float = 0.0) -> np.ndarray:
    """Position-aware grade prior ``p(g)`` (Fig. 3): the histogram of the
    judged ``grades`` whose 1-based ``ranks`` are ``<= depth`` (depth 1 for
    DCG_1, 5 for DCG_5), plus ``pseudo`` counts per grade, normalised."""
    n_grades = _check_n_grades(n_grades)
    r = np.asarray(ranks)
    if r.ndim != 1:
        raise ValueError(f"ranks: expected a 1-d array, got shape {r.shape}")
    g = _check_grades(grades, r.size, n_grades)
    if r.size and not np.issubdtype(r.dtype, np.integer):
        raise TypeError(f"ranks: expected integer 1-based ranks, got dtype {r.dtype}")
    if r.size and r.min() < 1:
        raise ValueError(f"ranks: ranks are 1-based, got {r.min()}")
    if isinstance(depth, (bool, np.bool_)) or not isinstance(depth, (int, np.integer)) or depth < 1:
        raise ValueError(f"depth: expected an int >= 1, got {depth!r}")
    pseudo = float(pseudo)
    if not np.isfinite(pseudo) or pseudo < 0:
        raise ValueError(f"pseudo: must be finite and >= 0, got {pseudo}")
    counts = np.bincount(g[r <= depth], minlength=n_grades).astype(np.float64) + pseudo
    total = counts.sum()
    if total <= 0:
        raise ValueError(f"grades: no judged grade at ranks <= {depth} and no pseudo counts; the prior is undefined")
    return counts / total


def posterior(x, fits, prior, eps: float = 1e-4) -> np.ndarray:
    """``p(g|x) ∝ p(x|g) p(g)`` (Bayes rule, Figs. 4-5) for each ``x``.

    ``fits``: a :class:`BetaFits` or an (n_grades, 2) array of (α, β);
    ``prior``: (n_grades,) probabilities (zeros allowed). ``x`` is clipped to
    ``[eps, 1 - eps]`` as in :func:`fit_beta`; the product is normalised in log
    space. Returns (n, n_grades), rows summing to 1."""
    eps = _check_eps(eps)
    params = fits.params if isinstance(fits, BetaFits) else np.asarray(fits, dtype=np.float64)
    if params.ndim != 2 or params.shape[1] != 2:
        raise ValueError(f"fits: expected BetaFits or an (n_grades, 2) array, got shape {params.shape}")
    if not np.isfinite(params).all() or params.min() <= 0:
        raise ValueError("fits: Beta parameters must be finite and > 0")
    p = np.asarray(prior, dtype=np.float64)
    if p.shape != (params.shape[0],):
        raise ValueError(f"prior: expected shape ({params.shape[0]},), got {p.shape}")
    if not np.isfinite(p).all() or p.min() < 0 or abs(p.sum() - 1) > 1e-9:
        raise ValueError("prior: must be a probability vector (finite, >= 0, summing to 1)")
    xc = np.clip(_check_x(x), eps, 1.0 - eps)
    with np.errstate(divide="ignore"):
        logp = stats.beta.logpdf(xc[:, None], params[None, :, 0], params[None, :, 1]) + np.log(p)[None, :]
    return np.exp(logp - logsumexp(logp, axis=1, keepdims=True))
