"""Fixtures of the AppTest page tests."""

from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app.py")


@pytest.fixture
def app():
    """A fresh headless session of the app (caches cleared so runs do not leak between tests)."""
    st.cache_data.clear()
    st.cache_resource.clear()
    return AppTest.from_file(APP, default_timeout=120)
