"""Model selection with few labels: folds of the labeled points only, and a grid search that says
whether the unlabeled points helped.

docs/architecture.md, "Model selection": cross-validation never moves an unlabeled point out of
training.
scikit-learn's splitters see ``-1`` as a class like any other: they put unlabeled points in the
test folds (scored as a class no model predicts) and take them out of training, where a
semi-supervised solver needs every one of them. Here

* ``LabeledStratifiedKFold`` splits the labeled points only, stratified by class; every
  training fold keeps all the unlabeled points (still ``-1``) and every test fold holds
  held-out labeled points only. It is a scikit-learn splitter: ``GridSearchCV``,
  ``cross_val_score`` and ``cross_validate`` take it as ``cv``.
* ``S3VMGridSearchCV`` searches a grid by those folds with the protocol of the LDS paper
  (§3.2: "5-fold cross-validation on the training set for each split ... all data (training
  and test) can be (and is) used as unlabeled data"): the held-out labeled points stay in
  training as unlabeled points. It selects the supervised baseline (``SVMBaseline``) by the
  same folds beside the semi-supervised solver, reports whether the unlabeled data helped
  (``comparison_``) and warns (``UnlabeledDidNotHelpWarning``) when it did not. Work that does
  not depend on the grid's costs is done once (``s3vm_core.reuse``): the kernel matrix once
  per sigma, its kernel-PCA map once per sigma and fold, the graph once per k, the rho-path
  distances and their MDS once per rho. ``plan`` counts its fits before any runs
  (``SearchPlan``), and ``verbose`` says them, an estimate of the time and the progress.
* ``estimate_positive_fraction`` estimates the class ratio of the unlabeled points from the
  supervised baseline's predictions, for the solvers whose balance constraint would
  otherwise take the ratio of the labels (see its docstring for when that misleads).

With few labels the cross-validation error is coarse: with 2 labels a class and 2 classes,
every grid point scores 0, 1, 2, 3 or 4 mistakes out of 4. Ties go to the grid point listed
first (as in scikit-learn's ``GridSearchCV``); list the values you trust most (the defaults)
first.
"""

from __future__ import annotations

import math
import sys
import time
import warnings
from collections import defaultdict
from contextlib import contextmanager
from dataclasses import dataclass
from numbers import Integral

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.exceptions import FitFailedWarning, NotFittedError
from sklearn.model_selection import BaseCrossValidator, ParameterGrid
from sklearn.utils import _safe_indexing, check_random_state
from sklearn.utils._param_validation import (
    HasMethods,
    Interval,
    InvalidParameterError,
    StrOptions,
)
from sklearn.utils.validation import check_is_fitted

from s3vm_core.problem import check_label_kinds, unlabeled_mask
from s3vm_core.reuse import reuse_setups

__all__ = [
    "GRID_AXES",
    "GRID_WIDTHS",
    "SETUP_PARAMETERS",
    "Comparison",
    "LabeledStratifiedKFold",
    "S3VMGridSearchCV",
    "SearchPlan",
    "UnlabeledDidNotHelpWarning",
    "default_grid",
    "estimate_positive_fraction",
    "reuse_setups",
]

#: Parameters that decide the pieces ``s3vm_core.reuse`` remembers (kernel, kernel PCA, graph,
#: path distances). The search runs the grid points that share them one after the other, so
#: that the pieces are computed once for all values of the other parameters (C, C*, gamma_A,
#: gamma_I, lam, r ...).
SETUP_PARAMETERS = frozenset({
    "kernel", "sigma", "degree", "coef0", "n_components", "random_state", "kernel_dtype",
    "n_neighbors", "p", "normalized", "graph_weights", "graph_sigma",
    "rho", "bridge", "n_landmarks", "max_components", "delta",
})

#: The baseline's parameters taken from the semi-supervised estimator and its grid: the
#: kernel, so that the two differ by the unlabeled points only.
_KERNEL_PARAMETERS = ("kernel", "sigma", "degree", "coef0")

#: ``default_grid``'s widths, in units of the LDS paper's default (§2.3.2; its grid is 2^-3 ..
#: 2^3 of it, §3.2), the default first.
GRID_WIDTHS = (1.0, 0.5, 2.0)
#: ``default_grid``'s other axes per solver, each with the solver's default first: the costs
#: (None is the LDS paper's C = 1 / s^2, of order 1 on standardized data, then two decades
#: either side, within the LDS paper's grid 0.1 ... 100), cS3VM's C (its paper's 100 first),
#: QN-S3VM's lam (in its paper's grid 2^-10 ... 2^10, §4.1.3, up to the 1 of its timings),
#: DA's lam (the DA paper's grid 1e-4 ... 1e-1, §4), LapSVM's gamma_I (the
#: LapSVM paper's grid 1e-6 ... 100, §6.3, and its default 1), and rho for LDS and the graph
#: kernel (the LDS paper's grid 0, 1, ..., 16, inf, §3.2).
GRID_AXES = {
    "SVMBaseline": {"C": (None, 0.1, 100.0)},
    "GradientTSVM": {"C": (None, 0.1, 100.0)},
    "LabelSwitchingTSVM": {"C": (None, 0.1, 100.0)},
    "ContinuationS3VM": {"C": (100.0, 1.0, 10.0)},
    "QNS3VM": {"lam": (1e-3, 1e-1, 1.0)},
    "DeterministicAnnealingS3VM": {"lam": (1e-3, 1e-4, 1e-2)},
    "LapSVM": {"gamma_I": (1.0, 0.01, 10.0)},
    "LapRLSC": {"gamma_I": (1.0, 0.01, 10.0)},
    "LDS": {"rho": (1.0, 4.0, 16.0), "C": (None, 0.1, 100.0)},
    "GraphKernelSVM": {"rho": (1.0, 4.0, 16.0), "C": (None, 0.1, 100.0)},
}


class UnlabeledDidNotHelpWarning(UserWarning):
    """The semi-supervised solver's cross-validation error is not below the supervised
    baseline's: by the held-out labels, the unlabeled points did not help."""


# -- the splitter -------------------------------------------------------------------------------


class LabeledStratifiedKFold(BaseCrossValidator):
    """K folds of the labeled points only, stratified by class; unlabeled points always train.

    The labeled points (``y != -1``) are dealt to the folds class by class, in turn (as
    scikit-learn's ``StratifiedKFold`` deals them): test fold k holds the k-th share of each
    class, and its training fold holds every other point — all the unlabeled points, still
    marked ``-1``, and the other labeled points. A test fold never holds an unlabeled point.

    A class with fewer labeled points than folds has one of them in some test folds and none
    in the others, so every training fold keeps at least one labeled point of every class:
    with 2 labels a class and 2 classes, 3 folds hold out 2, 1 and 1 points. Unlike
    ``StratifiedKFold``, which refuses this, the folds then are not all stratified, but every
    solver still sees every class in training. The only labeled point of a class (the LDS
    paper's splits of 50 random labels over 10 classes have some) is never held out: it
    stays in every training fold, and no fold tests its class.

    scikit-learn's index API cannot relabel a point, so a held-out point is left out of its
    training fold here; ``S3VMGridSearchCV`` by default keeps it in training as an unlabeled
    point instead (the LDS paper's protocol).

    Parameters
    ----------
    n_splits : int >= 2, default=3
        Number of folds; at most the number of labeled points.
    shuffle : bool, default=False
        Shuffle each class's labeled points before dealing them (otherwise in the order of
        ``y``).
    random_state : int in [0, 2**32 - 1], RandomState instance or None, default=None
        The shuffle's seed; with ``shuffle=False`` it must stay None (as scikit-learn's
        ``KFold`` says: it would have no effect).

    Examples
    --------
    >>> from sklearn.model_selection import GridSearchCV
    >>> search = GridSearchCV(GradientTSVM(), {"C": [1, 10]},
    ...                       cv=LabeledStratifiedKFold(3))  # doctest: +SKIP
    """

    def __init__(self, n_splits=3, *, shuffle=False, random_state=None):
        self.n_splits = n_splits
        self.shuffle = shuffle
        self.random_state = random_state

    def get_n_splits(self, X=None, y=None, groups=None) -> int:
        """The number of folds, ``n_splits``."""
        self._check_params()
        return int(self.n_splits)

    def split(self, X, y=None, groups=None):
        """Yield ``(train, test)`` indices: ``test`` the labeled points of a fold, ``train``
        every other point (the unlabeled ones included).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Class labels, ``-1`` for unlabeled points (required).
        groups : ignored
        """
        if y is None:
            raise ValueError(
                "LabeledStratifiedKFold needs y to know which points are labeled: call "
                "split(X, y) with -1 marking the unlabeled points."
            )
        return super().split(X, y, groups)

    def _check_params(self) -> None:
        if (isinstance(self.n_splits, bool) or not isinstance(self.n_splits, Integral)
                or self.n_splits < 2):
            raise ValueError(
                f"n_splits must be a whole number of at least 2 (folds), got "
                f"{self.n_splits!r}."
            )
        if not isinstance(self.shuffle, bool | np.bool_):
            raise ValueError(f"shuffle must be True or False, got {self.shuffle!r}.")
        if self.random_state is None:
            return
        if not self.shuffle:
            raise ValueError(
                f"random_state={self.random_state!r} has no effect with shuffle=False (the "
                "labeled points are dealt in the order of y): leave it None, or set "
                "shuffle=True."
            )
        if not isinstance(self.random_state, np.random.RandomState) and (
                isinstance(self.random_state, bool | np.bool_)
                or not isinstance(self.random_state, Integral)
                or not 0 <= self.random_state < 2**32):
            raise ValueError(
                f"random_state must be a whole number from 0 to 2**32 - 1, a numpy "
                f"RandomState or None, got {self.random_state!r}."
            )

    def _iter_test_indices(self, X=None, y=None, groups=None):
        self._check_params()
        fold_of, labeled = labeled_folds(y, self.n_splits, self.shuffle, self.random_state)
        for k in range(self.n_splits):
            yield labeled[fold_of == k]


def labeled_folds(y, n_splits: int, shuffle: bool = False, random_state=None):
    """``(fold_of, labeled)``: the indices of the labeled points of ``y`` and the fold of each
    (see ``LabeledStratifiedKFold``); -1 for the point of a class labeled once, which stays in
    every training fold. Refuses folds that cannot all hold a point out."""
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be one label per point (1-D), got shape {y.shape}.")
    labeled = np.flatnonzero(~unlabeled_mask(y))
    check_label_kinds(y[labeled])
    classes, codes = np.unique(y[labeled], return_inverse=True) if labeled.size else ([], [])
    counts = np.bincount(codes, minlength=len(classes))
    if len(classes) < 2:
        raise ValueError(
            f"Cross-validation needs labeled points of at least two classes; y has "
            f"{'none' if not len(classes) else 'only class ' + repr(classes[0])}. Label "
            "points of each class (-1 marks the unlabeled ones)."
        )
    dealt = counts[codes] >= 2
    if dealt.sum() < n_splits:
        raise ValueError(
            f"n_splits={n_splits} folds but only {int(dealt.sum())} labeled points can be held "
            "out (a class's only labeled point never is: every training fold needs it). Use "
            f"at most {int(dealt.sum())} folds, or label more points."
            if dealt.sum() >= 2 else
            "Every class has a single labeled point, and a fold that held one out would train "
            "without its class: cross-validation needs at least 2 labeled points of some "
            "classes. Label more points, or select the parameters otherwise."
        )
    rng = check_random_state(random_state) if shuffle else None
    order = []
    for code in np.flatnonzero(counts >= 2):
        members = labeled[codes == code]
        order.append(rng.permutation(members) if rng is not None else members)
    order = np.concatenate(order)
    fold_of = np.full(labeled.size, -1)
    fold_of[np.searchsorted(labeled, order)] = np.arange(order.size) % n_splits
    return fold_of, labeled


# -- the search ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Comparison:
    """Whether the unlabeled points helped, by the held-out labels.

    Attributes
    ----------
    estimator, baseline : str
        The two models' names (``OneVsRestS3VM(LapSVM)``, ``SVMBaseline`` ...).
    estimator_error, baseline_error : float
        Cross-validation errors (fraction of the held-out labeled points misclassified) of the
        selected semi-supervised estimator and of the selected supervised baseline.
    n_held_out : int
        Labeled points held out over all folds (each once).
    helped : bool
        ``estimator_error < baseline_error``.
    """

    estimator: str
    estimator_error: float
    baseline: str
    baseline_error: float
    n_held_out: int
    helped: bool

    @property
    def message(self) -> str:
        """One sentence for a person: the two errors and what they say."""
        ours = f"{self.estimator} {100 * self.estimator_error:.1f} %"
        theirs = f"{self.baseline} on the labels alone {100 * self.baseline_error:.1f} %"
        on = f"cross-validation error on {self.n_held_out} held-out labels"
        if self.helped:
            return f"The unlabeled points helped: {ours} against {theirs} ({on})."
        if self.estimator_error == self.baseline_error:
            return (f"The unlabeled points did not change the {on}: {ours}, {theirs}. The "
                    "held-out labels cannot tell the two apart; the simpler supervised model "
                    "is as good by this measure.")
        return (f"The unlabeled points did not help: {ours} against {theirs} ({on}). Use the "
                "supervised model, or widen the grid (other sigma, smaller C*).")


@dataclass(frozen=True)
class SearchPlan:
    """The fits ``S3VMGridSearchCV.fit`` runs, counted before the first
    (``S3VMGridSearchCV.plan``).

    Attributes
    ----------
    estimator : str
        The estimator's name.
    baseline : str or None
        The baseline's name (None without one).
    n_candidates, n_baseline_candidates : int
        Grid points of each (0 for the baseline when there is none).
    n_splits : int
        Folds: every grid point of both is fitted on each.
    n_refits : int
        Fits on all the data at the end: one for each model with ``refit=True``, else 0.
    n_samples : int
        Points of every fit.
    """

    estimator: str
    baseline: str | None
    n_candidates: int
    n_baseline_candidates: int
    n_splits: int
    n_refits: int
    n_samples: int

    @property
    def n_fits(self) -> int:
        """Every fit: ``(n_candidates + n_baseline_candidates) * n_splits + n_refits``."""
        return (self.n_candidates + self.n_baseline_candidates) * self.n_splits + self.n_refits

    def __str__(self) -> str:
        parts = [f"{self.n_candidates} grid point{_s(self.n_candidates)} of {self.estimator} "
                 f"on {self.n_splits} folds"]
        if self.baseline is not None:
            parts.append(f"{self.n_baseline_candidates} of {self.baseline} on the same folds")
        if self.n_refits:
            parts.append(f"{self.n_refits} refit{_s(self.n_refits)} on all the points")
        return f"{self.n_fits} fits on {self.n_samples:,} points: {', '.join(parts)}"


def _s(count: int) -> str:
    return "" if count == 1 else "s"


class S3VMGridSearchCV(MetaEstimatorMixin, BaseEstimator):
    """Exhaustive search over a grid by folds of the labeled points, beside the SVM baseline.

    For every grid point and fold (``LabeledStratifiedKFold``), the estimator is fitted with the
    fold's held-out labeled points hidden (``held_out="unlabeled"``: marked ``-1`` and kept as
    unlabeled points, the LDS paper's §3.2 protocol, "all data ... can be (and is) used as
    unlabeled data"; ``"removed"``: left out of training, as scikit-learn's ``GridSearchCV``
    with the same splitter does) and scored on them. The grid point with the lowest error
    over all held-out points is refitted on all the data. The supervised baseline
    (``SVMBaseline`` with the estimator's kernel) is selected the same way over its own grid,
    on the same folds, and ``comparison_`` says whether the unlabeled points helped; when
    they did not, an ``UnlabeledDidNotHelpWarning`` says so.

    The grid points that share the parameters of ``SETUP_PARAMETERS`` (sigma, the graph's k,
    rho ...) run one after the other inside ``s3vm_core.reuse.reuse_setups``: the kernel
    matrix, the kernel-PCA map, the graph and the path distances are computed once for all the
    values of the other parameters. The fits are the same, to the bit, as without
    (``reuse=False``). No solver of the library starts from a given point (each paper's
    algorithm fixes its start: ∇TSVM's C* annealing from w = 0, DA's p = r at T0, cS3VM's
    convex first stage; LapSVM's convex problem takes Newton steps from 0, one or two here),
    so there is no warm start along C.

    Parameters
    ----------
    estimator : estimator of s3vm_core
        Any estimator that takes ``-1`` for unlabeled points (``OneVsRestS3VM`` included;
        scikit-learn's ``LabelSpreading`` too, with ``baseline=None``).
    param_grid : dict or list of dicts
        Parameter names to lists of values, as for scikit-learn's ``GridSearchCV``
        (``ParameterGrid``).
    cv : int or splitter, default=3
        Number of folds of ``LabeledStratifiedKFold``, or a splitter whose test folds hold
        labeled points only.
    baseline : "svm", estimator or None, default="svm"
        The supervised model to compare with: ``"svm"`` is ``SVMBaseline`` with the
        estimator's kernel parameters (inside ``OneVsRestS3VM`` when the estimator is one);
        None compares with nothing.
    baseline_grid : dict, list of dicts or None, default=None
        The baseline's grid. ``None``: the estimator's grid values of the kernel parameters
        (kernel, sigma, degree, coef0) and of ``C``, or when the grid has no ``C`` the
        ``SVMBaseline`` axis of ``GRID_AXES`` (the default 1 / s^2, 0.1 and 100).
    held_out : {"unlabeled", "removed"}, default="unlabeled"
        Where a fold's held-out labeled points go in its training: unlabeled (the LDS paper) or
        nowhere (scikit-learn's splitters).
    reuse : bool, default=True
        Compute the kernels, kernel-PCA maps, graphs and path distances once (see above).
    refit : bool, default=True
        Refit the selected estimator and baseline on all the data (``best_estimator_``,
        ``baseline_best_estimator_``). ``False`` keeps the cross-validation results only:
        no model to ``predict`` with.
    n_jobs : int >= 1, -1 or None, default=None
        joblib workers (-1: one per core); each runs the grid points that share a setup.
    verbose : int >= 0, default=0
        What the search says on stderr while it runs (as joblib's progress does, so that a
        program's own output stays its own): 0 nothing; 1 the number of fits before the first
        (``plan``), after it an estimate of the time left at its pace, then how far it has
        come at each tenth of the fits; 2 also every fit, with its parameters, fold and time.

    Attributes
    ----------
    cv_results_ : dict of lists
        One entry per grid point: ``params``, ``param_<name>``, ``split<k>_test_score`` (the
        accuracy on fold k's held-out points, nan where the fit failed),
        ``mean_test_score`` (accuracy over all held-out points, the folds pooled: with folds
        of unequal size this differs from the mean of the split scores), ``std_test_score``
        (of the split scores), ``mean_test_error`` (1 - mean_test_score),
        ``rank_test_score``, ``mean_fit_time``, ``std_fit_time``.
    best_index_, best_params_, best_score_ : the selected grid point and its accuracy.
    best_estimator_ : the selected estimator refitted on all the data (``refit=True``).
    baseline_cv_results_, baseline_best_params_, baseline_best_score_,
    baseline_best_estimator_ : the same for the baseline (absent with ``baseline=None``).
    comparison_ : Comparison
        The two errors and whether the unlabeled points helped (``baseline=None``: absent).
    n_splits_ : int
    reuse_stats_ : ReuseStats or None
        What the reuse saved, summed over the workers (None with ``reuse=False``).

    Before a long search, ``plan(X, y)`` counts its fits without running any.
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "predict"])],
        "param_grid": [dict, list],
        "cv": [Integral, HasMethods(["split"])],
        "baseline": [StrOptions({"svm"}), HasMethods(["fit", "predict"]), None],
        "baseline_grid": [dict, list, None],
        "held_out": [StrOptions({"unlabeled", "removed"})],
        "reuse": ["boolean"],
        "refit": ["boolean"],
        "n_jobs": [Interval(Integral, 1, None, closed="left"),
                   Interval(Integral, None, -1, closed="right"), None],
        "verbose": ["verbose"],
    }

    def __init__(self, estimator, param_grid, *, cv=3, baseline="svm", baseline_grid=None,
                 held_out="unlabeled", reuse=True, refit=True, n_jobs=None, verbose=0):
        self.estimator = estimator
        self.param_grid = param_grid
        self.cv = cv
        self.baseline = baseline
        self.baseline_grid = baseline_grid
        self.held_out = held_out
        self.reuse = reuse
        self.refit = refit
        self.n_jobs = n_jobs
        self.verbose = verbose

    # -- fitting -------------------------------------------------------------------------------

    def fit(self, X, y):
        """Cross-validate every grid point (and the baseline's), select, refit. Returns self.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Class labels, ``-1`` for unlabeled points; at least 2 labeled points of each class.
        """
        self._validate_params()
        self._clear_fitted()  # a fit with refit=False must not keep an earlier fit's model
        y, folds, grid, baseline, baseline_grid = self._prepared(X, y)
        self.n_splits_ = len(folds)
        plan = self._plan(X, folds, grid, baseline, baseline_grid)
        progress = _Progress(plan, self.verbose, self._report, effective_n_jobs(self.n_jobs),
                             quick_baseline=self.baseline == "svm", reuse=self.reuse)
        stats = []
        self.cv_results_ = self._search(self.estimator, grid, X, y, folds, stats, progress,
                                        "estimator")
        self.best_index_ = _best(self.cv_results_)
        self.best_params_ = self.cv_results_["params"][self.best_index_]
        self.best_score_ = self.cv_results_["mean_test_score"][self.best_index_]
        if baseline is not None:
            self.baseline_cv_results_ = self._search(baseline, baseline_grid, X, y, folds, stats,
                                                     progress, "baseline")
            index = _best(self.baseline_cv_results_)
            self.baseline_best_params_ = self.baseline_cv_results_["params"][index]
            self.baseline_best_score_ = self.baseline_cv_results_["mean_test_score"][index]
        self.reuse_stats_ = _summed(stats) if self.reuse else None
        if self.refit:
            self.best_estimator_ = clone(self.estimator).set_params(**self.best_params_)
            with progress.refit("estimator", self.best_params_):
                self.best_estimator_.fit(X, y)
            if baseline is not None:
                self.baseline_best_estimator_ = clone(baseline).set_params(
                    **self.baseline_best_params_)
                with progress.refit("baseline", self.baseline_best_params_):
                    self.baseline_best_estimator_.fit(X, y)
        progress.end()
        if baseline is not None:
            self.comparison_ = Comparison(
                estimator=_name(self.estimator), estimator_error=1.0 - self.best_score_,
                baseline=_name(baseline), baseline_error=1.0 - self.baseline_best_score_,
                n_held_out=int(sum(test.size for _, test in folds)),
                helped=bool(self.best_score_ > self.baseline_best_score_))
            if not self.comparison_.helped:
                warnings.warn(self.comparison_.message, UnlabeledDidNotHelpWarning, stacklevel=2)
        return self

    def plan(self, X, y) -> SearchPlan:
        """The fits ``fit(X, y)`` would run, counted without running any: to see the size of
        a search before starting it (``s3vm select`` refuses a large one without
        ``--large``). Checks the parameters, the folds and the grids as ``fit`` does.

        Returns
        -------
        SearchPlan
        """
        self._validate_params()
        _, folds, grid, baseline, baseline_grid = self._prepared(X, y)
        return self._plan(X, folds, grid, baseline, baseline_grid)

    def _validate_params(self):
        """scikit-learn's validation, after refusing a bool where a number is expected (``True``
        is an ``int`` to Python: ``n_jobs=True`` would pass as 1 worker)."""
        for name in ("cv", "n_jobs"):
            value = getattr(self, name)
            if isinstance(value, bool | np.bool_):
                raise InvalidParameterError(
                    f"The {name!r} parameter of {type(self).__name__} must be a number, not "
                    f"the boolean {value!r}."
                )
        super()._validate_params()

    def _clear_fitted(self) -> None:
        for name in [name for name in vars(self)
                     if name.endswith("_") and not name.startswith("_")]:
            delattr(self, name)

    def _prepared(self, X, y):
        """``(y, folds, grid, baseline, baseline_grid)`` of a search on ``X, y``, checked."""
        y = np.asarray(y)
        if y.ndim != 1 or y.shape[0] != _n_samples(X):
            raise ValueError(
                f"y must hold one label (or -1) per point of X: X has {_n_samples(X)} points, "
                f"y has shape {y.shape}."
            )
        folds = self._folds(X, y)
        grid = _grid_points(self.param_grid, "param_grid", "{} to cross-validate the estimator "
                            "with its own parameters")
        baseline = self._baseline()
        baseline_grid = None
        if baseline is not None:
            baseline_grid = _grid_points(self._baseline_grid(grid), "baseline_grid",
                                         "None for the estimator's kernel values and C")
        return y, folds, grid, baseline, baseline_grid

    def _plan(self, X, folds, grid, baseline, baseline_grid) -> SearchPlan:
        return SearchPlan(
            estimator=_name(self.estimator),
            baseline=None if baseline is None else _name(baseline),
            n_candidates=len(grid),
            n_baseline_candidates=0 if baseline is None else len(baseline_grid),
            n_splits=len(folds), n_refits=(1 + (baseline is not None)) * bool(self.refit),
            n_samples=_n_samples(X))

    def _report(self, message: str) -> None:
        """Say a line of the search's progress (``verbose``): on stderr, named."""
        print(f"[{type(self).__name__}] {message}", file=sys.stderr, flush=True)

    def _folds(self, X, y):
        cv = LabeledStratifiedKFold(self.cv) if isinstance(self.cv, Integral) else self.cv
        folds = [(np.asarray(train), np.asarray(test)) for train, test in cv.split(X, y)]
        unlabeled = unlabeled_mask(y)
        for k, (_, test) in enumerate(folds):
            if unlabeled[test].any():
                raise ValueError(
                    f"Fold {k} of {type(cv).__name__} holds unlabeled points (-1) out for "
                    "testing: they have no class to score, and a semi-supervised solver needs "
                    "them in training. Use LabeledStratifiedKFold."
                )
            if test.size == 0:
                raise ValueError(f"Fold {k} of {type(cv).__name__} holds no point out.")
        return folds

    def _baseline(self):
        """The baseline estimator (unfitted), or None."""
        if self.baseline is None:
            return None
        if self.baseline != "svm":
            return clone(self.baseline)
        from s3vm_core.multiclass import OneVsRestS3VM
        from s3vm_core.solvers.svm import SVMBaseline

        inner = getattr(self.estimator, "estimator", None)
        wrapped = isinstance(self.estimator, OneVsRestS3VM)
        source = (inner if wrapped else self.estimator).get_params(deep=False)
        svm = SVMBaseline(**{k: source[k] for k in _KERNEL_PARAMETERS if k in source})
        return OneVsRestS3VM(svm, n_jobs=self.estimator.n_jobs) if wrapped else svm

    def _baseline_grid(self, grid):
        if self.baseline_grid is not None:
            return self.baseline_grid
        if self.baseline != "svm":
            return {}
        prefix = "estimator__" if self._wrapped() else ""
        values = defaultdict(list)
        for point in grid:
            for name, value in point.items():
                if name.removeprefix(prefix) in (*_KERNEL_PARAMETERS, "C") and name.startswith(
                        prefix) and value not in values[name]:
                    values[name].append(value)
        values.setdefault(prefix + "C", list(GRID_AXES["SVMBaseline"]["C"]))
        return dict(values)

    def _wrapped(self) -> bool:
        from s3vm_core.multiclass import OneVsRestS3VM

        return isinstance(self.estimator, OneVsRestS3VM)

    def _search(self, estimator, grid, X, y, folds, stats, progress, model) -> dict:
        """Every grid point on every fold; the ``cv_results_`` of the grid. ``progress``
        hears of each fit as it ends (in one process), or of each group of fits (with
        workers)."""
        groups = defaultdict(list)
        for index, point in enumerate(grid):
            groups[_setup_key(point)].append(index)
        tasks = [[(i, grid[i]) for i in indices] for indices in groups.values()]

        def ended(record):
            progress.fitted(model, record, grid[record["index"]])

        if effective_n_jobs(self.n_jobs) == 1:
            done = [_run_group(estimator, points, X, y, folds, self.held_out, self.reuse,
                               on_fit=ended) for points in tasks]
        else:
            done = []
            for group in Parallel(n_jobs=self.n_jobs, return_as="generator_unordered")(
                    delayed(_run_group)(estimator, points, X, y, folds, self.held_out,
                                        self.reuse) for points in tasks):
                for record in group[0]:
                    ended(record)
                done.append(group)
        records = [record for group, _ in done for record in group]
        stats.extend(s for _, s in done if s is not None)
        _warn_collected(records, _name(estimator), len(grid) * len(folds))
        return _results(grid, records, len(folds))

    # -- the selected model ------------------------------------------------------------------

    def predict(self, X):
        """``best_estimator_.predict``."""
        return self._model().predict(X)

    def decision_function(self, X):
        """``best_estimator_.decision_function``."""
        return self._model().decision_function(X)

    def score(self, X, y, sample_weight=None) -> float:
        """``best_estimator_.score``: accuracy on the labeled points of ``y``."""
        return self._model().score(X, y, sample_weight=sample_weight)

    @property
    def classes_(self):
        return self._model().classes_

    @property
    def transduction_(self):
        """The selected estimator's labels of the training points."""
        return self._model().transduction_

    def _model(self):
        """``best_estimator_``, or a sentence on why there is none."""
        check_is_fitted(self, "cv_results_")
        if not hasattr(self, "best_estimator_"):
            raise NotFittedError(
                f"This {type(self).__name__} was fitted with refit=False, which keeps the "
                "cross-validation results (cv_results_, best_params_) but no model to predict "
                "with: fit it with refit=True, or fit the estimator with the chosen "
                "parameters yourself, clone(search.estimator).set_params("
                "**search.best_params_).fit(X, y)."
            )
        return self.best_estimator_

    def table(self) -> list[dict]:
        """The cross-validation table, one row a grid point, the estimator's then the
        baseline's: ``model``, ``params``, ``cv_error`` (nan where a fit failed),
        ``rank`` within its model, ``selected``, ``mean_fit_time``."""
        check_is_fitted(self, "cv_results_")
        rows = []
        parts = [(_name(self.estimator), self.cv_results_, self.best_index_)]
        if hasattr(self, "baseline_cv_results_"):
            parts.append((_name(self._baseline()), self.baseline_cv_results_,
                          _best(self.baseline_cv_results_)))
        for model, results, best in parts:
            for i, params in enumerate(results["params"]):
                rows.append({"model": model, "params": params,
                             "cv_error": results["mean_test_error"][i],
                             "rank": results["rank_test_score"][i], "selected": i == best,
                             "mean_fit_time": results["mean_fit_time"][i]})
        return rows


def _n_samples(X) -> int:
    return X.shape[0] if hasattr(X, "shape") else len(X)


def _grid_points(param_grid, name: str, otherwise: str) -> list[dict]:
    """The points of a grid (``ParameterGrid``), refused when there is none."""
    points = list(ParameterGrid(param_grid))
    if not points:
        raise ValueError(
            f"{name} is empty ({param_grid!r}), so there is nothing to cross-validate: give "
            f"the values to try, e.g. {{'C': [1.0, 10.0]}}, or {otherwise}."
        )
    return points


class _Progress:
    """The fits of a search as they end, and what ``verbose`` says of them: the plan before
    the first, after it an estimate of the time left, then how far the search has come at
    each tenth of the fits; with ``verbose >= 2`` every fit.

    The estimate takes each model's fits left at the mean time of its fits so far: in one
    process the wall clock from one fit's end to the next's (its scoring and the machine's
    load included), with workers each fit's own time spread over them (the refits run
    alone). Before the baseline's first fit its fits count at the estimator's pace, or at
    none when it is the SVM on the labeled points alone (``quick_baseline``: milliseconds
    beside a semi-supervised fit on every point)."""

    def __init__(self, plan: SearchPlan, verbose: int, report, workers: int,
                 quick_baseline: bool, reuse: bool):
        self.plan, self.verbose, self.report, self.reuse = plan, int(verbose), report, reuse
        self.workers, self.quick_baseline = max(int(workers), 1), quick_baseline
        self.cv_fits = {"estimator": plan.n_candidates * plan.n_splits,
                        "baseline": plan.n_baseline_candidates * plan.n_splits}
        self.refits = {"estimator": int(plan.n_refits > 0),
                       "baseline": int(plan.n_refits > 1)}
        self.names = {"estimator": plan.estimator, "baseline": plan.baseline}
        self.done = {"estimator": 0, "baseline": 0}
        self.seconds = {"estimator": 0.0, "baseline": 0.0}
        self.timed = {"estimator": 0, "baseline": 0}
        self.tenths_said = 0
        self.start = self.last = time.perf_counter()
        if self.verbose:
            self.report(f"{plan}.")

    @property
    def n_done(self) -> int:
        return sum(self.done.values())

    def fitted(self, model: str, record: dict, params: dict) -> None:
        self.done[model] += 1
        now = time.perf_counter()
        seconds = now - self.last if self.workers == 1 else record["seconds"]
        self.last = now
        if math.isfinite(seconds):
            self.seconds[model] += seconds
            self.timed[model] += 1
        if not self.verbose:
            return
        total, done = self.plan.n_fits, self.n_done
        if self.verbose >= 2:
            where = ("on all the points" if record.get("fold") is None
                     else f"fold {record['fold'] + 1} of {self.plan.n_splits}")
            outcome = (f"failed ({record['error']})" if record.get("error")
                       else duration_in_words(record["seconds"]))
            self.report(f"fit {done}/{total}: {self.names[model]} with "
                        f"{_settings(params)}, {where}: {outcome}.")
        tenths = 10 * done // total
        if done == 1 and total > 1:
            reused = ", less as the next fits reuse its setup" if self.reuse else ""
            self.report(f"The first fit took {duration_in_words(record['seconds'])}: about "
                        f"{duration_in_words(self.left())} left at its pace{reused}"
                        f"{self._baseline_note()}.")
        elif tenths > self.tenths_said and done < total:
            self.report(f"{done}/{total} fits in {duration_in_words(self.elapsed())}; about "
                        f"{duration_in_words(self.left())} left{self._baseline_note()}.")
        self.tenths_said = max(self.tenths_said, tenths)

    @contextmanager
    def refit(self, model: str, params: dict):
        """A context that times the refit of ``model`` on all the points."""
        start = time.perf_counter()
        yield
        self.fitted(model, {"seconds": time.perf_counter() - start, "fold": None,
                            "error": None}, params)

    def end(self) -> None:
        if self.verbose:
            self.report(f"{self.n_done} fits in {duration_in_words(self.elapsed())}.")

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def _pace(self, model: str) -> float:
        if self.timed[model]:
            return self.seconds[model] / self.timed[model]
        if model == "baseline" and self.quick_baseline:
            return 0.0
        return self._pace("estimator") if model == "baseline" else math.nan

    def left(self) -> float:
        """Seconds of the wall clock left, about (see the class)."""
        seconds = 0.0
        for model in ("estimator", "baseline"):
            cv_left = max(self.cv_fits[model] - self.done[model], 0)
            refits_left = self.refits[model] - max(self.done[model] - self.cv_fits[model], 0)
            pace = self._pace(model)
            if cv_left or refits_left:
                seconds += pace * (cv_left / self.workers + refits_left)
        return seconds

    def _baseline_note(self) -> str:
        if self.quick_baseline and self.plan.baseline is not None and not self.timed[
                "baseline"]:
            return (f" (not counting the {self.cv_fits['baseline']} quick fits of "
                    f"{self.plan.baseline} on the labeled points alone)")
        return ""


def duration_in_words(seconds: float) -> str:
    """Seconds in words, as the search's progress says them: "0.42 s", "12 s", "3 min",
    "1.5 h"; "an unknown time" for nan."""
    if not math.isfinite(seconds):
        return "an unknown time"
    if seconds < 10:
        return f"{seconds:.2g} s"
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _settings(params: dict) -> str:
    return ", ".join(f"{name}={value!r}" for name, value in params.items()) or "its own " \
        "parameters"


def _name(estimator) -> str:
    inner = getattr(estimator, "estimator", None)
    if inner is not None and type(estimator).__name__ == "OneVsRestS3VM":
        return f"OneVsRestS3VM({type(inner).__name__})"
    return type(estimator).__name__


def _setup_key(point: dict) -> tuple:
    """The values of the setup parameters of a grid point (see ``SETUP_PARAMETERS``)."""
    return tuple(sorted((name, repr(value)) for name, value in point.items()
                        if name.rsplit("__", 1)[-1] in SETUP_PARAMETERS))


def _hidden(y, rows):
    """``y`` with the points ``rows`` marked unlabeled (-1)."""
    hidden = y.astype(object) if y.dtype.kind in "USb" else y.copy()
    hidden[rows] = -1
    return hidden


def _run_group(estimator, points, X, y, folds, held_out: str, reuse: bool, on_fit=None):
    """The grid points ``points`` (sharing their setup parameters) on every fold: a record of
    each fit, and the reuse statistics (None without reuse). ``on_fit(record)`` is called as
    each fit ends."""
    stats = None
    if reuse:
        with reuse_setups() as current:
            records = _fit_group(estimator, points, X, y, folds, held_out, on_fit)
            stats = current()
    else:
        records = _fit_group(estimator, points, X, y, folds, held_out, on_fit)
    return records, stats


def _fit_group(estimator, points, X, y, folds, held_out, on_fit=None):
    records = []
    for k, (train, test) in enumerate(folds):
        if held_out == "unlabeled":
            X_fit, y_fit = X, _hidden(y, test)
        else:
            X_fit, y_fit = _safe_indexing(X, train), y[train]
        for index, params in points:
            model = clone(estimator).set_params(**params)
            record = {"index": index, "fold": k, "n_test": int(test.size), "correct": None,
                      "seconds": math.nan, "error": None, "warnings": []}
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                start = time.perf_counter()
                try:
                    model.fit(X_fit, y_fit)
                    record["seconds"] = time.perf_counter() - start
                    predicted = np.asarray(model.predict(_safe_indexing(X, test)))
                    record["correct"] = int(np.sum(predicted == y[test]))
                except (ValueError, TypeError, ArithmeticError, np.linalg.LinAlgError) as error:
                    record["error"] = f"{type(error).__name__}: {error}"
            record["warnings"] = [(w.category, str(w.message)) for w in caught]
            records.append(record)
            if on_fit is not None:
                on_fit(record)
    return records


def _warn_collected(records, name: str, n_fits: int) -> None:
    """One warning per kind for the warnings of the cross-validation fits, and one for the
    fits that failed (the refit's own warnings are raised as they come)."""
    first_said, fits_warned = {}, defaultdict(int)
    for record in records:
        # a fit may warn more than once (one-vs-rest: once a problem); count the fits
        for category in dict.fromkeys(category for category, _ in record["warnings"]):
            fits_warned[category] += 1
        for category, message in record["warnings"]:
            first_said.setdefault(category, message)
    for category, count in fits_warned.items():
        warnings.warn(
            f"{count} of the {n_fits} cross-validation fits of {name} warned "
            f"({category.__name__}); the first said: {first_said[category]}", category,
            stacklevel=4)
    failed = [r for r in records if r["error"] is not None]
    if len(failed) == len(records):
        raise ValueError(
            f"Every cross-validation fit of {name} failed; the first said: {failed[0]['error']}"
        )
    if failed:
        warnings.warn(
            f"{len(failed)} of the {n_fits} cross-validation fits of {name} failed and score "
            f"nan; the first said: {failed[0]['error']}", FitFailedWarning, stacklevel=4)


def _results(grid, records, n_splits: int) -> dict:
    """scikit-learn's ``cv_results_`` layout from the fit records (see ``S3VMGridSearchCV``)."""
    n = len(grid)
    split = np.full((n_splits, n), np.nan)
    times = np.full((n_splits, n), np.nan)
    correct = np.zeros(n)
    tested = np.zeros(n)
    failed = np.zeros(n, dtype=bool)
    for r in records:
        i, k = r["index"], r["fold"]
        times[k, i] = r["seconds"]
        if r["correct"] is None:
            failed[i] = True
            continue
        split[k, i] = r["correct"] / r["n_test"]
        correct[i] += r["correct"]
        tested[i] += r["n_test"]
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(failed, np.nan, correct / np.maximum(tested, 1))
    results = {"params": grid}
    for name in sorted({name for point in grid for name in point}):
        results[f"param_{name}"] = [point.get(name) for point in grid]
    for k in range(n_splits):
        results[f"split{k}_test_score"] = split[k].tolist()
    results["mean_test_score"] = mean.tolist()
    results["std_test_score"] = _nan_where_empty(np.nanstd, split)
    results["mean_test_error"] = (1.0 - mean).tolist()
    order = np.where(np.isnan(mean), -np.inf, mean)
    # scikit-learn's rank: 1 for the best, ties share the lowest rank
    results["rank_test_score"] = [int(1 + np.sum(order > v)) for v in order]
    results["mean_fit_time"] = _nan_where_empty(np.nanmean, times)
    results["std_fit_time"] = _nan_where_empty(np.nanstd, times)
    return results


def _nan_where_empty(reduce, values) -> list:
    """``reduce`` over the folds (axis 0), nan for a grid point without a value (every fit
    failed) instead of numpy's warning about an empty slice."""
    out = np.full(values.shape[1], np.nan)
    some = ~np.all(np.isnan(values), axis=0)
    out[some] = reduce(values[:, some], axis=0)
    return out.tolist()


def _best(results) -> int:
    """The grid point of highest accuracy; ties go to the first listed."""
    scores = np.array(results["mean_test_score"], dtype=float)
    return int(np.argmax(np.where(np.isnan(scores), -np.inf, scores)))


def _summed(stats):
    from s3vm_core.reuse import ReuseStats

    return ReuseStats(hits=sum(s.hits for s in stats), misses=sum(s.misses for s in stats),
                      bytes_held=max((s.bytes_held for s in stats), default=0))


def default_grid(estimator, X, y=None) -> dict:
    """A 3 x 3 grid for ``estimator`` on ``X``, its defaults first: the RBF width at 1, 1/2 and
    2 times the LDS paper's default (§2.3.2: the 1/c quantile of the pairwise distances for c
    classes, c the labeled classes of ``y`` for ``OneVsRestS3VM``, else 2) against the solver's
    cost or weight (``GRID_AXES``); rho against C for LDS and the graph kernel.

    Ties go to the first grid point in ``S3VMGridSearchCV``, so a tie keeps the defaults.
    The keys are prefixed ``estimator__`` for ``OneVsRestS3VM``; a grid of another estimator
    (scikit-learn's) must be given by hand.
    """
    from s3vm_core.kernels import default_sigma
    from s3vm_core.multiclass import OneVsRestS3VM

    wrapped = isinstance(estimator, OneVsRestS3VM)
    inner = estimator.estimator if wrapped else estimator
    axes = GRID_AXES.get(type(inner).__name__)
    if axes is None:
        raise ValueError(
            f"There is no default grid for {type(inner).__name__}; give S3VMGridSearchCV a "
            f"param_grid of its own (one of {', '.join(GRID_AXES)} has one)."
        )
    grid = {name: list(values) for name, values in axes.items()}
    if inner.get_params().get("kernel") == "rbf":
        classes = 2
        if wrapped and y is not None:
            y = np.asarray(y)
            classes = len(np.unique(y[~unlabeled_mask(y)]))
        width = default_sigma(_check_points(X), n_classes=classes)
        grid = {"sigma": [f * width for f in GRID_WIDTHS], **grid}
    prefix = "estimator__" if wrapped else ""
    return {prefix + name: values for name, values in grid.items()}


def _check_points(X):
    from sklearn.utils import check_array

    return check_array(X, accept_sparse="csr", dtype=np.float64)


# -- the class ratio ---------------------------------------------------------------------------


def estimate_positive_fraction(X, y, baseline=None) -> float:
    """The fraction of unlabeled points in the positive class, from a supervised model's
    predictions on them ("classify and count").

    The balance constraints of ∇TSVM, LDS, cS3VM and QN-S3VM (the fraction of unlabeled
    points given to each class) and DA's ``r`` (DA paper eq. (5)) take the class ratio of the
    labeled points by default, as the papers do. That is right when the labels were drawn at
    random from the data, and misleading when they were not: labels picked as "k of each
    class" ask every class for an equal share of the unlabeled points whatever the data's true
    ratio (breast cancer: 63 % benign, so 5 labels of each class ask for 50 %). This estimate
    reads the ratio off the unlabeled points instead: the fraction that the supervised
    baseline, trained on the labels, puts in the positive class. It inherits the baseline's
    errors (a model trained on balanced labels leans towards balance), so it is a middle way
    between the labels' ratio and the truth; ``S3VMGridSearchCV`` can also select ``r`` by
    cross-validation from a few values around it.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Two classes among the labeled points, ``-1`` for unlabeled ones.
    baseline : estimator or None, default=None
        The supervised model (``SVMBaseline()`` by default), fitted here on the labeled points.

    Returns
    -------
    float in (0, 1)
        The fraction of unlabeled points predicted ``classes_[1]`` (the positive class of
        every binary estimator, DA's ``r``), kept within ``[1 / (2u), 1 - 1 / (2u)]`` for u
        unlabeled points, so that it is a valid ``r`` even when every one is predicted alike.
    """
    from s3vm_core.solvers.svm import SVMBaseline

    y = np.asarray(y)
    unlabeled = unlabeled_mask(y)
    u = int(unlabeled.sum())
    if u == 0:
        raise ValueError(
            "Every point is labeled, so there is no unlabeled point whose class ratio to "
            "estimate; the labels' own ratio is the data's."
        )
    model = (SVMBaseline() if baseline is None else clone(baseline)).fit(X, y)
    if len(model.classes_) != 2:
        raise ValueError(
            f"estimate_positive_fraction is for two classes; y has {len(model.classes_)}. For "
            "more, each one-vs-rest problem takes its class's fraction of the labels."
        )
    predicted = model.predict(_safe_indexing(X, np.flatnonzero(unlabeled)))
    fraction = float(np.mean(predicted == model.classes_[1]))
    return min(max(fraction, 0.5 / u), 1.0 - 0.5 / u)
