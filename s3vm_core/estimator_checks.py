"""The checks of scikit-learn's ``check_estimator`` that the library's estimators fail, and why.

Every estimator of ``s3vm_core`` passes scikit-learn's estimator checks but one: its
semi-supervised convention (``-1`` marks an unlabeled point) reads the class label ``-1`` that
``check_classifiers_classes`` feeds as "unlabeled". Pass ``expected_failed_checks`` to
scikit-learn's tools to check an estimator, or one built on the library's, the same way the
project's own tests do::

    from sklearn.utils.estimator_checks import check_estimator
    from s3vm_core import GradientTSVM, expected_failed_checks

    check_estimator(GradientTSVM(), expected_failed_checks=expected_failed_checks(GradientTSVM()))

    @parametrize_with_checks([GradientTSVM()], expected_failed_checks=expected_failed_checks)
    def test_sklearn_compatible(estimator, check):
        check(estimator)
"""

from __future__ import annotations

#: The checks every estimator of the library is expected to fail, with the reason.
EXPECTED_FAILED_CHECKS = {
    "check_classifiers_classes": (
        "the check uses -1 as a class label, and -1 is the semi-supervised convention's marker "
        "of an unlabeled point (scikit-learn's own LabelSpreading reads it so too), so one of "
        "the check's classes is read as unlabeled points."
    ),
}


def expected_failed_checks(estimator) -> dict[str, str]:
    """The estimator checks that ``estimator`` is expected to fail: ``{check name: reason}``.

    For any estimator of ``s3vm_core`` (``OneVsRestS3VM`` included) it is
    ``EXPECTED_FAILED_CHECKS``; for any other estimator, none.
    """
    from s3vm_core.base import S3VMClassifier
    from s3vm_core.multiclass import OneVsRestS3VM

    if isinstance(estimator, S3VMClassifier | OneVsRestS3VM):
        return dict(EXPECTED_FAILED_CHECKS)
    return {}
