"""axe-core in the browser tests: the WCAG 2.1 A and AA rules run on a page and in its
components' frames (the counting button, the labelling keys, the film's player).

axe-core comes from the npm registry as the tests need it (``npm install`` into a cache folder
under ``.pytest_cache``, never into the source tree); without npm or the registry the tests that
need it skip, except under CI, where they must run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: The axe-core the accessibility statement (docs/accessibility.md) was measured with.
AXE_VERSION = "4.14.1"
AXE_FOLDER = ROOT / ".pytest_cache" / f"axe-core-{AXE_VERSION}"
#: WCAG 2.0 and 2.1, levels A and AA: the rules that fail a test.
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
#: axe's best-practice rules an e-learning office's review asks for beyond the WCAG tags: a
#: heading level skipped (h1 then h3) loses a screen reader's outline of the page (WCAG 1.3.1
#: in its understanding, a best practice in axe's tags).
EXTRA_RULES = ["heading-order"]


def axe_source() -> str:
    """axe-core's script, installed from the npm registry into ``AXE_FOLDER`` once."""
    script = AXE_FOLDER / "node_modules" / "axe-core" / "axe.min.js"
    if not script.exists():
        npm = shutil.which("npm")
        failure = None
        if npm is None:
            failure = "npm is not installed"
        else:
            AXE_FOLDER.mkdir(parents=True, exist_ok=True)
            done = subprocess.run(
                [npm, "install", "--no-save", "--no-audit", "--no-fund", "--no-package-lock",
                 "--prefix", str(AXE_FOLDER), f"axe-core@{AXE_VERSION}"],
                capture_output=True, text=True, timeout=300)
            if done.returncode or not script.exists():
                failure = f"npm could not install axe-core {AXE_VERSION}: {done.stderr[-300:]}"
        if failure:
            if os.environ.get("CI"):
                raise RuntimeError(f"CI needs axe-core for the accessibility tests: {failure}")
            pytest.skip(failure)
    return script.read_text(encoding="utf-8")


_RUN = """async ([tags, extra]) => {
    const result = await axe.run(document, {
        runOnly: {type: 'tag', values: tags}, iframes: false, resultTypes: ['violations']});
    const more = await axe.run(document, {runOnly: {type: 'rule', values: extra},
                                          iframes: false, resultTypes: ['violations']});
    return [...result.violations, ...more.violations].map(v => ({
        rule: v.id, impact: v.impact,
        nodes: v.nodes.map(n => ({target: n.target.join(' '), summary: n.failureSummary}))}));
}"""


def violations(page, source: str, where: str) -> list[dict]:
    """Every WCAG 2.1 A / AA violation (and ``EXTRA_RULES``') that axe finds on ``page`` and in
    each of its frames, one dict a rule and frame: ``where`` (the page's name), ``frame``,
    ``rule``, ``impact``, ``nodes`` (the elements, with axe's summary of what is wrong)."""
    found = []
    for frame in page.frames:
        if frame.is_detached() or frame.url in ("", "about:blank"):
            continue
        if not frame.evaluate("() => typeof axe !== 'undefined'"):
            frame.evaluate(source)
        name = "page" if frame == page.main_frame else frame.name or frame.url.split("?")[0]
        for violation in frame.evaluate(_RUN, [WCAG_TAGS, EXTRA_RULES]):
            found.append({"where": where, "frame": name, **violation})
    return found


def summary(found: list[dict]) -> str:
    """The violations in a few lines: page, frame, rule, impact, count and the first element."""
    return "\n".join(
        f"{v['where']} [{v['frame']}] {v['rule']} ({v['impact']}) x{len(v['nodes'])}: "
        f"{v['nodes'][0]['target']} — {v['nodes'][0]['summary'][:240]}" for v in found)
