"""The TREC reader's tests (tests/data/test_trec.py) and the evaluate conformance tests
(tests/evaluation/test_trec_eval_conformance.py: the randomized cases against pytrec_eval, and
against the trec_eval binary where one is given) run again here, each once with the kernels
interpreted and once compiled (evalrank._jit's two modes): their expected values are the same
in both, so both modes give identical results. tests/test_jit.py compares the two modes' outputs
directly."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from evalrank import _jit

_HERE = Path(__file__).resolve().parent


def _tests_of(relative: str) -> dict:
    """The test functions and fixtures of a test module, loaded under a name of its own."""
    path = _HERE / relative
    spec = importlib.util.spec_from_file_location(f"_jit_modes_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = {}
    for name, value in vars(module).items():
        if name.startswith("test_") and callable(value):
            out[name] = value
        elif hasattr(value, "_pytestfixturefunction") or type(value).__name__ == "FixtureFunctionDefinition":
            out[name] = value
    return out


_READER = _tests_of("data/test_trec.py")
_CONFORMANCE = _tests_of("evaluation/test_trec_eval_conformance.py")
assert any(n.startswith("test_") for n in _READER) and "test_every_measure_equals_pytrec_eval" in _CONFORMANCE

for _name, _value in _READER.items():
    globals()[_name.replace("test_", "test_reader_", 1) if _name.startswith("test_") else _name] = _value
for _name, _value in _CONFORMANCE.items():
    globals()[_name.replace("test_", "test_conformance_", 1) if _name.startswith("test_") else _name] = _value


@pytest.fixture(params=["python", "numba"], autouse=True)
def jit_mode(request):
    """Every test here with the kernels interpreted, then compiled."""
    with _jit.mode(request.param):
        assert _jit.compiled() == (request.param == "numba")
        yield request.param
