"""The optional dependencies (``pyproject.toml``'s extras) and the one-line message a command
gives when one it needs is not installed.

``pip install evalrank`` is the product core: ``evaluate``, ``compare``, ``active plan`` and
``active estimate`` (numpy, scipy, pandas, numba, pyyaml, jsonschema, tqdm). The extras:

- ``models``: the model zoo -- what ``active plan --letor FILE --model MODEL`` (load a model and
  predict) and ``--calibrate-from`` (fit mord's ordered logit) need, and what training needs:
  scikit-learn, LightGBM, mord and skops (the model files' format, :mod:`evalrank.models.zoo`);
- ``repro``: the pipeline that reproduces the five papers: ``models`` plus matplotlib and
  Snakemake with its executor plugins (``make install`` installs it, with ``test`` and ``peers``).

Standard library only: importing this module costs nothing.
"""

from __future__ import annotations

import importlib.util

__all__ = ["EXTRA_OF", "MissingExtraError", "missing", "require", "message_for"]

#: importable module -> (distribution, the extra that installs it)
EXTRA_OF = {
    "sklearn": ("scikit-learn", "models"),
    "lightgbm": ("lightgbm", "models"),
    "mord": ("mord", "models"),
    "skops": ("skops", "models"),
    "joblib": ("joblib", "models"),
    "threadpoolctl": ("threadpoolctl", "models"),
    "matplotlib": ("matplotlib", "repro"),
    "snakemake": ("snakemake", "repro"),
}

#: the modules of each extra that the code imports (their distributions are in pyproject.toml)
MODULES = {
    "models": ("sklearn", "lightgbm", "mord", "skops", "joblib", "threadpoolctl"),
    "repro": ("sklearn", "lightgbm", "mord", "skops", "joblib", "threadpoolctl", "matplotlib", "snakemake"),
}


class MissingExtraError(RuntimeError):
    """An optional dependency a command needs is not installed (the CLI prints the message as its
    one error line)."""


def missing(modules) -> list[str]:
    """The distributions of ``modules`` (importable names, e.g. ``"sklearn"``) that are not
    installed."""
    return [EXTRA_OF.get(m, (m, None))[0] for m in modules if importlib.util.find_spec(m) is None]


def require(what: str, extra: str = "models", modules=None) -> None:
    """Raise :class:`MissingExtraError` ``"<what> needs scikit-learn, mord: pip install
    'evalrank[models]'"`` unless every module of ``extra`` (or only ``modules``) is installed."""
    if extra not in MODULES:
        raise ValueError(f"extra must be one of {sorted(MODULES)}, got {extra!r}")
    gone = missing(MODULES[extra] if modules is None else modules)
    if gone:
        raise MissingExtraError(f"{what} needs {', '.join(gone)}: pip install 'evalrank[{extra}]'")


def message_for(error: BaseException) -> str | None:
    """The one-line message for an ImportError of a module an extra installs (``"this needs
    matplotlib, which is not installed: pip install 'evalrank[repro]'"``), None for any other."""
    name = getattr(error, "name", None) or ""
    top = name.split(".")[0]
    if not isinstance(error, ImportError) or top not in EXTRA_OF:
        return None
    dist, extra = EXTRA_OF[top]
    return f"this needs {dist}, which is not installed: pip install 'evalrank[{extra}]'"
