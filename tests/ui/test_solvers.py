"""The solver registry's forms: which form of a method the app runs at a size."""

from ui.solvers import GRAPH_NEIGHBORS, MDS_COMPONENTS, SCALABLE_ABOVE, run_form

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
