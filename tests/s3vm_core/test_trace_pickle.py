"""A state survives pickling (the app's solvers run in child processes) still frozen."""

import pickle

import numpy as np
import pytest

from s3vm_core import DeterministicAnnealingS3VM
from toy_data import pick_labeled, two_moons


def test_a_pickled_state_comes_back_equal_and_read_only():
    X, y = two_moons(n_samples=40, noise=0.1, random_state=0)
    labels = pick_labeled(y, 1, random_state=0)
    state = next(s for s in DeterministicAnnealingS3VM().trace(X, labels) if "p" in s.extras)
    back = pickle.loads(pickle.dumps(state))
    assert back.step == state.step and back.stage == state.stage
    np.testing.assert_array_equal(back.coef, state.coef)
    np.testing.assert_array_equal(back.extras["p"], state.extras["p"])
    assert back.extras["entropy"] == state.extras["entropy"]
    for array in (back.coef, back.train_decision, back.extras["p"]):
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 1.0
    with pytest.raises(TypeError):
        back.extras["p"] = None
