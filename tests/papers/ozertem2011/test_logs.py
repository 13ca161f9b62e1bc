"""Session logs and judgment files: arrays, TSV round trips, clear errors."""

import numpy as np
import pandas as pd
import pytest

from evalrank.papers.ozertem2011.logs import (PairTable, read_judgments, read_sessions, session_log, write_judgments,
                                  write_sessions)


def _log():
    serps = np.array([[0, 1, 2], [3, 4, -1]])
    return session_log(serps, [0, 1], [0, 0, 1, 0, 1], [[1, 0, 0], [0, 1, 1], [0, 0, 0], [1, 0, 0], [1, 1, 0]])


def test_bitmasks_aggregation_and_impressions():
    log = _log()
    np.testing.assert_array_equal(log.clicks, [1, 6, 0, 1, 3])
    agg = log.aggregate()
    assert agg.n_sessions == 5 and agg.n_rows == 4
    np.testing.assert_array_equal(agg.counts[(agg.row_serp == 0) & (agg.clicks == 1)], [2])
    np.testing.assert_array_equal(agg.query_sessions(3), [3, 2, 0])
    np.testing.assert_array_equal((agg.click_matrix() * agg.counts[:, None]).sum(0), [3, 2, 1])


def test_round_trip_through_tsv(tmp_path):
    log = _log().aggregate()
    pairs = PairTable(["q1", "q2"], [0, 0, 0, 1, 1], ["a", "b", "c", "a", "z"])
    write_sessions(tmp_path / "s.tsv", log, pairs)
    back, _ = read_sessions(tmp_path / "s.tsv", PairTable(["q1", "q2"], [0, 0, 0, 1, 1], ["a", "b", "c", "a", "z"],
                                                          frozen=True))
    for f in ("serps", "serp_query", "row_serp", "clicks", "counts"):
        np.testing.assert_array_equal(getattr(back, f), getattr(log, f))


@pytest.mark.parametrize("line, message", [
    ("q1\td1 d2 d3\td7\t1", r"s.tsv:3: click on 'd7', which is not in the shown list"),
    ("q1\t\t\t1", r"s.tsv:3: query 'q1' has no shown URLs"),
    ("q1\td1 d1\t\t1", r"s.tsv:3: a URL is shown twice"),
    ("q1\td1 d2\td1\t0", r"s.tsv:3: count must be a positive integer"),
    ("q1\td1 d2\td1", r"s.tsv:3: expected 4 tab-separated columns"),
])
def test_session_file_errors_name_file_and_line(tmp_path, line, message):
    p = tmp_path / "s.tsv"
    p.write_text("query\tshown\tclicked\tcount\nq0\td1 d2\td2\t2\n" + line + "\n")
    with pytest.raises(ValueError, match=message):
        read_sessions(p)


def test_session_array_errors():
    with pytest.raises(ValueError, match="clicks rank 3, outside its shown list of 2 URLs"):
        session_log(np.array([[0, 1, -1]]), [0], [0], [[0, 0, 1]])
    with pytest.raises(ValueError, match="has no shown URLs"):
        session_log(np.array([[0, 1], [-1, -1]]), [0, 1], [0], [[1, 0]])
    with pytest.raises(ValueError, match="shows the same URL twice"):
        session_log(np.array([[0, 0]]), [0], [0], [[1, 0]])
    with pytest.raises(ValueError, match="empty rank before a shown URL"):
        session_log(np.array([[0, -1, 2]]), [0], [0], [[1, 0, 0]])
    with pytest.raises(ValueError, match="counts"):
        session_log(np.array([[0, 1]]), [0], [0], [[1, 0]], counts=[0])


def test_bad_header(tmp_path):
    p = tmp_path / "s.tsv"
    p.write_text("q\tshown\tclicks\nq0\td1\t\n")
    with pytest.raises(ValueError, match=r"s.tsv:1: expected the header"):
        read_sessions(p)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        read_sessions(tmp_path / "none.tsv")


def test_frozen_pair_table_refuses_unknown_urls(tmp_path):
    p = tmp_path / "s.tsv"
    p.write_text("query\tshown\tclicked\nq0\td1 d9\t\n")
    with pytest.raises(ValueError, match=r"s.tsv:2: unknown URL 'd9' for query 'q0'"):
        read_sessions(p, PairTable(["q0"], [0], ["d1"], frozen=True))


def test_judgments_round_trip_and_errors(tmp_path):
    df = pd.DataFrame({"query": ["q1", "q1", "q2"], "url": ["a", "b", "a"], "grade_index": [4, 0, 2],
                       "set": ["pre-existing", "pre-existing", "full1"]})
    write_judgments(tmp_path / "j.tsv", df)
    back = read_judgments(tmp_path / "j.tsv")
    assert back["grade"].tolist() == ["P", "B", "G"]
    np.testing.assert_array_equal(back["grade_index"], [4, 0, 2])
    p = tmp_path / "bad.tsv"
    p.write_text("query\turl\tgrade\tset\nq1\ta\tP\tfull1\nq1\tb\tExcellent\tfull1\n")
    with pytest.raises(ValueError, match=r"bad.tsv:3: unknown grade 'Excellent'; the scale is"):
        read_judgments(p)
    p.write_text("query\turl\tgrade\tset\nq1\ta\tP\tfull1\nq1\ta\tB\tfull1\n")
    with pytest.raises(ValueError, match=r"bad.tsv:3: 'q1' / 'a' judged twice in set 'full1'"):
        read_judgments(p)
    p.write_text("query\turl\tgrade\tset\nq1\t\tP\tfull1\n")
    with pytest.raises(ValueError, match=r"bad.tsv:2: empty 'url'"):
        read_judgments(p)
