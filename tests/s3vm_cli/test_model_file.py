"""The saved model: every solver comes back predicting what it predicted, and no file runs code
when it is loaded (issue 33, item 14)."""

import io
import json
import pickle
import re
import subprocess
import sys
import warnings
import zipfile
from pathlib import Path

import joblib
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from s3vm_cli.model_file import load_model, save_model
from s3vm_core import ESTIMATORS, OneVsRestS3VM, SVMBaseline
from toy_data import pick_labeled, two_moons

ROOT = Path(__file__).resolve().parents[2]
X, Y = two_moons(60, noise=0.1, random_state=0)
LABELS = pick_labeled(Y, 3, random_state=0)
X_NEW, _ = two_moons(25, noise=0.1, random_state=1)


def s3vm(*args, cwd):
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-m", "s3vm_cli", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def round_trip(model, tmp_path):
    save_model(tmp_path / "model.npz", model, classes=["a", "b"], n_features=2)
    return load_model(tmp_path / "model.npz")


def _cases():
    for name, cls in ESTIMATORS.items():
        yield pytest.param(cls(), id=name)
        if "kernel" in cls().get_params():
            yield pytest.param(cls(kernel="linear"), id=f"{name}-linear")


@pytest.mark.parametrize("model", list(_cases()))
def test_every_solver_predicts_the_same_after_loading(model, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, LABELS)
    loaded, info = round_trip(model, tmp_path)
    assert type(loaded) is type(model) and loaded.get_params() == model.get_params()
    assert info == {"classes": ["a", "b"], "n_features": 2}
    np.testing.assert_allclose(loaded.decision_function(X_NEW), model.decision_function(X_NEW),
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(loaded.transduction_, model.transduction_)


def test_one_vs_rest_and_sparse_models_round_trip(tmp_path):
    blobs = np.vstack([X, X + [4, 0]])
    labels = np.concatenate([LABELS, np.where(LABELS == -1, -1, LABELS + 2)])
    model = OneVsRestS3VM(ESTIMATORS["lapsvm"]()).fit(blobs, labels)
    loaded, _ = round_trip(model, tmp_path)
    new = blobs.copy()  # the training array itself would take the fitted model's cached kernel
    np.testing.assert_allclose(loaded.decision_function(new), model.decision_function(new),
                               rtol=1e-12, atol=1e-12)
    sparse = ESTIMATORS["da"](kernel="linear", loss="squared_hinge").fit(sp.csr_matrix(X),
                                                                          LABELS)
    loaded, _ = round_trip(sparse, tmp_path)
    np.testing.assert_allclose(loaded.decision_function(sp.csr_matrix(X_NEW)),
                               sparse.decision_function(sp.csr_matrix(X_NEW)), rtol=1e-12)


def test_what_the_format_does_not_keep_is_refused_with_its_place(tmp_path):
    model = ESTIMATORS["cs3vm"](random_state=np.random.RandomState(0)).fit(X, LABELS)
    with pytest.raises(TypeError, match=r"estimator\.random_state is a numpy.random.*RandomState"
                                        r", which a model file does not keep"):
        save_model(tmp_path / "model.npz", model)


class Payload:
    """What a hostile pickle does when it is loaded: here, create a file."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return open, (self.marker, "w")


def test_s3vm_predict_refuses_a_pickle_that_would_run_code(tmp_path):
    marker = tmp_path / "the pickle ran"
    joblib.dump({"estimator": Payload(marker), "classes": np.array([0, 1]), "n_features": 2,
                 "s3vm_model": 1}, tmp_path / "crafted.joblib")
    (tmp_path / "new.csv").write_text("1,2\n3,4\n")
    done = s3vm("predict", "crafted.joblib", "new.csv", cwd=tmp_path)
    assert done.returncode == 2 and not marker.exists()
    assert done.stderr.startswith("s3vm: crafted.joblib is not a model in s3vm's format")
    assert "--allow-unsafe-pickle" in done.stderr and len(done.stderr.splitlines()) == 1


def test_an_old_pickled_model_loads_behind_the_unsafe_flag(tmp_path):
    model = SVMBaseline().fit(X, LABELS)
    joblib.dump({"estimator": model, "classes": np.array(["down", "up"]), "n_features": 2,
                 "s3vm_model": 1}, tmp_path / "old.joblib")
    (tmp_path / "new.csv").write_text("\n".join(f"{a!r},{b!r}" for a, b in X_NEW.tolist()))
    refused = s3vm("predict", "old.joblib", "new.csv", "--predictions", "-", cwd=tmp_path)
    assert refused.returncode == 2 and refused.stdout == ""
    done = s3vm("predict", "old.joblib", "new.csv", "--predictions", "-",
                "--allow-unsafe-pickle", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == np.array(["down", "up"])[model.predict(X_NEW)].tolist()


def crafted_archive(path, tree, **arrays):
    text = json.dumps(tree).encode()
    with open(path, "wb") as handle:
        np.savez(handle, **{"model.json": np.frombuffer(text, dtype=np.uint8), **arrays})


def valid_tree(estimator):
    return {"format": "s3vm-model", "version": 1, "info": {"$dict": []},
            "estimator": estimator}


@pytest.mark.parametrize("estimator, message", [
    ({"$object": "subprocess:Popen", "id": 0, "state": {"$dict": []}},
     "'subprocess:Popen', which is not one of s3vm_core's"),
    ({"$object": "s3vm_core.x;import os:A", "id": 0, "state": None}, "not one of s3vm_core's"),
    ({"$object": "s3vm_core:np", "id": 0, "state": None}, "which this s3vm does not define"),
    ({"$object": "s3vm_core.base:S3VMClassifier.fit", "id": 0, "state": None},
     "which this s3vm does not define"),
    ({"$object": "s3vm_core.nothing_here:A", "id": 0, "state": None}, "does not have"),
    ({"$array": "a0"}, "a0"),
    ({"$float": "1e999"}, "the float"),
    ({"$call": "os.system"}, "an unknown tag"),
])
def test_a_crafted_archive_is_refused_with_a_sentence(tmp_path, estimator, message):
    crafted_archive(tmp_path / "m.npz", valid_tree(estimator))
    with pytest.raises(ValueError, match=r"is not a valid s3vm model file: .*" + (
            message.replace("(", r"\(").replace(")", r"\)").replace("$", r"\$"))):
        load_model(tmp_path / "m.npz")


def test_arrays_that_need_pickle_or_claim_more_than_they_hold_are_refused(tmp_path):
    tree = json.dumps(valid_tree({"$array": "a0"})).encode()
    with open(tmp_path / "objects.npz", "wb") as handle:
        np.savez(handle, **{"model.json": np.frombuffer(tree, dtype=np.uint8),
                            "a0": np.array([Payload(tmp_path / "ran")], dtype=object)})
    with pytest.raises(ValueError, match="a0.npy holds object, not numbers"):
        load_model(tmp_path / "objects.npz")
    assert not (tmp_path / "ran").exists()

    header = io.BytesIO()  # a 16-byte .npy whose header claims 8 TB of floats
    np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False,
                                                  "shape": (10**12,)})
    with zipfile.ZipFile(tmp_path / "huge.npz", "w") as archive:
        archive.writestr("model.json.npy", _npy(np.frombuffer(tree, dtype=np.uint8)))
        archive.writestr("a0.npy", header.getvalue() + b"\0" * 16)
    with pytest.raises(ValueError, match="a0.npy claims more data than it holds"):
        load_model(tmp_path / "huge.npz")


def _npy(array):
    out = io.BytesIO()
    np.save(out, array)
    return out.getvalue()


def test_a_model_is_read_from_a_regular_file_only(tmp_path):
    with pytest.raises(ValueError, match="/dev/zero is not a regular file"):
        load_model("/dev/zero")
    (tmp_path / "text.npz").write_bytes(pickle.dumps([1, 2]))
    with pytest.raises(ValueError, match="is not a model in s3vm's format"):
        load_model(tmp_path / "text.npz")


# -- the last hostile models (issue 40, item 9) -----------------------------------------------

SVM_STATE = "s3vm_core.solvers.svm:SVMBaseline"


@pytest.mark.parametrize("estimator, message", [
    ({"$object": SVM_STATE, "id": 0, "state": {"$dict": [["predict", 1]]}},
     "estimator sets predict, which is a method or a property of SVMBaseline"),
    ({"$object": SVM_STATE, "id": 0, "state": {"$dict": [["__class__", 1]]}},
     "estimator has the attribute name '__class__'"),
    ({"$object": SVM_STATE, "id": 0, "state": {"$dict": [["not a name", 1]]}},
     "estimator has the attribute name 'not a name'"),
    ({"$object": SVM_STATE, "id": 0, "state": {"$list": [1, 2]}},
     "estimator has a state of 2 values, not the fields of SVMBaseline"),
    ({"$object": SVM_STATE, "id": [0], "state": None}, "estimator is an object without a number"),
    ({"$scalar": "<i8", "v": 2**70}, "estimator is 1180591620717411303424, which is no int64"),
    ({"$scalar": "<u1", "v": -1}, "estimator is -1, which is no uint8 value"),
    ({"$scalar": "<i8", "v": "abc"}, "estimator is 'abc', which is no int64 value"),
    ({"$scalar": "zz", "v": 1}, "estimator names the dtype 'zz', which a model file does not"),
    ({"$dtype": "O"}, "estimator names the dtype 'O', which a model file does not keep"),
    ({"$ref": 7}, "estimator refers to the object 7, which the file does not define"),
    ({"$array": "a9"}, "estimator names the array 'a9', which the archive does not hold"),
    ({"$array": "model.json"}, "estimator names the array 'model.json', which the archive"),
    ({"$tuple": 5}, "estimator holds 5 where a list belongs"),
    ({"$dict": [[{"$list": [1]}, 2]]}, "estimator has the key [1], not a number or text"),
    ({"$dict": [[1, 2, 3]]}, "estimator has an entry that is not a (key, value) pair"),
    ({"$sparse": "csr_matrix", "id": 1, "shape": ["x", 2], "data": "a0", "indices": "a0",
      "indptr": "a0"}, "estimator is a sparse matrix of type 'csr_matrix' and shape ['x', 2]"),
    ({"$object": "s3vm_core.solvers.finite_newton:NewtonResult", "id": 0, "fields": [1]},
     "estimator is not a s3vm_core.solvers.finite_newton:NewtonResult (a named tuple of that "
     "many fields)"),
])
def test_a_damaged_tree_is_refused_with_where_and_what(tmp_path, estimator, message):
    crafted_archive(tmp_path / "m.npz", valid_tree(estimator))
    with pytest.raises(ValueError, match=r"is not a valid s3vm model file: " + re.escape(message)):
        load_model(tmp_path / "m.npz")


def test_nan_weights_are_said_to_be_a_damaged_file(tmp_path):
    save_model(tmp_path / "model.npz", SVMBaseline().fit(X, LABELS), classes=[0, 1],
               n_features=2)
    with np.load(tmp_path / "model.npz") as archive:
        arrays = {name: archive[name] for name in archive.files}
    tree = json.loads(arrays["model.json"].tobytes())
    name = dict(tree["estimator"]["state"]["$dict"])["coef_"]["$array"]
    arrays[name] = np.where(np.arange(arrays[name].size) == 3, np.nan, arrays[name])
    np.savez(tmp_path / "nan.npz", **arrays)
    with pytest.raises(ValueError, match=rf"estimator\.coef_ \(the array {name}\) holds numbers "
                                         r"that are not finite \(nan or inf\), which no fitted "
                                         r"model has: the file is damaged"):
        load_model(tmp_path / "nan.npz")


def test_an_exact_solver_model_saved_before_its_module_moved_still_loads(tmp_path):
    """0.1.0 wrote ``s3vm_core.global_opt:BranchAndBoundS3VM``; the class now lives in
    ``s3vm_core.solvers.bnb`` (CHANGELOG.md, 0.2.0)."""
    from s3vm_core import BranchAndBoundS3VM

    model = BranchAndBoundS3VM(max_time=5).fit(X[:20], LABELS[:20])
    save_model(tmp_path / "model.npz", model, classes=[0, 1], n_features=2)
    with np.load(tmp_path / "model.npz") as archive:
        arrays = {name: archive[name] for name in archive.files}
    text = arrays["model.json"].tobytes().decode()
    assert "s3vm_core.solvers.bnb:BranchAndBoundS3VM" in text
    old = text.replace("s3vm_core.solvers.bnb:", "s3vm_core.global_opt:").encode()
    np.savez(tmp_path / "old.npz", **{**arrays, "model.json": np.frombuffer(old, np.uint8)})
    loaded, _ = load_model(tmp_path / "old.npz")
    np.testing.assert_array_equal(loaded.predict(X_NEW), model.predict(X_NEW))


def test_arrays_of_every_kind_and_order_come_back_as_they_were(tmp_path):
    arrays = {"fortran": np.asfortranarray(np.arange(12.0).reshape(3, 4)),
              "big_endian": np.arange(5, dtype=">f8"), "flags": np.array([True, False]),
              "complex": np.array([1 + 2j]), "scalar": np.array(3.5), "empty": np.zeros((0, 3))}
    save_model(tmp_path / "m.npz", SVMBaseline(), **arrays)
    _, info = load_model(tmp_path / "m.npz")
    for name, array in arrays.items():
        assert info[name].dtype == array.dtype and info[name].shape == array.shape, name
        np.testing.assert_array_equal(info[name], array)
    assert info["fortran"].flags.f_contiguous


def _with_entry(path, name: str, data: bytes, compress_type=zipfile.ZIP_DEFLATED):
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr(name, data, compress_type=compress_type)


def _declared_size(path, name: str, size: int) -> None:
    """Make the archive say that ``name`` unpacks to ``size`` bytes (in its local header and in
    the central directory), whatever its stream holds."""
    data = bytearray(Path(path).read_bytes())
    encoded = name.encode()
    for signature, field in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        start = data.find(signature + b"")
        while start >= 0:
            name_at = start + (30 if signature == b"PK\x03\x04" else 46)
            if data[name_at:name_at + len(encoded)] == encoded:
                data[start + field:start + field + 4] = size.to_bytes(4, "little")
                break
            start = data.find(signature, start + 4)
    Path(path).write_bytes(bytes(data))


def test_only_the_entries_the_tree_names_are_unpacked_and_within_the_limit(tmp_path,
                                                                        monkeypatch):
    from s3vm_cli import model_file

    model = SVMBaseline().fit(X, LABELS)
    save_model(tmp_path / "model.npz", model, classes=[0, 1], n_features=2)
    # entries no tree names: one that says it unpacks to 4 GiB, one whose CRC fails; loading
    # unpacks neither
    _with_entry(tmp_path / "model.npz", "bomb.npy", b"\x00" * 100)
    _declared_size(tmp_path / "model.npz", "bomb.npy", 2**32 - 1)
    _with_entry(tmp_path / "model.npz", "junk.npy", b"not deflate", zipfile.ZIP_STORED)
    raw = bytearray((tmp_path / "model.npz").read_bytes())
    raw[raw.find(b"not deflate")] ^= 0xFF
    (tmp_path / "model.npz").write_bytes(bytes(raw))
    loaded, _ = load_model(tmp_path / "model.npz")
    np.testing.assert_allclose(loaded.decision_function(X_NEW), model.decision_function(X_NEW))

    # a named entry past the limit (2 MiB of zeros, 2 KiB deflated) is refused before it is
    # unpacked, by the archive's word for its size
    save_model(tmp_path / "big.npz", model, weights=np.zeros(2**18))
    with zipfile.ZipFile(tmp_path / "big.npz") as stored, zipfile.ZipFile(
            tmp_path / "deflated.npz", "w", zipfile.ZIP_DEFLATED) as deflated:
        for name in stored.namelist():
            deflated.writestr(name, stored.read(name))
    monkeypatch.setattr(model_file, "MAX_MODEL_BYTES", 2**20)
    with pytest.raises(ValueError, match=r"a\d+\.npy unpacks to 2\.0 MiB, more than the "
                                         r"[\d.]+ KiB left of the 1\.0 MiB a model may unpack in "
                                         r"all \(MAX_MODEL_BYTES\)"):
        load_model(tmp_path / "deflated.npz")


def test_an_archive_of_too_many_entries_is_refused_before_its_directory_is_read(
        tmp_path, monkeypatch):
    from s3vm_cli import model_file

    save_model(tmp_path / "model.npz", SVMBaseline().fit(X, LABELS), classes=[0, 1],
               n_features=2)
    assert load_model(tmp_path / "model.npz")  # its directory: well under a kilobyte an array
    monkeypatch.setattr(model_file, "MAX_DIRECTORY_BYTES", 2**12)
    with zipfile.ZipFile(tmp_path / "model.npz", "a") as archive:
        for i in range(100):
            archive.writestr(f"empty{i}", b"")
    with pytest.raises(ValueError, match=r"its archive's directory takes [\d.]+ KiB, more "
                                         r"than the 4\.0 KiB a model's may take "
                                         r"\(MAX_DIRECTORY_BYTES"):
        load_model(tmp_path / "model.npz")


def _lying_archive(path, entry: bytes, declared: int | None = None) -> None:
    """A model whose tree is the array ``a0``, its entry ``entry`` deflated; the archive says
    it unpacks to ``declared`` bytes."""
    tree = json.dumps(valid_tree({"$array": "a0"})).encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("model.json.npy", _npy(np.frombuffer(tree, dtype=np.uint8)))
        archive.writestr("a0.npy", entry)
    if declared is not None:
        _declared_size(path, "a0.npy", declared)


def test_an_archive_that_lies_about_an_entrys_size_unpacks_no_further_than_its_word(tmp_path):
    import tracemalloc

    array = _npy(np.arange(1000.0))
    # 16 MiB of zeros behind the array, the archive saying there is only the array: unpacking
    # stops at its word (a few kB held at most), and the entry is refused
    _lying_archive(tmp_path / "less.npz", array + bytes(2**24), len(array))
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=r"is not a valid s3vm model file: .*(Bad CRC|more "
                                             r"than the archive says)"):
            load_model(tmp_path / "less.npz")
        assert tracemalloc.get_traced_memory()[1] < 2**20
    finally:
        tracemalloc.stop()
    # the same said honestly: more data than the array's header claims is refused too
    _lying_archive(tmp_path / "trailing.npz", array + bytes(2**10))
    with pytest.raises(ValueError, match=r"a0\.npy holds more data than its array"):
        load_model(tmp_path / "trailing.npz")
    # it says less than the array's header claims
    _lying_archive(tmp_path / "short.npz", array, len(array) - 100)
    with pytest.raises(ValueError, match=r"a0\.npy claims more data than it holds"):
        load_model(tmp_path / "short.npz")
    # it says more than the stream holds: the word is only a bound; the array is whole
    _lying_archive(tmp_path / "more.npz", array, 2**20)
    estimator, _ = load_model(tmp_path / "more.npz")
    np.testing.assert_array_equal(estimator, np.arange(1000.0))


def test_a_file_object_where_a_path_belongs_is_said(tmp_path):
    save_model(tmp_path / "m.npz", SVMBaseline().fit(X, LABELS))
    with open(tmp_path / "m.npz", "rb") as handle, pytest.raises(
            TypeError, match=r"^load_model takes the model file's path \(str or os\.PathLike\), "
                             r"not BufferedReader"):
        load_model(handle)
    with open(tmp_path / "n.npz", "w") as handle, pytest.raises(
            TypeError, match=r"^save_model takes the model file's path .* not TextIOWrapper"):
        save_model(handle, SVMBaseline())
