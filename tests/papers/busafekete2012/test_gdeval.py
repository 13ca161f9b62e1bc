"""The ``gdeval`` preset against gdeval.pl itself (the TREC Web track's tool, shipped with
ir-measures and run with perl) on random qrels and runs full of score ties."""

from __future__ import annotations

import shutil
import subprocess
from importlib import resources

import numpy as np
import pytest

from evalrank.data.trec import align, read_qrels, read_run
from evalrank.metrics import ndcg
from evalrank.metrics.ranking import position_ids

pytestmark = pytest.mark.skipif(shutil.which("perl") is None, reason="gdeval.pl needs perl")


@pytest.mark.parametrize("k", [1, 5, 20])
def test_gdeval_preset_equals_gdeval(tmp_path, trec_files, k):
    """Through TREC files, as a Web track user has them (the peer adapter is tested below)."""
    ir_measures = pytest.importorskip("ir_measures")
    rng = np.random.default_rng(k)
    qrels, run = [], []
    for q in range(1, 41):
        for d in range(int(rng.integers(1, 40))):
            if rng.random() < 0.8:
                qrels.append(f"{q} 0 doc{d:03d} {int(rng.choice([-2, 0, 0, 1, 2, 3, 4]))}\n")
            if rng.random() < 0.9:  # integer scores: ties everywhere, broken by docno
                run.append(f"{q} Q0 doc{d:03d} 0 {int(rng.integers(0, 4))} r\n")
    trec_files("".join(qrels), "".join(run))
    # gdeval.pl itself (ir-measures' wrapper would add a 0 for every qrels topic gdeval does not report)
    script = resources.files(ir_measures) / "bin" / "gdeval.pl"
    out = subprocess.run(["perl", str(script), str(tmp_path / "qrels"), str(tmp_path / "run"), str(k)],
                         capture_output=True, text=True, check=True).stdout
    ref = {line.split(",")[1]: float(line.split(",")[2]) for line in out.splitlines()[1:] if line}
    t = align(read_qrels(tmp_path / "qrels"), read_run(tmp_path / "run"))
    ours = ndcg(t.scores, t.labels, t.offsets, k, convention="gdeval", doc_ids=t.doc_ids,
                ideal_labels=t.ideal_labels, ideal_offsets=t.ideal_offsets)
    reported = {q: v for q, v in zip(t.qids, ours) if not np.isnan(v)}  # gdeval skips topics without relevant docs
    assert set(reported) == set(ref)
    for q, v in reported.items():
        assert v == pytest.approx(ref[q], abs=6e-6)  # gdeval prints 5 decimals
    # the rules are load-bearing: stable ties or linear gains disagree with gdeval somewhere
    for other in (dict(ties="stable"), dict(gain="linear")):
        alt = ndcg(t.scores, t.labels, t.offsets, k, convention="gdeval", doc_ids=t.doc_ids,
                   ideal_labels=t.ideal_labels, ideal_offsets=t.ideal_offsets, **other)
        assert any(abs(a - ref[q]) > 1e-4 for q, a in zip(t.qids, alt) if q in ref)


def test_peer_adapter_equals_preset_on_flat_arrays():
    from evalrank.papers.busafekete2012 import peers

    if not peers.available_peers()["gdeval"]:
        pytest.skip("ir-measures (gdeval.pl) not installed")
    rng = np.random.default_rng(3)
    sizes = rng.integers(0, 30, size=25)
    offsets = np.concatenate(([0], np.cumsum(sizes)))
    labels = rng.choice([0, 0, 1, 2, 3, 4], size=offsets[-1])
    scores = rng.integers(0, 5, size=offsets[-1]).astype(float) + rng.choice([0, 1e-9], size=offsets[-1])
    for k in (1, 3, 10):
        ref = peers.gdeval_ndcg(scores, labels, offsets, k)
        ours = ndcg(scores, labels, offsets, k, convention="gdeval", doc_ids=position_ids(offsets))  # same order as the adapter's ids
        np.testing.assert_allclose(ours, ref, atol=6e-6, equal_nan=True)
