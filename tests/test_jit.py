"""evalrank._jit (issue 28, item 4): kernels run interpreted below the size threshold and compiled
at or above it, with identical results; a small ``evalrank evaluate`` imports no numba, a large
one does. tests/test_jit_modes.py runs the reader's and the conformance tests in both modes."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from evalrank import _jit
from evalrank.evaluation.evaluate import evaluate_trec, format_trec

_HERE = Path(__file__).resolve().parent
_SRC = _HERE.parent / "src"


def _conformance():
    path = _HERE / "evaluation" / "test_trec_eval_conformance.py"
    spec = importlib.util.spec_from_file_location("_jit_conformance", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "EVALRANK_JIT"}
    env["PYTHONPATH"] = os.pathsep.join([str(_SRC)] + [p for p in [env.get("PYTHONPATH")] if p])
    env.update(extra)
    return env


# what a process imported, printed as JSON on stderr's last line after running evalrank's CLI
_CLI = """
import json, sys
from evalrank.cli import main
rc = main(sys.argv[1:])
sys.stdout.flush()
print(json.dumps({"rc": rc, "heavy": sorted(m for m in ("numba", "scipy", "pandas") if m in sys.modules)}),
      file=sys.stderr)
"""


def _cli(args, **env) -> tuple[str, dict]:
    p = subprocess.run([sys.executable, "-c", _CLI, *map(str, args)], capture_output=True, text=True,
                       env=_env(**env), timeout=600)
    info = json.loads(p.stderr.strip().splitlines()[-1])
    assert info["rc"] == 0, p.stderr
    return p.stdout, info


def _write_run(path: Path, topics: int, docs: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    lines = []
    for t in range(topics):
        for r, (d, s) in enumerate(zip(rng.permutation(docs).tolist(), rng.random(docs).tolist())):
            lines.append(f"{t} Q0 d{d} {r + 1} {s:.6f} tag\n")
    path.write_text("".join(lines))


def _write_qrels(path: Path, topics: int, docs: int, seed: int = 1) -> None:
    rng = np.random.default_rng(seed)
    path.write_text("".join(f"{t} 0 d{d} {int(rng.integers(-1, 4))}\n" for t in range(topics)
                            for d in rng.choice(docs, size=min(docs, 30), replace=False).tolist()))


# ---------------------------------------------------------------------------------------------
# which mode, where
# ---------------------------------------------------------------------------------------------
def test_kernel_modules_import_no_numba():
    code = ("import sys, evalrank.data.trec, evalrank.data.bytescan, evalrank.evaluation.engine, "
            "evalrank.evaluation.evaluate, evalrank.metrics.trec, evalrank.metrics.names\n"
            "print(sorted(m for m in ('numba', 'scipy', 'pandas') if m in sys.modules))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_env(), timeout=300)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "[]"


def test_small_evaluate_imports_no_numba_and_a_large_one_does(tmp_path):
    """The size decides (EVALRANK_JIT unset): a 10 x 100 run is evaluated without numba (nor
    scipy, pandas), a run of THRESHOLD bytes with it; forcing the other mode
    (EVALRANK_JIT=numba / python) gives the same bytes."""
    qrels, small, large = tmp_path / "qrels", tmp_path / "small", tmp_path / "large"
    _write_qrels(qrels, 700, 100)
    _write_run(small, 10, 100)
    _write_run(large, 700, 100)
    assert small.stat().st_size < _jit.THRESHOLD <= large.stat().st_size
    args = ["evaluate", "-q", "-m", "map", "-m", "ndcg_cut.10", "-m", "P.5", qrels]

    out, info = _cli(args + [small])
    assert info["heavy"] == []
    forced, info = _cli(args + [small], EVALRANK_JIT="numba")
    assert "numba" in info["heavy"]
    assert out == forced and "ndcg_cut_10" in out

    out, info = _cli(args + [large])
    assert "numba" in info["heavy"]
    forced, info = _cli(args + [large], EVALRANK_JIT="python")
    assert info["heavy"] == []
    assert out == forced and out.count("\nmap ") + out.startswith("map ") == 701


def test_many_small_runs_together_are_compiled(tmp_path):
    """evaluate_trec decides on the files' total size: 40 runs of 24 KB (each alone interpreted)."""
    qrels = tmp_path / "qrels"
    _write_qrels(qrels, 10, 100)
    runs = []
    for i in range(40):
        runs.append(tmp_path / f"run{i}")
        _write_run(runs[-1], 10, 100, seed=i)
    assert runs[0].stat().st_size < _jit.THRESHOLD <= sum(r.stat().st_size for r in runs)
    _, info = _cli(["evaluate", "-m", "map", qrels, *runs[:1]])
    assert info["heavy"] == []
    _, info = _cli(["evaluate", "-m", "map", qrels, *runs])
    assert "numba" in info["heavy"]


def test_need_compiles_from_the_threshold_on_for_the_rest_of_the_process():
    code = ("import sys\nfrom evalrank import _jit\nimport evalrank.data.trec as t\n"
            "_jit.need(_jit.THRESHOLD - 1)\nbefore = (_jit.compiled(), 'numba' in sys.modules, type(t._scan).__name__)\n"
            "_jit.need(_jit.THRESHOLD)\nafter = (_jit.compiled(), type(t._scan).__name__, t.fnv1a is sys.modules["
            "'evalrank.evaluation.evaluate'].fnv1a if 'evalrank.evaluation.evaluate' in sys.modules else None)\n"
            "_jit.need(0)\nprint(before, after, _jit.compiled())")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_env(), timeout=300)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "(False, False, 'function') (True, 'CPUDispatcher', None) True"


def test_evalrank_jit_python_never_compiles_and_a_bad_value_is_an_error():
    code = "from evalrank import _jit\n_jit.need(10**12)\nprint(_jit.compiled())"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=_env(EVALRANK_JIT="python"), timeout=300)
    assert p.stdout.strip() == "False", p.stderr
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=_env(EVALRANK_JIT="fast"), timeout=300)
    assert p.returncode != 0 and "EVALRANK_JIT must be python, numba or auto, got 'fast'" in p.stderr


def test_a_module_that_uses_numba_directly_gets_the_kernels_compiled():
    """The LETOR reader calls bytescan's kernels from its own numba code and from Python:
    importing numba through evalrank._jit compiles them, even after they were imported
    interpreted."""
    code = ("import evalrank.data.trec_scan as t\nfrom evalrank import _jit\na = _jit.compiled()\n"
            "import evalrank.data.letor_read as l\n"
            "print(a, _jit.compiled(), type(l._count_newlines).__name__, type(t._space).__name__)")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_env(), timeout=300)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "False True CPUDispatcher CPUDispatcher"


def test_mode_rebinds_every_reference_and_restores_it():
    import numba

    from evalrank.data import bytescan, trec_scan
    from evalrank.evaluation import engine, inputs

    with _jit.mode("numba"):
        assert isinstance(engine._rank_match, numba.core.dispatcher.Dispatcher)
        assert inputs.fnv1a is trec_scan.fnv1a and isinstance(trec_scan.fnv1a, numba.core.dispatcher.Dispatcher)
        assert trec_scan._space is bytescan.is_blank and isinstance(trec_scan._space, numba.core.dispatcher.Dispatcher)
        assert engine.prange is numba.prange and _jit.prange is numba.prange
        with _jit.mode("python"):
            assert not _jit.compiled()
            assert type(engine._rank_match).__name__ == "function" and type(trec_scan._space).__name__ == "function"
            assert inputs.fnv1a is trec_scan.fnv1a and not isinstance(trec_scan.fnv1a, numba.core.dispatcher.Dispatcher)
            assert engine.prange is not numba.prange and list(engine.prange(3)) == [0, 1, 2]
        assert isinstance(engine._rank_match, numba.core.dispatcher.Dispatcher) and engine.prange is numba.prange
    with pytest.raises(ValueError, match="mode must be"):
        with _jit.mode("jit"):
            pass


# ---------------------------------------------------------------------------------------------
# the same results
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("level", [1, 2])
def test_conformance_cases_identical_in_both_modes_and_equal_to_pytrec_eval(trec_files, seed, level):
    """tests/evaluation/test_trec_eval_conformance.py's random cases, evaluated interpreted and
    compiled: the same trec_eval text (-q) and the same float64 values bit for bit, equal to
    pytrec_eval's."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    conf = _conformance()
    qrels, run, qd, rd = conf.random_case(seed)
    q, r = trec_files(qrels, run)
    got = {}
    for mode in ("python", "numba"):
        with _jit.mode(mode):
            res = evaluate_trec(q, [r], conf.MEASURES, relevance_level=level)
            got[mode] = (format_trec(res, per_query=True), res[0].values, res[0].qids, res[0].columns)
    assert got["python"][0] == got["numba"][0]
    assert got["python"][1].tobytes() == got["numba"][1].tobytes()
    values, qids, cols = got["python"][1:]
    want = pytrec_eval.RelevanceEvaluator(qd, conf.PYTREC, relevance_level=level).evaluate(rd)
    assert set(qids) == set(want)
    bad = [(q_, c) for i, q_ in enumerate(qids) for j, c in enumerate(cols)
           if c in conf.PYTREC and abs(values[i, j] - want[q_][c]) > 1e-12]
    assert not bad


def test_fnv1a_wraps_around_as_uint64_in_both_modes():
    from evalrank.data import trec

    def reference(b: bytes) -> int:
        h = 14695981039346656037
        for c in b:
            h = ((h ^ c) * 1099511628211) % 2**64
        return h

    rng = np.random.default_rng(3)
    words = [b"", b"d1", b"clueweb09-en0000-12-34567", bytes(range(256))]
    words += [rng.integers(0, 256, int(rng.integers(1, 40)), dtype=np.uint8).tobytes() for _ in range(200)]
    buf = np.frombuffer(b"".join(words), dtype=np.uint8)
    ends = np.cumsum([len(w) for w in words])
    starts = ends - [len(w) for w in words]
    want = [reference(w) for w in words]
    for mode in ("python", "numba"):
        with _jit.mode(mode), warnings.catch_warnings():
            warnings.simplefilter("error")   # no overflow warning: the wrap-around is meant
            for data in (buf, buf.tobytes()):
                got = [int(trec.fnv1a(data, int(s), int(e))) for s, e in zip(starts, ends)]
                assert got == want, mode


def test_is_blank_is_c_isspace_less_newline_in_both_modes():
    from evalrank.data import bytescan

    want = [c in (32, 9, 13, 11, 12) for c in range(256)]
    for mode in ("python", "numba"):
        with _jit.mode(mode):
            assert [bool(bytescan.is_blank(c)) for c in range(256)] == want
            assert [bool(bytescan.is_blank(np.uint8(c))) for c in range(256)] == want


def test_fast_float_gives_the_same_bits_in_both_modes():
    from evalrank.data import bytescan

    rng = np.random.default_rng(11)
    toks = ["%.*f" % (int(rng.integers(0, 12)), rng.standard_normal() * 10.0 ** rng.integers(-6, 9))
            for _ in range(1500)]
    toks += ["%.*e" % (int(rng.integers(0, 17)), rng.standard_normal() * 10.0 ** rng.integers(-30, 30))
             for _ in range(1500)]
    toks += ["9007199254740993", "9007199254740992", "123456789012345678", "1e22", "1e23", "-0", "+.5", ".",
             "-", "e5", "1e", "1.5.", "0x10", "1_0", "00012.500", "-0.000", "7."]
    got = {}
    for mode in ("python", "numba"):
        with _jit.mode(mode):
            got[mode] = [bytescan.fast_float(np.frombuffer(t.encode(), np.uint8), 0, len(t)) for t in toks]
    for t, (ok_p, v_p), (ok_n, v_n) in zip(toks, got["python"], got["numba"]):
        assert ok_p == ok_n and np.float64(v_p).tobytes() == np.float64(v_n).tobytes(), t
        if ok_p:
            assert np.float64(v_p).tobytes() == np.float64(float(t)).tobytes(), t
    assert sum(ok for ok, _ in got["python"]) > len(toks) // 2


def test_trec_measures_kernel_gives_the_same_bits_in_both_modes():
    from evalrank.metrics.trec import trec_measures

    rng = np.random.default_rng(5)
    sizes = rng.integers(0, 60, 40)
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    rels = rng.choice([-2, -1, 0, 0, 1, 2, 3], size=int(offsets[-1]))
    jsizes = rng.integers(0, 50, 40)
    judged_offsets = np.concatenate(([0], np.cumsum(jsizes))).astype(np.int64)
    judged = rng.choice([-1, 0, 1, 2, 3, 4], size=int(judged_offsets[-1]))
    got = {}
    for mode in ("python", "numba"):
        with _jit.mode(mode):
            got[mode] = trec_measures(rels, offsets, judged, judged_offsets, cutoffs=[1, 5, 10, 30, 100],
                                      relevance_level=2)
    assert got["python"].keys() == got["numba"].keys()
    for k in got["python"]:
        assert got["python"][k].tobytes() == got["numba"][k].tobytes(), k


def test_lists_reach_an_interpreted_kernel_as_python_numbers():
    seen = {}
    a = np.arange(4, dtype=np.int64)
    b = np.full(4, 0.5)
    c = np.arange(4, dtype=np.float32)   # float32 stays an array: its arithmetic is float32
    out = np.zeros(4)
    with _jit.mode("python"):   # defined interpreted: compiled, njit gives the dispatcher

        @_jit.njit(lists=("a", "b", "c"))
        def kernel(a, b, c, out):
            seen["types"] = (type(a).__name__, type(b).__name__, type(c).__name__, type(out).__name__)
            for i in range(len(a)):
                out[i] = a[i] + b[i] + c[i]

        kernel(a, b, c, out)
    assert seen["types"] == ("list", "list", "ndarray", "ndarray")
    assert out.tolist() == [0.5, 2.5, 4.5, 6.5]
    with pytest.raises(TypeError, match="lists names no parameter"):
        _jit.njit(lists=("x",))(lambda a: a)


def test_input_bytes_counts_files_in_paths_lists_and_mappings(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_bytes(b"x" * 10)
    b.write_bytes(b"y" * 5)
    assert _jit.input_bytes(a, [str(b), {"q": 1}], {"r": b}, tmp_path / "missing", {"q1": {"d": 1.0}}) == 20
