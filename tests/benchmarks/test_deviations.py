"""docs/deviations.md and the measurements of benchmarks/deviations.py name each other."""

from __future__ import annotations

import re
from pathlib import Path

from benchmarks import deviations

DOC = Path(__file__).resolve().parents[2] / "docs" / "deviations.md"


def test_every_command_of_the_page_exists_and_every_measurement_is_on_the_page():
    text = DOC.read_text()
    cited = re.findall(r"python\s+-m\s+benchmarks\.deviations\s+([a-z0-9-]+)", text)
    assert cited and set(cited) <= set(deviations.MEASUREMENTS)
    assert set(deviations.MEASUREMENTS) <= set(cited)


def test_the_list_of_measurements_gives_each_one_line(capsys):
    deviations.main([])
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines] == list(deviations.MEASUREMENTS)
