"""The package docstring's map of sub-packages is true: every name it lists is a sub-package of
evalrank, and every figure module it points to exists (it once named an evalrank.plots that did not)."""

import importlib.util
import re

import evalrank


def _listed():
    doc = evalrank.__doc__
    block = doc.split("Sub-packages\n------------\n", 1)[1]
    return [m.group(1) for m in re.finditer(r"^(\w+)\s{2,}", block, re.M)]


def test_every_listed_sub_package_exists():
    names = _listed()
    assert {"evaluation", "data", "metrics", "models", "active", "papers", "cli"} <= set(names)
    for name in names:
        spec = importlib.util.find_spec(f"evalrank.{name}")
        assert spec is not None and spec.submodule_search_locations, f"evalrank.{name} is not a sub-package"


def test_the_figure_modules_it_names_exist():
    for ref in re.findall(r"``(papers\.[\w.<>]+)``", evalrank.__doc__):
        targets = ([ref.replace("<paper>", p) for p in ("sawade2012", "busafekete2012", "dincer2016", "ozertem2011",
                                                          "wang2013")] if "<paper>" in ref else [ref])
        for t in targets:
            assert importlib.util.find_spec(f"evalrank.{t}") is not None, t
    assert importlib.util.find_spec("evalrank.plots") is None
