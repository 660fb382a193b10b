"""Every estimator x every numeric hyperparameter x extreme values, and x extreme data.

Issue 15 asks for the whole family of each case that broke. Each run must end in one of two
ways a user can act on: a fit whose every state, decision and prediction is finite, or a
``ValueError``/``TypeError`` whose message is a sentence naming the parameter (or the data's
problem) — no numpy/scipy internals, no runaway numbers — and never a stray RuntimeWarning.
"""

import re
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval

import s3vm_core
from s3vm_core.base import S3VMClassifier
from toy_data import pick_labeled, two_moons

ESTIMATORS = {name: getattr(s3vm_core, name) for name in s3vm_core.__all__
              if isinstance(getattr(s3vm_core, name), type)
              and issubclass(getattr(s3vm_core, name), S3VMClassifier)}

#: Each estimator's other solvers and losses: every numeric parameter is tried on each.
VARIANTS = {
    "DeterministicAnnealingS3VM": [{}, {"loss": "squared_hinge"}, {"loss": "squared"}],
    "LapSVM": [{}, {"solver": "pcg"}],
    "LapRLSC": [{}, {"solver": "pcg"}],
    "ContinuationS3VM": [{}, {"loss": "squared_hinge"}],
    "QNS3VM": [{}, {"kernel": "linear"}],
}

#: The parameters that only act in another setting, and that setting.
ACTS_WITH = {
    "degree": {"kernel": "poly"},
    "coef0": {"kernel": "poly"},
    "tol": {"solver": "pcg", "stopping": "stability"},
    "check_every": {"solver": "pcg", "stopping": "stability"},
}

EXTREMES = [0, -1.0, 1e-300, 1e300, np.inf, np.nan, True, 2**63]


def _numeric_parameters(cls):
    return [name for name, constraints in cls._parameter_constraints.items()
            if any(isinstance(c, Interval) or c == "array-like" for c in constraints)]


def _parameter_cases():
    for name, cls in ESTIMATORS.items():
        accepted = cls().get_params()
        for parameter in _numeric_parameters(cls):
            setting = {k: v for k, v in ACTS_WITH.get(parameter, {}).items() if k in accepted}
            for base in [setting] if setting else VARIANTS.get(name, [{}]):
                label = f"{name}({', '.join(f'{k}={v!r}' for k, v in base.items())})"
                for value in EXTREMES:
                    yield pytest.param(cls, base, parameter, value,
                                       id=f"{label}-{parameter}={value!r}")


def _moons():
    X, y = two_moons(40, noise=0.1, random_state=0)
    return X, pick_labeled(y, 2, random_state=0)


X_SMALL, LABELS = _moons()

#: Words that give away a message written for a programmer rather than for the user.
INTERNALS = re.compile(r"numpy|scipy(?!\.sparse)|\bnp\.(?!inf\b)|array must|reshape|dtype|ufunc|"
                       r"int64\(|float64\(|Traceback|object of type")


def assert_fits_or_explains(model, X, y, names):
    """The contract of the module docstring; ``names`` are the words a refusal must contain
    (one of them)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # from numpy and scipy as well
        warnings.simplefilter("ignore", ConvergenceWarning)
        try:
            states = list(model.trace(X, y))
        except (ValueError, TypeError) as error:
            message = str(error)
            assert message.rstrip().endswith("."), message
            # the name as a word of its own: "p" or "s" inside other words proves nothing
            assert any(re.search(rf"(?<!\w){re.escape(name)}(?!\w)", message)
                       for name in names), message
            assert not INTERNALS.search(message), message
            assert not re.search(r"\d{21}", message), message
            return
        assert states and states[-1].event == "final"
        for state in states:
            assert np.all(np.isfinite(state.train_decision)), state
            assert np.all(np.isfinite(state.coef)) and np.isfinite(state.intercept), state
            assert np.isfinite(state.objective), state
        decision = model.decision_function(X)
        assert np.all(np.isfinite(decision))
        assert set(model.predict(X)) <= set(model.classes_)


@pytest.mark.parametrize(("cls", "base", "parameter", "value"), list(_parameter_cases()))
def test_every_numeric_parameter_at_its_extremes(cls, base, parameter, value):
    model = cls(**base, **{parameter: value})
    assert_fits_or_explains(model, X_SMALL, LABELS, [parameter])


def _data_cases():
    X, y = X_SMALL, LABELS
    with_nan = X.copy()
    with_nan[3, 1] = np.nan
    one_class = np.where(y == 1, -1, y)
    return {
        "scaled 1e160": (X * 1e160, y, ["X"]),
        "scaled 1e-200": (X * 1e-200, y, ["X"]),
        "scaled 1e40": (X * 1e40, y, ["X", "rho"]),
        "scaled 1e-40": (X * 1e-40, y, ["X"]),
        "far from the origin": (X + 1e8, y, ["X"]),
        "coincident": (np.ones_like(X), y, ["coincide"]),
        "duplicated": (np.repeat(X[:20], 2, axis=0), np.repeat(y[:20], 2), ["coincide"]),
        "one class labeled": (X, one_class, ["each class"]),
        "nothing labeled": (X, np.full_like(y, -1), ["labeled"]),
        "NaN": (with_nan, y, ["NaN"]),
        "infinity": (np.where(with_nan != with_nan, np.inf, with_nan), y, ["infinite"]),
        "two points": (X[[0, 1]], np.array([0, 1]), ["n_neighbors", "points"]),
        "string -1": (X, y.astype(str), ["'-1'"]),
    }


DATA = _data_cases()


def _data_variants(name):
    """The estimator's variants, and its other kernels: the data's scale acts through them."""
    variants = VARIANTS.get(name, [{}])
    if "kernel" in ESTIMATORS[name]().get_params():
        variants = variants + [{"kernel": "linear"}, {"kernel": "poly"}]
    return list({tuple(v.items()): v for v in variants}.values())


@pytest.mark.parametrize("case", list(DATA))
@pytest.mark.parametrize(
    ("name", "variant"),
    [(name, variant) for name in ESTIMATORS for variant in _data_variants(name)],
    ids=lambda v: v if isinstance(v, str) else ",".join(f"{k}={x}" for k, x in v.items()),
)
def test_every_estimator_on_extreme_data(name, variant, case):
    X, y, names = DATA[case]
    assert_fits_or_explains(ESTIMATORS[name](**variant), X, y, names)


def test_the_matrix_covers_every_estimator_and_many_parameters():
    cases = list(_parameter_cases())
    assert {p.values[0] for p in cases} == set(ESTIMATORS.values())
    assert len({(p.values[0], p.values[2]) for p in cases}) > 80


# -- raw messages left by issue 33, item 8: each now a sentence saying what is wrong ----------


def assert_sentence(error, *words):
    """A message for the user: a sentence that holds ``words``, without numpy's or Python's
    internals or a runaway number."""
    message = str(error.value)
    assert message.rstrip().endswith("."), message
    for word in words:
        assert word in message, message
    assert not INTERNALS.search(message), message
    assert not re.search(r"\d{21}", message), message
    assert not re.search(r"not supported between|label type: unknown|has no meaning|could not "
                         r"convert|out of bounds|too large to convert", message), message


HUGE = 2**1100  # an int that float64 cannot hold


@pytest.mark.parametrize(("cls", "parameter", "setting"), [
    (s3vm_core.SVMBaseline, "sigma", {}),
    (s3vm_core.SVMBaseline, "coef0", {"kernel": "poly"}),
    (s3vm_core.GradientTSVM, "tol", {}),
    (s3vm_core.LDS, "rho", {}),
    (s3vm_core.LapSVM, "graph_sigma", {}),
    (s3vm_core.DeterministicAnnealingS3VM, "R", {}),
    (s3vm_core.DeterministicAnnealingS3VM, "eps", {}),
])
def test_an_integer_beyond_floating_point_is_refused_naming_the_parameter(cls, parameter,
                                                                          setting):
    with pytest.raises(ValueError) as error:
        cls(**setting, **{parameter: HUGE}).fit(X_SMALL, LABELS)
    assert_sentence(error, f"'{parameter}' parameter of {cls.__name__}", "332 digits",
                    "beyond the largest number floating point holds")


def _three_classes(labels=LABELS):
    y = labels.copy()
    y[np.flatnonzero(y == -1)[:2]] = 2
    return y


def test_one_vs_rest_with_labels_mixing_numbers_and_strings_gets_the_binary_sentence():
    y = _three_classes().astype(object)
    y[y == 1] = "b"
    with pytest.raises(ValueError) as binary:
        s3vm_core.SVMBaseline().fit(X_SMALL, np.where(y == 2, -1, y))
    with pytest.raises(ValueError) as error:
        s3vm_core.OneVsRestS3VM(s3vm_core.SVMBaseline()).fit(X_SMALL, y)
    assert_sentence(error, "mix numbers and strings", "'b'", "Write every class the same way")
    assert str(binary.value).split(" (")[0] == str(error.value).split(" (")[0]


@pytest.mark.parametrize("one_vs_rest", [False, True])
def test_boolean_labels_beside_minus_one_are_refused(one_vs_rest):
    y = (LABELS == 1).astype(object)
    y[LABELS == -1] = -1
    model = s3vm_core.SVMBaseline()
    with pytest.raises(ValueError) as error:
        (s3vm_core.OneVsRestS3VM(model) if one_vs_rest else model).fit(X_SMALL, y)
    assert_sentence(error, "booleans (False, True)", "True is 1 and False is 0",
                    "Write the classes as 0 and 1")


@pytest.mark.parametrize("one_vs_rest", [False, True])
def test_fractional_labels_are_refused_as_measurements(one_vs_rest):
    y = np.where(LABELS == -1, -1, LABELS + 0.5)
    model = s3vm_core.SVMBaseline()
    with pytest.raises(ValueError) as error:
        (s3vm_core.OneVsRestS3VM(model) if one_vs_rest else model).fit(X_SMALL, y)
    assert_sentence(error, "0.5, 1.5", "not whole numbers", "Give each class a whole number")


@pytest.mark.parametrize(("truth", "words"), [
    (np.array(["a", "b"])[np.maximum(LABELS, 0)], ["None of the labels in y ('a', 'b')",
                                                   "a class of this model (0, 1)"]),
    (np.maximum(LABELS, 0) + 0.5, ["0.5, 1.5", "not whole numbers"]),
], ids=["strings", "fractions"])
def test_score_with_labels_of_another_kind_says_so(truth, words):
    model = s3vm_core.SVMBaseline().fit(X_SMALL, LABELS)
    with pytest.raises(ValueError) as error:
        model.score(X_SMALL, truth)
    assert_sentence(error, *words)


@pytest.mark.parametrize("call", ["fit", "one-vs-rest fit", "predict"])
def test_a_word_inside_x_is_named(call):
    X = X_SMALL.astype(object)
    X[3, 1] = "abc"
    with pytest.raises(ValueError) as error:
        if call == "fit":
            s3vm_core.SVMBaseline().fit(X, LABELS)
        elif call == "one-vs-rest fit":
            s3vm_core.OneVsRestS3VM(s3vm_core.SVMBaseline()).fit(X, _three_classes())
        else:
            s3vm_core.SVMBaseline().fit(X_SMALL, LABELS).predict(X)
    assert_sentence(error, "X must hold numbers only", "'abc'")


def test_one_vs_rest_inside_one_vs_rest_is_refused():
    nested = s3vm_core.OneVsRestS3VM(s3vm_core.OneVsRestS3VM(s3vm_core.SVMBaseline()))
    with pytest.raises(ValueError) as error:
        nested.fit(X_SMALL, _three_classes())
    assert_sentence(error, "One is enough", "pass the binary estimator itself")


def test_no_worker_is_refused():
    with pytest.raises(ValueError) as error:
        s3vm_core.OneVsRestS3VM(s3vm_core.SVMBaseline(), n_jobs=0).fit(X_SMALL,
                                                                     _three_classes())
    assert_sentence(error, "'n_jobs' parameter of OneVsRestS3VM is 0", "-1 for every core")
