"""The estimator skeleton shared by every solver: ``trace()``, ``fit()``, ``features()``.

A solver subclasses ``S3VMClassifier`` and writes three small methods:

``_setup(problem, **fit_params)``
    Everything computed once per fit (kernel matrix, feature map, factorizations). After it,
    ``_features(X_new)`` must work. Runs eagerly inside ``trace()``, so bad input fails at the
    call, before any state is produced. A setup that takes minutes (LDS and the graph kernel:
    O(n^3) path distances and MDS) returns its long part instead of running it: a generator
    of progress ``(phase, done, total)`` that ends with the feature map built. From
    ``SETUP_PROGRESS_FROM`` points on, the trace runs it first, yielding a "setup" state at
    each report (``_setup_states``), and ``features()`` runs what is left of it when it is
    called before (so ``features()`` works as soon as ``trace()`` has returned, as for every
    solver); below, ``trace()`` runs it at the call.
``_features(X_new)``
    The solver's feature map; decisions are ``_features(X) @ coef + intercept``.
``_iterate(problem)``
    A generator of ``SolverState``; its last state has ``event="final"`` and is the fitted model.
    What the fitted model needs beyond that state (e.g. why PCG stopped) is the generator's
    return value, its ``outcome``.
``_postprocess(final, n_iter, outcome)`` (optional)
    Sets the solver's own fitted attributes from the "final" state and the outcome, after
    calling ``super()._postprocess``, which sets those of every solver.

The generator in ``trace()`` is the only loop; ``fit()`` simply exhausts it. Fitted
attributes (the names ending in ``_``) are set in two places only: ``_setup`` resolves what
the loop and ``features()`` need before the first state (``sigma_``, ``C_``, the feature map
...), and ``_postprocess`` sets everything the loop produced once it has ended. ``trace()``
removes every fitted attribute of an earlier fit before ``_setup``, so a trace abandoned
half-way leaves no mix of two fits: it leaves what ``_setup`` resolved, and no model.
"""

from __future__ import annotations

import inspect
import math
import sys
from functools import cache
from itertools import chain
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import NotFittedError
from sklearn.metrics import accuracy_score
from sklearn.utils._param_validation import Interval, InvalidParameterError, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data
from threadpoolctl import ThreadpoolController

from s3vm_core.diagnostics import diagnose_fit
from s3vm_core.kernels import (
    KERNELS,
    check_kernel_spread,
    check_rbf_width,
    default_sample,
    default_sigma,
    kernel_matrix,
    sample_default_C,
    squared_distances,
)
from s3vm_core.problem import (
    Problem,
    check_dense_memory,
    check_finite,
    check_label_kinds,
    check_scale,
    largest_value,
    make_problem,
    numbers_only,
    unlabeled_mask,
)
from s3vm_core.trace import SolverState, thin


class Bounded(Interval):
    """A scikit-learn ``Interval`` whose error message also says why the bounds are there.

    ``why`` completes the sentence "The 'p' parameter of LapSVM must be an int in the range
    [1, 10] (...)": the paper's range, the cost that explodes, or the float64 limit.
    """

    def __init__(self, type, left, right, *, closed, why: str):
        super().__init__(type, left, right, closed=closed)
        self.why = why

    def __str__(self):
        kind = "an int" if self.type is Integral else "a float"
        left = "[" if self.closed in ("left", "both") else "("
        right = "]" if self.closed in ("right", "both") else ")"
        return (f"{kind} in the range {left}{self.left:g}, {self.right:g}{right} "
                f"({self.why})")


#: Largest iteration limits accepted (``max_iter``-like parameters): one more iteration never
#: costs less than a product with the data, so beyond these a fit is a hang, not a fit.
ITERATION_LIMIT = 100_000

#: Points from which a long setup (LDS, the graph kernel) runs in the trace, reporting its
#: progress in "setup" states. Their O(n^3) steps take about a second at 1,000 points
#: (Floyd-Warshall and the MDS eigendecomposition, one core) and minutes at 4,000; below,
#: ``trace()`` runs the whole setup at the call and the trace starts with its "init" state, as
#: every other solver's.
SETUP_PROGRESS_FROM = 1000

#: Cost parameters (C, C*, gamma_A, ...): their ratio to the regularizer's weight 1 is what
#: matters. Beyond 1e10 the regularizer falls below the round-off of the objective's other terms
#: (float64 keeps 16 digits) and the solvers only slow down; the papers use 1e-6 .. 1e2.
COST_RANGE = (1e-10, 1e10)


def iteration_limit(default: int) -> Bounded:
    """The constraint of a ``max_iter``-like parameter (see ``ITERATION_LIMIT``)."""
    return Bounded(Integral, 1, ITERATION_LIMIT, closed="both",
                   why=f"the default is {default}; more iterations than this are a hang")


def cost(name: str = "a cost") -> Bounded:
    """The constraint of a cost parameter (see ``COST_RANGE``)."""
    low, high = COST_RANGE
    return Bounded(Real, low, high, closed="both",
                   why=f"{name} beyond {high:g} or below {low:g} is lost in float64 round-off "
                       "against the other terms of the objective")


def resolve_costs(C, C_star=None, default_C=None) -> tuple[float, float]:
    """The costs ``(C_, C_star_)`` a fit uses.

    ``C``, or when it is None ``default_C()``: the inverse empirical variance of the data in
    feature space, ``1 / s^2`` (LDS paper §2.3.2), computed only then. ``C_star``, or when it
    is None that C: the final C* of ∇TSVM's schedule is C (LDS paper, Algorithm 1, line 8), as
    in Joachims' TSVM and in every experiment of the cS3VM paper (§4, "we set C* in (2) to C").
    """
    C_ = float(default_C()) if C is None else float(C)
    return C_, C_ if C_star is None else float(C_star)


#: The width s of the unlabeled loss exp(-s t^2) (s = 3 in the cS3VM, LDS and QN-S3VM papers):
#: below 1e-3 the loss is flat over outputs of order 1, above 1e3 it is a spike at t = 0 that
#: no gradient step can see.
UNLABELED_WIDTH = Bounded(Real, 1e-3, 1e3, closed="both",
                          why="the papers use s = 3; outside this range exp(-s t^2) is flat or a "
                              "spike over outputs of order 1")

#: Parameter constraints shared by every kernel solver (scikit-learn's validation).
KERNEL_CONSTRAINTS = {
    "kernel": [StrOptions(set(KERNELS))],
    "sigma": [Interval(Real, 0, np.inf, closed="neither"), None],
    "degree": [Bounded(Integral, 1, 100, closed="both",
                       why="the LapSVM paper's largest is 9; higher powers of <x, z> + coef0 "
                           "overflow or vanish unless it stays within a few percent of 1")],
    "coef0": [Interval(Real, 0, np.inf, closed="left")],
}


@cache
def _blas_pools() -> tuple:
    """The BLAS thread pools of this process (numpy's and scipy's OpenBLAS), found once:
    inspecting the loaded libraries takes about a millisecond."""
    return tuple(ThreadpoolController().select(user_api="blas").lib_controllers)


def one_blas_thread(states):
    """Advance the generator ``states`` with BLAS limited to one thread, step by step.

    A solver's iterations are chains of small matrix-vector products. Threaded BLAS splits
    each into pieces that all threads must finish before the next product starts; numpy and
    scipy each bring an OpenBLAS with its own pool, whose idle threads keep spinning, so on two
    cores the threads of one call wait for a core, and under any other load a 1000 x 1000
    product costs a scheduling slice (milliseconds) instead of a fraction of one
    (docs/benchmarks.md measures both). As scikit-learn's KMeans does, the limit holds inside
    the loop only; between states, while the caller has the control, its own setting is back.
    The pools are set directly (a microsecond a step; threadpoolctl's ``limit`` context
    inspects every library at each entry, 30 us).
    """
    pools = _blas_pools()
    states = iter(states)
    while True:
        previous = [pool.num_threads for pool in pools]
        for pool, threads in zip(pools, previous, strict=True):
            if threads != 1:
                pool.set_num_threads(1)
        try:
            state = next(states, None)
        finally:
            for pool, threads in zip(pools, previous, strict=True):
                if threads != 1:
                    pool.set_num_threads(threads)
        if state is None:
            return
        yield state


class S3VMClassifier(ClassifierMixin, BaseEstimator):
    """Base class of the semi-supervised binary classifiers of ``s3vm_core``.

    Labels follow scikit-learn's semi-supervised convention: ``-1`` marks an unlabeled point and
    exactly two classes must appear among the labeled points.

    ``score`` counts the labeled points only (``labeled_score``). There is no
    ``predict_proba``: the solvers' outputs are margins (the sign is the class, the size how far
    a point lies from the boundary in the model's own units), not probabilities, and with a
    handful of labels there are too few points to calibrate them on (scikit-learn's
    ``CalibratedClassifierCV`` holds labeled points out to fit its calibration). Rank points by
    confidence with ``decision_function`` (scikit-learn's ROC-AUC and average-precision
    scorers use it when ``predict_proba`` is absent); DA's ``p_`` is the probability of the
    positive class of every training point under its annealed objective (DA paper eq. (8)),
    near 0 or 1 at the lowest temperature.
    """

    _parameter_constraints: dict = {}
    #: Kernels with which ``fit`` accepts scipy.sparse input: with the linear kernel a solver
    #: works in the primal on the data matrix itself (docs/architecture.md, "Sparse input").
    _sparse_kernels: tuple[str, ...] = ("linear",)

    @property
    def _accepts_sparse(self) -> bool:
        return getattr(self, "kernel", None) in self._sparse_kernels

    # -- the public API -------------------------------------------------------------------

    def trace(self, X, y, *, every: int = 1, **fit_params):
        """Fit while yielding the optimization path.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Class labels, ``-1`` for unlabeled points.
        every : int, default=1
            Keep one "iter" state in ``every``; "init", "stage_end" and "final" are always kept.
        **fit_params
            Solver-specific inputs (e.g. a validation set for LapSVM early stopping).

        Returns
        -------
        generator of SolverState
            Input is validated before this returns, and ``features()`` can be called before
            the first state is drawn. Exhausting the generator leaves the estimator fitted on
            its "final" state. Where the setup takes long (LDS, the graph kernel), the first
            states are "setup" states that report its progress (``trace.SolverState``); a call
            to ``features()`` during them finishes the setup first.
        """
        if isinstance(every, bool) or not isinstance(every, Integral) or every < 1:
            raise ValueError(f"every must be a positive integer, got {every!r}.")
        self._check_fit_params("trace", fit_params)
        self._validate_params()
        self._clear_fitted()
        self._check_sparse_supported(X)
        with numbers_only():
            X, y = validate_data(
                self, X, y, accept_sparse=self._accepts_sparse and "csr", dtype=np.float64,
                y_numeric=False, ensure_min_samples=2, ensure_all_finite=False,
            )
        problem = make_problem(X, y)
        self._largest_value = largest_value(X)
        self.classes_ = problem.classes
        preparation = self._setup(problem, **fit_params)
        self._preparation = None if preparation is None else self._prepared(preparation)
        self._features_ready = True
        if problem.y.size < SETUP_PROGRESS_FROM:
            self._finish_setup()  # quick: all of the setup at the call, as for every solver
        return self._run(problem, every)

    def fit(self, X, y, **fit_params):
        """Fit the model (exhausts ``trace``). Returns self."""
        self._check_fit_params("fit", fit_params)
        for _ in self.trace(X, y, **fit_params):
            pass
        return self

    def features(self, X) -> np.ndarray:
        """Map points into the solver's feature space (available once ``trace`` has started)."""
        if not getattr(self, "_features_ready", False):
            raise NotFittedError(
                f"This {type(self).__name__} has not started fitting yet; call fit or trace first."
            )
        self._finish_setup()
        self._check_sparse_supported(X)
        with numbers_only():
            X = validate_data(
                self, X, reset=False, accept_sparse=self._accepts_sparse and "csr",
                dtype=np.float64, ensure_all_finite=False,
            )
        check_finite(X)
        check_scale(X, training=False)
        F = self._features(X)
        if not _all_finite(F):
            raise self._far_points_error(X, "features")
        return F

    def decision_function(self, X) -> np.ndarray:
        """Signed distance-like score; positive means ``classes_[1]``."""
        check_is_fitted(self, "coef_")
        F = self.features(X)
        with np.errstate(over="ignore", invalid="ignore"):  # checked just below, as a sentence
            decision = F @ self.coef_ + self.intercept_
        if not _all_finite(decision):
            raise self._far_points_error(X, "decision values")
        return decision

    def predict(self, X) -> np.ndarray:
        """Class labels of ``X``."""
        check_is_fitted(self, "coef_")
        return self.classes_[(self.decision_function(X) > 0).astype(int)]

    def score(self, X, y, sample_weight=None) -> float:
        """Mean accuracy of ``predict(X)`` on the labeled points of ``y`` (``labeled_score``).

        Points marked ``-1`` (unlabeled) are left out: they have no class to be right or wrong
        about. scikit-learn's semi-supervised estimators (``LabelSpreading``,
        ``SelfTrainingClassifier``) inherit ``ClassifierMixin.score``, which would count
        ``-1`` as a third class that ``predict`` never returns, so the training labels of a
        semi-supervised fit would score near the fraction of labeled points.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            True labels, ``-1`` for points without one.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        float
            The (weighted) fraction of labeled points whose prediction equals their label.
        """
        return labeled_score(self, X, y, sample_weight)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.sparse = self._accepts_sparse
        return tags

    def _check_fit_params(self, method: str, fit_params: dict) -> None:
        """Refuse a keyword that ``_setup`` does not take, naming the public method."""
        accepted = [name for name in inspect.signature(self._setup).parameters
                    if name != "problem"]
        unknown = [name for name in fit_params if name not in accepted]
        if unknown:
            takes = ["X", "y", *(["every"] if method == "trace" else []), *accepted]
            raise TypeError(
                f"{type(self).__name__}.{method}() got an unexpected keyword argument "
                f"{unknown[0]!r}: it takes {', '.join(takes[:-1])} and {takes[-1]} only."
            )

    def _validate_params(self):
        """scikit-learn's validation, after refusing a bool where a number is expected.

        ``True`` is an ``int`` to Python, so ``n_components=True`` would pass as 1.
        """
        for name, value in self.get_params(deep=False).items():
            if isinstance(value, bool | np.bool_) and "boolean" not in (
                    self._parameter_constraints.get(name, ["boolean"])):
                raise InvalidParameterError(
                    f"The {name!r} parameter of {type(self).__name__} must be a number, not "
                    f"the boolean {value!r}."
                )
            if isinstance(value, Integral) and abs(int(value)) > sys.float_info.max:
                # every solver computes in float64: float(2**1100) is an OverflowError, and
                # scikit-learn's own message would print all of its digits
                allowed = [str(c) for c in self._parameter_constraints.get(name, [])
                           if isinstance(c, Interval)]
                raise InvalidParameterError(
                    f"The {name!r} parameter of {type(self).__name__} is an integer of "
                    f"{len(str(abs(int(value))))} digits, beyond the largest number floating "
                    f"point holds ({sys.float_info.max:.3g}). Give "
                    f"{' or '.join(allowed) if allowed else 'a smaller value'}."
                )
        super()._validate_params()

    # -- the rule: no state, feature or decision is ever a non-finite number ----------------

    def _check_finite_state(self, state: SolverState, index: int) -> None:
        """Refuse a state whose decision function or objective is not finite (NaN or inf);
        a "setup" state has no objective yet (NaN)."""
        if not (_all_finite(state.train_decision) and _all_finite(state.coef)
                and math.isfinite(state.intercept)
                and (math.isfinite(state.objective) or state.stage == "setup")):
            raise ValueError(
                f"{type(self).__name__} computed numbers that are not finite (floating point "
                f"overflowed) at step {index} of its path, so it has no usable decision "
                f"function. {self._what_to_change()}"
            )

    def _what_to_change(self) -> str:
        """The sentence that names what to change: the numeric parameters the user moved away
        from their defaults, and the data scale."""
        defaults = inspect.signature(type(self).__init__).parameters
        changed = [
            f"{name}={value!r}" for name, value in self.get_params(deep=False).items()
            if _is_numeric_constraint(self._parameter_constraints.get(name, ()))
            and name in defaults and repr(value) != repr(defaults[name].default)
        ]
        scale = (f"rescale X (its largest absolute value is {self._largest_value:.3g}) so that "
                 "its values are of order 1, for example by standardizing each feature")
        if not changed:
            return scale[0].upper() + scale[1:] + "."
        return f"Bring {', '.join(changed)} closer to the default, or {scale}."

    def _far_points_error(self, X, what: str) -> ValueError:
        return ValueError(
            f"The {what} of these points are not finite numbers: their values (largest "
            f"absolute value {largest_value(X):.3g}) are too far outside the training data's "
            f"scale (largest {self._largest_value:.3g}) for floating point. Rescale them like "
            "the training data."
        )

    # -- helpers for solvers --------------------------------------------------------------

    def _check_sparse_supported(self, X) -> None:
        if sp.issparse(X) and not self._accepts_sparse:
            name = type(self).__name__
            if not self._sparse_kernels:
                raise TypeError(
                    f"Sparse input is not supported by {name}: its model spans every training "
                    "point. Convert X with X.toarray() if it fits in memory."
                )
            raise TypeError(
                f"Sparse input is supported by {name} with kernel='linear' only, where the "
                "model lives in the primal and the data stay sparse. Use kernel='linear', or "
                "convert X with X.toarray() if it fits in memory."
            )

    def _clear_fitted(self) -> None:
        """Remove every fitted attribute (scikit-learn's: a public name ending in ``_``)."""
        for name in [name for name in vars(self)
                     if name.endswith("_") and not name.startswith("_")]:
            delattr(self, name)
        self._features_ready = False
        self._preparation = None

    def __getstate__(self):
        state = super().__getstate__()
        if state.get("_preparation") is not None:
            # a generator cannot be pickled: the copy is a trace whose setup never finished
            state = {**state, "_preparation": None, "_features_ready": False}
        return state

    # -- a setup that reports its progress -------------------------------------------------

    def _prepared(self, preparation):
        """The long part of the setup, forgotten once it has run to its end."""
        yield from preparation
        self._preparation = None

    def _finish_setup(self) -> None:
        """Run what is left of a long setup (``features()`` needs its result)."""
        for _ in self._preparation or ():
            pass
        if self._preparation is not None:  # it raised before its end, at an earlier call
            raise NotFittedError(
                f"The setup of this {type(self).__name__} stopped at an error; call fit or "
                "trace again."
            )

    def _setup_states(self, n_points: int):
        """A "setup" state for each progress report of a long setup, while it runs: no model
        yet (empty ``coef``, decision 0 everywhere); ``stage_index`` is the setup's phase,
        ``extras["done"]`` of ``extras["total"]`` how far it has come (documented per solver).
        Nothing when ``features()`` already ran the setup."""
        for phase, done, total in self._preparation or ():
            yield SolverState(stage="setup", stage_index=phase, iteration=done, event="iter",
                              coef=np.empty(0), intercept=0.0,
                              train_decision=np.zeros(n_points),
                              extras={"done": done, "total": total})

    def _run(self, problem: Problem, every: int):
        iterations, final, outcome = 0, None, None

        def solved():
            nonlocal outcome
            outcome = yield from self._iterate(problem)

        def counted(states):
            nonlocal iterations
            for index, state in enumerate(states):
                self._check_finite_state(state, index)
                iterations += state.event == "iter" and state.stage != "setup"
                yield state

        # the setup runs with the caller's BLAS threads, as it does when trace() or
        # features() runs it: its results do not depend on the way it was reached
        states = chain(self._setup_states(problem.y.size), one_blas_thread(solved()))
        for state in thin(counted(states), every):
            final = state
            yield state
        # A solver that needs no iteration (a closed form, all points labeled) still ran once.
        self._postprocess(final, max(iterations, 1), outcome)
        # docs/architecture.md, "Nothing silent": one place for all
        diagnose_fit(self, final, problem)

    def _postprocess(self, final: SolverState, n_iter: int, outcome) -> None:
        """Set the fitted model once the loop has ended: from the "final" state, the number
        of "iter" events ``n_iter`` and the ``outcome`` that ``_iterate`` returned (unused
        here; solvers that return one extend this method)."""
        self.coef_ = np.array(final.coef)
        self.intercept_ = final.intercept
        self.objective_ = final.objective
        self.transduction_ = self.classes_[(final.train_decision > 0).astype(int)]
        self.n_iter_ = n_iter

    def _sample_default_C(self, X) -> float:
        """``kernels.sample_default_C`` with the fitted kernel (after ``_fit_kernel``)."""
        return sample_default_C(X, self.kernel, self.sigma_, self.degree, self.coef0)

    def _fit_kernel(self, X, centers=None) -> None:
        """Resolve ``sigma_`` (LDS paper §2.3.2 default when ``sigma`` is None) and keep the
        kernel's expansion points ``centers`` (default: all of ``X``).

        Kernel parameters that give every pair of points the same value, or a Gaussian width
        so small that the kernel matrix is the identity, are refused here, on the
        ``default_sample`` rows (``kernels.check_rbf_width``; the linear kernel of distinct
        points never does that).
        """
        if self.kernel == "rbf":
            self.sigma_ = default_sigma(X) if self.sigma is None else float(self.sigma)
        else:
            self.sigma_ = None
        self.X_fit_ = X if centers is None else centers
        sample = X[default_sample(X.shape[0])]
        if self.kernel == "rbf":
            check_rbf_width(squared_distances(sample, sample), self.sigma_)
        elif self.kernel == "poly":
            check_kernel_spread(self._kernel(sample, sample), self.kernel, self.sigma_,
                                self.degree, self.coef0)

    #: What to do instead when a kernel matrix would not fit (``problem.check_dense_memory``):
    #: the solver's own scalable form; ``None`` gives the general advice.
    _too_large: str | None = None

    def _kernel(self, A, B=None, dtype=np.float64) -> np.ndarray:
        """Kernel matrix ``k(A, B)`` with the fitted parameters (``B`` defaults to ``X_fit_``),
        refused before it is built when it would not fit."""
        B = self.X_fit_ if B is None else B
        check_dense_memory(A.shape[0], B.shape[0], advice=self._too_large,
                           itemsize=np.dtype(dtype).itemsize)
        return kernel_matrix(A, B, self.kernel, self.sigma_, self.degree, self.coef0, dtype)

    # -- what a degenerate fit says (s3vm_core.diagnostics) ---------------------------------

    #: The parameters that make this solver's fit constant or one-class, most likely first,
    #: each with why (``diagnostics.DegenerateFitWarning`` names them).
    _degenerate_causes: dict[str, str] = {}

    def _balance_from_labels(self) -> str | None:
        """What to set when the solver takes the share of the positive class among the
        unlabeled points from the labeled points (``diagnostics.BalanceWarning``), or None
        when it takes none from them."""
        return None

    # -- to be written by each solver -----------------------------------------------------

    def _setup(self, problem: Problem, **fit_params):
        raise NotImplementedError

    def _features(self, X) -> np.ndarray:
        raise NotImplementedError

    def _iterate(self, problem: Problem):
        raise NotImplementedError


def _all_finite(a) -> bool:
    return bool(np.all(np.isfinite(a.data if sp.issparse(a) else a)))


def _is_numeric_constraint(constraints) -> bool:
    return any(isinstance(c, Interval) or c == "array-like" for c in constraints)


def labeled_score(estimator, X, y, sample_weight=None) -> float:
    """Accuracy of ``estimator.predict(X)`` on the points of ``y`` that are labeled.

    The ``score`` of every estimator of the library (``OneVsRestS3VM`` included): a point
    marked ``-1`` has no class to be right or wrong about and is left out, where
    ``ClassifierMixin.score`` would count it as a class that ``predict`` never returns (on
    wine, 6 labels of 178 points: 0.084 for a model right on every label). So a search that
    scores training labels, or a splitter that leaves unlabeled points in a test fold, scores
    what it should.
    """
    predicted = estimator.predict(X)
    y = np.asarray(y)
    if y.shape != predicted.shape:
        raise ValueError(
            f"X has {predicted.shape[0]} points but y has shape {y.shape}; give one label "
            "(or -1) per point."
        )
    labeled = ~unlabeled_mask(y)
    check_label_kinds(y[labeled])
    if not labeled.any():
        raise ValueError(
            "Every label in y is -1 (unlabeled), so there is nothing to score. Give the "
            "true labels of the points to score."
        )
    given, classes = set(y[labeled].tolist()), estimator.classes_.tolist()
    if not given & set(classes):
        shown = ", ".join(sorted(map(repr, given))[:3]) + ", ..." * (len(given) > 3)
        raise ValueError(
            f"None of the labels in y ({shown}) is a class of this model "
            f"({', '.join(map(repr, classes))}), so no prediction could match them. Give "
            "the true labels in the classes the model was fitted with (-1 for points "
            "without one)."
        )
    weights = None if sample_weight is None else np.asarray(sample_weight)[labeled]
    return float(accuracy_score(y[labeled], predicted[labeled], sample_weight=weights))
