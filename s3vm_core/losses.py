"""Every loss once, as value and derivative with respect to the margin or output t.

Shared by the solvers and by the app's loss plots. Functions are vectorised over numpy arrays
and written so they cannot overflow (``scipy.special``).
"""

from __future__ import annotations

import numpy as np


def hinge(t):
    """Hinge loss ``max(0, 1 - t)`` of the margin ``t = y f(x)``."""
    return np.maximum(0.0, 1.0 - np.asarray(t, dtype=float))


def hinge_grad(t):
    """A subgradient of the hinge loss: -1 where ``t < 1``, else 0."""
    return -(np.asarray(t, dtype=float) < 1.0).astype(float)


def squared_hinge(t):
    """Squared hinge ``max(0, 1 - t)^2`` (the L2-SVM loss)."""
    return hinge(t) ** 2


def squared_hinge_grad(t):
    """Derivative of the squared hinge, ``-2 max(0, 1 - t)``."""
    return -2.0 * hinge(t)


def squared_hinge_line_search(a0, a1, margins, rates, weights=None) -> tuple[float, int]:
    """Exact minimizer ``s >= 0`` of a regularized squared hinge along a line.

    ``phi(s) = a0 s + a1 s^2 / 2 + sum_e w_e / 2 max(0, m_e - s r_e)^2`` up to a constant, with
    ``m_e = 1 - y_e f_e`` the residual margins at ``s = 0`` and ``r_e`` their rate of decrease.
    ``phi'(s) = a0 + a1 s - sum_{e active} w_e r_e (m_e - s r_e)`` is piecewise linear and
    nondecreasing; it changes slope where an example enters or leaves the active set, at the
    break points ``m_e / r_e``, visited in increasing order (Keerthi & DeCoste 2005, §3; LapSVM
    paper §3.2.1, eq. (13)). An example exactly on its margin is active iff its margin grows.

    Returns ``(s, n_pieces)``: the step and the number of linear pieces examined.
    """
    margins = np.asarray(margins, dtype=float)
    rates = np.asarray(rates, dtype=float)
    w = np.ones_like(margins) if weights is None else np.asarray(weights, dtype=float)
    active = (margins > 0) | ((margins == 0) & (rates < 0))
    intercept = a0 - np.sum(w[active] * rates[active] * margins[active])
    slope = a1 + np.sum(w[active] * rates[active] ** 2)
    if intercept >= 0:
        return 0.0, 1  # not a descent direction: already optimal along the line
    with np.errstate(divide="ignore", invalid="ignore"):
        breaks = np.where(rates != 0, margins / rates, np.inf)
    order = np.flatnonzero(breaks > 0)
    order = order[np.argsort(breaks[order], kind="stable")]
    for count, e in enumerate(order, start=1):
        if slope > 0 and -intercept / slope <= breaks[e]:
            return -intercept / slope, count
        sign = -1.0 if active[e] else 1.0  # leaving, or entering, the active set
        active[e] = not active[e]
        intercept -= sign * w[e] * rates[e] * margins[e]
        slope += sign * w[e] * rates[e] ** 2
    if slope <= 0:
        return (float(breaks[order[-1]]) if order.size else 0.0), order.size + 1
    return -intercept / slope, order.size + 1


def symmetric_exp(t, s: float = 3.0):
    """The unlabeled loss ``exp(-s t^2)`` of the LDS (s = 3) and cS3VM papers."""
    t = np.asarray(t, dtype=float)
    return np.exp(-s * t * t)


def symmetric_exp_grad(t, s: float = 3.0):
    """Derivative of ``exp(-s t^2)``: ``-2 s t exp(-s t^2)``."""
    t = np.asarray(t, dtype=float)
    return -2.0 * s * t * np.exp(-s * t * t)


def modified_logistic(t, sharpness: float = 20.0):
    """Modified logistic loss ``(1/gamma) log(1 + exp(gamma (1 - t)))`` of the margin ``t = y f``.

    The differentiable surrogate of the hinge loss in the QN-S3VM paper (Gieseke et al. 2012,
    eq. (5), Figure 2a; ``gamma = 20`` there), here called ``sharpness``. Written as
    ``-log_expit(-z) / gamma`` with ``z = gamma (1 - t)`` so that it equals ``1 - t`` for large
    ``z`` instead of overflowing (the paper's remark after Lemma 1).
    """
    from scipy.special import log_expit

    z = sharpness * (1.0 - np.asarray(t, dtype=float))
    return -log_expit(-z) / sharpness


def modified_logistic_grad(t, sharpness: float = 20.0):
    """Derivative of ``modified_logistic`` in ``t``: ``-expit(gamma (1 - t))`` (QN-S3VM eq. (6))."""
    from scipy.special import expit

    return -expit(sharpness * (1.0 - np.asarray(t, dtype=float)))


# -- Deterministic annealing (DA paper: Sindhwani, Keerthi & Chapelle, ICML 2006) -------------

#: The three losses V of the DA paper (§3.1): "l1" hinge, "l2" quadratic hinge, "sqr" squared.
DA_LOSSES = ("hinge", "squared_hinge", "squared")


def _check_da_loss(loss: str) -> None:
    if loss not in DA_LOSSES:
        raise ValueError(
            f"Unknown DA loss {loss!r}; choose one of {', '.join(map(repr, DA_LOSSES))}."
        )


def da_loss(t, loss: str):
    """The loss ``V(t)`` of the DA paper §3.1, with the paper's scaling.

    ``"hinge"``: ``max(0, 1 - t)``; ``"squared_hinge"``: ``max(0, 1 - t)^2 / 2``;
    ``"squared"``: ``(1 - t)^2 / 2`` (regularized least squares). Note the factor 1/2 of the
    paper, which ``squared_hinge`` above does not have.
    """
    _check_da_loss(loss)
    if loss == "hinge":
        return hinge(t)
    if loss == "squared_hinge":
        return 0.5 * hinge(t) ** 2
    return 0.5 * (1.0 - np.asarray(t, dtype=float)) ** 2


def da_loss_grad(t, loss: str):
    """Derivative ``V'(t)`` of ``da_loss`` (a subgradient, -1 or 0, for the hinge)."""
    _check_da_loss(loss)
    if loss == "hinge":
        return hinge_grad(t)
    if loss == "squared_hinge":
        return -hinge(t)
    return np.asarray(t, dtype=float) - 1.0


def da_effective_loss(t, T: float, loss: str):
    """Effective loss ``V'_T(t)`` of an unlabeled output ``t = f(x')`` (DA paper §3.2, Figure 2).

    ``V'_T(t) = min_p p V(t) + (1 - p) V(-t) + T [p log p + (1 - p) log(1 - p)]``, attained at
    ``p* = 1 / (1 + exp((V(t) - V(-t)) / T))`` (eq. (8) with ``nu = 0``). In closed form it is the
    soft minimum ``-T log(exp(-V(t)/T) + exp(-V(-t)/T))``, computed with ``logaddexp`` so it
    never overflows. ``T = 0`` gives the hard effective loss ``min(V(t), V(-t))`` of §1
    (Figure 1), the limit of ``V'_T`` as ``T -> 0``.

    Parameters
    ----------
    t : array-like
        Outputs ``f(x')``.
    T : float
        Temperature, ``T >= 0``.
    loss : {"hinge", "squared_hinge", "squared"}
    """
    T = float(T)
    if not np.isfinite(T) or T < 0:
        raise ValueError(f"The temperature T must be a finite number >= 0, got {T!r}.")
    a, b = da_loss(t, loss), da_loss(-np.asarray(t, dtype=float), loss)
    if T == 0.0:
        return np.minimum(a, b)
    return -T * np.logaddexp(-a / T, -b / T)


# -- Gaussian-smoothed losses (cS3VM paper §3.1, eqs. (7)-(8)) ----------------------------------
# Each is E[loss(t + scale * Z)] with Z ~ N(0, 1): the 1-D convolution a point's loss reduces to
# when w is smoothed by an isotropic Gaussian of variance gamma per coordinate, where
# scale = sqrt(gamma) ||x_i||. Closed forms derived here and checked against quadrature in
# tests/s3vm_core/test_continuation.py; ``scale = 0`` gives the unsmoothed loss.


def _smoothing_e(t, scale):
    """``e = (t - 1) / (sqrt(2) scale)`` of eq. (7) and a mask of the smoothed entries."""
    t = np.asarray(t, dtype=float)
    scale = np.broadcast_to(np.asarray(scale, dtype=float), t.shape)
    smooth = scale > 0
    e = np.where(smooth, (t - 1.0) / (np.sqrt(2.0) * np.where(smooth, scale, 1.0)), 0.0)
    return t, scale, smooth, e


def gaussian_smoothed_hinge(t, scale):
    """``E[max(0, 1 - t - scale Z)] = scale/sqrt(2) [exp(-e^2)/sqrt(pi) - e erfc(e)]`` (eq. (7)).

    ``e = (t - 1) / (sqrt(2) scale)``. The paper prints the prefactor as gamma ||x|| / sqrt(2)
    and e's denominator as sqrt(2 gamma ||x||); the quadrature check gives
    ``scale = sqrt(gamma) ||x||``, i.e. ``sqrt(gamma) ||x|| / sqrt(2)`` and
    ``sqrt(2 gamma) ||x||``. For e >= 0 the bracket is ``exp(-e^2)[1/sqrt(pi) - e erfcx(e)]``
    (no cancellation to 0 - 0 and no overflow).
    """
    from scipy.special import erfc, erfcx

    t, scale, smooth, e = _smoothing_e(t, scale)
    pos = np.maximum(e, 0.0)
    neg = np.minimum(e, 0.0)
    bracket = np.where(
        e >= 0,
        np.exp(-pos * pos) * (1.0 / np.sqrt(np.pi) - pos * erfcx(pos)),
        np.exp(-neg * neg) / np.sqrt(np.pi) - neg * erfc(neg),
    )
    return np.where(smooth, scale / np.sqrt(2.0) * bracket, hinge(t))


def gaussian_smoothed_hinge_grad(t, scale):
    """Derivative in t of ``gaussian_smoothed_hinge``: ``-erfc(e) / 2`` (cS3VM gradient, §3.1)."""
    from scipy.special import erfc

    t, scale, smooth, e = _smoothing_e(t, scale)
    return np.where(smooth, -0.5 * erfc(e), hinge_grad(t))


def gaussian_smoothed_squared_hinge(t, scale):
    """``E[max(0, 1 - t - scale Z)^2] = (u^2 + scale^2) Phi(v) + u scale phi(v)``, ``u = 1 - t``.

    ``v = u / scale``; with ``e = -v / sqrt(2)``, ``Phi(v) = erfc(e)/2`` and
    ``phi(v) = exp(-e^2)/sqrt(2 pi)``. Not in the paper (it smooths p = 1 only); this is the
    smoothing of the squared hinge of the LDS paper's objective (4), the p = 2 case of (1).
    """
    from scipy.special import erfc, erfcx

    t, scale, smooth, e = _smoothing_e(t, scale)
    u = 1.0 - t
    pos = np.maximum(e, 0.0)
    neg = np.minimum(e, 0.0)
    value = np.where(
        e >= 0,
        np.exp(-pos * pos)
        * ((u * u + scale * scale) * 0.5 * erfcx(pos) + u * scale / np.sqrt(2.0 * np.pi)),
        (u * u + scale * scale) * 0.5 * erfc(neg)
        + u * scale * np.exp(-neg * neg) / np.sqrt(2.0 * np.pi),
    )
    return np.where(smooth, np.maximum(value, 0.0), squared_hinge(t))


def gaussian_smoothed_squared_hinge_grad(t, scale):
    """Derivative in t: ``-2 E[max(0, 1 - t - scale Z)] = -2 gaussian_smoothed_hinge(t, scale)``."""
    return -2.0 * gaussian_smoothed_hinge(t, scale)


def gaussian_smoothed_symmetric_exp(t, scale, s: float = 3.0):
    """``E[exp(-s (t + scale Z)^2)] = exp(-s t^2 / a) / sqrt(a)``, ``a = 1 + 2 s scale^2``, eq. (8).

    With ``scale^2 = gamma ||x||^2`` this is the paper's ``a_i = 1 + 2 gamma s ||x_i||^2``.
    """
    t = np.asarray(t, dtype=float)
    a = 1.0 + 2.0 * s * np.asarray(scale, dtype=float) ** 2
    return np.exp(-s * t * t / a) / np.sqrt(a)


def gaussian_smoothed_symmetric_exp_grad(t, scale, s: float = 3.0):
    """Derivative in t: ``-2 s t / a^(3/2) exp(-s t^2 / a)`` (the cS3VM gradient, §3.1)."""
    t = np.asarray(t, dtype=float)
    a = 1.0 + 2.0 * s * np.asarray(scale, dtype=float) ** 2
    return -2.0 * s * t / a**1.5 * np.exp(-s * t * t / a)
