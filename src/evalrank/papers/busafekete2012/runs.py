"""One run of the study: a learner trained under one NDCG convention on one
fold, scored on the fold's test set (Busa-Fekete et al. 2012, Sec. 5)."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from evalrank import io
from evalrank.data.collection import Collection
from evalrank.metrics.conventions import CONVENTIONS

__all__ = ["train_and_score", "train_fold", "save_run", "load_run", "run_doc_ids"]


def run_doc_ids(test: Collection) -> np.ndarray:
    """Document ids for trec_eval's tie rule: the file's ids when the data
    has them, else the row within the query, zero-padded (so that strcmp
    order is the row order)."""
    from evalrank.metrics.ranking import position_ids

    if test.doc_ids is not None:
        return np.asarray(test.doc_ids).astype(str)
    return position_ids(test.offsets)


def train_and_score(learner: str, convention: str, train: Collection, vali: Collection, test: Collection, *,
                    grid: dict | None, seed: int, n_jobs: int = 1, params: dict | None = None) -> dict:
    """Fit ``learner`` (a :mod:`evalrank.models.zoo` name) with training and
    model-selection convention ``convention`` and score ``test``.

    Returns ``{"scores", "best_params", "fit_seconds", "vali_ndcg10"}``.
    """
    from evalrank.models import zoo

    if convention not in CONVENTIONS:
        raise ValueError(f"convention must be one of {sorted(CONVENTIONS)}, got {convention!r}")
    n_grades = int(max(train.labels.max(), vali.labels.max(), test.labels.max())) + 1
    model = zoo.make_model(learner, n_grades=max(n_grades, 2), convention=convention, **(params or {}))
    t0 = time.perf_counter()
    model.fit(train, vali, grid=grid, seed=seed, n_jobs=n_jobs, calibrate=False)  # scores only: no calibrator
    seconds = time.perf_counter() - t0
    return {
        "scores": model.score(test.features),
        "best_params": model.best_params_,
        "fit_seconds": seconds,
        "vali_ndcg10": model.best_vali_ndcg10_,
    }


def train_fold(partitions, fold: int, runs, *, max_train_queries: int | None, seed: int, n_jobs: int = 1,
               log=None) -> None:
    """Train several runs of one LETOR fold in one process: the partitions are loaded and the
    fold's split (:func:`evalrank.papers.busafekete2012.folds.letor_fold`) is built once, then
    each ``(learner, convention, grid, params, output)`` of ``runs`` is trained in turn
    (:func:`train_and_score`) and saved (:func:`save_run`) before the next starts. Each run is
    what a process training it alone writes, byte for byte: every fit is seeded by ``seed``
    alone (tested).

    ``partitions``: ``{1: S1.npz, ..., 5: S5.npz}`` (a mapping of the LETOR partitions);
    ``log``: a ``str -> None`` callable for one line per run (default: silent).
    """
    from evalrank.papers.busafekete2012.folds import letor_fold

    runs = [tuple(r) for r in runs]
    if not runs:
        raise ValueError("runs must name at least one (learner, convention, grid, params, output)")
    for r in runs:
        if len(r) != 5:
            raise ValueError(f"runs: each item must be (learner, convention, grid, params, output), got {r!r}")
    outputs = [str(r[4]) for r in runs]
    if len(set(outputs)) != len(outputs):
        raise ValueError(f"runs: each output must be a different file, got {outputs}")
    log = log or (lambda msg: None)
    train, vali, test = letor_fold(partitions, fold, max_train_queries=max_train_queries, seed=seed)
    for learner, convention, grid, params, output in runs:
        log(f"{learner} trained with {convention} on fold {fold}: {train.n_queries} train / "
            f"{vali.n_queries} vali / {test.n_queries} test queries")
        result = train_and_score(learner, convention, train, vali, test, grid=grid, params=params, seed=seed,
                                 n_jobs=n_jobs)
        save_run(output, test, result, {"learner": learner, "convention": convention, "fold": fold})
        log(f"{learner}/{convention}: fit {result['fit_seconds']:.1f} s, best {result['best_params']}, "
            f"vali NDCG@10 {result['vali_ndcg10']:.4f} -> {output}")


def save_run(path, test: Collection, result: dict, meta: dict) -> None:
    """Test scores with the test labels and query layout (``.npz``), and the
    run's description next to it (``.json``), both written atomically."""
    path = Path(path)
    io.save_arrays(path, scores=np.asarray(result["scores"], dtype=np.float64), labels=test.labels,
                   offsets=test.offsets, qids=test.qids, doc_ids=run_doc_ids(test))
    info = dict(meta)
    # no timings here: the run files must be identical on every re-run (timings go to the log
    # and to Snakemake's benchmark files)
    info.update(best_params=result["best_params"], vali_ndcg10=result["vali_ndcg10"])
    io.write_json(path.with_suffix(".json"), info)


def load_run(path) -> tuple[dict, dict]:
    """(arrays, meta) of :func:`save_run`."""
    import json

    path = Path(path)
    arrays = io.load_arrays(path)
    meta = json.loads(path.with_suffix(".json").read_text())
    return arrays, meta
