"""The app's pages and its router: ``app.py`` calls ``route``."""

from __future__ import annotations

import streamlit as st

from s3vm_explorer.engine.markdown import literal

PAGE_CONFIG = {"page_title": "S3VM Explorer", "page_icon": "◆", "layout": "wide"}
#: Every page's margins and headings, for a projector at 1024 x 768: the wide layout's 5rem at
#: each side and 6rem above left a page's picture below the first screen. A page's sections are
#: h2 under its h1 title (a skipped level loses a screen reader's outline of the page), drawn
#: at the size of Streamlit's h3. And what WCAG 2.1 AA asks of the theme, light or dark
#: (docs/accessibility.md): captions at 75 % of the text's colour, not 60 % (3.8:1 on the
#: sidebar, below the 4.5:1 of 1.4.3; 5.9:1 at least now), a slider's value in the text's
#: colour (the dark theme's red is 3.5:1 on its sidebar), a button's keyboard shortcut in the
#: button's own text colour, undimmed (Streamlit's: 3.9:1 on white, the lesson's Page Up), a focus
#: ring on whatever the keyboard reaches (2.4.7; the text's own colour, which contrasts with
#: its background in either theme), text kept for screen readers only (``.s3vm-sr-only``: the
#: charts' text alternatives), and no page wider than the window at 320 px (1.4.10: wide tables
#: and charts scroll in their own box, long words wrap).
PAGE_STYLE = """<style>
[data-testid="stMainBlockContainer"] { padding: 3.5rem 1.5rem 2rem; }
[data-testid="stMainBlockContainer"] h1 { font-size: 2rem; padding: 0 0 0.5rem; }
[data-testid="stMainBlockContainer"] h2 { font-size: 1.5rem; padding: 0.75rem 0 0.5rem; }
[data-testid="stCaptionContainer"] { opacity: 0.75 !important; }
[data-testid="stSliderThumbValue"], [data-testid="stSliderThumbValue"] * {
  color: inherit !important; }
button kbd { color: inherit !important; opacity: 1 !important; }
:focus-visible { outline: 3px solid currentColor !important; outline-offset: 2px !important; }
label:has(input:focus-visible), [data-baseweb="select"]:has(input:focus-visible),
[data-baseweb="input"]:has(input:focus-visible),
[data-baseweb="textarea"]:has(textarea:focus-visible) {
  outline: 3px solid currentColor !important; outline-offset: 2px !important; border-radius: 4px; }
.s3vm-sr-only { position: absolute !important; width: 1px; height: 1px; margin: -1px; padding: 0;
  overflow: hidden; clip: rect(0 0 0 0); clip-path: inset(50%); white-space: nowrap; border: 0; }
[data-testid="stMain"] p, [data-testid="stMain"] li { overflow-wrap: anywhere; }
</style>"""
#: The app's pages: file in ``pages/``, title, Material icon. The first is the default page.
PAGES = [
    ("data", "Data & labels", "edit"),
    ("watch", "Watch a solver", "play_circle"),
    ("continuation", "Continuation (cS3VM)", "timeline"),
    ("annealing", "Deterministic annealing", "thermostat"),
    ("early_stopping", "LapSVM early stopping", "timer"),
    ("compare", "Compare solvers", "leaderboard"),
    ("hurt", "When unlabeled data hurt", "warning"),
    ("local_minima", "Local minima", "landscape"),
    ("about", "About the solvers", "menu_book"),
]


def app_pages() -> list:
    """The router's pages (``st.navigation``'s argument)."""
    return [st.Page(f"pages/{file}.py", title=title, icon=f":material/{icon}:",
                    default=index == 0)
            for index, (file, title, icon) in enumerate(PAGES)]


#: Whether ``route`` has run in this server process (see ``enter_through_the_router``).
_routed = False


def route() -> None:
    """The router (``app.py``): page configuration, then the page the address names (or the
    first page, saying so, when the address names no page)."""
    global _routed
    _routed = True
    st.set_page_config(**PAGE_CONFIG)
    st.html(PAGE_STYLE)
    page = st.navigation(app_pages())
    if missing := _unknown_page():
        path = missing if len(missing) <= 60 else f"{missing[:59]}…"
        st.warning(f"This app has no page “/{literal(path)}”: here is its first page, "
                   f"{page.title}. The sidebar lists every page.")
    page.run()


def _unknown_page() -> str | None:
    """The page name of the address when it names no page of the router (Streamlit then runs
    the first page), else None. Only the first run of a session asks by name: later ones ask
    for a page by its hash."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    context = get_script_run_ctx()
    manager = context.pages_manager if context is not None else None
    if manager is None or manager.intended_page_script_hash or not manager.intended_page_name:
        return None
    known = {info.get("url_pathname") for info in manager.get_pages().values()}
    return None if manager.intended_page_name in known else manager.intended_page_name


def enter_through_the_router() -> None:
    """Give the router's page list to a page Streamlit started without the router.

    Until ``st.navigation`` has run once in the server process, Streamlit takes a ``pages/``
    folder beside the main script for old-style pages: a deep link such as ``/watch``, opened
    first on a freshly started server, runs the page alone under an automatic list of file
    names. Calling ``st.navigation`` here replaces that list with the router's and ends the
    old-style mode for the process; the page goes on as the router would have run it. (AppTest
    resets Streamlit's flag before every run, after its first run went through the router: it
    is left alone then.)
    """
    from streamlit.runtime.pages_manager import PagesManager

    if not _routed and getattr(PagesManager, "uses_pages_directory", False):
        st.set_page_config(**PAGE_CONFIG)
        st.navigation(app_pages())
