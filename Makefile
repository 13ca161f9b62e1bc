# Two commands do all set-up on a fresh machine (Python >= 3.11 with venv + pip):
#   make run    install into .venv, then run the default DAG (synthetic MSLR-like data, then the
#               MQ2008-like NDCG-conventions study; no network)
#   make test   install into .venv, then run the test suite
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
CORES  ?= 2
STAMP  := $(VENV)/.installed
export PATH := $(abspath $(BIN)):$(PATH)

.PHONY: run test test-fast report install clean bytecode

install: $(STAMP)

# pip compiles the installed packages' bytecode in one process (26 s of the ~65 s install on 2
# cores, measured); compileall -j 0 does the same files on every core (16 s): same .pyc files.
# evalrank.warmup compiles evaluate's and compare's numba kernels into numba's cache (~35 s), so
# the first call after installing is as fast as a later one.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-compile -e '.[repro,test,peers]'
	$(BIN)/python -m compileall -q -j 0 $(VENV)/lib
	$(BIN)/python -m evalrank.warmup
	touch $(STAMP)

# A screenful on the console (stages, progress, where outputs and logs are: evalrank/console.py);
# Snakemake's full output goes to results/<name>/logs/snakemake-<time>.log. VERBOSE=1: all of it.
ifeq ($(VERBOSE),1)
SMK := $(BIN)/snakemake
else
SMK := $(BIN)/python -m evalrank.console --snakemake $(BIN)/snakemake --
endif
# The package's bytecode, written before a run (compileall skips what is up to date): every job and
# test worker imports it, and where PYTHONDONTWRITEBYTECODE is set (as on these sandboxes) each of
# those processes compiled the editable install's sources again (~0.07 CPU-s each, measured).
bytecode: $(STAMP)
	$(BIN)/python -m compileall -q src

run: $(STAMP) bytecode
	$(SMK) --profile workflow/profiles/default --cores $(CORES) $(ARGS)
	$(SMK) --profile workflow/profiles/default --cores $(CORES) --configfile config/mq2008_synthetic.yaml $(ARGS)

# One report per config of `make run` (Snakemake writes one per config), each linking the other
# (workflow/report/workflow.rst): report.html and report-mq2008_synthetic.html.
report: $(STAMP)
	$(BIN)/snakemake --profile workflow/profiles/default --cores $(CORES) $(ARGS) --report report.html
	$(BIN)/snakemake --profile workflow/profiles/default --cores $(CORES) --configfile config/mq2008_synthetic.yaml $(ARGS) --report report-mq2008_synthetic.html

# Four workers, one module at a time each (--dist loadscope: a module's shared DAG run happens
# once), in collection order (--no-loadscope-reorder; xdist would otherwise start the modules
# with the most tests first and the one-test DAG runs last): the end-to-end DAG tests start at
# once and wait on their jobs -- and on Slurm's scheduler -- while the unit tests use the cores.
TEST_WORKERS ?= 4
test: $(STAMP) bytecode
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadscope --no-loadscope-reorder $(PYTEST_ARGS)

test-fast: $(STAMP) bytecode   # the inner loop: everything but the end-to-end DAG, matrix and Slurm runs (marker slow): ~5 min on 2 cores with numba's cache empty, ~4 with it warm
	$(BIN)/python -m pytest -n 2 -m "not slow" $(PYTEST_ARGS)

clean:
	rm -rf results/*/ .snakemake
