"""S4VM, the safe semi-supervised SVM of Li & Zhou, "Towards making unlabeled data never hurt"
(ICML 2011; IEEE TPAMI 37(1), 2015).

An S3VM commits to one low-density separator, and when the data do not hold the cluster
assumption it can be worse than the SVM on the labels alone. S4VM looks for many good
separators instead and returns the labeling of the unlabeled points whose gain in accuracy over
the SVM is largest in the worst case over them, which is never negative (the SVM's own labels
gain 0), so that, when the true labeling is among the separators, unlabeled data do not hurt.

The four steps, each a function here and a stage of the trace:

1. the SVM on the labeled points (``svm.svm_states``);
2. ``local_search`` from each of many random labelings of the unlabeled points: alternately an
   SVM on all points (labeled ones at cost C1, unlabeled ones at C2 with their current labels)
   and the best labeling of the unlabeled points under the balance constraint given its
   outputs (``balanced_labels``), until neither step changes anything;
3. ``group_labelings``: k-medoids on the candidates' labelings (Hamming distance), keeping the
   candidate of lowest objective (1) in each group;
4. ``safe_labeling``: the labeling that maximizes the worst-case gain over the kept candidates
   (the paper's max-min problem, relaxed to a linear programme), or the SVM's labels when no
   labeling gains in the worst case.

The SVMs are LIBSVM's (scikit-learn's ``SVC``) on one precomputed kernel matrix, which every
search shares.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import replace
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
from joblib import Parallel, delayed
from scipy.optimize import linprog
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, InvalidParameterError, StrOptions

from s3vm_core.base import (
    KERNEL_CONSTRAINTS,
    Bounded,
    S3VMClassifier,
    cost,
    iteration_limit,
)
from s3vm_core.diagnostics import LABEL_PROPORTIONS, SMALL_COST, WIDE_KERNEL, _user_level
from s3vm_core.kernels import check_rbf_width, default_sample, distances, squared_distances
from s3vm_core.losses import hinge
from s3vm_core.solvers.svm import KernelDesign, fit_libsvm, svm_states, warn_libsvm_cap
from s3vm_core.trace import SolverState

#: Share of the local searches that start from labels drawn uniformly at random; the others
#: start from the SVM's labels with each flipped with probability ``START_FLIP`` (the authors'
#: S4VM.m: 80 % and 20 %, flip rate 0.2).
UNIFORM_STARTS = 0.8
START_FLIP = 0.2
#: Share of the unlabeled points that keep, in each alternation, the label they had one
#: alternation earlier (the authors' S4VM.m, ``localDescent``): a random 20 % lags behind, which
#: breaks the two-cycles that plain alternation falls into.
LAGGING_SHARE = 0.2


class CandidateSearch(NamedTuple):
    """What ``local_search`` returns: one candidate separator and its labeling."""

    labels: np.ndarray       # +-1 on every training point (the labeled ones keep theirs)
    coef: np.ndarray         # the SVM's dual coefficients over the training points
    intercept: float
    decision: np.ndarray     # f = K coef + intercept on the training points
    objective: float         # eq. (1) at (f, labels)
    n_iter: int              # alternations after the first SVM
    converged: bool          # False when max_iter stopped it
    positives: np.ndarray    # unlabeled points labeled +1 after each label step
    capped_solves: int       # LIBSVM solves stopped at their iteration cap


class SafeChoice(NamedTuple):
    """What ``safe_labeling`` returns."""

    labels: np.ndarray       # +-1 on the unlabeled points: the chosen labeling
    choice: object           # "SVM", "LP" (the rounded linear programme) or a kept index
    worst_case_gain: float   # the best worst-case gain of a labeling other than the SVM's
    gains: np.ndarray        # the chosen labeling's gain against each kept candidate
    lp_bound: float          # the linear programme's optimum: no labeling gains more


def mean_distance_sigma(X) -> float:
    """The paper's kernel width: the average distance between instances (estimated on
    ``kernels.default_sample`` rows, so that it costs O(1) in n).

    The authors' S4VM.m documents its default as "the average distance between instances" and
    hands LIBSVM ``gamma = 1 / d`` for that average ``d``, on features the paper scales to
    [0, 1]; here it is the Gaussian's sigma, which does not depend on the units of X
    (docs/deviations.md, "S4VM").
    """
    X = X[default_sample(X.shape[0])]
    d = distances(X, X)[np.triu_indices(X.shape[0], 1)]
    d = d[d > 0]
    if d.size == 0:
        raise ValueError(
            "All points coincide, so no kernel width can be derived from their distances. "
            "Give distinct points or set sigma explicitly."
        )
    return float(d.mean())


def balance_bounds(positive_share: float, n_unlabeled: int,
                   beta: float) -> tuple[int, int]:
    """The numbers of unlabeled points labeled +1 that the balance constraint allows.

    Eq. (1)'s set B: the mean label of the unlabeled points within ``beta`` of the mean label
    ``2 positive_share - 1`` of the centre (the labeled points' in the paper, S4VM.m's
    ``beta = mean(label)``), i.e. a share of positives within ``beta / 2`` of
    ``positive_share``. When no integer lies in that range (few unlabeled points), the count
    nearest to the centre is the only one allowed.
    """
    low, high = positive_share - beta / 2.0, positive_share + beta / 2.0
    slack = 1e-9 * max(n_unlabeled, 1)  # a product that should be an integer stays one
    k_low = max(0, math.ceil(n_unlabeled * low - slack))
    k_high = min(n_unlabeled, math.floor(n_unlabeled * high + slack))
    if k_low > k_high:
        k_low = k_high = min(n_unlabeled, max(0, round(n_unlabeled * positive_share)))
    return k_low, k_high


def balanced_labels(f, k_low: int, k_high: int) -> np.ndarray:
    """The labels (+-1) of points with outputs ``f`` that minimize their hinge losses
    ``sum max(0, 1 - y_j f_j)`` among those with between ``k_low`` and ``k_high`` positives.

    The sign of f, except that the ``k_low`` largest outputs are positive and all but the
    ``k_high`` largest negative whatever their sign: the loss of a point labeled +1 minus that
    of -1 decreases in f, so the positives are always a set of largest outputs.
    """
    order = np.argsort(-f, kind="stable")
    k = min(max(int(np.count_nonzero(f >= 0)), k_low), k_high)
    labels = np.full(f.size, -1.0)
    labels[order[:k]] = 1.0
    return labels


def s3vm_objective(coef, intercept: float, decision, labels, costs) -> float:
    """Eq. (1): ``1/2 ||f||^2 + sum_i C_i max(0, 1 - y_i f_i)``, C1 on the labeled points and
    C2 on the unlabeled ones with their labels; ``||f||^2 = coef^T K coef`` is read off the
    outputs ``K coef + intercept``."""
    return float(0.5 * coef @ (decision - intercept) + costs @ hinge(labels * decision))


class _Fit(NamedTuple):
    coef: np.ndarray
    intercept: float
    decision: np.ndarray
    capped: bool


def weighted_svm(K, labels, costs) -> _Fit:
    """LIBSVM (``svm.fit_libsvm``) on the precomputed kernel ``K`` with labels ``labels`` and
    per-point costs ``costs`` (all positive); ``capped`` when it stopped at its iteration cap.

    The outputs on the training points come from the support vectors' rows of K (K is
    symmetric), a fraction of a product by the whole of it. LIBSVM rather than the warm-started
    active set of ``weighted_hinge``: a search's alternations relabel hundreds of points at
    once, each a pivot of the active set, and LIBSVM from zero was about 5 times faster per
    search at n = 200 and 2,000 (``python -m benchmarks.bench_s4vm --solvers``).
    """
    svm, converged = fit_libsvm(K, labels, sample_weight=costs)
    support, dual = svm.support_, svm.dual_coef_[0]
    coef = np.zeros(labels.size)
    coef[support] = dual
    intercept = float(svm.intercept_[0])
    return _Fit(coef, intercept, dual @ np.take(K, support, axis=0) + intercept, not converged)


def local_search(K, y, start_kind: str, svm_labels, seed, *, C1: float, C2: float,
                 bounds: tuple[int, int], max_iter: int) -> CandidateSearch:
    """One local search for a low-density separator from a random labeling.

    The labeled points (``y`` = +-1, 0 unlabeled) keep their labels and cost ``C1``; the
    unlabeled ones start from labels drawn uniformly at random (``start_kind="uniform"``), from
    the SVM's labels ``svm_labels`` with each flipped with probability ``START_FLIP``
    (``"flipped"``) or from the SVM's labels themselves (``"svm"``), and cost ``C2``. Then the
    two steps of the alternating minimization of eq. (1) take turns (the authors' S4VM.m,
    ``localDescent``): the SVM for the current labels, and ``balanced_labels`` of its outputs
    within ``bounds`` (``balance_bounds``). Each SVM trains on the last labels, except that a
    random ``LAGGING_SHARE`` of the unlabeled points keep those of one alternation earlier. It
    stops at a labeling that both steps keep (the SVM trained on it gives it back), or after
    ``max_iter`` alternations (``converged`` False). ``seed`` seeds every random draw, so a
    search gives the same result in any process.

    ``K`` is copied when its values are not aligned in memory, as a Dask worker may hold it
    (joblib's Dask backend sends it once to each worker, and the array read back from the
    message sat at an odd address): every read of K was then an unaligned one, and a search
    took 1.8 times the CPU of the same search on an aligned copy (n = 2,000); the copy costs
    a few percent of a search.
    """
    K = np.require(K, dtype=np.float64, requirements=["C", "A"])
    rng = np.random.default_rng(seed)
    unlabeled = np.flatnonzero(y == 0)
    u = unlabeled.size
    costs = np.where(y == 0, C2, C1)
    labels = y.astype(float)
    if start_kind == "uniform":
        labels[unlabeled] = np.where(rng.random(u) < 0.5, -1.0, 1.0)
    else:
        flip = rng.random(u) < START_FLIP if start_kind == "flipped" else np.zeros(u, bool)
        labels[unlabeled] = np.where(flip, -svm_labels, svm_labels)
    fit = weighted_svm(K, labels, costs)
    capped = int(fit.capped)
    previous, current = labels, _relabeled(labels, fit.decision, unlabeled, bounds)
    positives = [int(np.count_nonzero(current[unlabeled] > 0))]
    n_lagging = math.ceil(LAGGING_SHARE * u)
    converged = False
    for _ in range(max_iter):
        trained = current.copy()
        lagging = unlabeled[rng.permutation(u)[:n_lagging]]
        trained[lagging] = previous[lagging]
        fit = weighted_svm(K, trained, costs)
        capped += fit.capped
        previous, current = current, _relabeled(trained, fit.decision, unlabeled, bounds)
        positives.append(int(np.count_nonzero(current[unlabeled] > 0)))
        if np.array_equal(current, trained):
            converged = True
            break
    return CandidateSearch(
        labels=current.astype(np.int8), coef=fit.coef, intercept=fit.intercept,
        decision=fit.decision,
        objective=s3vm_objective(fit.coef, fit.intercept, fit.decision, current, costs),
        n_iter=len(positives) - 1, converged=converged, positives=np.array(positives),
        capped_solves=capped)


def _relabeled(labels, f, unlabeled, bounds) -> np.ndarray:
    """``labels`` with those of the unlabeled points set by ``balanced_labels`` of f."""
    new = labels.copy()
    new[unlabeled] = balanced_labels(f[unlabeled], *bounds)
    return new


def group_labelings(labelings, n_groups: int, rng) -> np.ndarray:
    """k-medoids (Voronoi iteration) of the rows of ``labelings`` (+-1) in Hamming distance;
    the group of each row, numbered 0, 1, ... without gaps (a group left empty is dropped, as
    the authors' S4VM.m drops the empty clusters of its k-means).

    The medoids start by k-medoids++ (each next one drawn in proportion to the distance to the
    nearest one already chosen, from ``rng``); fewer than ``n_groups`` groups when fewer rows
    differ.
    """
    L = np.asarray(labelings, dtype=float)
    m = L.shape[0]
    D = 0.5 * (L.shape[1] - L @ L.T)  # the Hamming distance of +-1 rows
    medoids = [int(rng.integers(m))]
    nearest = D[medoids[0]].copy()
    while len(medoids) < min(n_groups, m) and nearest.sum() > 0:
        medoids.append(int(rng.choice(m, p=nearest / nearest.sum())))
        nearest = np.minimum(nearest, D[medoids[-1]])
    medoids = np.array(medoids)
    for _ in range(100):
        groups = np.argmin(D[:, medoids], axis=1)
        # each group's new medoid: its member of least total distance to the others
        updated = np.array([
            members[np.argmin(D[np.ix_(members, members)].sum(axis=1))]
            for members in (np.flatnonzero(groups == g) for g in range(medoids.size))
            if members.size])
        if np.array_equal(updated, medoids):
            break
        medoids = updated
    groups = np.argmin(D[:, medoids], axis=1)
    return np.unique(groups, return_inverse=True)[1]


def worst_case_gains(labels, kept, svm_labels, lam: float) -> np.ndarray:
    """The gain of ``labels`` over ``svm_labels`` against each kept labeling (rows of
    ``kept``), all +-1 on the unlabeled points, as a share of them.

    Were the kept labeling ``y^`` the truth, the points that ``labels`` has right and the SVM
    wrong are gained, those that it has wrong and the SVM right lost; the paper's gain is
    ``gained - lam lost``: ``sum_j [(1 + y_j y^_j)(1 - s_j y^_j) - lam (1 - y_j y^_j)(1 + s_j
    y^_j)] / 4`` for SVM labels ``s``.
    """
    kept = np.atleast_2d(kept)
    same = kept == labels
    svm_right = kept == svm_labels
    gained = np.count_nonzero(same & ~svm_right, axis=1)
    lost = np.count_nonzero(~same & svm_right, axis=1)
    return (gained - lam * lost) / labels.size


def safe_labeling(kept, svm_labels, lam: float) -> SafeChoice:
    """The labeling of the unlabeled points with the largest worst-case gain over the kept
    candidates' labelings ``kept`` (rows, +-1), or the SVM's labels ``svm_labels``.

    The paper's max-min problem, ``max_y min_t gain_t(y)`` over labelings y (``worst_case_
    gains``), relaxed to y in [-1, 1]^u is a linear programme in (theta, y): maximize theta
    with ``theta <= gain_t(y)`` for each kept t, each linear in y (the authors' S4VM.m,
    ``linearProgramming``, solved here by scipy's HiGHS). Its solution is rounded by sign (a
    zero keeps the SVM's label). The rounded labeling, and each kept labeling, are then scored
    on the max-min objective itself: the best of them is chosen (the rounded one on a tie),
    and the SVM's labels, which gain 0 against every candidate, when even the best gains less
    than 0 in the worst case (the paper's fallback, docs/deviations.md, "S4VM") or is the
    SVM's labeling itself (``choice`` "SVM" in both cases).
    """
    kept = np.atleast_2d(np.asarray(kept, dtype=float))
    s = np.asarray(svm_labels, dtype=float)
    t, u = kept.shape
    # theta - (1/4)[(1 + lam) y^_t - (1 - lam) s]^T y <= (1/4)[(1 - lam) u - (1 + lam) y^_t^T s]
    A = np.column_stack([np.ones(t), -((1.0 + lam) * kept - (1.0 - lam) * s) / 4.0])
    b = ((1.0 - lam) * u - (1.0 + lam) * kept @ s) / 4.0
    result = linprog(np.r_[-1.0, np.zeros(u)], A_ub=A, b_ub=b,
                     bounds=[(None, None)] + [(-1.0, 1.0)] * u, method="highs")
    options = [(index, row) for index, row in enumerate(kept)]
    if result.status == 0:
        relaxed = result.x[1:]
        options.insert(0, ("LP", np.where(relaxed > 0, 1.0, np.where(relaxed < 0, -1.0, s))))
    else:  # it is feasible and bounded (theta = 0 at y = s): only round-off can do this
        warnings.warn(
            f"S4VM's linear programme of the safe choice failed ({result.message}); the "
            "choice is made among the kept candidates and the SVM's labels.",
            ConvergenceWarning, stacklevel=_user_level())
    scores = [float(worst_case_gains(labels, kept, s, lam).min()) for _, labels in options]
    best = int(np.argmax(scores))  # the first of the best: the rounded labeling on a tie
    choice, labels = options[best]
    if scores[best] < 0 or np.array_equal(labels, s):
        choice, labels = "SVM", s
    return SafeChoice(labels=labels, choice=choice, worst_case_gain=scores[best],
                      gains=worst_case_gains(labels, kept, s, lam),
                      lp_bound=float(result.x[0]) / u if result.status == 0 else math.nan)


class _Outcome(NamedTuple):
    """What the trace of ``S4VM`` hands to ``_postprocess``."""

    svm_labels: np.ndarray
    searches: list
    groups: np.ndarray
    kept: np.ndarray
    safe: SafeChoice | None
    labels: np.ndarray


class S4VM(S3VMClassifier):
    """S4VM: the safe semi-supervised SVM of Li & Zhou (ICML 2011; TPAMI 2015), "S4VM_s", its
    implementation by sampling.

    The S3VM of the paper's eq. (1),

    ``min_{f, y^ in B} 1/2 ||f||^2 + C1 sum_labeled max(0, 1 - y_i f_i)
    + C2 sum_unlabeled max(0, 1 - y^_j f_j)``,

    with the balance constraint B (the mean of the unlabeled labels y^ within ``beta`` of that
    of the labels, or of the centre ``r``), is minimized by ``sample_time`` local searches from
    random labelings (``local_search``) and from the SVM's labels. Their labelings are grouped
    by k-medoids (``group_labelings``) and the candidate of lowest objective in each group is
    kept. The answer is the labeling of the unlabeled points that maximizes the worst-case gain
    in accuracy over the SVM on the labels, were any kept candidate the truth (``gain - lam
    loss``, the points the labeling gains over the SVM less ``lam`` times those it loses;
    ``safe_labeling``). The SVM's labels gain 0 against every candidate, so they are returned
    when nothing gains in the worst case. With ``lam >= 1``, when the true labeling is among the
    kept candidates, the answer is at least as accurate as the SVM on the unlabeled points (gain
    >= lam loss >= loss).

    Transductive, as the paper: ``transduction_`` holds the chosen labels. ``predict`` on
    new points uses the SVM trained on the chosen labeling (cost C1 on the labels, C2 on the
    chosen labels of the unlabeled points), or the SVM on the labels when it is returned
    (docs/deviations.md, "S4VM": the TPAMI paper's out-of-sample rule solves the linear
    programme again for each new point).

    Defaults: those of S4VM.m, the authors' code of the paper (LAMDA, Nanjing University):
    C1 = 100, C2 = 0.1, 100 samplings, 10 clusters, lambda = 3, a balance tolerance of 0.1,
    at most 200 alternations per search; the width below.

    Parameters
    ----------
    C1 : float in [1e-10, 1e10], default=100
        Cost of the labeled points' hinge losses in eq. (1) (S4VM.m: 100).
    C2 : float in [1e-10, 1e10], default=0.1
        Cost of the unlabeled points' hinge losses in eq. (1) (S4VM.m: 0.1); small, so that a
        search can move a labeling across a dense region only at a cost.
    kernel : {"rbf", "linear", "poly"}, default="rbf"
    sigma : float or None, default=None
        RBF width, ``k(x, z) = exp(-||x - z||^2 / (2 sigma^2))``. ``None``: the average
        distance between points, S4VM.m's "average distance between instances"
        (``mean_distance_sigma``; not the library's median rule, and not S4VM.m's LIBSVM
        ``gamma = 1 / d``, which depends on the units of X: docs/deviations.md, "S4VM").
    degree, coef0 : polynomial kernel ``(<x, z> + coef0)^degree``.
    lam : float in [0, 1e6], default=3.0
        lambda, the weight of a lost point against a gained one in the worst-case gain
        (S4VM.m: 3). At least 1 for the safeness argument above.
    beta : float in [0, 2], default=0.1
        The balance constraint's tolerance on the unlabeled points' mean label (S4VM.m's
        ``alpha = 0.1``), about the centre that ``r`` sets.
    r : float in (0, 1), "svm", "both" or None, default=None
        The centre of the balance constraint: the share of unlabeled points in the positive
        class ``classes_[1]``. ``None``: the labeled points' share, as the paper (eq. (1);
        S4VM.m's ``beta = mean(label)``), right for labels drawn at random from the data, the
        paper's protocol. ``"svm"``: the share that the SVM on the labels (the one the safe
        choice is measured against) gives the unlabeled points ("classify and count", as
        ``estimate_positive_fraction``). ``"both"``: the searches take the two centres in
        turn, so that the candidates stand for either ratio and the safe choice leaves the
        SVM's labels only where both agree (docs/deviations.md, "S4VM"). Both shares are
        computed in each fit, so also in each problem of ``OneVsRestS3VM``. Labels drawn
        equally per class put the labels' share at one half: on unbalanced data every
        candidate then misses the true ratio, and S4VM can be worse than its SVM (breast
        cancer, 63 % benign, 10 labels a class: 10.6 % against its SVM's 8.6 %); the SVM's
        share from 2 labels a class is far from the truth as often (two circles: 34.5 %
        against 32.6 % with ``"svm"``); with ``"both"`` S4VM is worse than its SVM on
        neither (docs/benchmarks.md, "Safe on real data").
    sample_time : int in [1, 10000], default=100
        Local searches from random labelings (S4VM.m's ``sampleTime``): 80 % uniform at
        random, 20 % the SVM's labels with a fifth of them flipped. One more starts from the
        SVM's labels themselves, unless the SVM puts every unlabeled point in one class.
    n_clusters : int or None, default=None
        Groups of k-medoids; ``None``: ``sample_time // 10`` (S4VM.m's
        ``floor(sampleTime / 10)``), at least 1.
    max_iter : int, default=200
        Alternations of a local search before it stops (S4VM.m: 200); a search that reaches
        it warns with a ``ConvergenceWarning`` at the end of the fit.
    random_state : int, RandomState or None, default=None
        Seeds the starts, the lagging points of each alternation and the k-medoids; a fixed
        value gives the same fit for any ``n_jobs``.
    n_jobs : int or None, default=None
        Processes for the local searches (joblib; ``None`` is 1 unless a
        ``joblib.parallel_backend`` context says otherwise, e.g. "dask" to run them on a Dask
        cluster).

    Attributes
    ----------
    sigma_ : float or None
    coef_ : ndarray of shape (n_samples,)
        Dual coefficients over the training points, ``features(X) = k(X, X_train)`` (with
        ``kernel="linear"`` both taken from the training points' mean, the same model with
        better rounding).
    intercept_, classes_, objective_ (eq. (1) of the returned model)
    transduction_ : ndarray of shape (n_samples,)
        The chosen labels (the labeled points keep theirs).
    svm_transduction_ : ndarray of shape (n_samples,)
        The labels that the SVM trained on the labeled points gives the training points (the
        labeled ones keep theirs).
    safe_choice_ : str or int
        ``"SVM"`` when the SVM's labels are returned (nothing gains in the worst case, or the
        best labeling is the SVM's own), ``"LP"`` when the rounded solution of the linear
        programme is, else the index (into ``candidate_labelings_``) of the kept candidate
        whose labeling is.
    worst_case_gain_ : float
        The best worst-case gain found, as a share of the unlabeled points: that of the
        returned labeling, or, when it is negative, of the labeling the SVM's replaced; so
        negative means ``"SVM"`` and positive a labeling that is not the SVM's (0: the SVM's
        labels, or one that gains nothing in the worst case); nan without unlabeled points.
    lp_bound_ : float
        The linear programme's optimum, the same share: no labeling gains more in the worst
        case (nan without unlabeled points, or where the programme failed, which warns).
    kept_gains_ : ndarray of shape (n_kept,)
        The returned labeling's gain against each kept candidate (its minimum is the
        worst-case gain; 0 for the SVM's labels).
    candidate_labelings_ : ndarray of shape (n_candidates, n_samples), int8
        Each search's labeling in the +-1 coding of ``classes_`` (-1 is ``classes_[0]``); the
        search from the SVM's labels first when there is one.
    candidate_objectives_ : ndarray of shape (n_candidates,)
        Eq. (1) at each search's end.
    candidate_n_iter_ : ndarray of shape (n_candidates,)
        Alternations of each search.
    candidate_groups_ : ndarray of shape (n_candidates,)
        The k-medoids group of each candidate.
    kept_candidates_ : ndarray of shape (n_kept,)
        The candidate of lowest objective in each group, by group.
    n_iter_ : int
        SVMs solved, over all searches.

    Trace: stage ``"fit"``, "init" (f = 0) and the SVM on the labels ("stage_end"); stage
    ``"candidate"``, a "stage_end" state at the end of each search (stage_index and
    stage_value its index, iteration its alternations, objective eq. (1)); stage ``"group"``,
    a "stage_end" state for each kept candidate (stage_index the group, stage_value the
    candidate); stage ``"safe"``, the "final" model. ``extras["labels"]``: the state's labeling
    (+-1) of the training points; the final state's ``extras["gains"]`` is ``kept_gains_``.
    """

    _sparse_kernels = ()
    _degenerate_causes = {"C1": SMALL_COST, "sigma": WIDE_KERNEL}
    _too_large = "S4VM keeps the n x n kernel matrix: fit it on fewer points."
    _parameter_constraints = {
        **KERNEL_CONSTRAINTS,
        "C1": [cost("C1")],
        "C2": [cost("C2")],
        "lam": [Bounded(Real, 0, 1e6, closed="both",
                        why="the paper's is 3; beyond 1e6 one lost point outweighs the gains on "
                            "any data set of fewer than a million points, so larger values "
                            "change nothing")],
        "beta": [Interval(Real, 0, 2, closed="both")],
        "r": [Interval(Real, 0, 1, closed="neither"), StrOptions({"svm", "both"}), None],
        "sample_time": [Bounded(Integral, 1, 10_000, closed="both",
                                why="the paper samples 100; each sample is a local search of "
                                    "many SVM fits")],
        "n_clusters": [Interval(Integral, 1, None, closed="left"), None],
        "max_iter": [iteration_limit(200)],
        "random_state": ["random_state"],
        "n_jobs": [Integral, None],
    }

    def __init__(self, C1=100.0, C2=0.1, kernel="rbf", sigma=None, degree=3, coef0=1.0,
                 lam=3.0, beta=0.1, r=None, sample_time=100, n_clusters=None, max_iter=200,
                 random_state=None, n_jobs=None):
        self.C1 = C1
        self.C2 = C2
        self.kernel = kernel
        self.sigma = sigma
        self.degree = degree
        self.coef0 = coef0
        self.lam = lam
        self.beta = beta
        self.r = r
        self.sample_time = sample_time
        self.n_clusters = n_clusters
        self.max_iter = max_iter
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _validate_params(self):
        super()._validate_params()
        if self.n_jobs == 0:
            raise InvalidParameterError(
                "The 'n_jobs' parameter of S4VM is 0, which would run no worker. Use None or 1 "
                "for one process, k > 1 for k workers, or -1 for every core."
            )

    # -- setup: the kernel matrix, shared by every search ---------------------------------

    def _setup(self, problem):
        X = problem.X
        # An SVM with a bias is the same model on translated data: the linear kernel takes the
        # points from their mean, where its values are of the data's spread, not of its offset
        # (far from the origin, <x, z> of 1e16 leaves LIBSVM round-off to work on).
        self._offset = X.mean(axis=0) if self.kernel == "linear" else np.zeros(X.shape[1])
        X = X - self._offset
        if self.kernel == "rbf" and self.sigma is None:
            self.sigma_ = mean_distance_sigma(X)
            self.X_fit_ = X
            sample = X[default_sample(X.shape[0])]
            check_rbf_width(squared_distances(sample, sample), self.sigma_)
        else:
            self._fit_kernel(X)
        self._K = self._kernel(X)

    def _features(self, X):
        return self._kernel(X - self._offset)

    def _balance_centres(self, y, svm_labels_u) -> tuple[float, ...]:
        """The centres of the balance constraint (``r``): the shares of positives it asks of
        the unlabeled points, from the labels ``y`` (+-1, 0 unlabeled) and/or the SVM's
        labels ``svm_labels_u`` of the unlabeled points; the searches take them in turn."""
        labels_share = float(np.mean(y[y != 0] > 0))
        svm_share = float(np.mean(svm_labels_u > 0))
        return {None: (labels_share,), "svm": (svm_share,),
                "both": (labels_share, svm_share)}.get(self.r, (self.r,))

    def _balance_from_labels(self):
        if self.r is not None:
            return None
        if hasattr(self, "safe_choice_") and not isinstance(self.safe_choice_, Integral):
            # the answer keeps the balance only when it is a candidate's labeling: the SVM's
            # labels and the linear programme's follow none, so a share far from the labels'
            # says nothing about them
            return None
        return ("The balance constraint of its local searches (eq. (1)) keeps the mean label of "
                f"the unlabeled points within beta = {self.beta:g} of the labeled points' mean "
                "label. Set r='both' to search also about the share its SVM predicts, or "
                f"{LABEL_PROPORTIONS[0].lower()}{LABEL_PROPORTIONS[1:]}")

    # -- the four steps -------------------------------------------------------------------

    def _iterate(self, problem):
        K, y = self._K, problem.y.astype(float)
        labeled, unlabeled = problem.labeled, np.flatnonzero(problem.unlabeled)
        init, svm = svm_states(KernelDesign(K[:, labeled], np.flatnonzero(labeled)), problem,
                               self.C1)
        coef = np.zeros(y.size)  # the SVM's coefficients over the labeled points, in the
        yield replace(init, coef=coef)  # expansion over every training point of the others
        coef[labeled] = svm.coef
        svm_labels = np.where(svm.train_decision > 0, 1.0, -1.0)
        svm_labels[labeled] = y[labeled]
        svm = replace(svm, coef=coef, event="stage_end", extras={"labels": svm_labels})
        yield svm
        if unlabeled.size == 0:
            yield replace(svm, stage="safe", event="final")
            return _Outcome(svm_labels, [], np.zeros(0, int), np.zeros(0, int), None,
                            svm_labels)
        rng = check_random_state(self.random_state)
        searches = []
        for index, search in enumerate(self._searches(K, y, svm_labels[unlabeled], rng)):
            searches.append(search)
            yield self._state(search, "candidate", index, index, search.n_iter)
        labelings = np.array([search.labels[unlabeled] for search in searches])
        n_groups = self.n_clusters or max(self.sample_time // 10, 1)
        groups = group_labelings(labelings, n_groups, np.random.default_rng(
            rng.randint(np.iinfo(np.int32).max)))
        objectives = np.array([search.objective for search in searches])
        kept = np.array([np.flatnonzero(groups == g)[np.argmin(objectives[groups == g])]
                         for g in range(groups.max() + 1)])
        for g, index in enumerate(kept):
            yield self._state(searches[index], "group", g, index, searches[index].n_iter)
        safe = safe_labeling(labelings[kept], svm_labels[unlabeled], self.lam)
        if safe.choice != "SVM" and safe.choice != "LP":
            safe = safe._replace(choice=int(kept[safe.choice]))
        labels = svm_labels.copy()
        labels[unlabeled] = safe.labels
        final, capped = self._final_state(svm, K, y, labels, safe)
        self._warn(searches, capped)
        yield final
        return _Outcome(svm_labels, searches, groups, kept, safe, labels)

    def _searches(self, K, y, svm_labels_u, rng):
        """The local searches, in order, as they end (in joblib's workers when ``n_jobs``
        or a ``parallel_backend`` says so): from the SVM's labels (unless they put every
        unlabeled point in one class, as S4VM.m skips it), then ``sample_time`` from random
        starts, each with its own seed drawn from ``rng``."""
        kinds = ["svm"] if np.ptp(svm_labels_u) > 0 else []
        n_uniform = math.ceil(UNIFORM_STARTS * self.sample_time)
        kinds += ["uniform"] * n_uniform + ["flipped"] * (self.sample_time - n_uniform)
        seeds = rng.randint(np.iinfo(np.int32).max, size=len(kinds))
        bounds = [balance_bounds(centre, svm_labels_u.size, self.beta)
                  for centre in self._balance_centres(y, svm_labels_u)]
        yield from Parallel(n_jobs=self.n_jobs, return_as="generator")(
            delayed(local_search)(K, y, kind, svm_labels_u, int(seed), C1=float(self.C1),
                                  C2=float(self.C2), bounds=bounds[index % len(bounds)],
                                  max_iter=self.max_iter)
            for index, (kind, seed) in enumerate(zip(kinds, seeds, strict=True)))

    @staticmethod
    def _state(search: CandidateSearch, stage: str, index: int, value: int,
               iteration: int) -> SolverState:
        return SolverState(stage=stage, stage_index=index, stage_value=value,
                           iteration=iteration, event="stage_end", coef=search.coef,
                           intercept=search.intercept, objective=search.objective,
                           train_decision=search.decision, extras={"labels": search.labels})

    def _final_state(self, svm: SolverState, K, y, labels,
                     safe: SafeChoice) -> tuple[SolverState, bool]:
        """The returned model: the SVM on the labels when it is the choice, else the SVM on
        the chosen labeling (the model ``predict`` uses on new points); and whether LIBSVM
        stopped at its cap in it."""
        # the choice in the state itself, for a film's last frame: the kept candidate's index
        # as the stage's value (nan for the SVM's labels or the linear programme's), whether
        # the SVM's labels were kept, and the worst-case gain of the choice
        extras = {"labels": labels, "gains": safe.gains, "kept_svm": float(safe.choice == "SVM"),
                  "worst_case_gain": float(safe.worst_case_gain)}
        value = float(safe.choice) if isinstance(safe.choice, Integral) else math.nan
        if safe.choice == "SVM":
            return replace(svm, stage="safe", stage_value=value, event="final",
                           extras=extras), False
        costs = np.where(y == 0, self.C2, self.C1)
        fit = weighted_svm(K, labels, costs)
        state = SolverState(stage="safe", stage_value=value, event="final", coef=fit.coef,
                            intercept=fit.intercept,
                            objective=s3vm_objective(fit.coef, fit.intercept, fit.decision,
                                                     labels, costs),
                            train_decision=fit.decision, extras=extras)
        return state, fit.capped

    def _warn(self, searches, final_capped: bool) -> None:
        stopped = sum(not search.converged for search in searches)
        if stopped:
            warnings.warn(
                f"S4VM: {stopped} of its {len(searches)} local searches stopped at max_iter="
                f"{self.max_iter} alternations before their labeling settled; increase "
                "max_iter.", ConvergenceWarning, stacklevel=_user_level())
        capped = sum(search.capped_solves for search in searches) + int(final_capped)
        if capped:
            warn_libsvm_cap(f"{capped} of the SVM fits of S4VM's local searches",
                            f"Smaller costs (C1={self.C1:g}, C2={self.C2:g}) converge faster.",
                            stacklevel=_user_level() + 1)

    def _postprocess(self, final, n_iter, outcome: _Outcome):
        super()._postprocess(final, n_iter, outcome)
        self.transduction_ = self.classes_[(outcome.labels > 0).astype(int)]
        self.svm_transduction_ = self.classes_[(outcome.svm_labels > 0).astype(int)]
        searches, safe = outcome.searches, outcome.safe
        n = outcome.labels.size
        self.candidate_labelings_ = np.array([s.labels for s in searches],
                                             dtype=np.int8).reshape(len(searches), n)
        self.candidate_objectives_ = np.array([s.objective for s in searches])
        self.candidate_n_iter_ = np.array([s.n_iter for s in searches], dtype=int)
        self.candidate_groups_ = outcome.groups
        self.kept_candidates_ = outcome.kept
        self.n_iter_ = 1 + int(sum(1 + s.n_iter for s in searches))
        if safe is None:  # no unlabeled point: the SVM, with nothing to gain
            self.safe_choice_ = "SVM"
            self.worst_case_gain_ = self.lp_bound_ = math.nan
            self.kept_gains_ = np.zeros(0)
        else:
            self.safe_choice_ = safe.choice
            self.worst_case_gain_ = safe.worst_case_gain
            self.lp_bound_ = safe.lp_bound
            self.kept_gains_ = safe.gains
