"""Sections of the project's documents (docs/), for the pages that show them.

The About page shows, for each solver, where the code departs from its paper
(docs/deviations.md) and the paper's table as the project reproduces it (docs/benchmarks.md).
The documents are read from the source tree, never written.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path


def app_folder() -> Path:
    """The app's folder (``app.py``, ``pages/``, ``docs/``, ``.streamlit/``): in an installed
    wheel ``s3vm_explorer/app/``, in a checkout the repository's root."""
    package = Path(__file__).resolve().parents[1]
    installed = package / "app"
    return installed if (installed / "app.py").is_file() else package.parent


DOCS = app_folder() / "docs"
DEVIATIONS = "deviations.md"
BENCHMARKS = "benchmarks.md"

#: A markdown link to another document or an anchor: ``[text](target)`` with no scheme.
_RELATIVE_LINK = re.compile(r"\[([^\]]+)\]\((?![a-z]+://)[^)]*\)")


@lru_cache(maxsize=8)
def _lines(name: str) -> tuple[str, ...]:
    return tuple((DOCS / name).read_text(encoding="utf-8").splitlines())


def section(name: str, heading: str) -> str:
    """The body of the section titled ``heading`` (its full heading line, e.g. ``"## QN-S3VM
    (Gieseke et al., ICPRAM 2012)"``) in ``docs/<name>``, up to the next heading of the same
    or a higher level. Links to other documents are left as their text (a page cannot follow
    them). Raises ``KeyError`` when the document has no such heading."""
    lines = _lines(name)
    try:
        start = lines.index(heading)
    except ValueError:
        raise KeyError(f"docs/{name} has no heading {heading!r}") from None
    level = len(heading) - len(heading.lstrip("#"))
    body = []
    for line in lines[start + 1:]:
        hashes = len(line) - len(line.lstrip("#"))
        if 0 < hashes <= level and line[hashes:hashes + 1] == " ":
            break
        body.append(line)
    return _RELATIVE_LINK.sub(r"\1", "\n".join(body)).strip()
