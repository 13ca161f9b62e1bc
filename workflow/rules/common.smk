# Paths, wildcards and small helpers shared by every stage.
from pathlib import Path

from snakemake.logging import logger

from evalrank.config import ConfigError, data_problems
from evalrank.data.datasets import get_spec, missing_files, partition_file
from evalrank.data.facts import read_facts, synthetic_facts
from evalrank.io import damaged_archives
from evalrank.seeds import int_seed

RESULTS = f"results/{config['name']}"
LOGS = f"{RESULTS}/logs"
BENCH = f"{RESULTS}/benchmarks"
DATA_ROOT = config["dataset"]["root"]
DS = config["dataset"]
FOLDS = config["folds"]
PARTITIONS = [1, 2, 3, 4, 5]


class Dataset:
    """One dataset of the config: its config section, spec, raw folder and parsed partitions."""

    def __init__(self, key, ds, prefix, parsed, seed):
        self.key, self.config, self.prefix, self.parsed, self.seed = key, ds, prefix, parsed, seed
        self.root = ds["root"]
        self.spec = get_spec(ds["kind"], **{k: ds[k] for k in ("url", "sha256") if ds.get(k)},
                             n_features=ds["n_features"], max_grade=ds["max_grade"])

    def partition_files(self):
        return [str(partition_file(self.root, p)) for p in PARTITIONS]

    def layout_files(self):
        return [str(Path(self.root) / f"Fold{f}" / f"{s}.txt") for f in PARTITIONS for s in ("train", "vali", "test")]


DATASETS = [Dataset("dataset", DS, "", f"{RESULTS}/data", config["seed"])]
SPEC = DATASETS[0].spec
if config["risk"]["learning"]["dataset"] is not None:
    # a synthetic learning dataset gets a stream of its own, not the main dataset's
    DATASETS.append(Dataset("risk.learning.dataset", config["risk"]["learning"]["dataset"], "risk_",
                            f"{RESULTS}/risk/learning/data", int_seed(config["seed"], "risk-learning-data")))
MODELS = config["models"]["names"]


wildcard_constraints:
    fold=r"[1-5]",
    part=r"[1-5]",
    model=r"[a-z_]+(?:_n[0-9]+)?",  # rf_n5000: the RF trained on 5,000 pairs (Fig. 3)
    experiment=r"fig[0-9]_[a-z0-9_]+",
    shard=r"[0-9]+",
    n=r"[0-9]+",


def partition_txt(part):
    """LETOR text file holding exactly query partition S_part (MSLR rotation)."""
    return str(partition_file(DATA_ROOT, int(part)))


def pool_parts(fold):
    return [p for p in PARTITIONS if p != int(fold)]


def synthesize_args(ds):
    """The generator's settings of a dataset config section, as `evalrank stage synthesize` flags."""
    syn = ds["synthetic"]
    args = [f"--n-features {ds['n_features']}", f"--queries-per-partition {syn['queries_per_partition']}",
            f"--mean-docs {syn['mean_docs']}", f"--p-no-relevant {syn['p_no_relevant']}", f"--p-small {syn['p_small']}",
            f"--max-docs {syn['max_docs']}", f"--feature-norm {syn['feature_norm']}"]
    if syn.get("grade_marginals"):
        args.append("--grade-marginals " + " ".join(map(str, syn["grade_marginals"])))
    return " ".join(args)


def dataset_outputs():
    return [f"{RESULTS}/data/summary.csv", f"{RESULTS}/data/dataset.png"]


def model_outputs():
    if not config["models"]["enabled"]:
        return []
    return expand(
        [f"{RESULTS}/fold{{fold}}/quality/quality.csv", f"{RESULTS}/fold{{fold}}/quality/quality.png"],
        fold=FOLDS,
    ) + expand(f"{RESULTS}/fold{{fold}}/quality/reliability/{{model}}.png", fold=FOLDS, model=MODELS)


def _config_file(path):
    """A file named in the config: as given if it exists from the working directory (or is
    absolute), else relative to the workflow's root (the shipped config/risk/*.csv when the DAG
    runs with --directory elsewhere)."""
    p = Path(path)
    return str(p) if p.is_absolute() or p.exists() else str(Path(workflow.basedir) / p)


# -- damaged outputs: a truncated .npz of an earlier run (full disk, a copy cut short) would be
# taken as finished; remove it so that the DAG rebuilds it and everything after it.
# A dry run only reports them; the Snakemake inside a cluster job does not look.
if workflow.is_main_process:
    for _bad in damaged_archives(RESULTS) if Path(RESULTS).exists() else []:
        if workflow.dryrun:
            logger.warning(f"{_bad} is damaged (not a complete .npz archive): a real run removes and rebuilds it")
        else:
            logger.warning(f"{_bad} is damaged (not a complete .npz archive): removed, the workflow rebuilds it")
            _bad.unlink()


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
    parts = [Path(f"{RESULTS}/data/S{p}.npz") for p in PARTITIONS] + [Path(partition_txt(p)) for p in PARTITIONS]
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
