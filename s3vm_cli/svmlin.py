"""``s3vm svmlin``: svmlin's own command line, run on the solvers that minimize its objectives.

svmlin (Sindhwani & Keerthi 2006, the DA paper's linear code) trains with

    svmlin [-A algorithm] [-W lambda] [-U lambda_u] [-R r] [-S switches] examples labels

and tests with ``svmlin -f weights examples [labels]``. Its examples file has one
``index:value`` row per point, its labels file one label per line (+1 / -1, 0 = unlabeled).
It appends a constant feature 1 to every point (its bias, regularized with the weights) and
writes ``<examples>.weights`` (one weight a line, the bias last) and ``<examples>.outputs``
(one output a line, ``%g``; of the labeled points only with -A 0 and 1, which ignore the
others) into the current folder; in test mode with labels it prints the
accuracy. This command reads and writes the same files, with these solvers (the mapping of
docs/benchmarks.md, "Parameter mapping"; l labeled and u unlabeled points):

=====  ================================  ==================================================
 -A    svmlin's objective                s3vm
=====  ================================  ==================================================
 0     RLSC, ``W/2 ||w||^2 +             ``DeterministicAnnealingS3VM(loss="squared",
       c/2 sum_L (y - o)^2``             lam=W/(c l), kernel="linear")`` on the labeled
                                         points (svmlin divided by c l)
 1     L2-SVM-MFN, ``W/2 ||w||^2 +       ``DeterministicAnnealingS3VM(loss=
       c/2 sum_L max(0, 1 - y o)^2``     "squared_hinge", lam=W/(c l), kernel="linear")``
                                         on the labeled points (no unlabeled term: one
                                         f-step)
 2     multi-switch TSVM, ``W/2 ||w||^2  ``LabelSwitchingTSVM(kernel="linear", loss=
       + 1/(2l) sum_L max(0, 1 - y o)^2  "squared_hinge", switching="multi",
       + U/(2u) sum_U max(0, 1 - y o)^2``  C=1/(2 l W), C_star=U/(2 u W))``
 3     DA, squared hinge (its eq. 4)     ``DeterministicAnnealingS3VM(lam=W, lam_u=U,
                                         loss="squared_hinge", kernel="linear", r=R,
                                         T0=5 U, R=1.5, eps=1e-6 u ln 2, max_stages=30)``
=====  ================================  ==================================================

(``c`` is svmlin's cost of every labeled point, ``-Cp`` = ``-Cn``, 1 by default; svmlin's
supervised modes sum the labeled losses where its semi-supervised ones average them.)

-A 0, 1 and 3 work on the examples with svmlin's constant feature appended, so their weights
are svmlin's, bias included. -A 2's bias is LIBSVM's, free (not regularized), written last as
svmlin writes its own; its class balance comes from the labeled points (Joachims' num+), so
``-R`` and ``-S`` do not apply to it (a warning says so when they are given). svmlin's DA
starts at T = 10 U on the full squared hinge, ours at T0 = 5 U on the halved one (the same
temperatures), and measures entropy and KL in bits per unlabeled point where ours are totals
in nats, hence ``eps``. ``-Cp`` and ``-Cn`` must be equal (no solver here weighs the classes
apart). On two moons (200 points, 10 labels, ``-W 0.001 -U 1``) the weights of -A 0, 1 and 3
agree with svmlin's to its six printed digits.
"""

from __future__ import annotations

import argparse
import math
import sys
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from s3vm_cli.frame import RunFailure, UsageError, command, say

#: svmlin's defaults (its svmlin.cpp): algorithm 1, lambda = lambda_u = 1, R = 0.5, S = 10000.
DEFAULTS = {"algorithm": 1, "W": 1.0, "U": 1.0, "R": 0.5, "S": 10_000}
#: The algorithms of ``-A``, by svmlin's numbers.
ALGORITHMS = {0: "RLSC", 1: "L2-SVM-MFN", 2: "multi-switch TSVM",
              3: "deterministic annealing S3VM"}


class SvmlinOptionWarning(UserWarning):
    """An svmlin option that the mapped solver does not use."""


def svmlin_estimator(algorithm: int, *, W: float, U: float, R: float, n_labeled: int,
                     n_unlabeled: int, cost: float = 1.0):
    """The estimator that minimizes svmlin's objective for ``-A algorithm -W W -U U -R R``
    (and ``-Cp = -Cn = cost``) on ``n_labeled`` labeled and ``n_unlabeled`` unlabeled points,
    and whether it works on the examples with svmlin's constant feature appended (the table of
    the module docstring)."""
    from s3vm_core import DeterministicAnnealingS3VM, LabelSwitchingTSVM

    if algorithm in (0, 1):
        loss = "squared" if algorithm == 0 else "squared_hinge"
        return DeterministicAnnealingS3VM(lam=W / (cost * n_labeled), loss=loss,
                                          kernel="linear"), True
    if algorithm == 2:
        return LabelSwitchingTSVM(kernel="linear", loss="squared_hinge", switching="multi",
                                  C=1.0 / (2 * n_labeled * W),
                                  C_star=U / (2 * max(n_unlabeled, 1) * W)), False
    if algorithm == 3:
        return DeterministicAnnealingS3VM(
            lam=W, lam_u=U, loss="squared_hinge", kernel="linear", r=R, T0=5.0 * U, R=1.5,
            eps=1e-6 * max(n_unlabeled, 1) * math.log(2.0), max_iter=100, max_stages=30), True
    raise UsageError(f"-A {algorithm} is not one of svmlin's algorithms: "
                     + ", ".join(f"{k} ({v})" for k, v in ALGORITHMS.items()) + ".")


@command("svmlin", "svmlin's command line (-A -W -U -R, its files) on the mapped solvers",
         "s3vm svmlin -A 3 -W 0.001 -U 1 -R 0.5 examples labels")
def svmlin_command(parser):
    parser.add_argument("-A", dest="algorithm", type=int, default=DEFAULTS["algorithm"],
                        metavar="ALGORITHM", help="0 RLSC, 1 L2-SVM-MFN (supervised, the "
                        "default), 2 multi-switch TSVM, 3 deterministic annealing S3VM")
    parser.add_argument("-W", type=float, default=DEFAULTS["W"], metavar="LAMBDA",
                        help="lambda, the weight of ||w||^2 (default 1)")
    parser.add_argument("-U", type=float, default=DEFAULTS["U"], metavar="LAMBDA_U",
                        help="lambda_u, the weight of the unlabeled loss (default 1)")
    parser.add_argument("-R", type=float, default=None, metavar="R",
                        help="the positive fraction of the unlabeled points (-A 3; default 0.5)")
    parser.add_argument("-S", type=int, default=None, metavar="SWITCHES",
                        help="svmlin's switch limit of -A 2 (not used here: see below)")
    parser.add_argument("-Cp", type=float, default=None, metavar="COST",
                        help="svmlin's cost of a positive labeled point (-A 0 and 1; default 1; "
                        "-Cn the same for a negative one: they must be equal here)")
    parser.add_argument("-Cn", type=float, default=None, metavar="COST", help=argparse.SUPPRESS)
    parser.add_argument("-f", dest="weights", type=Path, default=None, metavar="WEIGHTS",
                        help="test mode: the weights file of a training run; outputs for "
                        "EXAMPLES, and the accuracy when LABELS are given")
    parser.add_argument("examples", help="svmlin's examples file: index:value rows, one a point")
    parser.add_argument("labels", nargs="?", help="svmlin's labels file: +1 / -1, 0 = unlabeled")
    parser.epilog = (parser.epilog or "") + "\n\n" + _epilog()
    return run_svmlin


def _epilog() -> str:
    doc = sys.modules[__name__].__doc__
    table = doc[doc.index("====="):doc.index("-A 0, 1 and 3")]
    return ("Writes EXAMPLES' name + .weights and + .outputs in this folder, as svmlin. The "
            "solvers:\n" + table.rstrip())


def run_svmlin(args) -> int:
    cost = args.Cp if args.Cp is not None else (args.Cn if args.Cn is not None else 1.0)
    if (args.Cn if args.Cn is not None else cost) != cost or not cost > 0:
        raise UsageError("-Cp and -Cn (svmlin's costs of the positive and negative labeled "
                         "points) must be one positive number here: no solver weighs the "
                         "classes apart.")
    for flag, value in (("-W", args.W), ("-U", args.U)):
        if not value > 0 or not math.isfinite(value):
            raise UsageError(f"{flag} must be a positive number, got {value:g}.")
    stem = Path(args.examples).name
    if args.weights is not None:
        return _test_mode(args, stem)
    if args.labels is None:
        raise UsageError("Training needs the labels file after the examples file (svmlin "
                         "EXAMPLES LABELS); for outputs of a trained model give -f WEIGHTS.")
    if args.algorithm not in ALGORITHMS:
        svmlin_estimator(args.algorithm, W=args.W, U=args.U, R=0.5, n_labeled=1,
                         n_unlabeled=1)  # raises the sentence
    if args.algorithm != 3 and args.R is not None:
        warnings.warn(SvmlinOptionWarning(
            f"-R is used by -A 3 only; -A {args.algorithm} ignores it (-A 2 keeps the labeled "
            "points' ratio)."), stacklevel=2)
    if args.S is not None:
        warnings.warn(SvmlinOptionWarning(
            "-S (svmlin's switch limit) is not used: the multi-switch TSVM stops when no pair "
            "is left to swap (LabelSwitchingTSVM max_iter bounds its retrainings)."),
            stacklevel=2)
    data = _read_svmlin(args.examples, labels=args.labels, min_classes=2)
    if data.classes.tolist() != [-1, 1]:
        raise UsageError(f"svmlin's labels are -1 and +1 (0 = unlabeled); {args.labels} has "
                         f"{', '.join(map(str, data.classes.tolist()))}. For other classes use "
                         "s3vm fit, which goes one-vs-rest.")
    labeled = data.labeled
    estimator, bias = svmlin_estimator(
        args.algorithm, W=args.W, U=args.U, R=DEFAULTS["R"] if args.R is None else args.R,
        n_labeled=int(labeled.sum()), n_unlabeled=int((~labeled).sum()), cost=cost)
    X = with_bias(data.X) if bias else data.X
    train = labeled if args.algorithm in (0, 1) else np.ones_like(labeled)
    try:
        estimator.fit(X[np.flatnonzero(train)], data.y[train])  # class codes, -1 unlabeled
    except (ValueError, TypeError) as error:
        raise UsageError(str(error)) from None
    w = np.asarray(estimator.coef_, dtype=float).ravel()
    # the weights of f = X w (+ 1 * bias): svmlin's layout, the bias last
    weights = w if bias else np.append(w, float(estimator.intercept_))
    # svmlin's supervised modes train on, and write the outputs of, the labeled points only
    outputs = _outputs(data.X[np.flatnonzero(train)], weights)
    _write(f"{stem}.weights", weights)
    _write(f"{stem}.outputs", outputs)
    say(f"{ALGORITHMS[args.algorithm]} ({type(estimator).__name__}) on {data.X.shape[0]} "
        f"examples ({int(labeled.sum())} labeled): weights in {stem}.weights, outputs in "
        f"{stem}.outputs.")
    return 0


def _test_mode(args, stem: str) -> int:
    """svmlin -f WEIGHTS EXAMPLES [LABELS]: outputs ``[x, 1] @ weights`` and, with labels, the
    accuracy as svmlin prints it (outputs whose sign is the label's, over every point)."""
    try:
        text = args.weights.read_text()
        weights = np.array([float(v) for v in text.split()])
    except OSError as error:
        raise UsageError(f"Cannot read the weights {args.weights}: "
                         f"{error.strerror or error}.") from None
    except ValueError:
        raise UsageError(f"{args.weights} is not a weights file (one number a line).") from None
    if weights.size < 2 or not np.all(np.isfinite(weights)):
        raise UsageError(f"{args.weights} is not a weights file of finite numbers, the bias "
                         "last.")
    data = _read_svmlin(args.examples, labels=args.labels, min_classes=0,
                        n_features=weights.size - 1)
    outputs = _outputs(data.X, weights)
    _write(f"{stem}.outputs", outputs)
    if args.labels is not None:
        signs = np.where(data.labeled, np.where(data.classes[np.maximum(data.y, 0)] > 0, 1, -1),
                         0)
        accuracy = 100.0 * np.mean(outputs * signs > 0)
        sys.stdout.write(f"Accuracy = {accuracy:g} %\n")
    say(f"outputs of {data.X.shape[0]} examples in {stem}.outputs.")
    return 0


def _read_svmlin(examples, **kwargs):
    from s3vm_cli.commands import read_file

    return read_file(examples, format="svmlight", **kwargs)


def with_bias(X):
    """svmlin's constant feature, appended as the last column (sparse stays sparse)."""
    ones = np.ones((X.shape[0], 1))
    return sp.hstack([X, ones], format="csr") if sp.issparse(X) else np.hstack([X, ones])


def _outputs(X, weights: np.ndarray) -> np.ndarray:
    return np.asarray(X @ weights[:-1]).ravel() + weights[-1]


def _write(path: str, values: np.ndarray) -> None:
    """One ``%g`` number a line, as svmlin's ``Write``."""
    try:
        Path(path).write_text("".join(f"{v:g}\n" for v in values))
    except OSError as error:
        raise RunFailure(f"Cannot write {path}: {error.strerror or error}.") from None
