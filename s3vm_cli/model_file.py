"""A saved model that cannot run code when it is loaded: arrays and JSON of our own.

A model file is an ``.npz`` archive (a zip of ``.npy`` arrays, numpy's own format) that holds

* ``model.json``: the format's name and version, what the command line keeps beside the model
  (its classes, number of features, feature names, solver), and the fitted estimator as a tree
  of plain values: numbers, strings, lists, tuples, dicts, references to the arrays below,
  scipy.sparse matrices by their three arrays, and objects of ``s3vm_core``'s own classes by
  their import path and attributes;
* one array per ndarray of the estimator (numbers or booleans only).

Loading reads the arrays with ``numpy.load(allow_pickle=False)`` and rebuilds the objects
without calling any code the file names: a class is accepted only when it is defined in the
``s3vm_core`` package (the trusted list is the project's own types), it is created with
``__new__`` and its attributes are set, as ``pickle`` would, minus pickle's freedom to call any
function. Everything else (a pickle, a class of another package, an object array, an array
whose header claims more bytes than the archive holds) is refused with a ``ValueError``.

A pickle (joblib) made by an older version of the command is loaded only by
``load_model(path, allow_unsafe_pickle=True)`` (``s3vm predict --allow-unsafe-pickle``): a
pickle can run any code when it is loaded.
"""

from __future__ import annotations

import importlib
import io
import json
import math
import re
import zipfile
from pathlib import Path

import numpy as np
import scipy.sparse as sp

#: The format's name and version, written in ``model.json``.
FORMAT, VERSION = "s3vm-model", 1
#: Largest model file read (bytes, as it lies on disk and unpacked): a kernel model keeps its
#: training points and often its n x n kernel matrix (16,000 points: 2 GB).
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
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{path} is not a regular file: a model is read from a file "
                         "(not a pipe or a device).")
    size = path.stat().st_size
    if size > MAX_MODEL_BYTES:
        raise ValueError(f"{path} is {size / 2**30:.1f} GiB, more than the "
                         f"{MAX_MODEL_BYTES / 2**30:.0f} GiB a model may take (MAX_MODEL_BYTES).")
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
        return _Reader(path).read()
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError,
            zipfile.BadZipFile, EOFError) as error:  # what a damaged or crafted file raises
        raise ValueError(f"{path} is not a valid s3vm model file: "
                         f"{' '.join(str(error).split())[:200]}") from None


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
    def __init__(self, path: Path):
        self.path = path
        self.objects: dict[int, object] = {}

    def read(self):
        with zipfile.ZipFile(self.path) as archive:
            entries = {info.filename: info for info in archive.infolist()}
            unpacked = sum(info.file_size for info in entries.values())
            if unpacked > MAX_MODEL_BYTES:
                raise ValueError(f"its arrays unpack to {unpacked / 2**30:.1f} GiB, more than "
                                 "MAX_MODEL_BYTES")
            if "model.json.npy" not in entries:
                raise ValueError("it has no model.json")
            self.arrays = {name[:-4]: self._array(archive, info)
                           for name, info in entries.items() if name.endswith(".npy")}
        text = self.arrays.pop("model.json")
        if text.dtype != np.uint8 or text.ndim != 1 or text.size > MAX_JSON_BYTES:
            raise ValueError("its model.json is not a byte string of at most 64 MiB")
        tree = json.loads(text.tobytes().decode("utf-8"))
        if not isinstance(tree, dict) or tree.get("format") != FORMAT:
            raise ValueError("its model.json does not name the s3vm-model format")
        if tree.get("version") != VERSION:
            raise ValueError(f"it is version {tree.get('version')!r} of the format; this s3vm "
                             f"reads version {VERSION}")
        info = self.decode(tree["info"])
        estimator = self.decode(tree["estimator"])
        if not isinstance(info, dict):
            raise ValueError("its info is not a mapping")
        return estimator, info

    def _array(self, archive: zipfile.ZipFile, entry: zipfile.ZipInfo) -> np.ndarray:
        """One ``.npy`` entry, its header checked against the bytes it unpacks to before the
        array is allocated."""
        with archive.open(entry) as handle:
            version = np.lib.format.read_magic(handle)
            if version == (1, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_1_0(handle)
            elif version == (2, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_2_0(handle)
            else:
                raise ValueError(f"{entry.filename} is of .npy version {version}")
            if dtype.kind not in "biufc" or dtype.hasobject:
                raise ValueError(f"{entry.filename} holds {dtype}, not numbers")
            if math.prod(shape) * dtype.itemsize > entry.file_size:
                raise ValueError(f"{entry.filename} claims more data than it holds")
        with archive.open(entry) as handle:
            return np.lib.format.read_array(io.BytesIO(handle.read()), allow_pickle=False)

    def decode(self, value):
        if value is None or isinstance(value, bool | int | float | str):
            return value
        if isinstance(value, list):
            raise ValueError("a bare list where a tagged value belongs")
        if not isinstance(value, dict):
            raise TypeError(f"an unexpected {type(value).__name__}")
        if "$float" in value:
            if value["$float"] not in ("nan", "inf", "-inf"):
                raise ValueError(f"the float {value['$float']!r}")
            return float(value["$float"])
        if "$scalar" in value:
            dtype = np.dtype(value["$scalar"])
            if dtype.kind not in "biuf":
                raise ValueError(f"a scalar of {dtype}")
            return dtype.type(self.decode(value["v"]))
        if "$dtype" in value:
            dtype = np.dtype(value["$dtype"])
            if dtype.hasobject:
                raise ValueError("an object dtype")
            return dtype
        if "$ref" in value:
            return self.objects[value["$ref"]]
        if "$array" in value:
            return self.arrays[value["$array"]]
        if "$list" in value:
            return [self.decode(v) for v in value["$list"]]
        if "$tuple" in value:
            return tuple(self.decode(v) for v in value["$tuple"])
        if "$dict" in value:
            return {self.decode(k): self.decode(v) for k, v in value["$dict"]}
        if "$sparse" in value:
            cls = SPARSE_TYPES[value["$sparse"]]
            shape = tuple(int(n) for n in value["shape"])
            matrix = cls((self.arrays[value["data"]], self.arrays[value["indices"]],
                          self.arrays[value["indptr"]]), shape=shape)
            matrix.check_format(full_check=True)
            self.objects[value["id"]] = matrix
            return matrix
        if "$object" in value:
            return self._object(value)
        raise ValueError(f"an unknown tag {sorted(value)[:3]}")

    def _object(self, value):
        """An object of a trusted class, rebuilt as ``pickle`` would (``__new__``, then its
        ``__setstate__`` or its attributes set), without calling anything the file names."""
        cls = _trusted_class(value["$object"])
        if "fields" in value:  # a NamedTuple
            if not (issubclass(cls, tuple) and hasattr(cls, "_fields")):
                raise ValueError(f"{value['$object']} is not a named tuple")
            obj = tuple.__new__(cls, [self.decode(v) for v in value["fields"]])
            self.objects[value["id"]] = obj
            return obj
        obj = cls.__new__(cls)
        self.objects[value["id"]] = obj  # before its state: the state may refer back to it
        state = self.decode(value["state"])
        if hasattr(obj, "__setstate__"):
            obj.__setstate__(state)
            return obj
        attributes, slots = state if isinstance(state, tuple) else (state, None)
        for name, attribute in (attributes or {}).items():
            obj.__dict__[_attribute_name(name)] = attribute
        for name, attribute in (slots or {}).items():
            object.__setattr__(obj, _attribute_name(name), attribute)
        return obj


def _attribute_name(name):
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"the attribute name {name!r}")
    return name


def _trusted_class(path) -> type:
    """The class ``module:qualname`` names, when the trusted package defines it."""
    if not isinstance(path, str) or path.count(":") != 1:
        raise ValueError(f"the class name {path!r}")
    module_name, qualname = path.split(":")
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
