"""The ``ndcg`` section against the rest of the config: what the schema cannot say
(:func:`evalrank.config.validate_config` calls :func:`config_problems`)."""

from __future__ import annotations

__all__ = ["config_problems"]


def config_problems(config: dict) -> list[tuple[str, str]]:
    """``(dotted key, message)`` for each constraint the ``ndcg`` section breaks."""
    nd = config["busafekete2012"]
    problems = []
    extra = [m for m in nd["fig1_learners"] if m not in nd["learners"]]
    if extra:
        problems.append(("busafekete2012.fig1_learners", f"{extra} must also be in busafekete2012.learners"))
    if nd["reference"] not in nd["train_conventions"]:
        problems.append(("busafekete2012.reference", f"{nd['reference']!r} must be one of busafekete2012.train_conventions"))
    return problems
