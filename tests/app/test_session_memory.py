"""What a session keeps once its page has run (issue 26: the server's memory grew by every
class). A run is kept once, for every session, in the bounded store of ``ui.runs``; a session
itself, which Streamlit keeps for two minutes after its tab closes, must not hold one."""

import gc
import sys
import types

import numpy as np

from s3vm_core import SolverState
from toy_data import UNLABELED


def reachable(root, kind, keep=lambda item: True) -> int:
    """How many objects of ``kind`` (that ``keep``) ``root`` reaches, not through a module's
    namespace (the app's shared, bounded stores live there)."""
    shared = {id(module.__dict__) for module in list(sys.modules.values())
              if isinstance(module, types.ModuleType)}
    seen, todo, found = set(), [root], 0
    while todo:
        item = todo.pop()
        if id(item) in seen or id(item) in shared or isinstance(item, type | types.ModuleType):
            continue
        seen.add(id(item))
        found += isinstance(item, kind) and keep(item)
        todo.extend(gc.get_referents(item))
    return found


def test_a_session_keeps_no_run_once_the_watch_page_has_shown_it(app):
    at = app.switch_page("pages/watch.py").run()
    assert not at.exception
    # the player's and the details slider's callbacks were defined in the page: Streamlit keeps
    # a widget's callback with the session, and with it the page's namespace and its run
    assert reachable(at.session_state._state, SolverState) == 0


def test_a_session_keeps_no_data_set_once_the_data_page_has_shown_it(app):
    at = app.run()
    assert not at.exception and UNLABELED in at.session_state["labels"]
    # (the true classes go with "pick k random labels per class": n small integers)
    assert reachable(at.session_state._state, np.ndarray, lambda a: a.ndim > 1) == 0
