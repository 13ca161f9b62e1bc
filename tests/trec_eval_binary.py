"""The real trec_eval 9.0.8, built for the conformance tests where its source is at hand.

Looked for, in order: ``$TREC_EVAL`` (a built binary), ``$TREC_EVAL_SRC`` (a checkout of
usnistgov/trec_eval, built here at tag v9.0.8), the tool library's mirror of the repository
(``/work/.mirror/usnistgov+trec_eval/repo``). None of them: the tests that need the binary skip,
saying so; pytrec_eval (trec_eval 9.0.8 compiled into a wheel) still checks every measure.
The source is never copied into this repository.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

TAG = "v9.0.8"
MIRROR = Path("/work/.mirror/usnistgov+trec_eval/repo")


def build(workdir: Path) -> tuple[Path | None, str]:
    """``(binary, "")`` or ``(None, why not)``."""
    given = os.environ.get("TREC_EVAL")
    if given:
        p = Path(given)
        return (p, "") if p.exists() else (None, f"$TREC_EVAL={given} does not exist")
    src = os.environ.get("TREC_EVAL_SRC") or (str(MIRROR) if MIRROR.exists() else "")
    if not src:
        return None, "no trec_eval source: set $TREC_EVAL (binary) or $TREC_EVAL_SRC (git checkout)"
    if not shutil.which("make") or not (shutil.which("cc") or shutil.which("gcc")):
        return None, "no C compiler / make to build trec_eval"
    dest = workdir / "trec_eval"
    try:
        subprocess.run(["git", "clone", "-q", src, str(dest)], check=True, capture_output=True, timeout=120)
        subprocess.run(["git", "-C", str(dest), "checkout", "-q", TAG], check=True, capture_output=True, timeout=60)
        subprocess.run(["make", "-C", str(dest)], check=True, capture_output=True, timeout=300)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, FileNotFoundError) as e:
        return None, f"building trec_eval {TAG} from {src} failed: {e}"
    return dest / "trec_eval", ""
