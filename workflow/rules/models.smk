# Models (Sawade et al. 2012, Sec. 5): on partition S_fold, half for training and
# half for validation; the other four partitions are the evaluation pool.

rule split_training:
    input:
        partition=f"{RESULTS}/data/S{{fold}}.npz",
        facts=data_checked,
    output:
        train=f"{RESULTS}/fold{{fold}}/train.npz",
        vali=f"{RESULTS}/fold{{fold}}/vali.npz",
    params:
        # split_sized (sawade2012.smk): n pairs, no validation half
        opts=lambda w, output: flags(train_pairs=config["models"]["train_pairs"], seed=config["seed"], vali=output.vali),
    log:
        f"{LOGS}/split/fold{{fold}}.log",
    benchmark:
        f"{BENCH}/split/fold{{fold}}.tsv"
    priority: CRITICAL_PATH
    threads: 1
    resources:
        mem_mb=4000,
        runtime=10,
    shell:
        "python -m evalrank stage split --partition {input.partition:q} --train {output.train:q} {params.opts} 2> {log:q}"


rule train_model:
    wildcard_constraints:
        model=r"[a-z_]+",
    input:
        train=f"{RESULTS}/fold{{fold}}/train.npz",
        vali=f"{RESULTS}/fold{{fold}}/vali.npz",
        tuned=lambda w: tuning_source(w.fold, w.model),
    output:
        model=f"{RESULTS}/fold{{fold}}/models/{{model}}.skops",
        tuning=f"{RESULTS}/fold{{fold}}/models/{{model}}.tuning.csv",
    params:
        # models.params_from: --params-from the model whose tuning it takes; train_sized (sawade2012.smk): rf's own
        opts=lambda w, input: train_options(w.model, tuned=input.tuned or None),
    log:
        f"{LOGS}/train/fold{{fold}}_{{model}}.log",
    benchmark:
        f"{BENCH}/train/fold{{fold}}_{{model}}.tsv"
    priority: CRITICAL_PATH
    threads: lambda w: model_threads(w.model)
    resources:
        mem_mb=8000,
        runtime=120,
    shell:
        "python -m evalrank stage train --train {input.train:q} --vali {input.vali:q} {params.opts} --threads {threads}"
        " --output {output.model:q} --tuning {output.tuning:q} 2> {log:q}"


rule predict_pool:
    input:
        model=f"{RESULTS}/fold{{fold}}/models/{{model}}.skops",
        pool=lambda w: expand(f"{RESULTS}/data/S{{part}}.npz", part=pool_parts(w.fold)),
    output:
        f"{RESULTS}/fold{{fold}}/predictions/{{model}}.npz",
    log:
        f"{LOGS}/predict/fold{{fold}}_{{model}}.log",
    benchmark:
        f"{BENCH}/predict/fold{{fold}}_{{model}}.tsv"
    priority: CRITICAL_PATH
    threads: lambda w: model_threads(w.model)
    resources:
        mem_mb=8000,
        runtime=60,
    shell:
        "python -m evalrank stage predict --model-file {input.model:q} --pool {input.pool:q} --threads {threads}"
        " --output {output:q} 2> {log:q}"


rule model_quality:
    input:
        expand(f"{RESULTS}/fold{{{{fold}}}}/predictions/{{model}}.npz", model=MODELS),
    output:
        table=report(
            f"{RESULTS}/fold{{fold}}/quality/quality.csv",
            caption="../report/quality_table.rst",
            category="Models",
            subcategory="fold {fold}",
        ),
        figure=report(
            f"{RESULTS}/fold{{fold}}/quality/quality.png",
            caption="../report/quality.rst",
            category="Models",
            subcategory="fold {fold}",
        ),
        reliability=report(
            expand(f"{RESULTS}/fold{{{{fold}}}}/quality/reliability/{{model}}.png", model=MODELS),
            caption="../report/reliability.rst",
            category="Models",
            subcategory="fold {fold}",
        ),
    params:
        out=lambda w, output: str(Path(output.reliability[0]).parent),
        opts=flags(names=MODELS, k=config["quality"]["k"], ece_bins=config["quality"]["ece_bins"],
                   reliability_bins=config["quality"]["reliability_bins"], max_grade=DS["max_grade"], seed=config["seed"]),
    log:
        f"{LOGS}/quality/fold{{fold}}.log",
    benchmark:
        f"{BENCH}/quality/fold{{fold}}.tsv"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=20,
    shell:
        "python -m evalrank stage quality --predictions {input:q}"
        " --table {output.table:q} --figure {output.figure:q} --reliability-dir {params.out:q}"
        " {params.opts} 2> {log:q}"
