"""What a finished fit says about itself (docs/architecture.md, "Nothing silent").

Every estimator's trace ends in ``diagnose_fit`` (``base.S3VMClassifier._run``), which looks
at the "final" state and warns when the model is degenerate or its class balance disagrees
with the labels it was taken from:

``DegenerateFitWarning``
    The decision function is constant on the training points (it varies by less than
    ``CONSTANT_SPREAD``, where every solver here puts its margin at +-1), or it gives one class
    to every training point although labeled points of both classes were given. The message
    names the settings that do this to that solver (its ``_degenerate_causes``), those the
    user changed first, with their defaults, and what in X can do it (its scale, one far
    outlier, labeled points of both classes at one spot).
``BalanceWarning``
    The solver took the share of the positive class among the unlabeled points from the
    labeled points (the balance constraint of the TSVM papers, DA's ``r=None``, Joachims'
    ``num+``), and its predictions on the unlabeled points end more than ``BALANCE_GAP`` away
    from that share: the labels were probably not drawn in the data's proportions. The
    message says what to set.

Both are ``UserWarning`` subclasses, exported by ``s3vm_core``: ``warnings.simplefilter`` can
silence or raise them by name, and the app and the command line show them as sentences.
"""

from __future__ import annotations

import inspect
import warnings
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from s3vm_core.kernels import default_sigma
from s3vm_core.problem import Problem, largest_value


class DegenerateFitWarning(UserWarning):
    """A fit that ended with the same decision value at every training point, or with one
    class for all of them, although labeled points of both classes were given."""


class BalanceWarning(UserWarning):
    """The share of the unlabeled points predicted in the positive class is far from the
    share the solver took from the labeled points."""


@dataclass(frozen=True, slots=True)
class OneVsRestProblem:
    """Set by ``OneVsRestS3VM`` on each binary estimator (as ``_one_vs_rest``): the class of
    its problem against the rest, and the parameters one-vs-rest chose for it (the k-class
    kernel width), which count as defaults in the messages."""

    positive_class: object
    given: dict


#: The decision values of a fit that vary by less than this over the training points are
#: "constant": every solver here has its margin at f = +-1, so such a model leaves every point
#: deep inside the margin and its classes come from round-off (f ≡ 0 is the usual case).
CONSTANT_SPREAD = 1e-6

#: How far (as a share of the unlabeled points) the predicted share of the positive class may
#: end from the share taken from the labels before ``BalanceWarning``: a quarter of the
#: unlabeled points on the other side of the boundary than the labels' proportions ask.
BALANCE_GAP = 0.25

#: Fewer unlabeled points than this give shares too coarse to compare (one point is 10 %).
BALANCE_MIN_UNLABELED = 10

#: An outlier, for the message: the largest absolute value of X beyond this many times the
#: 99th percentile of the absolute values (a Gaussian kernel of median width then sees it at
#: distance "infinity" and, in a linear model, it alone fixes the scale).
OUTLIER_RATIO = 1e3

#: Labeled points of both classes "at one spot": their largest distance from their mean below
#: this fraction of the data's.
ONE_SPOT = 1e-6

#: Where X is this far from values of order 1, its scale is named in the message.
SCALE_RANGE = (1e-6, 1e6)


# -- why a parameter makes a fit degenerate: the phrases the solvers' ``_degenerate_causes``
# -- share (each solver lists its own parameters, most likely first)

#: The Gaussian width: the kernel of points much closer than sigma is nearly 1 for every pair.
WIDE_KERNEL = "a sigma far above the distances between points makes the kernel flat"
#: The tolerance of an L-BFGS stage (cS3VM, QN-S3VM, ∇TSVM, LDS).
LBFGS_TOL = "L-BFGS stops at its start, a constant f, when no gradient entry there exceeds tol"
#: A cost in front of the losses, against the regularizer's weight 1.
SMALL_COST = "a small cost lets the regularizer flatten f"
#: A weight in front of the regularizer, against the losses' weight 1.
LARGE_NORM_WEIGHT = "a large weight on ||f||^2 flattens f"


#: What to do when the balance comes from the labels and no parameter sets it.
LABEL_PROPORTIONS = ("Label points of each class in about the proportions of the classes in the "
                     "data.")


def diagnose_fit(estimator, final, problem: Problem) -> None:
    """Warn when the fit that ended in the state ``final`` is degenerate, or its balance is
    far from the one taken from the labels (see the module docstring)."""
    f = np.asarray(final.train_decision, dtype=float)
    if f.size == 0:
        return
    # (one-vs-rest names the problem before the message: ``multiclass.OneVsRestS3VM``)
    name = type(estimator).__name__
    spread = float(np.ptp(f))
    positive = f > 0
    if spread < CONSTANT_SPREAD:
        what = (f"a constant decision function: f varies by {spread:.2g} over the {f.size} "
                "training points, where the margin is at f = ±1, so every point lies deep "
                f"inside the margin and the model ({_class_text(estimator, positive)}) is no "
                "more than a constant")
    elif positive.all() or not positive.any():
        negative, positive_class = class_phrases(estimator)
        what = (f"one class for every training point ({_class_text(estimator, positive)}), "
                f"although {negative} and {positive_class} both have labeled points")
    else:
        _check_balance(estimator, name, positive, problem)
        return
    warnings.warn(
        f"{name} ended with {what}. {_causes(estimator, problem)}{_data_causes(problem)}"
        f"{_balance_cause(estimator, problem)}",
        DegenerateFitWarning, stacklevel=_user_level(),
    )


def class_phrases(estimator) -> tuple[str, str]:
    """How the messages name the negative and the positive class, in the user's labels (in
    one-vs-rest: the other classes, and the problem's class)."""
    ovr = getattr(estimator, "_one_vs_rest", None)
    if ovr is not None:
        return "the other classes", f"class {ovr.positive_class!r}"
    negative, positive = np.asarray(estimator.classes_).tolist()
    return f"class {negative!r}", f"class {positive!r}"


def _class_text(estimator, positive) -> str:
    """Which classes the fit gives the training points."""
    negative, positive_class = class_phrases(estimator)
    count = int(np.count_nonzero(positive))
    # in one-vs-rest, the classes of this problem's f, not those the k problems give together
    own = "" if getattr(estimator, "_one_vs_rest", None) is None else ", by this problem's own f"
    if count in (0, positive.size):
        return f"{positive_class if count else negative} for all of them{own}"
    return f"{positive_class} for {count} of them, {negative} for the others{own}"


def _causes(estimator, problem: Problem) -> str:
    """The sentence naming the settings that make this solver degenerate: those moved away
    from their defaults first (with the defaults), then the others. A value one-vs-rest chose
    (the k-class width) counts as a default, and so does a width no wider than the default's
    (a narrow kernel is not flat: it is not what made the fit constant)."""
    causes = getattr(estimator, "_degenerate_causes", {})
    if not causes:
        return ""
    signature = inspect.signature(type(estimator).__init__).parameters
    ovr = getattr(estimator, "_one_vs_rest", None)
    given = {} if ovr is None else ovr.given
    params = estimator.get_params(deep=False)
    changed, others = [], []
    for parameter, why in causes.items():
        if parameter == "sigma" and params.get("kernel", "rbf") != "rbf":
            continue  # the Gaussian width acts on the Gaussian kernel only
        value, default = params.get(parameter), signature[parameter].default
        if parameter == "sigma" and value is not None and value <= default_sigma(problem.X):
            others.append(f"{parameter} ({why})")
        elif repr(value) != repr(default) and not (parameter in given
                                                   and repr(value) == repr(given[parameter])):
            changed.append(f"{parameter}={_value_text(value)} (the default is "
                           f"{_value_text(default)}): {why}")
        else:
            others.append(f"{parameter} ({why})")
    text = ""
    if changed:
        text = (f"Likely cause{'s' * (len(changed) > 1)}: {'; '.join(changed)}. Move "
                f"{'them' if len(changed) > 1 else 'it'} back toward the default.")
    if others:
        text += (f"{' Other settings' if changed else 'Settings'} that can do this: "
                 f"{'; '.join(others)}.")
    return text


def _value_text(value) -> str:
    return f"{value:g}" if isinstance(value, float) else repr(value)


def _data_causes(problem: Problem) -> str:
    """What in X can make a fit degenerate, where it is so: one far outlier or a scale far
    from 1, labeled points of both classes at one spot."""
    X = problem.X
    values = np.abs(X.data if sp.issparse(X) else np.asarray(X)).ravel()
    largest = largest_value(X)
    said = []
    low, high = SCALE_RANGE
    typical = float(np.quantile(values, 0.99)) if values.size else 0.0
    if largest > OUTLIER_RATIO * typical > 0:
        said.append(f"one or a few values of X (up to {largest:.3g}) lie far beyond the others "
                    f"(99 % are below {typical:.3g}): remove such outliers, or standardize "
                    "each feature")
    elif not low <= largest <= high:
        said.append(f"X's largest absolute value is {largest:.3g}: rescale X so that its "
                    "values are of order 1, for example by standardizing each feature")
    if not sp.issparse(X) and _labeled_at_one_spot(np.asarray(X, dtype=float), problem):
        said.append("the labeled points of both classes lie at one spot, so the labels say "
                    "nothing about where the classes are: label points of each class where "
                    "that class lies")
    return "".join(f" In the data: {text}." for text in said)


def _labeled_at_one_spot(X, problem: Problem) -> bool:
    """Whether the labeled points lie within ``ONE_SPOT`` times the data's typical distance
    (the median distance to the coordinate-wise median: one far outlier does not move it)
    of one another."""
    labeled = X[problem.labeled]
    spread = np.max(np.linalg.norm(labeled - labeled[0], axis=1))
    typical = np.median(np.linalg.norm(X - np.median(X, axis=0), axis=1))
    return bool(spread <= ONE_SPOT * typical)


def _labeled_share(problem: Problem) -> float:
    """The share of the positive class among the labeled points: the balance a solver that
    takes it from the labels asks of the unlabeled points."""
    return float(np.mean(problem.y[problem.labeled] > 0))


def _balance_cause(estimator, problem: Problem) -> str:
    """For a degenerate fit: the balance taken from unbalanced labels, which pulls f toward
    the larger class."""
    advice = estimator._balance_from_labels()
    target = _labeled_share(problem)
    if advice is None or abs(target - 0.5) <= BALANCE_GAP:
        return ""
    return (f" In the labels: {target:.0%} of the labeled points are "
            f"{class_phrases(estimator)[1]}, and the fit takes its class balance from them, "
            f"which pulls f toward the larger class. {advice}")


def _check_balance(estimator, name: str, positive, problem: Problem) -> None:
    advice = estimator._balance_from_labels()
    unlabeled = problem.unlabeled
    if advice is None or np.count_nonzero(unlabeled) < BALANCE_MIN_UNLABELED:
        return
    target = _labeled_share(problem)
    share = float(np.mean(positive[unlabeled]))
    if abs(share - target) <= BALANCE_GAP:
        return
    positive_class = class_phrases(estimator)[1]
    count, total = int(np.count_nonzero(positive[unlabeled])), int(np.count_nonzero(unlabeled))
    # in one-vs-rest the share is this problem's own, not the classes the k problems give
    predicts = ("it predicts" if getattr(estimator, "_one_vs_rest", None) is None
                else "this problem's own f predicts")
    warnings.warn(
        f"{name} took the class balance from the labels: {target:.0%} of the labeled points "
        f"are {positive_class}, and it expects about that share among the unlabeled points, "
        f"but {predicts} {share:.0%} of them ({count} of {total}) as {positive_class}. The "
        f"labeled points are probably not in the data's proportions. {advice}",
        BalanceWarning, stacklevel=_user_level(),
    )


def _user_level() -> int:
    """The ``stacklevel`` of the caller's frame outside s3vm_core (the loop over ``trace``,
    or ``fit``'s caller), so that a warning points at the user's line."""
    # level 1 is the function that calls warnings.warn, one frame above this one
    frame, level = inspect.currentframe().f_back, 1
    while frame is not None and frame.f_globals.get("__name__", "").startswith("s3vm_core"):
        frame, level = frame.f_back, level + 1
    return level
