"""The ``clicks`` section against the rest of the config: what the schema cannot say
(:func:`evalrank.config.validate_config` calls :func:`config_problems`)."""

from __future__ import annotations

from evalrank.config import fold_is_trained

__all__ = ["config_problems"]


def config_problems(config: dict) -> list[tuple[str, str]]:
    """``(dotted key, message)`` for each constraint an enabled ``clicks`` section breaks."""
    clk = config["ozertem2011"]
    if not clk["enabled"]:
        return []
    problems = []
    models = config["models"]
    if not models["enabled"]:
        problems.append(("ozertem2011.enabled", "the clicks stage needs the models stage (models.enabled: true)"))
    names = models["names"]
    if models["enabled"]:
        problems += fold_is_trained("ozertem2011.fold", clk["fold"], config)
    world = clk["world"]
    for key in ("baseline", "history", "alternatives"):
        value = world[key]
        values = [value] if isinstance(value, str) else value
        allowed = names + (["oracle"] if key == "alternatives" else [])
        bad = [v for v in values if v not in allowed]
        if bad:
            problems.append((f"ozertem2011.world.{key}", f"{bad} must be in models.names {names}"
                             + (" or 'oracle'" if key == "alternatives" else "")))
    if world["k"] > world["serp_depth"]:
        problems.append(("ozertem2011.world.k", f"must not exceed ozertem2011.world.serp_depth ({world['serp_depth']})"))
    for key in ("blend", "noise", "affected"):
        lo, hi = world[key]
        if lo > hi:
            problems.append((f"ozertem2011.world.{key}", f"needs lo <= hi, got {world[key]}"))
    max_grade = config["dataset"]["max_grade"]
    if len(clk["grades"]) != max_grade + 1:
        problems.append(("ozertem2011.grades", f"{len(clk['grades'])} grades for labels 0..{max_grade}: the agreement "
                         f"matrix needs dataset.max_grade + 1 grades (or set ozertem2011.enabled: false)"))
    if clk["paper_tests"] > world["n_tests"]:
        problems.append(("ozertem2011.paper_tests", f"exceeds ozertem2011.world.n_tests ({world['n_tests']})"))
    lo, hi = clk["smoothing"]["sigma_bounds"]
    if lo >= hi:
        problems.append(("ozertem2011.smoothing.sigma_bounds", f"needs lo < hi, got {clk['smoothing']['sigma_bounds']}"))
    return problems
