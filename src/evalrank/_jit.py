"""The compiler of evalrank's array kernels, in one place.

``njit(**options)`` decorates a kernel as ``numba.njit(**options)`` does; ``prange`` is
``numba.prange``. Kernels import both from here (``from evalrank._jit import njit, prange``)
so that how and when they are compiled is decided once.
"""

from __future__ import annotations

import numba

__all__ = ["njit", "prange"]

prange = numba.prange


def njit(**options):
    """``numba.njit(**options)``."""
    return numba.njit(**options)
