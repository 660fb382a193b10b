"""``s3vm fit --help`` says each parameter's meaning, range and default, read from the library
itself (issue 36, item 9): the docstring's first sentence, the constraints, get_params()."""

import pytest

from s3vm_cli import main
from s3vm_cli.parameters import meanings, value_range
from s3vm_core import ESTIMATORS


@pytest.fixture(scope="module")
def fit_help():
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as done:
        main(["fit", "--help"])
    assert done.value.code == 0
    return " ".join(out.getvalue().split())  # the wrapping's line breaks as spaces


def test_the_papers_parameters_are_explained_with_their_ranges(fit_help):
    for line in [
        "gamma_A = 1e-06; float in [1e-10, 1e10]: Weight of the ambient (RKHS) norm alpha^T K "
        "alpha in (7).",
        "lam = 0.001; float in [1e-08, 10000]: lambda of eq. (5), weight of the RKHS norm.",
        "R = 1.5; float in (1, inf): Annealing rate, T <- T / R (Table 1).",
        "n_gamma = 11; int in [2, 100]: Number of smoothing values:",
        "loss = 'hinge'; {hinge, squared, squared_hinge}: V of §3.1:",
        "stopping = None; {grad_norm, grad_norm_preconditioned, mixed, mixed_product, objective, "
        "stability, validation} or None: PCG goal condition",
    ]:
        assert line in fit_help, line


@pytest.mark.parametrize("short", list(ESTIMATORS))
def test_every_parameter_of_every_solver_is_in_the_help(fit_help, short):
    cls = ESTIMATORS[short]
    assert f"{short} ({cls.__name__}):" in fit_help
    about = meanings(cls)
    for name, default in cls().get_params().items():
        kind = value_range(cls._parameter_constraints[name])
        assert kind, name  # every parameter has a constraint to read its range from
        assert f"{name} = {default!r}; {kind}" in fit_help, name
        if about.get(name):  # a parameter its docstring describes: its first sentence
            assert f"{name} = {default!r}; {kind}: {about[name][:40]}" in fit_help, name
