"""How evalrank's array kernels run: compiled by numba, or the same Python source interpreted.

Kernels are written once, in numba's subset of Python, and decorated from here::

    from evalrank._jit import njit, prange

    @njit(cache=True, parallel=True)
    def _kernel(...):
        for q in prange(n): ...

Importing a kernel module imports neither numba nor anything of it: until numba is needed a
kernel is its plain Python function (``prange`` is ``range``), and runs interpreted on the same
arrays. That is the fast way for small inputs: starting numba (its import pulls in scipy.linalg)
and loading its cache of compiled kernels cost about a second of a process, an interpreted pass
over a small run file a few milliseconds.

Where the input is large enough to pay for numba, the public function that knows its size calls
:func:`need` (the TREC reader with the file's bytes, ``evaluate_trec`` with all its files' bytes,
``index_qrels``, ``rank_run``, ``trec_measures`` with lines x :data:`LINE_BYTES`); from then on, for
the rest of the process, every kernel is a numba dispatcher: numba is imported, a dispatcher made
for each registered kernel (each loads from or fills numba's cache on its first call, as with
``numba.njit(cache=True)``), and each module global of ``evalrank``'s modules that holds a kernel
(kernels call kernels; ``evaluation/inputs.py`` imports ``fnv1a`` from ``data/trec_scan.py``) or the
interpreted ``prange`` is rebound to the dispatcher or to ``numba.prange``, so that numba
compiles callers against callees exactly as before. A kernel module imported after that gets
dispatchers straight from :func:`njit`. A module that uses numba directly and calls registered
kernels (the LETOR reader calls the byte kernels of ``bytescan``, from its numba code and from
Python on files of any size) imports numba from here (``from evalrank._jit import numba``): that
compiles the kernels first, for the rest of the process, whatever the mode. Whenever numba is
imported, every kernel has its dispatcher and its Python function says so to numba
(``_numba_type_``), so numba code that still holds the Python function calls the dispatcher.

Interpreted semantics are compiled semantics, with care in the kernels' source: integer
division, float32 rounding (done on arrays before the kernel), ``math.log2`` (libm's, as numba's
``np.log2`` and ``math.log2`` are; NumPy's ``np.log2`` on a scalar may be another routine), casts
where a NumPy scalar's type would differ from numba's (``int(buf[i]) - 48``: a uint8 scalar
would wrap), and unsigned 64-bit wrap-around (FNV-1a, hash slots): a kernel declared
``wraparound=True`` runs interpreted under ``np.errstate(over="ignore")`` (compiled code never
warns), as does one with ``error_model="numpy"`` (divide and invalid too; Python floats still
raise ZeroDivisionError where numba's numpy error model gives inf/nan, so such a kernel divides
NumPy scalars or guards). Speed, interpreted: a kernel's calls to other kernels are plain Python
calls (the errstate is entered once, by the call from Python), and a kernel may name parameters
it only reads (``lists=(...)``) to receive them as lists or bytes when called from Python
(reading and using a list element takes a third to a quarter of a NumPy scalar's time). Tests
run the reader and the evaluation in both modes with identical results (tests/test_jit.py,
tests/test_jit_modes.py).

Which mode: ``EVALRANK_JIT=python`` (never compile), ``numba`` (always, as before this module
existed: every kernel a dispatcher from its definition) or ``auto`` (the default: by size,
:data:`THRESHOLD`). Tests force either with the :func:`mode` context manager.

Compiling is slow the first time only: numba's cache (``__pycache__`` beside the sources, or
``NUMBA_CACHE_DIR``) keeps every kernel it compiled, and later processes load it from there. A
process that is about to compile one (a kernel and signature not in the cache: numba's
``numba:compile`` event, which loading from the cache does not raise) calls the callback given to
:func:`on_first_compile`, once: the command line says so on stderr at once, instead of a silent
first minute after installing.
"""

from __future__ import annotations

import functools
import os
import sys
import threading
from contextlib import contextmanager

__all__ = ["njit", "prange", "need", "mode", "compiled", "threads", "input_bytes", "readonly", "on_first_compile",
           "THRESHOLD", "LINE_BYTES"]

#: Inputs of at least this many bytes of TREC text (or :data:`LINE_BYTES` per line of arrays)
#: are worth compiling. Measured with benchmarks/bench_startup.py --crossover (RESULTS.md,
#: 2026-11-25; a 2-core machine shared with other jobs, best of 3): ``evalrank evaluate -m map -m
#: ndcg_cut.10`` per process on runs of 100 documents a topic in shuffled score order (every topic
#: sorted: the slow case). Compiled (numba's cache warm): 1.3-2.0 s at every size up to 1.6 MB,
#: numba's import and cache loading. Interpreted: 0.3-0.5 s at 128 KB, 0.6-0.9 s at 257 KB,
#: 1.2-1.4 s at 525 KB, 1.4-1.5 s at 794 KB, 1.3-1.8 s at 1.06 MB, 2.3-4.6 s at 1.6 MB (ranges over
#: two versions of the engine's topic sort: merge, radix). They cross between 0.8 and 1.1 MB; the
#: threshold sits just below, where interpreting is still the faster.
THRESHOLD = 768 * 1024

#: bytes a line (a judgment, a retrieved document) counts for where a size is given in lines (the
#: engine's and the measures' array inputs): about the fewest a TREC line has in practice (a qrels
#: line ``q 0 d 1`` has 8 bytes, run lines 25-60), so that arrays are compiled late rather than
#: early (the reader and ``evaluate_trec``, which see the files, decide first)
LINE_BYTES = 16


class _State:
    """What this module holds (an object, so that rebinding module globals never touches it)."""

    def __init__(self):
        self.lock = threading.RLock()
        self.kernels = []        # every _Kernel, in definition order
        self.by_id = {}          # id(python callable) and id(dispatcher) -> _Kernel
        self.compiled = False    # module globals hold dispatchers
        self.forced = None       # None (auto), "python" or "numba"
        self.python_prange = None
        self.local = threading.local()
        self.first_compile = None  # on_first_compile's callback, until it is called
        self.listening = False     # numba's compile event has our listener


class _Kernel:
    __slots__ = ("func", "options", "python", "dispatcher")

    def __init__(self, func, options, python):
        self.func = func          # the source, as numba compiles it
        self.options = options    # numba.njit's options
        self.python = python      # what runs interpreted: func, or func under np.errstate
        self.dispatcher = None


_state = _State()


def _env_mode():
    value = os.environ.get("EVALRANK_JIT", "").strip().lower()
    if value in ("", "auto"):
        return None
    if value not in ("python", "numba"):
        raise ValueError(f"EVALRANK_JIT must be python, numba or auto, got {value!r}")
    return value


def readonly(a):
    """``a`` itself if read-only, else a read-only view of it (the caller's array keeps its
    flags). numba compiles a kernel once per argument type, and a read-only array is a type of
    its own: a kernel that only reads an array which reaches it writable on one path (a buffer
    a reader filled) and read-only on another (``np.frombuffer`` of bytes) was compiled twice,
    seconds of CPU each on a fresh clone. Passing ``readonly(a)`` gives it one type."""
    if a.flags.writeable:
        a = a.view()
        a.flags.writeable = False
    return a


def prange(*args):
    """``range`` while kernels run interpreted; ``numba.prange`` once they are compiled (module
    globals rebound by :func:`need`)."""
    return range(*args)


_state.python_prange = prange


def _as_python(x):
    """What an interpreted kernel reads fastest in place of a 1-d array it only reads: bytes
    for uint8, a list of Python ints / floats for other integers, bools and float64 (float32
    stays an array: its arithmetic must stay float32)."""
    import numpy as np

    if isinstance(x, np.ndarray) and x.ndim == 1:
        if x.dtype == np.uint8:
            return x.tobytes()
        if x.dtype.kind in "iub" or x.dtype == np.float64:
            return x.tolist()
    return x


def _interpreted(func, errors: dict, lists: tuple):
    """The callable that runs ``func`` interpreted: called from Python (not from another
    kernel), its ``lists`` parameters become :func:`_as_python` of what is passed and it runs
    under ``np.errstate(**errors)``; called from a kernel, it is a plain call but for an
    errstate the caller's does not cover."""
    if not errors and not lists:
        return func
    names = func.__code__.co_varnames[:func.__code__.co_argcount]
    unknown = set(lists) - set(names)
    if unknown:
        raise TypeError(f"{func.__qualname__}: lists names no parameter {sorted(unknown)}")
    positions = [i for i, name in enumerate(names) if name in lists]
    wanted = frozenset(errors.items())
    local = _state.local

    @functools.wraps(func)
    def run(*args, **kwargs):
        outer = not getattr(local, "inside", False)
        if outer and positions:
            args = list(args)
            for i in positions:
                if i < len(args):
                    args[i] = _as_python(args[i])
                elif names[i] in kwargs:
                    kwargs[names[i]] = _as_python(kwargs[names[i]])
        covered = getattr(local, "errors", frozenset())
        if outer:
            local.inside = True
        try:
            if wanted <= covered:
                return func(*args, **kwargs)
            import numpy as np

            local.errors = covered | wanted
            try:
                with np.errstate(**errors):
                    return func(*args, **kwargs)
            finally:
                local.errors = covered
        finally:
            if outer:
                local.inside = False

    return run


def njit(**options):
    """Decorate a kernel as ``numba.njit(**options)`` would, compiled only once :func:`need`
    says so (module docstring). Two options of evalrank's, for the interpreted kernel only:

    ``wraparound=True``: the kernel's unsigned 64-bit arithmetic (or that of kernels it calls)
    wraps around on purpose: interpreted, NumPy's overflow warning is silenced, as compiled
    code never warns.

    ``lists=("name", ...)``: parameters the kernel only reads, by index and ``len()`` (never
    ``.shape``, slices or array methods), whose elements' arithmetic is the same on Python
    numbers (no int64 overflow, no float32): interpreted and called from Python, a 1-d array
    passed there reaches the kernel as a list or bytes (:func:`_as_python`): reading and using
    a list element takes a third to a quarter of a NumPy scalar's time.
    """
    wraps = bool(options.pop("wraparound", False))
    lists = tuple(options.pop("lists", ()))

    def decorate(func):
        errors = {}
        if wraps:
            errors["over"] = "ignore"
        if options.get("error_model") == "numpy":
            errors.update(over="ignore", divide="ignore", invalid="ignore")
        k = _Kernel(func, dict(options), _interpreted(func, errors, lists))
        with _state.lock:
            _state.kernels.append(k)
            _state.by_id[id(k.python)] = k
            if _state.compiled:
                return _dispatcher(k)
            if "numba" in sys.modules:  # numba code elsewhere may call it: give it its type
                _dispatcher(k)
        return k.python

    return decorate


def on_first_compile(callback) -> None:
    """Call ``callback()`` once, when numba is about to compile a kernel in this process: one that
    numba's cache does not hold (loading a cached kernel calls nothing). None: no callback. The
    command line's notice that the first call after installing compiles (evalrank.cli.main)."""
    with _state.lock:
        _state.first_compile = callback
        if callback is not None and "numba" in sys.modules:
            _listen()


def _listen() -> None:
    """Our listener on numba's ``numba:compile`` event (raised for a cache miss only, before
    compiling; once per process)."""
    if _state.listening:
        return
    from numba.core import event

    class FirstCompile(event.Listener):
        def on_start(self, ev):
            with _state.lock:
                callback, _state.first_compile = _state.first_compile, None
            if callback is not None:
                callback()

        def on_end(self, ev):
            pass

    event.register("numba:compile", FirstCompile())
    _state.listening = True


def _dispatcher(k: _Kernel):
    if k.dispatcher is None:
        import numba

        if _state.first_compile is not None:
            _listen()

        k.dispatcher = numba.njit(**k.options)(k.func)
        _state.by_id[id(k.dispatcher)] = k
        # a caller numba compiles may still hold the Python function (a module outside
        # evalrank, or inside a mode("python") block): numba types it as the dispatcher
        for f in {k.func, k.python}:
            f._numba_type_ = k.dispatcher._numba_type_
    return k.dispatcher


def _ours(name: str) -> bool:
    return name == "evalrank" or name.startswith("evalrank.")


def _bind(to_numba: bool) -> None:
    """Point every module global of evalrank that holds a kernel (or ``prange``) at its
    dispatcher (or ``numba.prange``), or back at the interpreted function."""
    import numba

    owners = {k.func.__module__ for k in _state.kernels} | {__name__}
    py_prange = _state.python_prange
    for name, module in list(sys.modules.items()):
        if module is None or not _ours(name):
            continue
        g = getattr(module, "__dict__", None)
        if not isinstance(g, dict):
            continue
        for key, value in list(g.items()):
            k = _state.by_id.get(id(value))
            if k is not None:
                if to_numba and value is k.python:
                    g[key] = _dispatcher(k)
                elif not to_numba and value is k.dispatcher:
                    g[key] = k.python
            elif to_numba and value is py_prange:
                g[key] = numba.prange
            elif not to_numba and value is numba.prange and name in owners:
                g[key] = py_prange


def _compile() -> None:
    with _state.lock:
        if _state.compiled:
            return
        for k in list(_state.kernels):
            _dispatcher(k)
        _bind(True)
        _state.compiled = True


def _interpret() -> None:
    with _state.lock:
        if _state.compiled:
            _bind(False)
            _state.compiled = False


def need(nbytes) -> None:
    """Compile the kernels (for the rest of the process) if an input of ``nbytes`` bytes of
    TREC text is worth it (:data:`THRESHOLD`), unless ``EVALRANK_JIT=python`` or a
    :func:`mode` block says otherwise. Called by the public functions that know the size."""
    if _state.compiled or _state.forced == "python":
        return
    if _state.forced == "numba" or nbytes >= THRESHOLD:
        _compile()


def compiled() -> bool:
    """Whether the kernels run compiled now."""
    return _state.compiled


@contextmanager
def mode(name: str):
    """Run the block with the kernels interpreted (``"python"``), compiled (``"numba"``) or
    chosen by size (``"auto"``); the previous mode comes back after it. For tests: it rebinds
    module globals, so no other thread may run kernels meanwhile."""
    if name not in ("python", "numba", "auto"):
        raise ValueError(f"mode must be python, numba or auto, got {name!r}")
    with _state.lock:
        before = (_state.forced, _state.compiled)
        _state.forced = None if name == "auto" else name
        if name == "numba":
            _compile()
        elif name == "python":
            _interpret()
    try:
        yield
    finally:
        with _state.lock:
            _state.forced = before[0]
            if before[1]:
                _compile()
            else:
                _interpret()


@contextmanager
def threads(n_jobs):
    """numba's threads for the parallel kernels called in the block: ``n_jobs``, at most
    ``NUMBA_NUM_THREADS`` (a job's declared threads instead of all the machine's cores); the
    previous number comes back after it. None, or numba not imported (nothing runs compiled): as
    they are. The kernels' results do not depend on it."""
    if not n_jobs or "numba" not in sys.modules:
        yield
        return
    import numba

    before = numba.get_num_threads()
    numba.set_num_threads(max(1, min(int(n_jobs), numba.config.NUMBA_NUM_THREADS)))
    try:
        yield
    finally:
        numba.set_num_threads(before)


def input_bytes(*inputs) -> int:
    """The bytes of the files among ``inputs`` (paths, or lists / mappings of paths; anything
    else counts 0 and decides for itself once read)."""
    total = 0
    for obj in inputs:
        items = obj.values() if isinstance(obj, dict) else obj if isinstance(obj, (list, tuple)) else (obj,)
        for x in items:
            if isinstance(x, (str, os.PathLike)):
                try:
                    total += os.stat(x).st_size
                except (OSError, ValueError):
                    pass
    return total


def __getattr__(name):
    # ``from evalrank._jit import numba``: numba, for a module that uses numba directly and
    # calls registered kernels (from its numba code or from Python, on inputs of any size):
    # the kernels are compiled from then on, for the rest of the process
    if name == "numba":
        _compile()
        import numba

        return numba
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_state.forced = _env_mode()
if _state.forced == "numba":
    _compile()
