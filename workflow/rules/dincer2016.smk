# Risk-sensitive evaluation (Dinçer et al. 2016): the worked example (Tables 4-5,
# Figs. 1-2), a population of systems on our data (Table 6, Fig. 3).

rule risk_example:
    input:
        matrix=_config_file(RISK["example"]["matrix"]),
        printed4=_config_file(RISK["example"]["printed4"]),
        printed5=_config_file(RISK["example"]["printed5"]),
    output:
        in_report(f"{RESULTS}/dincer2016/example/table4.csv", "dincer2016/table4.rst", "dincer2016"),
        in_report(f"{RESULTS}/dincer2016/example/table5.csv", "dincer2016/table5.rst", "dincer2016"),
        in_report(f"{RESULTS}/dincer2016/example/vs_paper.csv", "dincer2016/vs_paper.rst", "dincer2016"),
        in_report(f"{RESULTS}/dincer2016/example/fig1_profiles.png", "dincer2016/fig1.rst", "dincer2016"),
        in_report(f"{RESULTS}/dincer2016/example/fig2_georisk_example.png", "dincer2016/fig2.rst", "dincer2016"),
    params:
        out=output_dir,
    log:
        f"{LOGS}/dincer2016/example.log",
    benchmark:
        f"{BENCH}/dincer2016/example.tsv"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "python -m evalrank stage risk-example --matrix {input.matrix:q} --printed4 {input.printed4:q}"
        " --printed5 {input.printed5:q} --out-dir {params.out:q} 2> {log:q}"


rule risk_population:
    input:
        train=f"{RESULTS}/fold{POP['fold']}/train.npz",
        test=f"{RESULTS}/data/S{POP['test_partition']}.npz",
        models=expand(f"{RESULTS}/fold{POP['fold']}/models/{{model}}.skops", model=MODELS)
        if POP["include_models"] else [],
    output:
        population=f"{RESULTS}/dincer2016/population/population.npz",
        table=in_report(f"{RESULTS}/dincer2016/population/systems.csv", "dincer2016/systems.rst", "dincer2016"),
    params:
        opts=lambda w, input: flags(
            models=list(input.models), features=POP["features"], objectives=POP["objectives"], seeds=POP["seeds"],
            train_fractions=POP["train_fractions"], feature_shares=POP["feature_shares"], lgb_params=POP["lightgbm"],
            measure=POP["measure"], max_grade=DS["max_grade"], seed=config["seed"],
        ),
    log:
        f"{LOGS}/dincer2016/population.log",
    benchmark:
        f"{BENCH}/dincer2016/population.tsv"
    threads: POP["threads"]
    resources:
        mem_mb=4000,
        runtime=30,
    shell:
        "python -m evalrank stage risk-population --train {input.train:q} --test {input.test:q} {params.opts}"
        " --threads {threads} --output {output.population:q} --table {output.table:q} 2> {log:q}"


rule risk_table6:
    input:
        f"{RESULTS}/dincer2016/population/population.npz",
    output:
        in_report(f"{RESULTS}/dincer2016/population/table6.csv", "dincer2016/table6.rst", "dincer2016"),
        in_report(f"{RESULTS}/dincer2016/population/observations.csv", "dincer2016/observations.rst", "dincer2016"),
        f"{RESULTS}/dincer2016/population/georisk_curves.csv",
        in_report(f"{RESULTS}/dincer2016/population/fig3_georisk_population.png", "dincer2016/fig3.rst", "dincer2016"),
    params:
        opts=flags(baseline=f"f{POP['baseline_feature']}", measure=POP["measure"], alphas=POP["alphas"], top=POP["top"]),
        out=output_dir,
    log:
        f"{LOGS}/dincer2016/table6.log",
    benchmark:
        f"{BENCH}/dincer2016/table6.tsv"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "python -m evalrank stage risk-table6 --population {input:q} {params.opts} --out-dir {params.out:q} 2> {log:q}"


# -- Sec. 6: risk-sensitive LambdaMART (Table 7) ---------------------------------

rule risk_baseline:
    wildcard_constraints:
        learner=r"[a-z_]+",
    input:
        parts=LEARN_PARTS,
        facts=data_checked if LDS is None else [],
    output:
        f"{RESULTS}/dincer2016/learning/baselines/{{learner}}.skops",
    params:
        opts=lambda w: flags(**LEARN_PROTOCOL, params=LEARN["baseline_params"].get(w.learner, {})),
    log:
        f"{LOGS}/dincer2016/baseline_{{learner}}.log",
    benchmark:
        f"{BENCH}/dincer2016/baseline_{{learner}}.tsv"
    threads: LEARN["threads"]
    resources:
        mem_mb=lambda w, input: risk_learning_mem_mb(input.size_mb),
        runtime=60,
    shell:
        "python -m evalrank stage risk-baseline --partitions {input.parts:q} {params.opts} --learner {wildcards.learner}"
        " --threads {threads} --output {output:q} 2> {log:q}"


rule risk_learn:
    # one job per fold trains all of the fold's learners (plain LambdaMART + every method x alpha), one
    # after the other in one process: the partitions, the fold's split and the learned baselines' scores
    # are loaded once (learn_files; fold 4 of config.yaml: 9 jobs 202 CPU-s -> 1 job 145, outputs identical)
    wildcard_constraints:
        fold=r"[0-9]+",
    input:
        parts=LEARN_PARTS,
        facts=data_checked if LDS is None else [],
        baselines=_baseline_models()
        if any(s["method"] in ("t*-faro", "georisk") for s in risk_learners().values()) else [],
    output:
        [f"{RESULTS}/dincer2016/learning/runs/{spec}/fold{{fold}}.npz" for spec in risk_learners()],
    params:
        opts=lambda w, input: flags(
            **LEARN_PROTOCOL, method=[s["method"] for s in risk_learners().values()],
            alpha=[s["alpha"] for s in risk_learners().values()],
            baseline_feature=LEARN["baseline_feature"], baselines=list(input.baselines), params=LEARN["params"],
        ),
    log:
        f"{LOGS}/dincer2016/learn_fold{{fold}}.log",
    benchmark:
        f"{BENCH}/dincer2016/learn_fold{{fold}}.tsv"
    threads: LEARN["threads"]
    resources:
        mem_mb=lambda w, input: risk_learning_mem_mb(input.size_mb),
        runtime=lambda w: 20 * len(risk_learners()),
    shell:
        "python -m evalrank stage risk-learn --partitions {input.parts:q} {params.opts} --fold {wildcards.fold}"
        " --threads {threads} --output {output:q} 2> {log:q}"


rule risk_table7:
    input:
        parts=LEARN_PARTS,
        baselines=_baseline_models(),
        runs=expand(f"{RESULTS}/dincer2016/learning/runs/{{spec}}/fold{{fold}}.npz", spec=list(risk_learners()),
                    fold=LEARN["folds"]),
    output:
        in_report(f"{RESULTS}/dincer2016/learning/table7.csv", "dincer2016/table7.rst", "dincer2016"),
        f"{RESULTS}/dincer2016/learning/per_query_ndcg10.csv",
    params:
        opts=flags(**LEARN_PROTOCOL, folds=LEARN["folds"], baseline_feature=LEARN["baseline_feature"],
                   loss_threshold=LEARN["loss_threshold"]),
        out=output_dir,
    log:
        f"{LOGS}/dincer2016/table7.log",
    benchmark:
        f"{BENCH}/dincer2016/table7.tsv"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=10,
    shell:
        "python -m evalrank stage risk-table7 --partitions {input.parts:q} --baselines {input.baselines:q}"
        " --runs {input.runs:q} {params.opts} --out-dir {params.out:q} 2> {log:q}"
