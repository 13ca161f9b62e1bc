import subprocess
import sys

SUBCOMMANDS = ["synthesize", "download", "parse", "describe", "split", "train", "predict", "quality", "validate-config"]


def run(*args):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=120)


def test_help_lists_subcommands():
    out = run("-m", "evalrank", "--help")
    assert out.returncode == 0, out.stderr
    for name in SUBCOMMANDS:
        assert name in out.stdout


def test_import_without_snakemake_or_heavy_learners():
    code = (
        "import sys, evalrank, evalrank.metrics, evalrank.io, evalrank.config, evalrank.seeds\n"
        "from evalrank.metrics import ndcg, err, dcg\n"
        "bad = [m for m in ('snakemake', 'lightgbm', 'mord', 'sklearn', 'matplotlib') if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    out = run("-c", code)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""


def test_validate_config_reports_key(tmp_path):
    cfg = tmp_path / "bad.yaml"
    cfg.write_text("name: x\nseed: 1\ndataset: {kind: synthetic, root: d}\nmodels: {threads: 0}\n")
    out = run("-m", "evalrank", "validate-config", str(cfg))
    assert out.returncode == 1
    assert "models.threads" in out.stderr
