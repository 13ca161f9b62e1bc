"""Named random streams derived from one config seed.

Every random stream in evalrank is ``numpy.random.SeedSequence(seed,
spawn_key=key(names))`` where the spawn key is a stable hash of a tuple of
names (e.g. ``("synthetic", "fold", 3)``). Streams are therefore independent of
the order in which jobs run and of the number of cores.
"""

from __future__ import annotations

import hashlib

import numpy as np

__all__ = ["seed_sequence", "rng", "stream_rngs", "int_seed"]


def _key(names: tuple) -> tuple[int, ...]:
    out = []
    for name in names:
        if isinstance(name, (int, np.integer)) and not isinstance(name, bool):
            out.append(int(name) & 0xFFFFFFFF)
        else:
            digest = hashlib.sha256(str(name).encode("utf-8")).digest()
            out.append(int.from_bytes(digest[:4], "little"))
    return tuple(out)


def seed_sequence(seed: int, *names) -> np.random.SeedSequence:
    """SeedSequence for the stream called ``names`` under the config ``seed``."""
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return np.random.SeedSequence(int(seed), spawn_key=_key(names))


def rng(seed: int, *names) -> np.random.Generator:
    """A ``numpy.random.Generator`` (PCG64) for the stream ``names``."""
    return np.random.Generator(np.random.PCG64(seed_sequence(seed, *names)))


def stream_rngs(seed: int, stream: tuple, repetitions):
    """``rng(seed, *stream, r)`` for each ``r`` of ``repetitions``, the same generators
    (same ``SeedSequence``: entropy ``seed``, spawn key ``stream``'s then ``r``'s), with the
    stream's names hashed once instead of once per repetition."""
    base = seed_sequence(seed, *stream)
    entropy, key = base.entropy, tuple(base.spawn_key)
    for r in repetitions:
        yield np.random.Generator(np.random.PCG64(np.random.SeedSequence(entropy, spawn_key=key + (int(r) & 0xFFFFFFFF,))))


def int_seed(seed: int, *names) -> int:
    """A 31-bit integer seed for libraries that take ``random_state`` ints
    (scikit-learn, LightGBM, mord), derived from the same SeedSequence."""
    return int(seed_sequence(seed, *names).generate_state(1, np.uint32)[0] & 0x7FFFFFFF)
