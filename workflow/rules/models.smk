# Models (Sawade et al. 2012, Sec. 5): on partition S_fold, half for training and
# half for validation; the other four partitions are the evaluation pool.
import json
import shlex


rule split_training:
    input:
        partition=f"{RESULTS}/data/S{{fold}}.npz",
        facts=data_checked,
    output:
        train=f"{RESULTS}/fold{{fold}}/train.npz",
        vali=f"{RESULTS}/fold{{fold}}/vali.npz",
    params:
        train_pairs=f"--train-pairs {config['models']['train_pairs']}" if config["models"]["train_pairs"] else "",
        vali=lambda w, output: f" --vali {shlex.quote(output.vali)}",  # split_sized (active.smk): none
        seed=config["seed"],
    log:
        f"{LOGS}/split/fold{{fold}}.log",
    benchmark:
        f"{BENCH}/split/fold{{fold}}.tsv"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=10,
    shell:
        "python -m evalrank stage split --partition {input.partition:q} {params.train_pairs}"
        " --seed {params.seed} --train {output.train:q}{params.vali} 2> {log:q}"


rule train_model:
    wildcard_constraints:
        model=r"[a-z_]+",
    input:
        train=f"{RESULTS}/fold{{fold}}/train.npz",
        vali=f"{RESULTS}/fold{{fold}}/vali.npz",
    output:
        model=f"{RESULTS}/fold{{fold}}/models/{{model}}.pkl",
        tuning=f"{RESULTS}/fold{{fold}}/models/{{model}}.tuning.csv",
    params:
        model=lambda w: w.model,
        grid=lambda w: json.dumps(config["models"]["grids"].get(w.model, {}), sort_keys=True),
        tuned="",  # train_sized (active.smk): " --params-from <tuned model>"
        seed=config["seed"],
        n_grades=DS["max_grade"] + 1,
    log:
        f"{LOGS}/train/fold{{fold}}_{{model}}.log",
    benchmark:
        f"{BENCH}/train/fold{{fold}}_{{model}}.tsv"
    threads: config["models"]["threads"]
    resources:
        mem_mb=8000,
        runtime=120,
    shell:
        "python -m evalrank stage train --model {params.model} --train {input.train:q} --vali {input.vali:q}"
        " --grid {params.grid:q}{params.tuned} --n-grades {params.n_grades} --seed {params.seed} --threads {threads}"
        " --output {output.model:q} --tuning {output.tuning:q} 2> {log:q}"


rule predict_pool:
    input:
        model=f"{RESULTS}/fold{{fold}}/models/{{model}}.pkl",
        pool=lambda w: expand(f"{RESULTS}/data/S{{part}}.npz", part=pool_parts(w.fold)),
    output:
        f"{RESULTS}/fold{{fold}}/predictions/{{model}}.npz",
    log:
        f"{LOGS}/predict/fold{{fold}}_{{model}}.log",
    benchmark:
        f"{BENCH}/predict/fold{{fold}}_{{model}}.tsv"
    threads: config["models"]["threads"]
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
        names=MODELS,
        reldir=lambda w: f"{RESULTS}/fold{w.fold}/quality/reliability",
        q=config["quality"],
        max_grade=DS["max_grade"],
        seed=config["seed"],
    log:
        f"{LOGS}/quality/fold{{fold}}.log",
    benchmark:
        f"{BENCH}/quality/fold{{fold}}.tsv"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=20,
    shell:
        "python -m evalrank stage quality --predictions {input:q} --names {params.names}"
        " --table {output.table:q} --figure {output.figure:q} --reliability-dir {params.reldir:q}"
        " --k {params.q[k]} --ece-bins {params.q[ece_bins]} --reliability-bins {params.q[reliability_bins]}"
        " --max-grade {params.max_grade} --seed {params.seed} 2> {log:q}"
