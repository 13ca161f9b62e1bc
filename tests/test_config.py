import copy
from pathlib import Path

import numpy as np
import pytest
import yaml

from evalrank.config import RENAMED_SECTIONS, ConfigError, load_config, validate_config

ROOT = Path(__file__).resolve().parents[1]
MINIMAL = {"name": "t", "seed": 1, "dataset": {"kind": "synthetic", "root": "data/t"}}


def test_defaults_are_filled():
    cfg = validate_config(copy.deepcopy(MINIMAL))
    assert cfg["folds"] == [1]
    assert cfg["models"]["names"] == ["rf", "ordinal_rf", "ordered_logit", "ranksvm", "lambdamart"]
    assert cfg["dataset"]["synthetic"]["queries_per_partition"] == 250
    assert cfg["quality"]["k"] == 10


def test_quality_k_library_default_is_the_schema_default():
    """The library API's DEFAULT_K (calls without k) agrees with the schema, the workflow's one default."""
    from evalrank.models.quality import DEFAULT_K

    assert validate_config(copy.deepcopy(MINIMAL))["quality"]["k"] == DEFAULT_K


@pytest.mark.parametrize("path", ["config/config.yaml", "config/paper.yaml", "config/mq2008.yaml",
                                  "config/mq2008_synthetic.yaml", "tests/workflow/tiny.yaml"])
def test_shipped_configs_validate(path):
    load_config(ROOT / path)


@pytest.mark.parametrize(
    "patch, key, fragment",
    [
        ({"seed": -3}, "seed", "minimum"),
        ({"dataset": {"kind": "mslr-web40k", "root": "x"}}, "dataset.kind", "is not one of"),
        ({"folds": [0]}, "folds[0]", "minimum"),
        ({"models": {"train_pairs": "many"}}, "models.train_pairs", "not of type 'integer'"),
        ({"models": {"names": ["rf", "svm"]}}, "models.names[1]", "is not one of"),
        ({"models": {"grids": {"rf": {"n_estimators": []}}}}, "models.grids.rf.n_estimators", "non-empty"),
        ({"models": {"grids": {"rf": {"n_trees": [3]}}}}, "models.grids.rf.n_trees", "allowed: n_estimators"),
        ({"models": {"grids": {"ranksvm": {"alpha": [3]}}}}, "models.grids.ranksvm.alpha", "allowed: C"),
        ({"models": {"params_from": {"ordinal_rf": "svm"}}}, "models.params_from.ordinal_rf", "is not one of"),
        ({"models": {"names": ["ordinal_rf", "ordered_logit"], "params_from": {"ordinal_rf": "rf"}}},
         "models.params_from.ordinal_rf", "rf is not in models.names"),
        ({"models": {"names": ["rf", "ordered_logit"], "params_from": {"ordinal_rf": "rf"}}},
         "models.params_from.ordinal_rf", "ordinal_rf is not in models.names"),
        ({"models": {"params_from": {"rf": "rf"}}}, "models.params_from.rf", "take its own tuning"),
        ({"models": {"params_from": {"ordinal_rf": "rf", "rf": "ordered_logit"}}}, "models.params_from.ordinal_rf",
         "rf takes its tuning from ordered_logit itself"),
        ({"models": {"grids": {"ordinal_rf": {"n_estimators": [30]}}, "params_from": {"ordinal_rf": "rf"}}},
         "models.params_from.ordinal_rf", "searches no key"),
        ({"models": {"grids": {"ordinal_rf": {"min_samples_leaf": [5, 20]}}, "params_from": {"ordinal_rf": "ranksvm"}}},
         "models.params_from.ordinal_rf", "ranksvm has no hyperparameter min_samples_leaf"),
        ({"modles": {}}, "modles", "unknown key"),
        ({"sawade2012": {"budgets": [10, 5]}}, "sawade2012.budgets", "strictly increasing"),
        ({"sawade2012": {"reference_budget": 250}}, "sawade2012.reference_budget", "must be one of sawade2012.budgets"),
        ({"sawade2012": {"train_sizes": {"budget": 7}}}, "sawade2012.train_sizes.budget", "must be one of"),
        ({"sawade2012": {"measures": ["ndcg"]}}, "sawade2012.measures[0]", "is not one of"),
        ({"sawade2012": {"campaign": {"tune_budget": 150}}}, "sawade2012.campaign.tune_budget", "must be one of"),
        ({"sawade2012": {"campaign": {"budgets": [10, 10]}}}, "sawade2012.campaign.budgets", "strictly increasing"),
        ({"sawade2012": {"campaign": {"epsilons": [0.1, 1.5]}}}, "sawade2012.campaign.epsilons[1]", "maximum"),
        ({"sawade2012": {"shards": 2, "campaign": {"repetitions": 1}}}, "sawade2012.campaign.repetitions",
         "below sawade2012.shards"),
        ({"sawade2012": {"repetitions": 1}}, "sawade2012.repetitions", "minimum"),
        ({"dataset": {"kind": "synthetic"}}, "dataset.root", "is required"),
        ({"dataset": {"kind": "synthetic", "root": "x", "sha256": "abc"}}, "dataset.sha256", "does not match"),
        ({"dataset": {"kind": "synthetic", "root": "x", "max_grade": 2, "synthetic": {"grade_marginals": [0.5, 0.5]}}},
         "dataset.synthetic.grade_marginals", "needs max_grade + 1 = 3 shares"),
        ({"dataset": {"kind": "synthetic", "root": "x", "file": "all.txt"}}, "dataset.file",
         "is for kind 'local' only (dataset.kind is 'synthetic')"),
        ({"dataset": {"kind": "local", "root": "x", "file": ""}}, "dataset.file", "should be non-empty"),
        ({"dataset": {"kind": "mslr-excerpt", "root": "x", "file": "a.txt"}}, "dataset.file", "'local' only"),
        ({"models": {"enabled": False}}, "sawade2012.enabled", "needs the models stage"),
        ({"busafekete2012": {"learners": ["adarank", "ranksvm"]}}, "busafekete2012.fig1_learners", "must also be in busafekete2012.learners"),
        ({"busafekete2012": {"reference": "trec"}}, "busafekete2012.reference", "must be one of busafekete2012.train_conventions"),
        ({"busafekete2012": {"train_conventions": ["letor"]}}, "busafekete2012.train_conventions[0]", "is not one of"),
        ({"busafekete2012": {"grids": {"adarank": {"rounds": [3]}}}}, "busafekete2012.grids.adarank.rounds", "allowed: max_rounds"),
        ({"busafekete2012": {"grids": {"rf": {"n_estimators": [3]}}}}, "busafekete2012.grids.rf", "not allowed here; allowed: adarank"),
        ({"busafekete2012": {"params": {"lambdamart": {"num_leaves": 1}}}}, "busafekete2012.params.lambdamart.num_leaves", "minimum of 2"),
        ({"dincer2016": {"learning": {"baseline_params": {"gbrt": {"feature_fraction": 0}}}}},
         "dincer2016.learning.baseline_params.gbrt.feature_fraction", "less than or equal to the minimum of 0"),
        ({"dincer2016": {"learning": {"params": {"nrom": False}}}}, "dincer2016.learning.params.nrom", "allowed: num_leaves"),
        ({"dincer2016": {"learning": {"dataset": {"kind": "mq2008", "root": "x"}}}}, "dincer2016.learning.dataset.kind",
         "is not one of"),
        ({"dincer2016": {"learning": {"dataset": {"kind": "synthetic", "root": "x", "n_features": 10}}}},
         "dincer2016.learning.dataset.n_features", "below 15"),
        ({"dincer2016": {"population": {"train_fractions": [0.3, 0.3]}}}, "dincer2016.population.train_fractions", "non-unique"),
        ({"ozertem2011": {"world": {"history": ["rf", "rf"]}}}, "ozertem2011.world.history", "non-unique"),
        ({"wang2013": {"population": {"thresholds": [0.3, 1.2]}}}, "wang2013.population.thresholds[1]", "maximum"),
        ({"wang2013": {"lists": {"sizes": [10, 50, 20]}}}, "wang2013.lists.sizes", "strictly increasing"),
        ({"dataset": {"kind": "synthetic", "root": "x", "synthetic": {"mean_docs": 2000}}},
         "dataset.synthetic.mean_docs", "exceeds dataset.synthetic.max_docs = 1251"),
        ({"dataset": {"kind": "synthetic", "root": "x", "synthetic": {"grade_marginals": [0.5, 0.3, 0.1, 0.05, 0.01]}}},
         "dataset.synthetic.grade_marginals", "must sum to 1"),
        ({"dataset": {"kind": "synthetic", "root": "x", "synthetic": {"p_small": 1}}}, "dataset.synthetic.p_small",
         "maximum"),
        ({"models": {"train_pairs": 2.0e4}}, "models.train_pairs", "not an integer"),
        ({"dincer2016": {"population": {"test_partition": 1}}}, "dincer2016.population.test_partition", "must differ"),
        ({"dincer2016": {"population": {"baseline_feature": 5}}}, "dincer2016.population.baseline_feature", "must be one of"),
        ({"dincer2016": {"population": {"features": [110, 200]}}}, "dincer2016.population.features", "exceed dataset.n_features"),
        ({"dincer2016": {"population": {"measure": "map"}}}, "dincer2016.population.measure", "does not match"),
        ({"dincer2016": {"learning": {"folds": [1, 6]}}}, "dincer2016.learning.folds", "exceed dincer2016.learning.n_folds"),
        ({"dincer2016": {"learning": {"methods": ["z-risk"]}}}, "dincer2016.learning.methods[0]", "is not one of"),
        ({"dincer2016": {"learning": {"dataset": {"kind": "mslr-web10k"}}}}, "dincer2016.learning.dataset.root", "is required"),
        ({"models": {"enabled": False}, "active": {"enabled": False}}, "dincer2016.population.include_models",
         "needs the models stage"),
        ({"ozertem2011": {"world": {"baseline": "bm25"}}}, "ozertem2011.world.baseline", "must be in models.names"),
        ({"ozertem2011": {"world": {"alternatives": ["rf", "magic"]}}}, "ozertem2011.world.alternatives", "or 'oracle'"),
        ({"ozertem2011": {"world": {"k": 12}}}, "ozertem2011.world.k", "must not exceed ozertem2011.world.serp_depth"),
        ({"ozertem2011": {"grades": ["B", "G", "P"]}}, "ozertem2011.grades", "needs dataset.max_grade + 1 grades"),
        ({"ozertem2011": {"dbn": {"model": "ubm"}}}, "ozertem2011.dbn.model", "is not one of"),
        ({"ozertem2011": {"dbn": {"min_views": "ten"}}}, "ozertem2011.dbn.min_views", ""),
        ({"wang2013": {"measures": ["log2", "poly:0@frac:0.5"]}}, "wang2013.measures[1]", "beta"),
        ({"wang2013": {"measures": ["cosine"]}}, "wang2013.measures[0]", "is not known"),
        ({"wang2013": {"sizes": [100, 10]}}, "wang2013.sizes", "strictly increasing"),
        ({"wang2013": {"pairs": [["x", "good", "nobody"]]}}, "wang2013.pairs[0]", "not in wang2013.scorers"),
        ({"wang2013": {"scorers": {"a": {"weight": 2}, "b": {"weight": 0}}}}, "wang2013.scorers.a.weight", ""),
        ({"ozertem2011": {"dbn": {"min_views_grid": [0, 5]}}}, "ozertem2011.dbn.min_views_grid[0]", "less than the minimum"),
        ({"ozertem2011": {"smoothing": {"sigma": "auto"}}}, "ozertem2011.smoothing.sigma", ""),
        ({"ozertem2011": {"paper_tests": 200}}, "ozertem2011.paper_tests", "exceeds ozertem2011.world.n_tests"),
        ({"sawade2012": {"shards": 9, "repetitions": 8}}, "sawade2012.shards", "exceeds sawade2012.repetitions"),
        ({"sawade2012": {"cost_feature": 140}}, "sawade2012.cost_feature", "exceeds dataset.n_features = 136"),
        ({"ozertem2011": {"fold": 3}}, "ozertem2011.fold", "fold 3 is not in folds [1]"),
        ({"dataset": {"kind": "synthetic", "root": "x", "synthetic": {"feature_norm": "query"}}},
         "sawade2012.cost_feature", "no feature is a document length"),
        ({"dincer2016": {"population": {"fold": 2, "test_partition": 5}}}, "dincer2016.population.fold", "not in folds [1]"),
    ],
)
def test_bad_values_name_their_key(patch, key, fragment):
    cfg = copy.deepcopy(MINIMAL)
    cfg.update(patch)
    with pytest.raises(ConfigError) as exc:
        validate_config(cfg)
    assert key in exc.value.keys
    assert f"'{key}'" in str(exc.value) and fragment in str(exc.value)


def test_load_config_overrides_and_missing_file(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text(yaml.safe_dump(MINIMAL))
    cfg = load_config(p, overrides={"models": {"train_pairs": 500}})
    assert cfg["models"]["train_pairs"] == 500
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load_config(tmp_path / "nope.yaml")


def test_workflow_schema_is_the_packaged_schema():
    from evalrank.config import schema_path

    wf = ROOT / "workflow" / "schemas" / "config.schema.yaml"
    assert wf.read_text() == schema_path().read_text()


def test_schema_grid_parameters_are_the_models_parameters():
    """The schema's per-model parameters (grids and fixed values) are exactly what each model
    accepts, and each model's own defaults, default grid and paper grid pass the schema's types."""
    from evalrank.config import _validator_class, schema_path
    from evalrank.models.zoo import MODELS, PAPER_GRIDS, default_grids

    schema = yaml.safe_load(schema_path().read_text())
    grids = schema["$defs"]["model_grids"]["properties"]  # models.grids and busafekete2012.grids both use it
    params = schema["$defs"]["params"]["properties"]  # busafekete2012.params, dincer2016.learning.baseline_params
    assert set(grids) == set(params) == set(MODELS)
    assert schema["$defs"]["model_name"]["enum"] == list(MODELS)  # models.names, models.params_from, wang2013 rankers
    for name, cls in MODELS.items():
        assert list(grids[name]["properties"]) == list(params[name]["properties"]) == list(cls.param_names), name
        one = {"$defs": schema["$defs"], **params[name]}
        assert not list(_validator_class()(one).iter_errors(cls.default_params())), name
        for grid in (default_grids()[name], PAPER_GRIDS[name]):
            assert not list(_validator_class()({"$defs": schema["$defs"], **grids[name]}).iter_errors(grid)), name


@pytest.mark.parametrize("path", ["config/config.yaml", "config/paper.yaml", "config/mq2008.yaml",
                                  "config/mq2008_synthetic.yaml", "tests/workflow/tiny.yaml"])
def test_shipped_grids_build_models(path):
    from evalrank.models import expand_grid
    from evalrank.models.zoo import MODELS

    cfg = load_config(ROOT / path)
    for name, grid in list(cfg["models"]["grids"].items()) + list(cfg["busafekete2012"]["grids"].items()):
        points = expand_grid(grid, MODELS[name].param_names)
        assert points and all(set(p) <= set(MODELS[name].param_names) for p in points)


# -- checks against the data --------------------------------------------------------
def _facts(queries=(20, 20, 20, 20, 20), docs=10, n_features=136, used=136, length_like=None):
    from evalrank.data.facts import DataFacts

    sizes = {k + 1: np.full(n, docs, dtype=np.int64) for k, n in enumerate(queries)}
    return DataFacts(query_sizes=sizes, n_features=n_features, used_features=used,
                     length_like=None if length_like is None else frozenset(length_like), source="test")


def _keys(problems):
    return [k for k, _ in problems]


def test_data_checks_pass_on_a_fitting_dataset():
    from evalrank.config import data_problems

    cfg = validate_config({**MINIMAL, "models": {"train_pairs": 100},
                           "active": {"budgets": [5, 10, 100, 400], "reference_budget": 10,
                                      "train_sizes": {"base": 50, "sizes": [70, 90], "budget": 5}}})
    assert data_problems(cfg, _facts(queries=(40, 40, 40, 40, 40))) == []  # pool of 160 < 400: whole pool there


@pytest.mark.parametrize(
    "patch, facts, key, fragment",
    [
        ({"models": {"train_pairs": 5000}}, {}, "models.train_pairs", "training half of partition S1 (fold 1) has 100"),
        ({"sawade2012": {"train_sizes": {"base": 50, "sizes": [60, 500], "budget": 5}, "reference_budget": 10,
                     "budgets": [5, 10]}, "models": {"train_pairs": 80}}, {}, "sawade2012.train_sizes.sizes",
         "500 exceeds"),
        ({"sawade2012": {"train_sizes": {"base": 51, "sizes": [55], "budget": 5}, "reference_budget": 10,
                     "budgets": [5, 10]}, "models": {"train_pairs": 80}}, {}, "sawade2012.train_sizes.sizes",
         "55 and 51 pairs give the same training set on S1 (60 pairs"),
        ({}, {}, "sawade2012.reference_budget", "at or above the labelling cost of fold 1's pool (80 units"),
        ({"sawade2012": {"reference_budget": 10, "budgets": [10, 100]}}, {}, "sawade2012.train_sizes.budget", "pool (80 units"),
        ({}, {"used": 46}, "dincer2016.population.features", "highest non-zero feature id is 46"),
        ({}, {"used": 46}, "dincer2016.learning.baseline_feature", "are 0 in every document"),
        ({}, {"length_like": [11, 12]}, "sawade2012.cost_feature", "feature 15 is not a document length"),
        ({"dincer2016": {"learning": {"n_folds": 40}}}, {}, "dincer2016.learning.n_folds", "needs >= 3 (n_folds + 1) = 123"),
    ],
)
def test_data_checks_name_their_key(patch, facts, key, fragment):
    from evalrank.config import data_problems

    cfg = copy.deepcopy(MINIMAL)
    cfg.update({"models": {"train_pairs": 60}, **patch})
    cfg = validate_config(cfg)
    problems = data_problems(cfg, _facts(**facts))
    assert key in _keys(problems), problems
    assert any(fragment in msg for k, msg in problems if k == key), problems


def test_unit_costs_and_disabled_stages_skip_their_checks():
    from evalrank.config import data_problems

    cfg = validate_config({**MINIMAL, "models": {"train_pairs": 60}, "active": {"cost_feature": None},
                           "risk": {"enabled": False}})
    problems = data_problems(cfg, _facts(length_like=[], used=46))
    assert "sawade2012.cost_feature" not in _keys(problems) and not any(k.startswith("risk") for k in _keys(problems))
    cfg = validate_config({**MINIMAL, "models": {"enabled": False}, "active": {"enabled": False},
                           "risk": {"enabled": False}, "clicks": {"enabled": False}})
    assert data_problems(cfg, _facts(queries=(3, 3, 3, 3, 3))) == []


@pytest.mark.parametrize("path", ["config/config.yaml", "config/mq2008_synthetic.yaml", "tests/workflow/tiny.yaml"])
def test_shipped_synthetic_configs_fit_their_data(path):
    from evalrank.config import data_problems
    from evalrank.data.facts import synthetic_facts

    cfg = load_config(ROOT / path)
    assert data_problems(cfg, synthetic_facts(cfg)) == []


# -- issue 29: bad configs refused before any job, defaults in the schema only --------------------
BAD = [  # (YAML text after name/seed/dataset, dotted key, message fragment)
    ("models: {grids: {rf: {n_estimators: [-1]}}}", "models.grids.rf.n_estimators[0]", "-1 is less than the minimum of 1"),
    ("models: {grids: {rf: {n_estimators: [many]}}}", "models.grids.rf.n_estimators[0]", "'many' is not of type 'integer'"),
    ("models: {grids: {rf: {max_features: [1.5]}}}", "models.grids.rf.max_features[0]", "1.5 is not allowed: Features"),
    ("models: {grids: {rf: {max_features: 1.5}}}", "models.grids.rf.max_features", "1.5 is not of type 'array'"),
    ("models: {grids: {rf: {min_samples_leaf: [1.0]}}}", "models.grids.rf.min_samples_leaf[0]", "1.0 is not allowed"),
    ("sawade2012: {train_sizes: {sizes: [100, 100]}}", "sawade2012.train_sizes.sizes", "[100, 100] has non-unique elements"),
    ("dataset: {kind: synthetic, root: d, synthetic: {queries_per_partition: 1e9}}",
     "dataset.synthetic.queries_per_partition", "'1e9' is text, not a number"),
    ("dataset: {kind: synthetic, root: d, synthetic: {queries_per_partition: 1.0e+9}}",
     "dataset.synthetic.queries_per_partition", "greater than the maximum of 999999"),
    ("dataset: {kind: synthetic, root: d, synthetic: {queries_per_partition: 1000000}}",
     "dataset.synthetic.queries_per_partition", "query ids are partition x 10^6 + i"),
    ("dataset: {kind: synthetic, root: d, synthetic: {queries_per_partition: 250.0}}",
     "dataset.synthetic.queries_per_partition", "250.0 is not an integer"),
    ("seed: 2", "seed", ":2 and again at "),
    ("models:\n  grids:\n    rf: {n_estimators: [3]}\n    rf: {n_estimators: [4]}", "models.grids.rf", ":6 and again at "),
    ("wang2013:\n  pairs:\n    - [far, good, poor]\n    - {a: 1, a: 2}", "wang2013.pairs[1].a", "given twice"),
]


def _bad_file(tmp_path, extra):
    p = tmp_path / "bad.yaml"
    head = "name: t\nseed: 1\n"
    if not extra.startswith("dataset:"):
        head += "dataset: {kind: synthetic, root: d}\n"
    p.write_text(head + extra + "\n")
    return p


@pytest.mark.parametrize("extra, key, fragment", BAD)
def test_bad_config_files_name_their_key(tmp_path, extra, key, fragment):
    p = _bad_file(tmp_path, extra)
    with pytest.raises(ConfigError) as exc:
        load_config(p)
    assert exc.value.keys == [key], str(exc.value)
    msg = str(exc.value)
    assert "\n" not in msg and msg.startswith(f"invalid configuration: config key '{key}': ") and fragment in msg, msg
    if "given twice" in msg or "again" in msg:
        assert f"{p}:" in msg


@pytest.mark.parametrize("extra, key, fragment", BAD)
def test_validate_config_cli_refuses_bad_configs(tmp_path, extra, key, fragment):
    """`evalrank validate-config` exits 1 with one line naming the key, no traceback, nothing on stdout."""
    from cli_run import evalrank

    out = evalrank("validate-config", _bad_file(tmp_path, extra))
    assert out.returncode == 1 and out.stdout == "", out
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr, out.stderr
    assert out.stderr.startswith(f"evalrank validate-config: error: invalid configuration: config key '{key}': ")
    assert fragment in out.stderr


def test_duplicate_keys_are_refused_at_any_level_but_merges_are_allowed(tmp_path):
    from evalrank.config import read_yaml

    p = tmp_path / "c.yaml"
    p.write_text("base: &b {x: 1, y: 2}\nuse:\n  <<: *b\n  x: 3\nlist:\n  - {k: 1}\n  - {k: 2}\n")
    assert read_yaml(p)["use"] == {"x": 3, "y": 2}
    p.write_text("a:\n  b:\n    c: 1\n    d: 2\n    c: 3\n")
    with pytest.raises(ConfigError, match=r"config key 'a\.b\.c': given twice, at .*c\.yaml:3 and again at .*c\.yaml:5"):
        read_yaml(p)


def test_the_pipeline_check_refuses_duplicates_in_its_config_files(tmp_path):
    """The Snakefile passes workflow.configfiles: Snakemake's own YAML reader keeps the last key."""
    p = tmp_path / "c.yaml"
    p.write_text("name: t\nseed: 1\ndataset: {kind: synthetic, root: d}\nfolds: [1]\nfolds: [2]\n")
    merged = yaml.safe_load(p.read_text())  # what Snakemake hands the Snakefile: folds [2]
    with pytest.raises(ConfigError, match="config key 'folds': given twice"):
        validate_config(merged, files=[p, ROOT / "config" / "config.yaml"])
    validate_config(copy.deepcopy(MINIMAL), files=[ROOT / "config" / "config.yaml"])


def _schema_nodes():
    """(dotted key, merged schema of the key) for every property of the schema, through $refs."""
    from evalrank.config import _schema, _views

    root = _schema(None)
    out = []

    def walk(subs, path):
        views = _views(subs, root)
        props = {}
        for view in views:
            for k, s in view.get("properties", {}).items():
                props.setdefault(k, []).append(s)
            if isinstance(view.get("additionalProperties"), dict):
                props.setdefault("*", []).append(view["additionalProperties"])
        for k, s in props.items():
            merged = {}
            for v in reversed(_views(s, root)):
                merged.update(v)
            out.append((f"{path}.{k}" if path else k, merged))
            walk(s, f"{path}.{k}" if path else k)

    walk([root], "")
    for name, sub in root["$defs"].items():  # the definitions themselves
        walk([sub], f"$defs.{name}")
    return out


@pytest.mark.parametrize("dataset", [
    {"kind": "local", "root": "data/letor"},
    {"kind": "local", "root": "data", "file": "all.txt"},
    {"kind": "mslr-excerpt", "root": "data/mslr-excerpt"},
])
def test_dataset_layouts_validate(dataset):
    cfg = validate_config({**copy.deepcopy(MINIMAL), "dataset": dataset})
    assert cfg["dataset"]["file"] == dataset.get("file")


def test_every_schema_key_has_a_type_and_a_description():
    nodes = _schema_nodes()
    assert len(nodes) > 300
    for key, s in nodes:
        assert isinstance(s.get("description"), str) and s["description"].strip(), f"{key}: no description"
        assert any(k in s for k in ("type", "enum", "const", "oneOf", "anyOf")), f"{key}: no type"


def test_schema_has_one_dataset_block():
    """dataset and dincer2016.learning.dataset share $defs/dataset; the second only narrows it."""
    from evalrank.config import schema_path

    schema = yaml.safe_load(schema_path().read_text())
    main = schema["properties"]["dataset"]
    learn = schema["properties"]["dincer2016"]["properties"]["learning"]["properties"]["dataset"]
    assert main["$ref"] == learn["$ref"] == "#/$defs/dataset" and "properties" not in main
    assert set(learn["properties"]) == {"kind", "synthetic"}
    assert set(learn["properties"]["synthetic"]["properties"]) == {"queries_per_partition"}
    cfg = validate_config({**copy.deepcopy(MINIMAL), "risk": {"learning": {"dataset": {"kind": "synthetic",
                                                                                        "root": "x"}}}})
    learn_ds, main_ds = cfg["dincer2016"]["learning"]["dataset"], cfg["dataset"]
    assert learn_ds["synthetic"]["queries_per_partition"] == 2000 and main_ds["synthetic"]["queries_per_partition"] == 250
    assert {k: v for k, v in learn_ds["synthetic"].items() if k != "queries_per_partition"} == \
           {k: v for k, v in main_ds["synthetic"].items() if k != "queries_per_partition"}


def test_schema_default_gives_the_filled_default():
    from evalrank.config import schema_default

    assert schema_default("dataset.n_features") == 136
    assert schema_default("dataset.synthetic") == validate_config(copy.deepcopy(MINIMAL))["dataset"]["synthetic"]
    assert schema_default("dincer2016.learning.dataset.synthetic")["queries_per_partition"] == 2000
    assert schema_default("dincer2016")["learning"]["dataset"] is None
    with pytest.raises(KeyError, match="no default"):
        schema_default("dataset.root")
    with pytest.raises(KeyError, match="not a key"):
        schema_default("dataset.nope")


def test_config_py_restates_no_schema_default():
    """config.py reads config values by key: no `.get(KEY, default)` on a key of the schema (the
    defaults are filled from the schema before any check runs)."""
    import ast

    import evalrank.config as config_module

    keys = {key.rsplit(".", 1)[-1] for key, _ in _schema_nodes()} - {"*"}
    tree = ast.parse(Path(config_module.__file__).read_text())
    restated = [(node.lineno, node.args[0].value) for node in ast.walk(tree)
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
                and node.args and isinstance(node.args[0], ast.Constant) and node.args[0].value in keys]
    assert restated == [], f"config.py reads these keys with .get(): {restated}"


def test_each_papers_section_is_checked_next_to_its_stages():
    """config.SECTION_CHECKS names one checks module per paper folder, each with config_problems."""
    import importlib
    import pathlib

    from evalrank import config as cfg

    papers = pathlib.Path(cfg.__file__).parent / "papers"
    folders = sorted(p.name for p in papers.iterdir() if p.is_dir() and p.name != "common" and (p / "stages.py").exists())
    assert sorted(n.split(".")[2] for n in cfg.SECTION_CHECKS) == folders
    for name in cfg.SECTION_CHECKS:
        assert callable(importlib.import_module(name).config_problems), name


@pytest.mark.parametrize("old", sorted(RENAMED_SECTIONS))
def test_old_section_names_are_read_for_one_release(tmp_path, capsys, old):
    """A config written with a section's old name (issue 29: one name per paper) loads to the
    same config as with the paper's name, says so once on stderr, and an overlay under the old
    name lands on the new section (as Snakemake merges a user's --configfile over config.yaml)."""
    new = RENAMED_SECTIONS[old]
    text = (ROOT / "config/config.yaml").read_text(encoding="utf-8")
    assert f"\n{new}:" in text and f"\n{old}:" not in text
    p = tmp_path / "old.yaml"
    p.write_text(text.replace(f"\n{new}:", f"\n{old}:"), encoding="utf-8")
    capsys.readouterr()
    assert load_config(p) == load_config(ROOT / "config/config.yaml")
    err = capsys.readouterr().err
    assert f"config key '{old}' is now '{new}'" in err and err.count("is now") == 1
    base = load_config(ROOT / "config/config.yaml")
    merged = copy.deepcopy(base)
    merged[old] = {"enabled": not base[new]["enabled"]}
    validate_config(merged)
    assert old not in merged and merged[new]["enabled"] is (not base[new]["enabled"])
    assert {k: v for k, v in merged[new].items() if k != "enabled"} == {k: v for k, v in base[new].items()
                                                                         if k != "enabled"}


def test_an_unknown_old_style_section_is_still_refused():
    with pytest.raises(ConfigError) as exc:
        validate_config({"name": "x", "seed": 1, "dataset": {"kind": "synthetic"}, "riskk": {}})
    assert "riskk" in str(exc.value)


# -- issue 49: the name, YAML that is not a config, bytes that are not text -------------------
@pytest.mark.parametrize("name, fragment", [
    ("a" * 300, "is longer than 100 characters"),          # the dry run's 'File name too long' traceback
    ("a" * 1_000_000, "(1,000,000 characters in all) is longer than 100 characters"),
    ("..", "does not match"),  # results/.. is the working directory
    (".hidden", "not starting with '.'"),
])
def test_the_name_is_one_folder_name_and_its_message_is_short(name, fragment):
    cfg = copy.deepcopy(MINIMAL) | {"name": name}
    with pytest.raises(ConfigError) as exc:
        validate_config(cfg)
    msg = str(exc.value)
    assert exc.value.keys == ["name"] and fragment in msg and len(msg) < 1000, msg[:2000]


def _alias_bomb(levels=8) -> str:
    lines = ["name: t", "seed: 1", "dataset: {kind: synthetic, root: d}", "a0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, levels + 1)]
    return "\n".join(lines + [f"folds: *a{levels}"]) + "\n"


def test_an_alias_bomb_is_refused_at_its_line_in_one_short_message(tmp_path):
    from cli_run import evalrank

    p = tmp_path / "bomb.yaml"
    p.write_text(_alias_bomb())
    assert len(p.read_bytes()) < 2500
    out = evalrank("validate-config", p)
    assert out.returncode == 1 and out.stdout == "" and out.stderr.count("\n") == 1, out.stderr[:2000]
    assert f"{p}:8: this value expands, through YAML aliases" in out.stderr and "100,000 values" in out.stderr


def test_a_few_aliases_are_fine(tmp_path):
    from evalrank.config import read_yaml

    p = tmp_path / "ok.yaml"
    p.write_text(_alias_bomb(levels=3))  # 1,111 values
    assert len(read_yaml(p)["a3"]) == 10


@pytest.mark.parametrize("raw, where, fragment", [
    (b"name: caf\xe9\nseed: 1\n", ":1: not UTF-8 text (byte 0xe9 at offset 9", "save the file as UTF-8"),
    (b"\xef\xbb\xbfname: t\nseed: 1\nx: \xff\xfe\n", ":3: not UTF-8 text (byte 0xff at offset 22", "invalid start byte"),
    (b"name: t\nseed: [1\n", ":3:1: not valid YAML", "expected ','"),
    (b"name: !!python/object/apply:os.system [echo hi]\n", ":1:7: not valid YAML", "python/object/apply"),
])
def test_files_that_are_not_yaml_text_name_file_and_line(tmp_path, raw, where, fragment):
    from cli_run import evalrank

    p = tmp_path / "c.yaml"
    p.write_bytes(raw)
    out = evalrank("validate-config", p)
    assert out.returncode == 1 and out.stderr.count("\n") == 1, out.stderr
    assert out.stderr.startswith(f"evalrank validate-config: error: {p}{where}") and fragment in out.stderr, out.stderr


def test_the_default_configs_comment_names_every_dataset_kind():
    """config/config.yaml's comment on dataset.kind lists the schema's kinds, all of them."""
    import re
    from pathlib import Path

    import yaml

    root = Path(__file__).resolve().parents[1]
    schema = yaml.safe_load((root / "src" / "evalrank" / "schemas" / "config.schema.yaml").read_text())
    kinds = schema["$defs"]["dataset"]["properties"]["kind"]["enum"]
    line = next(l for l in (root / "config" / "config.yaml").read_text().splitlines() if l.strip().startswith("kind:"))
    listed = [k.strip() for k in re.sub(r"^[^#]*#", "", line).split("|")]
    assert sorted(listed) == sorted(kinds), (listed, kinds)
