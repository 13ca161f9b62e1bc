# Risk-sensitive evaluation (Dinçer et al. 2016): the worked example (Tables 4-5,
# Figs. 1-2), a population of systems on our data (Table 6, Fig. 3).

rule risk_example:
    input:
        matrix=_config_file(RISK["example"]["matrix"]),
        printed4=_config_file(RISK["example"]["printed4"]),
        printed5=_config_file(RISK["example"]["printed5"]),
    output:
        in_report(f"{RESULTS}/risk/example/table4.csv", "risk_table4.rst", "Risk"),
        in_report(f"{RESULTS}/risk/example/table5.csv", "risk_table5.rst", "Risk"),
        in_report(f"{RESULTS}/risk/example/vs_paper.csv", "risk_vs_paper.rst", "Risk"),
        in_report(f"{RESULTS}/risk/example/fig1.png", "risk_fig1.rst", "Risk"),
        in_report(f"{RESULTS}/risk/example/fig2.png", "risk_fig2.rst", "Risk"),
    params:
        out=output_dir,
    log:
        f"{LOGS}/risk/example.log",
    benchmark:
        f"{BENCH}/risk/example.tsv"
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
        models=expand(f"{RESULTS}/fold{POP['fold']}/models/{{model}}.pkl", model=MODELS)
        if POP["include_models"] else [],
    output:
        population=f"{RESULTS}/risk/population/population.npz",
        table=in_report(f"{RESULTS}/risk/population/systems.csv", "risk_systems.rst", "Risk"),
    params:
        features=" ".join(map(str, POP["features"])),
        objectives=" ".join(POP["objectives"]),
        fractions=" ".join(map(str, POP["train_fractions"])),
        shares=" ".join(map(str, POP["feature_shares"])),
        lgb=json.dumps(POP["lightgbm"], sort_keys=True),
        models=lambda w, input: ("--models " + " ".join(f"'{m}'" for m in input.models)) if input.models else "",
        seeds=POP["seeds"],
        measure=POP["measure"],
        seed=config["seed"],
        max_grade=config["dataset"]["max_grade"],
    log:
        f"{LOGS}/risk/population.log",
    benchmark:
        f"{BENCH}/risk/population.tsv"
    threads: POP["threads"]
    resources:
        mem_mb=4000,
        runtime=30,
    shell:
        "python -m evalrank stage risk-population --train {input.train:q} --test {input.test:q} {params.models}"
        " --features {params.features} --objectives {params.objectives} --seeds {params.seeds}"
        " --train-fractions {params.fractions} --feature-shares {params.shares} --lgb-params {params.lgb:q}"
        " --measure {params.measure} --max-grade {params.max_grade} --seed {params.seed} --threads {threads}"
        " --output {output.population:q} --table {output.table:q} 2> {log:q}"


rule risk_table6:
    input:
        f"{RESULTS}/risk/population/population.npz",
    output:
        in_report(f"{RESULTS}/risk/population/table6.csv", "risk_table6.rst", "Risk"),
        in_report(f"{RESULTS}/risk/population/observations.csv", "risk_observations.rst", "Risk"),
        f"{RESULTS}/risk/population/georisk_curves.csv",
        in_report(f"{RESULTS}/risk/population/fig3.png", "risk_fig3.rst", "Risk"),
    params:
        out=output_dir,
        alphas=" ".join(map(str, POP["alphas"])),
        baseline=f"f{POP['baseline_feature']}",
        measure=POP["measure"],
        top=POP["top"],
    log:
        f"{LOGS}/risk/table6.log",
    benchmark:
        f"{BENCH}/risk/table6.tsv"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "python -m evalrank stage risk-table6 --population {input:q} --out-dir {params.out:q} --baseline {params.baseline}"
        " --measure {params.measure} --alphas {params.alphas} --top {params.top} 2> {log:q}"


# -- Sec. 6: risk-sensitive LambdaMART (Table 7) ---------------------------------

rule risk_baseline:
    wildcard_constraints:
        learner=r"[a-z_]+",
    input:
        parts=LEARN_PARTS,
        facts=data_checked if LDS is None else [],
    output:
        f"{RESULTS}/risk/learning/baselines/{{learner}}.pkl",
    params:
        protocol=LEARN_PROTOCOL,
        params=lambda w: json.dumps(LEARN["baseline_params"].get(w.learner, {}), sort_keys=True),
    log:
        f"{LOGS}/risk/baseline_{{learner}}.log",
    benchmark:
        f"{BENCH}/risk/baseline_{{learner}}.tsv"
    threads: LEARN["threads"]
    resources:
        mem_mb=lambda w, input: risk_learning_mem_mb(input.size_mb),
        runtime=60,
    shell:
        "python -m evalrank stage risk-baseline --partitions {input.parts:q} {params.protocol} --learner {wildcards.learner}"
        " --params {params.params:q} --threads {threads} --output {output:q} 2> {log:q}"


rule risk_learn:
    wildcard_constraints:
        spec=r"[a-z_\-]+(?:_a[0-9.]+)?",
    input:
        parts=LEARN_PARTS,
        facts=data_checked if LDS is None else [],
        baselines=lambda w: _baseline_models()
        if risk_learners()[w.spec]["method"] in ("t*-faro", "georisk") else [],
    output:
        f"{RESULTS}/risk/learning/runs/{{spec}}/fold{{fold}}.npz",
    params:
        protocol=LEARN_PROTOCOL,
        method=lambda w: risk_learners()[w.spec]["method"],
        alpha=lambda w: risk_learners()[w.spec]["alpha"],
        baselines=lambda w, input: ("--baselines " + " ".join(f"'{b}'" for b in input.baselines))
        if input.baselines else "",
        params=json.dumps(LEARN["params"], sort_keys=True),
        feature=LEARN["baseline_feature"],
    log:
        f"{LOGS}/risk/learn_{{spec}}_fold{{fold}}.log",
    benchmark:
        f"{BENCH}/risk/learn_{{spec}}_fold{{fold}}.tsv"
    threads: LEARN["threads"]
    resources:
        mem_mb=lambda w, input: risk_learning_mem_mb(input.size_mb),
        runtime=120,
    shell:
        "python -m evalrank stage risk-learn --partitions {input.parts:q} {params.protocol} --fold {wildcards.fold}"
        " --method '{params.method}' --alpha {params.alpha} --baseline-feature {params.feature} {params.baselines}"
        " --params {params.params:q} --threads {threads} --output {output:q} 2> {log:q}"


rule risk_table7:
    input:
        parts=LEARN_PARTS,
        baselines=_baseline_models(),
        runs=expand(f"{RESULTS}/risk/learning/runs/{{spec}}/fold{{fold}}.npz", spec=list(risk_learners()),
                    fold=LEARN["folds"]),
    output:
        in_report(f"{RESULTS}/risk/learning/table7.csv", "risk_table7.rst", "Risk"),
        f"{RESULTS}/risk/learning/per_query_ndcg10.csv",
    params:
        protocol=LEARN_PROTOCOL,
        folds=" ".join(map(str, LEARN["folds"])),
        out=output_dir,
        feature=LEARN["baseline_feature"],
        threshold=LEARN["loss_threshold"],
    log:
        f"{LOGS}/risk/table7.log",
    benchmark:
        f"{BENCH}/risk/table7.tsv"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=10,
    shell:
        "python -m evalrank stage risk-table7 --partitions {input.parts:q} {params.protocol} --folds {params.folds}"
        " --baselines {input.baselines:q} --baseline-feature {params.feature} --runs {input.runs:q}"
        " --loss-threshold {params.threshold} --out-dir {params.out:q} 2> {log:q}"
