"""Discount families of NDCG, by name and parameter (Wang et al. 2013, Sec. 3).

A discount ``D(r)`` weighs the gain at 1-based rank ``r``. Names:

==================  =====================  ==========================================
name                D(r)                   Wang et al. (2013)
==================  =====================  ==========================================
``"log2"``          1 / log2(1 + r)        standard (Busa-Fekete eq. 3); base 2
``"log"``           1 / ln(1 + r)          standard, natural log (the paper's choice)
``"log:b"``         1 / log_b(1 + r)       any base ``b > 1`` (cancels in NDCG)
``"poly:beta"``     r^(-beta)              Theorems 3-4 / 9 for 0 < beta < 1;
                                           beta = 1 is Zipf, beta > 1 is summable
``"zipf"``          1 / r                  Theorem 5 (the critical point)
``"geometric:p"``   p^(r - 1), 0 < p < 1   a summable, fast-decaying discount
==================  =====================  ==========================================

``"poly(0.5)"`` is accepted for ``"poly:0.5"`` (likewise ``log(10)``,
``geometric(0.5)``). A discount with ``sum_r D(r) < inf`` (``poly`` with
beta > 1, ``geometric``) is *summable*: by Wang et al.'s Theorem 6, NDCG with
it does not converge and cannot consistently tell rankers apart
(:func:`is_summable`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

__all__ = ["Discount", "parse_discount", "discount_weights", "is_summable", "DISCOUNT_NAMES"]

DISCOUNT_NAMES = ("log2", "log", "poly", "zipf", "geometric")

_SPEC = re.compile(r"^\s*([a-z0-9]+)\s*(?::\s*([^()\s]+)|\(\s*([^()\s]+)\s*\))?\s*$")


@dataclass(frozen=True)
class Discount:
    """A parsed discount: family ``name`` and parameter ``param`` (base for
    ``log``, beta for ``poly``, p for ``geometric``; None otherwise)."""

    name: str
    param: float | None = None

    def __call__(self, ranks) -> np.ndarray:
        r = np.asarray(ranks, dtype=np.float64)
        if self.name == "log2":
            return 1.0 / np.log2(r + 1.0)
        if self.name == "log":
            return np.log(self.param) / np.log1p(r) if self.param is not None else 1.0 / np.log1p(r)
        if self.name == "poly":
            return r ** -self.param
        if self.name == "zipf":
            return 1.0 / r
        return self.param ** (r - 1.0)    # geometric

    @property
    def summable(self) -> bool:
        return self.name == "geometric" or (self.name == "poly" and self.param > 1.0)

    def __str__(self) -> str:
        if self.param is None:
            return self.name
        return f"{self.name}:{self.param:g}"


def parse_discount(spec) -> Discount:
    """A :class:`Discount` from a name such as ``"log2"``, ``"poly:0.5"``,
    ``"geometric(0.5)"`` (module docstring); a :class:`Discount` passes
    through. Raises ValueError naming ``discount`` on an unknown name or a
    parameter out of range, TypeError on a non-string."""
    if isinstance(spec, Discount):
        return spec
    if not isinstance(spec, str):
        raise TypeError(f"discount: expected a name such as 'log2' or 'poly:0.5', got {type(spec).__name__}")
    m = _SPEC.match(spec.lower())
    if m is None or m.group(1) not in DISCOUNT_NAMES:
        raise ValueError(f"discount: unknown discount {spec!r}; expected one of log2, log, log:BASE, poly:BETA, "
                         "zipf, geometric:P")
    name, raw = m.group(1), m.group(2) or m.group(3)
    if raw is None:
        if name in ("poly", "geometric"):
            raise ValueError(f"discount: {name!r} needs a parameter, e.g. '{name}:0.5'")
        return Discount(name)
    if name in ("log2", "zipf"):
        raise ValueError(f"discount: {name!r} takes no parameter, got {spec!r}")
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"discount: parameter of {spec!r} is not a number") from None
    if name == "log" and not (np.isfinite(value) and value > 1):
        raise ValueError(f"discount: the base of {spec!r} must be > 1")
    if name == "poly" and not (np.isfinite(value) and value > 0):
        raise ValueError(f"discount: beta of {spec!r} must be > 0")
    if name == "geometric" and not (0 < value < 1):
        raise ValueError(f"discount: p of {spec!r} must lie in (0, 1)")
    return Discount(name, value)


def discount_weights(ranks, spec) -> np.ndarray:
    """``D(r)`` for 1-based ``ranks`` under the discount named ``spec``."""
    return parse_discount(spec)(ranks)


def is_summable(spec) -> bool:
    """Whether ``sum_r D(r)`` is finite (Wang et al. 2013, Theorem 6)."""
    return parse_discount(spec).summable
