"""Labelling by keyboard (ui/keyboard.py, labelling.apply_keys): the keys' actions, reported as
a queue, are applied once each and in order, as the mouse's would be, undo and redo included."""

import pytest
import streamlit as st

from s3vm_explorer.ui import keyboard, labelling
from s3vm_explorer.ui import state as keys


@pytest.fixture
def session(monkeypatch):
    """A session's state as the Data page leaves it: 6 points, two of them labeled."""
    fake = {keys.DATASET: "two_moons", keys.N_SAMPLES: 6, keys.NOISE: 0.1, keys.SEED: 0,
            keys.BRUSH: 1, keys.LABELS: [0, -1, -1, 1, -1, -1]}
    monkeypatch.setattr(st, "session_state", fake)
    return fake


def press(session, *actions, done_before: int = 0):
    """The box's report after ``actions`` (the serials go on from ``done_before``)."""
    queue = [{"serial": done_before + k + 1, **action} for k, action in enumerate(actions)]
    session[keyboard.KEYBOARD] = {"serial": queue[-1]["serial"], "actions": queue}
    labelling.apply_keys()


def test_number_keys_label_and_u_unlabels_each_point_once(session):
    press(session, {"action": "label", "point": 1, "label": 1},
          {"action": "label", "point": 2, "label": 0})
    assert session[keys.LABELS] == [0, 1, 0, 1, -1, -1]
    assert session[keyboard.KEYBOARD_DONE] == 2 and keys.labels_by_hand()
    # the same report again (a rerun of the page) changes nothing
    labelling.apply_keys()
    assert session[keys.LABELS] == [0, 1, 0, 1, -1, -1]
    # keys pressed while the page ran arrive together, after those it applied
    session[keyboard.KEYBOARD]["actions"].append({"serial": 3, "action": "label", "point": 0,
                                                  "label": -1})
    labelling.apply_keys()
    assert session[keys.LABELS] == [-1, 1, 0, 1, -1, -1]


def test_z_undoes_and_y_redoes_a_keyboard_labelling(session):
    press(session, {"action": "label", "point": 4, "label": 0},
          {"action": "label", "point": 5, "label": 1}, {"action": "undo"})
    assert session[keys.LABELS] == [0, -1, -1, 1, 0, -1]
    press(session, {"action": "redo"}, done_before=3)
    assert session[keys.LABELS] == [0, -1, -1, 1, 0, 1]
    press(session, {"action": "undo"}, {"action": "undo"}, done_before=4)
    assert session[keys.LABELS] == [0, -1, -1, 1, -1, -1]


def test_a_point_that_no_longer_exists_is_left_alone(session):
    press(session, {"action": "label", "point": 6, "label": 1},
          {"action": "label", "point": -1, "label": 1})
    assert session[keys.LABELS] == [0, -1, -1, 1, -1, -1]
    assert not session.get(keys.LABEL_HISTORY)  # nothing to undo
