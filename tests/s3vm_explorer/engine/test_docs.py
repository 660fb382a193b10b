"""Sections of docs/ shown by the About page (ui/docs.py)."""

from __future__ import annotations

import pytest

from s3vm_explorer.engine.docs import BENCHMARKS, DEVIATIONS, section


def test_a_section_runs_to_the_next_heading_of_its_level_and_keeps_its_subsections():
    text = section(BENCHMARKS, "## Results of the full runs")
    assert "### DA paper Table 2: successes out of the label draws (full)" in text
    assert "## Results of `make bench-quick`" not in text


def test_a_deviations_section_reads_without_links_to_other_documents():
    text = section(DEVIATIONS, "## QN-S3VM (Gieseke et al., ICPRAM 2012)")
    assert "qns3vm.py" in text
    assert "python -m benchmarks.deviations qn-balance" in " ".join(text.split())
    assert "Deterministic annealing" not in text  # the next section
    assert "](" not in text  # "[Defaults](#defaults-every-solver)" is left as "Defaults"
    assert "see Defaults" in " ".join(text.split())


def test_an_unknown_heading_is_said():
    with pytest.raises(KeyError, match="no heading"):
        section(DEVIATIONS, "## No such solver")
