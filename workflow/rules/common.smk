# Paths, wildcards and small helpers shared by every stage.
from pathlib import Path

from snakemake.logging import logger

from evalrank.cli.common import shell_python_problem
from evalrank.cli.common import stage_flags as flags
from evalrank.config import ConfigError, data_problems
from evalrank.data.datasets import fold_file, get_spec, missing_files, partition_file
from evalrank.data.layout import local_layout, spec_layout
from evalrank.data.facts import read_facts, synthetic_facts
from evalrank.io import damaged_archives
from evalrank.seeds import int_seed

if (_why := shell_python_problem()) is not None:  # every job would fail alone, "No module named evalrank"
    raise WorkflowError(_why)

RESULTS = f"results/{config['name']}"
LOGS = f"{RESULTS}/logs"
BENCH = f"{RESULTS}/benchmarks"
#: Scheduling priority (Snakemake's ``priority:``) of the rules on the default DAG's longest chain:
#: data -> split -> train -> predict -> the active stage (~45 jobs) -> findings. Without it the
#: scheduler, which prefers ready jobs with large inputs, started the independent risk, NDCG and
#: theory jobs first: in make run (2026-11-26) the model stage began at 7:51 and the active stage
#: ended the run alone. Priorities only order ready jobs; no output depends on them.
CRITICAL_PATH = 10
DS = config["dataset"]
FOLDS = config["folds"]
PARTITIONS = [1, 2, 3, 4, 5]


class Dataset:
    """One dataset of the config: its config section, spec, raw folder, its files' layout
    (evalrank.data.layout; None for the synthetic dataset) and parsed partitions."""

    def __init__(self, key, ds, prefix, parsed, seed):
        self.key, self.config, self.prefix, self.parsed, self.seed = key, ds, prefix, parsed, seed
        self.root = ds["root"]
        self.spec = get_spec(ds["kind"], **{k: ds[k] for k in ("url", "sha256") if ds[k]},
                             n_features=ds["n_features"], max_grade=ds["max_grade"])
        try:
            self.layout = (None if self.spec.kind == "synthetic" else
                           local_layout(self.root, ds["file"], key=key) if self.spec.kind == "local" else
                           spec_layout(self.spec, self.root))
        except (OSError, ValueError) as e:
            raise WorkflowError(str(e)) from None

    def partition_files(self):
        return [str(partition_file(self.root, p)) for p in PARTITIONS]

    def source_files(self):
        """The text files the parsed partitions come from (S1..S5's own files unless derived)."""
        return self.partition_files() if self.layout is None else [str(p) for p in self.layout.sources]

    def parsed_files(self):
        return [f"{self.parsed}/S{p}.npz" for p in PARTITIONS]

    def layout_files(self):
        return [str(fold_file(self.root, f, s)) for f in self.spec.folds for s in self.spec.splits]


DATASETS = [Dataset("dataset", DS, "", f"{RESULTS}/data", config["seed"])]
SPEC = DATASETS[0].spec
if config["dincer2016"]["learning"]["dataset"] is not None:
    # a synthetic learning dataset gets a stream of its own, not the main dataset's
    DATASETS.append(Dataset("dincer2016.learning.dataset", config["dincer2016"]["learning"]["dataset"], "risk_",
                            f"{RESULTS}/dincer2016/learning/data", int_seed(config["seed"], "risk-learning-data")))
MODELS = config["models"]["names"]


def model_threads(model):
    """The threads of a train / predict job of ``model`` (a models.names entry, or rf_n<pairs>: an
    rf): models.threads, or fewer where the learner keeps fewer busy (its class's threads_used,
    e.g. RankSVM's one-threaded liblinear), so that no declared core idles."""
    import re

    from evalrank.models.zoo import MODELS as CLASSES

    base = re.sub(r"_n[0-9]+$", "", model)
    used = CLASSES[base].threads_used if base in CLASSES else None
    return config["models"]["threads"] if used is None else min(used, config["models"]["threads"])


def pool_parts(fold):
    return [p for p in PARTITIONS if p != int(fold)]


def synthesize_options(ds):
    """The generator's settings of a dataset config section: `evalrank stage synthesize`'s options."""
    syn = ds["synthetic"]
    return dict(n_features=ds["n_features"], queries_per_partition=syn["queries_per_partition"],
                mean_docs=syn["mean_docs"], p_no_relevant=syn["p_no_relevant"], p_small=syn["p_small"],
                max_docs=syn["max_docs"], feature_norm=syn["feature_norm"], grade_marginals=syn["grade_marginals"])


def dataset_outputs():
    return [f"{RESULTS}/data/summary.csv", f"{RESULTS}/data/dataset.png"]


def model_outputs():
    if not config["models"]["enabled"]:
        return []
    return expand(
        [f"{RESULTS}/fold{{fold}}/quality/quality.csv", f"{RESULTS}/fold{{fold}}/quality/quality.png"],
        fold=FOLDS,
    ) + expand(f"{RESULTS}/fold{{fold}}/quality/reliability/{{model}}.png", fold=FOLDS, model=MODELS)


def train_options(model, tuned=None):
    """`evalrank stage train`'s options for a model of models.names (models.smk); tuned: the model
    file whose hyperparameters it reuses instead of searching the grid (train_sized, sawade2012.smk)."""
    return flags(model=model, grid=config["models"]["grids"].get(model, {}), params_from=tuned,
                 n_grades=DS["max_grade"] + 1, seed=config["seed"])


def tuning_source(fold, model):
    """train_model's input: the fitted model of models.params_from whose tuning ``model`` takes
    (then it searches no grid of its own), or [] (it searches its grid)."""
    source = config["models"]["params_from"].get(model)
    return f"{RESULTS}/fold{fold}/models/{source}.skops" if source else []


def in_report(path, caption, category, subcategory=None):
    """An output marked for `snakemake --report`: its caption workflow/report/<caption> (one per
    figure), the stage's category, and the subcategory Tables (.csv) or Figures unless given."""
    first = path if isinstance(path, str) else path[0]
    if subcategory is None:
        subcategory = "Tables" if first.endswith(".csv") else "Figures"
    return report(path, caption=f"../report/{caption}", category=category, subcategory=subcategory)


def output_dir(wildcards, output):
    """params function: the folder of a rule's first output (a stage's --out-dir)."""
    return str(Path(output[0]).parent)


def input_dir(wildcards, input):
    """params function: the folder of a rule's first input."""
    return str(Path(input[0]).parent)


def _config_file(path):
    """A file named in the config: as given if it exists from the working directory (or is
    absolute), else relative to the workflow's root (the shipped config/dincer2016/*.csv when the DAG
    runs with --directory elsewhere)."""
    p = Path(path)
    return str(p) if p.is_absolute() or p.exists() else str(Path(workflow.basedir) / p)


# -- damaged outputs: a truncated .npz of an earlier run (full disk, a copy cut short) would be
# taken as finished. A run that executes jobs removes it, so that the DAG rebuilds it and everything
# after it; a dry run (-n), --touch, --summary, --dag and the like only name it and change nothing.
# While this file is parsed Snakemake 9 cannot tell which (workflow.dryrun is False until the
# executor is chosen, after parsing), so the removal waits for the input function of `rule all`, the
# default target: the first code Snakemake calls once it knows, before it looks at any file. A run
# with other targets keeps the file and says so (damaged_kept, the Snakefile's onstart). The
# Snakemake inside a cluster job does not look.
DAMAGED = damaged_archives(RESULTS) if workflow.is_main_process and Path(RESULTS).exists() else []
_damaged_seen = []


def handle_damaged():
    """Remove the damaged archives in a run that executes jobs, else name them (once)."""
    if _damaged_seen or not DAMAGED:
        return
    _damaged_seen.append(True)
    executing = workflow.executor_plugin is not None and not workflow.dryrun and not workflow.touch
    for bad in DAMAGED:
        if executing:
            logger.warning(f"{bad} is damaged (not a complete .npz archive): removed, the workflow rebuilds it")
            bad.unlink(missing_ok=True)
        else:
            logger.warning(f"{bad} is damaged (not a complete .npz archive): left as it is; a run "
                           "(without -n) removes and rebuilds it")


def damaged_kept():
    """The Snakefile's onstart (a run that executes jobs, after its DAG is built): name the damaged
    archives a run with targets other than `all` leaves as they are."""
    if not _damaged_seen:
        for bad in DAMAGED:
            logger.warning(f"{bad} is damaged (not a complete .npz archive) and left as it is: this run's "
                           "targets do not include rule all; a run without targets removes and rebuilds it")


# -- data-tied config checks (evalrank.config.data_problems), before any expensive job --------
FACTS_FILE = f"{RESULTS}/data/facts.json"


def check_data_config(facts):
    problems = data_problems(config, facts)
    if problems:
        raise WorkflowError(f"the configuration does not fit the dataset ({facts.source}):\n{ConfigError(problems)}")


def _fresh_facts():
    """The facts file of an earlier run if it is newer than every partition it describes."""
    facts = Path(FACTS_FILE)
    if not facts.exists():
        return None
    parts = [Path(f"{RESULTS}/data/S{p}.npz") for p in PARTITIONS] + [Path(f) for f in DATASETS[0].source_files()]
    if not all(p.exists() for p in parts[: len(PARTITIONS)]):
        return None
    newest = max(p.stat().st_mtime for p in parts if p.exists())
    return read_facts(facts) if facts.stat().st_mtime >= newest else None


if SPEC.kind == "synthetic":
    # the generator's settings determine the facts: check now, while the DAG is built
    check_data_config(synthetic_facts(config))
elif (_known := _fresh_facts()) is not None:
    check_data_config(_known)


def data_checked(wildcards):
    """Input of the rules that start expensive branches (splits, NDCG and risk training):
    the data_facts checkpoint's file, once the config passed the checks against it
    (for the synthetic dataset again, now with the feature values known)."""
    path = checkpoints.data_facts.get().output[0]
    check_data_config(read_facts(path))
    return path


# == Per stage: its config section, paths, parameter helpers and targets (the stage's rules are
# in <stage>.smk). A *_outputs() helper lists what the stage makes when it is enabled; rule all
# asks for get_final_output(), all of them.


# -- Active evaluation, Sawade et al. 2012 (sawade2012.smk) ------------------------------------
from evalrank.papers.sawade2012.experiments import experiments as _experiments

ACT = config["sawade2012"]
_TS = ACT["train_sizes"]
SIZES = _TS["sizes"] if "rf" in MODELS else []
# Fig. 3 centre/right's base RF: the fold's own rf when it has the base size (same split,
# grid and seed: the same model), else an RF tuned on base pairs; the larger sizes reuse
# its hyperparameters instead of searching the grid again
SIZED_BASE = "rf" if _TS["base"] == config["models"]["train_pairs"] else f"rf_n{_TS['base']}"
EXPERIMENTS = {
    e.name: e
    for e in _experiments(
        MODELS, drop=ACT["index_update_drop"], base_pairs=_TS["base"], sizes=SIZES, base_model=SIZED_BASE
    )
}
SHARDS = list(range(ACT["shards"]))


def experiment_options(name):
    """An active experiment's options of `evalrank stage active-setup`."""
    return dict(experiment=name, models=MODELS, drop=ACT["index_update_drop"], base_pairs=_TS["base"],
                base_model=SIZED_BASE, sizes=SIZES)


def active_outputs():
    if not ACT["enabled"] or not EXPERIMENTS:
        return []
    figs = [f"{RESULTS}/sawade2012/{f}_{m}.png" for m in ACT["measures"] for f in ("fig1", "fig2", "fig3")]
    if SIZES:
        figs += [f"{RESULTS}/sawade2012/fig3_train_size_{m}.png" for m in ACT["measures"]]
    return [
        f"{RESULTS}/sawade2012/savings.csv",
        f"{RESULTS}/sawade2012/curves.csv",
        f"{RESULTS}/sawade2012/costs.png",
        f"{RESULTS}/sawade2012/coverage.csv",
        f"{RESULTS}/sawade2012/coverage.png",
        f"{RESULTS}/sawade2012/campaign_coverage.csv",
        f"{RESULTS}/sawade2012/label_model_check.csv",
        f"{RESULTS}/sawade2012/label_model_split.csv",
    ] + figs


# -- NDCG conventions, Busa-Fekete et al. 2012 (busafekete2012.smk) ---------------------------

NDCG = config["busafekete2012"]


def ndcg_fold_runs():
    """(learner, training convention) of each run of a fold, in the order of ndcg_runs(): Fig. 1's
    learners under every training convention, the others under the reference (one ndcg_train job per
    fold trains them all)."""
    runs = []
    for learner in NDCG["learners"]:
        convs = NDCG["train_conventions"] if learner in NDCG["fig1_learners"] else [NDCG["reference"]]
        runs += [(learner, conv) for conv in convs]
    return runs


def ndcg_runs():
    return [f"{RESULTS}/busafekete2012/runs/{learner}/{conv}/fold{fold}.npz"
            for fold in NDCG["folds"] for learner, conv in ndcg_fold_runs()]


def ndcg_outputs():
    if not NDCG["enabled"]:
        return []
    out = f"{RESULTS}/busafekete2012"
    audit = [f"{out}/tool_conventions.csv"] if NDCG["audit"] else []
    return audit + [f"{out}/curves.csv", f"{out}/ordering.csv", f"{out}/claims.csv", f"{out}/fig1_by_training_tool.png", f"{out}/fig2_by_evaluation_tool.png"]


# -- Risk, Dinçer et al. 2016 (dincer2016.smk) ------------------------------------------------
RISK = config["dincer2016"]
POP = RISK["population"]


def risk_outputs():
    if not RISK["enabled"]:
        return []
    learning = [f"{RESULTS}/dincer2016/learning/table7.csv"] if RISK["learning"]["enabled"] else []
    out = [f"{RESULTS}/dincer2016/example/{f}" for f in ("table4.csv", "table5.csv", "vs_paper.csv", "fig1_profiles.png", "fig2_georisk_example.png")]
    if not RISK["example"]["enabled"]:
        out = []
    if POP["enabled"]:
        out += [f"{RESULTS}/dincer2016/population/{f}" for f in ("systems.csv", "table6.csv", "observations.csv", "fig3_georisk_population.png")]
    return out + learning



# -- Sec. 6: risk-sensitive LambdaMART (Table 7) ---------------------------------
LEARN = RISK["learning"]
LDS = LEARN["dataset"]  # None: the config's dataset (its rules: DATASETS in common.smk, data.smk)
LEARN_PARTS = expand(f"{DATASETS[-1].parsed}/S{{part}}.npz", part=PARTITIONS)

# the options of risk-baseline, risk-learn and risk-table7 that fix the protocol
LEARN_PROTOCOL = dict(holdout=LEARN["holdout"], n_folds=LEARN["n_folds"], seed=config["seed"],
                      convention=LEARN["convention"])


def risk_learning_mem_mb(input_mb):
    """Peak memory of a risk_baseline / risk_learn job: all five partitions in memory, LightGBM's
    binned copy and the fold's slices, ~7.6 x the parsed partitions (4,963 MB measured on
    MSLR-WEB10K's 652 MB of partitions, issue 16), with room."""
    return max(2000, int(8 * input_mb) + 500)


def risk_learners():
    from evalrank.papers.dincer2016.learning import learner_specs

    return {s["name"]: s for s in learner_specs(LEARN["methods"], LEARN["alphas"])}


def _baseline_models(wildcards=None):
    return expand(f"{RESULTS}/dincer2016/learning/baselines/{{b}}.skops", b=LEARN["baselines"])


# -- Judgments + clicks, Ozertem et al. 2011 (ozertem2011.smk) --------------------------------
CLICKS = config["ozertem2011"]
CWORLD = CLICKS["world"]
CLICKS_DIR = f"{RESULTS}/ozertem2011"
#: Figs. 1-8 of Ozertem et al. (evalrank.papers.ozertem2011.plots.FIGURES; tests/workflow checks they agree)
CLICKS_FIGURES = ["fig1_click_relevance_vs_grade.png", "fig2_beta_fits.png", "fig3_grade_prior.png", "fig4_posteriors.png",
                  "fig5_posterior_bars.png", "fig6_loo_mse_vs_sigma.png", "fig7_loo_errors.png", "fig8_estimated_vs_true.png"]
CLICKS_RANKERS = sorted({CWORLD["baseline"], *CWORLD["history"], *(a for a in CWORLD["alternatives"] if a != "oracle")})


def clicks_outputs():
    if not CLICKS["enabled"]:
        return []
    tables = [f"table{t}.csv" for t in (2, 4, 5, 6, 7, 8)] + ["study.csv", "min_views.csv"]
    return [f"{CLICKS_DIR}/{f}" for f in tables + CLICKS_FIGURES] + [
        f"{CLICKS_DIR}/dbn_recovery.csv"]


# -- Theory, Wang et al. 2013 (wang2013.smk) ---------------------------------------------------
THEORY = config["wang2013"]
THEORY_DIR = f"{RESULTS}/wang2013"
THEORY_PARAMS = {k: THEORY[k] for k in ("population", "scorers", "measures", "pairs")}
TLISTS = THEORY["lists"]
TLISTS_FIGS = [f"{THEORY_DIR}/lists_fig{i}.png" for i in range(1, len(TLISTS["measures"]) + 1)]


def theory_outputs():
    if not THEORY["enabled"]:
        return []
    tables = ["limits.csv", "convergence.csv", "gaps.csv", "rate.csv", "distinguishability.csv"]
    out = [f"{THEORY_DIR}/{f}" for f in tables + ["convergence.png", "distinguishability.png"]]
    if TLISTS["enabled"]:
        out += [f"{THEORY_DIR}/lists.csv"] + TLISTS_FIGS
    return out


def stage_outputs():
    """What the stages write for the default rule, stage by stage; a disabled stage adds none."""
    return (dataset_outputs() + model_outputs() + active_outputs() + ndcg_outputs() + risk_outputs()
            + clicks_outputs() + theory_outputs())


def stage_tables():
    """The findings page's inputs: the tables (*.csv) among stage_outputs(), and the risk
    population (Dincer's findings count its topics and systems)."""
    population = [f"{RESULTS}/dincer2016/population/population.npz"] if RISK["enabled"] and POP["enabled"] else []
    return [f for f in stage_outputs() if f.endswith(".csv")] + population


def get_final_output():
    """What `all` asks for, the default target: the stages' outputs and the findings page
    (findings.smk) rendered from their tables."""
    return stage_outputs() + [f"{RESULTS}/findings.md", f"{RESULTS}/findings.html"]


def final_output(wildcards):
    """The input function of the `all` rule (Snakefile) -- get_final_output() once the damaged
    archives of an earlier run are handled (handle_damaged: removed by a run, named by a dry run)."""
    handle_damaged()
    return get_final_output()
