"""Grade scales, eq. 4, Table 1 and Table 2 recomputed from it."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evalrank.papers.ozertem2011.grades import (PEGFB, GradeScale, agreement_pdfs, compare_table2, grade_moments,
                                    read_agreement, table2)

ROOT = Path(__file__).resolve().parents[3]
TABLE1 = ROOT / "config/ozertem2011/ozertem2011_table1.csv"
PRINTED2 = ROOT / "config/ozertem2011/ozertem2011_table2_printed.csv"


def test_table1_transcription_is_symmetric_with_5010_editor_pairs():
    C = read_agreement(TABLE1)
    np.testing.assert_array_equal(C, C.T)   # pairs of editors: the printed matrix is symmetric
    # 1670 query-URLs x 3 editors = 3 x 1670 = 5010 unordered editor pairs: agreements counted once
    # on the diagonal, disagreements both ways off it
    assert np.trace(C) + (C.sum() - np.trace(C)) / 2 == 3 * 1670


def test_table2_recomputed_matches_print_except_one_rounding_digit():
    cmp = compare_table2(table2(read_agreement(TABLE1)), pd.read_csv(PRINTED2, comment="#"))
    bad = cmp[~cmp["matches"]]
    # Good's row gives a mean of 1.9169, printed 1.91 (1.92 when rounded): the one digit that differs
    assert list(zip(bad["statistic"], bad["grade"])) == [("mean", "G")]
    g = bad.iloc[0]
    assert g["ours"] == pytest.approx(1.916856, abs=1e-6) and abs(g["difference"]) < 0.01
    assert np.abs(cmp["difference"]).max() < 0.01


def test_table2_comparison_catches_a_transcription_typo(tmp_path):
    df = pd.read_csv(TABLE1, comment="#")
    df.loc[0, "P"] = 150   # 183 -> 150
    p = tmp_path / "t1.csv"
    df.to_csv(p, index=False)
    cmp = compare_table2(table2(read_agreement(p)), pd.read_csv(PRINTED2, comment="#"))
    assert (~cmp["matches"]).sum() > 1


def test_grade_moments_eq4_against_direct_sums():
    r = np.random.default_rng(0)
    p = r.dirichlet(np.ones(5), size=50)
    m, v = grade_moments(p)
    a = np.arange(5.0)
    np.testing.assert_allclose(m, [sum(pi[j] * a[j] for j in range(5)) for pi in p], rtol=1e-12)
    np.testing.assert_allclose(v, [sum(pi[j] * a[j] ** 2 for j in range(5)) - mi ** 2 for pi, mi in zip(p, m)],
                               atol=1e-12)
    m1, v1 = grade_moments(PEGFB.exact_pdfs([0, 4, 2]))
    np.testing.assert_array_equal(m1, [0, 4, 2])
    np.testing.assert_array_equal(v1, [0, 0, 0])


def test_agreement_rows_are_the_editorial_pdfs():
    C = read_agreement(TABLE1)
    R = agreement_pdfs(C)
    np.testing.assert_allclose(R.sum(1), 1)
    # scale order is B..P: row 4 is Perfect = 183, 82, 24, 7, 1 printed P..B
    np.testing.assert_allclose(R[4], np.array([1, 7, 24, 82, 183]) / 297)


def test_scale_and_file_errors(tmp_path):
    with pytest.raises(ValueError, match="values"):
        GradeScale(names=("a", "b"), values=(1, 0))
    with pytest.raises(ValueError, match="names"):
        GradeScale(names=("a", "a"), values=(0, 1))
    with pytest.raises(ValueError, match="judgments.tsv:3: unknown grade 'X'"):
        PEGFB.index(["P", "X"], where="judgments.tsv:3")
    with pytest.raises(ValueError, match="pdfs"):
        grade_moments(np.full((2, 5), 0.3))
    p = tmp_path / "bad.csv"
    p.write_text("grade,P,E,G,F,X\nP,1,1,1,1,1\nE,1,1,1,1,1\nG,1,1,1,1,1\nF,1,1,1,1,1\nX,1,1,1,1,1\n")
    with pytest.raises(ValueError, match="do not match the grade scale"):
        read_agreement(p)
    with pytest.raises(FileNotFoundError):
        read_agreement(tmp_path / "missing.csv")
