"""Every local solver against the exact global minimum in one call (issue 35):
``compare_with_global_minimum`` and the gaps and basins ``GlobalComparison`` reads."""

import warnings

import pytest
from sklearn.exceptions import ConvergenceWarning

from s3vm_core import compare_with_global_minimum
from toy_data import pick_labeled, two_moons


def _moons(n, per_class=1, seed=0):
    X, y = two_moons(n, noise=0.1, random_state=seed)
    return X, y, pick_labeled(y, per_class, random_state=seed)


def test_one_call_compares_every_solver_with_the_global_minimum():
    X, _, labels = _moons(24, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        comparison = compare_with_global_minimum(X, labels, names=("svm", "cs3vm", "da"))
    exact = comparison.exact
    assert exact.proven_ and exact.init == () and set(comparison.seconds) == {
        "svm", "cs3vm", "da", "exact"}
    # the defaults were resolved once and given to every solver
    assert comparison.solvers["cs3vm"].sigma_ == exact.sigma_ and exact.sigma_ is not None
    for name, score in comparison.scores.items():
        assert (score.C, score.C_star) == (exact.C_, exact.C_star_)
        assert comparison.gap(name) >= -1e-9
        assert comparison.reached(name) == (comparison.gap(name) <= 1e-6)
        assert comparison.labeling_gap(name) >= -1e-9  # no basin is below the minimum
        assert comparison.labelings[name] == pytest.approx(
            exact.labeling_objective(comparison.solvers[name].transduction_))
    assert not comparison.reached("svm") and not comparison.found_basin("svm")
    # cS3VM's own f is never at the hinge objective's minimum (it minimizes exp(-3 t^2) for
    # the unlabeled loss), but here its labeling is an optimal one
    assert not comparison.reached("cs3vm") and comparison.found_basin("cs3vm")
    # for a solver that holds (3), its basin's bottom is below its own f
    assert comparison.labeling_gap("cs3vm") <= comparison.gap("cs3vm")


def test_a_string_is_one_solver_and_an_unknown_name_is_said():
    """Issue 40, item 3: names="svm" once compared the solvers 's', 'v', 'm'."""
    X, _, labels = _moons(12, seed=1)
    comparison = compare_with_global_minimum(X, labels, names="svm")
    assert set(comparison.solvers) == {"svm"} and comparison.exact.proven_
    with pytest.raises(ValueError, match=r"No solver named 'cs3vm' was compared; this "
                                         r"comparison holds 'svm' \(the exact solver is its "
                                         r"\.exact\)\."):
        comparison.gap("cs3vm")
    with pytest.raises(ValueError, match="No solver named 'exact'"):
        comparison.found_basin("exact")
    with pytest.raises(ValueError, match=r"Unknown solver name 'lds'; choose among 'svm', "):
        compare_with_global_minimum(X, labels, names=("svm", "lds"))
    with pytest.raises(TypeError, match="names must be a solver's name or a sequence of names"):
        compare_with_global_minimum(X, labels, names=3)
