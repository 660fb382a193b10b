"""No parameter can hang a fit (issue 15, "Hangs"): LIBSVM stops at an iteration cap with a
ConvergenceWarning, and parameters whose cost explodes are refused with a sentence saying why."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from s3vm_core import (
    LDS,
    QNS3VM,
    ContinuationS3VM,
    DeterministicAnnealingS3VM,
    GradientTSVM,
    GraphKernelSVM,
    LabelSwitchingTSVM,
    LapRLSC,
    LapSVM,
    SVMBaseline,
)
from s3vm_core.solvers import svm, weighted_hinge
from toy_data import pick_labeled, two_moons


@pytest.fixture(scope="module")
def app_default_data():
    """The app's first data set: two moons, n = 200, seed 0, one label per class."""
    X, y = two_moons(200, noise=0.1, random_state=0)
    return X, pick_labeled(y, 1, random_state=0), y


@pytest.fixture(scope="module")
def small():
    X, y = two_moons(40, noise=0.1, random_state=0)
    return X, pick_labeled(y, 2, random_state=0)


def _fit_recording(model, X, y):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        model.fit(X, y)
    return [str(w.message) for w in caught if issubclass(w.category, ConvergenceWarning)]


@pytest.mark.timeout(120)  # a safety net: unbounded, this fit ran for more than 9 minutes
def test_annealing_with_a_tiny_lam_finishes_and_says_what_stopped_it(app_default_data):
    # With LIBSVM as the hinge f-step this ran into its iteration cap at every temperature;
    # the warm-started active set settles each f-step (0.5 s in all), and what is left to
    # say is that the entropy did not fall below eps within max_stages temperatures.
    X, labels, _ = app_default_data
    model = DeterministicAnnealingS3VM(lam=1e-8)
    messages = _fit_recording(model, X, labels)
    assert any("max_stages" in m or ("iteration cap" in m and "lam" in m) for m in messages)
    assert np.all(np.isfinite(model.decision_function(X)))


@pytest.mark.parametrize("params", [{"lam": 1e-300}, {"lam_u": 1e300}, {"lam": 1e-9},
                                    {"lam_u": 2**63}])
def test_annealing_weights_beyond_the_bounds_are_refused_with_the_reason(small, params):
    (name,) = params
    with pytest.raises(ValueError, match=rf"'{name}' parameter of DeterministicAnnealingS3VM "
                                         r"must be a float in the range \[1e-08, 10000\]") as error:
        DeterministicAnnealingS3VM(**params).fit(*small)
    assert "paper" in str(error.value)


@pytest.mark.parametrize(
    "model",
    [SVMBaseline(C=1.0), GraphKernelSVM(C=1.0), LabelSwitchingTSVM(C=1.0),
     DeterministicAnnealingS3VM(max_stages=2)],
    ids=lambda m: type(m).__name__,
)
def test_every_libsvm_solve_stops_at_its_cap_with_a_convergence_warning(small, monkeypatch,
                                                                        model):
    # A cap of one iteration stops every LIBSVM solve of these estimators early. Label
    # switching and DA call LIBSVM only where their warm-started active set does not settle:
    # here it never does.
    monkeypatch.setattr(svm, "_LIBSVM_MIN_ITER", 1)
    monkeypatch.setattr(svm, "LIBSVM_ITER_PER_POINT", 0)
    monkeypatch.setattr(weighted_hinge.WeightedHingeDual, "solve",
                        lambda self, c_plus, c_minus, start=None: weighted_hinge.DualSolution(
                            np.zeros(c_plus.size), 0.0, False, None, start, 0))
    X, labels = small
    messages = _fit_recording(model, X, labels)
    assert any("LIBSVM stopped at its iteration cap" in m for m in messages)
    assert np.all(np.isfinite(model.decision_function(X)))


def test_libsvm_on_the_papers_parameters_stays_below_its_cap(app_default_data):
    X, labels, _ = app_default_data
    for model in (SVMBaseline(), LabelSwitchingTSVM(), DeterministicAnnealingS3VM(lam=1e-4)):
        assert not any("LIBSVM" in m for m in _fit_recording(model, X, labels))


@pytest.mark.parametrize(
    ("model", "reason"),
    [
        (LapSVM(p=2**63), "sparse product"),
        (LapRLSC(p=11), "sparse product"),
        (ContinuationS3VM(n_gamma=2**63), "L-BFGS"),
        (ContinuationS3VM(n_gamma=101), "L-BFGS"),
        (QNS3VM(m=2**63), "L-BFGS keeps"),
        (QNS3VM(max_iter=2**63), "hang"),
        (GradientTSVM(max_iter=10**6), "hang"),
        (DeterministicAnnealingS3VM(max_stages=2**63), "hang"),
        (LapSVM(max_iter=10**9), "hang"),
        (DeterministicAnnealingS3VM(eps=1e-300), "only run into max_iter"),
    ],
    ids=lambda v: type(v).__name__ if not isinstance(v, str) else v,
)
def test_parameters_whose_cost_explodes_are_refused_with_the_reason(small, model, reason):
    with pytest.raises(ValueError, match="must be an? (int|float) in the range") as error:
        model.fit(*small)
    assert reason in str(error.value)


def test_an_alpha_sequence_of_a_million_stages_is_refused(small):
    with pytest.raises(ValueError, match=r"give 1 to 100 positive.*one more L-BFGS run"):
        QNS3VM(alphas=np.linspace(0.01, 1.0, 10**6)).fit(*small)


def test_a_temperature_schedule_below_floating_point_is_refused(small):
    with pytest.raises(ValueError, match=r"max_stages.*1e-250"):
        DeterministicAnnealingS3VM(R=1e10, max_stages=60).fit(*small)
    with pytest.raises(ValueError, match=r"T0=1e-300"):
        DeterministicAnnealingS3VM(T0=1e-300).fit(*small)


@pytest.mark.parametrize("model", [LapSVM(p=10), LapRLSC(p=10)], ids=lambda m: type(m).__name__)
def test_the_largest_laplacian_degree_still_fits(small, model):
    X, labels = small
    model.fit(X, labels)
    assert np.all(np.isfinite(model.decision_function(X)))


# -- a kernel matrix that would not fit names the solver's own scalable form (issue 16) ------


@pytest.mark.parametrize(("make", "said", "scalable"), [
    (GradientTSVM, "n_components=300", dict(n_components=20)),
    (ContinuationS3VM, "n_components=300", dict(n_components=20)),
    (QNS3VM, "n_landmarks=200", dict(n_landmarks=20)),
    (LabelSwitchingTSVM, "kernel='linear'", dict(kernel="linear")),
    (DeterministicAnnealingS3VM, "kernel='linear'", dict(kernel="linear", loss="squared_hinge")),
    (LapSVM, "kernel='linear' with solver='pcg'", dict(kernel="linear", solver="pcg")),
])
def test_a_kernel_matrix_too_large_names_the_form_that_fits(monkeypatch, make, said, scalable):
    from s3vm_core import problem

    # 1200 points and room for 1100 x 1100: the defaults' 1000-point sample fits, K does not
    monkeypatch.setattr(problem, "MAX_DENSE_BYTES", 8 * 1100 * 1100)
    X, y = two_moons(1200, noise=0.1, random_state=0)
    labels = pick_labeled(y, 2, random_state=0)
    # (DA's hinge counts its doubled kernel matrix: 2396 x 2396, 4 points labeled)
    with pytest.raises(ValueError, match=rf"(1200|2396) x \1 .*GiB of memory.*{said}"):
        make().fit(X, labels)
    model = make(**scalable)
    _fit_recording(model, X, labels)  # the way out fits
    assert np.mean(model.transduction_ != y) < 0.5


# -- every stage or iteration limit says it was hit (docs/architecture.md, "Nothing silent") --


def test_annealing_at_r_1_01_says_it_stopped_at_its_60_temperature_limit(app_default_data):
    # the run: T0 = 10 / 1.01^59 = 5.56 at the last temperature, the entropy still
    # far above eps; the film showed "(final)" and only the terminal said why
    X, labels, _ = app_default_data
    model = DeterministicAnnealingS3VM(R=1.01)
    messages = _fit_recording(model, X, labels)
    assert any("after max_stages = 60 temperatures" in m and "Increase max_stages or eps" in m
               for m in messages), messages
    assert model.T_ >= 10 / 1.01**59 * 0.999


@pytest.mark.parametrize(("model", "said"), [
    (ContinuationS3VM(max_iter=1), "cS3VM stopped L-BFGS at max_iter=1"),
    (QNS3VM(max_iter=1), "QN-S3VM stopped L-BFGS at max_iter=1"),
    (GradientTSVM(max_iter=1), "GradientTSVM stopped L-BFGS at max_iter=1"),
    (LDS(max_iter=1), "LDS stopped L-BFGS at max_iter=1"),
    (DeterministicAnnealingS3VM(max_iter=1), "did not reach KL < eps = 1e-06 in max_iter = 1"),
    (DeterministicAnnealingS3VM(max_stages=2), "after max_stages = 2 temperatures"),
    (LapSVM(solver="pcg", max_iter=2), "PCG stopped at max_iter=2"),
    (LapRLSC(solver="pcg", max_iter=2), "PCG stopped at max_iter=2"),
    (LabelSwitchingTSVM(max_iter=2), "stopped after max_iter=2 SVM retrainings"),
], ids=lambda v: repr(v) if not isinstance(v, str) else "")
def test_every_solvers_iteration_limit_warns_naming_it(small, model, said):
    # (LIBSVM's cap inside SVMBaseline, GraphKernelSVM, label switching and DA: above)
    X, labels = small
    messages = _fit_recording(model, X, labels)
    assert any(said in m for m in messages), messages
