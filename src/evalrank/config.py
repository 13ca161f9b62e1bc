"""Load and validate the workflow configuration (JSON schema in YAML).

The schema (``schemas/config.schema.yaml``) is the one place of every key's
type, range, description and default: :func:`validate_config` checks a config
against it, then fills the defaults of missing keys from it (recursively,
through ``$ref``; a ``default`` beside a ``$ref`` overrides the referenced
one), and the checks below read values by key without restating a default.
:func:`schema_default` gives library code the schema's default of a key.

Each paper's section carries the paper's name (``sawade2012``, ``busafekete2012``,
``dincer2016``, ``ozertem2011``, ``wang2013``), as its folder, rule file and report group do.
The sections' old names (``active``, ``ndcg``, ``risk``, ``clicks``, ``theory``) are read for
one release (:data:`RENAMED_SECTIONS`): each is moved onto its new name, with one line on
stderr saying so.

Errors name the offending key as a dotted path (``models.train_pairs``), one
line per problem, so a bad value in ``config/*.yaml`` or a ``--config``
override is found at once. YAML files are read refusing a key given twice in
one mapping (PyYAML would keep the last one silently), with file:line.
"""

from __future__ import annotations

import copy
import functools
import itertools
import sys
from importlib import resources
from pathlib import Path
from typing import Any, Iterable, Mapping

import numpy as np
import yaml

__all__ = ["RENAMED_SECTIONS", "ConfigError", "load_config", "validate_config", "schema_path", "schema_default", "read_yaml",
           "check_yaml_files", "key_path", "data_problems"]


class ConfigError(ValueError):
    """A configuration value is invalid; ``keys`` lists the offending dotted keys."""

    def __init__(self, problems: list[tuple[str, str]]):
        self.keys = [k for k, _ in problems]
        lines = [f"config key '{clip(k)}': {clip(msg, 3 * MAX_SHOWN)}" for k, msg in problems[:MAX_PROBLEMS]]
        if len(problems) > MAX_PROBLEMS:
            lines.append(f"... and more problems (the first {MAX_PROBLEMS} are shown)")
        if len(lines) == 1:
            super().__init__(f"invalid configuration: {lines[0]}")
        else:
            super().__init__("invalid configuration:\n" + "\n".join("  " + line for line in lines))


#: Old section name -> the paper's name (issue 29). Read for one release, then refused.
RENAMED_SECTIONS = {"active": "sawade2012", "ndcg": "busafekete2012", "risk": "dincer2016",
                    "clicks": "ozertem2011", "theory": "wang2013"}


def _renamed_sections(config: dict) -> list[str]:
    """Move each old-named section of ``config`` onto its paper's name (in place); the notes
    to print. A section given under both names (e.g. a base config with the new name and an
    overlay with the old one) is merged, the old-named values on top."""
    notes = []
    for old, new in RENAMED_SECTIONS.items():
        if old not in config:
            continue
        value = config.pop(old)
        if isinstance(value, Mapping) and isinstance(config.get(new), dict):
            config[new] = _merge(config[new], value)
        else:
            config[new] = value
        notes.append(f"config key '{old}' is now '{new}' (the old name is read for one release; "
                     f"rename it in your config)")
    return notes


def schema_path() -> Path:
    """The packaged schema (workflow/schemas/config.schema.yaml links to it)."""
    return Path(str(resources.files("evalrank") / "schemas" / "config.schema.yaml"))


def key_path(parts) -> str:
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "<root>"


#: The most problems a configuration error lists (a list of a million bad values gives one line each
#: otherwise); the schema check stops looking after MAX_SCHEMA_ERRORS.
MAX_PROBLEMS = 20
MAX_SCHEMA_ERRORS = 1000

#: The longest key or message a configuration error shows (a value is cut, its length said): a
#: 1 MB name or a YAML alias expanded into 10 MB must not become the message.
MAX_SHOWN = 300


def clip(text: str, limit: int = MAX_SHOWN) -> str:
    """``text`` cut to ``limit`` characters, saying how long it was."""
    text = str(text)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text):,} characters in all)"


# -- YAML without silent duplicates -------------------------------------------------
_MERGE_TAG = "tag:yaml.org,2002:merge"

#: The most values (scalars, mappings, sequences) a config file may hold once its aliases are
#: expanded. The largest shipped config holds about 1,000; nested aliases of aliases (a "billion
#: laughs") make a 2 KB file expand to millions, which a config never needs.
MAX_YAML_VALUES = 100_000


def _alias_blowup(node):
    """The innermost node whose value, aliases expanded, holds more than
    :data:`MAX_YAML_VALUES` values (None if none): the sizes counted once per node
    (an alias shares its anchor's node), without expanding anything."""
    size: dict[int, int] = {}
    stack = [(node, False)]
    while stack:
        n, done = stack.pop()
        if id(n) in size:
            continue
        kids = ([x for pair in n.value for x in pair] if isinstance(n, yaml.MappingNode) else
                list(n.value) if isinstance(n, yaml.SequenceNode) else [])
        if not done:
            stack.append((n, True))
            stack.extend((k, False) for k in kids if id(k) not in size)
            continue
        size[id(n)] = 1 + sum(size.get(id(k), 0) for k in kids)
        if size[id(n)] > MAX_YAML_VALUES:
            return n
    return None


def _decode_error(path: Path, raw: bytes) -> str:
    """Where ``raw`` (a file's bytes) stops being UTF-8: byte offset, line and the byte."""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw.count(b"\n", 0, e.start) + 1
        return f"{path}:{line}: not UTF-8 text (byte 0x{raw[e.start]:02x} at offset {e.start}: {e.reason}); " \
               "save the file as UTF-8"
    return f"{path}: not UTF-8 text; save the file as UTF-8"


def _duplicates(node, parts: list, seen_nodes: set):
    """(dotted key, first line, repeated line) of every key given twice in one mapping."""
    if id(node) in seen_nodes:  # an alias: its anchor was checked already
        return
    seen_nodes.add(id(node))
    if isinstance(node, yaml.MappingNode):
        first = {}
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE_TAG:  # '<<: *anchor' merges; explicit keys may override them
                continue
            name = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
            if name is not None:
                ident = (key_node.tag, name)
                if ident in first:
                    yield key_path(parts + [name]), first[ident], key_node.start_mark.line + 1
                else:
                    first[ident] = key_node.start_mark.line + 1
            yield from _duplicates(value_node, parts + [name if name is not None else "?"], seen_nodes)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            yield from _duplicates(item, parts + [i], seen_nodes)


def read_yaml(path: str | Path) -> Any:
    """A YAML file's document, refusing a key given twice in one mapping (any level).

    Raises :class:`ConfigError` naming each repeated key with file:line, and
    ``ValueError`` with file:line:column for text that is not YAML.
    """
    from evalrank.io import open_text

    path = Path(path)
    try:
        with open_text(path) as fh:
            text = fh.read()
    except UnicodeDecodeError:
        with open_text(path) as fh:
            raw = fh.buffer.read() if hasattr(fh, "buffer") else b""
        raise ValueError(_decode_error(path, raw)) from None
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        bomb = _alias_blowup(node)
        if bomb is not None:
            raise ValueError(f"{path}:{bomb.start_mark.line + 1}: this value expands, through YAML aliases (*name) "
                             f"of aliases, to more than {MAX_YAML_VALUES:,} values; a config needs no such "
                             "expansion: write the values out or alias fewer times")
        dups = list(_duplicates(node, [], set()))
        if dups:
            raise ConfigError([(key, f"given twice, at {path}:{first} and again at {path}:{line} (YAML would "
                                     "silently keep only the last); remove one") for key, first, line in dups])
        return loader.construct_document(node)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark is not None else str(path)
        what = getattr(e, "problem", None) or str(e)
        raise ValueError(f"{where}: not valid YAML ({clip(what)})") from None
    except RecursionError:
        raise ValueError(f"{path}: not a config: nested too deeply to read") from None
    finally:
        loader.dispose()


def check_yaml_files(paths: Iterable) -> None:
    """Refuse repeated keys in config files read by someone else (Snakemake's ``configfile``)."""
    for path in paths:
        if Path(path).suffix.lower() in (".yaml", ".yml") and Path(path).exists():
            read_yaml(path)


# -- the schema: defaults and validation ------------------------------------------------
@functools.lru_cache(maxsize=4)
def _schema_doc(path: str, mtime_ns: int) -> dict:
    return read_yaml(path)


def _schema(schema: str | Path | None) -> dict:
    path = Path(schema) if schema is not None else schema_path()
    return _schema_doc(str(path), path.stat().st_mtime_ns)


def _resolve(ref: str, root: Mapping) -> Mapping:
    """A local JSON pointer (``#/$defs/params/properties/rf``)."""
    if not ref.startswith("#/"):
        raise ValueError(f"schema: only local $refs are supported, got {ref!r}")
    node = root
    for part in ref[2:].split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def _views(schemas: Iterable[Mapping], root: Mapping) -> list[Mapping]:
    """The schemas that apply to one value: each given one, then what its ``$ref`` names (recursively).
    Earlier ones win for a ``default``: a default beside a ``$ref`` overrides the referenced one."""
    out = []
    for s in schemas:
        out.append(s)
        if "$ref" in s:
            out += _views([_resolve(s["$ref"], root)], root)
    return out


def _fill_defaults(instance: Any, schemas: list[Mapping], root: Mapping) -> None:
    """Insert schema defaults for missing keys, recursively (after a successful validation)."""
    if not isinstance(instance, dict):
        return
    views = _views(schemas, root)
    props: dict[str, list[Mapping]] = {}
    for view in views:
        for key, sub in view.get("properties", {}).items():
            props.setdefault(key, []).append(sub)
    for key, subs in props.items():
        if key not in instance:
            default = next((v["default"] for v in _views(subs, root) if "default" in v), _MISSING)
            if default is _MISSING:
                continue
            instance[key] = copy.deepcopy(default)
        _fill_defaults(instance[key], subs, root)


_MISSING = object()


def schema_default(key: str, schema: str | Path | None = None) -> Any:
    """The schema's default of dotted ``key`` (``"dataset.synthetic"``), with the defaults
    inside it filled: what a config that leaves the key out gets."""
    root = _schema(schema)
    subs: list[Mapping] = [root]
    for part in key.split("."):
        subs = [v["properties"][part] for v in _views(subs, root) if part in v.get("properties", {})]
        if not subs:
            raise KeyError(f"{key!r} is not a key of the config schema")
    default = next((v["default"] for v in _views(subs, root) if "default" in v), _MISSING)
    if default is _MISSING:
        raise KeyError(f"config key {key!r} has no default (it is required)")
    value = copy.deepcopy(default)
    _fill_defaults(value, subs, root)
    return value


@functools.lru_cache(maxsize=1)
def _validator_class():
    import jsonschema

    # an integer is an int: 2.0e4 is refused where an integer is meant (stage options are parsed with
    # int(), and scikit-learn reads 1.0 as a share, 1 as a count)
    checker = jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda _, x: isinstance(x, (int, np.integer)) and not isinstance(x, bool))
    return jsonschema.validators.extend(jsonschema.Draft202012Validator, type_checker=checker)


def _looks_numeric(value) -> bool:
    try:
        float(value)
        return True
    except (TypeError, ValueError):
        return False


def _message(error) -> str:
    """jsonschema's message for ``error`` in the schema's words, the value shown at most 80
    characters long (a 1 MB value would bury the reason)."""
    text = _message_of(error)
    shown = repr(error.instance)
    if len(shown) > 80 and shown in text:
        text = text.replace(shown, f"{shown[:80]}... ({len(shown):,} characters in all)", 1)
    return text


def _message_of(error) -> str:
    inst, desc = error.instance, error.schema.get("description")
    if error.validator == "enum":
        return f"{inst!r} is not one of {error.validator_value}"
    if error.validator == "type" and isinstance(inst, str) and _looks_numeric(inst):
        return (f"{inst!r} is text, not a number: YAML reads a number with an exponent as text unless it has a "
                f"dot and a signed exponent (1.0e+9); write it in full")
    types = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
    if error.validator == "type" and "integer" in types and "number" not in types and isinstance(inst, float):
        return f"{inst!r} is not an integer (write it without a decimal point)"
    if error.validator in ("oneOf", "anyOf"):
        return f"{inst!r} is not allowed" + (f": {desc}" if desc else "")
    if error.validator in ("maximum", "exclusiveMaximum") and desc:  # the description says why
        return f"{clip(error.message)} ({desc})"
    if error.validator == "maxLength" and isinstance(inst, str):  # the limit, not the whole text
        shown = repr(inst) if len(inst) <= 80 else f"{inst[:80]!r}... ({len(inst):,} characters in all)"
        return f"{shown} is longer than {error.validator_value} characters" + (f": {desc}" if desc else "")
    if error.validator == "pattern" and desc:  # the rule in words too
        return f"{clip(error.message)} ({desc})"
    return error.message


def _schema_problems(config: dict, root: Mapping) -> list[tuple[str, str]]:
    validator = _validator_class()(root)
    errors = sorted(itertools.islice(validator.iter_errors(config), MAX_SCHEMA_ERRORS),
                    key=lambda e: (list(map(str, e.absolute_path)), e.message))
    problems = []
    for e in errors:
        parts = list(e.absolute_path)
        if e.validator == "additionalProperties":
            allowed = [k for view in _views([e.schema], root) for k in view.get("properties", {})]
            for name in sorted(set(e.instance) - set(allowed)):
                problems.append((key_path(parts + [name]), "unknown key (check spelling); allowed: "
                                 + ", ".join(allowed)))
            continue
        if "propertyNames" in e.schema_path:
            # jsonschema reports a bad property *name* at the object, with the name as instance
            allowed = e.validator_value if isinstance(e.validator_value, list) else []
            problems.append((key_path(parts + [str(e.instance)]),
                             f"not allowed here; allowed: {', '.join(map(str, allowed))}"))
            continue
        if e.validator == "required":
            missing = e.message.split("'")[1]
            problems.append((key_path(parts + [missing]), "is required"))
            continue
        problems.append((key_path(parts), _message(e)))
    keys, seen = [], set()
    for key, msg in problems:  # one message per key (a bad name can break two rules)
        if key not in seen:
            seen.add(key)
            keys.append((key, msg))
    return keys


def validate_config(config: dict, schema: str | Path | None = None, files: Iterable = ()) -> dict:
    """Validate ``config`` in place against the schema, fill defaults, return it.

    ``files``: the YAML files ``config`` was merged from by someone else (Snakemake), checked
    for a key given twice. Raises :class:`ConfigError` listing every problem with its dotted key.
    """
    if not isinstance(config, dict):
        raise TypeError(f"config must be a mapping, got {type(config).__name__}")
    check_yaml_files(files)
    for note in _renamed_sections(config):
        print(f"evalrank: {note}", file=sys.stderr)
    root = _schema(schema)
    problems = _schema_problems(config, root)
    if problems:
        raise ConfigError(problems)
    _fill_defaults(config, [root], root)
    problems = _cross_checks(config)
    if problems:
        raise ConfigError(problems)
    return config


def increasing(key: str, values: list) -> list[tuple[str, str]]:
    """``[(key, message)]`` unless ``values`` is strictly increasing."""
    if any(b <= a for a, b in zip(values, values[1:])):
        return [(key, f"must be strictly increasing, got {values}")]
    return []


def on_grid(key: str, value, grid_key: str, grid: list) -> list[tuple[str, str]]:
    """``[(key, message)]`` unless ``value`` (if not None) is one of ``grid``."""
    if value is not None and grid and not any(abs(value - b) < 1e-9 for b in grid):
        return [(key, f"{value} must be one of {grid_key} {grid}")]
    return []


def fold_is_trained(key: str, fold, config: dict) -> list[tuple[str, str]]:
    """A stage that uses one fold's trained models must use a fold of ``folds`` (else
    the whole model stage would be trained again for that stage alone)."""
    folds = config["folds"]
    if fold not in folds:
        return [(key, f"fold {fold} is not in folds {folds}: its models would be trained for this stage "
                      "alone; use one of folds")]
    return []


#: The modules whose ``config_problems(config)`` check a paper's section against the rest of the
#: config (what the schema cannot say), each next to its stages; in this order.
SECTION_CHECKS = (
    "evalrank.papers.busafekete2012.checks",
    "evalrank.papers.dincer2016.checks",
    "evalrank.papers.ozertem2011.checks",
    "evalrank.papers.wang2013.checks",
    "evalrank.papers.sawade2012.checks",
)


def _cross_checks(config: dict) -> list[tuple[str, str]]:
    """Constraints between keys that a JSON schema cannot express (defaults filled): the dataset
    blocks here, each paper's section in its ``checks`` module (:data:`SECTION_CHECKS`)."""
    import importlib

    problems = _dataset_checks("dataset", config["dataset"]) + _params_from_checks(config["models"])
    learn_ds = config["dincer2016"]["learning"]["dataset"]
    if learn_ds is not None:
        problems += _dataset_checks("dincer2016.learning.dataset", learn_ds)
    for name in SECTION_CHECKS:
        problems += importlib.import_module(name).config_problems(config)
    return problems


def _params_from_checks(models: dict) -> list[tuple[str, str]]:
    """``models.params_from``: each model takes the tuning of another trained model that searches
    its own grid, for keys that model has (:func:`evalrank.papers.common.modelstage.grid_from_tuned`)."""
    if not models["params_from"]:
        return []
    from evalrank.models import searched_keys

    problems = []
    names, grids = models["names"], models["grids"]
    for model, source in models["params_from"].items():
        key = f"models.params_from.{model}"
        searched = searched_keys(grids.get(model))
        if model not in names:
            problems.append((key, f"{model} is not in models.names {names}"))
        elif source not in names:
            problems.append((key, f"{source} is not in models.names {names}: its tuning would not be trained"))
        elif source == model:
            problems.append((key, f"{model} would take its own tuning; leave it out to search its grid"))
        elif source in models["params_from"]:
            problems.append((key, f"{source} takes its tuning from {models['params_from'][source]} itself: "
                                  "name a model that searches its own grid"))
        elif not searched:
            problems.append((key, f"models.grids.{model} searches no key (none has several values): nothing to take "
                                  f"from {source}"))
        else:
            from evalrank.models.zoo import MODELS

            foreign = [k for k in searched if k not in MODELS[source].param_names]
            if foreign:
                problems.append((key, f"{source} has no hyperparameter {', '.join(foreign)} that models.grids.{model} "
                                      "searches"))
    return problems


def _dataset_checks(key: str, ds: dict) -> list[tuple[str, str]]:
    """A dataset block's keys against each other (the generator's needs when it is synthetic)."""
    problems = []
    syn = ds["synthetic"]
    marg = syn["grade_marginals"]
    if marg is not None and len(marg) != ds["max_grade"] + 1:
        problems.append((f"{key}.synthetic.grade_marginals",
                         f"needs max_grade + 1 = {ds['max_grade'] + 1} shares, got {len(marg)}"))
    elif marg is not None and abs(sum(marg) - 1.0) > 1e-6:
        problems.append((f"{key}.synthetic.grade_marginals", f"shares must sum to 1, got {sum(marg):g}"))
    if ds["file"] is not None and ds["kind"] != "local":
        problems.append((f"{key}.file", f"is for kind 'local' only ({key}.kind is {ds['kind']!r})"))
    if ds["kind"] != "synthetic":
        return problems
    if marg is None and ds["max_grade"] != 4:
        problems.append((f"{key}.synthetic.grade_marginals", f"is needed for max_grade {ds['max_grade']} (the "
                         "default shares are MSLR's five grades 0..4)"))
    if ds["n_features"] < 15:
        problems.append((f"{key}.n_features", f"{ds['n_features']} is below 15: the generator keeps MSLR's "
                         "stream lengths (feature ids 11-15)"))
    if syn["mean_docs"] > syn["max_docs"]:
        problems.append((f"{key}.synthetic.mean_docs", f"{syn['mean_docs']} exceeds {key}.synthetic.max_docs = "
                         f"{syn['max_docs']}: no query may have more documents than that"))
    return problems


def load_config(path: str | Path, overrides: Mapping | None = None) -> dict:
    """Read a YAML config file (a key given twice is refused), apply ``overrides``
    (deep-merged) and validate."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"config file {path} does not exist")
    cfg = read_yaml(path)
    if cfg is None:
        cfg = {}
    if not isinstance(cfg, dict):
        kind = {"list": "a list", "int": "a number", "float": "a number", "str": "a string", "bool": "true/false",
                "bytes": "bytes"}.get(type(cfg).__name__, type(cfg).__name__)
        raise ValueError(f"{path}: a config file holds a mapping of keys (key: value lines), got {kind}")
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
    ``models.train_pairs`` and ``sawade2012.train_sizes`` against the pairs of each
    fold's training half (and that every size gives a different training set);
    the budgets of the savings table and Fig. 3 right against the pool's
    labelling cost; the risk protocol's query count. The workflow runs this
    before any expensive job (:mod:`evalrank.data.facts`).
    """
    problems = _feature_problems(config, facts)
    for f in config["folds"]:
        problems += _fold_problems(config, facts, f)
    problems += _risk_protocol_problems(config, facts)
    return sorted(set(problems), key=problems.index)


def _feature_problems(config: dict, facts) -> list[tuple[str, str]]:
    """:func:`data_problems`' feature checks: ids the data has, a cost feature that is a length."""
    problems = []
    ds, act, models, risk = config["dataset"], config["sawade2012"], config["models"], config["dincer2016"]
    models_on = models["enabled"]
    active_on = act["enabled"] and models_on
    pop, learn = risk["population"], risk["learning"]
    feature_keys = []
    if active_on and act["cost_feature"] is not None:
        feature_keys.append(("sawade2012.cost_feature", [act["cost_feature"]]))
    if risk["enabled"] and pop["enabled"]:
        feature_keys += [("dincer2016.population.features", pop["features"]),
                         ("dincer2016.population.baseline_feature", [pop["baseline_feature"]])]
    if risk["enabled"] and learn["enabled"] and learn["dataset"] is None:
        feature_keys.append(("dincer2016.learning.baseline_feature", [learn["baseline_feature"]]))
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
        problems.append(("sawade2012.cost_feature", f"feature {cost} is not a document length (it has negative or "
                         "non-integer values); set it to the dataset's length feature, or null for unit costs"))
    return problems


def _fold_problems(config: dict, facts, f: int) -> list[tuple[str, str]]:
    """:func:`data_problems`' checks of fold ``f``: training pairs and sizes against its
    training half, budgets against its pool's labelling cost."""
    from evalrank.models.split import split_query_indices

    act, models = config["sawade2012"], config["models"]
    models_on = models["enabled"]
    active_on = act["enabled"] and models_on
    ts = act["train_sizes"]
    sized = active_on and "rf" in models["names"] and ts["sizes"]
    sizes = facts.query_sizes[f]
    if sizes.size < 2:
        return [("folds", f"partition S{f} has {sizes.size} quer(ies); a training partition needs >= 2")]
    problems = []
    half = split_query_indices(sizes, train_pairs=None, seed=config["seed"])[0]
    cum = np.cumsum(sizes[half])
    available = int(cum[-1])
    where = f"the training half of partition S{f} (fold {f}) has {available:,} pairs in {half.size} queries"
    if models_on and models["train_pairs"] is not None and models["train_pairs"] > available:
        problems.append(("models.train_pairs", f"{models['train_pairs']:,} exceeds what {where}; "
                         f"set it to at most {available}"))
    if sized:
        problems += _train_size_problems(ts, cum, where, f)
    if active_on:
        pool = facts.pool_queries(f)
        for key, value in (("sawade2012.reference_budget", act["reference_budget"]),
                           ("sawade2012.train_sizes.budget", ts["budget"] if sized else None)):
            if value is not None and value >= pool:
                problems.append((key, f"{value:g} is at or above the labelling cost of fold {f}'s pool "
                                      f"({pool:,} units: costs have mean 1 over its {pool:,} queries), where "
                                      "every method labels the whole pool and nothing can be saved; choose "
                                      f"one of sawade2012.budgets below {pool:,}"))
    return problems


def _train_size_problems(ts: dict, cum: np.ndarray, where: str, f: int) -> list[tuple[str, str]]:
    """``sawade2012.train_sizes`` against the cumulative pairs ``cum`` of fold ``f``'s training
    queries: each size available, and each giving a different training set."""
    problems = []
    available = int(cum[-1])
    realized = {}
    for key, n in [("sawade2012.train_sizes.base", ts["base"])] + [("sawade2012.train_sizes.sizes", n)
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
    return problems


def _risk_protocol_problems(config: dict, facts) -> list[tuple[str, str]]:
    """:func:`data_problems`' check of the risk protocol's query count."""
    learn = config["dincer2016"]["learning"]
    if config["dincer2016"]["enabled"] and learn["enabled"] and learn["dataset"] is None:
        n = sum(facts.n_queries(p) for p in facts.query_sizes)
        need = 3 * (learn["n_folds"] + 1)
        if n < need:
            return [("dincer2016.learning.n_folds", f"the protocol needs >= 3 (n_folds + 1) = {need} queries, "
                                              f"the dataset has {n}")]
    return []
