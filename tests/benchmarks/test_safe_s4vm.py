"""Is S4VM safe on data: the benchmark of S4VM and ∇TSVM against their fair SVMs."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks import safe_s4vm

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def test_tiny_run_pairs_both_solvers_with_their_svms_in_both_scalings(tmp_path, capsys):
    results = safe_s4vm.main(["--tiny", "--out", str(tmp_path), "--no-progress"])
    printed = capsys.readouterr().out
    assert all(r["status"] == "ok" for r in results)
    assert {(r["dataset"], r["scaling"], r["method"]) for r in results} == {
        (d, s, m) for d in ("iris", "two moons") for s in safe_s4vm.SCALINGS
        for m in safe_s4vm.METHODS}
    assert all(0 <= r["svm_error"] <= 1 for r in results)
    s4vm = [r for r in results if r["method"] in safe_s4vm.S4VMS]
    assert {r["method"] for r in s4vm} == {"S4VM", "S4VM, r = both"}
    assert all(0 <= r["svm_kept"] <= 1 and 0 <= r["truth_distance"] <= 1 for r in s4vm)
    assert "S4VM, [0, 1]" in printed and "S4VM, r = both, [0, 1]" in printed
    assert "Significantly worse than the fair SVM:" in printed


def test_the_scalings_are_the_given_units_and_the_unit_interval():
    X, _ = safe_s4vm.load("two moons", "as given")
    S, _ = safe_s4vm.load("two moons", "[0, 1]")
    assert np.ptp(X, axis=0).max() > 1.5  # the app's units: the moons span about 3
    np.testing.assert_allclose(S.min(axis=0), 0.0)
    np.testing.assert_allclose(S.max(axis=0), 1.0)
    B, _ = safe_s4vm.load("breast cancer", "as given")
    np.testing.assert_allclose(B.std(axis=0), 1.0)  # standardized, as in sklearn_peers


def test_where_the_truth_is_a_kept_candidate_s4vm_is_not_worse_than_its_svm():
    """The paper's guarantee, read off the diagnostics: on two well separated Gaussians the
    truth is a kept candidate (distance 0), and then S4VM errs no more than its SVM."""
    from s3vm_core import S4VM, fair_svm
    from toy_data import gaussian_2c, pick_labeled

    X, y = gaussian_2c(n_samples=80, n_features=2, noise=0.5, random_state=0)
    labels = pick_labeled(y, 1, random_state=0)
    unlabeled = labels == -1
    model = S4VM(sample_time=10, random_state=0).fit(X, labels)
    diagnostics = safe_s4vm.s4vm_diagnostics(model, y, unlabeled)
    assert diagnostics["truth_distance"] == 0.0
    svm = fair_svm(model, labels).fit(X, labels)
    assert (np.mean(model.transduction_[unlabeled] != y[unlabeled])
            <= np.mean(svm.predict(X[unlabeled]) != y[unlabeled]))


def test_the_balance_check_sets_the_unbalanced_sets_beside_a_wider_tolerance():
    """Labels drawn equally per class centre S4VM's balance on half positive: at beta = 0.1
    its labels of breast cancer (63 % benign) stay well below the truth, which a tolerance of
    0.3 admits."""
    text = safe_s4vm.balance_check(draws=1, sample_time=5)
    rows = [line.split(" | ") for line in text.splitlines()[2:]]
    assert [(r[0].strip("| "), r[2]) for r in rows] == [
        ("breast cancer", "0.1"), ("breast cancer", "0.3"), ("clock", "0.1"), ("clock", "0.3")]
    positive = {(r[0].strip("| "), r[2]): float(r[5].rstrip("%")) for r in rows}
    assert positive[("breast cancer", "0.1")] < 58.0
    assert float(rows[0][6].rstrip("%")) > 60.0  # the truth: 63 % benign


def test_the_width_check_sets_s4vm_m_s_width_beside_the_mean_distance():
    """S4VM.m hands LIBSVM gamma = 1/d for the mean distance d: sigma = sqrt(d / 2)."""
    from s3vm_core.solvers.s4vm import mean_distance_sigma

    text = safe_s4vm.width_check(draws=1, cells=(("two moons", "as given", 2),), sample_time=5)
    rows = [line.split(" | ") for line in text.splitlines()[2:]]
    d = mean_distance_sigma(safe_s4vm.load("two moons", "as given")[0])
    widths = [float(r[3].split("(")[1].rstrip(")")) for r in rows]
    np.testing.assert_allclose(widths, [d, np.sqrt(d / 2)], atol=0.005)
    assert all(" vs " in r[4] for r in rows)
