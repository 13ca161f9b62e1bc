# Judgments + clicks (Ozertem et al. 2011): a simulated search world with known
# true grades, click models, beta mapping, hybrid smoothing, ΔDCG@5 of every test
# by every estimator; Tables 2 and 4-8, Figs. 1-8 under results/<name>/clicks/.

rule clicks_simulate:
    input:
        predictions=expand(f"{RESULTS}/fold{CLICKS['fold']}/predictions/{{model}}.npz", model=CLICKS_RANKERS),
        agreement=_config_file(CLICKS["agreement"]),
    output:
        expand(f"{CLICKS_DIR}/world/{{f}}", f=["world.npz", "tests.csv", "sessions.tsv", "judgments.tsv"]),
    params:
        predictions=lambda w, input: " ".join(f"{m}={p}" for m, p in zip(CLICKS_RANKERS, input.predictions)),
        world=json.dumps(CWORLD, sort_keys=True),
        out=output_dir,
        seed=config["seed"],
        grades=CLICKS_GRADES,
    log:
        f"{LOGS}/clicks/simulate.log",
    benchmark:
        f"{BENCH}/clicks/simulate.tsv"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=10,
    shell:
        "python -m evalrank stage clicks-simulate --predictions {params.predictions} --agreement {input.agreement:q}"
        " --params {params.world:q} --seed {params.seed} --grades {params.grades} --out-dir {params.out:q} 2> {log:q}"


rule clicks_dbn:
    input:
        world=f"{CLICKS_DIR}/world/world.npz",
        sessions=f"{CLICKS_DIR}/world/sessions.tsv",
    output:
        model=f"{CLICKS_DIR}/dbn.npz",
        table=in_report(f"{CLICKS_DIR}/dbn_recovery.csv", "clicks_dbn_recovery.rst", "Clicks"),
    params:
        gamma="fit" if CLICKS["dbn"]["gamma"] is None else CLICKS["dbn"]["gamma"],
        prior=" ".join(map(str, CLICKS["dbn"]["prior"])),
        grid=" ".join(map(str, CLICKS["dbn"]["min_views_grid"])),
        dbn=CLICKS["dbn"],
    log:
        f"{LOGS}/clicks/dbn.log",
    benchmark:
        f"{BENCH}/clicks/dbn.tsv"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=10,
    shell:
        "python -m evalrank stage clicks-dbn --world {input.world:q} --sessions {input.sessions:q}"
        " --views-grid {params.grid} --gamma {params.gamma} --prior {params.prior}"
        " --max-iter {params.dbn[max_iter]} --tol {params.dbn[tol]} --output {output.model:q}"
        " --table {output.table:q} 2> {log:q}"


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
        out=output_dir,
        c=CLICKS,
        bounds=" ".join(map(str, CLICKS["smoothing"]["sigma_bounds"])),
        grid=" ".join(map(str, CLICKS["dbn"]["min_views_grid"])),
        grades=CLICKS_GRADES,
    log:
        f"{LOGS}/clicks/estimate.log",
    benchmark:
        f"{BENCH}/clicks/estimate.tsv"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=20,
    shell:
        "python -m evalrank stage clicks-estimate --world {input.world:q} --sessions {input.sessions:q}"
        " --judgments {input.judgments:q} --dbn {input.dbn:q} --agreement {input.agreement:q}"
        " --model {params.c[dbn][model]} --min-views {params.c[dbn][min_views]} --views-grid {params.grid}"
        " --views-folds {params.c[dbn][min_views_folds]} --prior-depth {params.c[mapping][prior_depth]}"
        " --eps {params.c[mapping][eps]} --min-samples {params.c[mapping][min_samples]}"
        " --sigma {params.c[smoothing][sigma]} --sigma-bounds {params.bounds}"
        " --curve-points {params.c[smoothing][curve_points]} --cj-min-train {params.c[carterette][min_train_impressions]}"
        " --cj-alpha {params.c[carterette][alpha]} --z {params.c[z]} --grades {params.grades}"
        " --out-dir {params.out:q} 2> {log:q}"


rule clicks_report:
    input:
        rules.clicks_estimate.output,
        world=f"{CLICKS_DIR}/world/world.npz",
        agreement=_config_file(CLICKS["agreement"]),
        printed=_config_file(CLICKS["printed_table2"]),
    output:
        # one caption per table and figure: workflow/report/clicks_<name>.rst
        *[in_report(f"{CLICKS_DIR}/{t}.csv", f"clicks_{t}.rst", "Clicks")
          for t in [f"table{t}" for t in (2, 4, 5, 6, 7, 8)] + ["study", "min_views"]],
        *[in_report(f"{CLICKS_DIR}/fig{i}.png", f"clicks_fig{i}.rst", "Clicks") for i in range(1, 9)],
    params:
        src=input_dir,
        out=output_dir,
        c=CLICKS,
        grades=CLICKS_GRADES,
    log:
        f"{LOGS}/clicks/report.log",
    benchmark:
        f"{BENCH}/clicks/report.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    shell:
        "python -m evalrank stage clicks-report --world {input.world:q} --in-dir {params.src:q}"
        " --agreement {input.agreement:q} --printed-table2 {input.printed:q} --paper-tests {params.c[paper_tests]}"
        " --coverage-z {params.c[coverage_z]} --grades {params.grades} --out-dir {params.out:q} 2> {log:q}"
