"""The saved model: every solver comes back predicting what it predicted, and no file runs code
when it is loaded (issue 33, item 14)."""

import io
import json
import pickle
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
    with open(tmp_path / "objects.npz", "wb") as handle:
        np.savez(handle, **{"model.json": np.frombuffer(b"{}", dtype=np.uint8),
                            "a0": np.array([Payload(tmp_path / "ran")], dtype=object)})
    with pytest.raises(ValueError, match="a0.npy holds object, not numbers"):
        load_model(tmp_path / "objects.npz")
    assert not (tmp_path / "ran").exists()

    header = io.BytesIO()  # a 16-byte .npy whose header claims 8 TB of floats
    np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False,
                                                  "shape": (10**12,)})
    with zipfile.ZipFile(tmp_path / "huge.npz", "w") as archive:
        archive.writestr("model.json.npy", _npy(np.frombuffer(b"{}", dtype=np.uint8)))
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
