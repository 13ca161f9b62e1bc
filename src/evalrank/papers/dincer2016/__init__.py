"""Risk-sensitive evaluation and learning (Dinçer, Macdonald & Ounis, 2016). See README.md beside this file."""
