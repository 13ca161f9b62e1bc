"""NDCG conventions (Busa-Fekete, Szarvas, Élteső & Kégl, 2012). See README.md beside this file."""
