"""The numbers Sawade et al. (2012) print, typed once (they are the paper's): the labelling
savings of active over passive estimation read off Sec. 5 and Figs. 1-3. ``savings.csv``'s
``paper_saving`` column (:mod:`~evalrank.papers.sawade2012.report`) and the findings page
(:mod:`~evalrank.papers.sawade2012.findings`) both read them from here.
"""

from __future__ import annotations

__all__ = ["SAVINGS", "TRAIN_SIZE_SAVING", "TRAIN_SIZE_BUDGET", "saving_label"]

#: experiment -> (low, high) share of the budget Λ = 300 that active estimation saves (a range
#: where the paper gives one: Sec. 5.2's "between 30% and 55%" over its three model pairs)
SAVINGS = {
    "fig1_rf": (0.20, 0.20),                        # Fig. 1 centre, Sec. 5.1: "by about 20% (Random Forest)"
    "fig1_ordered_logit": (0.10, 0.10),             # Fig. 1 right, Sec. 5.1: "and 10% (Ordered Logit)"
    "fig2_rf_vs_ordinal_rf": (0.30, 0.55),          # Fig. 2 left, Sec. 5.2
    "fig2_ordered_logit_vs_ranksvm": (0.30, 0.55),  # Fig. 2 centre
    "fig2_ordered_logit_vs_rf": (0.30, 0.55),       # Fig. 2 right
    "fig3_index_update": (0.75, 0.75),              # Fig. 3 left, Sec. 5.2: "saving approximately 75%"
}
#: Fig. 3 centre, Sec. 5.2: RF on 100,000 vs 200,000 training pairs, "approximately 45%"
TRAIN_SIZE_SAVING = 0.45
#: Fig. 3 right: the budget Λ of the training-size comparison
TRAIN_SIZE_BUDGET = 100


def saving_label(low: float, high: float) -> str:
    """A saving as ``savings.csv`` prints it: ``20%``, or ``30-55%`` for a range."""
    return f"{low:.0%}" if low == high else f"{low * 100:.0f}-{high:.0%}"
