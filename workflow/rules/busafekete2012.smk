# NDCG conventions (Busa-Fekete et al. 2012): the audit of today's tools on crafted
# cases, then each LETOR fold's learner x training convention runs (one job per fold), then Figs. 1-2,
# ordering.csv and claims.csv.

rule ndcg_audit:
    output:
        in_report(f"{RESULTS}/busafekete2012/tool_conventions.csv", "busafekete2012/tool_conventions.rst", "busafekete2012"),
    log:
        f"{LOGS}/busafekete2012/audit.log",
    benchmark:
        f"{BENCH}/busafekete2012/audit.tsv"
    # no inputs and ~1 CPU-min on a fresh clone (ranx's kernels compile on their first use): without a priority
    # the scheduler, which prefers large inputs, started it last and it ran alone at the end of make run
    priority: CRITICAL_PATH
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    shell:
        "python -m evalrank stage ndcg-audit --output {output:q} 2> {log:q}"


rule ndcg_train:
    # one job per fold trains all of the fold's runs (learner x training convention, ndcg_fold_runs()),
    # one after the other in one process: the partitions are loaded and the fold split once (fold 2 of
    # mq2008_synthetic.yaml: 14 jobs 47.6 CPU-s -> 1 job 15.7, all 28 outputs byte-identical)
    wildcard_constraints:
        fold=r"[0-9]+",
    input:
        parts=expand(f"{RESULTS}/data/S{{part}}.npz", part=PARTITIONS),
        facts=data_checked,
    output:
        runs=[f"{RESULTS}/busafekete2012/runs/{learner}/{conv}/fold{{fold}}.npz" for learner, conv in ndcg_fold_runs()],
        meta=[f"{RESULTS}/busafekete2012/runs/{learner}/{conv}/fold{{fold}}.json" for learner, conv in ndcg_fold_runs()],
    params:
        opts=flags(learner=[lr for lr, _ in ndcg_fold_runs()], convention=[conv for _, conv in ndcg_fold_runs()],
                   grids={lr: NDCG["grids"].get(lr, {}) for lr, _ in ndcg_fold_runs()},
                   learner_params={lr: NDCG["params"].get(lr, {}) for lr, _ in ndcg_fold_runs()},
                   max_train_queries=NDCG["max_train_queries"], seed=config["seed"]),
    log:
        f"{LOGS}/busafekete2012/train/fold{{fold}}.log",
    benchmark:
        f"{BENCH}/busafekete2012/train/fold{{fold}}.tsv"
    threads: NDCG["threads"]
    resources:
        # all five partitions in memory, ~2 x their .npz (peak 4,122 MB on MSLR-WEB30K-sized ones); one
        # learner at a time, so the same peak as one run
        mem_mb=lambda w, input: max(2000, int(2.5 * input.size_mb) + 500),
        runtime=10 * len(ndcg_fold_runs()),  # paper scale: 49 s mean, 76 s max per run (issue 16)
    shell:
        "python -m evalrank stage ndcg-train --partitions {input.parts:q} --fold {wildcards.fold}"
        " {params.opts} --threads {threads} --output {output.runs:q} 2> {log:q}"


rule ndcg_report:
    input:
        ndcg_runs(),
    output:
        curves=in_report(f"{RESULTS}/busafekete2012/curves.csv", "busafekete2012/curves_table.rst", "busafekete2012"),
        per_query=f"{RESULTS}/busafekete2012/per_query_ndcg{NDCG['k']}.csv",
        ordering=in_report(f"{RESULTS}/busafekete2012/ordering.csv", "busafekete2012/ordering.rst", "busafekete2012"),
        claims=in_report(f"{RESULTS}/busafekete2012/claims.csv", "busafekete2012/claims_table.rst", "busafekete2012"),
        fig1=in_report(f"{RESULTS}/busafekete2012/fig1_by_training_tool.png", "busafekete2012/fig1.rst", "busafekete2012"),
        fig2=in_report(f"{RESULTS}/busafekete2012/fig2_by_evaluation_tool.png", "busafekete2012/fig2.rst", "busafekete2012"),
    params:
        opts=flags(k=NDCG["k"], reference=NDCG["reference"], learners=NDCG["learners"],
                   fig1_learners=NDCG["fig1_learners"], train_conventions=NDCG["train_conventions"],
                   eval_conventions=NDCG["eval_conventions"]),
        out=output_dir,
    log:
        f"{LOGS}/busafekete2012/report.log",
    benchmark:
        f"{BENCH}/busafekete2012/report.tsv"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=20,
    shell:
        "python -m evalrank stage ndcg-report --runs {input:q} {params.opts} --out-dir {params.out:q} 2> {log:q}"
