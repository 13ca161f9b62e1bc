# evalrank: the whole DAG. This file only sets the config, includes one .smk
# per stage and defines `rule all`; the work is done by `python -m evalrank`.
from snakemake.utils import min_version

from evalrank.config import validate_config

min_version("9.0")


configfile: "config/config.yaml"


validate_config(config, schema=workflow.source_path("workflow/schemas/config.schema.yaml"))


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/models.smk"
include: "workflow/rules/active.smk"
include: "workflow/rules/ndcg.smk"
include: "workflow/rules/risk.smk"
include: "workflow/rules/clicks.smk"
include: "workflow/rules/theory.smk"


rule all:
    input:
        dataset_outputs(),
        model_outputs(),
        active_outputs(),
        ndcg_outputs(),
        risk_outputs(),
        clicks_outputs(),
        theory_outputs(),
    default_target: True
