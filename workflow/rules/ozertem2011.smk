# Judgments + clicks (Ozertem et al. 2011): a simulated search world with known
# true grades, click models, beta mapping, hybrid smoothing, ΔDCG@5 of every test
# by every estimator; Tables 2 and 4-8, Figs. 1-8 under results/<name>/ozertem2011/.

rule clicks_simulate:
    input:
        predictions=expand(f"{RESULTS}/fold{CLICKS['fold']}/predictions/{{model}}.npz", model=CLICKS_RANKERS),
        agreement=_config_file(CLICKS["agreement"]),
    output:
        expand(f"{CLICKS_DIR}/world/{{f}}", f=["world.npz", "tests.csv", "sessions.tsv", "judgments.tsv"]),
    params:
        opts=lambda w, input: flags(
            predictions=[f"{m}={p}" for m, p in zip(CLICKS_RANKERS, input.predictions)],
            params=CWORLD, seed=config["seed"], grades=CLICKS["grades"],
        ),
        out=output_dir,
    log:
        f"{LOGS}/ozertem2011/simulate.log",
    benchmark:
        f"{BENCH}/ozertem2011/simulate.tsv"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=10,
    shell:
        "python -m evalrank stage clicks-simulate --agreement {input.agreement:q} {params.opts}"
        " --out-dir {params.out:q} 2> {log:q}"


rule clicks_dbn:
    input:
        world=f"{CLICKS_DIR}/world/world.npz",
        sessions=f"{CLICKS_DIR}/world/sessions.tsv",
    output:
        model=f"{CLICKS_DIR}/dbn.npz",
        table=in_report(f"{CLICKS_DIR}/dbn_recovery.csv", "ozertem2011/dbn_recovery.rst", "ozertem2011"),
    params:
        opts=flags(views_grid=CLICKS["dbn"]["min_views_grid"], gamma=CLICKS["dbn"]["gamma"], prior=CLICKS["dbn"]["prior"],
                   max_iter=CLICKS["dbn"]["max_iter"], tol=CLICKS["dbn"]["tol"]),
    log:
        f"{LOGS}/ozertem2011/dbn.log",
    benchmark:
        f"{BENCH}/ozertem2011/dbn.tsv"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=10,
    shell:
        "python -m evalrank stage clicks-dbn --world {input.world:q} --sessions {input.sessions:q}"
        " {params.opts} --output {output.model:q} --table {output.table:q} 2> {log:q}"


rule clicks_estimate:
    input:
        world=f"{CLICKS_DIR}/world/world.npz",
        sessions=f"{CLICKS_DIR}/world/sessions.tsv",
        judgments=f"{CLICKS_DIR}/world/judgments.tsv",
        dbn=f"{CLICKS_DIR}/dbn.npz",
        agreement=_config_file(CLICKS["agreement"]),
    output:
        expand(f"{CLICKS_DIR}/estimates/{{f}}",
               f=["estimates.npz", "summaries.csv", "sigma.csv", "loo_curve.csv", "sources.npz", "min_views.csv"]),
    params:
        opts=flags(
            model=CLICKS["dbn"]["model"], min_views=CLICKS["dbn"]["min_views"], views_grid=CLICKS["dbn"]["min_views_grid"],
            views_folds=CLICKS["dbn"]["min_views_folds"], prior_depth=CLICKS["mapping"]["prior_depth"],
            eps=CLICKS["mapping"]["eps"], min_samples=CLICKS["mapping"]["min_samples"],
            sigma=CLICKS["smoothing"]["sigma"], sigma_bounds=CLICKS["smoothing"]["sigma_bounds"],
            curve_points=CLICKS["smoothing"]["curve_points"],
            cj_min_train=CLICKS["carterette"]["min_train_impressions"], cj_alpha=CLICKS["carterette"]["alpha"],
            z=CLICKS["z"], grades=CLICKS["grades"],
        ),
        out=output_dir,
    log:
        f"{LOGS}/ozertem2011/estimate.log",
    benchmark:
        f"{BENCH}/ozertem2011/estimate.tsv"
    threads: 1
    resources:
        mem_mb=6000,  # peak 3,966 MB at paper scale (benchmarks/RESULTS.md, "Paper scale, re-projected")
        runtime=20,
    shell:
        "python -m evalrank stage clicks-estimate --world {input.world:q} --sessions {input.sessions:q}"
        " --judgments {input.judgments:q} --dbn {input.dbn:q} --agreement {input.agreement:q} {params.opts}"
        " --out-dir {params.out:q} 2> {log:q}"


rule clicks_report:
    input:
        rules.clicks_estimate.output,
        world=f"{CLICKS_DIR}/world/world.npz",
        agreement=_config_file(CLICKS["agreement"]),
        printed=_config_file(CLICKS["printed_table2"]),
    output:
        # one caption per table and figure: workflow/report/ozertem2011/<name>.rst
        *[in_report(f"{CLICKS_DIR}/{t}.csv", f"ozertem2011/{t}.rst", "ozertem2011")
          for t in [f"table{t}" for t in (2, 4, 5, 6, 7, 8)] + ["study", "min_views"]],
        *[in_report(f"{CLICKS_DIR}/{name}", f"ozertem2011/fig{i}.rst", "ozertem2011")
          for i, name in enumerate(CLICKS_FIGURES, 1)],
    params:
        opts=flags(paper_tests=CLICKS["paper_tests"], coverage_z=CLICKS["coverage_z"], grades=CLICKS["grades"]),
        src=input_dir,
        out=output_dir,
    log:
        f"{LOGS}/ozertem2011/report.log",
    benchmark:
        f"{BENCH}/ozertem2011/report.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    shell:
        "python -m evalrank stage clicks-report --world {input.world:q} --in-dir {params.src:q}"
        " --agreement {input.agreement:q} --printed-table2 {input.printed:q} {params.opts} --out-dir {params.out:q}"
        " 2> {log:q}"
