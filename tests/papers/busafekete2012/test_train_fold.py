"""`evalrank stage ndcg-train` with several runs of one fold (the rule's one job per fold,
runs.train_fold): the same bytes as one process per run, and its lists checked."""

from pathlib import Path

import numpy as np
import pytest

from evalrank.cli import main
from evalrank.data.collection import Collection

#: (learner, training convention) of the batched call: a grid search, fixed params, one learner twice
RUNS = [("ranksvm", "ranklib"), ("lambdamart", "letor4"), ("adarank", "yahoo"), ("lambdamart", "ranklib")]
GRIDS = {"ranksvm": {"C": [0.001, 0.1]}, "lambdamart": {}, "adarank": {}}
PARAMS = {"ranksvm": {}, "lambdamart": {"num_leaves": 4, "learning_rate": 0.2}, "adarank": {}}


def _partitions(d: Path) -> list[Path]:
    """Five small LETOR partitions S1..S5: 10 queries of 3-15 documents, random features, grades
    0-2 mostly 0, two queries without a relevant document, so that the conventions' empty- and
    short-query rules give different NDCGs (and so different trained models)."""
    rng = np.random.default_rng(5)
    files = []
    for k in range(1, 6):
        offsets = np.concatenate(([0], np.cumsum(rng.integers(3, 16, 10)))).astype(np.int64)
        labels = (rng.random(offsets[-1]) < 0.25) * rng.integers(1, 3, offsets[-1])
        labels[offsets[0]:offsets[1]] = labels[offsets[3]:offsets[4]] = 0
        c = Collection(features=rng.random((offsets[-1], 6)).astype(np.float32), labels=labels.astype(np.int8),
                       offsets=offsets, qids=np.arange(10, dtype=np.int64) + 100 * k)
        files.append(d / f"S{k}.npz")
        c.save(files[-1])
    return files


def _argv(files, **options):
    from evalrank.cli.common import stage_flags
    import shlex

    return ["stage", "ndcg-train", "--partitions", *map(str, files), "--fold", "3",
            *shlex.split(stage_flags(**options)), "--seed", "11", "--threads", "1"]


def test_batched_runs_write_the_bytes_of_separate_calls(tmp_path):
    import json

    files = _partitions(tmp_path)
    alone, batched = tmp_path / "alone", tmp_path / "batched"
    for learner, conv in RUNS:
        out = alone / learner / conv / "fold3.npz"
        assert main(_argv(files, learner=learner, convention=conv, grid=GRIDS[learner], params=PARAMS[learner],
                          output=[out])) == 0
    outs = [batched / lr / conv / "fold3.npz" for lr, conv in RUNS]
    assert main(_argv(files, learner=[lr for lr, _ in RUNS], convention=[c for _, c in RUNS], grids=GRIDS,
                      learner_params=PARAMS, output=outs)) == 0
    compared = 0
    for learner, conv in RUNS:
        for suffix in (".npz", ".json"):
            a = (alone / learner / conv / "fold3").with_suffix(suffix).read_bytes()
            b = (batched / learner / conv / "fold3").with_suffix(suffix).read_bytes()
            assert a == b, (learner, conv, suffix)
            compared += 1
    assert compared == 2 * len(RUNS)
    # each run got its own convention: lambdamart's letor4 and ranklib models differ on this data (a
    # batch training every run with the first run's settings would fail the comparison above)
    assert not np.array_equal(np.load(outs[1])["scores"], np.load(outs[3])["scores"])
    metas = [json.loads((batched / lr / c / "fold3.json").read_text()) for lr, c in RUNS]
    assert [(m["learner"], m["convention"], m["fold"]) for m in metas] == [(lr, c, 3) for lr, c in RUNS]
    assert metas[0]["best_params"]["C"] in GRIDS["ranksvm"]["C"]


@pytest.mark.parametrize("bad, counts", [
    (dict(learner=["rankboost", "lambdamart"], convention=["ranklib"]), "got 2, 1 and 2"),
    (dict(learner=["rankboost"], convention=["ranklib"], extra_output=True), "got 1, 1 and 2"),
])
def test_mismatched_lists_are_refused_naming_the_options(tmp_path, capsys, bad, counts):
    files = _partitions(tmp_path)
    outs = [tmp_path / f"r{i}.npz" for i in range(len(bad["learner"]) + (1 if bad.get("extra_output") else 0))]
    argv = _argv(files, learner=bad["learner"], convention=bad["convention"], grid={}, params={}, output=outs)
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert f"--learner, --convention and --output must name the same number of runs, {counts}" in err
    assert not any(p.exists() for p in outs)


def test_keyed_grids_must_name_every_learner(tmp_path, capsys):
    files = _partitions(tmp_path)
    out = tmp_path / "r.npz"
    argv = _argv(files, learner=["rankboost", "lambdamart"], convention=["ranklib", "ranklib"],
                 grids={"rankboost": {}}, learner_params={"rankboost": {}, "lambdamart": {}},
                 output=[out, tmp_path / "s.npz"])
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "--grids names no entry for learner(s) ['lambdamart']" in err
    assert not out.exists()
    with pytest.raises(SystemExit):  # one of --grid / --grids, not both (argparse: exit status 2)
        main(_argv(files, learner=["rankboost"], convention=["ranklib"], grid={}, grids={"rankboost": {}},
                   params={}, output=[out]))
    assert "not allowed with argument" in capsys.readouterr().err
