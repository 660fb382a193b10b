"""Reuse of the setups a grid search repeats: kernel matrices, kernel PCA, graphs, path distances.

A fit spends much of its time on pieces that depend on ``X`` and a few parameters only: the
kernel matrix (sigma), its kernel-PCA map (sigma and the unlabeled set), the k-NN graph and its
Laplacian (k), the rho-path distances and their MDS (rho). A grid search fits the same ``X``
under many values of the other parameters (C, C*, gamma_A, gamma_I, lam, r ...) and over several
folds, and would compute each piece again at every fit. Inside ``reuse_setups()`` the functions
marked ``@reusable`` (in ``kernels`` and ``graph``) remember their results, keyed by the bytes of
their array arguments and the values of the others, within a memory budget (least recently used
first out); outside it they compute as always. A result remembered is the very result the
function computed (the same bits: the fits are those without reuse, which
``tests/s3vm_core/test_model_selection.py`` checks solver by solver), and its arrays are made
read-only, so that no caller can change what the next one gets.

``s3vm_core.model_selection.S3VMGridSearchCV`` runs every fit of its grid inside this context
(``reuse=True``); it works around any other loop of fits as well::

    with reuse_setups():
        GridSearchCV(GradientTSVM(), grid, cv=LabeledStratifiedKFold()).fit(X, y)
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
from collections import OrderedDict
from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np
import scipy.sparse as sp

#: Bytes of results remembered at once by default: a few kernel matrices and kernel-PCA maps
#: of 2,000 points (32 MB each), the working set of a grid over sigma and C.
DEFAULT_BUDGET = 512 * 2**20

_STORE: ContextVar[_Store | None] = ContextVar("s3vm_core_reuse", default=None)


class _Store:
    """Results by key, least recently used first, within ``budget`` bytes."""

    def __init__(self, budget: int):
        self.budget = budget
        self.entries: OrderedDict = OrderedDict()
        self.size = 0
        self.hits = 0
        self.misses = 0

    def get(self, key):
        entry = self.entries.get(key)
        if entry is None:
            self.misses += 1
            return None
        self.entries.move_to_end(key)
        self.hits += 1
        return entry

    def put(self, key, value) -> None:
        size = _nbytes(value)
        if size > self.budget:
            return
        self.entries[key] = (value, size)
        self.size += size
        while self.size > self.budget:
            _, (_, dropped) = self.entries.popitem(last=False)
            self.size -= dropped


@dataclasses.dataclass(frozen=True)
class ReuseStats:
    """What a ``reuse_setups`` context did: results found (``hits``), computed (``misses``),
    and the bytes held at its end."""

    hits: int
    misses: int
    bytes_held: int


@contextmanager
def reuse_setups(budget: int = DEFAULT_BUDGET):
    """Remember the results of the ``@reusable`` functions while the context is open.

    Parameters
    ----------
    budget : int, default=DEFAULT_BUDGET (512 MB)
        Bytes of results held at once; the least recently used go first. A result larger
        than the budget is computed and not kept.

    Yields
    ------
    callable
        ``stats()`` returns a ``ReuseStats`` of the context so far.

    Contexts nest: an inner one uses the store of the outer one. The store belongs to the
    thread (a ``contextvars`` variable) and to the process: joblib workers open their own.
    """
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 0:
        raise ValueError(f"budget is a number of bytes (an int >= 0), got {budget!r}.")
    outer = _STORE.get()
    store = outer if outer is not None else _Store(budget)
    token = _STORE.set(store)
    try:
        yield lambda: ReuseStats(store.hits, store.misses, store.size)
    finally:
        _STORE.reset(token)


def reusable(function=None, *, steps: bool = False):
    """Mark a pure function whose result ``reuse_setups`` may remember.

    The function must compute its result from its arguments only (no randomness without a
    seed among them) and its callers must not write into the result (it is made read-only
    when remembered). Arguments that cannot be fingerprinted (an object of another kind)
    bypass the memory. ``steps=True``: the function returns a ``graph.Steps`` (a long
    computation run by iterating it); its ``result`` is remembered once it has run, and a
    remembered one comes back as ``Steps.finished(result)``.
    """
    if function is None:
        return functools.partial(reusable, steps=steps)

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        store = _STORE.get()
        if store is None:
            return function(*args, **kwargs)
        try:
            key = (function.__module__, function.__qualname__, _arguments_key(args, kwargs))
        except _NoFingerprint:
            return function(*args, **kwargs)
        entry = store.get(key)
        if steps:
            if entry is not None:
                return _finished_steps(function, entry[0])
            return _remembering_steps(function(*args, **kwargs), store, key)
        if entry is not None:
            return entry[0]
        value = _frozen(function(*args, **kwargs))
        store.put(key, value)
        return value

    return wrapper


def _finished_steps(function, result):
    """``Steps.finished(result)`` of the ``Steps`` class the function returns (found through
    its module, so that this module imports nothing of the library)."""
    import importlib

    return importlib.import_module(function.__module__).Steps.finished(result)


def _remembering_steps(steps, store: _Store, key):
    """The same ``Steps``, whose result is remembered once they have all run."""

    def run():
        yield from steps
        store.put(key, _frozen(steps.result))
        return steps.result

    return type(steps)(run())


class _NoFingerprint(Exception):
    """An argument of a kind whose value cannot be fingerprinted."""


def _arguments_key(args, kwargs) -> tuple:
    """The fingerprints of the arguments; an array passed twice is marked as the same object
    (``kernels.squared_distances(X, X)`` sets the diagonal to exactly 0, which it does not
    for two equal arrays)."""
    seen: dict[int, int] = {}
    positional = tuple(_fingerprint(a, seen) for a in args)
    named = tuple(sorted((name, _fingerprint(v, seen)) for name, v in kwargs.items()))
    return positional, named


def _fingerprint(value, seen: dict[int, int]):
    if value is None or isinstance(value, bool | int | str | bytes):
        return type(value).__name__, value
    if isinstance(value, float):
        return "float", repr(value)
    if isinstance(value, np.generic):
        return "numpy", value.dtype.str, repr(value.item())
    if isinstance(value, np.dtype):
        return "dtype", value.str
    if isinstance(value, type):
        return "type", value.__module__, value.__qualname__
    if isinstance(value, tuple | list):
        return type(value).__name__, tuple(_fingerprint(v, seen) for v in value)
    if isinstance(value, np.ndarray) or sp.issparse(value):
        if id(value) in seen:
            return "same as argument", seen[id(value)]
        seen[id(value)] = len(seen)
        return _array_fingerprint(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (type(value).__qualname__,
                tuple(_fingerprint(getattr(value, f.name), seen)
                      for f in dataclasses.fields(value)))
    raise _NoFingerprint(type(value).__name__)


def _array_fingerprint(value) -> tuple:
    if sp.issparse(value):
        return ("sparse", value.format, value.shape,
                *(_array_fingerprint(np.asarray(getattr(value, part)))
                  for part in ("data", "indices", "indptr") if hasattr(value, part)))
    if value.dtype.kind not in "biufc":
        raise _NoFingerprint(f"array of {value.dtype}")
    order = "C" if value.flags.c_contiguous else "F" if value.flags.f_contiguous else "A"
    digest = hashlib.sha256(np.ascontiguousarray(value).data).hexdigest()
    return "array", value.shape, value.dtype.str, order, digest


def _parts(value):
    """The arrays and objects a result is made of (one level into tuples and objects)."""
    if isinstance(value, tuple | list):
        return list(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [getattr(value, f.name) for f in dataclasses.fields(value)]
    slots = getattr(type(value), "__slots__", ())
    if slots:
        return [getattr(value, name) for name in slots if hasattr(value, name)]
    return list(getattr(value, "__dict__", {}).values())


def _frozen(value):
    """``value`` with its arrays made read-only (sparse matrices: their data arrays)."""
    if isinstance(value, np.ndarray):
        value.flags.writeable = False
    elif sp.issparse(value):
        for part in ("data", "indices", "indptr"):
            if hasattr(value, part):
                getattr(value, part).flags.writeable = False
    else:
        for part in _parts(value):
            if isinstance(part, np.ndarray) or sp.issparse(part):
                _frozen(part)
    return value


def _nbytes(value) -> int:
    if isinstance(value, np.ndarray):
        return value.nbytes
    if sp.issparse(value):
        return sum(getattr(value, part).nbytes for part in ("data", "indices", "indptr")
                   if hasattr(value, part))
    return sum(_nbytes(part) for part in _parts(value)
               if isinstance(part, np.ndarray) or sp.issparse(part))
