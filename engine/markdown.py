"""Text from outside the app -- a link, a file's name, a file's cells, a solver's message --
shown as itself in Streamlit's Markdown: no link, image, HTML, directive or formula can come
from it (DESIGN.md, "Untrusted text and files")."""

from __future__ import annotations

import re
import string

#: Every ASCII punctuation character: CommonMark lets a backslash make any of them literal,
#: which covers links, images, emphasis, code, headings, tables and HTML, and Streamlit's own
#: ``:colour[...]``, ``:material/…:`` and ``$formula$``.
_PUNCTUATION = re.compile(f"([{re.escape(string.punctuation)}])")


def literal(text) -> str:
    """``text`` escaped so that Markdown shows it as written, on one line."""
    return _PUNCTUATION.sub(r"\\\1", " ".join(str(text).split()))
