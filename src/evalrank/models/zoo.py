"""The model zoo: names, default grids, saving and loading.

Models of Sawade et al. (2012), Sec. 5: Random Forest regression (``rf``),
MAP Ordered Logit (``ordered_logit``), linear Ranking SVM (``ranksvm``) and
the ordinal-classification Random Forest (``ordinal_rf``); plus LambdaMART
(``lambdamart``) for the later papers. Busa-Fekete et al. (2012) add
AdaRank, Coordinate Ascent, RankNet and RankBoost; Dinçer et al. (2016,
Sec. 6.1) pre-train four baseline learners: LambdaMART, AdaRank, plain
gradient boosted regression trees (``gbrt``, L2 regression on the grades)
and Metzler's (2007) Automatic Feature Selection (``afs``, a greedily grown
linear model).

Grids
-----
:func:`default_grids` are deliberately SMALL: on ~20k training + ~20k
validation pairs with 136 features (synthetic MSLR-like data) all five
models train in about 70 s on two (shared) cores -- rf 19 s, ordinal_rf
24 s, ordered_logit 9-12 s, ranksvm 5 s, lambdamart 12 s (``n_jobs=1``;
about the same with ``n_jobs=2`` while another process held one core). :data:`PAPER_GRIDS` are larger grids for full-size runs;
Sawade et al. do not report their grids, so these are our choice:
more trees and a wider sweep of the capacity parameters.

Model files
-----------
:func:`save_model` writes skops files (a zip of a JSON schema and arrays, not a pickle);
:func:`load_model` reads one as data and refuses, before anything is built, a type that is
neither skops' default (numpy, scipy, scikit-learn estimators) nor the zoo's own
(:func:`trusted_types`), so a hostile file cannot run code when loaded. Scores and
probabilities of a loaded model are bit-identical to the saved one's (``tests/models``).
skops and the learners' libraries are the ``models`` extra (``pip install 'evalrank[models]'``).
"""

from __future__ import annotations

import copy
from pathlib import Path

from collections.abc import Mapping

from evalrank import io
from evalrank.models import RankingModel

__all__ = ["MODELS", "make_model", "default_grids", "PAPER_GRIDS", "save_model", "load_model"]

#: name -> ``"module:class"`` of each model (the names used in configs and result paths); a
#: learner's module is imported when its class is first asked for (:data:`MODELS`), so a stage
#: that trains one learner does not import the others (numba kernels, scipy.special, ...).
_CLASSES = {
    "rf": "evalrank.models.forest:RandomForestModel",
    "ordinal_rf": "evalrank.models.ordinal_forest:OrdinalForestModel",
    "ordered_logit": "evalrank.models.ordered_logit:OrderedLogitModel",
    "ranksvm": "evalrank.models.ranksvm:RankSVMModel",
    "lambdamart": "evalrank.models.lambdamart:LambdaMARTModel",
    # Busa-Fekete et al. (2012), Sec. 4: the LTR zoo of the NDCG-conventions study
    "adarank": "evalrank.models.adarank:AdaRankModel",
    "coordinate_ascent": "evalrank.models.coordinate_ascent:CoordinateAscentModel",
    "ranknet": "evalrank.models.ranknet:RankNetModel",
    "rankboost": "evalrank.models.rankboost:RankBoostModel",
    # Dinçer et al. (2016), Sec. 6.1: the other two of the four pre-trained baseline learners
    "gbrt": "evalrank.models.gbrt:GBRTModel",
    "afs": "evalrank.models.afs:AFSModel",
    # Wang et al. (2013), Sec. 4: the listwise learner of their RankSVM / ListNet / random comparison
    "listnet": "evalrank.models.listnet:ListNetModel",
}


class _Models(Mapping):
    """Read-only ``{name: model class}`` in :data:`_CLASSES`' order; ``MODELS[name]`` imports
    that learner's module only (``list(MODELS)``, ``name in MODELS`` import none)."""

    def __getitem__(self, name: str) -> type[RankingModel]:
        import importlib

        module, attr = _CLASSES[name].split(":")
        return getattr(importlib.import_module(module), attr)

    def __contains__(self, name) -> bool:  # Mapping's would import the class
        return name in _CLASSES

    def __iter__(self):
        return iter(_CLASSES)

    def __len__(self) -> int:
        return len(_CLASSES)

    def __repr__(self) -> str:
        return f"MODELS({list(_CLASSES)})"


#: name -> model class (the names used in configs and result paths), imported on first use.
MODELS: Mapping[str, type[RankingModel]] = _Models()

_DEFAULT_GRIDS = {
    # 100 trees, 10% of the features per split
    "rf": {"min_samples_leaf": [5, 20]},
    # 4 cumulative forests x 30 trees
    "ordinal_rf": {"min_samples_leaf": [5, 20]},
    # mord's alpha multiplies 1/2 |w|^2 against a *sum* of losses over ~20k docs
    "ordered_logit": {"alpha": [10.0, 100.0, 1000.0, 10000.0]},
    # liblinear C against a sum of hinge losses over <= 100k pairs
    "ranksvm": {"C": [1e-5, 1e-4, 1e-3, 1e-2]},
    "lambdamart": {"num_leaves": [15, 63], "learning_rate": [0.05, 0.1]},
    # RankLib's tolerance rule on / off (1.0 = never stop on a training drop)
    "adarank": {"tolerance": [0.002, 1.0]},
    "coordinate_ascent": {"log1p": ["auto", "none"]},
    "ranknet": {"hidden_units": [10, 50]},
    "rankboost": {},  # rounds by early stopping
    "gbrt": {"num_leaves": [15, 63], "learning_rate": [0.05, 0.1]},  # as lambdamart
    # the number of selected features is chosen on validation along the greedy path
    "afs": {"log1p": ["auto", "none"]},
    "listnet": {"l2": [0.0, 1e-3]},  # epochs by early stopping
}

#: Larger grids for full-size runs (set the fixed parameters with make_model,
#: e.g. ``make_model("rf", n_estimators=500)``).
PAPER_GRIDS = {
    # config/paper.yaml says why these grids leave out a leaf of 1, C 0.1 and a learning rate of 0.02
    "rf": {"max_features": [0.05, 0.1, 0.3], "min_samples_leaf": [5, 20, 50]},
    "ordinal_rf": {"max_features": [0.05, 0.1, 0.3], "min_samples_leaf": [5, 20, 50]},
    "ordered_logit": {"alpha": [0.1, 1.0, 10.0, 100.0, 1000.0, 10000.0, 100000.0]},
    "ranksvm": {"C": [1e-6, 1e-5, 1e-4, 1e-3, 1e-2], "max_pairs": [1_000_000]},
    "lambdamart": {"num_leaves": [15, 31, 63, 127], "learning_rate": [0.05, 0.1], "min_data_in_leaf": [20, 100]},
    # Busa-Fekete et al. (2012), Sec. 4: R = 30 restarts x T = 100 iterations; RankNet 1-3 hidden
    # layers of 10-500 units; boosting rounds by early stopping
    "adarank": {"max_rounds": [500], "patience": [100], "tolerance": [0.002, 1.0]},
    "coordinate_ascent": {"n_restarts": [30], "n_iterations": [100]},
    "ranknet": {"hidden_layers": [1, 2, 3], "hidden_units": [10, 100, 500]},
    "rankboost": {"max_rounds": [1000], "n_thresholds": [256]},
    "gbrt": {"num_leaves": [15, 31, 63, 127], "learning_rate": [0.02, 0.05, 0.1], "min_data_in_leaf": [20, 100]},
    # our choice: a longer greedy path (the kept prefix is chosen on validation)
    "afs": {"max_features": [30], "log1p": ["auto", "none"]},
    # our choice: Cao et al. (2007) do not report a grid
    "listnet": {"learning_rate": [0.003, 0.01, 0.03], "l2": [0.0, 1e-4, 1e-3], "log1p": ["auto", "none"]},
}


def default_grids() -> dict[str, dict[str, list]]:
    """A fresh copy of the small default grids, ``{model: {param: [values]}}``."""
    return copy.deepcopy(_DEFAULT_GRIDS)


def make_model(name: str, **params) -> RankingModel:
    """A new, unfitted model by name; ``params`` override constructor defaults."""
    if name not in MODELS:
        raise ValueError(f"name must be one of {sorted(MODELS)}, got {name!r}")
    return MODELS[name](**params)


#: Types of other libraries a model file may hold besides the zoo's classes and what skops
#: trusts by default (numpy, scipy, scikit-learn estimators): the trees of scikit-learn's
#: forests, LightGBM's boosters (read back from their text model) and the OrderedDict in a
#: booster's state.
LIBRARY_TYPES = ("collections.OrderedDict", "lightgbm.basic.Booster", "sklearn.tree._tree.Tree")
#: zlib level of the model files (joblib's compress=3 before skops)
COMPRESS_LEVEL = 3


#: The zoo's own types besides the models that a model file may hold: the linear models'
#: feature transform and the score learners' calibrator (``module.qualname``, as skops names them).
OWN_TYPES = ("evalrank.models.FeatureTransform", "evalrank.models.calibrate.GradeCalibrator")


def trusted_types() -> list[str]:
    """Every type a model file of :func:`save_model` may hold beyond skops' defaults: the zoo's
    models, their feature transform and score calibrator, and :data:`LIBRARY_TYPES`. Named from
    :data:`_CLASSES` and :data:`OWN_TYPES` without importing them (loading one model imports its
    own learner's module only; tests/models/test_model_files.py checks the names against the
    classes)."""
    ours = {spec.replace(":", ".") for spec in _CLASSES.values()} | set(OWN_TYPES)
    return sorted(ours | set(LIBRARY_TYPES))


def _skops(what: str):
    from evalrank.extras import require

    require(what, modules=("skops", "sklearn"))
    import skops.io

    return skops.io


def save_model(model: RankingModel, path) -> None:
    """Write a fitted model as a skops file (a zip of JSON and arrays: loading it runs no code,
    :func:`load_model`), atomically."""
    import zipfile

    if not isinstance(model, RankingModel):
        raise TypeError(f"model must be an evalrank RankingModel, got {type(model).__name__}")
    sio = _skops("saving a model")
    with io.atomic_path(Path(path)) as tmp:
        sio.dump(model, tmp, compression=zipfile.ZIP_DEFLATED, compresslevel=COMPRESS_LEVEL)


def load_model(path) -> RankingModel:
    """Load a model written by :func:`save_model`. The file is read as data: a type outside
    skops' defaults and :func:`trusted_types` is refused before anything is built (no file
    runs code when loaded), and so is a pickle (the joblib files of earlier versions)."""
    import zipfile

    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"model file {path} does not exist")
    sio = _skops(f"loading model file {path}")
    if not zipfile.is_zipfile(path):
        raise ValueError(f"{path} is not a model file of evalrank (a skops archive){_pickle_hint(path)}")
    try:
        found = sio.get_untrusted_types(file=path)
    except Exception as e:  # a damaged archive, or one without skops' schema
        raise ValueError(f"{path} is not a readable skops model file: {type(e).__name__}: {e}") from None
    allowed = trusted_types()
    refused = sorted(set(found) - set(allowed))
    if refused:
        raise ValueError(f"{path}: refused: it holds types that no model of evalrank holds ({', '.join(refused)}); "
                         "only files written by evalrank.models.zoo.save_model are loaded")
    model = sio.load(path, trusted=allowed)
    if not isinstance(model, RankingModel):
        raise TypeError(f"{path} does not hold an evalrank RankingModel (got {type(model).__name__})")
    return model


def _pickle_hint(path: Path) -> str:
    """Why a pickle is refused (it would run its code when loaded)."""
    with open(path, "rb") as fh:
        head = fh.read(2)
    if head[:1] == b"\x80" or head[:1] in (b"x", b"\x1f"):  # pickle protocol 2+, or joblib's zlib/gzip
        return ("; it looks like a pickle (the joblib .pkl files of evalrank before skops), which is never loaded: "
                "loading a pickle runs the file's code. Delete it and train the model again (the pipeline's "
                "train rules write skops files)")
    return ""
