"""``evalrank ndcg``, deprecated: it says what replaces it, and its values are those of that
replacement (``evaluate -q -m 'ndcg(...)@k'``), for every convention."""

from __future__ import annotations

import re
import shlex

import numpy as np
import pytest
from cli_run import evalrank

from evalrank.evaluation.evaluate import evaluate
from evalrank.metrics.conventions import CONVENTIONS


@pytest.fixture
def trec_pair(tmp_path):
    rng = np.random.default_rng(7)
    qrels, run = [], []
    for t in range(10):
        n = int(rng.integers(1, 12))
        docs = [f"D{j}" for j in rng.permutation(n)]
        qrels += [f"{100 + t} 0 {d} {int(rng.integers(0, 3)) if t != 4 else 0}" for d in docs if rng.random() < 0.8]
        run += [f"{100 + t} Q0 {d} {i + 1} {float(rng.integers(0, 3))} r" for i, d in enumerate(docs)]
    run.append("999 Q0 X 1 1.0 r")
    (tmp_path / "qrels").write_text("\n".join(qrels) + "\n")
    (tmp_path / "run").write_text("\n".join(run) + "\n")
    return tmp_path / "qrels", tmp_path / "run"


@pytest.mark.parametrize("convention", list(CONVENTIONS))
@pytest.mark.parametrize("extra", [[], ["-k", "3", "--ties", "stable"], ["-k", "0", "--gain", "linear"]])
def test_ndcg_says_its_replacement_and_gives_its_values(trec_pair, convention, extra):
    qrels, run = trec_pair
    out = evalrank("ndcg", "--qrels", qrels, "--run", run, "--convention", convention, *extra)
    assert out.returncode == 0, out.stderr
    said = re.search(r"'evalrank ndcg' is deprecated and goes in the next release; the same values: "
                     r"(evalrank evaluate .*)$", out.stderr, re.M)
    assert said, out.stderr
    words = shlex.split(said.group(1))
    assert words[:4] == ["evalrank", "evaluate", "-q", "-m"] and words[5:] == [str(qrels), str(run)], words
    lines = [line.split("\t") for line in out.stdout.splitlines()]
    got = {q: float(v) for _, q, v in lines if q != "all"}
    # the replacement's measure, run through the library: the printed values to their 6 decimals
    want = evaluate(qrels, run, [words[4]], precision=None)
    assert set(got) == set(want["qid"])
    for q, v in zip(want["qid"], want["value"]):
        if v != v:   # gdeval: a topic without a relevant document is left out (nan)
            assert got[q] != got[q], q
        else:
            assert got[q] == pytest.approx(v, abs=5e-7), q


def test_ndcg_is_listed_apart_as_deprecated():
    out = evalrank("--help")
    top, deprecated = out.stdout.split("deprecated (removed in the next release):")
    assert re.search(r"^\s+ndcg\s", deprecated, re.M) and not re.search(r"^\s+ndcg\s", top, re.M)
