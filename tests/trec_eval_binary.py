"""The real trec_eval 9.0.8 for the tests: built where it is given, and how its output is compared.

``build(workdir)`` looks, in order, for ``$TREC_EVAL`` (a built binary) and ``$TREC_EVAL_SRC`` (a
checkout of usnistgov/trec_eval, cloned into ``workdir`` and built there at tag v9.0.8 with its
Makefile). Neither given: the tests that need the binary skip, saying so; the golden outputs in
``tests/evaluation/golden/`` (written by its ``make_golden.py`` from such a build) still check
evalrank against trec_eval on every clone. trec_eval's source is never copied into this repository.

``known_lines(text)``: the lines of trec_eval-style output whose measure family evalrank knows
(``evalrank.metrics.names.TREC_MEASURES``) -- what the golden and the live comparisons compare,
so that they cover each family as soon as evalrank has it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

TAG = "v9.0.8"


def build(workdir: Path) -> tuple[Path | None, str]:
    """``(binary, "")`` or ``(None, why not)``. Built from ``$TREC_EVAL_SRC``, the binary's folder
    is the checkout at ``TAG`` (its ``test/`` folder included)."""
    given = os.environ.get("TREC_EVAL")
    if given:
        p = Path(given)
        return (p, "") if p.exists() else (None, f"$TREC_EVAL={given} does not exist")
    src = os.environ.get("TREC_EVAL_SRC")
    if not src:
        return None, "no trec_eval: set $TREC_EVAL (a binary) or $TREC_EVAL_SRC (a git checkout of usnistgov/trec_eval)"
    if not shutil.which("make") or not (shutil.which("cc") or shutil.which("gcc")):
        return None, "no C compiler / make to build trec_eval"
    dest = workdir / "trec_eval"
    try:
        subprocess.run(["git", "clone", "-q", src, str(dest)], check=True, capture_output=True, timeout=120)
        subprocess.run(["git", "-C", str(dest), "checkout", "-q", TAG], check=True, capture_output=True, timeout=60)
        subprocess.run(["make", "-C", str(dest)], check=True, capture_output=True, timeout=300)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, FileNotFoundError) as e:
        return None, f"building trec_eval {TAG} from $TREC_EVAL_SRC={src} failed: {e}"
    return dest / "trec_eval", ""


_PARAM = re.compile(r"_[-.0-9]")


def family(measure: str) -> str:
    """The measure family of a name trec_eval prints: its parameters -- the part from the first
    ``_`` followed by a digit, '.' or '-' -- dropped (``P_5`` -> ``P``, ``iprec_at_recall_0.10``
    -> ``iprec_at_recall``, ``ndcg_cut_10`` -> ``ndcg_cut``, ``ndcg_0=0,1=1`` -> ``ndcg``,
    ``Rprec_mult_avgjg_0.20`` -> ``Rprec_mult_avgjg``; ``num_rel_ret``, ``runid`` unchanged)."""
    m = _PARAM.search(measure)
    return measure if m is None else measure[:m.start()]


def known_lines(text: str, families=None) -> list[str]:
    """The lines of ``text`` (trec_eval's output: ``measure<TAB>topic<TAB>value``) whose measure
    family is in ``families`` (default: the families evalrank knows, ``TREC_MEASURES``)."""
    if families is None:
        from evalrank.metrics.names import TREC_MEASURES as families
    return [line for line in text.splitlines(keepends=True) if family(line.split("\t", 1)[0].rstrip()) in families]
