"""Every chart in words and as a table (engine/figures/text.py): what a screen reader says of
a figure and what its "Show as a table" view holds, read from the figure itself."""

import numpy as np

from s3vm_explorer.engine.figures import text
from s3vm_explorer.engine.figures.compare import compare_errors_figure, compare_time_figure
from s3vm_explorer.engine.figures.data import (
    boundary_multiples_figure,
    labeling_figure,
    soft_labels_figure,
)
from s3vm_explorer.engine.figures.film import shipped
from s3vm_explorer.engine.figures.teaching import annealing_curves_figure
from toy_data import pick_labeled, two_moons

X, Y = two_moons(40, noise=0.1, random_state=0)
LABELS = pick_labeled(Y, 2, random_state=0)  # two labels a class, 36 unlabeled


def test_the_labelling_chart_says_its_points_and_the_page_s_key_numbers_first():
    said = text.describe(labeling_figure(X, LABELS, "my data"), "4 labeled of 40")
    assert said.startswith("Chart: my data. 4 labeled of 40. ")
    assert "40 points (2 labeled class 0, 2 labeled class 1, 36 unlabeled)" in said
    low, high = X[:, 0].min(), X[:, 0].max()
    assert f"x from {text.number(low)} to {text.number(high)}" in said


def test_the_table_has_a_row_a_point_saying_its_label_also_when_sent_as_json():
    figure = labeling_figure(X, LABELS)
    rows = text.rows(figure)
    assert len(rows) == 40 and [row["point"] for row in rows] == list(range(40))
    assert "series" not in rows[0]  # one series: its name would fill a column
    first = int(np.flatnonzero(LABELS == 1)[0])
    assert rows[first]["shown as"] == "labeled class 1"
    assert rows[first]["x"] == float(f"{X[first, 0]:.4g}")
    # a figure from a solver's process (typed arrays in its JSON) reads the same
    assert text.rows(shipped(figure.to_json())) == rows


def test_boundaries_are_described_by_their_grid_and_panels_not_tabled_cell_by_cell():
    grid_x, grid_y = np.linspace(-1, 2, 30), np.linspace(-1, 1, 20)
    decision = np.add.outer(grid_y, grid_x)  # f = x + y on the grid
    panels = [(f"γ = {g}", decision * g, (X[:, 0] + X[:, 1]) * g) for g in (1, 2)]
    figure = boundary_multiples_figure(panels, X, LABELS, (grid_x, grid_y))
    said = text.describe(figure)
    assert said.startswith("Chart: γ = 1 · γ = 2.")
    assert "a colour map of f on a 30 × 20 grid (panel γ = 1)" in said
    assert "f ranges from −2 to 3) (panel γ = 1)" in said  # from the contour's own values
    rows = text.rows(figure)
    assert len(rows) == 80 and {row["panel"] for row in rows} == {"γ = 1", "γ = 2"}
    predicted = [row["shown as"] for row in rows if row["point"] == 0 and LABELS[0] == -1]
    assert all(shown.startswith("unlabeled, predicted class") for shown in predicted)


def test_soft_labels_are_tabled_as_p():
    p = np.linspace(0, 1, 40)
    rows = text.rows(soft_labels_figure(X, LABELS, p, "p at T = 1"))
    assert [row["p"] for row in rows] == [float(f"{v:.4g}") for v in np.round(p, 3)]


def test_the_comparison_names_each_band_s_solver_and_leaves_the_joining_lines_out():
    rows = [{"solver": name, "draw": draw, "error": "", "unlabeled_error": 0.1 * draw,
             "baseline_error": 0.2, "objective": 1.0, "success": draw == 0}
            for name in ("SVMBaseline", "LDS") for draw in range(3)]
    figure = compare_errors_figure(rows, {"LDS": "LDS (low density)"})
    table = text.rows(figure)
    # 3 draws of the SVM, and of LDS 3 of its own SVM and 3 of its own: no line, no legend
    assert len(table) == 9
    assert {row["category"] for row in table} == {"SVMBaseline", "LDS (low density)"}
    assert [row["unlabeled error (%)"] for row in table if row["series"] == "LDS (low density)"
            ] == [0.0, 10.0, 20.0]
    said = text.describe(figure)
    assert "LDS (low density): 3 points, x from 0 to 20" in said and "y from" not in said


def test_bars_and_log_axes_are_said():
    figure = compare_time_figure([{"solver": "LDS", "median_seconds": 0.5},
                                  {"solver": "SVMBaseline", "median_seconds": 0.01}])
    said = text.describe(figure)
    assert "median fit time (s) (logarithmic)" in said
    assert "2 bars: LDS 0.5, SVMBaseline 0.01" in said
    curves = annealing_curves_figure([10, 5, 1], [0.6, 0.3, 0.01], [3, 2, 1], 5)
    assert len(text.rows(curves)) == 6 and "series" not in text.rows(curves)[0]
