"""Issue 17: the presets "as in the paper" and "the generic default" (ui/presets.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from s3vm_explorer.engine import presets
from s3vm_explorer.engine.presets import preset_values
from s3vm_explorer.engine.registry import SOLVERS
from toy_data import DATASETS


@pytest.mark.parametrize(("dataset", "solver"), sorted(presets.PAPER_PRESETS))
def test_every_paper_preset_is_a_setting_the_watch_form_can_hold(dataset, solver):
    preset = presets.PAPER_PRESETS[dataset, solver]
    assert dataset in DATASETS and solver in SOLVERS
    assert preset.source and preset.params
    params = {p.name: p for p in SOLVERS[solver].params}
    for name, value in preset.params.items():
        assert params[name].check(value) == value  # the form shows it as it is
    # and with the form's other values at their defaults it builds the solver's estimator
    values = preset_values(dataset, solver, presets.PAPER)
    assert {k: values[k] for k in preset.params} == preset.params
    assert all(values[p.name] == p.default for p in SOLVERS[solver].params
               if p.name not in preset.params)


def test_the_default_data_set_has_a_paper_preset_for_every_semi_supervised_solver():
    # A first visitor's Watch page (two moons) opens on the paper's setting whatever the S3VM
    # (the exact solver is a yardstick for small data: it takes the generic defaults; S4VM
    # keeps its paper's own width rule, its paper having no setting for two moons).
    for solver in SOLVERS:
        if solver not in ("SVMBaseline", "BranchAndBoundS3VM", "S4VM"):
            assert presets.first_preset("two_moons", solver) == presets.PAPER
    assert presets.paper_preset("two_moons", "DeterministicAnnealingS3VM").params == {
        "lam": 0.01, "sigma": 0.25}  # the DA Table 2 grid point selected on two moons


def test_the_generic_default_sets_nothing_and_a_missing_paper_preset_falls_back_to_it():
    assert presets.preset_params("two_moons", "LDS", presets.DEFAULT) == {}
    assert presets.paper_preset("clock", "LDS") is None  # the LapSVM paper's clock: no setting
    assert presets.first_preset("clock", "LDS") == presets.DEFAULT
    assert presets.preset_params("clock", "LDS", presets.PAPER) == {}
    assert preset_values("clock", "LDS", presets.PAPER) == preset_values(
        "clock", "LDS", presets.DEFAULT)


def test_the_graph_kernel_preset_is_the_papers_linear_kernel():
    # LDS paper §3.2: "we here fix the linear kernel (sigma = inf)", offered as ∞ in the form.
    sigma = presets.paper_preset("g50c", "GraphKernelSVM").params["sigma"]
    assert math.isinf(sigma)
    param = next(p for p in SOLVERS["GraphKernelSVM"].params if p.name == "sigma")
    assert param.option_text(sigma) == "∞" and param.option_text(None) == "median"


def test_a_paper_preset_keeps_its_graph_at_every_n():
    # chosen on two moons' 200 points: k grows as n (the same neighbourhood radius), γ_I
    # falls as 1/n (fᵀLf sums over n times more points)
    assert presets.scaled("two_moons", "LapSVM", 200) == {}
    assert presets.scaled("two_moons", "LapSVM", 2000) == {"gamma_I": (10.0, 1.0),
                                                           "n_neighbors": (6, 60)}
    assert presets.preset_params("two_moons", "LapRLSC", presets.PAPER, 1000) == {
        "gamma_I": 2.0, "sigma": 0.5, "n_neighbors": 30}
    # g50c's Table 8 setting is for its 550 points: fewer neighbours below, more above
    assert presets.scaled("g50c", "LapSVM", 200) == {"gamma_I": (10.0, 27.5),
                                                     "n_neighbors": (50, 18)}
    values = preset_values("g50c", "LapSVM", presets.PAPER, 2000)
    assert (values["n_neighbors"], values["gamma_I"], values["p"]) == (182, 2.75, 5)
    params = {p.name: p for p in SOLVERS["LapSVM"].params}
    assert params["n_neighbors"].check(182) == 182  # the form holds it
    # a fixed-size data set, a solver without a graph, the default: nothing follows n
    assert presets.scaled("digits_3_8", "LapSVM", 2000) == {}
    assert presets.scaled("two_moons", "DeterministicAnnealingS3VM", 2000) == {}
    assert presets.preset_params("two_moons", "LapSVM", presets.DEFAULT, 2000) == {}
    # the form at n = 2,000 is the paper's preset there, not at n = 200
    assert presets.matching_preset("two_moons", "LapSVM", values := preset_values(
        "two_moons", "LapSVM", presets.PAPER, 2000), 2000) == presets.PAPER
    assert presets.matching_preset("two_moons", "LapSVM", values, 200) is None


def test_the_page_says_what_was_scaled_and_why():
    assert presets.scaled_caption("two_moons", "LapSVM", 200) is None
    text = presets.scaled_caption("two_moons", "LapSVM", 2000)
    assert text.startswith("Scaled to n = 2,000: γ_I 10 → 1, k (neighbours) 6 → 60.")
    assert "for 200 points" in text and "1/n" in text


def test_the_width_of_cs3vm_narrows_with_n_as_a_parzen_windows():
    # chosen on two moons' 200 points: σ follows n^(-1/(d + 4)) with d = 2, as the Parzen
    # window whose density the unlabeled loss measures (LDS paper §2.1.1)
    assert presets.width_power(2) == pytest.approx(-1 / 6)
    assert presets.scaled("two_moons", "ContinuationS3VM", 200) == {}
    assert presets.scaled("two_moons", "ContinuationS3VM", 500) == {"sigma": (0.25, 0.215)}
    assert presets.scaled("two_moons", "ContinuationS3VM", 1000) == {"sigma": (0.25, 0.191)}
    assert presets.preset_params("two_moons", "ContinuationS3VM", presets.PAPER, 2000) == {
        "sigma": 0.17}
    sigma = next(p for p in SOLVERS["ContinuationS3VM"].params if p.name == "sigma")
    assert sigma.check(0.17) == 0.17  # the form holds it
    # a fixed-size data set has no other n; QN-S3VM, with the paper's short α sequence, and
    # the other S3VMs keep their width
    assert presets.scaled("digits_3_8", "ContinuationS3VM", 2000) == {}
    assert presets.scaled("two_moons", "QNS3VM", 2000) == {}
    assert presets.scaled("two_moons", "GradientTSVM", 2000) == {}
    text = presets.scaled_caption("two_moons", "ContinuationS3VM", 1000)
    assert text.startswith("Scaled to n = 1,000: σ (RBF width) 0.25 → 0.191.")
    assert "Parzen window" in text and "graph" not in text


@pytest.mark.slow
def test_lapsvm_as_in_the_paper_separates_the_moons_at_2000_points():
    # issue 29: with the 6 neighbours chosen at n = 200, 30.6 % of the unlabeled points were
    # wrong at n = 2,000 (a fragmented boundary); the supervised SVM had 15.4 %
    from s3vm_explorer.engine.registry import make_estimator
    from toy_data import make_dataset, pick_labeled

    X, y = make_dataset("two_moons", n_samples=2000, random_state=0)
    labels = pick_labeled(y, 1, random_state=0)
    unlabeled = labels == -1

    def error(n_points):
        params = preset_values("two_moons", "LapSVM", presets.PAPER, n_points)
        predicted = make_estimator("LapSVM", params).fit(X, labels).predict(X)
        return float(np.mean(predicted[unlabeled] != y[unlabeled]))

    assert error(2000) <= 0.02
    assert error(200) > 0.10  # the preset as chosen at n = 200 does not


@pytest.mark.slow
def test_cs3vm_as_in_the_paper_separates_the_moons_at_1000_points_on_most_draws():
    # issue 42: with σ = 0.25 chosen at n = 200, 5 of 40 one-label draws at n = 1,000 ended
    # in a boundary through both moons (about 70 % wrong); the narrower width of n = 1,000
    # (0.191) leaves the moons' tips to fewer of them.
    from s3vm_explorer.engine.registry import make_estimator
    from toy_data import make_dataset, pick_labeled

    X, y = make_dataset("two_moons", n_samples=1000, random_state=0)
    draws = [pick_labeled(y, 1, random_state=draw) for draw in range(40)]

    def errors(n_points):
        params = preset_values("two_moons", "ContinuationS3VM", presets.PAPER, n_points)
        out = []
        for labels in draws:
            unlabeled = labels == -1
            model = make_estimator("ContinuationS3VM", params).fit(X, labels)
            out.append(np.mean(model.transduction_[unlabeled] != y[unlabeled]))
        return np.array(out)

    scaled, unscaled = errors(1000), errors(200)
    assert np.sum(scaled <= 0.01) >= 37 and scaled.mean() < 0.05
    assert np.sum(unscaled <= 0.01) < np.sum(scaled <= 0.01)


@pytest.mark.slow
def test_qn_s3vm_cuts_off_a_moons_end_with_the_papers_short_alpha_sequence_only():
    # issue 42: why QN-S3VM's preset misses its lesson on two moons at every n. With the
    # paper's "short sequence of annealing steps" α = 0.01, 0.1, 1 (§4.1.3) the unlabeled term
    # comes in steps of ten and a moon's end is cut off (13-31 % wrong) in a quarter to a
    # half of the draws; the same preset along ten α from 0.001 to 1 (Algorithm 1 takes any
    # increasing sequence) cuts none (the draws it still loses are the moons' tips, about
    # 50-75 % wrong).
    from s3vm_core.solvers.qn import QNS3VM
    from toy_data import make_dataset, pick_labeled

    X, y = make_dataset("two_moons", n_samples=1000, random_state=0)
    params = presets.preset_params("two_moons", "QNS3VM", presets.PAPER, 1000)

    def cut_ends(alphas):
        count = 0
        for draw in range(20):
            labels = pick_labeled(y, 1, random_state=draw)
            unlabeled = labels == -1
            model = QNS3VM(**params, alphas=alphas).fit(X, labels)
            error = np.mean(model.transduction_[unlabeled] != y[unlabeled])
            count += 0.05 < error < 0.4
        return count

    assert cut_ends((0.01, 0.1, 1.0)) >= 4
    assert cut_ends(tuple(np.geomspace(1e-3, 1.0, 10))) == 0
