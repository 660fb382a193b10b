"""A trace abandoned half-way, then a new fit: no fitted attribute of an older run survives.

Fitted attributes are set before the loop (``_setup``) and after it (``_postprocess``) only,
and ``trace()`` removes every one of an earlier fit when it starts (s3vm_core/base.py).
"""

from __future__ import annotations

import dataclasses
import warnings
from itertools import islice

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning, NotFittedError

import s3vm_core
from s3vm_core.base import S3VMClassifier
from toy_data import pick_labeled, two_moons

#: Per estimator, the parameters of the first (complete) fit and of the later ones; they differ
#: where a fitted attribute exists for some settings only (LapSVM's stop_iterations_ is PCG's).
SETTINGS = {
    "SVMBaseline": ({"kernel": "linear"}, {}),
    "GradientTSVM": ({"n_components": 20}, {"kernel": "linear"}),
    "LDS": ({"rho": 2.0}, {"rho": 8.0, "n_neighbors": 10}),
    "GraphKernelSVM": ({"sigma": np.inf}, {}),
    "LabelSwitchingTSVM": ({"switching": "multi"},
                           {"kernel": "linear", "loss": "squared_hinge"}),
    "ContinuationS3VM": ({"finish_unsmoothed": True}, {"n_components": 20, "random_state": 0}),
    "QNS3VM": ({"n_landmarks": 20, "random_state": 0}, {"kernel": "linear"}),
    "DeterministicAnnealingS3VM": ({"max_stages": 6},
                                   {"kernel": "linear", "loss": "squared_hinge",
                                    "max_stages": 6}),
    "LapSVM": ({"solver": "pcg", "stopping": "stability"}, {}),
    "LapRLSC": ({"solver": "pcg"}, {}),
    "BranchAndBoundS3VM": ({"init": ("cs3vm",)}, {"init": (), "C": 10.0}),
    "S4VM": ({"kernel": "linear", "sample_time": 10}, {"sample_time": 10, "random_state": 0}),
}


def _moons(seed: int, n: int = 60):
    X, y = two_moons(n_samples=n, noise=0.1, random_state=seed)
    return X, pick_labeled(y, 3, random_state=seed)


def _fitted(estimator) -> dict:
    """scikit-learn's fitted attributes: the public names ending in an underscore."""
    return {name: value for name, value in vars(estimator).items()
            if name.endswith("_") and not name.startswith("_")}


def _same(a, b) -> bool:
    if sp.issparse(a) or sp.issparse(b):
        return sp.issparse(a) and sp.issparse(b) and a.shape == b.shape and (a != b).nnz == 0
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(a, b, equal_nan=True)
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if type(a) is not type(b):
        return False
    if dataclasses.is_dataclass(a):
        return all(_same(getattr(a, f.name), getattr(b, f.name))
                   for f in dataclasses.fields(a))
    if hasattr(type(a), "__slots__"):
        return all(_same(getattr(a, name), getattr(b, name)) for name in type(a).__slots__)
    if hasattr(a, "__dict__"):
        return _same(vars(a), vars(b))
    return a == b or (a != a and b != b)  # nan equals nan here


def _assert_same_attributes(estimator, reference) -> None:
    ours, theirs = _fitted(estimator), _fitted(reference)
    assert ours.keys() == theirs.keys(), (
        f"left over: {sorted(ours.keys() - theirs.keys())}, "
        f"missing: {sorted(theirs.keys() - ours.keys())}")
    different = [name for name in ours if not _same(ours[name], theirs[name])]
    assert not different, f"these differ from a fresh estimator's: {different}"


def test_every_estimator_of_the_library_is_covered():
    estimators = {name for name in s3vm_core.__all__
                  if isinstance(getattr(s3vm_core, name), type)
                  and issubclass(getattr(s3vm_core, name), S3VMClassifier)}
    assert estimators == set(SETTINGS)


@pytest.mark.parametrize("name", sorted(SETTINGS))
def test_an_abandoned_trace_and_a_new_fit_leave_nothing_of_the_older_runs(name):
    cls = getattr(s3vm_core, name)
    first, later = SETTINGS[name]
    (X1, y1), (X2, y2), (X3, y3) = _moons(1), _moons(2), _moons(3, n=70)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        estimator = cls(**first).fit(X1, y1)
        estimator.set_params(**{**cls().get_params(), **later})

        trace = estimator.trace(X2, y2)
        assert len(list(islice(trace, 2))) == 2
        del trace  # abandoned half-way: the loop never ends
        # Only what the new run resolved before its loop, exactly as a fresh start has it,
        # and no model: neither the first fit's nor a half-made one.
        started = cls(**later)
        started_trace = started.trace(X2, y2)
        _assert_same_attributes(estimator, started)
        del started_trace
        with pytest.raises(NotFittedError):
            estimator.predict(X2)

        estimator.fit(X3, y3)
        fresh = cls(**later).fit(X3, y3)
        _assert_same_attributes(estimator, fresh)
        np.testing.assert_array_equal(estimator.decision_function(X3),
                                      fresh.decision_function(X3))
