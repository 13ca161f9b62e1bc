"""ΔDCG of an unseen configuration from pre-existing judgments and clicks
(Ozertem, Jones & Dumoulin, WWW 2011). See README.md beside this file.

Modules, in the order the method uses them:

- :mod:`~evalrank.papers.ozertem2011.grades`: grade scales, grade pdfs and their moments (eq. 4),
  the inter-editor agreement matrix (Table 1) and Table 2.
- :mod:`~evalrank.papers.ozertem2011.logs`: session logs and judgment files (flat arrays; TSV readers
  that name file:line on bad input).
- :mod:`~evalrank.papers.ozertem2011.dbn`: the Chapelle-Zhang DBN user model -- sampling sessions, the
  simplified DBN of eq. 1, and the full DBN fitted by EM.
- :mod:`~evalrank.papers.ozertem2011.mapping`: click-model relevance -> grade pdf (beta fits p(x|g),
  position-aware prior p(g), posterior p(g|x); Sec. 3.3, Figs. 1-5).
- :mod:`~evalrank.papers.ozertem2011.smoothing`: position-, query- and hybrid smoothing of missing grades
  (eqs. 9-13) and sigma by leave-one-out (Sec. 5.1, Figs. 6-7, Table 5).
- :mod:`~evalrank.papers.ozertem2011.deltadcg`: E and Var of ΔDCG@k (eqs. 5-8, with the correct variance).
- :mod:`~evalrank.papers.ozertem2011.carterette`: Carterette & Jones' ordinal regression on click features.
- :mod:`~evalrank.papers.ozertem2011.simulate`: the simulated search world with known true grades.
- :mod:`~evalrank.papers.ozertem2011.study`: the whole comparison (Tables 4-8, the many-test study);
- :mod:`~evalrank.papers.ozertem2011.printed`: the paper's printed numbers (Tables 4-8, Sec. 4-5), typed once;
- :mod:`~evalrank.papers.ozertem2011.plots`, :mod:`~evalrank.papers.ozertem2011.findings`,
  :mod:`~evalrank.papers.ozertem2011.stages`: its figures, findings and ``evalrank stage clicks-*``.
"""
