# Data: synthesize | download + extract  ->  parse each query partition  ->  describe.

if SPEC.kind == "synthetic":

    rule synthesize:
        output:
            [partition_txt(p) for p in PARTITIONS],
        params:
            root=DATA_ROOT,
            seed=config["seed"],
            args=synthesize_args(DS),
        log:
            f"{LOGS}/synthesize.log",
        benchmark:
            f"{BENCH}/synthesize.tsv"
        threads: 2
        resources:
            mem_mb=4000,
            runtime=30,
        shell:
            "python -m evalrank synthesize --root {params.root:q} --seed {params.seed} {params.args}"
            " --layout partitions --threads {threads} 2> {log:q}"

elif SPEC.kind == "local":
    _missing = missing_files(DATA_ROOT, SPEC)
    if _missing:
        raise WorkflowError(
            f"dataset.kind is 'local' but {len(_missing)} file(s) are missing under {DATA_ROOT!r}, "
            f"e.g. {_missing[0]}. Point dataset.root at a folder with Fold1..Fold5/{{train,vali,test}}.txt."
        )

elif missing_files(DATA_ROOT, SPEC):
    # Downloaded kinds (mslr-web30k, mslr-web10k, mq2008): only defined while the layout is
    # incomplete, so an already extracted copy is never re-downloaded.

    rule download:
        output:
            layout_files(),
        params:
            root=DATA_ROOT,
            kind=SPEC.name,
            url=f"--url {DS['url']}" if DS.get("url") else "",
            sha=f"--sha256 {DS['sha256']}" if DS.get("sha256") else "",
        log:
            f"{LOGS}/download.log",
        benchmark:
            f"{BENCH}/download.tsv"
        threads: 1
        resources:
            mem_mb=2000,
            runtime=240,
        shell:
            "python -m evalrank download --dataset {params.kind} --root {params.root:q}"
            " {params.url} {params.sha} 2> {log:q}"


rule parse_partition:
    input:
        lambda w: partition_txt(w.part),
    output:
        f"{RESULTS}/data/S{{part}}.npz",
    params:
        n_features=DS["n_features"],
        max_grade=DS["max_grade"],
    log:
        f"{LOGS}/parse/S{{part}}.log",
    benchmark:
        f"{BENCH}/parse/S{{part}}.tsv"
    threads: 1
    resources:
        mem_mb=lambda w, input: max(2000, int(6 * input.size_mb)),
        runtime=30,
    shell:
        "python -m evalrank parse --input {input:q} --output {output:q}"
        " --n-features {params.n_features} --max-grade {params.max_grade} 2> {log:q}"


checkpoint data_facts:
    input:
        expand(f"{RESULTS}/data/S{{part}}.npz", part=PARTITIONS),
    output:
        FACTS_FILE,
    log:
        f"{LOGS}/data_facts.log",
    benchmark:
        f"{BENCH}/data_facts.tsv"
    threads: 1
    resources:
        mem_mb=lambda w, input: max(1000, int(3 * input.size_mb / len(PARTITIONS)) + 500),
        runtime=10,
    shell:
        "python -m evalrank data-facts --partitions {input:q} --output {output:q} 2> {log:q}"


rule describe:
    input:
        expand(f"{RESULTS}/data/S{{part}}.npz", part=PARTITIONS),
    output:
        table=f"{RESULTS}/data/summary.csv",
        figure=report(
            f"{RESULTS}/data/dataset.png",
            caption="../report/dataset.rst",
            category="Data",
        ),
    params:
        names=[f"S{p}" for p in PARTITIONS],
    log:
        f"{LOGS}/describe.log",
    benchmark:
        f"{BENCH}/describe.tsv"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=10,
    shell:
        "python -m evalrank describe --inputs {input:q} --names {params.names}"
        " --table {output.table:q} --figure {output.figure:q} 2> {log:q}"
