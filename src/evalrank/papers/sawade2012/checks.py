"""The ``active`` section against the rest of the config: what the schema cannot say
(:func:`evalrank.config.validate_config` calls :func:`config_problems`)."""

from __future__ import annotations

from evalrank.config import increasing, on_grid

__all__ = ["config_problems"]


def config_problems(config: dict) -> list[tuple[str, str]]:
    """``(dotted key, message)`` for each constraint the ``active`` section breaks: its budget
    grids increase and hold the budgets named from them; enabled, it needs the models stage, a
    shard per repetition and a cost feature that is a document length."""
    act = config["sawade2012"]
    problems = []
    if act["enabled"] and not config["models"]["enabled"]:
        problems.append(("sawade2012.enabled", "the active stage needs the models stage (models.enabled: true)"))
    budgets = act["budgets"]
    problems += increasing("sawade2012.budgets", budgets)
    ts = act["train_sizes"]
    problems += on_grid("sawade2012.reference_budget", act["reference_budget"], "sawade2012.budgets", budgets)
    problems += on_grid("sawade2012.train_sizes.budget", ts["budget"], "sawade2012.budgets", budgets)
    camp = act["campaign"]
    problems += increasing("sawade2012.campaign.budgets", camp["budgets"])
    problems += on_grid("sawade2012.campaign.tune_budget", camp["tune_budget"], "sawade2012.campaign.budgets",
                        camp["budgets"])
    if 0 < camp["repetitions"] < act["shards"]:
        problems.append(("sawade2012.campaign.repetitions", f"{camp['repetitions']} is below sawade2012.shards "
                         f"({act['shards']}): a shard would have no campaign"))
    missing = [m for m in act["calibrated"] if m not in config["models"]["names"]]
    if missing:
        problems.append(("sawade2012.calibrated", f"{missing} not in models.names: a calibrated Fig. 1 experiment needs "
                         "its model trained"))
    if ts["base"] in ts["sizes"]:
        problems.append(("sawade2012.train_sizes.sizes", f"must not contain the base size {ts['base']}"))
    if act["enabled"]:
        problems += _enabled(act, config)
    return problems


def _enabled(act: dict, config: dict) -> list[tuple[str, str]]:
    problems = []
    if act["shards"] > act["repetitions"]:
        problems.append(("sawade2012.shards", f"{act['shards']} exceeds sawade2012.repetitions ({act['repetitions']}): "
                         "a shard would have no repetition"))
    ds = config["dataset"]
    cost = act["cost_feature"]
    if cost is not None and cost > ds["n_features"]:
        problems.append(("sawade2012.cost_feature", f"feature {cost} exceeds dataset.n_features = {ds['n_features']}; "
                         "set it to the dataset's document-length feature, or null for unit costs"))
    if cost is not None and ds["kind"] == "synthetic" and ds["synthetic"]["feature_norm"] == "query":
        problems.append(("sawade2012.cost_feature", "dataset.synthetic.feature_norm: query scales every feature within "
                         "its query, so no feature is a document length; set sawade2012.cost_feature to null (unit costs)"))
    return problems
