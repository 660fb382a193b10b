"""Deterministic annealing returns the best state of its path (paper §3), not its last: what
the Annealing and Watch pages say about it must be true of what they show."""

from page_helpers import film, shown

from s3vm_core import DeterministicAnnealingS3VM
from s3vm_explorer.ui import state

ANNEALING = "pages/annealing.py"


def test_the_annealing_page_says_why_the_returned_entropy_is_above_epsilon(app):
    at = app.run()
    at.switch_page(ANNEALING).run()
    assert not at.exception and not at.error
    table = at.dataframe[0].value
    (entropy,) = table.loc[table["method"] == "DA (annealed)", "entropy S(p)"]
    # the state DA returns is soft: its entropy is far above the stopping threshold ...
    assert float(entropy) > 1000 * DeterministicAnnealingS3VM().eps  # shown as text
    caption = next(shown(c.value) for c in at.main.caption if c.value.startswith("Entropy S(p)"))
    # ... and the page says so instead of "DA stops when the entropy is below 1e-6"
    assert "returns the state of lowest objective along the path (§3)" in caption
    assert "the table below shows that state's entropy" in caption


def test_the_watch_page_names_das_last_state_the_best_of_its_path(app):
    at = app.run()
    at.session_state[state.SOLVER] = "DeterministicAnnealingS3VM"
    at.switch_page("pages/watch.py").run()
    assert not at.exception and not at.error
    played = film(at)
    assert played["titles"][-1].startswith("best state of the path, reached at T = ")
    details = next(shown(c.value) for c in at.main.caption if c.value.startswith("state "))
    assert "best state of the path, reached at T = " in details
