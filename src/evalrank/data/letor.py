"""LETOR / SVMlight ranking text files: a compiled writer and reader.

One document per line::

    <label> qid:<qid> <i>:<v> <i>:<v> ... [# comment]

e.g. MSLR-WEB30K ``2 qid:10 1:3 2:0 ... 136:0.5`` or LETOR 4.0
``0 qid:10002 1:0.007477 ... #docid = GX008-86-4444840 inc = 1 prob = 0.086622``.
Documents of one query are contiguous.

:func:`write_letor` formats rows with a numba byte formatter (:mod:`.letor_write`);
:func:`read_letor` parses the bytes (memory-mapped, in chunks that end at line
boundaries) with a numba byte parser (:mod:`.letor_read`); :func:`load_letor` adds an
``.npz`` cache keyed on the file's identity (:mod:`.letor_cache`). This module holds the
public names, one import for all three.
"""

from __future__ import annotations

from evalrank.data.letor_cache import cache_path, load_letor
from evalrank.data.letor_read import PARSER_VERSION, LetorFormatError, read_letor
from evalrank.data.letor_write import write_letor

__all__ = ["write_letor", "read_letor", "load_letor", "cache_path", "LetorFormatError", "PARSER_VERSION"]
