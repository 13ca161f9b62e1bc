"""ΔDCG of an unseen configuration from pre-existing judgments and clicks
(Ozertem, Jones & Dumoulin, WWW 2011).

Modules, in the order the method uses them:

- :mod:`~evalrank.clicks.grades`: grade scales, grade pdfs and their moments (eq. 4),
  the inter-editor agreement matrix (Table 1) and Table 2.
- :mod:`~evalrank.clicks.logs`: session logs and judgment files (flat arrays; TSV readers
  that name file:line on bad input).
- :mod:`~evalrank.clicks.dbn`: the Chapelle-Zhang DBN user model -- sampling sessions, the
  simplified DBN of eq. 1, and the full DBN fitted by EM.
- :mod:`~evalrank.clicks.mapping`: click-model relevance -> grade pdf (beta fits p(x|g),
  position-aware prior p(g), posterior p(g|x); Sec. 3.3, Figs. 1-5).
- :mod:`~evalrank.clicks.smoothing`: position-, query- and hybrid smoothing of missing grades
  (eqs. 9-13) and sigma by leave-one-out (Sec. 5.1, Figs. 6-7, Table 5).
- :mod:`~evalrank.clicks.deltadcg`: E and Var of ΔDCG@k (eqs. 5-8, with the correct variance).
- :mod:`~evalrank.clicks.carterette`: Carterette & Jones' ordinal regression on click features.
- :mod:`~evalrank.clicks.simulate`: the simulated search world with known true grades.
- :mod:`~evalrank.clicks.study`: the whole comparison (Tables 4-8, the many-test study).
"""
