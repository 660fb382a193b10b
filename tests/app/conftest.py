"""Fixtures of the AppTest page tests."""

import pytest
import streamlit as st
from page_helpers import new_session


@pytest.fixture
def app():
    """A fresh headless session of the app (caches cleared so runs do not leak between tests)."""
    st.cache_data.clear()
    st.cache_resource.clear()
    return new_session()
