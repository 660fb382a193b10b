"""Text from outside the app -- a link, a file's name, a file's cells, a solver's message --
shown as itself in Streamlit's Markdown: no link, image, HTML, directive or formula can come
from it (docs/architecture.md, "Untrusted text and files")."""

from __future__ import annotations

import re
import string

#: Every ASCII punctuation character: CommonMark lets a backslash make any of them literal,
#: which covers links, images, emphasis, code, headings, tables and HTML, and Streamlit's own
#: ``:colour[...]``, ``:material/…:`` and ``$formula$``.
_PUNCTUATION = re.compile(f"([{re.escape(string.punctuation)}])")
#: GitHub's Markdown turns a bare address into a link after the escapes are read
#: ("http://…", "www.…", "name@host"): a word joiner (U+2060, invisible) before its ":" or
#: "@" and after "www" keeps it text.
_ADDRESS = re.compile(r"(?i)(\\[:@])|(?<![^\W_])(www)(?=\\\.)")
WORD_JOINER = "\u2060"


def literal(text) -> str:
    """``text`` escaped so that Markdown shows it as written, on one line."""
    escaped = _PUNCTUATION.sub(r"\\\1", " ".join(str(text).split()))
    return _ADDRESS.sub(lambda m: WORD_JOINER + m.group(1) if m.group(1)
                        else m.group(2) + WORD_JOINER, escaped)
