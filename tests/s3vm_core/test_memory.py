"""The memory limit of the dense matrices: a share of the machine's memory, read at run time,
overridable by an environment variable or by the program."""

import numpy as np
import pytest

from s3vm_core import memory, problem
from s3vm_core.memory import MEMORY_LIMIT_VARIABLE, available_memory, dense_memory_limit
from s3vm_core.problem import check_dense_memory


@pytest.fixture
def ten_gib_free(monkeypatch):
    monkeypatch.delenv(MEMORY_LIMIT_VARIABLE, raising=False)
    monkeypatch.setattr(memory, "available_memory", lambda: 10 * 2**30)


def test_available_memory_is_what_the_machine_reports():
    import os

    physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    assert 0 < available_memory() <= physical


def test_the_limit_is_half_of_the_memory_available(ten_gib_free):
    assert dense_memory_limit() == (5 * 2**30, "50% of the memory available now; set "
                                               f"{MEMORY_LIMIT_VARIABLE} to another limit in GiB")
    side = int(np.sqrt(5 * 2**30 / 8))  # the largest square float64 matrix under 5 GiB
    check_dense_memory(side, side)
    with pytest.raises(ValueError, match=r"needs 5 GiB of memory, more than the 5 GiB "
                                         r"allowed \(50% of the memory available now; set "
                                         f"{MEMORY_LIMIT_VARIABLE}"):
        check_dense_memory(side + 1, side + 1)


def test_float32_matrices_count_four_bytes_an_entry(ten_gib_free):
    side = int(np.sqrt(5 * 2**30 / 4))
    check_dense_memory(side, side, itemsize=4)
    with pytest.raises(ValueError, match="GiB allowed"):
        check_dense_memory(side, side)  # the same matrix in float64


def test_the_environment_variable_sets_the_limit_in_gib(ten_gib_free, monkeypatch):
    monkeypatch.setenv(MEMORY_LIMIT_VARIABLE, "0.5")
    assert dense_memory_limit()[0] == 2**29
    with pytest.raises(ValueError, match=rf"more than the 0\.5 GiB allowed \(set by "
                                         rf"{MEMORY_LIMIT_VARIABLE}\)\. Use fewer points"):
        check_dense_memory(10_000, 10_000)  # 0.75 GiB


@pytest.mark.parametrize("setting", ["lots", "-2", "0", "nan", "inf"])
def test_a_bad_environment_variable_is_explained(monkeypatch, setting):
    monkeypatch.setenv(MEMORY_LIMIT_VARIABLE, setting)
    with pytest.raises(ValueError, match=f"{MEMORY_LIMIT_VARIABLE}=.*must be a positive number "
                                         "of GiB"):
        check_dense_memory(10, 10)


def test_a_limit_set_by_the_program_comes_first(ten_gib_free, monkeypatch):
    monkeypatch.setenv(MEMORY_LIMIT_VARIABLE, "100")
    monkeypatch.setattr(problem, "MAX_DENSE_BYTES", 8 * 100 * 100)
    check_dense_memory(100, 100)
    with pytest.raises(ValueError, match=r"set by s3vm_core\.problem\.MAX_DENSE_BYTES"):
        check_dense_memory(101, 100)


def test_an_estimator_refuses_by_the_limit_of_the_moment(ten_gib_free, monkeypatch):
    from s3vm_core import LapSVM
    from toy_data import pick_labeled, two_moons

    X, y = two_moons(300, random_state=0)
    monkeypatch.setenv(MEMORY_LIMIT_VARIABLE, str(8 * 250 * 250 / 2**30))
    with pytest.raises(ValueError, match=r"300 x 300 \w+ matrix needs 0\.000671 GiB of "
                                         r"memory, more than the 0\.000466 GiB allowed"):
        LapSVM(solver="pcg").fit(X, pick_labeled(y, 2, random_state=0))
    monkeypatch.delenv(MEMORY_LIMIT_VARIABLE)
    assert LapSVM(solver="pcg").fit(X, pick_labeled(y, 2, random_state=0)).n_iter_ > 0
