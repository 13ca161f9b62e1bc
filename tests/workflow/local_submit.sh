#!/usr/bin/env bash
# Stand-in for `sbatch` in tests: snakemake-executor-plugin-cluster-generic hands
# us a self-contained jobscript; run it as a detached local process and print a
# job id. Nothing is shared with the submitting process but the file system,
# which is what a batch cluster gives a job too.
set -euo pipefail
jobscript="${@: -1}"
nohup bash "$jobscript" >"$jobscript.out" 2>&1 &
echo "$!"
