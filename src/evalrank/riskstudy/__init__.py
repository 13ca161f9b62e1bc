"""The experiments of Dinçer, Macdonald & Ounis (2016), on top of :mod:`evalrank.metrics.risk`.

* :mod:`~evalrank.riskstudy.example` -- the worked example of Sec. 4:
  Table 3's data matrix (``config/risk/dincer2016_table3.csv``), Tables 4
  and 5 recomputed and compared number by number with the printed values;
* :mod:`~evalrank.riskstudy.population` -- Sec. 5 on our data: a population
  of systems scored per query, Table 6 (URisk, TRisk, T*Risk, ZRisk, GeoRisk
  with ranks) for the top systems by mean ERR@20;
* :mod:`~evalrank.riskstudy.learning` -- Sec. 6: risk-sensitive LambdaMART
  (U-CRO, T-FARO, T*-FARO, GeoRisk) against plain LambdaMART, Table 7.
"""
