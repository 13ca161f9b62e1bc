"""Active evaluation of ranking functions (Sawade, Bickel, von Oertzen, Scheffer & Landwehr, 2012). See README.md beside this file."""
