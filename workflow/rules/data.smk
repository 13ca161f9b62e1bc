# Data: synthesize | download + extract  ->  parse each query partition (or, for a dataset of one
# fold or one file, deal its queries into the five partitions: evalrank.data.layout)  ->  describe.

# One set of rules per dataset of the config (DATASETS in common.smk): the main dataset and,
# when dincer2016.learning.dataset names another one, the risk stage's learning dataset.
for _d in DATASETS:
    if _d.spec.kind == "synthetic":

        rule:
            name:
                f"{_d.prefix}synthesize"
            output:
                _d.partition_files(),
            params:
                # root: the folder of the outputs (partition_file)
                opts=flags(root=_d.root, seed=_d.seed, **synthesize_options(_d.config), layout="partitions"),
            log:
                f"{LOGS}/{_d.prefix}synthesize.log",
            benchmark:
                f"{BENCH}/{_d.prefix}synthesize.tsv"
            priority: CRITICAL_PATH
            threads: 1
            resources:
                mem_mb=4000,
                runtime=30,
            shell:
                "python -m evalrank stage synthesize {params.opts} --threads {threads} 2> {log:q}"

    elif _d.spec.kind == "local":
        pass  # its layout was found when the DAG was built (Dataset in common.smk), or the run stopped

    elif missing_files(_d.root, _d.spec):
        # Downloaded kinds (mslr-web30k, mslr-web10k, mq2008, mslr-excerpt): defined while the layout is
        # incomplete, so an already extracted copy is never re-downloaded. Runs where Snakemake
        # runs (localrules): compute nodes often have no internet.

        rule:
            name:
                f"{_d.prefix}download"
            localrule: True
            output:
                _d.layout_files(),
            params:
                opts=flags(dataset=_d.spec.name, root=_d.root, url=_d.config["url"], sha256=_d.config["sha256"]),
            log:
                f"{LOGS}/{_d.prefix}download.log",
            benchmark:
                f"{BENCH}/{_d.prefix}download.tsv"
            priority: CRITICAL_PATH
            threads: 1
            resources:
                mem_mb=2000,
                runtime=240,
            shell:
                "python -m evalrank stage download {params.opts} 2> {log:q}"

    if _d.layout is not None and _d.layout.derived:

        rule:
            name:
                f"{_d.prefix}derive_partitions"
            input:
                [str(p) for p in _d.layout.sources],
            output:
                _d.parsed_files(),
            params:
                opts=flags(seed=_d.seed, n_features=_d.config["n_features"], max_grade=_d.config["max_grade"]),
            log:
                f"{LOGS}/{_d.prefix}derive_partitions.log",
            benchmark:
                f"{BENCH}/{_d.prefix}derive_partitions.tsv"
            priority: CRITICAL_PATH
            threads: 1
            resources:
                mem_mb=lambda w, input: max(2000, int(8 * input.size_mb)),
                runtime=30,
            shell:
                "python -m evalrank stage derive-partitions --inputs {input:q} --outputs {output:q} {params.opts}"
                " 2> {log:q}"

        continue

    rule:
        name:
            f"{_d.prefix}parse_partition"
        input:
            lambda w, d=_d: str(partition_file(d.root, int(w.part))),
        output:
            f"{_d.parsed}/S{{part}}.npz",
        params:
            opts=flags(n_features=_d.config["n_features"], max_grade=_d.config["max_grade"]),
        log:
            f"{LOGS}/{_d.prefix}parse/S{{part}}.log",
        benchmark:
            f"{BENCH}/{_d.prefix}parse/S{{part}}.tsv"
        priority: CRITICAL_PATH
        threads: 1
        resources:
            mem_mb=lambda w, input: max(2000, int(6 * input.size_mb)),
            runtime=30,
        shell:
            "python -m evalrank stage parse --input {input:q} --output {output:q} {params.opts} 2> {log:q}"


checkpoint data_facts:
    input:
        expand(f"{RESULTS}/data/S{{part}}.npz", part=PARTITIONS),
    output:
        FACTS_FILE,
    log:
        f"{LOGS}/data_facts.log",
    benchmark:
        f"{BENCH}/data_facts.tsv"
    priority: CRITICAL_PATH
    threads: 1
    resources:
        mem_mb=lambda w, input: max(1000, int(3 * input.size_mb / len(PARTITIONS)) + 500),
        runtime=10,
    shell:
        "python -m evalrank stage data-facts --partitions {input:q} --output {output:q} 2> {log:q}"


rule describe:
    input:
        expand(f"{RESULTS}/data/S{{part}}.npz", part=PARTITIONS),
    output:
        table=in_report(f"{RESULTS}/data/summary.csv", "dataset_table.rst", "Data"),
        figure=in_report(f"{RESULTS}/data/dataset.png", "dataset.rst", "Data"),
    params:
        opts=flags(names=[f"S{p}" for p in PARTITIONS]),
    log:
        f"{LOGS}/describe.log",
    benchmark:
        f"{BENCH}/describe.tsv"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=10,
    shell:
        "python -m evalrank stage describe --inputs {input:q} {params.opts}"
        " --table {output.table:q} --figure {output.figure:q} 2> {log:q}"
