"""The ``risk`` section against the rest of the config: what the schema cannot say
(:func:`evalrank.config.validate_config` calls :func:`config_problems`)."""

from __future__ import annotations

from evalrank.config import fold_is_trained

__all__ = ["config_problems"]


def config_problems(config: dict) -> list[tuple[str, str]]:
    """``(dotted key, message)`` for each constraint the enabled parts of ``risk`` break."""
    risk = config["dincer2016"]
    problems = []
    if risk["enabled"] and risk["population"]["enabled"]:
        problems += _population(risk["population"], config)
    learn = risk["learning"]
    if risk["enabled"] and learn["enabled"]:
        bad = [f for f in learn["folds"] if f > learn["n_folds"]]
        if bad:
            problems.append(("dincer2016.learning.folds", f"{bad} exceed dincer2016.learning.n_folds = {learn['n_folds']}"))
        n_feat = (learn["dataset"] or config["dataset"])["n_features"]
        if learn["baseline_feature"] > n_feat:
            problems.append(("dincer2016.learning.baseline_feature", f"{learn['baseline_feature']} exceeds the "
                             f"dataset's n_features = {n_feat}"))
    return problems


def _population(pop: dict, config: dict) -> list[tuple[str, str]]:
    problems = []
    if pop["fold"] == pop["test_partition"]:
        problems.append(("dincer2016.population.test_partition", f"must differ from dincer2016.population.fold ({pop['fold']})"))
    if pop["baseline_feature"] not in pop["features"]:
        problems.append(("dincer2016.population.baseline_feature",
                         f"{pop['baseline_feature']} must be one of dincer2016.population.features"))
    if pop["include_models"] and not config["models"]["enabled"]:
        problems.append(("dincer2016.population.include_models",
                         "needs the models stage (models.enabled: true); set it to false to leave the models out"))
    elif pop["include_models"]:
        problems += fold_is_trained("dincer2016.population.fold", pop["fold"], config)
    n_feat = config["dataset"]["n_features"]
    too_big = [f for f in pop["features"] if f > n_feat]
    if too_big:
        problems.append(("dincer2016.population.features", f"{too_big} exceed dataset.n_features = {n_feat}"))
    return problems
