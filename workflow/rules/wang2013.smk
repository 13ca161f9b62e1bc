# NDCG as lists grow (Wang et al. 2013): samples per list size -> limits, convergence and
# distinguishability (theory_report); Sec. 4 on trained rankers (theory_lists).

rule theory_sample:
    output:
        f"{THEORY_DIR}/samples/n{{n}}.npz",
    params:
        opts=lambda w: flags(params=THEORY_PARAMS, repetitions=THEORY["repetitions"],
                             block=max(1, THEORY["block_objects"] // int(w.n)), seed=config["seed"]),
    log:
        f"{LOGS}/wang2013/sample_n{{n}}.log",
    benchmark:
        f"{BENCH}/wang2013/sample_n{{n}}.tsv"
    # no inputs, and the largest n takes ~1.5 CPU-min: as ndcg_audit, started last without a priority
    # (make run of 21b5de7: the theory stage began at 12:50 of 15:08 and ended the default DAG)
    priority: CRITICAL_PATH
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    shell:
        "python -m evalrank stage theory-sample --n {wildcards.n} {params.opts} --output {output:q} 2> {log:q}"


rule theory_report:
    input:
        expand(f"{THEORY_DIR}/samples/n{{n}}.npz", n=THEORY["sizes"]),
    output:
        in_report(f"{THEORY_DIR}/limits.csv", "wang2013/limits.rst", "wang2013"),
        in_report(f"{THEORY_DIR}/convergence.csv", "wang2013/convergence_table.rst", "wang2013"),
        in_report(f"{THEORY_DIR}/gaps.csv", "wang2013/gaps.rst", "wang2013"),
        in_report(f"{THEORY_DIR}/rate.csv", "wang2013/rate.rst", "wang2013"),
        in_report(f"{THEORY_DIR}/distinguishability.csv", "wang2013/distinguishability_table.rst", "wang2013"),
        in_report(f"{THEORY_DIR}/convergence.png", "wang2013/convergence.rst", "wang2013"),
        in_report(f"{THEORY_DIR}/distinguishability.png", "wang2013/distinguishability.rst", "wang2013"),
    params:
        opts=flags(params=THEORY_PARAMS),
        out=output_dir,
    log:
        f"{LOGS}/wang2013/report.log",
    benchmark:
        f"{BENCH}/wang2013/report.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    shell:
        "python -m evalrank stage theory-report --inputs {input:q} {params.opts} --out-dir {params.out:q} 2> {log:q}"


rule theory_lists:
    input:
        models=expand(f"{RESULTS}/fold{TLISTS['fold']}/models/{{m}}.skops", m=TLISTS["rankers"]),
        partition=[f"{RESULTS}/data/S{TLISTS['partition']}.npz"] if TLISTS["source"] == "dataset" else [],
    output:
        table=in_report(f"{THEORY_DIR}/lists.csv", "wang2013/lists_table.rst", "wang2013"),
        # one caption per figure (its measure: wang2013.lists.measures[i - 1]); past the four
        # shipped captions, one caption that lists the measures in order
        *[in_report(f, f"wang2013/lists_fig{i}.rst" if i <= 4 else "wang2013/lists.rst", "wang2013")
          for i, f in enumerate(TLISTS_FIGS, 1)],
    params:
        opts=lambda w, input: flags(
            models=[f"{m}={p}" for m, p in zip(TLISTS["rankers"], input.models)], source=TLISTS["source"],
            partition=input.partition[0] if input.partition else None, queries=TLISTS["queries"],
            docs_per_query=TLISTS["docs_per_query"], n_features=DS["n_features"], sizes=TLISTS["sizes"],
            measures=TLISTS["measures"], seed=config["seed"],
        ),
        out=output_dir,
    log:
        f"{LOGS}/wang2013/lists.log",
    benchmark:
        f"{BENCH}/wang2013/lists.tsv"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=20,
    shell:
        "python -m evalrank stage theory-lists {params.opts} --out-dir {params.out:q} 2> {log:q}"

