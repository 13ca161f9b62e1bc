"""The ``theory`` section against itself: what the schema cannot say
(:func:`evalrank.config.validate_config` calls :func:`config_problems`)."""

from __future__ import annotations

from evalrank.config import increasing

__all__ = ["config_problems"]


def config_problems(config: dict) -> list[tuple[str, str]]:
    """``(dotted key, message)`` for each constraint an enabled ``theory`` section breaks: its
    measures are NDCGs named by discount and cut-off (:func:`~evalrank.papers.wang2013.experiments.
    theory_measure`), its size grids increase, its pairs name its scorers."""
    th = config["wang2013"]
    if not th["enabled"]:
        return []
    from evalrank.papers.wang2013.experiments import theory_measure

    problems = []
    for key, measures in (("wang2013.measures", th["measures"]), ("wang2013.lists.measures", th["lists"]["measures"])):
        for i, m in enumerate(measures):
            try:
                theory_measure(m)
            except ValueError as e:
                problems.append((f"{key}[{i}]", str(e)))
    problems += increasing("wang2013.sizes", th["sizes"])
    problems += increasing("wang2013.population.thresholds", th["population"]["thresholds"])
    problems += increasing("wang2013.lists.sizes", th["lists"]["sizes"])
    scorers = th["scorers"]
    for i, pair in enumerate(th["pairs"]):
        bad = [name for name in pair[1:] if name not in scorers]
        if bad:
            problems.append((f"wang2013.pairs[{i}]", f"{bad} are not in wang2013.scorers {sorted(scorers)}"))
    return problems
