"""The model stage's work as files in, files out (``evalrank stage train`` / ``predict`` / ``quality``;
``workflow/rules/models.smk`` and the training-size models of ``sawade2012.smk``): fit one
learner of the zoo tuned on the validation half, its pool predictions, and the model-quality table with its
reliability diagrams. Every file is written atomically (:mod:`evalrank.io`)."""

from __future__ import annotations

from pathlib import Path

__all__ = ["train_file", "grid_from_tuned", "predict_file", "quality_files"]


def train_file(*, model: str, train, vali, grid: dict, params_from, n_grades: int, seed: int, threads: int, output,
               tuning=None, log=None) -> None:
    """Fit the zoo's learner ``model`` on the training half ``train`` (.npz), tuning the
    hyperparameters of ``grid`` on the validation half ``vali`` -> ``output`` (the fitted model)
    and, with ``tuning``, the validation grid (CSV). ``params_from``: a fitted model of the same
    learner whose chosen values replace the grid (Sawade et al. Fig. 3's larger training sets reuse
    the base size's tuning), or of another learner whose chosen values replace the keys this grid
    searches (:func:`grid_from_tuned`), or None."""
    import time

    import pandas as pd

    from evalrank import io
    from evalrank.data.collection import Collection
    from evalrank.models.zoo import load_model, make_model, save_model

    say = log or (lambda message: None)
    train, vali = Collection.load(train), Collection.load(vali)
    if params_from:
        grid = grid_from_tuned(grid, load_model(params_from), model=model, where=f"--params-from {params_from}")
        say(f"hyperparameters of {params_from}: {grid}")
    fitted = make_model(model, n_grades=n_grades)
    t0 = time.perf_counter()
    fitted.fit(train, vali, grid=grid, seed=seed, n_jobs=threads)
    say(f"trained {model} in {time.perf_counter() - t0:.1f}s; best {fitted.best_params_}")
    save_model(fitted, output)
    if tuning:
        io.write_table(pd.DataFrame(fitted.tuning_), tuning)


def grid_from_tuned(grid: dict, tuned, *, model: str, where: str = "params_from") -> dict:
    """``grid`` with the hyperparameters of the fitted model ``tuned`` in place of a search.

    The same learner as ``model``: every key of ``grid`` takes ``tuned``'s chosen value (Sawade et
    al. Fig. 3's larger training sets reuse the base size's tuning). Another learner (e.g. the
    ordinal forest taking the random forest's tuning, ``models.params_from``): the keys ``grid``
    searches (several values) take ``tuned``'s value and the fixed keys (one value, e.g. the number
    of trees) stay; ``tuned`` must have chosen each searched key (``ValueError`` naming ``where``)."""
    if not isinstance(grid, dict):
        raise TypeError(f"grid must be a dict of parameter -> list of values, got {type(grid).__name__}")
    chosen = getattr(tuned, "best_params_", None)
    if chosen is None:
        raise ValueError(f"{where} holds an unfitted {tuned.name!r} model: no tuned hyperparameters to take")
    from evalrank.models import searched_keys

    keys = list(grid) if tuned.name == model else searched_keys(grid)
    missing = [k for k in keys if k not in chosen]
    if missing:
        raise ValueError(f"{where} holds a {tuned.name!r} model, which has no hyperparameter {', '.join(missing)} "
                         f"that {model}'s grid searches; take the tuning of a learner that has "
                         f"{'it' if len(missing) == 1 else 'them'}")
    return {**grid, **{k: [chosen[k]] for k in keys}}


def predict_file(*, model_file, pool, threads: int, output, log=None) -> None:
    """Scores and graded-relevance probabilities of the fitted model ``model_file`` over the pool
    partitions ``pool`` (.npz, in order; one pass over the trees) -> ``output`` (.npz: scores, probs,
    labels, offsets, qids), with the job's ``threads``, not the training job's."""
    import numpy as np

    from evalrank import io
    from evalrank.data.collection import Collection
    from evalrank.models import check_n_jobs
    from evalrank.models.zoo import load_model

    model = load_model(model_file)
    model.n_jobs = check_n_jobs(threads)
    pool = Collection.concat([Collection.load(p) for p in pool])
    scores, probs = model.score_and_proba(pool.features)
    io.save_arrays(output, scores=np.asarray(scores, dtype=np.float64), probs=np.asarray(probs, dtype=np.float64),
                   labels=pool.labels, offsets=pool.offsets, qids=pool.qids)
    if log is not None:
        log(f"predicted {pool.n_docs} pool documents of {pool.n_queries} queries")


def quality_files(*, predictions, names, table, figure, reliability_dir, k: int, ece_bins: int,
                  reliability_bins: int, max_grade: int, seed: int, log=None) -> None:
    """The model-quality table (:func:`evalrank.models.quality.quality_row` of every model's pool
    predictions, ``names`` one per file, and a random ranker's row from the seed's stream) ->
    ``table`` (CSV), ``figure`` (PNG, or None) and, with ``reliability_dir``, one reliability table
    and diagram per model."""
    import pandas as pd

    from evalrank import io
    from evalrank.models.quality import quality_row, random_baseline, reliability
    from evalrank.papers.common.plots.models import plot_quality, plot_reliability

    rows = []
    base = None
    for name, path in zip(names, predictions):
        p = io.load_arrays(path)
        row = quality_row(p["scores"], p["probs"], p["labels"], p["offsets"], max_grade=max_grade, k=k,
                          ece_bins=ece_bins)
        rows.append({"model": name, **row})
        if base is None:
            base = random_baseline(p["labels"], p["offsets"], seed=seed, k=k, max_grade=max_grade)
        if reliability_dir:
            rel = reliability(p["probs"], p["labels"], n_bins=reliability_bins)
            out = Path(reliability_dir)
            io.write_table(rel, out / f"{name}.csv")
            plot_reliability(rel, out / f"{name}.png", title=f"Reliability: {name}")
    rows.append({"model": "random", **base})
    frame = pd.DataFrame(rows)
    io.write_table(frame, table)
    if figure:
        plot_quality(frame, figure)
    if log is not None:
        log("model quality:\n" + frame.to_string(index=False))
