"""The figures a plotting module saves, kept open for a test to inspect (shared by the papers'
test_plots.py): ``yield from kept_figures(monkeypatch, module)`` in a fixture."""

from __future__ import annotations


def kept_figures(monkeypatch, module):
    """Swap ``module.save_figure`` for one that saves and keeps each figure open; yield the list
    of kept figures, and close them when the fixture ends."""
    kept = []
    save = module.save_figure

    def spy(fig, path, **kw):
        kept.append(fig)
        return save(fig, path, close=False)

    monkeypatch.setattr(module, "save_figure", spy)
    yield kept
    import matplotlib.pyplot as plt

    for f in kept:
        plt.close(f)
