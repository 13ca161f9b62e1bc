"""The reproductions: one folder per paper, and what they share.

- :mod:`~evalrank.papers.common`: the findings page's machinery (claims, verdicts, rendering),
  the figures' style and the figures of the data and model stages, the ``findings`` stage;
- :mod:`~evalrank.papers.sawade2012`: active evaluation (Sawade et al. 2012);
- :mod:`~evalrank.papers.busafekete2012`: NDCG conventions (Busa-Fekete et al. 2012);
- :mod:`~evalrank.papers.ozertem2011`: ΔDCG from judgments and clicks (Ozertem et al. 2011);
- :mod:`~evalrank.papers.dincer2016`: risk-sensitive evaluation and learning (Dinçer et al. 2016);
- :mod:`~evalrank.papers.wang2013`: NDCG as lists grow (Wang et al. 2013).

Each paper's folder holds its study modules, ``plots.py`` (its figures), ``findings.py`` (its
claims on the findings page), ``stages.py`` (the ``evalrank stage`` commands its Snakemake rules
run, ``workflow/rules/<paper>.smk``) and a README mapping each equation, table and figure of the
paper to the function and rule that produce it.

Nothing here is imported by ``import evalrank``; the stage modules import only the standard
library at the top (``evalrank --help`` builds their parsers).
"""
