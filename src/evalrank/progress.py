"""Progress bars for long steps (parsing, training, Monte Carlo).

Bars go to stderr, which the workflow redirects into each rule's log. Set
``EVALRANK_PROGRESS=0`` to silence them.
"""

from __future__ import annotations

import os
import sys

from tqdm.auto import tqdm

__all__ = ["progress"]


def progress(iterable=None, *, total=None, desc: str = "", unit: str = "it", **kw):
    disable = os.environ.get("EVALRANK_PROGRESS", "1") == "0"
    return tqdm(
        iterable,
        total=total,
        desc=desc,
        unit=unit,
        file=sys.stderr,
        disable=disable,
        mininterval=0.5 if sys.stderr.isatty() else 5.0,
        dynamic_ncols=True,
        **kw,
    )
