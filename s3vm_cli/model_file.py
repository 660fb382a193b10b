"""A saved model that cannot run code when it is loaded: arrays and JSON of our own.

A model file is an ``.npz`` archive (a zip of ``.npy`` arrays, numpy's own format) that holds

* ``model.json``: the format's name and version, what the command line keeps beside the model
  (its classes, number of features, feature names, solver, and the standardization it was
  fitted after: each feature's mean and scale, two arrays below, or none), and the fitted
  estimator as a tree of plain values: numbers, strings, lists, tuples, dicts, references to
  the arrays below, scipy.sparse matrices by their three arrays, and objects of
  ``s3vm_core``'s own classes by their import path and attributes;
* one array per ndarray of the estimator (numbers or booleans only).

Loading unpacks ``model.json`` and then only the arrays its tree names, each once, with numpy's
own ``.npy`` header reader and never pickle, into an array allocated from that header: what it
unpacks is bounded by ``MAX_MODEL_BYTES`` in all (the archive's word for an entry's size is
checked before it is unpacked, and its bytes are counted as they come, in case the word lies).
An entry the tree does not name (a zip bomb beside a model) is never unpacked, and an archive
whose directory exceeds ``MAX_DIRECTORY_BYTES`` (millions of empty entries) is refused before
the directory is read. The objects are
rebuilt without calling any code the file names: a class is accepted only when it is defined
in the ``s3vm_core`` package (the trusted list is the project's own types), it is created with
``__new__`` and its attributes are set, as ``pickle`` would, minus pickle's freedom to call any
function. Everything else is refused with a ``ValueError`` whose sentence says what is wrong
and where in the tree: a pickle, a class of another package, an attribute that would hide a
method or a property of its class (a ``predict`` set to 1), an object array, an array whose
header claims more bytes than the archive holds, an array of numbers that are not all finite
(no fitted model holds nan or inf in an array: such a file is damaged), a numpy scalar out of
its type's range, a reference to an array or an object the file does not hold.

A pickle (joblib) made by an older version of the command is loaded only by
``load_model(path, allow_unsafe_pickle=True)`` (``s3vm predict --allow-unsafe-pickle``): a
pickle can run any code when it is loaded.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import json
import math
import os
import re
import types
import zipfile
import zlib
from pathlib import Path

import numpy as np
import scipy.sparse as sp

#: The format's name and version, written in ``model.json``.
FORMAT, VERSION = "s3vm-model", 1
#: Largest model file read (bytes, as it lies on disk, and what loading unpacks of it in all):
#: a kernel model keeps its training points and often its n x n kernel matrix (16,000 points:
#: 2 GB).
MAX_MODEL_BYTES = 4 * 2**30
#: Largest ``model.json`` read (bytes).
MAX_JSON_BYTES = 64 * 2**20
#: The package whose classes a model file may name.
TRUSTED_PACKAGE = "s3vm_core"
#: The sparse formats kept as they are (their three arrays and shape).
SPARSE_TYPES = {cls.__name__: cls for cls in (sp.csr_matrix, sp.csc_matrix, sp.csr_array,
                                              sp.csc_array)}

_DOTTED = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")
_ZIP_MAGIC = b"PK\x03\x04"


def save_model(path, estimator, **info) -> None:
    """Write ``estimator`` (and the JSON-able ``info``) to ``path`` in the format above.

    Raises ``TypeError`` naming the attribute when the estimator holds something the format
    does not keep (a callable kernel, a random generator object, a class of another package).
    """
    _check_path(path, "save_model")
    writer = _Writer()
    tree = {"format": FORMAT, "version": VERSION, "info": writer.encode(info, "info"),
            "estimator": writer.encode(estimator, "estimator")}
    text = json.dumps(tree, allow_nan=False, separators=(",", ":")).encode()
    arrays = {"model.json": np.frombuffer(text, dtype=np.uint8), **writer.arrays}
    with open(path, "wb") as handle:
        np.savez(handle, **arrays)


def load_model(path, *, allow_unsafe_pickle: bool = False):
    """``(estimator, info)`` from a model file written by ``save_model``.

    ``allow_unsafe_pickle=True`` also loads a pickle (joblib) file of an older version, a dict
    with the key ``"estimator"``; never do so for a file you did not make yourself.
    """
    path = Path(_check_path(path, "load_model"))
    if not path.is_file():
        raise ValueError(f"{path} is not a regular file: a model is read from a file "
                         "(not a pipe or a device).")
    size = path.stat().st_size
    if size > MAX_MODEL_BYTES:
        raise ValueError(f"{path} is {_size(size)}, more than the {_size(MAX_MODEL_BYTES)} a "
                         "model may take (MAX_MODEL_BYTES).")
    with open(path, "rb") as handle:
        magic = handle.read(4)
    if magic != _ZIP_MAGIC:
        if allow_unsafe_pickle:
            return _load_pickle(path)
        raise ValueError(
            f"{path} is not a model in s3vm's format (an .npz archive of arrays and JSON). If it "
            "is a pickle (.joblib, .pkl) saved by an older s3vm, loading it can run any code it "
            "holds: do so only for a file you made yourself, with --allow-unsafe-pickle, and "
            "save the model again."
        )
    try:
        _check_directory(path)
        with zipfile.ZipFile(path) as archive:
            return _Reader(archive).read()
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError,
            zipfile.BadZipFile, EOFError, zlib.error, RuntimeError) as error:
        # what a damaged or crafted file raises (RuntimeError: too deep a tree, an encrypted
        # entry, an unknown compression)
        raise ValueError(f"{path} is not a valid s3vm model file: "
                         f"{' '.join(str(error).split())[:200]}.") from None


#: Largest directory of a model archive (bytes): under 100 bytes an entry, one entry an array
#: (a one-vs-rest model of MAX_CLASSES = 100 classes holds about 600). Checked in the archive's
#: end record before the directory is read: one of millions of empty entries would take
#: gigabytes once read.
MAX_DIRECTORY_BYTES = 4 * 2**20
_END, _END64, _LOCATOR64 = b"PK\x05\x06", b"PK\x06\x06", b"PK\x06\x07"


def _check_directory(path: Path) -> None:
    """Refuse an archive whose directory is larger than ``MAX_DIRECTORY_BYTES``, by its size
    in the end record (zip64's record when there is one), which ``zipfile`` reads whole and
    parses entry by entry; a missing record is left to ``zipfile`` to refuse."""
    with open(path, "rb") as handle:
        end = handle.seek(0, os.SEEK_END)
        handle.seek(max(0, end - 2**16 - 22))  # the record and its comment, at most 64 KiB
        tail = handle.read()
    at = len(tail) - 22 if tail[-22:].startswith(_END) else tail.rfind(_END)
    if at < 0 or len(tail) < at + 22:
        return
    size = int.from_bytes(tail[at + 12:at + 16], "little")
    if at >= 76 and tail[at - 20:at].startswith(_LOCATOR64) and (
            tail[at - 76:at - 20].startswith(_END64)):  # where zipfile looks for zip64's
        size = int.from_bytes(tail[at - 76 + 40:at - 76 + 48], "little")
    if size > MAX_DIRECTORY_BYTES:
        raise ValueError(f"its archive's directory takes {_size(size)}, more than the "
                         f"{_size(MAX_DIRECTORY_BYTES)} a model's may take "
                         "(MAX_DIRECTORY_BYTES; a model has one entry an array)")


def _check_path(path, function: str):
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"{function} takes the model file's path (str or os.PathLike), not "
                        f"{type(path).__name__}: an archive is read and written by its path.")
    return path


def _load_pickle(path: Path):
    import joblib

    try:
        saved = joblib.load(path)
    except Exception as error:  # noqa: BLE001 - whatever the unpickler says, it is no model
        raise ValueError(f"{path} is neither an s3vm model file nor a pickle that loads "
                         f"({type(error).__name__}).") from None
    if not isinstance(saved, dict) or "estimator" not in saved:
        raise ValueError(f"{path} is a pickle, but not a model saved by `s3vm fit --model`.")
    info = {key: value for key, value in saved.items() if key != "estimator"}
    return saved["estimator"], info


# -- writing ------------------------------------------------------------------------------


class _Writer:
    """Encodes a value as JSON, its arrays set aside under names ``a0, a1, ...``. An object or
    an array met twice is written once: the second time by reference (``{"$ref": k}``, the
    array's name), so that what the estimator shares stays shared."""

    def __init__(self):
        self.arrays: dict[str, np.ndarray] = {}
        self._array_names: dict[int, str] = {}
        # id -> (number, the object): the object is held so that its id stays its own
        self._objects: dict[int, tuple[int, object]] = {}

    def encode(self, value, where: str):
        if value is None or isinstance(value, bool | str):
            return value
        if isinstance(value, int) and not isinstance(value, np.generic):
            return value
        if isinstance(value, float):
            return value if math.isfinite(value) else {"$float": repr(value)}
        if isinstance(value, np.generic):
            if value.dtype.kind not in "biuf":
                raise TypeError(f"{where} is a numpy {value.dtype} scalar, which a model file "
                                "does not keep.")
            return {"$scalar": value.dtype.str, "v": self.encode(value.item(), where)}
        if isinstance(value, np.dtype):
            return {"$dtype": value.str}
        if isinstance(value, np.ndarray):
            return {"$array": self._array(value, where)}
        if id(value) in self._objects:
            return {"$ref": self._objects[id(value)][0]}
        cls = type(value)
        if SPARSE_TYPES.get(cls.__name__) is cls:
            return {"$sparse": cls.__name__, "id": self._number(value),
                    "shape": list(value.shape), "data": self._array(value.data, where),
                    "indices": self._array(value.indices, where),
                    "indptr": self._array(value.indptr, where)}
        if cls is list:
            return {"$list": [self.encode(v, f"{where}[{i}]") for i, v in enumerate(value)]}
        if cls is tuple:
            return {"$tuple": [self.encode(v, f"{where}[{i}]") for i, v in enumerate(value)]}
        if cls is dict:
            return {"$dict": [[self.encode(k, where), self.encode(v, _item(where, k))]
                              for k, v in value.items()]}
        path = _class_path(cls)
        if path is None:
            raise TypeError(f"{where} is a {cls.__module__}.{cls.__qualname__}, which a model "
                            f"file does not keep (it keeps arrays, numbers, text and the "
                            f"classes of {TRUSTED_PACKAGE}).")
        if isinstance(value, tuple):  # a NamedTuple of ours
            return {"$object": path, "id": self._number(value), "fields": [
                self.encode(v, f"{where}.{name}")
                for name, v in zip(value._fields, value, strict=True)]}
        number = self._number(value)  # before its state, which may refer back to it
        return {"$object": path, "id": number,
                "state": self.encode(value.__getstate__(), where)}

    def _number(self, value) -> int:
        number = len(self._objects)
        self._objects[id(value)] = (number, value)
        return number

    def _array(self, array: np.ndarray, where: str) -> str:
        if array.dtype.kind not in "biufc":
            raise TypeError(f"{where} is an array of {array.dtype}, which a model file does not "
                            "keep (numbers and booleans only).")
        if id(array) not in self._array_names:
            name = f"a{len(self.arrays)}"
            self.arrays[name] = array
            self._array_names[id(array)] = name
            self._objects[id(array)] = (-1, array)  # held, so that its id stays its own
        return self._array_names[id(array)]


def _item(where: str, key) -> str:
    """Where an entry of a dict is, as a user names it (an attribute reads ``a.b``)."""
    return f"{where}.{key}" if isinstance(key, str) and key.isidentifier() else (
        f"{where}[{key!r}]")


def _class_path(cls) -> str | None:
    """``module:qualname`` of a class of the trusted package, else None."""
    module, name = cls.__module__, cls.__qualname__
    if not (module == TRUSTED_PACKAGE or module.startswith(TRUSTED_PACKAGE + ".")):
        return None
    if not _DOTTED.match(name):  # a class defined inside a function cannot be found again
        return None
    return f"{module}:{name}"


# -- reading ------------------------------------------------------------------------------


class _Reader:
    """Rebuilds ``(estimator, info)`` from an open archive. Only ``model.json`` and the arrays
    its tree names are unpacked, each once, counted as it is unpacked: an entry the tree does
    not name is never read, and what is read stops at ``MAX_MODEL_BYTES`` in all."""

    def __init__(self, archive: zipfile.ZipFile):
        self.archive = archive
        self.entries = {info.filename: info for info in archive.infolist()}
        self.arrays: dict[str, np.ndarray] = {}
        self.objects: dict[int, object] = {}
        self.unpacked = 0  # bytes unpacked so far, of every entry read

    def read(self):
        json_entry = self.entries.get("model.json.npy")
        if json_entry is None:
            raise ValueError("it has no model.json")
        not_json = ValueError("its model.json is not a byte string of at most 64 MiB")
        if json_entry.file_size > MAX_JSON_BYTES + _NPY_HEADER_BYTES:
            raise not_json  # refused before it is unpacked
        text = self._entry("model.json")
        if text.dtype != np.uint8 or text.ndim != 1 or text.size > MAX_JSON_BYTES:
            raise not_json
        tree = json.loads(text.tobytes().decode("utf-8"))
        if not isinstance(tree, dict) or tree.get("format") != FORMAT:
            raise ValueError("its model.json does not name the s3vm-model format")
        if tree.get("version") != VERSION:
            raise ValueError(f"it is version {_short(tree.get('version'))} of the format; this "
                             f"s3vm reads version {VERSION}")
        if "info" not in tree or "estimator" not in tree:
            raise ValueError("its model.json lacks the info or the estimator")
        info = self.decode(tree["info"], "info")
        if not isinstance(info, dict):
            raise ValueError("its info is not a mapping")
        return self.decode(tree["estimator"], "estimator"), info

    def _entry(self, name: str) -> np.ndarray:
        """The array of the entry ``name.npy``, unpacked no further than what is left of
        ``MAX_MODEL_BYTES``: the archive's word for its size is checked first, and the bytes
        are counted as they come, in case that word lies."""
        entry = self.entries[f"{name}.npy"]
        left = MAX_MODEL_BYTES - self.unpacked
        if entry.file_size > left:
            raise ValueError(f"{entry.filename} unpacks to {_size(entry.file_size)}, more than "
                             f"the {_size(left)} left of the {_size(MAX_MODEL_BYTES)} a model "
                             "may unpack in all (MAX_MODEL_BYTES)")
        with self.archive.open(entry) as handle:
            counted = _Counted(handle, entry.file_size, entry.filename)
            version = np.lib.format.read_magic(counted)
            if version == (1, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_1_0(counted)
            elif version == (2, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_2_0(counted)
            else:
                raise ValueError(f"{entry.filename} is of .npy version {version}")
            if dtype.kind not in "biufc" or dtype.hasobject:
                raise ValueError(f"{entry.filename} holds {dtype}, not numbers")
            size = math.prod(shape)
            if any(n < 0 for n in shape):
                raise ValueError(f"{entry.filename} has the shape {_short(shape)}")
            if size * dtype.itemsize > counted.left:
                raise ValueError(f"{entry.filename} claims more data than it holds")
            flat = np.empty(size, dtype=dtype)
            counted.fill(memoryview(flat.view(np.uint8)))
            if counted.read(1):
                raise ValueError(f"{entry.filename} holds more data than its array")
        self.unpacked += counted.count
        return flat.reshape(shape, order="F" if fortran else "C")

    def _array(self, name, where: str) -> np.ndarray:
        if not isinstance(name, str) or f"{name}.npy" not in self.entries or (
                name == "model.json"):
            raise ValueError(f"{where} names the array {_short(name)}, which the archive does "
                             "not hold")
        if name not in self.arrays:
            array = self._entry(name)
            if array.dtype.kind in "fc" and not _all_finite(array):
                raise ValueError(f"{where} (the array {name}) holds numbers that are not finite "
                                 "(nan or inf), which no fitted model has: the file is damaged")
            self.arrays[name] = array
        return self.arrays[name]

    def decode(self, value, where: str):
        if value is None or isinstance(value, bool | int | float | str):
            return value
        if isinstance(value, list):
            raise ValueError(f"{where} is a bare list where a tagged value belongs")
        if not isinstance(value, dict):
            raise ValueError(f"{where} is an unexpected {type(value).__name__}")
        if "$float" in value:
            if value["$float"] not in ("nan", "inf", "-inf"):
                raise ValueError(f"{where} is the float {_short(value['$float'])}")
            return float(value["$float"])
        if "$scalar" in value:
            return self._scalar(value, where)
        if "$dtype" in value:
            return _dtype(value["$dtype"], "biufcmMSU", where)
        if "$ref" in value:
            number = value["$ref"]
            if not _is_int(number) or number not in self.objects:
                raise ValueError(f"{where} refers to the object {_short(number)}, which the "
                                 "file does not define before")
            return self.objects[number]
        if "$array" in value:
            return self._array(value["$array"], where)
        if "$list" in value:
            return [self.decode(v, f"{where}[{i}]")
                    for i, v in enumerate(_items(value["$list"], where))]
        if "$tuple" in value:
            return tuple(self.decode(v, f"{where}[{i}]")
                         for i, v in enumerate(_items(value["$tuple"], where)))
        if "$dict" in value:
            return self._dict(value["$dict"], where)
        if "$sparse" in value:
            return self._sparse(value, where)
        if "$object" in value:
            return self._object(value, where)
        raise ValueError(f"{where} has an unknown tag {_short(sorted(value)[:3])}")

    def _scalar(self, value, where: str):
        """A numpy scalar, refused when its value does not fit its type (2**70 in int64)."""
        dtype = _dtype(value["$scalar"], "biuf", where)
        number = self.decode(value.get("v"), where)
        fits = (isinstance(number, bool) if dtype.kind == "b" else
                _is_int(number) and np.iinfo(dtype).min <= number <= np.iinfo(dtype).max
                if dtype.kind in "iu" else
                isinstance(number, int | float) and not isinstance(number, bool) and (
                    not math.isfinite(number) or abs(number) <= np.finfo(dtype).max))
        if not fits:
            raise ValueError(f"{where} is {_short(number)}, which is no {dtype.name} value")
        return dtype.type(number)

    def _dict(self, pairs, where: str) -> dict:
        out = {}
        for pair in _items(pairs, where):
            if not isinstance(pair, list) or len(pair) != 2:
                raise ValueError(f"{where} has an entry that is not a (key, value) pair")
            key = self.decode(pair[0], where)
            if not isinstance(key, str | int | float | bool | type(None)):
                raise ValueError(f"{where} has the key {_short(key)}, not a number or text")
            out[key] = self.decode(pair[1], _item(where, key))
        return out

    def _sparse(self, value, where: str):
        cls = SPARSE_TYPES.get(value["$sparse"]) if isinstance(value["$sparse"], str) else None
        shape = value.get("shape")
        if cls is None or not _is_int(value.get("id")) or not (
                isinstance(shape, list) and len(shape) == 2 and all(
                    _is_int(n) and 0 <= n < 2**63 for n in shape)):
            raise ValueError(f"{where} is a sparse matrix of type {_short(value['$sparse'])} and "
                             f"shape {_short(shape)}, which the format does not write")
        arrays = [self._array(value.get(part), f"{where}.{part}")
                  for part in ("data", "indices", "indptr")]
        try:
            matrix = cls(tuple(arrays), shape=tuple(shape))
            matrix.check_format(full_check=True)
        except (ValueError, TypeError, IndexError, OverflowError) as error:
            raise ValueError(f"{where} is a damaged sparse matrix "
                             f"({' '.join(str(error).split())[:80]})") from None
        self.objects[value["id"]] = matrix
        return matrix

    def _object(self, value, where: str):
        """An object of a trusted class, rebuilt as ``pickle`` would (``__new__``, then its
        ``__setstate__`` or its attributes set), without calling anything the file names; an
        attribute may not hide a method or a property of its class (a ``predict`` set to 1)."""
        cls = _trusted_class(value["$object"])
        if not _is_int(value.get("id")):
            raise ValueError(f"{where} is an object without a number")
        if "fields" in value:  # a NamedTuple
            fields = _items(value["fields"], where)
            if not (issubclass(cls, tuple) and hasattr(cls, "_fields")) or (
                    len(fields) != len(cls._fields)):
                raise ValueError(f"{where} is not a {value['$object']} (a named tuple of "
                                 "that many fields)")
            obj = tuple.__new__(cls, [self.decode(v, f"{where}.{name}")
                                      for name, v in zip(cls._fields, fields, strict=True)])
            self.objects[value["id"]] = obj
            return obj
        if issubclass(cls, tuple):
            raise ValueError(f"{where} is a {value['$object']} without its fields")
        obj = cls.__new__(cls)
        self.objects[value["id"]] = obj  # before its state: the state may refer back to it
        state = self.decode(value.get("state"), where)
        if isinstance(state, list):  # a slotted dataclass's own state: its fields in order
            if not (dataclasses.is_dataclass(cls) and "__setstate__" in vars(cls) and (
                    len(state) == len(dataclasses.fields(cls)))):
                raise ValueError(f"{where} has a state of {len(state)} "
                                 f"{'value' if len(state) == 1 else 'values'}, not the fields "
                                 f"of {cls.__name__}")
            obj.__setstate__(state)
            return obj
        attributes, slots = state if isinstance(state, tuple) and len(state) == 2 else (state,
                                                                                        None)
        for part in (attributes, slots):
            if not isinstance(part, dict | type(None)):
                raise ValueError(f"{where} has a state that is not a mapping of attributes")
            for name in part or ():
                _check_attribute(cls, name, where)
        if hasattr(obj, "__setstate__"):
            if state:  # as pickle: a false state is not set
                obj.__setstate__(state)
            return obj
        for name, attribute in (attributes or {}).items():
            obj.__dict__[name] = attribute
        for name, attribute in (slots or {}).items():
            object.__setattr__(obj, name, attribute)
        return obj


class _Counted:
    """An entry's stream, read no further than ``left`` bytes (what the archive says it holds
    and the limit allow): a stream that goes on past them is refused, not read."""

    def __init__(self, handle, left: int, name: str):
        self.handle, self.left, self.name, self.count = handle, left, name, 0

    def read(self, size: int) -> bytes:
        data = self.handle.read(min(size, self.left + 1))
        self._counted(len(data))
        return data

    def fill(self, buffer: memoryview) -> None:
        """``buffer`` filled from the stream, a chunk at a time (no copy of the whole)."""
        done = 0
        while done < len(buffer):
            n = self.handle.readinto(buffer[done:done + _CHUNK_BYTES])
            if not n:
                raise ValueError(f"{self.name} ends before its array does")
            self._counted(n)
            done += n

    def _counted(self, n: int) -> None:
        self.count += n
        self.left -= n
        if self.left < 0:
            raise ValueError(f"{self.name} unpacks to more than the archive says it holds")


#: Bytes a ``.npy`` header may take beyond its data (numpy's own bound is 10,000).
_NPY_HEADER_BYTES = 2**16
#: Bytes unpacked or checked at a time.
_CHUNK_BYTES = 2**20


def _all_finite(array: np.ndarray) -> bool:
    flat = array.reshape(-1, order="A")
    return all(np.isfinite(flat[i:i + _CHUNK_BYTES]).all()
               for i in range(0, flat.size, _CHUNK_BYTES))


def _items(value, where: str) -> list:
    if not isinstance(value, list):
        raise ValueError(f"{where} holds {_short(value)} where a list belongs")
    return value


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _dtype(text, kinds: str, where: str) -> np.dtype:
    """The dtype ``text`` names, of one of ``kinds`` (numbers, booleans, times)."""
    try:
        dtype = np.dtype(text) if isinstance(text, str) and len(text) < 20 else None
    except TypeError:
        dtype = None
    if dtype is None or dtype.kind not in kinds or dtype.fields is not None or dtype.subdtype:
        raise ValueError(f"{where} names the dtype {_short(text)}, which a model file does "
                         "not keep")
    return dtype


def _short(value) -> str:
    """A value of the file as a message quotes it: its repr, cut."""
    text = repr(value)
    return text if len(text) <= 60 else text[:60] + "..."


def _size(n: int) -> str:
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} bytes"


def _check_attribute(cls, name, where: str) -> None:
    """An attribute name a file may set: an identifier, not a special name, and not the name
    of a method or a property of the class, which the attribute would hide or run."""
    if not isinstance(name, str) or not name.isidentifier() or name.startswith("__"):
        raise ValueError(f"{where} has the attribute name {_short(name)}")
    defined = inspect.getattr_static(cls, name, None)
    if isinstance(defined, types.MemberDescriptorType):  # a slot: an attribute's own place
        return
    if callable(defined) or hasattr(type(defined), "__get__"):
        raise ValueError(f"{where} sets {name}, which is a method or a property of "
                         f"{cls.__name__}, not an attribute a model file may set")


#: Modules of earlier versions that moved, and where their classes live now: a model saved
#: by 0.1.0 still loads (``s3vm_core.global_opt`` was split in 0.2.0, CHANGELOG.md).
MOVED_MODULES = {"s3vm_core.global_opt": "s3vm_core.solvers.bnb"}


def _trusted_class(path) -> type:
    """The class ``module:qualname`` names, when the trusted package defines it."""
    if not isinstance(path, str) or path.count(":") != 1:
        raise ValueError(f"the class name {path!r}")
    module_name, qualname = path.split(":")
    module_name = MOVED_MODULES.get(module_name, module_name)
    if not (_DOTTED.match(module_name) and _DOTTED.match(qualname)) or not (
            module_name == TRUSTED_PACKAGE or module_name.startswith(TRUSTED_PACKAGE + ".")):
        raise ValueError(f"the class {path!r}, which is not one of {TRUSTED_PACKAGE}'s")
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        raise ValueError(f"the class {path!r}, whose module this s3vm does not have") from None
    cls = module
    for part in qualname.split("."):
        cls = getattr(cls, part, None)
    if not isinstance(cls, type) or cls.__module__ != module_name or (
            cls.__qualname__ != qualname):
        raise ValueError(f"the class {path!r}, which this s3vm does not define")
    return cls
