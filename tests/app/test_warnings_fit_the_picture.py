"""A warning fits the picture (issue 42, item 6): a one-vs-rest problem's warning names its
problem in the user's classes, says whose numbers it gives, gives the classes the picture
shows, and stands on the Watch page's first screen."""

from page_helpers import film, shown

from s3vm_explorer.ui import state
from toy_data import DATASETS

WATCH = "pages/watch.py"


def _in_order(node):
    """The page's elements and blocks in the order they stand."""
    yield node
    for child in getattr(node, "children", {}).values():
        yield from _in_order(child)


def test_a_one_vs_rest_warning_names_its_problem_and_stands_above_the_film(app):
    """DA on three blobs, labels picked by hand 2 : 5 : 1: the balance warning of the problem
    "class 1 against the others" names it, gives the classes the picture shows, and its first
    words stand beside the page's title, above the film (under the film, the warning was
    below the first screen at 1400 x 900)."""
    at = app.run()
    at.sidebar.selectbox(key=state.DATASET).select_index(list(DATASETS).index("blobs_3")).run()
    labels = [-1] * len(at.session_state[state.LABELS])
    for index, label in {1: 1, 11: 0, 94: 1, 120: 1, 205: 1, 231: 2, 284: 0, 292: 1}.items():
        labels[index] = label
    at.session_state[state.LABELS] = labels
    at.session_state[state.SOLVER] = "DeterministicAnnealingS3VM"
    at.switch_page(WATCH).run()
    assert not at.exception and not at.error
    (said,) = [shown(w.value) for w in at.warning if "one-vs-rest problem" in shown(w.value)]
    assert said.startswith('In the one-vs-rest problem "class 1 against the others": ')
    played = film(at)
    unlabeled = [k for k, label in enumerate(labels) if label == -1]
    in_class_1 = sum(int(played["points"][-1][k]) == 1 for k in unlabeled)  # its colours
    assert (f"{in_class_1} of the {len(unlabeled)} unlabeled points are class 1.") in said
    # its first words stand in the line above the film; the whole text one click away
    (headline,) = [e for e in at.expander if "Warning" in e.label]
    assert 'class 1 against the others' in shown(headline.label)
    nodes = list(_in_order(at.main))
    (player,) = [k for k, node in enumerate(nodes) if getattr(
        getattr(node, "proto", None), "component_name", "").endswith("film_player")]
    assert nodes.index(headline) < player
