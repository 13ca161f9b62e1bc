"""``evalrank stage`` commands of the model stage (``workflow/rules/models.smk``, and the
training-size models of ``sawade2012.smk``): split a training partition, train, predict the
pool, the model-quality table.

Defaults: see :mod:`evalrank.cli` -- an option carrying a config value is required.
"""

from __future__ import annotations

import json
from pathlib import Path

from evalrank.cli.common import _log, add_command

__all__ = ["TITLE", "add_stage_parsers"]

TITLE = "models (workflow/rules/models.smk)"


def cmd_split(a):
    from evalrank.data.collection import Collection
    from evalrank.models.split import split_training_part

    part = Collection.load(a.partition)
    train, vali = split_training_part(part, train_pairs=a.train_pairs, seed=a.seed)
    train.save(a.train)
    if a.vali:
        vali.save(a.vali)
    _log(f"training part: {train.n_queries} queries / {train.n_docs} pairs; validation: {vali.n_queries} / {vali.n_docs}")



def cmd_train(a):
    from evalrank.papers.common.modelstage import train_file

    train_file(model=a.model, train=a.train, vali=a.vali, grid=json.loads(a.grid) if a.grid else {},
               params_from=a.params_from, n_grades=a.n_grades, seed=a.seed, threads=a.threads, output=a.output,
               tuning=a.tuning, log=_log)


def cmd_predict(a):
    from evalrank.papers.common.modelstage import predict_file

    predict_file(model_file=a.model_file, pool=a.pool, threads=a.threads, output=a.output, log=_log)


def cmd_quality(a):
    from evalrank.papers.common.modelstage import quality_files

    names = a.names or [Path(p).stem for p in a.predictions]
    if len(names) != len(a.predictions):
        raise SystemExit("--names must give one name per --predictions file")
    quality_files(predictions=a.predictions, names=names, table=a.table, figure=a.figure,
                  reliability_dir=a.reliability_dir, k=a.k, ece_bins=a.ece_bins, reliability_bins=a.reliability_bins,
                  max_grade=a.max_grade, seed=a.seed, log=_log)




def add_stage_parsers(sub) -> None:
    s = add_command(sub, "split", cmd_split, "split a training partition into training and validation halves")
    s.add_argument("--partition", required=True, help="the parsed partition S<fold> (.npz)")
    s.add_argument("--train-pairs", type=int, help="pairs of the training half, in whole queries "
                                                  "(models.train_pairs; default: the whole halves)")
    s.add_argument("--seed", type=int, required=True, help="the config's seed")
    s.add_argument("--train", required=True, help="where to write the training half (.npz)")
    s.add_argument("--vali", help="where to write the validation half (.npz; default: not written)")

    s = add_command(sub, "train", cmd_train, "train one model of the zoo, tuned on the validation half")
    s.add_argument("--model", required=True, help="the zoo's name of the learner (models.names)")
    s.add_argument("--train", required=True, help="the training half (.npz)")
    s.add_argument("--vali", required=True, help="the validation half (.npz)")
    s.add_argument("--grid", required=True, help="JSON object: hyperparameter -> list of values (models.grids.<model>; "
                                                 "{} = the learner's defaults, no search)")
    s.add_argument("--params-from", help="a fitted model (a .skops file) whose chosen hyperparameters replace the search: "
                                         "of the same learner, for every --grid key; of another learner (models.params_from), "
                                         "for the keys the grid searches, its one-value keys kept (default: search)")
    s.add_argument("--n-grades", type=int, required=True, help="relevance grades 0..n-1 (dataset.max_grade + 1)")
    s.add_argument("--seed", type=int, required=True, help="the config's seed")
    s.add_argument("--threads", type=int, required=True, help="threads of the fit (models.threads)")
    s.add_argument("--output", required=True, help="the fitted model (a .skops file)")
    s.add_argument("--tuning", help="CSV of the validation grid (default: not written)")

    s = add_command(sub, "predict", cmd_predict, "scores and graded-relevance probabilities over the pool")
    s.add_argument("--model-file", required=True, help="a fitted model (the .skops file of train)")
    s.add_argument("--pool", nargs="+", required=True, help="the pool partitions (.npz), in order")
    s.add_argument("--threads", type=int, required=True, help="threads of the prediction (models.threads)")
    s.add_argument("--output", required=True, help=".npz: scores, probs, labels, offsets, qids")

    s = add_command(sub, "quality", cmd_quality, "model-quality table, reliability diagrams")
    s.add_argument("--predictions", nargs="+", required=True, help="pool predictions (.npz) of predict")
    s.add_argument("--names", nargs="+", help="one model name per --predictions file (default: the file names' stems)")
    s.add_argument("--table", required=True, help="the quality table (CSV)")
    s.add_argument("--figure", help="the quality figure (PNG; default: none)")
    s.add_argument("--reliability-dir", help="folder of one reliability table and diagram per model (default: none)")
    s.add_argument("--k", type=int, required=True, help="cut-off of NDCG@k (quality.k)")
    s.add_argument("--ece-bins", type=int, required=True, help="bins of the expected calibration error "
                                                              "(quality.ece_bins)")
    s.add_argument("--reliability-bins", type=int, required=True, help="bins of the reliability diagrams "
                                                                      "(quality.reliability_bins)")
    s.add_argument("--max-grade", type=int, required=True, help="highest relevance grade (dataset.max_grade)")
    s.add_argument("--seed", type=int, required=True, help="the config's seed (the random baseline's stream)")
