# Findings: each paper's claims next to this run's numbers, read from the stages' tables when
# the page is rendered (evalrank.papers.common.findings; acceptance of issue 19, item 1). The last rule of
# every config's DAG: its inputs are every table the enabled stages write.


rule findings:
    input:
        stage_tables(),
    output:
        md=f"{RESULTS}/findings.md",
        html=report(f"{RESULTS}/findings.html", caption="../report/findings.rst", category="Findings"),
    params:
        opts=flags(name=config["name"], seed=config["seed"]),
        out=output_dir,
    log:
        f"{LOGS}/findings.log",
    benchmark:
        f"{BENCH}/findings.tsv"
    threads: 1
    resources:
        # pandas and a few small tables: ~150 MB measured
        mem_mb=500,
        runtime=5,
    shell:
        "python -m evalrank stage findings --results {params.out:q} {params.opts}"
        " --out-md {output.md:q} --out-html {output.html:q} 2> {log:q}"
