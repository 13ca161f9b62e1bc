"""NDCG as lists grow (Wang et al., 2013). See README.md beside this file."""
