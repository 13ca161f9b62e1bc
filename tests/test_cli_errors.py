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
    err = run("risk", qrels, runs, "--baseline", "sysZ", "--out-dir", out_dir).stderr
    assert "--baseline 'sysZ' is not one of the runs given" in err and not out_dir.exists(), err
    err = run("risk", qrels, runs, "--baseline", "sysA", "-m", "mapp",
              "--out-dir", out_dir).stderr
    assert "measure 'mapp' is not known" in err and not out_dir.exists(), err
    run("risk", qrels, runs, "--baseline", "sysA", "--out-dir", out_dir, check_rc=0)
    assert (out_dir / "table6.csv").exists()


def test_risk_treats_all_zero_topics_as_the_library_does(tmp_path):
    """Topic 3 has a relevant document that no run retrieves: the library's zrisk/georisk refuse
    it by default, and so does the command; --zero-totals ignore = zero_totals='ignore'."""
    from evalrank.metrics import risk
    from evalrank.papers.dincer2016.population import score_trec_runs

    qrels, runs = _runs(tmp_path, zero_topic=True)
    names, topics, X, _ = score_trec_runs(qrels, sorted(runs.iterdir()))
    with pytest.raises(ValueError, match="every system scores 0"):
        risk.georisk(X, 0, 1.0)
    err = run("risk", qrels, runs, "--baseline", "sysA").stderr
    assert "every run scores 0 on 1 topic(s) (3)" in err and "--zero-totals ignore" in err, err
    out = run("risk", qrels, runs, "--baseline", "sysA", "--zero-totals", "ignore",
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


# ---------------------------------------------------------------------------
# issue 28 item 6: outputs that are not regular files, inputs that are pipes, and OS errors
# that name the path and the option, never a Python exception
# ---------------------------------------------------------------------------
QRELS = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 1\n"
RUN = "q1 Q0 d1 1 0.3 t\nq1 Q0 d2 2 0.95 t\nq1 Q0 d3 3 0.9 t\n"
MAP = "map                   \tall\t0.5833\n"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    return tmp_path / "qrels", tmp_path / "run"


def _thread(fn):
    import threading

    got = []
    t = threading.Thread(target=lambda: got.append(fn()), daemon=True)
    t.start()
    return t, got


def _read(path):
    with open(path, "rb") as fh:
        return fh.read()


def test_out_to_a_fifo_writes_through(files, tmp_path):
    import os
    import stat

    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    t, got = _thread(lambda: _read(fifo))
    run("evaluate", "-m", "map", *files, "-o", fifo, check_rc=0)
    t.join(10)
    assert got == [MAP.encode()] and stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_out_to_a_symlink_replaces_its_target(files, tmp_path):
    link = tmp_path / "out.txt"
    (tmp_path / "target.txt").write_text("old\n")
    link.symlink_to("target.txt")
    run("evaluate", "-m", "map", *files, "--out", link, check_rc=0)
    assert link.is_symlink() and (tmp_path / "target.txt").read_text() == MAP


def test_out_to_dev_null_writes_through(files, no_replace):
    import os
    import stat

    ran = run("evaluate", "-m", "map", *files, "-o", "/dev/null", check_rc=0)
    assert ran.stdout == "" and stat.S_ISCHR(os.stat("/dev/null").st_mode)


@pytest.mark.parametrize("opt", ["-o", "--out"])
def test_out_to_a_full_device_names_option_and_path(files, no_replace, opt):
    """/dev/full through the write-through path only (no_replace fails the test before any rename):
    one line naming the option and the path, and /dev/full stays a character device."""
    import os
    import stat

    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    err = run("evaluate", "-m", "map", *files, opt, "/dev/full").stderr
    assert err == f"evalrank evaluate: error: {opt} /dev/full: No space left on device\n"
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_out_to_dev_stdout_and_dev_fd_write_through(files, no_replace):
    """-o /dev/stdout (here fd 1 is a pipe for the time of the call) and -o /dev/fd/N (a
    shell's >(...)): links into /proc that name an open file, written through."""
    import os

    if not os.path.isdir("/dev/fd"):
        pytest.skip("no /dev/fd here")
    r, w = os.pipe()
    t, got = _thread(lambda: os.read(r, 1 << 16))
    saved = os.dup(1)
    try:
        os.dup2(w, 1)
        run("evaluate", "-m", "map", *files, "-o", "/dev/stdout", check_rc=0)
    finally:
        os.dup2(saved, 1)
        os.close(saved)
    t.join(10)
    assert got == [MAP.encode()]
    t, got = _thread(lambda: os.read(r, 1 << 16))
    run("evaluate", "-m", "map", *files, "-o", f"/dev/fd/{w}", check_rc=0)
    t.join(10)
    os.close(r)
    os.close(w)
    assert got == [MAP.encode()]


def test_inputs_from_pipes_are_read(files):
    """<(...) gives /dev/fd/N of a pipe: not seekable, not mappable; read as a stream (it was
    '[Errno 22] Invalid argument')."""
    import os

    if not os.path.isdir("/dev/fd"):
        pytest.skip("no /dev/fd here")
    fds = []
    for text in (QRELS, RUN):
        r, w = os.pipe()
        os.write(w, text.encode())  # small: fits the pipe
        os.close(w)
        fds.append(r)
    try:
        ran = run("evaluate", "-m", "map", *(f"/dev/fd/{r}" for r in fds), check_rc=0)
    finally:
        for r in fds:
            os.close(r)
    assert ran.stdout == MAP


def _shell(line, **kw):
    import shutil
    import subprocess
    import sys

    if not shutil.which("bash"):
        pytest.skip("no bash here")
    return subprocess.run(["bash", "-c", line.replace("EVALRANK", f"'{sys.executable}' -m evalrank")],
                          capture_output=True, text=True, timeout=120, **kw)


def test_process_substitution_in_a_real_shell(files):
    q, r = files
    ran = _shell(f"EVALRANK evaluate -m map <(cat '{q}') <(gzip -c '{r}') -o >(cat)")
    assert ran.returncode == 0 and ran.stdout == MAP and ran.stderr == "", ran


def test_closed_stdout_is_said_so(files, tmp_path):
    q, r = files
    ran = _shell(f"EVALRANK evaluate -m map '{q}' '{r}' >&-")
    assert ran.returncode == 1 and ran.stderr == "evalrank evaluate: error: standard output is closed (Bad file " \
                                                 "descriptor)\n", ran
    out = tmp_path / "out.txt"
    ran = _shell(f"EVALRANK evaluate -m map '{q}' '{r}' -o '{out}' >&-")
    assert ran.returncode == 0 and out.read_text() == MAP, ran


def test_full_stdout_is_said_so(files):
    import os

    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    q, r = files
    ran = _shell(f"EVALRANK evaluate -m map '{q}' '{r}' > /dev/full")
    assert ran.returncode == 1 and ran.stderr == "evalrank evaluate: error: standard output: No space left on " \
                                                 "device\n", ran


def test_a_reader_that_leaves_ends_the_command_quietly(files):
    """stdout a pipe whose reader has gone ('| head'): exit 1, nothing on stderr (it was
    '[Errno 32] Broken pipe' and 'Exception ignored ... BrokenPipeError')."""
    import os
    import subprocess
    import sys

    r, w = os.pipe()
    os.close(r)
    try:
        ran = subprocess.run([sys.executable, "-m", "evalrank", "evaluate", "-q", "-m", "map", *map(str, files)],
                             stdout=w, stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(w)
    assert ran.returncode == 1 and ran.stderr == "", ran.stderr


@pytest.mark.parametrize("measure", ["P.99999999999999999999", "ndcg@99999999999999999999",
                                     "ndcg_cut.5,99999999999999999999", "P.\u0663", "ndcg@\uff15"])
def test_a_huge_cutoff_is_named(files, measure):
    """A cut-off beyond int64 (it was 'OverflowError: Python int too large to convert to C long')
    or not ASCII digits (str.isdigit took '٣' as 3; C's atol reads 0, which trec_eval refuses):
    one line naming the measure. (``ndcg_cut.5,1e30`` is ndcg_cut.1,5, as atol reads it.)"""
    err = run("evaluate", "-m", measure, *files).stderr
    assert err.startswith(f"evalrank evaluate: error: measure '{measure}': ") and "Error" not in err, err


def test_out_errors_name_the_option(files, tmp_path):
    err = run("evaluate", "-m", "map", *files, "-o", tmp_path).stderr
    assert err == f"evalrank evaluate: error: -o {tmp_path}: Is a directory\n"
    err = run("evaluate", "-m", "map", *files, "--out", tmp_path / "run" / "x").stderr
    assert err == f"evalrank evaluate: error: --out {tmp_path / 'run' / 'x'}: Not a directory\n"


def test_out_dir_errors_name_the_option(tmp_path):
    """A file of --out-dir that cannot be written: the option, the file, the reason (it was the
    temporary file's name)."""
    qrels, runs = _runs(tmp_path)
    (tmp_path / "out" / "table6.csv").mkdir(parents=True)
    err = run("risk", qrels, runs, "--baseline", "sysA", "--out-dir", tmp_path / "out").stderr
    assert err.endswith(f"\nevalrank risk: error: --out-dir {tmp_path / 'out' / 'table6.csv'}: Is a directory\n"), err


@pytest.mark.parametrize("flags, match", [
    (["-R", "qrels_prefs"], "-R qrels_prefs: trec_eval's preference formats and their measures (prefs_num_prefs_poss"),
    (["-T", "xml"], "-T xml: the only results format"),
    (["-Z", "zfile"], "-Z: trec_eval's z-scores"),
    (["-D", "3"], "-D: trec_eval's debug printout is not reproduced"),
    (["-R", "qrels_jg", "-m", "map"], "with -R qrels_jg only runid, num_q, map_avgjg"),
])
def test_trec_eval_flags_evalrank_does_not_reproduce_are_refused_by_name(tmp_path, capsys, flags, match):
    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 1 t\n")
    assert main(["evaluate", *flags, str(tmp_path / "q"), str(tmp_path / "r")]) != 0
    err = capsys.readouterr().err
    assert match in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_evaluate_version_flag(capsys):
    with pytest.raises(SystemExit) as e:
        main(["evaluate", "-v"])
    assert e.value.code == 0 and "trec_eval 9.0.8" in capsys.readouterr().out
