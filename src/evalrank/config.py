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

import yaml

__all__ = ["ConfigError", "load_config", "validate_config", "schema_path", "key_path"]


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
    ts = act.get("train_sizes", {})
    if ts.get("sizes") and ts["base"] in ts["sizes"]:
        problems.append(("active.train_sizes.sizes", f"must not contain the base size {ts['base']}"))
    return problems


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
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"config file {path} does not exist")
    with open(path, encoding="utf-8") as fh:
        cfg = yaml.safe_load(fh) or {}
    if overrides:
        cfg = _merge(cfg, overrides)
    return validate_config(cfg)


def _merge(base: dict, over: Mapping) -> dict:
    out = copy.deepcopy(base)
    for k, v in over.items():
        out[k] = _merge(out[k], v) if isinstance(v, Mapping) and isinstance(out.get(k), dict) else copy.deepcopy(v)
    return out
