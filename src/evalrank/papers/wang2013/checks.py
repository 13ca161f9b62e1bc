"""The ``theory`` section against itself: what the schema cannot say
(:func:`evalrank.config.validate_config` calls :func:`config_problems`)."""

from __future__ import annotations

from evalrank.config import increasing

__all__ = ["config_problems"]


def config_problems(config: dict) -> list[tuple[str, str]]:
    """``(dotted key, message)`` for each constraint an enabled ``theory`` section breaks: its
    measures are NDCGs named by discount and cut-off (:func:`~evalrank.papers.wang2013.experiments.
    theory_measure`), its size grids increase, its pairs name its scorers."""
    th = config["theory"]
    if not th["enabled"]:
        return []
    from evalrank.papers.wang2013.experiments import theory_measure

    problems = []
    for key, measures in (("theory.measures", th["measures"]), ("theory.lists.measures", th["lists"]["measures"])):
        for i, m in enumerate(measures):
            try:
                theory_measure(m)
            except ValueError as e:
                problems.append((f"{key}[{i}]", str(e)))
    problems += increasing("theory.sizes", th["sizes"])
    problems += increasing("theory.population.thresholds", th["population"]["thresholds"])
    problems += increasing("theory.lists.sizes", th["lists"]["sizes"])
    scorers = th["scorers"]
    for i, pair in enumerate(th["pairs"]):
        bad = [name for name in pair[1:] if name not in scorers]
        if bad:
            problems.append((f"theory.pairs[{i}]", f"{bad} are not in theory.scorers {sorted(scorers)}"))
    return problems
