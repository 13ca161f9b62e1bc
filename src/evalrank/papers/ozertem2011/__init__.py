"""ΔDCG of an unseen configuration from judgments and clicks (Ozertem, Jones & Dumoulin, 2011). See README.md beside this file."""
