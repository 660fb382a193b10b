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
       + 1/(2l) sum_L max(0, 1-y o)^2 +  "squared_hinge", switching="multi", r=R,
       U/(2u) sum_U max(0, 1-y o)^2``,   max_switches=S, schedule="svmlin", intercept=
       u - floor((1 - R) u) unlabeled    "regularized", C=1/(2 l W), C_star=U/(2 u W))``
       points positive
 3     DA, squared hinge (its eq. 4)     ``DeterministicAnnealingS3VM(lam=W, lam_u=U,
                                         loss="squared_hinge", kernel="linear", r=R,
                                         T0=5 U, R=1.5, eps=1e-6 u ln 2, max_stages=30)``
=====  ================================  ==================================================

(``c`` is svmlin's cost of every labeled point, ``-Cp`` = ``-Cn``, 1 by default; svmlin's
supervised modes sum the labeled losses where its semi-supervised ones average them.)

-A 0, 1 and 3 work on the examples with svmlin's constant feature appended, so their weights
are svmlin's, bias included; -A 2's solver appends that feature itself
(``intercept="regularized"``) and its weight is written last. -A 2 follows svmlin's path as
well as its objective (Sindhwani & Keerthi 2006): the L2-SVM of the labeled points makes the
``u - floor((1 - R) u)`` unlabeled points of largest output positive, each retraining is
followed by at most S switches of a positive and a negative label (largest slacks first, while
two slacks sum to more than 2), and C* starts where the unlabeled points together weigh 1e-5
of the labeled ones (svmlin's lambda_u = 1e-5) and grows by 1.5 a round up to U / (2 u W).
svmlin's DA starts at T = 10 U on the full squared hinge, ours at T0 = 5 U on the halved one
(the same temperatures), and measures entropy and KL in bits per unlabeled point where ours
are totals in nats, hence ``eps``. ``-R`` is used by -A 2 and 3, ``-S`` by -A 2, ``-Cp`` and
``-Cn`` (which must be equal: no solver here weighs the classes apart) by -A 0 and 1; a
warning says when a flag is not used, where svmlin ignores it silently. A flag's value is
refused in svmlin's terms when no run could use it, or when it would put the mapped solver's
parameter outside that solver's constraints (the sentence gives the flag's range).

Measured beside svmlin itself (``python -m benchmarks.peers --svmlin-cli``, whole runs of both
commands; lifted two moons, n = 400, and text, n = 1,000, ``-W 0.001 -U 1 -R 0.5``): -A 2 and
3 predict the same class on 99.9 to 100 % of the points, their outputs differ by at most
1.4e-4 (-A 2) and 4e-5 (-A 3), their weights by 7e-5 and 4e-5, and svmlin's objective
(ssl.cpp's ``transductive_cost``) agrees to six digits or more (-A 2 on text 0.044429808
against 0.044429769 ours). -A 0 and 1 write svmlin's weights to a relative 2e-5
(tests/s3vm_cli/test_svmlin_peer.py). Where ``R u`` is not a whole number, svmlin's DA p-step
can fail at its lowest temperatures (it prints "Warning (Root)") and leave the balance: on 201
text documents with ``-W 1 -U 1`` its mean p became 0.558 against R = 0.5, and svmlin returned
that state, cheaper for breaking its constraint (objective 0.89916537 against our 0.90178269,
which keeps it): outputs up to 0.047 apart, weights 0.036, the same predictions.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import warnings
from pathlib import Path
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from s3vm_cli.frame import RunFailure, UsageError, command, say
from toy_data.files import MAX_FEATURES

#: svmlin's defaults (its svmlin.cpp): algorithm 1, lambda = lambda_u = 1, R = 0.5, S = 10000.
DEFAULTS = {"algorithm": 1, "W": 1.0, "U": 1.0, "R": 0.5, "S": 10_000}
#: The algorithms of ``-A``, by svmlin's numbers.
ALGORITHMS = {0: "RLSC", 1: "L2-SVM-MFN", 2: "multi-switch TSVM",
              3: "deterministic annealing S3VM"}


class SvmlinOptionWarning(UserWarning):
    """An svmlin option that the mapped solver does not use."""


#: Longest weights file read (bytes): one number a line for at most ``MAX_FEATURES`` features
#: and the bias, 32 characters a line (``%.17g`` takes at most 24). Counted while reading, as
#: ``toy_data.files`` counts its data files, so that a device or a pipe stops there too.
MAX_WEIGHTS_BYTES = 32 * (MAX_FEATURES + 1)


def svmlin_estimator(algorithm: int, *, W: float, U: float, R: float, n_labeled: int,
                     n_unlabeled: int, cost: float = 1.0, S: int = DEFAULTS["S"]):
    """The estimator that minimizes svmlin's objective for ``-A algorithm -W W -U U -R R -S S``
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
                                  r=R, max_switches=S, schedule="svmlin",
                                  intercept="regularized", C=1.0 / (2 * n_labeled * W),
                                  C_star=U / (2 * max(n_unlabeled, 1) * W)), False
    if algorithm == 3:
        return DeterministicAnnealingS3VM(
            lam=W, lam_u=U, loss="squared_hinge", kernel="linear", r=R, T0=5.0 * U, R=1.5,
            eps=1e-6 * max(n_unlabeled, 1) * math.log(2.0), max_iter=100, max_stages=30), True
    raise UsageError(f"-A {algorithm} is not one of svmlin's algorithms: "
                     + ", ".join(f"{k} ({v})" for k, v in ALGORITHMS.items()) + ".")


class FlagMapping(NamedTuple):
    """A flag whose value sets a bounded parameter of the mapped solver, as
    ``parameter = factor * value ** power`` (``power`` 1 or -1; ``formula`` says it in
    svmlin's letters)."""

    flag: str
    value: float
    parameter: str
    formula: str
    power: int


def flag_mappings(algorithm: int, *, W: float, U: float) -> list[FlagMapping]:
    """The bounded solver parameters that ``-W`` and ``-U`` set under ``-A algorithm`` (the
    table of the module docstring), in the order they are checked."""
    if algorithm in (0, 1):
        return [FlagMapping("-W", W, "lam", "W / (c l)", 1)]
    if algorithm == 2:
        return [FlagMapping("-W", W, "C", "1 / (2 l W)", -1),
                FlagMapping("-U", U, "C_star", "U / (2 u W)", 1)]
    return [FlagMapping("-W", W, "lam", "W", 1), FlagMapping("-U", U, "lam_u", "U", 1)]


def check_flag_ranges(algorithm: int, estimator, mappings) -> None:
    """Refuse, in svmlin's terms, a ``-W`` or ``-U`` that puts a parameter of the mapped
    ``estimator`` outside its constraint (its class's ``_parameter_constraints``): the sentence
    names the flag, the range of its values on these data, and why."""
    from sklearn.utils._param_validation import Interval

    for mapping in mappings:
        interval = next(c for c in type(estimator)._parameter_constraints[mapping.parameter]
                        if isinstance(c, Interval))
        value = estimator.get_params()[mapping.parameter]
        if interval.is_satisfied_by(value):  # the solver's own test
            continue
        factor = value / mapping.value**mapping.power
        ends = sorted((end / factor) ** mapping.power for end in (interval.left, interval.right))
        raise UsageError(
            f"{mapping.flag} {mapping.value:g} is out of range for -A {algorithm} here: it "
            f"must lie in [{ends[0]:.3g}, {ends[1]:.3g}], where {type(estimator).__name__}'s "
            f"{mapping.parameter} = {mapping.formula} stays in [{interval.left:g}, "
            f"{interval.right:g}] ({getattr(interval, 'why', 'its bounds')}).")


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
                        help="the positive fraction of the unlabeled points (-A 2 and 3; "
                        "default 0.5)")
    parser.add_argument("-S", type=int, default=None, metavar="SWITCHES",
                        help="most pairs of labels -A 2 switches a step (default 10000)")
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
    cost = _check_flags(args)
    stem = Path(args.examples).name
    _check_not_folders(args)
    if args.weights is not None:
        return _test_mode(args, stem)
    if args.labels is None:
        raise UsageError("Training needs the labels file after the examples file (svmlin "
                         "EXAMPLES LABELS); for outputs of a trained model give -f WEIGHTS.")
    _warn_unused_flags(args)
    data = _read_svmlin(args.examples, labels=args.labels, min_classes=2)
    if data.classes.tolist() != [-1, 1]:
        raise UsageError(f"svmlin's labels are -1 and +1 (0 = unlabeled); {args.labels} has "
                         f"{', '.join(map(str, data.classes.tolist()))}. For other classes use "
                         "s3vm fit, which goes one-vs-rest.")
    labeled = data.labeled
    sizes = {"n_labeled": int(labeled.sum()), "n_unlabeled": int((~labeled).sum())}
    estimator, bias = svmlin_estimator(
        args.algorithm, W=args.W, U=args.U, R=DEFAULTS["R"] if args.R is None else args.R,
        cost=cost, S=DEFAULTS["S"] if args.S is None else args.S, **sizes)
    check_flag_ranges(args.algorithm, estimator, flag_mappings(args.algorithm, W=args.W,
                                                               U=args.U))
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


def _check_flags(args) -> float:
    """Refuse, in svmlin's terms, a flag's value that no run could use (the ranges that depend
    on the data are checked by ``check_flag_ranges``); returns the labeled cost."""
    cost = args.Cp if args.Cp is not None else (args.Cn if args.Cn is not None else 1.0)
    if (args.Cn if args.Cn is not None else cost) != cost or not (0 < cost < math.inf):
        raise UsageError("-Cp and -Cn (svmlin's costs of the positive and negative labeled "
                         "points) must be one positive number here: no solver weighs the "
                         "classes apart.")
    for flag, value in (("-W", args.W), ("-U", args.U)):
        if not (0 < value < math.inf):
            raise UsageError(f"{flag} must be a positive number, got {value:g}.")
    if args.R is not None and not 0 < args.R < 1:
        raise UsageError(f"-R must be in (0, 1), the positive fraction of the unlabeled points; "
                         f"got {args.R:g}.")
    if args.S is not None and args.S < 0:
        raise UsageError(f"-S must be 0 or more, the most pairs of labels switched a step; got "
                         f"{args.S}.")
    if args.weights is None and args.algorithm not in ALGORITHMS:
        svmlin_estimator(args.algorithm, W=args.W, U=args.U, R=0.5, n_labeled=1,
                         n_unlabeled=1)  # raises the sentence
    return cost


def _check_not_folders(args) -> None:
    """A folder given for a file gets a sentence naming it (reading it would name another)."""
    for what, path in (("weights", args.weights), ("examples", args.examples),
                       ("labels", args.labels)):
        if path is not None and os.path.isdir(path):
            raise UsageError(f"{path} is a folder, not svmlin's {what} file: give the file.")


def _warn_unused_flags(args) -> None:
    """svmlin ignores these flags under other algorithms; so does this command, and says so."""
    unused = [("-R is", args.R is not None and args.algorithm in (0, 1), "-A 2 and 3"),
              ("-S is", args.S is not None and args.algorithm != 2, "-A 2"),
              ("-Cp and -Cn are", (args.Cp, args.Cn) != (None, None)
               and args.algorithm in (2, 3), "-A 0 and 1")]
    for flags, ignored, users in unused:
        if ignored:
            warnings.warn(SvmlinOptionWarning(
                f"{flags} used by {users} only; -A {args.algorithm} ignores "
                f"{'them' if 'and' in flags else 'it'}, as svmlin does."), stacklevel=3)


def _read_weights(path) -> np.ndarray:
    """svmlin's weights file (one number a line, the bias last), read no further than
    ``MAX_WEIGHTS_BYTES``: the bytes read are counted, whatever size the file claims."""
    try:
        # a FIFO without a writer would block the open itself; its reads may wait
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        os.set_blocking(descriptor, True)
        with os.fdopen(descriptor, "rb") as handle:
            data = handle.read(MAX_WEIGHTS_BYTES + 1)
    except OSError as error:
        raise UsageError(f"Cannot read the weights {path}: {error.strerror or error}.") from None
    if len(data) > MAX_WEIGHTS_BYTES:
        raise UsageError(
            f"{path} holds more than {MAX_WEIGHTS_BYTES / 2**20:.1f} MiB (reading stopped "
            f"there), more than the weights of {MAX_FEATURES:,} features and a bias take "
            "(MAX_FEATURES): it is not a weights file.")
    try:
        weights = np.array([float(v) for v in data.decode("ascii").split()])
    except (UnicodeDecodeError, ValueError):
        raise UsageError(f"{path} is not a weights file (one number a line).") from None
    if weights.size < 2 or not np.all(np.isfinite(weights)):
        raise UsageError(f"{path} is not a weights file of finite numbers, the bias last.")
    return weights


def _test_mode(args, stem: str) -> int:
    """svmlin -f WEIGHTS EXAMPLES [LABELS]: outputs ``[x, 1] @ weights`` and, with labels, the
    accuracy as svmlin prints it (outputs whose sign is the label's, over every point)."""
    weights = _read_weights(args.weights)
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
