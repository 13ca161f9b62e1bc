# Active evaluation (Sawade et al. 2012, Sec. 5): per fold and experiment, q* of every
# method -> Monte Carlo shards of Algorithm 1 -> merged curves, savings.csv, Figs. 1-3, the
# coverage study of the interval (coverage.csv, coverage.png), label_model_check.csv and
# label_model_split.csv (the calibrated label model, sawade2012.calibrated).

# Fig. 1 with the calibrated label model (sawade2012.calibrated): fig1_<model>_calibrated, appended after
# the paper's experiments (their rows and files stay as they are)
EXPERIMENTS.update({
    e.name: e
    for e in _experiments(
        MODELS, drop=ACT["index_update_drop"], base_pairs=_TS["base"], sizes=SIZES, base_model=SIZED_BASE,
        calibrated=ACT["calibrated"],
    )
    if e.calibrated
})


# The model's predictions on the fold's validation queries: the calibrated label model is fitted there
# (and on the training half, predict_swap).
rule predict_vali:
    input:
        model=f"{RESULTS}/fold{{fold}}/models/{{model}}.skops",
        queries=f"{RESULTS}/fold{{fold}}/vali.npz",
    output:
        f"{RESULTS}/fold{{fold}}/predictions_vali/{{model}}.npz",
    log:
        f"{LOGS}/predict/fold{{fold}}_{{model}}_vali.log",
    benchmark:
        f"{BENCH}/predict/fold{{fold}}_{{model}}_vali.tsv"
    priority: CRITICAL_PATH
    threads: lambda w: model_threads(w.model)
    resources:
        mem_mb=8000,
        runtime=60,
    shell:
        "python -m evalrank stage predict --model-file {input.model:q} --pool {input.queries:q} --threads {threads}"
        " --output {output:q} 2> {log:q}"


# Cross-fitting the calibrated label model (sawade2012.crossfit): the learner refitted on the
# validation half with the model's tuned hyperparameters (no search), and its predictions on the
# training half, where the copula's correlation is fitted beside the validation half's.
use rule train_model as train_swap with:
    input:
        train=f"{RESULTS}/fold{{fold}}/vali.npz",
        vali=f"{RESULTS}/fold{{fold}}/train.npz",
        tuned=f"{RESULTS}/fold{{fold}}/models/{{model}}.skops",
    output:
        model=f"{RESULTS}/fold{{fold}}/swap/{{model}}.skops",
        tuning=f"{RESULTS}/fold{{fold}}/swap/{{model}}.tuning.csv",
    params:
        opts=lambda w, input: train_options(w.model, tuned=input.tuned),
    log:
        f"{LOGS}/train/fold{{fold}}_{{model}}_swap.log",
    benchmark:
        f"{BENCH}/train/fold{{fold}}_{{model}}_swap.tsv"


use rule predict_vali as predict_swap with:
    input:
        model=f"{RESULTS}/fold{{fold}}/swap/{{model}}.skops",
        queries=f"{RESULTS}/fold{{fold}}/train.npz",
    output:
        f"{RESULTS}/fold{{fold}}/swap/{{model}}_train.npz",
    log:
        f"{LOGS}/predict/fold{{fold}}_{{model}}_swap.log",
    benchmark:
        f"{BENCH}/predict/fold{{fold}}_{{model}}_swap.tsv"


# split_training (models.smk) for the RF on n training pairs (Fig. 3): n pairs of the training
# half, no validation half (train_sized validates on split_training's).
use rule split_training as split_sized with:
    output:
        train=f"{RESULTS}/fold{{fold}}/train_sizes/train_n{{n}}.npz",
    params:
        opts=lambda w: flags(train_pairs=w.n, seed=config["seed"]),
    log:
        f"{LOGS}/split/fold{{fold}}_n{{n}}.log",
    benchmark:
        f"{BENCH}/split/fold{{fold}}_n{{n}}.tsv"


# train_model (models.smk) for the RF on n training pairs (Fig. 3): its own split, and every
# size but the base one reuses the base model's tuned parameters instead of a grid search.
use rule train_model as train_sized with:
    input:
        train=f"{RESULTS}/fold{{fold}}/train_sizes/train_n{{n}}.npz",
        vali=f"{RESULTS}/fold{{fold}}/vali.npz",
        tuned=lambda w: [] if int(w.n) == _TS["base"] else f"{RESULTS}/fold{w.fold}/models/{SIZED_BASE}.skops",
    output:
        model=f"{RESULTS}/fold{{fold}}/models/rf_n{{n}}.skops",
        tuning=f"{RESULTS}/fold{{fold}}/models/rf_n{{n}}.tuning.csv",
    params:
        opts=lambda w, input: train_options("rf", tuned=input.tuned or None),
    log:
        f"{LOGS}/train/fold{{fold}}_rf_n{{n}}.log",
    benchmark:
        f"{BENCH}/train/fold{{fold}}_rf_n{{n}}.tsv"
    threads: model_threads("rf")


rule active_setup:
    input:
        preds=lambda w: [
            f"{RESULTS}/fold{w.fold}/predictions/{m}.npz" for m in EXPERIMENTS[w.experiment].models
        ],
        pool=lambda w: expand(f"{RESULTS}/data/S{{part}}.npz", part=pool_parts(w.fold)),
        vali=lambda w: [f"{RESULTS}/fold{w.fold}/predictions_vali/{EXPERIMENTS[w.experiment].a}.npz"]
        if EXPERIMENTS[w.experiment].calibrated
        else [],
        swap=lambda w: [f"{RESULTS}/fold{w.fold}/swap/{EXPERIMENTS[w.experiment].a}_train.npz"]
        if EXPERIMENTS[w.experiment].calibrated and ACT["crossfit"]
        else [],
    output:
        f"{RESULTS}/fold{{fold}}/sawade2012/{{experiment}}/setup.npz",
    params:
        # a calibrated twin adds its two options; the paper's experiments keep their command line
        opts=lambda w, input: flags(
            **experiment_options(w.experiment),
            predictions=[f"{m}={p}" for m, p in zip(EXPERIMENTS[w.experiment].models, input.preds)],
            cost_feature=ACT["cost_feature"], measures=ACT["measures"], max_grade=DS["max_grade"], seed=config["seed"],
            calibrated=[EXPERIMENTS[w.experiment].a] if EXPERIMENTS[w.experiment].calibrated else [],
            vali_predictions=[f"{EXPERIMENTS[w.experiment].a}={p}" for p in input.vali],
            swap_predictions=[f"{EXPERIMENTS[w.experiment].a}={p}" for p in input.swap],
        ),
    log:
        f"{LOGS}/sawade2012/fold{{fold}}_{{experiment}}_setup.log",
    benchmark:
        f"{BENCH}/sawade2012/fold{{fold}}_{{experiment}}_setup.tsv"
    priority: CRITICAL_PATH
    threads: 1
    resources:
        mem_mb=6000,
        runtime=30,
    shell:
        "python -m evalrank stage active-setup --pool {input.pool:q} {params.opts} --fold {wildcards.fold}"
        " --output {output:q} 2> {log:q}"


rule active_mc:
    input:
        f"{RESULTS}/fold{{fold}}/sawade2012/{{experiment}}/setup.npz",
    output:
        f"{RESULTS}/fold{{fold}}/sawade2012/{{experiment}}/shard{{shard}}.npz",
    params:
        opts=flags(budgets=ACT["budgets"], repetitions=ACT["repetitions"], shards=ACT["shards"], seed=config["seed"],
                   campaign_repetitions=ACT["campaign"]["repetitions"],
                   rounds_repetitions=ACT["campaign"]["rounds_repetitions"], campaign_budgets=ACT["campaign"]["budgets"],
                   epsilons=ACT["campaign"]["epsilons"], tune_budget=ACT["campaign"]["tune_budget"],
                   level=ACT["coverage_level"]),
    log:
        f"{LOGS}/sawade2012/fold{{fold}}_{{experiment}}_shard{{shard}}.log",
    benchmark:
        f"{BENCH}/sawade2012/fold{{fold}}_{{experiment}}_shard{{shard}}.tsv"
    priority: CRITICAL_PATH
    threads: 1
    resources:
        mem_mb=2000,
        runtime=60,
    shell:
        "python -m evalrank stage active-mc --setup {input:q} {params.opts} --shard {wildcards.shard}"
        " --output {output:q} 2> {log:q}"


rule active_summary:
    input:
        setups=expand(
            f"{RESULTS}/fold{{fold}}/sawade2012/{{experiment}}/setup.npz", fold=FOLDS, experiment=list(EXPERIMENTS)
        ),
        shards=expand(
            f"{RESULTS}/fold{{fold}}/sawade2012/{{experiment}}/shard{{shard}}.npz",
            fold=FOLDS,
            experiment=list(EXPERIMENTS),
            shard=SHARDS,
        ),
    output:
        savings=in_report(f"{RESULTS}/sawade2012/savings.csv", "sawade2012/savings.rst", "sawade2012"),
        curves=in_report(f"{RESULTS}/sawade2012/curves.csv", "sawade2012/curves_table.rst", "sawade2012"),
        costs=in_report(f"{RESULTS}/sawade2012/costs.png", "sawade2012/costs.rst", "sawade2012"),
        # one caption per figure (a figure per measure: fig1_err.png, fig1_dcg.png, ...)
        **{
            fig: in_report(expand(f"{RESULTS}/sawade2012/{fig}_{{m}}.png", m=ACT["measures"]), f"sawade2012/{fig}.rst",
                           "sawade2012")
            for fig in ["fig1", "fig2", "fig3"] + (["fig3_train_size"] if SIZES else [])
        },
        coverage=in_report(f"{RESULTS}/sawade2012/coverage.csv", "sawade2012/coverage_table.rst", "sawade2012"),
        coverage_fig=in_report(f"{RESULTS}/sawade2012/coverage.png", "sawade2012/coverage.rst", "sawade2012"),
        campaign=in_report(f"{RESULTS}/sawade2012/campaign_coverage.csv", "sawade2012/campaign_coverage_table.rst", "sawade2012"),
        label_check=in_report(f"{RESULTS}/sawade2012/label_model_check.csv", "sawade2012/label_model_check.rst", "sawade2012"),
        label_split=in_report(f"{RESULTS}/sawade2012/label_model_split.csv", "sawade2012/label_model_split.rst", "sawade2012"),
    params:
        out=output_dir,
        opts=flags(reference_budget=ACT["reference_budget"], train_size_budget=_TS["budget"],
                   level=ACT["coverage_level"]),
    log:
        f"{LOGS}/sawade2012/summary.log",
    benchmark:
        f"{BENCH}/sawade2012/summary.tsv"
    priority: CRITICAL_PATH
    threads: 1
    resources:
        mem_mb=4000,
        runtime=20,
    shell:
        "python -m evalrank stage active-summary --setups {input.setups:q} --shards {input.shards:q}"
        " {params.opts} --out-dir {params.out:q} 2> {log:q}"
