"""Bad input through ``python -m evalrank``: one line ``evalrank <command>: error: ...`` naming
the file and line, or the argument, and never a traceback; the cases of issue 16 one by one,
then every command fed files that cannot be read."""

from __future__ import annotations

import gzip
import zipfile

import numpy as np
import pytest

from cli_run import evalrank

from evalrank.cli import build_parser, main


def run(*args, check_rc=1):
    """``python -m evalrank ARGS`` in this process: exit status, stdout, stderr."""
    ran = evalrank(*args)
    if check_rc is not None:
        assert ran.returncode == check_rc, (ran.returncode, ran.stdout[-2000:], ran.stderr[-3000:])
    assert "Traceback" not in ran.stderr, ran.stderr
    return ran


def _letor(path, lines):
    path.write_text("".join(line + "\n" for line in lines))
    return path


LETOR = ["2 qid:1 1:0.5 2:1", "0 qid:1 1:0.1 2:0", "1 qid:2 1:0.3 2:2", "0 qid:2 1:0.9 2:1"]


def test_a_directory_where_a_file_belongs(tmp_path):
    letor = _letor(tmp_path / "a.txt", LETOR)
    for args, where in ((["stage", "parse", "--input", tmp_path, "--output", tmp_path / "o.npz"], "stage parse"),
                        (["ndcg", "--letor", tmp_path, "--scores", letor], "ndcg"),
                        (["ndcg", "--letor", letor, "--scores", tmp_path], "ndcg")):
        err = run(*args).stderr
        assert err.startswith(f"evalrank {where}: error: ") and str(tmp_path) in err and "directory" in err, err


def test_yaml_syntax_error_names_file_and_line(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("name: x\nseed: 1\ndataset: {kind: synthetic, root: d\nfolds: [1]\n")
    err = run("validate-config", cfg).stderr
    assert f"{cfg}:4:" in err and "not valid YAML" in err, err


def test_damaged_npz_is_named(tmp_path):
    good = tmp_path / "p.npz"
    np.savez(good, scores=np.zeros(3))
    bad = tmp_path / "bad.npz"
    bad.write_bytes(good.read_bytes()[:40])
    err = run("stage", "quality", "--predictions", bad, "--table", tmp_path / "t.csv", "--k", 10, "--ece-bins", 15,
              "--reliability-bins", 10, "--max-grade", 4, "--seed", 0).stderr
    assert f"{bad} is damaged" in err and "rebuilds it" in err, err
    assert not zipfile.is_zipfile(bad)


def test_huge_feature_index_is_refused_with_its_line(tmp_path):
    f = _letor(tmp_path / "big.txt", LETOR[:2] + ["0 qid:2 1:0.3 99999999999:1"])
    err = run("stage", "parse", "--input", f, "--output", tmp_path / "o.npz").stderr
    assert f"{f}:3: feature index 99999999999" in err and "GiB" in err, err


def test_bom_and_gzip_are_read_transparently(tmp_path):
    # a byte-order mark must not become part of the first qid (that topic would lose its judgment)
    qrels = tmp_path / "qrels"
    qrels.write_bytes("\ufeff301 0 d1 2\n301 0 d2 0\n302 0 d3 1\n".encode("utf-8"))
    runf = tmp_path / "run"
    runf.write_text("301 Q0 d1 1 2.0 r\n301 Q0 d2 2 1.0 r\n302 Q0 d3 1 5.0 r\n")
    out = run("ndcg", "--qrels", qrels, "--run", runf, check_rc=0).stdout
    assert "ndcg@10\t301\t1.000000" in out and "ndcg@10\tall\t1.000000" in out, out
    gz = tmp_path / "a.txt.gz"
    gz.write_bytes(gzip.compress(("\ufeff" + "\n".join(LETOR) + "\n").encode()))
    run("stage", "parse", "--input", gz, "--output", tmp_path / "g.npz", check_rc=0)
    from evalrank.data.collection import Collection

    c = Collection.load(tmp_path / "g.npz")
    assert c.qids.tolist() == [1, 2] and c.labels.tolist() == [2, 0, 1, 0]
    bad = tmp_path / "cut.txt.gz"
    bad.write_bytes(gzip.compress(b"\n".join(x.encode() for x in LETOR))[:-12])
    assert f"{bad}:0: damaged gzip file" in run("stage", "parse", "--input", bad, "--output",
                                                 tmp_path / "x.npz").stderr


def _runs(tmp_path, zero_topic=False):
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 a 2\n1 0 b 0\n2 0 c 1\n2 0 d 0\n3 0 e 1\n")
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "sysA").write_text("1 Q0 a 1 3 A\n1 Q0 b 2 2 A\n2 Q0 d 1 3 A\n2 Q0 c 2 2 A\n3 Q0 e 1 1 A\n")
    (runs / "sysB").write_text("1 Q0 b 1 3 B\n1 Q0 a 2 2 B\n2 Q0 c 1 3 B\n" + ("" if zero_topic else "3 Q0 e 1 1 B\n"))
    if zero_topic:
        (runs / "sysA").write_text("1 Q0 a 1 3 A\n1 Q0 b 2 2 A\n2 Q0 d 1 3 A\n2 Q0 c 2 2 A\n")
    return qrels, runs


def test_risk_checks_every_argument_before_writing(tmp_path):
    qrels, runs = _runs(tmp_path)
    out_dir = tmp_path / "out"
    err = run("risk", "--qrels", qrels, "--runs", runs, "--baseline", "sysZ", "--out-dir", out_dir).stderr
    assert "--baseline 'sysZ' is not a run" in err and not out_dir.exists(), err
    err = run("risk", "--qrels", qrels, "--runs", runs, "--baseline", "sysA", "--measure", "mapp",
              "--out-dir", out_dir).stderr
    assert "measure 'mapp' is not known" in err and not out_dir.exists(), err
    run("risk", "--qrels", qrels, "--runs", runs, "--baseline", "sysA", "--out-dir", out_dir, check_rc=0)
    assert (out_dir / "table6.csv").exists()


def test_risk_treats_all_zero_topics_as_the_library_does(tmp_path):
    """Topic 3 has a relevant document that no run retrieves: the library's zrisk/georisk refuse
    it by default, and so does the command; --zero-totals ignore = zero_totals='ignore'."""
    from evalrank.metrics import risk
    from evalrank.riskstudy.population import score_trec_runs

    qrels, runs = _runs(tmp_path, zero_topic=True)
    names, topics, X, _ = score_trec_runs(qrels, sorted(runs.iterdir()))
    with pytest.raises(ValueError, match="every system scores 0"):
        risk.georisk(X, 0, 1.0)
    err = run("risk", "--qrels", qrels, "--runs", runs, "--baseline", "sysA").stderr
    assert "every run scores 0 on 1 topic(s) (3)" in err and "--zero-totals ignore" in err, err
    out = run("risk", "--qrels", qrels, "--runs", runs, "--baseline", "sysA", "--zero-totals", "ignore",
              "--format", "json", check_rc=0).stdout
    import json

    rows = {r["system"]: r for r in json.loads(out)}
    want = risk.georisk(X, names.index("sysB"), 1.0, zero_totals="ignore")
    assert rows["sysB"]["georisk_a1"] == pytest.approx(float(np.ravel(want)[0]), abs=1e-9)


def _subcommands():
    """{'ndcg': parser, ..., 'stage parse': parser, ...}: every command as typed."""
    def choices(parser):
        return next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction").choices

    top = choices(build_parser())
    out = {name: p for name, p in top.items() if name != "stage"}
    out.update({f"stage {name}": p for name, p in choices(top["stage"]).items()})
    return out


NO_INPUT_FILES = {"stage synthesize", "stage ndcg-audit"}  # they read nothing a user gives


@pytest.mark.parametrize("command", sorted(set(_subcommands()) - NO_INPUT_FILES))
def test_every_command_fails_in_one_line_on_unreadable_files(command, tmp_path, capsys):
    """Each command with every required option set: file-like options point at a directory
    or a damaged .npz, numbers at 1. The answer is an argparse usage error (exit 2) or one
    'evalrank <command>: error:' line (exit 1); no traceback, no output file left behind."""
    parser = _subcommands()[command]
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"PK\x03\x04 truncated")
    argv = command.split()
    for action in parser._actions:
        if not action.required or not action.option_strings:
            continue
        opt = action.option_strings[-1]
        if action.choices:
            value = [sorted(map(str, action.choices))[0]]
        elif action.type in (int, float):
            value = ["1"]
        elif any(w in opt for w in ("output", "out-dir", "table", "figure", "train", "vali")):
            value = [str(tmp_path / "out" / opt.strip("-"))]
        elif any(w in opt for w in ("params", "grid")):
            value = ["{}"]
        else:
            value = [str(bad) if i % 2 else str(tmp_path) for i in range(1 if action.nargs in (None, 1) else 2)]
        argv += [opt, *value]
    positional = [a for a in parser._actions if not a.option_strings and a.dest != "help" and a.required]
    argv += [str(tmp_path)] * len(positional)
    try:
        rc = main(argv)
    except SystemExit as e:  # argparse: usage + 'error:', exit 2
        rc = e.code
    err = capsys.readouterr().err
    assert rc in (1, 2), (argv, rc, err)
    assert "Traceback" not in err
    if rc == 1:
        assert err.startswith(f"evalrank {command}: error: ") and err.count("\n") == 1, err
