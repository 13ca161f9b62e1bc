"""What the reproductions share: the findings page (:mod:`~evalrank.papers.common.findings`),
the figures' style and the data and model stages' figures (:mod:`~evalrank.papers.common.plots`),
and the ``findings`` stage (:mod:`~evalrank.papers.common.stages`)."""
