"""Grades as distributions (Ozertem et al. 2011, Sec. 3.1 and 3.3).

A grade scale names the editorial grades and their numeric values
``a_j`` (eq. 2-3). Every relevance source of the paper -- an editor, the
click model, the smoothing -- yields a *grade pdf* per query-URL pair: a
row of probabilities over the scale, columns in the scale's order. Eq. 4
turns a pdf into the mean and variance of the gain.

An editorial judgment ``k`` is not taken as exact: its pdf is row ``k`` of
the inter-editor agreement matrix (Table 1), normalised (Sec. 3.3). Table 2
is those rows' eq.-4 moments; :func:`table2` recomputes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["GradeScale", "PEGFB", "grade_moments", "read_agreement", "agreement_pdfs", "table2",
           "compare_table2"]


@dataclass(frozen=True)
class GradeScale:
    """Grade names and their numeric gains ``a_j``, lowest grade first.

    Column ``j`` of every grade pdf is grade ``names[j]``; a dataset label
    ``l`` is grade index ``l`` (labels 0..max_grade).
    """

    names: tuple[str, ...]
    values: tuple[float, ...]

    def __post_init__(self):
        names, values = tuple(str(n) for n in self.names), tuple(float(v) for v in self.values)
        if len(names) < 2:
            raise ValueError(f"names: a grade scale needs at least two grades, got {names!r}")
        if len(names) != len(values):
            raise ValueError(f"values: {len(values)} values for {len(names)} grade names")
        if len(set(names)) != len(names):
            raise ValueError(f"names: duplicate grade names in {names!r}")
        if not np.all(np.isfinite(values)) or np.any(np.diff(values) <= 0):
            raise ValueError(f"values: grade values must be finite and increase with the grade, got {values!r}")
        object.__setattr__(self, "names", names)
        object.__setattr__(self, "values", values)

    @property
    def n(self) -> int:
        return len(self.names)

    @property
    def a(self) -> np.ndarray:
        """The numeric values ``a_j`` as a float64 array."""
        return np.asarray(self.values, dtype=np.float64)

    def index(self, names, *, where: str = "grade") -> np.ndarray:
        """Grade indices of grade names; an unknown name raises ValueError
        naming it and ``where`` (e.g. ``'judgments.tsv:12'``)."""
        lookup = {n: j for j, n in enumerate(self.names)}
        out = np.empty(len(names), dtype=np.int64)
        for i, name in enumerate(names):
            j = lookup.get(str(name))
            if j is None:
                raise ValueError(f"{where}: unknown grade {name!r}; the scale is {list(self.names)}")
            out[i] = j
        return out

    def exact_pdfs(self, grades) -> np.ndarray:
        """One-hot pdfs ``p_ij = 1`` at each grade index (the "exact grades"
        assumption of Carterette & Jones that the paper relaxes)."""
        grades = np.asarray(grades, dtype=np.int64)
        if grades.size and (grades.min() < 0 or grades.max() >= self.n):
            raise ValueError(f"grades: indices must lie in [0, {self.n - 1}]")
        out = np.zeros((grades.size, self.n))
        out[np.arange(grades.size), grades] = 1.0
        return out


#: The paper's five-grade scale, Bad..Perfect with gains 0..4 (Table 2's scale).
PEGFB = GradeScale(names=("B", "F", "G", "E", "P"), values=(0, 1, 2, 3, 4))


def grade_moments(pdfs, scale: GradeScale = PEGFB) -> tuple[np.ndarray, np.ndarray]:
    """Eq. 4: ``E{g_i} = sum_j p_ij a_j`` and ``Var{g_i} = sum_j p_ij a_j^2 - E{g_i}^2``
    for every row of ``pdfs`` (n, n_grades). Rows must be probability vectors."""
    p = np.asarray(pdfs, dtype=np.float64)
    if p.ndim != 2 or p.shape[1] != scale.n:
        raise ValueError(f"pdfs: expected shape (n, {scale.n}), got {p.shape}")
    if p.size and (not np.all(np.isfinite(p)) or p.min() < 0 or np.abs(p.sum(1) - 1).max() > 1e-9):
        raise ValueError("pdfs: every row must be a probability vector (finite, >= 0, summing to 1)")
    a = scale.a
    mean = p @ a
    # centred form: sum_j p_j (a_j - E)^2, exact and never negative (eq. 4 rearranged)
    var = np.einsum("ij,ij->i", p, (a[None, :] - mean[:, None]) ** 2)
    return mean, var


def read_agreement(path, scale: GradeScale = PEGFB) -> np.ndarray:
    """Read an inter-editor agreement matrix (Table 1) from CSV: first column
    ``grade``, one column per grade, ``#`` comments allowed. Returns counts in
    the scale's order (rows = one editor's grade, columns = the other's)."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"agreement matrix {path} does not exist")
    df = pd.read_csv(path, comment="#", dtype={"grade": str})
    if df.columns[0] != "grade":
        raise ValueError(f"{path}: the first column must be 'grade', got {df.columns[0]!r}")
    rows, cols = df["grade"].astype(str).tolist(), [str(c) for c in df.columns[1:]]
    for what, got in (("rows", rows), ("columns", cols)):
        if sorted(got) != sorted(scale.names):
            raise ValueError(f"{path}: {what} {got} do not match the grade scale {list(scale.names)}")
    counts = df.set_index("grade").loc[list(scale.names), list(scale.names)]
    if not all(pd.api.types.is_numeric_dtype(counts[c]) for c in counts.columns):
        raise ValueError(f"{path}: counts must be numbers")
    C = counts.to_numpy(dtype=np.float64)
    if not np.all(np.isfinite(C)) or C.min() < 0 or np.any(C.sum(1) <= 0):
        raise ValueError(f"{path}: counts must be finite, non-negative, with a positive sum in every row")
    return C


def agreement_pdfs(counts) -> np.ndarray:
    """Sec. 3.3: the grade pdf of an editorial judgment ``k`` is row ``k`` of
    the agreement matrix normalised by its sum."""
    C = np.asarray(counts, dtype=np.float64)
    return C / C.sum(axis=1, keepdims=True)


def table2(counts, scale: GradeScale = PEGFB) -> pd.DataFrame:
    """Table 2: mean and variance (eq. 4) of each normalised row of Table 1,
    in the paper's column order (best grade first)."""
    mean, var = grade_moments(agreement_pdfs(counts), scale)
    order = list(range(scale.n))[::-1]
    return pd.DataFrame({"statistic": ["mean", "var"],
                         **{scale.names[j]: [mean[j], var[j]] for j in order}})


def compare_table2(ours: pd.DataFrame, printed: pd.DataFrame, decimals: int = 2) -> pd.DataFrame:
    """Ours beside the printed Table 2: one row per (statistic, grade) with the
    difference and whether ours rounds to the printed value."""
    rows = []
    for stat in ("mean", "var"):
        o = ours.set_index("statistic").loc[stat]
        p = printed.set_index("statistic").loc[stat]
        for g in p.index:
            rows.append({"statistic": stat, "grade": g, "ours": float(o[g]), "printed": float(p[g]),
                         "difference": float(o[g]) - float(p[g]),
                         "matches": bool(round(float(o[g]), decimals) == round(float(p[g]), decimals))})
    return pd.DataFrame(rows)
