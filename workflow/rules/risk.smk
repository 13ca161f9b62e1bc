# Risk-sensitive evaluation (Dinçer et al. 2016): the worked example (Tables 4-5,
# Figs. 1-2), a population of systems on our data (Table 6, Fig. 3).
import json

RISK = config["risk"]
POP = RISK["population"]


def risk_outputs():
    if not RISK["enabled"]:
        return []
    out = [f"{RESULTS}/risk/example/{f}" for f in ("table4.csv", "table5.csv", "vs_paper.csv", "fig1.png", "fig2.png")]
    if POP["enabled"]:
        out += [f"{RESULTS}/risk/population/{f}" for f in ("systems.csv", "table6.csv", "observations.csv", "fig3.png")]
    return out


rule risk_example:
    input:
        matrix=RISK["example"]["matrix"],
        printed4=RISK["example"]["printed4"],
        printed5=RISK["example"]["printed5"],
    output:
        expand(f"{RESULTS}/risk/example/{{f}}", f=["table4.csv", "table5.csv", "vs_paper.csv", "fig1.png", "fig2.png"]),
    params:
        out=f"{RESULTS}/risk/example",
    log:
        f"{LOGS}/risk/example.log",
    benchmark:
        f"{BENCH}/risk/example.tsv"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    shell:
        "python -m evalrank risk-example --matrix {input.matrix:q} --printed4 {input.printed4:q}"
        " --printed5 {input.printed5:q} --out-dir {params.out:q} 2> {log:q}"


rule risk_population:
    input:
        train=f"{RESULTS}/fold{POP['fold']}/train.npz",
        test=f"{RESULTS}/data/S{POP['test_partition']}.npz",
        models=expand(f"{RESULTS}/fold{POP['fold']}/models/{{model}}.pkl", model=MODELS)
        if POP["include_models"] else [],
    output:
        population=f"{RESULTS}/risk/population/population.npz",
        table=f"{RESULTS}/risk/population/systems.csv",
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
        "python -m evalrank risk-population --train {input.train:q} --test {input.test:q} {params.models}"
        " --features {params.features} --objectives {params.objectives} --seeds {params.seeds}"
        " --train-fractions {params.fractions} --feature-shares {params.shares} --lgb-params {params.lgb:q}"
        " --measure {params.measure} --max-grade {params.max_grade} --seed {params.seed} --threads {threads}"
        " --output {output.population:q} --table {output.table:q} 2> {log:q}"


rule risk_table6:
    input:
        f"{RESULTS}/risk/population/population.npz",
    output:
        expand(f"{RESULTS}/risk/population/{{f}}", f=["table6.csv", "observations.csv", "georisk_curves.csv", "fig3.png"]),
    params:
        out=f"{RESULTS}/risk/population",
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
        "python -m evalrank risk-table6 --population {input:q} --out-dir {params.out:q} --baseline {params.baseline}"
        " --measure {params.measure} --alphas {params.alphas} --top {params.top} 2> {log:q}"
