"""The numbers Ozertem, Jones & Dumoulin (2011) print, typed once (they are the paper's): the
``paper_*`` columns of the clicks tables (:mod:`~evalrank.papers.ozertem2011.study`) and the
findings page (:mod:`~evalrank.papers.ozertem2011.findings`) both read them from here. Tables 1
and 2 are data files (``config/ozertem2011/``).
"""

from __future__ import annotations

__all__ = ["IMPRESSION_THRESHOLDS", "TABLE4", "TABLE5", "TABLE6", "TABLE7", "TABLE8", "MIN_VIEWS",
           "T4_JUDGED_SHARE", "T4_DBN_SHARE", "SIGN_CORRELATION"]

#: the minimum impression counts of Tables 6 and 8's rows
IMPRESSION_THRESHOLDS = (200, 50, 10, 0)

#: Table 4: per test, unique queries and query-URLs, judged and DBN-covered query-URLs (columns)
TABLE4 = {
    "test": [1, 2, 3, 4, 5], "unique_queries": [447, 707, 911, 293, 55],
    "unique_query_urls": [2803, 4878, 6404, 2016, 382], "judged_query_urls": [879, 1738, 2304, 684, 130],
    "dbn_query_urls": [733, 1596, 1949, 622, 124]}
#: Table 5: leave-one-out MSE of query, position and hybrid smoothing, and the hybrid's sigma
TABLE5 = {"query": 0.9452, "position": 0.9911, "hybrid": 0.7286, "sigma": 0.55}
#: Table 6: agreement with the editorial outcomes, Carterette & Jones and smoothed, per threshold
TABLE6 = {"min_impressions": list(IMPRESSION_THRESHOLDS),
          "carterette_jones": [0.79, 0.63, 0.37, 0.29], "smoothed": [0.78, 0.77, 0.74, 0.74]}
#: Table 7: per method, the (call, ΔDCG) of each of the five tests
TABLE7 = {"full1": [("+", 0.0487), ("?", 0.0159), ("+", 0.0789), ("?", 0.0057), ("-", -0.1627)],
          "full2": [("?", -0.0290), ("+", 0.0753), ("+", 0.1745), ("?", 0.0588), ("-", -0.1108)],
          "full3": [("?", -0.0174), ("+", 0.0778), ("+", 0.1152), ("?", 0.1236), ("-", -0.1511)],
          "clicks_only": [("?", 0.0062), ("?", 0.0196), ("?", -0.0575), ("?", 0.0098), ("?", 0.1055)],
          "editorial_only": [("?", 0.0909), ("+", 0.2425), ("?", 0.5711), ("?", 0.3579), ("-", -0.0809)],
          "smoothed": [("?", 0.0955), ("+", 0.1564), ("+", 0.2371), ("?", 0.2277), ("-", -0.0749)]}
#: Table 8: cross-correlation of ΔDCG predictions per threshold (clicks-only, editorial-only,
#: smoothed DBN, inter-annotator)
TABLE8 = {"min_impressions": list(IMPRESSION_THRESHOLDS),
          "clicks_only": [0.61, 0.52, 0.34, 0.18], "editorial_only": [0.57, 0.55, 0.54, 0.51],
          "smoothed": [0.78, 0.77, 0.74, 0.74], "inter_annotator": [0.83, 0.81, 0.81, 0.81]}
#: Sec. 4 / 5.2.1: N_view >= 10, "reliable relevance estimates with as few as 10 impressions"
MIN_VIEWS = 10
#: Sec. 4: judged pairs are 34.5 % of the query-URLs the tests need; unjudged pairs with a DBN
#: estimate about 30.5 % more
T4_JUDGED_SHARE = 0.345
T4_DBN_SHARE = 0.305
#: Sec. 5.2.2: correlation of sign(ΔDCG), smoothed DBN vs the full sets, and full vs full
SIGN_CORRELATION = (0.69, 0.73)
