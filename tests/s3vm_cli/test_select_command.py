"""``s3vm select`` (issue 36, item 3): the library's grid search on the labeled points, as a table,
the chosen model in the safe format, and one-line errors for bad grids. In process, on files in a
temporary folder (the entry point the console script runs)."""

import re
import warnings

import numpy as np
import pytest

from s3vm_cli import main
from s3vm_core import (
    ESTIMATORS,
    GradientTSVM,
    LabeledStratifiedKFold,
    LapSVM,
    OneVsRestS3VM,
    S3VMGridSearchCV,
    UnlabeledDidNotHelpWarning,
    default_grid,
)
from s3vm_core.model_selection import GRID_AXES
from toy_data import g10n, pick_labeled, two_moons


def write_csv(path, X, labels):
    rows = ["x1,x2,label"] + [f"{a!r},{b!r},{'' if label == -1 else label}"
                              for (a, b), label in zip(X.tolist(), labels.tolist(), strict=True)]
    path.write_text("\n".join(rows) + "\n")


@pytest.fixture
def moons(tmp_path, monkeypatch):
    """Two moons, 3 labels a class, in ``moons.csv`` (classes 0 and 1: the file's class codes
    are the library's labels)."""
    X, y = two_moons(150, noise=0.1, random_state=0)
    labels = pick_labeled(y, 3, random_state=0)
    write_csv(tmp_path / "moons.csv", X, labels)
    monkeypatch.chdir(tmp_path)
    return X, labels


def run(capsys, *args):
    """``s3vm ARGS`` in process: (exit code, stdout, stderr)."""
    try:
        code = main([str(a) for a in args])
    except SystemExit as exit:  # argparse's own usage errors and --help
        code = exit.code
    out, err = capsys.readouterr()
    return code, out, err


def table_rows(out, n_columns):
    """The grid rows of the table: ``(selected, values, cv_error)``, as printed."""
    rows = []
    for line in out.splitlines():
        cells = line.replace("*", " * ").split()
        if "%" in cells and not line.startswith(("baseline", "chosen", "The ")):
            selected = cells[0] == "*"
            cells = cells[1:] if selected else cells
            rows.append((selected, cells[:n_columns], cells[n_columns]))
    return rows


def library_search(estimator, grid, X, labels, folds=3):
    """The library's search on the same folds (its warnings are the command's business)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return S3VMGridSearchCV(estimator, grid, cv=LabeledStratifiedKFold(folds)).fit(
            X, labels)


def test_the_table_chooses_as_the_library_on_the_same_folds(moons, capsys):
    X, labels = moons
    code, out, err = run(capsys, "select", "moons.csv", "-s", "lapsvm", "-g",
                         "gamma_I=0.001,1", "-g", "sigma=3,0.3", "--folds", "3",
                         "--model", "chosen.npz", "--baseline-model", "svm.npz")
    assert code == 0, err
    search = library_search(LapSVM(), {"gamma_I": [0.001, 1.0], "sigma": [3.0, 0.3]}, X,
                            labels)
    rows = table_rows(out, 2)
    assert len(rows) == 4
    for (selected, values, error), params, expected in zip(
            rows, search.cv_results_["params"], search.cv_results_["mean_test_error"],
            strict=True):
        # every grid point's CV error, in the library's order of the grid
        assert [float(v) for v in values] == [params["gamma_I"], params["sigma"]]
        assert error == f"{100 * expected:.1f}"
        assert selected == (params == search.best_params_)
    # the choice is not the first grid point: the table does not just mark the first row
    assert search.best_index_ != 0 and search.best_params_ == {"gamma_I": 0.001, "sigma": 0.3}
    assert "chosen: LapSVM with gamma_I=0.001, sigma=0.3, CV error 16.7 % (1/6 mistakes)" in out
    baseline, best = search.comparison_, search.baseline_best_params_
    n_baseline = len(search.baseline_cv_results_["params"])  # its C axis times the two widths
    assert (f"baseline: SVMBaseline on the labels alone, best of its {n_baseline} grid points by "
            f"the same folds: C={'None' if best['C'] is None else format(best['C'], 'g')}, "
            f"sigma={best['sigma']:g}, CV error {100 * baseline.baseline_error:.1f} %") in out
    # the unlabeled points helped here: the last line says so (and no warning does)
    assert baseline.helped and out.splitlines()[-1] == baseline.message
    assert "did not help" not in err and "Saved the chosen model in chosen.npz" in err

    # the model written is the chosen estimator, refitted on all the points
    code, out, err = run(capsys, "predict", "chosen.npz", "moons.csv", "--predictions", "-")
    assert code == 0, err
    chosen = search.best_estimator_
    assert out.split() == [str(c) for c in chosen.predict(X)]
    np.testing.assert_allclose(np.loadtxt("moons.csv.outputs"), chosen.decision_function(X),
                               rtol=1e-9, atol=1e-10)
    code, out, err = run(capsys, "predict", "svm.npz", "moons.csv", "--predictions", "-")
    assert out.split() == [str(c) for c in search.baseline_best_estimator_.predict(X)]


def test_without_a_grid_the_default_grid_is_searched_and_said(moons, capsys):
    X, labels = moons
    code, out, err = run(capsys, "select", "moons.csv", "-s", "tsvm", "-p", "max_iter=200")
    assert code == 0, err
    assert "grid: the default grid of GradientTSVM (no -g given" in out
    grid = default_grid(GradientTSVM(), X, labels)
    search = library_search(GradientTSVM(max_iter=200), grid, X, labels)
    rows = table_rows(out, 2)
    assert [error for _, _, error in rows] == [
        f"{100 * e:.1f}" for e in search.cv_results_["mean_test_error"]]
    assert [values[1] for _, values, _ in rows] == [
        f"{p['sigma']:.4g}" for p in search.cv_results_["params"]]
    assert [selected for selected, _, _ in rows].index(True) == search.best_index_


def test_more_than_two_classes_select_the_one_vs_rest_estimator(tmp_path, monkeypatch, capsys):
    rng = np.random.default_rng(0)
    y = np.arange(90) % 3
    X = np.array([[0.0, 0.0], [4.0, 0.0], [2.0, 3.5]])[y] + 0.7 * rng.standard_normal((90, 2))
    labels = pick_labeled(y, 3, random_state=0)
    write_csv(tmp_path / "blobs.csv", X, labels)
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "select", "blobs.csv", "-s", "lapsvm", "-g",
                         "gamma_I=0.1,1", "--model", "blobs.npz")
    assert code == 0, err
    assert out.startswith("OneVsRestS3VM(LapSVM) on blobs.csv: 3-fold cross-validation on "
                          "its 9 labeled points")
    assert "baseline: OneVsRestS3VM(SVMBaseline) on the labels alone" in out
    search = library_search(OneVsRestS3VM(LapSVM()), {"estimator__gamma_I": [0.1, 1.0]}, X,
                            labels)
    code, out, err = run(capsys, "predict", "blobs.npz", "blobs.csv", "--predictions", "-")
    assert out.split() == [str(c) for c in search.best_estimator_.predict(X)]


def test_when_the_unlabeled_points_did_not_help_the_warning_is_the_last_line(
        tmp_path, monkeypatch, capsys):
    """g10n breaks the cluster assumption (LDS paper §3.1): a graph that dominates loses."""
    X, y = g10n(n_samples=150, random_state=1)
    labels = pick_labeled(y, 4, random_state=1)
    (tmp_path / "g10n.csv").write_text("\n".join(
        ",".join(map(repr, row)) + f",{'' if label == -1 else label}"
        for row, label in zip(X.tolist(), labels.tolist(), strict=True)) + "\n")
    monkeypatch.chdir(tmp_path)
    args = ("select", "g10n.csv", "-s", "lapsvm", "-p", "gamma_I=1e4", "-g", "gamma_A=1e-6",
            "--folds", "4")
    code, out, err = run(capsys, *args)
    assert code == 0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        S3VMGridSearchCV(LapSVM(gamma_I=1e4), {"gamma_A": [1e-6]}, cv=4).fit(X, labels)
    assert caught[-1].category is UnlabeledDidNotHelpWarning
    message = str(caught[-1].message)
    assert err.splitlines()[-1] == f"s3vm: warning: {message}"
    assert "did not help" not in out and out.splitlines()[-1].startswith("chosen: LapSVM")
    code, quiet_out, quiet_err = run(capsys, *args, "-q")
    assert code == 0 and quiet_err == "" and quiet_out == out  # -q: the table only


BAD_GRIDS = [
    (["-g", "gamma_II=1,2"], "LapSVM has no parameter 'gamma_II'; its parameters are"),
    (["-g", "gamma_I=1,-2"], "In -g gamma_I=1,-2: The 'gamma_I' parameter of LapSVM must be a "
                             "float in the range [1e-10, 1e+10]"),
    (["-g", "n_neighbors=3,2.5"], "In -g n_neighbors=3,2.5: The 'n_neighbors' parameter of "
                                  "LapSVM must be an int"),
    (["-g", "gamma_I="], "-g gamma_I= lists no value: give the values to try, separated by "
                         "commas (like -g gamma_I=V1,V2)."),
    (["-g", "gamma_I=1,,2"], "has an empty value between its commas"),
    (["-g", "gamma_I"], "A parameter is given as NAME=V1,V2,... (like C=0.1,1,10), not "
                        "'gamma_I'."),
    (["-g", "gamma_I=1,1.0"], "-g gamma_I lists 1.0 twice: give each value once."),
    (["-g", "gamma_I=1", "-g", "gamma_I=2"], "gamma_I is given by two -g options"),
    (["-g", "gamma_I=1,2", "-p", "gamma_I=3"], "gamma_I is given both with -p and with -g"),
    (["--folds", "7"], "--folds 7: n_splits=7 folds but only 6 labeled points can be held out"),
    (["--folds", "1"], "--folds must be at least 2"),
    (["-s", "bnb"], "There is no default grid for BranchAndBoundS3VM: give the values to try "
                    "with -g NAME=V1,V2,..."),
    (["-g", "sigma=1e-9,1e-8"], "Every cross-validation fit of LapSVM failed; the first said: "
                                "ValueError: sigma=1e-09 is so much smaller"),
    (["--seed", "-1"], "--seed must be a whole number from 0 to 4294967295, got -1."),
    (["--n-jobs", "0"], "--n-jobs must be a number of processes, at least 1, or -1 for one per "
                        "core; got 0."),
]


@pytest.mark.parametrize("extra, message", BAD_GRIDS)
def test_a_bad_grid_is_one_sentence_and_exit_2(moons, capsys, extra, message):
    solver = [] if "-s" in extra else ["-s", "lapsvm"]
    code, out, err = run(capsys, "select", "moons.csv", *solver, *extra)
    assert code == 2 and out == ""
    assert err.startswith("s3vm: ") and len(err.splitlines()) == 1
    assert message in err, err


def test_the_help_says_the_grid_the_folds_and_every_default_grid(capsys):
    code, out, _ = run(capsys, "select", "--help")
    assert code == 0
    text = " ".join(out.split())
    for words in ["-g NAME=V1,V2,..., --grid NAME=V1,V2,...", "--folds K",
                  "the first listed wins a tie", "the solver's default grid (below)",
                  "sigma = 1, 0.5, 2 times the LDS paper's default width",
                  "lapsvm: gamma_I = 1, 0.01, 10", "tsvm: C = None, 0.1, 100",
                  "example: s3vm select points.csv -s lapsvm -g gamma_I=1,0.01,10"]:
        assert words in text, words
    # every solver with a default grid is listed with it, and no other
    for short, cls in ESTIMATORS.items():
        assert (f" {short}: " in text) == (cls.__name__ in GRID_AXES), short
    code, out, _ = run(capsys, "--help")
    assert "select" in out and "cross-validation" in out


def test_the_example_of_docs_cli_md_prints_what_the_page_shows(tmp_path, monkeypatch, capsys):
    """docs/cli.md, "Choosing parameters by cross-validation": its snippet writes the data, its
    first command prints the table the page shows."""
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "cli.md").read_text()
    section = page.split("## Choosing parameters by cross-validation", 1)[1].split("\n## ", 1)[0]
    script, shown = section.split("```sh\n", 1)[1].split("```", 1)[0], section.split(
        "prints", 1)[1].split("```\n", 1)[1].split("```", 1)[0]
    snippet = script.split("<<'PY'", 1)[1].split("\n", 1)[1].split("\nPY\n", 1)[0]
    command = next(line for line in script.splitlines() if line.startswith("s3vm select"))
    monkeypatch.chdir(tmp_path)
    exec(compile(snippet, "docs/cli.md", "exec"), {})  # noqa: S102 - the page's own snippet
    code, out, err = run(capsys, *command.split()[1:])
    assert code == 0, err
    assert out + err == shown


def test_a_large_search_is_refused_without_large_and_a_long_one_says_its_progress(
        moons, capsys, monkeypatch):
    """Issue 40, item 4: the limits scaled down to the fixture's 150 points. The grid: 2
    values x 3 folds, the baseline's 3 values of C x 3 folds, 2 refits: 17 fits."""
    from s3vm_cli import selection

    monkeypatch.setattr(selection, "LARGE_SEARCH", 2000)
    monkeypatch.setattr(selection, "PROGRESS_FROM", 1000)
    args = ("select", "moons.csv", "-s", "lapsvm", "-g", "gamma_I=0.1,1")
    code, out, err = run(capsys, *args)
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert re.fullmatch(
        r"s3vm: This search is large: 17 fits on 150 points: 2 grid points of LapSVM on 3 "
        r"folds, 3 of SVMBaseline on the same folds, 2 refits on all the points \(2,550 points "
        r"x fits, beyond the 2,000 that s3vm select starts without asking\); trial fits of "
        r"LapSVM on 75 and 150 of the points took \S+ s and \S+ s, so its 7 fits on all 150 "
        r"would take about \S+ s \(its time growing as n\^\S+\)\. Add --large to run it, or "
        r"select on fewer points or a smaller grid \(-g\)\.\n", err), err

    code, out, err = run(capsys, *args, "--large")
    assert code == 0, err
    said = [line for line in err.splitlines() if "fits" in line]
    assert said[0] == ("s3vm: 17 fits on 150 points: 2 grid points of LapSVM on 3 folds, 3 of "
                       "SVMBaseline on the same folds, 2 refits on all the points.")
    assert said[1].startswith("s3vm: The first fit took ") and " left at its pace" in said[1]
    assert re.fullmatch(r"s3vm: 17 fits in \S+ s\.", said[-1])
    assert out.splitlines()[-1].startswith(("chosen: ", "The unlabeled points"))
    code, quiet_out, quiet_err = run(capsys, *args, "--large", "-q")
    assert code == 0 and quiet_err == "" and quiet_out.splitlines()[0] == out.splitlines()[0]
