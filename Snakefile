# evalrank: the whole DAG. This file only sets the config, includes one .smk
# per stage and defines `rule all`; the work is done by `python -m evalrank`.
from snakemake.exceptions import WorkflowError
from snakemake.utils import min_version

from evalrank.config import check_yaml_files, validate_config

min_version("9.0")


try:  # its YAML read by evalrank first: file:line where Snakemake's reader says "not valid JSON or YAML"
    check_yaml_files(["config/config.yaml"])
except ValueError as e:
    raise WorkflowError(str(e)) from None


configfile: "config/config.yaml"


try:  # a bad value, or a key given twice in a config file: one line naming the key, no traceback
    validate_config(config, schema=workflow.source_path("workflow/schemas/config.schema.yaml"), files=workflow.configfiles)
except ValueError as e:
    raise WorkflowError(str(e)) from None


report: "workflow/report/workflow.rst"


wildcard_constraints:
    fold=r"[1-5]",
    part=r"[1-5]",
    model=r"[a-z_]+(?:_n[0-9]+)?",  # rf_n5000: the RF trained on 5,000 pairs (Fig. 3)
    experiment=r"fig[0-9]_[a-z0-9_]+",
    shard=r"[0-9]+",
    n=r"[0-9]+",


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/models.smk"
include: "workflow/rules/sawade2012.smk"
include: "workflow/rules/busafekete2012.smk"
include: "workflow/rules/dincer2016.smk"
include: "workflow/rules/ozertem2011.smk"
include: "workflow/rules/wang2013.smk"
include: "workflow/rules/findings.smk"


rule all:
    input:
        final_output,
    default_target: True


onstart:
    damaged_kept()
