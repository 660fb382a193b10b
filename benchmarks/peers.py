"""Side by side with the reference implementations: svmlin (DA paper) and qns3vm.py (QN-S3VM).

Two papers shipped programs, kept in ``../shared/peers`` beside the repository (GPL: they are
built or imported here at run time only, never copied into the project):

* svmlin (Sindhwani & Keerthi), built with g++ into a temporary folder: ``-A 3`` is DA with
  the squared hinge on a linear model, ``-A 2`` the multi-switch transductive L2-SVM;
* qns3vm.py (Gieseke et al.), imported: QN-S3VM with an RBF kernel (all points or r random
  landmarks) or the linear kernel.

Each pair runs on the same data and the same objective (the mapping of the parameters is
printed with the table), interleaved (ours, peer, ours, peer, ...), whole fits timed, under
threadpoolctl's one BLAS thread; the QN-S3VM rows are also run with the default BLAS threads.
Times are medians over the repeats; for svmlin, whose data must be written to text files,
the peer time is its whole run minus its own report of the reading time. LapSVM is compared
with its own Newton solver (its peer, LAMDA-SSL, is not among the reference programs).

Run ``python -m benchmarks.peers [--quick] [--repeats N] [--no-write] [--only PAIR]``: it
prints the table and writes it into docs/benchmarks.md ("Side by side with the reference
implementations"); ``--only`` runs one pair's rows and prints them only. A pair whose program
(or g++) is missing is skipped with a sentence. Not part of ``make test``.

``python -m benchmarks.peers --svmlin-cli`` compares the command lines instead: svmlin and
``s3vm svmlin`` as a user runs them, on the same files (``SVMLIN_CLI_CASES``), whole runs
timed: the agreement of their predictions, the largest differences of outputs and weights and
both objectives under svmlin's formula (docs/cli.md quotes it).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from benchmarks.sparse_text import make_sparse_text, sparse_text_problem
from s3vm_cli.svmlin import svmlin_estimator, with_bias
from s3vm_core import QNS3VM, DeterministicAnnealingS3VM, LabelSwitchingTSVM, LapSVM
from toy_data import digits_pair, pick_labeled, two_moons

REPOSITORY = Path(__file__).resolve().parents[1]
#: The reference programs: the folder the environment variable ``S3VM_PEERS`` names, else
#: ``shared/peers`` beside the repository or beside a folder that holds it (a git worktree of
#: the repository one level further down).
PEERS = Path(os.environ["S3VM_PEERS"]) if os.environ.get("S3VM_PEERS") else next(
    (folder / "shared" / "peers" for folder in REPOSITORY.parents
     if (folder / "shared" / "peers").is_dir()), REPOSITORY.parent / "shared" / "peers")
DOCS = REPOSITORY / "docs" / "benchmarks.md"
SECTION = "## Side by side with the reference implementations"

#: svmlin's parameters in every DA and TSVM row: -W lambda, -U lambda_u (R from the labels).
SVMLIN_W, SVMLIN_U = 1e-3, 1.0
#: QN-S3VM rows: the paper's runtime setting (§4.2.4, lambda = lambda' = 1), two moons.
QN_LAM, QN_LAM_U, QN_SIGMA = 1.0, 1.0, 0.3
#: The reference's annealing sequence, lam_u * (0, 1e-6, 1e-4, 0.01, 0.1, 0.5, 1).
QN_ALPHAS = (1e-6, 1e-4, 0.01, 0.1, 0.5, 1.0)
#: A 64-bit dense kernel matrix larger than this is not attempted for the reference.
PEER_MEMORY_LIMIT = 4 * 2**30


@dataclass(frozen=True)
class Timing:
    """A whole fit's wall-clock and CPU seconds."""

    wall: float
    cpu: float


@dataclass
class Row:
    """One line of the table. With one BLAS thread the times compared are CPU seconds (on a
    shared machine they are what each side did, whatever else ran); with the default threads,
    wall-clock seconds (the threads are what is measured)."""

    work: str
    peer: str
    peer_times: list = field(default_factory=list)
    our_times: list = field(default_factory=list)
    peer_errors: list = field(default_factory=list)
    our_errors: list = field(default_factory=list)
    peer_objective: float | None = None
    our_objective: float | None = None
    threads: str = "1"
    note: str = ""

    def _seconds(self, times) -> tuple[float, float]:
        return (statistics.median(t.wall for t in times),
                statistics.median(t.cpu for t in times))

    def _show(self, times) -> str:
        wall, cpu = self._seconds(times)
        return f"{cpu:.3g} s ({wall:.3g} s)" if self.threads == "1" else f"{wall:.3g} s"

    def cells(self) -> list[str]:
        error = (f"{100 * statistics.median(self.our_errors):.1f}% / "
                 + (f"{100 * statistics.median(self.peer_errors):.1f}%"
                    if self.peer_errors else "–"))
        if not self.peer_times:
            return [self.work, self.peer, self.threads, self.note, self._show(self.our_times),
                    "–", error, "–"]
        measure = 1 if self.threads == "1" else 0
        ratio = (self._seconds(self.peer_times)[measure]
                 / self._seconds(self.our_times)[measure])
        objective = "–"
        if self.our_objective is not None and self.peer_objective is not None:
            objective = f"{self.our_objective:.6g} / {self.peer_objective:.6g}"
        return [self.work, self.peer, self.threads, self._show(self.peer_times),
                self._show(self.our_times), f"{ratio:.2f}", error, objective]


HEADER = ["work", "peer", "BLAS threads", "peer time", "our time", "peer / ours",
          "unlabeled error ours / peer", "objective ours / peer"]


def _timed(fit):
    wall, cpu = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        out = fit()
    return Timing(time.perf_counter() - wall, time.process_time() - cpu), out


def _error(decision, y, labels) -> float:
    unlabeled = labels == -1
    return float(np.mean((np.asarray(decision)[unlabeled] > 0) != (y[unlabeled] == 1)))


# -- svmlin --------------------------------------------------------------------------------


def build_svmlin(scratch: Path) -> tuple[Path | None, str]:
    """Compile svmlin's unchanged sources into ``scratch``; ``(binary, "")`` or
    ``(None, why not)``."""
    source = PEERS / "svmlin"
    if not (source / "ssl.cpp").exists():
        return None, f"svmlin is not in {source}"
    compiler = shutil.which("g++")
    if compiler is None:
        return None, "g++ is not installed, so svmlin cannot be built"
    for name in ("ssl.cpp", "ssl.h", "svmlin.cpp"):
        shutil.copy(source / name, scratch / name)
    # g++'s default C++17 clashes with the sources' `using namespace std` (peers README)
    flags = ["-std=gnu++14", "-O2"]
    for command in ([compiler, *flags, "-c", "ssl.cpp"],
                    [compiler, *flags, "svmlin.cpp", "ssl.o", "-o", "svmlin", "-lm"]):
        built = subprocess.run(command, cwd=scratch, capture_output=True, text=True)
        if built.returncode != 0:
            return None, f"svmlin did not compile: {built.stderr.strip()[:200]}"
    return scratch / "svmlin", ""


def write_svmlin_files(X, labels, folder: Path, name: str) -> tuple[Path, Path]:
    """svmlin's input: one ``index:value`` row per line (1-based) and +1/-1/0 labels."""
    X = sp.csr_matrix(X)
    examples, label_file = folder / f"{name}.examples", folder / f"{name}.labels"
    with examples.open("w") as out:
        for i in range(X.shape[0]):
            start, end = X.indptr[i], X.indptr[i + 1]
            out.write(" ".join(f"{j + 1}:{v:.17g}" for j, v in
                               zip(X.indices[start:end], X.data[start:end], strict=True)))
            out.write("\n")
    signed = np.where(labels == -1, 0, np.where(labels == 1, 1, -1))
    label_file.write_text("".join(f"{v}\n" for v in signed))
    return examples, label_file


@dataclass
class SvmlinRun:
    time: Timing
    objective: float
    outputs: np.ndarray
    weights: np.ndarray


def run_svmlin(binary: Path, algorithm: int, examples: Path, labels: Path,
               positive_fraction: float) -> SvmlinRun:
    """One svmlin run in the data's folder; its times exclude its own report of the time it
    took to read its files."""
    command = [str(binary), "-A", str(algorithm), "-W", repr(SVMLIN_W), "-U", repr(SVMLIN_U),
               "-R", repr(positive_fraction), examples.name, labels.name]
    before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    done = subprocess.run(command, cwd=examples.parent, capture_output=True, text=True,
                          check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    reading = sum(float(v) for v in re.findall(r"Reading took ([\d.eE+-]+) secs", done.stdout))
    objective = float(re.findall(r"Objective Value = ([\d.eE+-]+)", done.stdout)[-1])
    outputs = np.loadtxt(examples.parent / f"{examples.name}.outputs")
    weights = np.loadtxt(examples.parent / f"{examples.name}.weights")
    return SvmlinRun(Timing(wall - reading, cpu - reading), objective, outputs, weights)


def lifted_moons():
    """Two moons (400 points, 5 labels a class) with their squares and product as features,
    so that a line can follow the moons: ``(X, labels)``."""
    X, y = two_moons(400, noise=0.1, random_state=0)
    return np.column_stack([X, X**2, X[:, 0] * X[:, 1]]), pick_labeled(y, 5, random_state=0)


def small_text(n: int = 1000, per_class: int = 20):
    """Text-like rows (``n`` documents of about 50 words among 2,000, unit length),
    ``per_class`` labels a class: ``(X, labels)``."""
    X, y = make_sparse_text(n, 2000, random_state=0)
    return X, pick_labeled(y, per_class, random_state=0)


#: The command-line comparison: (name, data, flags). Lifted moons and text with svmlin's
#: parameters of the table above; 201 documents with -W 1 -U 1 leave R u = 90.5 of the
#: u = 181 unlabeled points, where svmlin's DA p-step fails at its last temperatures.
SVMLIN_CLI_CASES = [
    ("lifted moons, n = 400, 10 labels", lifted_moons, ("-W", "0.001", "-U", "1", "-R", "0.5")),
    ("text, n = 1,000, d = 2,000, 40 labels", small_text, ("-W", "0.001", "-U", "1", "-R",
                                                           "0.5")),
    ("text, n = 201, d = 2,000, 20 labels (R u = 90.5)", lambda: small_text(201, 10),
     ("-W", "1", "-U", "1", "-R", "0.5")),
]


def transductive_cost(weights, outputs, signed, W: float, U: float) -> float:
    """svmlin's objective (ssl.cpp ``transductive_cost``) from a weights file (the bias last,
    inside the norm) and the outputs, ``signed`` the labels as +1 / -1 / 0:
    ``0.5 (W ||w||^2 + U/u sum_U max(0, 1 - |o|)^2 + 1/l sum_L max(0, 1 - y o)^2)``."""
    labeled = signed != 0
    unlabeled_loss = np.mean(np.maximum(0.0, 1.0 - np.abs(outputs[~labeled])) ** 2)
    labeled_loss = np.mean(np.maximum(0.0, 1.0 - signed[labeled] * outputs[labeled]) ** 2)
    return 0.5 * (W * weights @ weights + U * unlabeled_loss + labeled_loss)


def svmlin_cli_rows(binary: Path, scratch: Path, repeats: int) -> None:
    """svmlin against ``s3vm svmlin`` (-A 2 and 3) on ``SVMLIN_CLI_CASES``, whole runs of
    each command, interleaved; prints one line a case and algorithm."""
    ours = [sys.executable, "-m", "s3vm_cli", "svmlin"]
    print("| data | -A | flags | predictions agree | max abs output difference | max abs "
          "weight difference | objective svmlin / ours | whole run svmlin / ours (s) | "
          "svmlin's root warning |\n|" + "---|" * 9, flush=True)
    for index, (title, make, flags) in enumerate(SVMLIN_CLI_CASES):
        X, labels = make()
        examples, label_file = write_svmlin_files(X, labels, scratch, f"cli{index}")
        signed = np.where(labels == -1, 0, 2 * labels - 1)
        W, U = float(flags[1]), float(flags[3])
        for algorithm in (2, 3):
            times, answers, warned = {"svmlin": [], "s3vm": []}, {}, False
            for _ in range(repeats):
                for who, command in (("s3vm", ours), ("svmlin", [str(binary)])):
                    folder = scratch / f"run-{who}"
                    folder.mkdir(exist_ok=True)
                    start = time.perf_counter()
                    done = subprocess.run([*command, "-A", str(algorithm), *flags,
                                           str(examples), str(label_file)], cwd=folder,
                                          capture_output=True, text=True, check=True)
                    times[who].append(time.perf_counter() - start)
                    warned |= "Warning (Root)" in done.stdout
                    answers[who] = (np.loadtxt(folder / f"{examples.name}.weights"),
                                    np.loadtxt(folder / f"{examples.name}.outputs"))
            (w_peer, o_peer), (w_ours, o_ours) = answers["svmlin"], answers["s3vm"]
            cells = [title, str(algorithm), " ".join(flags),
                     f"{100 * np.mean(np.sign(o_peer) == np.sign(o_ours)):.2f}%",
                     f"{np.max(np.abs(o_peer - o_ours)):.2g}",
                     f"{np.max(np.abs(w_peer - w_ours)):.2g}",
                     f"{transductive_cost(w_peer, o_peer, signed, W, U):.8g} / "
                     f"{transductive_cost(w_ours, o_ours, signed, W, U):.8g}",
                     f"{statistics.median(times['svmlin']):.3g} / "
                     f"{statistics.median(times['s3vm']):.3g}",
                     "yes" if warned else "no"]
            print("| " + " | ".join(cells) + " |", flush=True)


def svmlin_cost(w, b, outputs, labels) -> float:
    """svmlin's objective (ssl.cpp's transductive_cost, bias regularized as a feature):
    ``0.5 (W ||[w, b]||^2 + U/u sum_U max(0, 1-|o|)^2 + 1/l sum_L max(0, 1 - y o)^2)``."""
    labeled = labels != -1
    y = np.where(labels[labeled] == 1, 1.0, -1.0)
    labeled_loss = np.mean(np.maximum(0.0, 1.0 - y * outputs[labeled]) ** 2)
    unlabeled_loss = np.mean(np.maximum(0.0, 1.0 - np.abs(outputs[~labeled])) ** 2)
    return 0.5 * (SVMLIN_W * (w @ w + b * b) + SVMLIN_U * unlabeled_loss + labeled_loss)


def da_model(n_unlabeled: int, r: float) -> DeterministicAnnealingS3VM:
    """DA with svmlin's settings, as ``s3vm svmlin -A 3`` maps them (``s3vm_cli.svmlin``):
    its T = 10 U on the full squared hinge is our T0 = 5 U on the halved one; its entropy and
    KL are means over u in bits with eps = 1e-6, ours totals in nats; 30 temperatures."""
    return svmlin_estimator(3, W=SVMLIN_W, U=SVMLIN_U, R=r, n_labeled=0,
                            n_unlabeled=n_unlabeled)[0]


def tsvm_model(n_labeled: int, n_unlabeled: int, r: float) -> LabelSwitchingTSVM:
    """svmlin -A 2's objective ``W/2 ||[w, b]||^2 + 1/(2l) sum_L l2 + U/(2u) sum_U l2`` divided
    by W: C = 1/(2 l W), C* = U/(2 u W), squared hinge, multi-switch, svmlin's positive
    fraction r, switch limit, C* schedule and regularized bias (``s3vm svmlin -A 2``)."""
    return svmlin_estimator(2, W=SVMLIN_W, U=SVMLIN_U, R=r, n_labeled=n_labeled,
                            n_unlabeled=n_unlabeled)[0]


def svmlin_rows(binary, scratch: Path, problems, repeats: int) -> list[Row]:
    rows = []
    for title, (X, y, labels) in problems:
        examples, label_file = write_svmlin_files(X, labels, scratch, f"d{X.shape[0]}")
        labeled = labels != -1
        r = float(np.mean(labels[labeled] == 1))
        n_labeled, n_unlabeled = int(labeled.sum()), int((~labeled).sum())
        # DA has no bias (svmlin's is its constant feature, appended here); the TSVM appends
        # that feature itself (intercept="regularized"), so it gets the raw features.
        cases = [(3, "DA, squared hinge, linear", da_model(n_unlabeled, r),
                  with_bias(X))]
        if title.startswith("text"):
            cases.append((2, "label-switching TSVM, linear",
                          tsvm_model(n_labeled, n_unlabeled, r), X))
        for algorithm, work, model, data in cases:
            row = Row(f"{work} — {title}", f"svmlin -A {algorithm}")
            for _ in range(repeats):
                timing, _ = _timed(lambda model=model, data=data, labels=labels:
                                   model.fit(data, labels))
                row.our_times.append(timing)
                outputs = model.decision_function(data)
                row.our_errors.append(_error(outputs, y, labels))
                peer = run_svmlin(binary, algorithm, examples, label_file, r)
                row.peer_times.append(peer.time)
                row.peer_errors.append(_error(peer.outputs, y, labels))
            w = model.coef_[:-1] if algorithm == 3 else model.coef_
            b = model.coef_[-1] if algorithm == 3 else model.intercept_
            row.our_objective = svmlin_cost(w, b, outputs, labels)
            row.peer_objective = peer.objective
            rows.append(row)
            print("|", " | ".join(row.cells()), "|", flush=True)
    return rows


# -- qns3vm.py -----------------------------------------------------------------------------


def import_qns3vm():
    """The module qns3vm.py from ../shared/peers, or None."""
    path = PEERS / "qns3vm" / "qns3vm.py"
    if not path.exists():
        return None
    spec = importlib.util.spec_from_file_location("qns3vm", path)
    module = importlib.util.module_from_spec(spec)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spec.loader.exec_module(module)
    return module


def qn_row(qns3vm, work: str, n: int, landmarks: int | None, kernel: str, repeats: int,
           threads: str) -> Row:
    """``repeats`` runs of each side on moons of size n, each with its own landmark draw."""
    row = Row(work, "qns3vm.py", threads=threads)
    X, y = two_moons(n_samples=n, noise=0.1, random_state=0)
    labels = pick_labeled(y, 5, random_state=0)
    labeled = labels != -1
    X_l, X_u = X[labeled].tolist(), X[~labeled].tolist()
    L_l = [1 if v == 1 else -1 for v in y[labeled]]
    peer_fits = 8 * n * (landmarks or n) <= PEER_MEMORY_LIMIT
    if not peer_fits:
        row.note = (f"not run: its {kernel} kernel would take "
                    f"{8 * n * (landmarks or n) / 2**30:.1f} GiB")
    for draw in range(repeats):
        model = QNS3VM(lam=QN_LAM, lam_u=QN_LAM_U, sigma=QN_SIGMA, kernel=kernel,
                       alphas=QN_ALPHAS, n_landmarks=landmarks, random_state=draw)
        timing, _ = _timed(lambda model=model: model.fit(X, labels))
        row.our_times.append(timing)
        row.our_errors.append(_error(model.decision_function(X), y, labels))
        if not peer_fits:
            continue
        peer = qns3vm.QN_S3VM(X_l, L_l, X_u, random.Random(draw), lam=QN_LAM, lamU=QN_LAM_U,
                              sigma=QN_SIGMA, kernel_type="RBF" if kernel == "rbf" else "Linear",
                              numR=landmarks, estimate_r=float(np.mean(L_l)))
        timing, _ = _timed(peer.train)
        row.peer_times.append(timing)
        predictions = np.array(peer.getPredictions(X_u))
        row.peer_errors.append(float(np.mean((predictions > 0) != (y[~labeled] == 1))))
    print("|", " | ".join(row.cells()), "|", flush=True)
    return row


def qn_error_draws(qns3vm, n: int, draws: int) -> None:
    """The full expansion's unlabeled error on ``draws`` moons of size n, each with its own
    labels (draw k: data and labels random_state=k, qns3vm.py's random.Random(k)), and the
    medians: one draw's local minimum says little about either program."""
    ours, theirs = [], []
    for draw in range(draws):
        X, y = two_moons(n_samples=n, noise=0.1, random_state=draw)
        labels = pick_labeled(y, 5, random_state=draw)
        labeled = labels != -1
        L_l = [1 if v == 1 else -1 for v in y[labeled]]
        with threadpool_limits(limits=1, user_api="blas"):
            model = QNS3VM(lam=QN_LAM, lam_u=QN_LAM_U, sigma=QN_SIGMA, kernel="rbf",
                           alphas=QN_ALPHAS).fit(X, labels)
            peer = qns3vm.QN_S3VM(X[labeled].tolist(), L_l, X[~labeled].tolist(),
                                  random.Random(draw), lam=QN_LAM, lamU=QN_LAM_U,
                                  sigma=QN_SIGMA, kernel_type="RBF",
                                  estimate_r=float(np.mean(L_l)))
            peer.train()
        ours.append(_error(model.decision_function(X), y, labels))
        predictions = np.array(peer.getPredictions(X[~labeled].tolist()))
        theirs.append(float(np.mean((predictions > 0) != (y[~labeled] == 1))))
        print(f"draw {draw}: ours {100 * ours[-1]:.2f}%, qns3vm.py {100 * theirs[-1]:.2f}%",
              flush=True)
    print(f"median over {draws} draws: ours {100 * np.median(ours):.2f}%, "
          f"qns3vm.py {100 * np.median(theirs):.2f}%")


def qn_rows(qns3vm, quick: bool, repeats: int) -> list[Row]:
    cases = [("QN-S3VM, RBF, full expansion, moons n = {n}", n, None, "rbf")
             for n in ((1000,) if quick else (1000, 4000))]
    cases += [("QN-S3VM, RBF, r = 200 landmarks, moons n = {n}", n, 200, "rbf")
              for n in ((4000,) if quick else (4000, 16000, 64000))]
    cases += [("QN-S3VM, linear, moons n = {n}", n, None, "linear")
              for n in ((4000,) if quick else (4000, 64000))]
    rows = []
    for threads in ("1", "default"):
        for title, n, landmarks, kernel in cases:
            # landmark rows: one draw per repeat, at least 5 (the median error is compared)
            count = max(repeats, 5) if landmarks else repeats
            if threads == "1":
                with threadpool_limits(limits=1, user_api="blas"):
                    row = qn_row(qns3vm, title.format(n=n), n, landmarks, kernel, count, "1")
            else:
                row = qn_row(qns3vm, title.format(n=n), n, landmarks, kernel, count, "default")
            rows.append(row)
    return rows


# -- LapSVM: early-stopped PCG against Newton ----------------------------------------------


def lapsvm_rows(quick: bool, repeats: int) -> list[Row]:
    """Newton, PCG with its default stop and PCG with the stability check, interleaved; one
    Newton run per repeat serves both PCG rows."""
    rows = []
    for n in ((2000,) if quick else (1000, 2000, 4000, 8000)):
        X, y = two_moons(n_samples=n, noise=0.1, random_state=0)
        labels = pick_labeled(y, 2, random_state=0)
        pair = {stopping: Row(f"LapSVM PCG ({stopping or 'default stop'}) — moons n = {n:,}",
                              "our Newton") for stopping in (None, "stability")}
        iterations = {}
        for _ in range(repeats if n <= 4000 else 1):
            newton = LapSVM(solver="newton")
            newton_time, _ = _timed(lambda newton=newton, X=X, labels=labels:
                                    newton.fit(X, labels))
            newton_error = _error(newton.decision_function(X), y, labels)
            for stopping, row in pair.items():
                row.peer_times.append(newton_time)
                row.peer_errors.append(newton_error)
                pcg = LapSVM(solver="pcg", stopping=stopping)
                timing, _ = _timed(lambda pcg=pcg, X=X, labels=labels: pcg.fit(X, labels))
                row.our_times.append(timing)
                row.our_errors.append(_error(pcg.decision_function(X), y, labels))
                iterations[stopping] = f"{pcg.n_iter_} iterations, stopped by {pcg.stopped_by_}"
        for stopping, row in pair.items():
            row.work += f" ({iterations[stopping]})"
            rows.append(row)
            print("|", " | ".join(row.cells()), "|", flush=True)
    return rows


# -- the table and docs/benchmarks.md --------------------------------------------------------


MAPPING = f"""\
Parameter mapping (same objective on both sides):

- **svmlin -A 3 / DA**: `-W {SVMLIN_W:g} -U {SVMLIN_U:g} -R r` (r the labeled positive
  fraction) is `DeterministicAnnealingS3VM(lam={SVMLIN_W:g}, lam_u={SVMLIN_U:g},
  loss="squared_hinge", kernel="linear", r=r, T0=5 U, R=1.5, eps=1e-6 u ln 2, max_stages=30)`
  on X with svmlin's constant bias feature appended as a column: its T = 10 U acts on the
  full squared hinge, ours on the halved one; its entropy and KL are means over the u
  unlabeled points in bits, ours totals in nats. Both return the state of the path with the
  lowest objective of Eqn. 1 with the effective loss, which the objective column gives under
  svmlin's formula (`transductive_cost`, its bias regularized as a feature).
- **svmlin -A 2 / label-switching TSVM**: `-W {SVMLIN_W:g} -U {SVMLIN_U:g} -R r -S 10000`, its
  `W/2 ||[w, b]||^2 + 1/(2l) sum_L max(0, 1 - y o)^2 + U/(2u) sum_U max(0, 1 - y o)^2` with
  the u - floor((1 - r) u) largest outputs of the unlabeled points positive, divided by W, is
  `LabelSwitchingTSVM(kernel="linear", loss="squared_hinge", switching="multi", r=r,
  max_switches=10000, schedule="svmlin", intercept="regularized", C=1/(2 l W),
  C_star=U/(2 u W))`: svmlin's initial labels, switching rule, C* schedule (from 1e-5 of
  the labeled weight, times 1.5 a round) and bias (a constant feature, regularized).
- **qns3vm.py / QN-S3VM**: `QN_S3VM(lam={QN_LAM:g}, lamU={QN_LAM_U:g}, sigma={QN_SIGMA:g},
  kernel_type, numR=r)` is `QNS3VM(lam={QN_LAM:g}, lam_u={QN_LAM_U:g}, sigma={QN_SIGMA:g},
  kernel, n_landmarks=r, alphas=(1e-6, 1e-4, 0.01, 0.1, 0.5, 1))`, the reference's
  seven-stage schedule; both fix the offset to the labeled mean, centre on the unlabeled mean
  (the reference on a subset of at most 1000 points), stop a stage at a largest gradient entry
  of 1e-5 or a relative decrease of 1.08e-7 (its factr). Two moons, noise 0.1, 5 labels per
  class; each landmark row has 5 draws (draw k: our random_state=k, its random.Random(k)).
- **LapSVM**: PCG (default stop, and the stability check of Algorithm 2) against Newton
  (§3.1) on the same objective (7), defaults (gamma_A = 1e-6, gamma_I = 1, 6 neighbours,
  sigma the median distance), two moons with noise 0.1 and 2 labels per class. Its peer
  LAMDA-SSL is not among the reference programs.
"""


def markdown(rows: list[Row], skipped: list[str], seconds: float, command: str) -> str:
    load = os.getloadavg()[0]
    lines = [SECTION, "",
             f"`{command}` ({seconds / 60:.0f} min on 2 cores shared with other work, load "
             f"average {load:.1f} at the end). Times are whole fits, medians over the "
             "interleaved repeats. With one BLAS thread they are CPU seconds (wall-clock in "
             "parentheses): on a shared machine the CPU time is what each side did, whatever "
             "else ran; with the default BLAS threads they are wall-clock seconds, since the "
             "threads are what is compared. svmlin's times leave out its own report of reading "
             "its text files; its objective is the one it prints (6 significant digits), ours "
             "is the same formula at our solution, rounded alike. \"peer / ours\" above 1 means "
             "we are faster.", "",
             "| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join(row.cells()) + " |" for row in rows]
    lines += [""] + [f"Skipped: {reason}." for reason in skipped] + ([""] if skipped else [])
    lines += [MAPPING]
    return "\n".join(lines)


#: Ends the part of the section that this script writes; the notes after it are kept.
NOTES_MARKER = "<!-- Above: written by python -m benchmarks.peers. Below: notes kept by hand. -->"


def write_section(text: str, path: Path = DOCS) -> None:
    """Replace the generated part of the section in docs/benchmarks.md (up to
    ``NOTES_MARKER``), or insert the section before the paper deviations."""
    doc = path.read_text()
    if SECTION in doc:
        start = doc.index(SECTION)
        marker = doc.find(NOTES_MARKER, start)
        following = doc.find("\n## ", start + len(SECTION))
        if marker != -1 and (following == -1 or marker < following):
            end, tail = marker, ""
        else:
            end, tail = (following + 1 if following != -1 else len(doc)), NOTES_MARKER + "\n\n"
        doc = doc[:start] + text.rstrip() + "\n\n" + tail + doc[end:]
    else:
        anchor = "## Where our numbers differ from the papers"
        at = doc.find(anchor)
        block = text.rstrip() + "\n\n" + NOTES_MARKER + "\n\n"
        doc = doc[:at] + block + doc[at:] if at != -1 else doc.rstrip() + "\n\n" + block
    path.write_text(doc)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the smallest size of each row")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument("--only", choices=("svmlin", "qns3vm", "lapsvm"),
                        help="run these rows only (printed, not written: the table in "
                             "docs/benchmarks.md stays whole)")
    parser.add_argument("--svmlin-cli", action="store_true",
                        help="only svmlin's command line against s3vm svmlin (-A 2 and 3), "
                             "whole runs, on SVMLIN_CLI_CASES")
    parser.add_argument("--error-draws", type=int, metavar="K",
                        help="only QN-S3VM's full expansion at n = 4,000 on K draws of data "
                             "and labels, with each program's median error")
    args = parser.parse_args(argv)
    if args.svmlin_cli:
        with tempfile.TemporaryDirectory(prefix="svmlin-") as scratch:
            binary, why = build_svmlin(Path(scratch))
            if binary is None:
                print(f"Skipped: {why}.")
            else:
                svmlin_cli_rows(binary, Path(scratch), args.repeats)
        return
    if args.error_draws:
        if (qns3vm := import_qns3vm()) is None:
            print(f"Skipped: qns3vm.py is not in {PEERS / 'qns3vm'}.")
        else:
            qn_error_draws(qns3vm, 4000, args.error_draws)
        return
    wanted = {args.only} if args.only else {"svmlin", "qns3vm", "lapsvm"}
    started = time.perf_counter()
    skipped, rows = [], []
    print("| " + " | ".join(HEADER) + " |\n|" + "---|" * len(HEADER), flush=True)
    with tempfile.TemporaryDirectory(prefix="svmlin-") as scratch:
        scratch = Path(scratch)
        if "svmlin" not in wanted:
            binary, why = None, ""
        else:
            binary, why = build_svmlin(scratch)
        if binary is None and why:
            skipped.append(f"the svmlin rows ({why})")
        elif binary is not None:
            sizes = (2000,) if args.quick else (2000, 10000, 50000)
            problems = [("digits 3 vs 8 (357 points, 10 labels)", _digits())]
            problems += [(f"text n = {n:,}, d = 10,000", sparse_text_problem(n)) for n in sizes]
            with threadpool_limits(limits=1, user_api="blas"):
                rows += svmlin_rows(binary, scratch, problems, args.repeats)
    qns3vm = import_qns3vm() if "qns3vm" in wanted else None
    if qns3vm is None and "qns3vm" in wanted:
        skipped.append(f"the qns3vm.py rows (it is not in {PEERS / 'qns3vm'})")
    elif qns3vm is not None:
        rows += qn_rows(qns3vm, args.quick, args.repeats)
    if "lapsvm" in wanted:
        with threadpool_limits(limits=1, user_api="blas"):
            rows += lapsvm_rows(args.quick, args.repeats)
    for reason in skipped:
        print(f"Skipped: {reason}.")
    command = "python -m benchmarks.peers" + (" --quick" if args.quick else "") + (
        f" --repeats {args.repeats}" if args.repeats != 3 else "")
    text = markdown(rows, skipped, time.perf_counter() - started, command)
    if not args.no_write and not args.only:
        write_section(text)
        print(f"written to {DOCS.relative_to(REPOSITORY)}")


def _digits():
    X, y = digits_pair(digits=(3, 8))
    return X, y, pick_labeled(y, 5, random_state=0)


if __name__ == "__main__":
    sys.exit(main())
