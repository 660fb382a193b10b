"""The solver registry's forms: which form of a method the app runs at a size."""

import numpy as np

from s3vm_explorer.engine.registry import (
    GRAPH_NEIGHBORS,
    MDS_COMPONENTS,
    S4VM_SEARCHES,
    SCALABLE_ABOVE,
    SOLVERS,
    make_estimator,
    run_form,
)
from toy_data import pick_labeled, two_moons

ABOVE = SCALABLE_ABOVE + 1000


def test_the_rho_path_methods_keep_euclidean_distances_at_rho_zero():
    # rho = 0 makes the path distances Euclidean (LDS paper eq. (2)): a k-NN graph's shortest
    # paths are not those, and g50c and g10n (whose presets set rho = 0) lost their lesson
    params, note = run_form("GraphKernelSVM", ABOVE, {"rho": 0.0, "C": 1.0})
    assert params == {"rho": 0.0, "C": 1.0} and note is None  # no O(n^3) step left
    params, note = run_form("LDS", ABOVE, {"rho": 0.0})
    assert params == {"rho": 0.0, "max_components": MDS_COMPONENTS}
    assert "truncated eigensolver" in note and "graph" not in note
    params, note = run_form("LDS", ABOVE, {"rho": 8.0})
    assert params["n_neighbors"] == GRAPH_NEIGHBORS and "nearest-neighbour graph" in note


def test_below_the_size_and_with_the_linear_kernel_the_exact_method_runs():
    assert run_form("LDS", SCALABLE_ABOVE, {"rho": 8.0}) == ({"rho": 8.0}, None)
    assert run_form("GradientTSVM", ABOVE, {"kernel": "linear"}) == ({"kernel": "linear"}, None)


def test_every_scalable_form_runs_the_same_run_twice():
    # cS3VM drew its kernel PCA points anew on every fit: the same parameters gave 226-229
    # states from run to run, and a shared link did not reproduce the film
    X, y = two_moons(1200, noise=0.1, random_state=0)
    labels = pick_labeled(y, 1, random_state=0)
    for name in SOLVERS:
        params, note = run_form(name, len(X), {})
        if note is None:
            continue
        first, second = (make_estimator(name, params).fit(X, labels).decision_function(X)
                         for _ in range(2))
        assert np.array_equal(first, second), name


def test_the_solvers_said_to_take_the_balance_from_the_labels_are_the_librarys():
    """The registry's BALANCE_FROM_LABELS agrees with each estimator's own account."""
    from s3vm_explorer.engine.registry import SOLVERS
    from toy_data import pick_labeled, two_moons

    X, y = two_moons(30, noise=0.1, random_state=0)
    labels = pick_labeled(y, 2, random_state=0)
    for name, spec in SOLVERS.items():
        model = spec.estimator().fit(X, labels)
        assert (model._balance_from_labels() is not None) == spec.balance_from_labels, name


def test_s4vm_above_the_size_runs_fewer_searches_and_the_page_says_how_many():
    params, note = run_form("S4VM", ABOVE, {"sample_time": 100, "C1": 100.0})
    assert params == {"sample_time": S4VM_SEARCHES, "C1": 100.0}
    assert f"{S4VM_SEARCHES} of the paper's 100 local searches" in note
    assert run_form("S4VM", SCALABLE_ABOVE, {"sample_time": 100}) == ({"sample_time": 100}, None)
