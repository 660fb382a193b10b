"""One-vs-rest over any estimator of ``s3vm_core``: k >= 2 classes, unlabeled points kept unlabeled.

``OneVsRestS3VM(estimator)`` solves one binary problem per class c: the labeled points of c are
its positive class, the labeled points of every other class its negative class, and every
unlabeled point stays unlabeled in each problem (never "rest"), as in the LDS paper §2 ("for
multi-class problems, we use the one-against-rest scheme"), the cS3VM paper §5.3 (Table 4,
"1-vs-rest") and the LapSVM paper §6 ("the one-against-all approach").

Tracing (docs/architecture.md, "Tracing"). ``trace(X, y)`` yields ``OneVsRestState``s that
advance the k binary problems in lock step: state i holds, for every class, that problem's i-th
``SolverState`` (its last once it has finished), so one frame shows all k boundaries and the
trace ends with the slowest problem. Input is validated and the k feature maps are built before
the generator returns; with ``n_jobs > 1`` the k traces run in joblib workers first and are
merged in lock step, so the generator returns when they are done. ``features(X_new)`` is one
matrix F shared by the k problems when their feature maps coincide -- the usual case: a
solver's map depends on X, its parameters and the unlabeled set, which every binary problem
shares; it is detected by comparing the k maps on a probe of training rows -- and otherwise the
k maps side by side. Either way ``features(X_new) @ state.coef + state.intercept`` is the
(n_new, k) matrix of the k decision functions: ``state.coef`` is (p, k), one column per class
(block-diagonal, (p_1 + ... + p_k, k), when the maps differ), ``state.intercept`` is (k,). So
``decision_on_grid(F, states)`` gives every frame, (n_frames, n_points, k), in one matrix
product; the winning class is the argmax over the last axis and class c's boundary is the zero
contour of ``[..., c]``.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from numbers import Integral

import numpy as np
import scipy.sparse as sp
from joblib import Parallel, delayed, effective_n_jobs
from scipy.linalg import block_diag
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.exceptions import NotFittedError
from sklearn.utils import get_tags
from sklearn.utils._param_validation import HasMethods, InvalidParameterError
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from s3vm_core.base import labeled_score
from s3vm_core.diagnostics import (
    BalanceWarning,
    DegenerateFitWarning,
    OneVsRestProblem,
    _user_level,
)
from s3vm_core.kernels import default_sigma
from s3vm_core.problem import (
    UNLABELED,
    _names_string_minus_one,
    check_known_labels,
    check_label_kinds,
    encode_labels,
    make_problem,
    numbers_only,
    unlabeled_mask,
)
from s3vm_core.trace import SolverState, frozen

#: Training rows on which the k feature maps are compared (``shared_features_``): maps that
#: agree bit for bit on this many spread-out training points are the same map in practice.
PROBE_ROWS = 16


@dataclass(frozen=True, slots=True)
class OneVsRestState:
    """One step of the k binary problems advanced in lock step (see the module docstring).

    Attributes
    ----------
    step : int
        Position in the one-vs-rest trace: 0, 1, 2, ...
    states : tuple of SolverState
        Problem c's state at this step (``classes_[c]`` against the rest): its ``step``-th
        recorded state, or its last one once it has finished.
    shared_features : bool
        Whether the k problems share one feature map; decides the layout of ``coef``.

    It reads like a ``SolverState`` (``stage``, ``stage_value``, ``iteration``, ``event``,
    ``objective``, ``grad_norm``, ``train_decision``, ``extras``), so that what films a binary
    trace films this one; the stage is that of the first problem still running (``leading``).
    """

    step: int
    states: tuple[SolverState, ...]
    shared_features: bool

    @property
    def coef(self) -> np.ndarray:
        """(p, k), one column per class; block-diagonal (p_1 + ... + p_k, k) when the k
        problems have their own feature maps. ``features(X) @ coef + intercept`` is (n, k)."""
        columns = [s.coef[:, None] for s in self.states]
        return frozen(np.hstack(columns) if self.shared_features else block_diag(*columns))

    @property
    def intercept(self) -> np.ndarray:
        return frozen([s.intercept for s in self.states])

    @property
    def train_decision(self) -> np.ndarray:
        """(n, k): every problem's decision function on the training points."""
        return frozen(np.column_stack([s.train_decision for s in self.states]))

    @property
    def objective(self) -> float:
        """The sum of the k objectives: the problems are independent, so this is what the
        one-vs-rest scheme minimizes (each at its own stage)."""
        return math.fsum(s.objective for s in self.states)

    @property
    def grad_norm(self) -> float:
        """Norm of the k gradients stacked into one vector."""
        return math.sqrt(math.fsum(s.grad_norm**2 for s in self.states))

    @property
    def finished(self) -> tuple[bool, ...]:
        """Per class: whether that problem has reached its final state."""
        return tuple(s.event == "final" for s in self.states)

    @property
    def leading(self) -> SolverState:
        """The state whose stage this step shows: that of the first problem still running (the
        problems share their schedule, so at one step they stand at about the same stage), or
        the last problem's once all have finished."""
        return next((s for s in self.states if s.event != "final"), self.states[-1])

    @property
    def stage(self) -> str:
        return self.leading.stage

    @property
    def stage_index(self) -> int:
        return self.leading.stage_index

    @property
    def stage_value(self) -> float:
        return self.leading.stage_value

    @property
    def iteration(self) -> int:
        return self.leading.iteration

    @property
    def extras(self) -> dict:
        """None: each problem's own (DA's soft labels p of its class...) are in
        ``states[c].extras``, and no one value stands for the k of them."""
        return {}

    @property
    def event(self) -> str:
        """"init" while every problem is at its first state, "final" once every problem has
        finished, "iter" in between."""
        if all(self.finished):
            return "final"
        return "init" if all(s.event == "init" for s in self.states) else "iter"


def lock_step(paths: Iterable[Iterable[SolverState]], shared_features: bool):
    """Merge k binary traces into ``OneVsRestState``s: at step i every problem that has not
    finished contributes its next state, a finished one keeps its last."""
    iterators = [iter(path) for path in paths]
    current: list[SolverState | None] = [None] * len(iterators)
    live = [True] * len(iterators)
    for step in itertools.count():
        for c, states in enumerate(iterators):
            if live[c]:
                state = next(states, None)
                live[c] = state is not None
                current[c] = state if live[c] else current[c]
        if not any(live):
            return
        yield OneVsRestState(step=step, states=tuple(current), shared_features=shared_features)


def one_vs_rest_targets(y, classes) -> list[np.ndarray]:
    """The k binary label vectors: 1 for class c, 0 for the other labeled points, and ``-1``
    (unlabeled) for every unlabeled point, in each of them."""
    unlabeled = unlabeled_mask(y)
    return [np.where(unlabeled, UNLABELED, (y == c).astype(int)) for c in classes]


def _trace_one(estimator, X, y, every, keep_path, fit_params):
    """Run one binary problem to its end (in a joblib worker): ``(estimator, states,
    warnings)``, the states all of them or, with ``keep_path=False``, the final one. Warnings
    are recorded so that the calling process can raise them again (a worker's are lost)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        states = []
        for state in estimator.trace(X, y, every=every, **fit_params):
            if not keep_path:
                states.clear()
            states.append(state)
    return estimator, states, [(w.message, w.category) for w in caught]


def _heard(path, caught: list):
    """``path``'s states, with the warnings each step raises kept in ``caught`` as
    ``(message, category)`` instead of shown: ``OneVsRestS3VM`` says them at the end, naming
    their problem (``_problem_said``), as it does a worker's."""
    states = iter(path)
    while True:
        with warnings.catch_warnings(record=True) as heard:
            warnings.simplefilter("always")
            state = next(states, None)
        caught.extend((w.message, w.category) for w in heard)
        if state is None:
            return
        yield state


def _same_features(A, B) -> bool:
    if sp.issparse(A) or sp.issparse(B):
        return sp.issparse(A) and sp.issparse(B) and A.shape == B.shape and (A != B).nnz == 0
    return np.array_equal(A, B)


def shares_features(estimators, X) -> bool:
    """Whether every estimator maps ``PROBE_ROWS`` spread-out rows of ``X`` to the same
    features bit for bit. The same class, parameters, ``X`` and unlabeled set give the same
    map; a random subset drawn anew for each problem (``random_state=None`` with
    ``n_components`` or ``n_landmarks``) does not."""
    rows = np.unique(np.linspace(0, X.shape[0] - 1, min(X.shape[0], PROBE_ROWS)).astype(int))
    first = estimators[0].features(X[rows])
    return all(_same_features(first, e.features(X[rows])) for e in estimators[1:])


class OneVsRestS3VM(ClassifierMixin, BaseEstimator):
    """One-vs-rest over any semi-supervised estimator of ``s3vm_core``: k >= 2 classes.

    One binary problem per class c, solved by a clone of ``estimator``: the labeled points of
    c against the labeled points of all other classes, every unlabeled point unlabeled in each
    problem (never "rest"). This is the one-against-rest scheme of the LDS paper (§2), of the
    cS3VM paper's Table 4 ("1-vs-rest") and of the LapSVM paper (§6, "one-against-all").

    Balance constraints. Each binary problem keeps its solver's own constraint, with the class
    ratio taken from its labeled points, as the papers do: the LDS paper applies constraint (5),
    ``mean_unlabeled f = mean_labeled y``, unchanged to each one-against-rest problem; the
    cS3VM paper's Table 4 keeps "the hyperparameters ... of Section 4.2" and constraint (3),
    the same equation; the DA paper's r of eq. (5) "may also be estimated from the labeled
    examples", and its COIL6 protocol draws stratified splits "so that each algorithm compared
    was provided an accurate estimate of class ratios" (§4); LapSVM has no balance constraint.
    With n_c of the l labeled points in class c this gives ``mean_labeled y = 2 n_c / l - 1``
    (∇TSVM, LDS, cS3VM, QN-S3VM's offset) and ``r = n_c / l`` (DA): with as many labels per
    class as the classes are large -- 5 labels for each of 10 equal classes: -0.8 and 0.1 --
    every problem asks for the true fraction of its class among the unlabeled points; an
    unequal draw of labels asks for that draw's fractions. A fixed ``r`` given to
    ``DeterministicAnnealingS3VM`` would ask every class for the same fraction, so it is
    refused: leave ``r=None``.

    Warnings. What a binary problem warns of (an iteration limit, a degenerate fit, a balance
    far from the labels') is said once the fit has ended, in the same category, naming the
    problem in the user's classes first ("In the one-vs-rest problem "class 1 against the
    others": ..."); a diagnosis of the problem's classes, which counts the points on each
    side of its own f, adds the classes the k problems give together (``predict``).

    Kernel width. A wrapped estimator with ``kernel="rbf"`` and ``sigma=None`` gets the LDS
    paper's default for a c-class problem (§2.3.2): "the 1/c quantile of the pairwise
    distances", with c = k, the same for every binary problem (a binary estimator alone takes
    the median, c = 2).

    Parameters
    ----------
    estimator : estimator of s3vm_core
        Any binary estimator with ``trace`` and ``features`` (``LapSVM()``, ``GradientTSVM()``,
        ...); cloned once per class.
    n_jobs : int or None, default=None
        joblib workers for the k binary problems (``None``: 1 unless in a
        ``joblib.parallel_config`` context; ``-1``: all cores). With more than one worker,
        ``trace`` runs the k problems to the end before it returns.

    Attributes
    ----------
    classes_ : ndarray of shape (k,)
        The labeled classes, sorted; problem c separates ``classes_[c]`` from the rest.
    estimators_ : list of k fitted estimators
        ``estimators_[c]`` was fitted with ``classes_ == [0, 1]``, 1 meaning ``classes_[c]``.
    shared_features_ : bool
        Whether the k problems share one feature map (see ``shares_features``).
    coef_ : ndarray of shape (p, k)
        The final state's ``coef``; ``features(X) @ coef_ + intercept_`` are the k outputs.
    intercept_ : ndarray of shape (k,)
    transduction_ : ndarray of shape (n_samples,)
        The predicted class of every training point (the largest of the k outputs).
    n_iter_ : ndarray of shape (k,)
        Each binary problem's ``n_iter_``.
    n_features_in_, feature_names_in_ : as in scikit-learn.

    Notes
    -----
    ``decision_function`` has shape (n, k) for k >= 3. For k = 2 it has shape (n,), as
    scikit-learn's binary classifiers (``check_estimator`` asserts it): ``(f_1 - f_0) / 2``,
    positive for ``classes_[1]`` and largest where class 1 beats class 0 by most. With k = 2
    the two problems are mirror images (class 0 against class 1 and the reverse), so
    ``f_0 = -f_1`` up to round-off for every symmetric solver and this is ``f_1``, the binary
    solver's own output. ``features(X) @ coef_ + intercept_`` and ``decision_on_grid`` keep all
    k outputs for every k.

    ``score`` counts the labeled points only (points marked ``-1`` are left out, as in every
    binary estimator). There is no ``predict_proba``: the k outputs are margins, not
    probabilities (see ``base.S3VMClassifier``); ``decision_function`` ranks the classes.
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "trace", "features", "decision_function"])],
        "n_jobs": [Integral, None],
    }

    def __init__(self, estimator, n_jobs=None):
        self.estimator = estimator
        self.n_jobs = n_jobs

    def _validate_params(self):
        """scikit-learn's validation, and sentences for what it lets through: a one-vs-rest
        estimator inside another, and ``n_jobs=0`` (joblib: "has no meaning")."""
        super()._validate_params()
        if isinstance(self.estimator, OneVsRestS3VM):
            raise InvalidParameterError(
                f"OneVsRestS3VM wraps a binary estimator, and it was given another "
                f"OneVsRestS3VM ({self.estimator!r}). One is enough: it already solves one "
                "binary problem per class, so pass the binary estimator itself, e.g. "
                "OneVsRestS3VM(LapSVM())."
            )
        if self.n_jobs == 0:
            raise InvalidParameterError(
                "The 'n_jobs' parameter of OneVsRestS3VM is 0, which would run no worker. Use "
                "None or 1 for one process, k > 1 for k workers, or -1 for every core."
            )

    # -- fitting ----------------------------------------------------------------------------

    def trace(self, X, y, *, every: int = 1, **fit_params):
        """Fit while yielding the k problems' paths in lock step (``OneVsRestState``).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Class labels (at least two classes labeled), ``-1`` for unlabeled points.
        every : int, default=1
            Passed to every binary ``trace``: keep one "iter" state in ``every``.
        **fit_params
            Passed to every binary ``trace``; a labeled validation set ``y_val`` (LapSVM's
            early stopping) is turned into class c against the rest for problem c.

        Returns
        -------
        generator of OneVsRestState
            ``features()`` works as soon as this returns; exhausting the generator leaves the
            estimator fitted on the last state.
        """
        return self._trace(X, y, every, keep_path=True, fit_params=fit_params)

    def fit(self, X, y, **fit_params):
        """Fit the k binary problems (exhausts the trace). Returns self."""
        # the workers of a parallel fit send back their final state only, not the whole path
        for _ in self._trace(X, y, 1, keep_path=False, fit_params=fit_params):
            pass
        return self

    def _trace(self, X, y, every, keep_path, fit_params):
        if isinstance(every, bool) or not isinstance(every, Integral) or every < 1:
            raise ValueError(f"every must be a positive integer, got {every!r}.")
        self._validate_params()
        for attribute in ("estimators_", "coef_", "intercept_", "transduction_"):
            self.__dict__.pop(attribute, None)
        self._feature_maps = None
        with numbers_only():
            X, y = validate_data(
                self, X, y, accept_sparse=self._accepts_sparse and "csr", dtype=np.float64,
                y_numeric=False, ensure_min_samples=2, ensure_all_finite=False,
            )
        self.classes_ = _labeled_classes(y)
        targets = one_vs_rest_targets(y, self.classes_)
        make_problem(X, targets[0])  # the binary problems' checks of X, before the width
        estimators = [self._binary_estimator(X, c) for c in self.classes_]
        if fit_params.get("y_val") is not None:
            # as the binary estimator would, before -1 could become "rest" in every problem
            check_known_labels(fit_params["y_val"], self.classes_)
        fit_params = [_binary_fit_params(fit_params, c) for c in self.classes_]
        if effective_n_jobs(self.n_jobs) > 1:
            done = Parallel(n_jobs=self.n_jobs)(
                delayed(_trace_one)(estimator, X, y_c, every, keep_path, params)
                for estimator, y_c, params in zip(estimators, targets, fit_params, strict=True))
            estimators = [estimator for estimator, _, _ in done]
            paths = [states for _, states, _ in done]
            heard = [caught for _, _, caught in done]
        else:
            # each binary trace validates and builds its feature map now, before any state
            heard = [[] for _ in self.classes_]
            paths = [_heard(estimator.trace(X, y_c, every=every, **params), caught)
                     for estimator, y_c, params, caught in zip(estimators, targets, fit_params,
                                                               heard, strict=True)]
        self._feature_maps = estimators
        self._shared_features = shares_features(estimators, X)
        return self._run(lock_step(paths, self._shared_features), heard, unlabeled_mask(y))

    def _run(self, states, heard, unlabeled):
        final = None
        for state in states:
            final = state
            yield state
        self.estimators_ = self._feature_maps
        self.shared_features_ = self._shared_features
        self.coef_ = np.array(final.coef)
        self.intercept_ = np.array(final.intercept)
        self.transduction_ = self.classes_[np.argmax(final.train_decision, axis=1)]
        self.n_iter_ = np.array([getattr(e, "n_iter_", 1) for e in self.estimators_])
        for c, caught in enumerate(heard):
            for message, category in caught:
                warnings.warn(self._problem_said(c, str(message), category, unlabeled),
                              category, stacklevel=_user_level())

    def _problem_said(self, c: int, message: str, category, unlabeled) -> str:
        """What problem ``c`` warned of, as the one-vs-rest estimator says it: the problem
        named in the user's classes first, and after a diagnosis of its classes
        (``diagnostics.BalanceWarning``, ``DegenerateFitWarning``), which count the points
        on the side of its own f, the classes the k problems give together (the largest f),
        which is what ``predict`` and a picture of the classes show."""
        name = f"class {np.asarray(self.classes_[c]).tolist()!r}"
        said = f"In the one-vs-rest problem \"{name} against the others\": {message}"
        if not issubclass(category, BalanceWarning | DegenerateFitWarning):
            return said
        points = unlabeled if issubclass(category, BalanceWarning) else np.ones_like(unlabeled)
        kind = "unlabeled points" if issubclass(category, BalanceWarning) else "training points"
        count = int(np.sum(self.transduction_[points] == self.classes_[c]))
        return (f"{said} (Together, the {len(self.classes_)} problems give each point the "
                f"class of the largest f: {count} of the {int(points.sum())} {kind} are "
                f"{name}.)")

    def _binary_estimator(self, X, c):
        """A clone of ``estimator`` for the problem of class ``c`` against the rest, with the
        k-class kernel width. What it warns names that problem and the classes by the
        user's labels (``diagnostics.OneVsRestProblem``)."""
        estimator = clone(self.estimator)
        params = estimator.get_params(deep=False)
        if params.get("r") is not None and not isinstance(params["r"], str):
            # (a rule such as S4VM's r="svm" is computed in each problem, from its own data)
            raise ValueError(
                f"{type(estimator).__name__}(r={params['r']!r}) would ask every class for the "
                "same fraction of the unlabeled points. In one-vs-rest each class has its own "
                "fraction: leave r=None, and each binary problem takes its class's fraction "
                "among the labeled points (DA paper, eq. (5))."
            )
        given = {}
        if params.get("kernel") == "rbf" and "sigma" in params and params["sigma"] is None:
            given["sigma"] = default_sigma(X, n_classes=len(self.classes_))
            estimator.set_params(**given)
        estimator._one_vs_rest = OneVsRestProblem(np.asarray(c).tolist(), given)
        return estimator

    @property
    def _accepts_sparse(self) -> bool:
        return get_tags(self.estimator).input_tags.sparse

    # -- predicting ---------------------------------------------------------------------

    def features(self, X):
        """The shared feature map of the k problems, or their maps side by side (see
        ``shared_features_``); available as soon as ``trace`` has returned."""
        if getattr(self, "_feature_maps", None) is None:
            raise NotFittedError(
                f"This {type(self).__name__} has not started fitting yet; call fit or trace "
                "first."
            )
        with numbers_only():
            X = validate_data(self, X, reset=False,
                              accept_sparse=self._accepts_sparse and "csr", dtype=np.float64,
                              ensure_all_finite=False)
        if self._shared_features:
            return self._feature_maps[0].features(X)
        blocks = [estimator.features(X) for estimator in self._feature_maps]
        return sp.hstack(blocks, format="csr") if sp.issparse(blocks[0]) else np.hstack(blocks)

    def _outputs(self, X) -> np.ndarray:
        """(n, k): every problem's decision function."""
        check_is_fitted(self, "estimators_")
        return np.asarray(self.features(X) @ self.coef_) + self.intercept_

    def decision_function(self, X) -> np.ndarray:
        """(n, k) outputs, one per class, for k >= 3; (n,) for k = 2: ``(f_1 - f_0) / 2``,
        positive for ``classes_[1]`` (see Notes)."""
        outputs = self._outputs(X)
        if outputs.shape[1] == 2:
            return (outputs[:, 1] - outputs[:, 0]) / 2.0
        return outputs

    def predict(self, X) -> np.ndarray:
        """The class with the largest output."""
        outputs = self._outputs(X)
        return self.classes_[np.argmax(outputs, axis=1)]

    def score(self, X, y, sample_weight=None) -> float:
        """Mean accuracy of ``predict(X)`` on the labeled points of ``y``; points marked
        ``-1`` are left out, as in every binary estimator (``base.labeled_score``), so that
        ``GridSearchCV`` and ``cross_val_score`` score the labels only."""
        return labeled_score(self, X, y, sample_weight)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self._accepts_sparse
        return tags


def _labeled_classes(y) -> np.ndarray:
    """The classes among the labeled points, at least two: three or more are returned here;
    every other case (no label, one class, two, the string '-1') is the binary problem's, and
    ``problem.encode_labels`` says what is wrong in its sentences."""
    unlabeled = unlabeled_mask(y)
    if not unlabeled.all():
        check_label_kinds(y[~unlabeled])  # the binary problems' sentences, before numpy's
        check_classification_targets(y[~unlabeled])
        classes = np.unique(y[~unlabeled])
        if classes.size > 2 and not _names_string_minus_one(classes):
            return classes
    return encode_labels(y)[1]


def _binary_fit_params(fit_params: dict, c) -> dict:
    """``fit_params`` for problem c: a validation set's labels become c against the rest."""
    if fit_params.get("y_val") is None:
        return fit_params
    return {**fit_params, "y_val": (np.asarray(fit_params["y_val"]) == c).astype(int)}
