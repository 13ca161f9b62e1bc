"""Evaluating TREC-style runs: trec_eval's measures (evaluate) and paired comparisons (compare)."""
