"""The supervised SVM beside a film is the fair one (issue 41, item 1): the solver's own
kernel, width and C on the labeled points, never a default beside a tuned S3VM."""

import json

import numpy as np
import pytest
from run_helpers import Recorder

from s3vm_core import (
    LDS,
    QNS3VM,
    ContinuationS3VM,
    DeterministicAnnealingS3VM,
    LapSVM,
    OneVsRestS3VM,
    SVMBaseline,
    fair_svm,
)
from s3vm_core.metrics import unlabeled_error
from s3vm_explorer.engine.data import Generated
from s3vm_explorer.engine.notebook import film
from s3vm_explorer.engine.protocol import RunFinished, RunRequest
from s3vm_explorer.engine.run.process import trace_work
from toy_data import blobs, pick_labeled, two_moons

MOONS = Generated("two_moons", 200, 0.1, 0)


def test_the_lecture_s_moons_compare_cs3vm_with_the_svm_of_its_own_sigma_and_c():
    """The cS3VM preset on two moons (σ = 0.25, C = 100) with two labels a class: the dashed
    SVM is LIBSVM at σ = 0.25 and C = 100 on the same four labels, and the film's "vs
    supervised SVM" is the difference to that SVM's error."""
    data = MOONS.build()
    labels = pick_labeled(data.y_true, 2, random_state=0)
    channel = Recorder()
    trace_work(channel, RunRequest(MOONS, tuple(labels.tolist()), "ContinuationS3VM",
                                   (("C", 100.0), ("sigma", 0.25))))
    (finished,) = channel.of(RunFinished)
    expected = SVMBaseline(C=100.0, sigma=0.25).fit(data.X, labels)
    np.testing.assert_allclose(finished.baseline.decision, expected.decision_function(data.X),
                               atol=1e-6)
    assert finished.baseline.description == ("supervised SVM, same kernel σ = 0.25 and "
                                              "C = 100 (its cost of the labeled points), on "
                                              "the 4 labeled points")
    svm_error = unlabeled_error(expected.decision_function(data.X), labels, data.y_true)
    default_error = unlabeled_error(SVMBaseline().fit(data.X, labels).decision_function(
        data.X), labels, data.y_true)
    assert svm_error < default_error  # the default SVM flattered the S3VM
    (error,) = [n for n in finished.films[True]["numbers"] if n["label"] == "unlabeled error"]
    final = float(error["values"][-1].removesuffix(" %"))
    assert error["notes"][-1] == (f"{final - 100 * svm_error:+.1f} percentage points vs "
                                  "supervised SVM")
    assert "σ = 0.25 and C = 100" in error["help"]


@pytest.mark.parametrize("estimator, C", [
    (QNS3VM(lam=0.01), 1 / (2 * 0.01 * 4)),                 # eq. (5) / (2 lam), l = 4
    (DeterministicAnnealingS3VM(lam=0.1), 1 / (0.1 * 4)),   # DA's eq. (1) / lam
    (LapSVM(gamma_A=0.05), 1 / (2 * 0.05)),                 # problem (4) / (2 gamma_A)
])
def test_each_solver_s_cost_of_the_labeled_points_is_mapped_as_its_paper_writes_it(
        estimator, C):
    X, y = two_moons(80, noise=0.1, random_state=0)
    labels = pick_labeled(y, 2, random_state=0)
    estimator.set_params(sigma=0.4).fit(X, labels)
    svm = fair_svm(estimator, labels)
    assert svm.C == pytest.approx(C) and svm.sigma == 0.4 and svm.kernel == "rbf"


def test_a_kernel_built_through_the_unlabeled_points_has_the_gaussian_of_the_default_width():
    X, y = two_moons(80, noise=0.1, random_state=0)
    labels = pick_labeled(y, 2, random_state=0)
    lds = LDS().fit(X, labels)
    svm = fair_svm(lds, labels)
    assert svm.kernel == "rbf" and svm.sigma is None and svm.C == pytest.approx(lds.C_)


def test_one_vs_rest_stands_beside_one_vs_rest_of_its_fair_svm():
    X, y = blobs(90, random_state=0)
    labels = pick_labeled(y, 2, random_state=0)
    model = OneVsRestS3VM(ContinuationS3VM(sigma=0.5, C=10.0)).fit(X, labels)
    svm = fair_svm(model, labels)
    assert isinstance(svm, OneVsRestS3VM)
    assert svm.estimator.get_params()["C"] == 10.0 and svm.estimator.sigma == 0.5


def test_the_notebook_film_stands_beside_the_same_svm():
    X, y = two_moons(60, noise=0.1, random_state=0)
    labels = pick_labeled(y, 2, random_state=0)
    shown = film(ContinuationS3VM(sigma=0.3, C=10.0), X, labels, y_true=y)
    said = json.dumps("supervised SVM, same kernel σ = 0.3 and C = 10")[1:-1]  # as the page
    assert said in shown.page


def test_the_s4vm_film_walks_through_its_candidates_and_ends_on_what_it_kept():
    source = Generated("two_moons", 80, 0.1, 0)
    labels = pick_labeled(source.build().y_true, 2, random_state=0)
    channel = Recorder()
    trace_work(channel, RunRequest(source, tuple(labels.tolist()), "S4VM",
                                   (("sample_time", 20), ("sigma", 0.3))))
    (finished,) = channel.of(RunFinished)
    titles = finished.films[True]["titles"]
    assert sum(title.startswith("candidate = ") for title in titles) >= 10
    assert titles[-1] in ("the safe choice: the SVM's own labels",
                          "the safe choice: the labeling of best worst-case gain") or (
        titles[-1].startswith("the safe choice: candidate "))
    assert "supervised SVM, same kernel σ = 0.3 and C = 100" in finished.baseline.description
