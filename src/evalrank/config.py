"""Load and validate the workflow configuration (JSON schema in YAML).

Errors name the offending key as a dotted path (``models.train_pairs``), so a
bad value in ``config/*.yaml`` or a ``--config`` override is found at once.
Missing optional keys are filled with the schema's defaults.
"""

from __future__ import annotations

import copy
from importlib import resources
from pathlib import Path
from typing import Any, Mapping

import numpy as np
import yaml

__all__ = ["ConfigError", "load_config", "validate_config", "schema_path", "key_path", "data_problems"]


class ConfigError(ValueError):
    """A configuration value is invalid; ``keys`` lists the offending dotted keys."""

    def __init__(self, problems: list[tuple[str, str]]):
        self.keys = [k for k, _ in problems]
        lines = [f"  config key '{k}': {msg}" for k, msg in problems]
        super().__init__("invalid configuration:\n" + "\n".join(lines))


def schema_path() -> Path:
    """The packaged schema (workflow/schemas/config.schema.yaml links to it)."""
    return Path(str(resources.files("evalrank") / "schemas" / "config.schema.yaml"))


def key_path(parts) -> str:
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "<root>"


def _fill_defaults(instance: Any, schema: Mapping, root: Mapping) -> None:
    """Insert schema defaults for missing keys, recursively (after a successful validation)."""
    if "$ref" in schema:
        ref = schema["$ref"].split("/")[-1]
        schema = root["$defs"][ref]
    if not isinstance(instance, dict):
        return
    for key, sub in schema.get("properties", {}).items():
        if key not in instance and "default" in sub:
            instance[key] = copy.deepcopy(sub["default"])
        if key in instance:
            _fill_defaults(instance[key], sub, root)


def _message(error) -> str:
    if error.validator == "additionalProperties":
        return error.message.replace("Additional properties are not allowed", "unknown key(s)")
    if error.validator == "enum":
        return f"{error.instance!r} is not one of {error.validator_value}"
    return error.message


def validate_config(config: dict, schema: str | Path | None = None) -> dict:
    """Validate ``config`` in place against the schema, fill defaults, return it.

    Raises :class:`ConfigError` listing every problem with its dotted key.
    """
    import jsonschema

    if not isinstance(config, dict):
        raise TypeError(f"config must be a mapping, got {type(config).__name__}")
    path = Path(schema) if schema is not None else schema_path()
    with open(path, encoding="utf-8") as fh:
        schema_doc = yaml.safe_load(fh)
    validator = jsonschema.Draft202012Validator(schema_doc)
    errors = sorted(validator.iter_errors(config), key=lambda e: (list(map(str, e.absolute_path)), e.message))
    if errors:
        problems = []
        for e in errors:
            parts = list(e.absolute_path)
            if e.validator == "additionalProperties":
                extra = sorted(set(e.instance) - set(e.schema.get("properties", {})))
                for name in extra:
                    problems.append((key_path(parts + [name]), "unknown key (check spelling; see workflow/schemas/config.schema.yaml)"))
                continue
            if e.validator == "propertyNames" or "propertyNames" in e.schema_path:
                # jsonschema reports a bad property *name* at the object, with the name as instance
                allowed = e.validator_value if isinstance(e.validator_value, list) else []
                problems.append((key_path(parts + [str(e.instance)]),
                                 f"unknown parameter; allowed: {', '.join(map(str, allowed))}"))
                continue
            if e.validator == "required":
                missing = e.message.split("'")[1]
                problems.append((key_path(parts + [missing]), "is required"))
                continue
            problems.append((key_path(parts), _message(e)))
        raise ConfigError(problems)
    _fill_defaults(config, schema_doc, schema_doc)
    problems = _cross_checks(config)
    if problems:
        raise ConfigError(problems)
    return config


def _cross_checks(config: dict) -> list[tuple[str, str]]:
    """Constraints between keys that a JSON schema cannot express."""
    problems = []
    ds = config.get("dataset", {})
    marg = ds.get("synthetic", {}).get("grade_marginals")
    if marg is not None and ds.get("max_grade") is not None and len(marg) != ds["max_grade"] + 1:
        problems.append(("dataset.synthetic.grade_marginals",
                         f"needs max_grade + 1 = {ds['max_grade'] + 1} shares, got {len(marg)}"))
    if ds.get("kind") == "synthetic" and marg is None and ds.get("max_grade", 4) != 4:
        problems.append(("dataset.synthetic.grade_marginals", f"is needed for max_grade {ds['max_grade']} (the "
                         "default shares are MSLR's five grades 0..4)"))
    act = config.get("active", {})
    if act.get("enabled", True) and not config.get("models", {}).get("enabled", True):
        problems.append(("active.enabled", "the active stage needs the models stage (models.enabled: true)"))
    nd = config.get("ndcg", {})
    extra = [m for m in nd.get("fig1_learners", []) if m not in nd.get("learners", [])]
    if extra:
        problems.append(("ndcg.fig1_learners", f"{extra} must also be in ndcg.learners"))
    if nd.get("reference") is not None and nd.get("reference") not in nd.get("train_conventions", [nd.get("reference")]):
        problems.append(("ndcg.reference", f"{nd['reference']!r} must be one of ndcg.train_conventions"))
    pop = config.get("risk", {}).get("population", {})
    if config.get("risk", {}).get("enabled", True) and pop.get("enabled", True):
        problems += _risk_population_checks(pop, config)
    learn = config.get("risk", {}).get("learning", {})
    if config.get("risk", {}).get("enabled", True) and learn.get("enabled", True):
        bad = [f for f in learn.get("folds", []) if f > learn.get("n_folds", 5)]
        if bad:
            problems.append(("risk.learning.folds", f"{bad} exceed risk.learning.n_folds = {learn.get('n_folds', 5)}"))
        n_feat = (learn.get("dataset") or config.get("dataset", {})).get("n_features")
        if n_feat and learn.get("baseline_feature", 0) > n_feat:
            problems.append(("risk.learning.baseline_feature", f"{learn['baseline_feature']} exceeds the "
                             f"dataset's n_features = {n_feat}"))
    clk = config.get("clicks", {})
    if clk.get("enabled", True):
        problems += _clicks_checks(clk, config)
    th = config.get("theory", {})
    if th.get("enabled", True):
        problems += _theory_checks(th)
    budgets = act.get("budgets", [])
    if any(b1 <= b0 for b0, b1 in zip(budgets, budgets[1:])):
        problems.append(("active.budgets", f"must be strictly increasing, got {budgets}"))
    for key, value in (("active.reference_budget", act.get("reference_budget")),
                       ("active.train_sizes.budget", act.get("train_sizes", {}).get("budget"))):
        if value is not None and budgets and not any(abs(value - b) < 1e-9 for b in budgets):
            problems.append((key, f"{value} must be one of active.budgets {budgets}"))
    camp = act.get("campaign", {})
    cb = camp.get("budgets", [])
    if any(b1 <= b0 for b0, b1 in zip(cb, cb[1:])):
        problems.append(("active.campaign.budgets", f"must be strictly increasing, got {cb}"))
    tb = camp.get("tune_budget")
    if tb is not None and cb and not any(abs(tb - b) < 1e-9 for b in cb):
        problems.append(("active.campaign.tune_budget", f"{tb} must be one of active.campaign.budgets {cb}"))
    if 0 < camp.get("repetitions", 0) < act.get("shards", 1):
        problems.append(("active.campaign.repetitions", f"{camp['repetitions']} is below active.shards "
                         f"({act.get('shards', 1)}): a shard would have no campaign"))
    ts = act.get("train_sizes", {})
    if ts.get("sizes") and ts["base"] in ts["sizes"]:
        problems.append(("active.train_sizes.sizes", f"must not contain the base size {ts['base']}"))
    if act.get("enabled", True):
        problems += _active_checks(act, config)
    return problems


def _active_checks(act: dict, config: dict) -> list[tuple[str, str]]:
    problems = []
    if act.get("shards", 1) > act.get("repetitions", 1):
        problems.append(("active.shards", f"{act['shards']} exceeds active.repetitions ({act['repetitions']}): "
                         "a shard would have no repetition"))
    n_feat = config.get("dataset", {}).get("n_features")
    cost = act.get("cost_feature")
    if cost is not None and n_feat and cost > n_feat:
        problems.append(("active.cost_feature", f"feature {cost} exceeds dataset.n_features = {n_feat}; "
                         "set it to the dataset's document-length feature, or null for unit costs"))
    ds = config.get("dataset", {})
    if cost is not None and ds.get("kind") == "synthetic" and ds.get("synthetic", {}).get("feature_norm") == "query":
        problems.append(("active.cost_feature", "dataset.synthetic.feature_norm: query scales every feature within "
                         "its query, so no feature is a document length; set active.cost_feature to null (unit costs)"))
    return problems


def _fold_is_trained(key: str, fold, config: dict) -> list[tuple[str, str]]:
    """A stage that uses one fold's trained models must use a fold of ``folds`` (else
    the whole model stage would be trained again for that stage alone)."""
    folds = config.get("folds", [1])
    if fold is not None and fold not in folds:
        return [(key, f"fold {fold} is not in folds {folds}: its models would be trained for this stage "
                      "alone; use one of folds")]
    return []


def _risk_population_checks(pop: dict, config: dict) -> list[tuple[str, str]]:
    problems = []
    if pop.get("fold") is not None and pop.get("fold") == pop.get("test_partition"):
        problems.append(("risk.population.test_partition", f"must differ from risk.population.fold ({pop['fold']})"))
    if pop.get("baseline_feature") is not None and pop["baseline_feature"] not in pop.get("features", []):
        problems.append(("risk.population.baseline_feature",
                         f"{pop['baseline_feature']} must be one of risk.population.features"))
    if pop.get("include_models", True) and not config.get("models", {}).get("enabled", True):
        problems.append(("risk.population.include_models",
                         "needs the models stage (models.enabled: true); set it to false to leave the models out"))
    elif pop.get("include_models", True):
        problems += _fold_is_trained("risk.population.fold", pop.get("fold"), config)
    n_feat = config.get("dataset", {}).get("n_features")
    too_big = [f for f in pop.get("features", []) if n_feat and f > n_feat]
    if too_big:
        problems.append(("risk.population.features", f"{too_big} exceed dataset.n_features = {n_feat}"))
    return problems


def _theory_checks(th: dict) -> list[tuple[str, str]]:
    from evalrank.theory.experiments import parse_measure

    problems = []
    for i, m in enumerate(th.get("measures", [])):
        try:
            parse_measure(m)
        except ValueError as e:
            problems.append((f"theory.measures[{i}]", str(e)))
    sizes = th.get("sizes", [])
    if any(b <= a for a, b in zip(sizes, sizes[1:])):
        problems.append(("theory.sizes", f"must be strictly increasing, got {sizes}"))
    tau = th.get("population", {}).get("thresholds", [])
    if any(b <= a for a, b in zip(tau, tau[1:])):
        problems.append(("theory.population.thresholds", f"must be strictly increasing, got {tau}"))
    for i, m in enumerate(th.get("lists", {}).get("measures", [])):
        try:
            parse_measure(m)
        except ValueError as e:
            problems.append((f"theory.lists.measures[{i}]", str(e)))
    scorers = th.get("scorers", {})
    for i, pair in enumerate(th.get("pairs", [])):
        bad = [name for name in pair[1:] if name not in scorers]
        if bad:
            problems.append((f"theory.pairs[{i}]", f"{bad} are not in theory.scorers {sorted(scorers)}"))
    return problems


def _clicks_checks(clk: dict, config: dict) -> list[tuple[str, str]]:
    problems = []
    models = config.get("models", {})
    if not models.get("enabled", True):
        problems.append(("clicks.enabled", "the clicks stage needs the models stage (models.enabled: true)"))
    names = models.get("names", [])
    if models.get("enabled", True):
        problems += _fold_is_trained("clicks.fold", clk.get("fold"), config)
    world = clk.get("world", {})
    for key in ("baseline", "history", "alternatives"):
        value = world.get(key)
        if value is None:
            continue
        values = [value] if isinstance(value, str) else value
        allowed = names + (["oracle"] if key == "alternatives" else [])
        bad = [v for v in values if v not in allowed]
        if bad:
            problems.append((f"clicks.world.{key}", f"{bad} must be in models.names {names}"
                             + (" or 'oracle'" if key == "alternatives" else "")))
    if world.get("k", 5) > world.get("serp_depth", 10):
        problems.append(("clicks.world.k", f"must not exceed clicks.world.serp_depth ({world.get('serp_depth', 10)})"))
    for key in ("blend", "noise", "affected"):
        lo_hi = world.get(key)
        if lo_hi and lo_hi[0] > lo_hi[1]:
            problems.append((f"clicks.world.{key}", f"needs lo <= hi, got {lo_hi}"))
    max_grade = config.get("dataset", {}).get("max_grade")
    grades = clk.get("grades", ["B", "F", "G", "E", "P"])
    if max_grade is not None and len(grades) != max_grade + 1:
        problems.append(("clicks.grades", f"{len(grades)} grades for labels 0..{max_grade}: the agreement matrix "
                         f"needs dataset.max_grade + 1 grades (or set clicks.enabled: false)"))
    if clk.get("paper_tests", 5) > world.get("n_tests", 120):
        problems.append(("clicks.paper_tests", f"exceeds clicks.world.n_tests ({world.get('n_tests', 120)})"))
    sb = clk.get("smoothing", {}).get("sigma_bounds")
    if sb and sb[0] >= sb[1]:
        problems.append(("clicks.smoothing.sigma_bounds", f"needs lo < hi, got {sb}"))
    return problems


def load_config(path: str | Path, overrides: Mapping | None = None) -> dict:
    """Read a YAML config file, apply ``overrides`` (deep-merged) and validate."""
    from evalrank.io import open_text

    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"config file {path} does not exist")
    with open_text(path) as fh:
        try:
            cfg = yaml.safe_load(fh) or {}
        except yaml.YAMLError as e:
            mark = getattr(e, "problem_mark", None)
            where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark is not None else str(path)
            what = getattr(e, "problem", None) or str(e)
            raise ValueError(f"{where}: not valid YAML ({what})") from None
    if not isinstance(cfg, dict):
        raise ValueError(f"{path}: a config file holds a mapping of keys, got a {type(cfg).__name__}")
    if overrides:
        cfg = _merge(cfg, overrides)
    return validate_config(cfg)


def _merge(base: dict, over: Mapping) -> dict:
    out = copy.deepcopy(base)
    for k, v in over.items():
        out[k] = _merge(out[k], v) if isinstance(v, Mapping) and isinstance(out.get(k), dict) else copy.deepcopy(v)
    return out


# -- checks against the data (evalrank.data.facts) --------------------------------
def data_problems(config: dict, facts) -> list[tuple[str, str]]:
    """Config values the data cannot honour, as ``(dotted key, message)`` pairs.

    ``config`` is validated (defaults filled); ``facts`` the
    :class:`~evalrank.data.facts.DataFacts` of its dataset's partitions S1..S5.
    Checked: feature ids against the features the data has (a feature that is
    zero in every document, or a cost feature that is not a length);
    ``models.train_pairs`` and ``active.train_sizes`` against the pairs of each
    fold's training half (and that every size gives a different training set);
    the budgets of the savings table and Fig. 3 right against the pool's
    labelling cost; the risk protocol's query count. The workflow runs this
    before any expensive job (:mod:`evalrank.data.facts`).
    """
    from evalrank.models.split import split_query_indices

    problems = []
    ds, act, models, risk = config["dataset"], config["active"], config["models"], config["risk"]
    models_on = models["enabled"]
    active_on = act["enabled"] and models_on
    pop, learn = risk["population"], risk["learning"]
    feature_keys = []
    if active_on and act["cost_feature"] is not None:
        feature_keys.append(("active.cost_feature", [act["cost_feature"]]))
    if risk["enabled"] and pop["enabled"]:
        feature_keys += [("risk.population.features", pop["features"]),
                         ("risk.population.baseline_feature", [pop["baseline_feature"]])]
    if risk["enabled"] and learn["enabled"] and learn["dataset"] is None:
        feature_keys.append(("risk.learning.baseline_feature", [learn["baseline_feature"]]))
    for key, ids in feature_keys:
        if facts.used_features is not None:
            bad = [i for i in ids if i > facts.used_features]
            if bad:
                problems.append((key, f"feature(s) {bad} are 0 in every document of the dataset, whose highest "
                                      f"non-zero feature id is {facts.used_features} (dataset.n_features = "
                                      f"{ds['n_features']}); choose features the data has"))
    cost = act["cost_feature"]
    if active_on and cost is not None and facts.length_like is not None and cost <= facts.n_features \
            and cost not in facts.length_like:
        problems.append(("active.cost_feature", f"feature {cost} is not a document length (it has negative or "
                         "non-integer values); set it to the dataset's length feature, or null for unit costs"))

    seed = config["seed"]
    ts = act["train_sizes"]
    sized = active_on and "rf" in models["names"] and ts["sizes"]
    for f in config["folds"]:
        sizes = facts.query_sizes[f]
        if sizes.size < 2:
            problems.append(("folds", f"partition S{f} has {sizes.size} quer(ies); a training partition needs >= 2"))
            continue
        half = split_query_indices(sizes, train_pairs=None, seed=seed)[0]
        cum = np.cumsum(sizes[half])
        available = int(cum[-1])
        where = f"the training half of partition S{f} (fold {f}) has {available:,} pairs in {half.size} queries"
        if models_on and models["train_pairs"] is not None and models["train_pairs"] > available:
            problems.append(("models.train_pairs", f"{models['train_pairs']:,} exceeds what {where}; "
                             f"set it to at most {available}"))
        if sized:
            realized = {}
            for key, n in [("active.train_sizes.base", ts["base"])] + [("active.train_sizes.sizes", n)
                                                                      for n in ts["sizes"]]:
                if n > available:
                    problems.append((key, f"{n:,} exceeds what {where}; every larger size would get the same "
                                          f"{available:,} pairs"))
                    continue
                got = int(cum[np.searchsorted(cum, n, side="left")])  # whole queries: at least n pairs
                if got in realized:
                    problems.append((key, f"{n:,} and {realized[got]:,} pairs give the same training set on "
                                          f"S{f} ({got:,} pairs in whole queries); choose sizes further apart"))
                realized.setdefault(got, n)
        if active_on:
            pool = facts.pool_queries(f)
            for key, value in (("active.reference_budget", act["reference_budget"]),
                               ("active.train_sizes.budget", ts["budget"] if sized else None)):
                if value is not None and value >= pool:
                    problems.append((key, f"{value:g} is at or above the labelling cost of fold {f}'s pool "
                                          f"({pool:,} units: costs have mean 1 over its {pool:,} queries), where "
                                          "every method labels the whole pool and nothing can be saved; choose "
                                          f"one of active.budgets below {pool:,}"))
    if risk["enabled"] and learn["enabled"] and learn["dataset"] is None:
        n = sum(facts.n_queries(p) for p in facts.query_sizes)
        need = 3 * (learn["n_folds"] + 1)
        if n < need:
            problems.append(("risk.learning.n_folds", f"the protocol needs >= 3 (n_folds + 1) = {need} queries, "
                                                      f"the dataset has {n}"))
    return sorted(set(problems), key=problems.index)
