import json

THEORY = config["theory"]
THEORY_DIR = f"{RESULTS}/theory"
THEORY_PARAMS = json.dumps({k: THEORY[k] for k in ("population", "scorers", "measures", "pairs")})


def theory_outputs():
    if not THEORY["enabled"]:
        return []
    tables = ["limits.csv", "convergence.csv", "gaps.csv", "rate.csv", "distinguishability.csv"]
    return [f"{THEORY_DIR}/{f}" for f in tables + ["convergence.png", "distinguishability.png"]]


rule theory_sample:
    output:
        f"{THEORY_DIR}/samples/n{{n}}.npz",
    params:
        p=THEORY_PARAMS,
        reps=THEORY["repetitions"],
        block=lambda w: max(1, THEORY["block_objects"] // int(w.n)),
        seed=config["seed"],
    log:
        f"{LOGS}/theory/sample_n{{n}}.log",
    benchmark:
        f"{BENCH}/theory/sample_n{{n}}.tsv"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    shell:
        "python -m evalrank theory-sample --params {params.p:q} --n {wildcards.n} --repetitions {params.reps}"
        " --block {params.block} --seed {params.seed} --output {output:q} 2> {log:q}"


rule theory_report:
    input:
        expand(f"{THEORY_DIR}/samples/n{{n}}.npz", n=THEORY["sizes"]),
    output:
        expand(f"{THEORY_DIR}/{{f}}", f=["limits.csv", "convergence.csv", "gaps.csv", "rate.csv",
                                         "distinguishability.csv"]),
        report(expand(f"{THEORY_DIR}/{{f}}", f=["convergence.png", "distinguishability.png"]),
               caption="../report/theory.rst", category="Theory"),
    params:
        p=THEORY_PARAMS,
        out=THEORY_DIR,
    log:
        f"{LOGS}/theory/report.log",
    benchmark:
        f"{BENCH}/theory/report.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    shell:
        "python -m evalrank theory-report --params {params.p:q} --inputs {input:q} --out-dir {params.out:q} 2> {log:q}"
