"""OpenMP's passive wait policy for every process that runs LightGBM.

LightGBM's threads (and numba's, whose ``omp`` threading layer loads the same
``libgomp``) busy-wait between parallel regions by default: GNU OpenMP spins
300,000 times before it sleeps. On a loaded machine the spinning threads take
the cores the work needs: LightGBM with 2 threads took 18.0 s on a busy 2-core
machine against 3.5 s with ``OMP_WAIT_POLICY=PASSIVE`` (issue 30). libgomp reads
the variable once, when it is loaded, so it must be in the environment before
the first ``import lightgbm`` (or the first parallel numba kernel) of the
process:

* the command line (``evalrank`` and ``python -m evalrank``) sets it first thing
  (``evalrank.cli.main``), which covers every pipeline job;
* importing this module sets it too. The modules that fit or hold a LightGBM
  ``Booster`` (:mod:`evalrank.models.forest`, :mod:`~evalrank.models.ordinal_forest`,
  :mod:`~evalrank.models.lambdamart`) import it at their top, so a library user's
  process -- unpickling a stored model included, whose class module is imported
  before the ``Booster`` in it -- gets it before LightGBM is loaded; they import
  LightGBM through :func:`import_lightgbm`.

A value the user set (``OMP_WAIT_POLICY=ACTIVE`` for a dedicated machine) is kept.
"""

from __future__ import annotations

import os

__all__ = ["passive_wait", "import_lightgbm"]


def passive_wait() -> None:
    """``OMP_WAIT_POLICY=PASSIVE`` unless the environment already names a policy."""
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def import_lightgbm():
    """The ``lightgbm`` module, imported after :func:`passive_wait`."""
    passive_wait()
    import lightgbm

    return lightgbm


passive_wait()
