"""The experiments of Dinçer, Macdonald & Ounis (2016), on top of :mod:`evalrank.metrics.risk`.
See README.md beside this file.

* :mod:`~evalrank.papers.dincer2016.example` -- the worked example of Sec. 4:
  Table 3's data matrix (``config/dincer2016/dincer2016_table3.csv``), Tables 4
  and 5 recomputed and compared number by number with the printed values;
* :mod:`~evalrank.papers.dincer2016.systems`, :mod:`~evalrank.papers.dincer2016.population` --
  Sec. 5 on our data: a population of systems scored per query, Table 6 (URisk, TRisk, T*Risk,
  ZRisk, GeoRisk with ranks) for the top systems by mean ERR@20;
* :mod:`~evalrank.papers.dincer2016.risk_objective`, :mod:`~evalrank.papers.dincer2016.risk_lambdamart`,
  :mod:`~evalrank.papers.dincer2016.learning` -- Sec. 6: risk-sensitive LambdaMART (U-CRO, T-FARO,
  T*-FARO, GeoRisk) against plain LambdaMART, Table 7.
"""
