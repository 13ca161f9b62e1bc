"""A synthetic MSLR-WEB30K-like collection, deterministic from the config seed.

The real MSLR data cannot be downloaded everywhere, so the default dataset is
generated. It imitates MSLR where the experiments can tell the difference:

* 136 features laid out as in MSLR (1-based ids): 1-5 covered query terms,
  6-10 covered-term ratio, 11-15 stream length, 16-20 IDF (constant within a
  query), 21-95 term-frequency statistics (sum/min/max/mean/variance of TF,
  length-normalised TF and TF*IDF), 96-100 boolean model, 101-105 vector
  space model, 106-110 BM25, 111-125 language-model scores (ABS, DIR, JM;
  negative), 126-127 URL slashes / length, 128-129 in/outlinks, 130-131
  PageRank / SiteRank, 132-133 quality scores, 134-136 click counts and dwell
  time. Each group is computed for the streams body, anchor, title, url and
  whole document (in that order).
* Stream lengths (ids 11-15, columns 10-14) are heavy-tailed non-negative
  integers, body dominates, anchor is often 0 and the whole document is the
  sum of the four streams: the active-evaluation labelling cost of a query is
  ``sum_docs log(1 + length)``.
* Heavy-tailed documents per query (lognormal, mean ``mean_docs``, median
  lower, tail up to ``max_docs`` = 1251) plus a share of small queries, so a
  few percent of queries have under 10 documents.
* Grades 0-4 with MSLR-like marginals, produced per query: a latent relevance
  ``z = a_q + s(doc) + noise`` with a per-query offset ``a_q``, so some
  queries have many relevant documents and some none; a share
  ``p_no_relevant`` of queries has no relevant document at all.
* Learnable, but not linearly: each query has an intent (informational,
  navigational, broad) that is visible only through query-level features
  (IDF, number of query terms) and decides which document properties matter
  (content match ``tc``, name/URL match ``tn``, quality ``u``, document
  length with an inverted-U effect) and what makes a "perfect" document (an
  AND of several properties); spam pages look topical but are useless.
  Features see these latents through shared, heavy-tailed (Student t)
  observation noise; clicks follow the production ranker (position bias)
  more than relevance, and outlinks / QualityScore2 are pure noise. Defaults
  are calibrated so that a random forest trained on ~20,000 query-document
  pairs of one partition reaches mean NDCG@10 ~0.45-0.47 on other
  partitions, a linear model ~0.38-0.39 and a random ranking ~0.20.

Everything is vectorised over documents (no Python loop per query or per
document). Partition ``k`` uses the random stream
``seeds.rng(seed, "synthetic", k)``; query ids are ``k * 10**6 + i``.
"""

from __future__ import annotations

import functools
from types import SimpleNamespace
from pathlib import Path

import numpy as np
from scipy.special import expit

from evalrank import seeds
from evalrank.config import schema_default
from evalrank.data.collection import Collection, segment_ids

__all__ = [
    "generate",
    "synthesize",
    "partition_query_sizes",
    "FEATURE_NAMES",
    "STREAMS",
    "LENGTH_COLUMNS",
    "WHOLE_LENGTH_COLUMN",
    "DEFAULT_GRADE_MARGINALS",
    "N_PARTITIONS",
    "SCHEMA_DEFAULTS",
]

STREAMS = ("body", "anchor", "title", "url", "whole")
#: 0-based columns of the stream-length features (MSLR ids 11-15).
LENGTH_COLUMNS = (10, 11, 12, 13, 14)
#: 0-based column of the whole-document length (MSLR id 15).
WHOLE_LENGTH_COLUMN = 14
#: Target share of grades 0..4 (MSLR-WEB30K is roughly 52/32/13/2/1 %).
DEFAULT_GRADE_MARGINALS = (0.52, 0.32, 0.13, 0.02, 0.01)
N_PARTITIONS = 5
_MSLR_N_FEATURES = 136
_MAX_TERMS = 5
_SMALL_MAX = 40  # small queries have 1..40 documents
_INT_CLIP = float(2**24)  # float32 holds every integer below this exactly

_GROUPS = (
    "covered_query_term_number",
    "covered_query_term_ratio",
    "stream_length",
    "idf",
    "sum_tf",
    "min_tf",
    "max_tf",
    "mean_tf",
    "variance_tf",
    "sum_normalized_tf",
    "min_normalized_tf",
    "max_normalized_tf",
    "mean_normalized_tf",
    "variance_normalized_tf",
    "sum_tfidf",
    "min_tfidf",
    "max_tfidf",
    "mean_tfidf",
    "variance_tfidf",
    "boolean_model",
    "vector_space_model",
    "bm25",
    "lmir_abs",
    "lmir_dir",
    "lmir_jm",
)
#: Names of MSLR's 136 features in column order (id = column + 1).
FEATURE_NAMES: tuple[str, ...] = tuple(f"{g}_{s}" for g in _GROUPS for s in STREAMS) + (
    "url_slash_count",
    "url_length",
    "inlink_count",
    "outlink_count",
    "pagerank",
    "siterank",
    "quality_score",
    "quality_score2",
    "query_url_click_count",
    "url_click_count",
    "url_dwell_time",
)
assert len(FEATURE_NAMES) == _MSLR_N_FEATURES


# ---------------------------------------------------------------------------
# model parameters (calibrated for the NDCG targets above; the quality check
# is tests/data/test_synthetic.py::test_forest_learns_a_good_but_imperfect_ranker)
# ---------------------------------------------------------------------------
_LOG_BODY_MEAN = 6.3  # median body length ~ 545 terms
_LOG_BODY_SD = 1.1
_LENGTH_PENALTY = 0.8
_INTENT_SHARES = (0.45, 0.30, 0.25)  # informational, navigational, broad queries
_SPAM_LOGIT = -2.2  # ~12% spam pages
_SPAM_PENALTY = 3.0
_PERFECT_BONUS = 4.0
_NOISE_DF = 2.5  # Student-t observation noise: outliers, as raw web features have
_SIGMA_DOCS = 0.65  # log-sd of the documents per query (the lognormal part)

#: The generator's settings a config may set, with the config schema's defaults (read from
#: ``schemas/config.schema.yaml`` once, here; the keyword defaults below are these):
#: ``dataset.n_features`` and ``dataset.synthetic`` without ``queries_per_partition``.
SCHEMA_DEFAULTS: dict = {"n_features": schema_default("dataset.n_features"),
                         **{k: v for k, v in schema_default("dataset.synthetic").items()
                            if k != "queries_per_partition"}}
_D = SCHEMA_DEFAULTS


def _query_sizes(rng, n_queries, mean_docs, sigma_docs, p_small, max_docs):
    """Documents per query: a share ``p_small`` of small queries (log-uniform
    on 1..40), the rest lognormal with log-sd ``sigma_docs`` scaled so the
    overall mean is about ``mean_docs``, clipped to ``[1, max_docs]``."""
    small = rng.random(n_queries) < p_small
    small_sizes = np.floor(np.exp(rng.uniform(0.0, np.log(_SMALL_MAX + 1.0), size=n_queries)))
    small_mean = _SMALL_MAX / np.log(_SMALL_MAX + 1.0) - 0.5
    mean_main = max((mean_docs - p_small * small_mean) / (1.0 - p_small), 1.0)
    mu = np.log(mean_main) - 0.5 * sigma_docs**2
    main = np.rint(np.exp(rng.normal(mu, sigma_docs, size=n_queries)))
    sizes = np.where(small, np.minimum(small_sizes, max_docs), np.clip(main, 1, max_docs))
    return sizes.astype(np.int64)


def partition_query_sizes(n_queries: int, *, seed: int, partition: int, mean_docs: float = _D["mean_docs"],
                          sigma_docs: float = _SIGMA_DOCS, p_small: float = _D["p_small"],
                          max_docs: int = _D["max_docs"]) -> np.ndarray:
    """Documents per query of partition ``partition`` exactly as :func:`generate` makes
    them, without generating anything else (the sizes are the first draws of the
    partition's stream)."""
    return _query_sizes(seeds.rng(seed, "synthetic", int(partition)), int(n_queries), mean_docs, sigma_docs,
                        p_small, max_docs)


def _latent_docs(rng, intent):
    """Latent properties of documents and their true utility.

    ``intent`` is the intent of each document's query: 0 informational,
    1 navigational, 2 broad. Informational queries want on-topic content
    ``tc`` in a long (but not too long) document, and quality ``u`` only
    helps on-topic documents; navigational ones want the right name/URL
    ``tn`` and above all the official site (right name, authoritative, short
    page); broad queries want authoritative pages ``u`` on the topic. The same
    features thus pull in different directions for different queries. Spam
    pages (more likely when ``u`` is low) are useless however well they match
    (their text features are stuffed with query terms, see :func:`generate`).
    """
    n = len(intent)
    tc = rng.standard_normal(n)
    tn = rng.standard_normal(n)
    u = rng.standard_normal(n)
    log_body = rng.normal(_LOG_BODY_MEAN, _LOG_BODY_SD, n)
    spam = rng.random(n) < expit(_SPAM_LOGIT - 0.4 * u)
    lz = (log_body - _LOG_BODY_MEAN) / _LOG_BODY_SD
    # every intent has its "perfect" documents, which need several things at
    # once (an AND that a linear model cannot express)
    informational = (
        tc
        + 0.25 * np.maximum(tc, 0.0) ** 2
        - _LENGTH_PENALTY * (lz - 0.7) ** 2
        + _PERFECT_BONUS * expit(4.0 * (tc - 1.0)) * expit(3.0 * u)
    )
    navigational = (
        tn
        + 0.3 * u
        + 0.2 * tc
        - _LENGTH_PENALTY * (lz + 1.0) ** 2
        + _PERFECT_BONUS * expit(4.0 * (tn - 1.2)) * expit(4.0 * (u - 0.3)) * expit(-2.0 * lz)  # official site
    )
    broad = (
        0.5 * tc
        + 0.2 * tn
        + 0.5 * u
        - _LENGTH_PENALTY * lz**2
        + _PERFECT_BONUS * expit(4.0 * (u - 1.0)) * expit(3.0 * tc)  # authoritative hub
    )
    utility = np.choose(intent, [informational, navigational, broad]) - _SPAM_PENALTY * spam
    return tc, tn, u, log_body, spam, utility


def _intents(rng, n):
    return np.searchsorted(np.cumsum(_INTENT_SHARES)[:-1], rng.random(n), side="right")


@functools.lru_cache(maxsize=8)
def _z_sample(query_sd: float, label_noise: float) -> np.ndarray:
    """A fixed Monte Carlo sample of the latent ``z`` of a document (the same
    for every config seed and partition)."""
    rng = seeds.rng(0, "synthetic", "grade-thresholds")
    n = 400_000
    utility = _latent_docs(rng, _intents(rng, n))[-1]
    z = rng.normal(0.0, query_sd, n) + utility + label_noise * rng.standard_normal(n)
    z.setflags(write=False)
    return z


def _grade_thresholds(marginals: tuple, query_sd: float, label_noise: float, forced_share: float) -> np.ndarray:
    """Cut points of the latent ``z`` that give the target grade marginals
    once a share ``forced_share`` of the documents (those of the queries
    forced to have no relevant document) has been set to grade 0."""
    m = np.asarray(marginals, dtype=np.float64)
    target = m.copy()
    f = min(max(forced_share, 0.0), 0.5)
    target[1:] = m[1:] / (1.0 - f)
    target[0] = 1.0 - target[1:].sum()
    if target[0] <= 0:
        raise ValueError("grade_marginals leave no room for grade 0 after p_no_relevant")
    return np.quantile(_z_sample(query_sd, label_noise), np.cumsum(target)[:-1])


def _noise(rng, n):
    """Unit-scale observation noise; heavy-tailed (Student t) if ``_NOISE_DF``."""
    if _NOISE_DF is None:
        return rng.standard_normal(n)
    return rng.standard_t(_NOISE_DF, n) * np.sqrt((_NOISE_DF - 2.0) / _NOISE_DF)


def _int(x):
    return np.clip(np.rint(x), 0, _INT_CLIP)


def _stats(x, mask, n):
    """sum, min, max, mean, population variance of ``x`` (n_docs, T) over the
    first ``n`` (masked) terms of each document."""
    xm = np.where(mask, x, 0.0)
    s = xm.sum(axis=1)
    mn = np.where(mask, x, np.inf).min(axis=1)
    mx = np.where(mask, x, -np.inf).max(axis=1)
    mean = s / n
    var = (np.where(mask, x - mean[:, None], 0.0) ** 2).sum(axis=1) / n
    return s, mn, mx, mean, var


def generate(
    n_queries: int,
    *,
    seed: int,
    partition: int = 1,
    n_features: int = _D["n_features"],
    mean_docs: float = _D["mean_docs"],
    sigma_docs: float = _SIGMA_DOCS,
    p_small: float = _D["p_small"],
    max_docs: int = _D["max_docs"],
    grade_marginals=_D["grade_marginals"],
    p_no_relevant: float = _D["p_no_relevant"],
    query_sd: float = 1.2,
    label_noise: float = 1.6,
    text_noise: float = 1.5,
    quality_noise: float = 1.5,
    click_noise: float = 5.0,
    feature_norm: str = _D["feature_norm"],
    _latents: bool = False,
) -> Collection:
    """One MSLR-like query partition.

    Parameters
    ----------
    n_queries : number of queries.
    seed : config seed; the stream is ``seeds.rng(seed, "synthetic", partition)``.
    partition : partition number (MSLR's S1..S5 are 1..5); qids are
        ``partition * 10**6 + i`` so they are unique across partitions.
    (Keyword defaults: the config schema's, :data:`SCHEMA_DEFAULTS`.)
    n_features : 136 gives MSLR's layout; fewer keeps the first
        ``n_features`` columns (at least 15, so the length features stay);
        more appends pure-noise columns.
    mean_docs, sigma_docs, p_small, max_docs : documents per query: a share
        ``p_small`` of queries has 1..40 documents (log-uniform, so about
        60% of them fewer than 10), the rest ``round(lognormal)`` with log-sd
        ``sigma_docs`` clipped to ``[1, max_docs]``, scaled so the overall
        mean is about ``mean_docs``.
    grade_marginals : target share of grades 0..max_grade over documents;
        None = MSLR-WEB30K's (:data:`DEFAULT_GRADE_MARGINALS`).
    p_no_relevant : share of queries without any relevant document (grade >= 1).
    query_sd : sd of the per-query offset of latent relevance (how much the
        number of relevant documents varies between queries).
    label_noise, text_noise, quality_noise, click_noise : noise of the grades
        given the true utility, and of the text-match, quality and click
        features given the latent document properties. Larger = harder.
    feature_norm : ``"none"`` (raw values, as MSLR) or ``"query"``: every feature
        min-max scaled to [0, 1] within each query (0 where constant), as the
        LETOR 4.0 files (MQ2007/MQ2008 ``QueryLevelNorm``) are distributed; the
        stream lengths are then no longer lengths.
    _latents : diagnostics only: also return a dict of the latent per-document
        quantities (utility, z, tc, tn, u, spam, intent, log_body).
    """
    n_queries = int(n_queries)
    marginals = _checked_marginals(n_queries, partition, n_features, grade_marginals, p_no_relevant, mean_docs,
                                   max_docs, feature_norm)
    rng = seeds.rng(seed, "synthetic", int(partition))
    offsets, q = _queries(rng, n_queries, mean_docs, sigma_docs, p_small, max_docs, query_sd)
    qi = segment_ids(offsets)
    d = _documents(rng, q, qi, label_noise, text_noise, quality_noise, click_noise)
    labels = _grades(rng, d.z, qi, n_queries, marginals, float(query_sd), float(label_noise), p_no_relevant)
    X = _features(rng, q, d, qi, offsets, n_features, feature_norm)
    qids = int(partition) * 10**6 + np.arange(n_queries, dtype=np.int64)
    collection = Collection(features=np.ascontiguousarray(X), labels=labels, offsets=offsets, qids=qids)
    if _latents:
        return collection, dict(utility=d.s, z=d.z, tc=d.tc, tn=d.tn, u=d.u, spam=d.spam, intent=q.intent[qi],
                                log_body=d.log_body)
    return collection


def _checked_marginals(n_queries, partition, n_features, grade_marginals, p_no_relevant, mean_docs, max_docs,
                       feature_norm) -> tuple:
    """:func:`generate`'s argument checks; the grade marginals as a tuple of floats."""
    if not 1 <= n_queries < 10**6:
        raise ValueError(f"n_queries must be in 1..999999 (qids are partition * 10**6 + i), got {n_queries}")
    if isinstance(partition, bool) or not isinstance(partition, (int, np.integer)) or partition < 0:
        raise ValueError(f"partition must be a non-negative int, got {partition!r}")
    if n_features < 15:
        raise ValueError(f"n_features must be >= 15 (length features are ids 11-15), got {n_features}")
    marginals = tuple(float(x) for x in (DEFAULT_GRADE_MARGINALS if grade_marginals is None else grade_marginals))
    if len(marginals) < 2 or min(marginals) < 0 or abs(sum(marginals) - 1.0) > 1e-6:
        raise ValueError(f"grade_marginals must be >= 2 non-negative shares summing to 1, got {grade_marginals}")
    if not 0.0 <= p_no_relevant < 1.0:
        raise ValueError(f"p_no_relevant must be in [0, 1), got {p_no_relevant}")
    if mean_docs < 1 or max_docs < 1:
        raise ValueError("mean_docs and max_docs must be >= 1")
    if feature_norm not in ("none", "query"):
        raise ValueError(f"feature_norm must be 'none' or 'query', got {feature_norm!r}")
    return marginals


def _queries(rng, n_queries, mean_docs, sigma_docs, p_small, max_docs, query_sd):
    """The first draws of a partition's stream: documents per query (as offsets) and
    the per-query latents (intent, query terms and their IDF, relevance offset ...)."""
    sizes = _query_sizes(rng, n_queries, mean_docs, sigma_docs, p_small, max_docs)
    offsets = np.zeros(n_queries + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    # query intent: navigational queries (a site or a name) are short and made
    # of rare terms, broad ones short and made of common terms
    intent_q = _intents(rng, n_queries)
    n_terms_q = np.choose(
        intent_q,
        [
            2 + rng.binomial(_MAX_TERMS - 2, 0.35, size=n_queries),
            1 + rng.binomial(1, 0.4, size=n_queries),
            1 + rng.binomial(1, 0.3, size=n_queries),
        ],
    )  # 1..5 query terms
    idf_q = rng.gamma(2.0, 1.5, size=(n_queries, _MAX_TERMS))  # per query term
    idf_q = np.choose(intent_q[:, None], [idf_q + 0.2, idf_q + 3.2, 0.3 * idf_q + 0.2])
    idf_stream_q = rng.lognormal(0.0, 0.15, size=(n_queries, 5))  # per-stream IDF variation
    a_q = rng.normal(0.0, query_sd, size=n_queries)  # per-query offset of relevance
    clarity_q = rng.uniform(0.6, 1.4, size=n_queries)  # how well text match reflects topicality
    volume_q = rng.normal(0.0, 1.2, size=n_queries)  # log query popularity (clicks)
    return offsets, SimpleNamespace(intent=intent_q, n_terms=n_terms_q, idf=idf_q, idf_stream=idf_stream_q,
                                    a=a_q, clarity=clarity_q, volume=volume_q)


def _documents(rng, q, qi, label_noise, text_noise, quality_noise, click_noise):
    """Latent document properties (:func:`_latent_docs`), the latent relevance ``z`` and
    what the features see of them: text match ``t_obs``, quality ``u_obs``, clicks ``s_click``."""
    n = len(qi)
    tc, tn, u, log_body, spam, s = _latent_docs(rng, q.intent[qi])
    z = q.a[qi] + s + label_noise * rng.standard_normal(n)
    # what the text features see: content streams (body, anchor) mostly tc,
    # name streams (title, url) mostly tn, each through shared noise
    # (rescaled to unit variance so that the noise parameters change how
    # informative the features are, not their distribution)
    tscale = 1.0 / np.sqrt(1.0 + text_noise**2)
    tc_obs = tscale * (q.clarity[qi] * tc + text_noise * _noise(rng, n))
    tn_obs = tscale * (tn + text_noise * _noise(rng, n))
    t_obs = np.stack([tc_obs + 0.2 * tn_obs, tc_obs + 0.4 * tn_obs, tn_obs + 0.3 * tc_obs, tn_obs + 0.2 * tc_obs], axis=1)
    t_obs += np.multiply.outer(spam, np.array([2.0, 0.0, 0.3, 0.3]))  # spam is stuffed with query terms
    u_obs = (u + quality_noise * rng.standard_normal(n)) / np.sqrt(1.0 + quality_noise**2)
    # clicks follow the production ranker's text-based order (position bias)
    # more than the true utility
    s_click = (0.5 * s + 0.5 * t_obs.mean(axis=1) + click_noise * rng.standard_normal(n)) / np.sqrt(1.0 + click_noise**2)
    return SimpleNamespace(tc=tc, tn=tn, u=u, log_body=log_body, spam=spam, s=s, z=z, t_obs=t_obs, u_obs=u_obs,
                           s_click=s_click)


def _grades(rng, z, qi, n_queries, marginals, query_sd, label_noise, p_no_relevant):
    """Grades from the latent ``z`` by cut points with the target marginals.

    Queries without a relevant document: some arise naturally (small
    queries, low offsets); a random share p_extra of the others is forced
    to all-zero grades so that the total share is ~p_no_relevant. The cut
    points compensate for the documents the forced queries take from
    grades >= 1."""
    cuts = _grade_thresholds(marginals, query_sd, label_noise, 0.0)
    has_rel = np.bincount(qi, weights=z > cuts[0], minlength=n_queries) > 0
    natural_empty = 1.0 - has_rel.mean()
    p_extra = max(0.0, (p_no_relevant - natural_empty) / max(1.0 - natural_empty, 1e-12))
    cuts = _grade_thresholds(marginals, query_sd, label_noise, p_extra)
    labels = np.searchsorted(cuts, z).astype(np.int8)
    forced = rng.random(n_queries) < p_extra
    labels[forced[qi]] = 0
    return labels


def _features(rng, q, d, qi, offsets, n_features, feature_norm):
    """The (n_docs, n_features) float32 feature matrix, MSLR's columns in MSLR's order."""
    n = len(qi)
    lengths = _stream_lengths(rng, n, d.log_body, d.u_obs, d.spam)  # (n, 4)
    whole = lengths.sum(axis=1)
    n_terms = q.n_terms[qi]
    mask = np.arange(_MAX_TERMS)[None, :] < n_terms[:, None]  # (n, T)
    idf = q.idf[qi]  # (n, T)
    tf = _term_frequencies(rng, lengths, d.t_obs, d.spam, mask, idf)
    all_lengths = np.concatenate([lengths, whole[:, None]], axis=1)  # (n, 5)
    t_vsm = np.concatenate([d.t_obs, d.t_obs.mean(axis=1, keepdims=True)], axis=1)
    X = np.zeros((n, max(n_features, _MSLR_N_FEATURES)), dtype=np.float32)
    _text_features(rng, X, tf, all_lengths, mask, idf, n_terms, t_vsm, q.idf_stream[qi])
    _web_features(rng, X, d.u_obs, d.spam, lengths[:, 3], d.s_click, q.volume[qi])
    if n_features > _MSLR_N_FEATURES:
        extra = n_features - _MSLR_N_FEATURES
        X[:, _MSLR_N_FEATURES:] = rng.standard_normal((n, extra)).astype(np.float32)
    X = X[:, :n_features]
    if feature_norm == "query":
        X = _query_level_norm(X, offsets)
    # six decimals at most, as in the MSLR files (so write_letor is exact)
    for j in range(n_features):
        X[:, j] = np.round(X[:, j].astype(np.float64), 6)
    return X


def _stream_lengths(rng, n, log_body, u_obs, spam):
    """Lengths of the body, anchor, title and url streams (MSLR ids 11-14), (n, 4)."""
    body = _int(np.exp(log_body)) * (rng.random(n) >= 0.01)  # ~1% documents without body
    anchor = _int(np.exp(rng.normal(2.3 + 0.3 * u_obs, 1.4))) * (rng.random(n) >= expit(-0.2 - 0.5 * u_obs + 2.0 * spam))
    title = _int(rng.poisson(np.exp(rng.normal(1.9, 0.4, n)))) * (rng.random(n) >= 0.02)
    url = 1.0 + rng.poisson(np.exp(rng.normal(1.5 - 0.2 * u_obs, 0.35)))
    return np.stack([body, anchor, title, url], axis=1)


def _term_frequencies(rng, lengths, t_obs, spam, mask, idf):
    """Term matches per document, query term and stream (n, T, 5); stream 4 is the whole document."""
    n = len(lengths)
    idf_c = idf - 3.2
    match_bias = (0.8, -0.6, -0.2, -0.8)
    match_slope = (1.6, 1.3, 1.5, 1.2)
    tf_rate = (0.012, 0.12, 0.25, 0.2)
    tf = np.zeros((n, _MAX_TERMS, 5))
    for k in range(4):
        lk = lengths[:, k]
        p = expit(match_bias[k] + match_slope[k] * t_obs[:, k, None] - 0.25 * idf_c + 0.3 * np.log1p(lk)[:, None] - 1.5)
        covered = (rng.random((n, _MAX_TERMS)) < p) & mask & (lk[:, None] > 0)
        lam = tf_rate[k] * (1.0 + 5.0 * spam)[:, None] * lk[:, None] * np.exp(1.0 * t_obs[:, k, None] + 0.2 * rng.standard_normal((n, _MAX_TERMS)))
        tf[:, :, k] = np.where(covered, np.minimum(1.0 + rng.poisson(np.minimum(lam, 0.2 * lk[:, None])), lk[:, None]), 0.0)
    tf[:, :, 4] = tf[:, :, :4].sum(axis=2)
    return tf


def _text_features(rng, X, tf, all_lengths, mask, idf, n_terms, t_vsm, idf_stream):
    """Columns 0-124 of ``X`` (MSLR ids 1-125), per stream: coverage, lengths, IDF, TF
    statistics, boolean and vector space models, BM25, language models."""
    n = len(X)
    nt = n_terms.astype(np.float64)
    k1, b = 1.2, 0.75
    avg_len = np.array([np.exp(_LOG_BODY_MEAN + 0.5 * _LOG_BODY_SD**2), 20.0, 7.0, 5.5, 0.0])
    avg_len[4] = avg_len[:4].sum()
    p_coll = np.exp(-idf)  # collection probability of each query term
    for k in range(5):
        tfk = tf[:, :, k]
        L = all_lengths[:, k]
        covered = (tfk > 0) & mask
        cov = covered.sum(axis=1)
        X[:, 0 + k] = cov
        X[:, 5 + k] = cov / nt
        X[:, 10 + k] = L
        X[:, 15 + k] = (np.where(mask, idf, 0.0).sum(axis=1) / nt * idf_stream[:, k]).round(4)
        for g, arr in enumerate(_stats(tfk, mask, nt)):
            X[:, 20 + 5 * g + k] = arr
        ntf = tfk / np.maximum(L, 1.0)[:, None]
        for g, arr in enumerate(_stats(ntf, mask, nt)):
            X[:, 45 + 5 * g + k] = arr
        tfidf = tfk * idf
        for g, arr in enumerate(_stats(tfidf, mask, nt)):
            X[:, 70 + 5 * g + k] = arr
        X[:, 95 + k] = (cov == n_terms) & (L > 0)
        # vector space model: a (semantic) similarity score, the cleanest view of the match
        X[:, 100 + k] = (L > 0) * expit(1.2 * t_vsm[:, k] - 0.5 + 0.15 * rng.standard_normal(n))
        bm25 = idf * tfk * (k1 + 1) / (tfk + k1 * (1 - b + b * L[:, None] / avg_len[k]))
        X[:, 105 + k] = np.where(mask, bm25, 0.0).sum(axis=1)
        Lp = np.maximum(L, 1.0)[:, None]
        uniq = np.minimum(Lp, Lp**0.8 + 1.0)
        lm_abs = np.log(np.maximum(tfk - 0.7, 0.0) / Lp + 0.7 * uniq / Lp * p_coll)
        lm_dir = np.log((tfk + 2000.0 * p_coll) / (Lp + 2000.0))
        lm_jm = np.log(0.9 * tfk / Lp + 0.1 * p_coll)
        X[:, 110 + k] = np.where(mask, lm_abs, 0.0).sum(axis=1)
        X[:, 115 + k] = np.where(mask, lm_dir, 0.0).sum(axis=1)
        X[:, 120 + k] = np.where(mask, lm_jm, 0.0).sum(axis=1)


def _web_features(rng, X, u_obs, spam, url, s_click, vol):
    """Link, quality and click features: columns 125-135 of ``X`` (MSLR ids 126-136)."""
    n = len(X)
    slashes = rng.poisson(np.exp(0.9 - 0.15 * u_obs + 0.8 * spam))
    X[:, 125] = slashes
    X[:, 126] = _int(12.0 + 5.0 * url + 2.0 * slashes + rng.poisson(6.0, n))
    X[:, 127] = _int(np.exp(rng.normal(1.5 + 1.2 * u_obs, 1.3))) * (rng.random(n) >= expit(-0.3 - 1.0 * u_obs))
    X[:, 128] = _int(np.exp(rng.normal(3.0, 1.0, n)))  # outlinks: noise
    X[:, 129] = _int(np.exp(rng.normal(7.0 + 0.8 * u_obs, 1.0)))
    X[:, 130] = _int(np.exp(rng.normal(5.0 + 0.6 * u_obs, 1.2)))
    X[:, 131] = np.clip(np.rint(rng.normal(40.0 + 8.0 * u_obs, 20.0)), 0, 255)
    X[:, 132] = np.clip(np.rint(rng.normal(50.0, 20.0, n)), 0, 255)  # noise
    clicked = rng.random(n) < expit(-2.5 + 0.5 * vol + 1.0 * s_click)
    X[:, 133] = clicked * _int(1.0 + rng.poisson(np.minimum(np.exp(0.8 + 0.6 * vol + 0.5 * s_click + 0.5 * rng.standard_normal(n)), 1e7)))
    url_clicks = _int(np.exp(rng.normal(2.0 + 0.8 * u_obs, 1.5))) * (rng.random(n) >= expit(0.3 - 0.8 * u_obs))
    X[:, 134] = url_clicks
    dwell = rng.gamma(2.0, np.exp(3.0 + 0.4 * s_click) / 2.0)
    X[:, 135] = np.where((url_clicks > 0) | (X[:, 133] > 0), np.round(dwell, 2), 0.0)


def _query_level_norm(X: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Min-max scale every column to [0, 1] within each query (0 where constant)."""
    starts = offsets[:-1]
    nonempty = np.diff(offsets) > 0
    seg = segment_ids(offsets)
    lo = np.zeros((len(starts), X.shape[1]), dtype=np.float64)
    hi = np.zeros_like(lo)
    lo[nonempty] = np.minimum.reduceat(X, starts[nonempty], axis=0)
    hi[nonempty] = np.maximum.reduceat(X, starts[nonempty], axis=0)
    span = (hi - lo)[seg]
    out = np.divide(X - lo[seg], span, out=np.zeros(X.shape), where=span > 0)
    return out.astype(np.float32)


def synthesize(out_dir, *, n_queries_per_partition: int, seed: int, layout: str = "mslr", threads: int | None = None,
               **gen_kwargs) -> list[Path]:
    """Generate partitions S1..S5 and write them in MSLR's layout under ``out_dir``.

    ``layout="mslr"``: ``out_dir/Fold{f}/{train,vali,test}.txt`` follow MSLR's
    rotation (:data:`evalrank.data.datasets.FOLD_ROTATION`): Fold1 trains on
    S1,S2,S3, validates on S4 and tests on S5, and so on, so every partition is
    written five times. ``layout="partitions"``: only the ``test.txt`` files,
    which hold each partition exactly once (what the workflow reads:
    :func:`evalrank.data.datasets.partition_file`); a fifth of the bytes, and one
    partition in memory at a time. ``threads``: of :func:`~evalrank.data.letor.write_letor`.
    Returns the paths written.
    """
    from evalrank.data.datasets import FOLD_ROTATION, fold_file
    from evalrank.data.letor import write_letor
    from evalrank.progress import progress

    if layout not in ("mslr", "partitions"):
        raise ValueError(f"layout must be 'mslr' or 'partitions', got {layout!r}")
    out_dir = Path(out_dir)
    written = []
    if layout == "partitions":
        test_fold = {splits["test"][0]: fold for fold, splits in FOLD_ROTATION.items()}
        for k in progress(range(1, N_PARTITIONS + 1), desc="synthetic: generate + write", unit="partition"):
            path = fold_file(out_dir, test_fold[k], "test")
            write_letor(path, generate(n_queries_per_partition, seed=seed, partition=k, **gen_kwargs), threads=threads)
            written.append(path)
        return written
    parts = {
        k: generate(n_queries_per_partition, seed=seed, partition=k, **gen_kwargs)
        for k in progress(range(1, N_PARTITIONS + 1), desc="synthetic: generate", unit="partition")
    }
    jobs = [(fold, split, members) for fold, splits in FOLD_ROTATION.items() for split, members in splits.items()]
    for fold, split, members in progress(jobs, desc="synthetic: write", unit="file"):
        collection = parts[members[0]] if len(members) == 1 else Collection.concat(parts[m] for m in members)
        path = fold_file(out_dir, fold, split)
        write_letor(path, collection, threads=threads)
        written.append(path)
    return written
