"""The teaching pages' figures: the smoothed objective of continuation, the effective loss
and curves of deterministic annealing, and the stopping criteria of LapSVM's PCG."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.colors import sample_colorscale
from plotly.subplots import make_subplots

from s3vm_explorer.engine.figures.theme import HEADING_SIZE
from s3vm_explorer.engine.figures.traces import log_axis

TEACHING_HEIGHT = 420


def _sequence_colors(n: int) -> list[str]:
    """``n`` colours from dark (first = most smoothing / hottest) to light, colour-blind safe."""
    return sample_colorscale("Viridis", np.linspace(0.0, 0.9, n).tolist()) if n > 1 else [
        "#440154"]


def landscape_figure(ts: np.ndarray, curves, gamma0: float, gamma_end: float) -> go.Figure:
    """The smoothed objective ``L_γ`` along a 1-D slice, one curve per γ (cS3VM Figure 2).

    ``curves`` is a list of ``(gamma, values)``; ``gamma = 0`` is the unsmoothed objective (2),
    drawn in black. Each curve is shifted to its own minimum (the constant ``γ p / 2`` of (6)
    would otherwise separate them) and its minimum along the slice is a star.
    """
    fig = go.Figure()
    smoothed = [(g, v) for g, v in curves if g > 0]
    colors = _sequence_colors(len(smoothed))
    stars_x, stars_y = [], []
    for gamma, values in curves:
        values = np.asarray(values, dtype=float)
        shifted = values - values.min()
        if gamma == 0:
            name, color, width = "γ = 0 (objective (2))", "black", 3
        else:
            k = [g for g, _ in smoothed].index(gamma)
            tag = "γ0" if k == 0 else "γ_end" if k == len(smoothed) - 1 else f"γ{k}"
            name, color, width = f"{tag} = {gamma:.3g}", colors[k], 2
        fig.add_trace(go.Scatter(x=ts, y=shifted, mode="lines", name=name,
                                 line={"color": color, "width": width},
                                 hovertemplate=f"{name}<br>t = %{{x:.2f}}<br>"
                                               "L − min = %{y:.4g}<extra></extra>"))
        best = int(np.argmin(values))
        stars_x.append(ts[best])
        stars_y.append(0.0)
    fig.add_trace(go.Scatter(x=stars_x, y=stars_y, mode="markers", name="minimum along slice",
                             marker={"symbol": "star", "size": 13, "color": "#D55E00",
                                     "line": {"color": "black", "width": 1}}))
    fig.update_layout(
        height=TEACHING_HEIGHT, margin={"l": 10, "r": 10, "t": 40, "b": 10},
        title=f"L_γ along the slice (γ0 = {gamma0:.3g}, γ_end = {gamma_end:.3g})",
    )
    fig.update_xaxes(title_text="t (position along the slice)", zeroline=True,
                     zerolinecolor="#cccccc", showgrid=False)
    fig.update_yaxes(title_text="L_γ(w + t d) − its minimum", showgrid=True)
    return fig


def objective_path_figure(steps, smoothed, unsmoothed, stage_ends, stage_label="γ"):
    """Smoothed objective (what the solver minimizes) and the unsmoothed one along the path.

    ``stage_ends`` is a list of ``(step, value)``: a dotted vertical line where each stage
    ends. Both objectives are positive, so the y axis is logarithmic.
    """
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=steps, y=smoothed, mode="lines", name="L_γ (minimized)",
                             line={"color": "#009E73", "width": 2}))
    fig.add_trace(go.Scatter(x=steps, y=unsmoothed, mode="lines", name="objective (2), γ = 0",
                             line={"color": "black", "width": 2, "dash": "dash"}))
    for step, _ in stage_ends:
        fig.add_vline(x=step, line={"color": "#bbbbbb", "width": 1, "dash": "dot"})
    positive = np.concatenate([np.asarray(smoothed, float), np.asarray(unsmoothed, float)])
    fig.update_layout(height=TEACHING_HEIGHT - 60,
                      margin={"l": 10, "r": 10, "t": 30, "b": 10},
                      legend={"orientation": "h", "y": 1.12})
    fig.update_xaxes(title_text=f"step (dotted: end of a {stage_label} stage)", showgrid=False)
    fig.update_yaxes(title_text="objective", showgrid=True,
                     **(log_axis(positive) if np.all(positive > 0) else {"type": "linear"}))
    return fig


DA_LOSS_TITLES = {"hinge": "hinge  max(0, 1 − t)", "squared_hinge": "squared hinge",
                  "squared": "squared  (1 − t)²/2"}


def effective_loss_figure(temperatures, current_T: float | None = None,
                          t: np.ndarray | None = None) -> go.Figure:
    """The DA effective loss ``V'_T(f)`` of an unlabeled point for each loss (DA Figure 2).

    One panel per loss of ``s3vm_core.losses.DA_LOSSES``, one curve per temperature (dark =
    hot), and ``current_T`` (if given) as a thick black curve; T = 0 is the hard effective
    loss ``min(V(f), V(−f))`` of eq. (1). Each curve is shifted to minimum 0: the entropy term
    lowers ``V'_T`` by up to ``T log 2``, which would stack the hot curves far below the
    others and hide their shapes.
    """
    from s3vm_core.losses import DA_LOSSES
    from s3vm_core.losses import da_effective_loss as _loss

    def da_effective_loss(t, T, loss):
        values = _loss(t, T, loss)
        return values - values.min()

    t = np.linspace(-2.5, 2.5, 201) if t is None else np.asarray(t, dtype=float)
    temperatures = sorted({float(T) for T in temperatures}, reverse=True)
    colors = _sequence_colors(len(temperatures))
    fig = make_subplots(rows=1, cols=len(DA_LOSSES), horizontal_spacing=0.06,
                        subplot_titles=[DA_LOSS_TITLES.get(name, name) for name in DA_LOSSES])
    for col, loss in enumerate(DA_LOSSES, start=1):
        for color, T in zip(colors, temperatures, strict=True):
            fig.add_trace(go.Scatter(
                x=t, y=da_effective_loss(t, T, loss), mode="lines", name=f"T = {T:.3g}",
                legendgroup=f"T = {T:.3g}", showlegend=col == 1,
                line={"color": color, "width": 1.5},
                hovertemplate=f"T = {T:.3g}<br>f = %{{x:.2f}}<br>V'_T = %{{y:.3f}}<extra></extra>",
            ), row=1, col=col)
        if current_T is not None:
            fig.add_trace(go.Scatter(
                x=t, y=da_effective_loss(t, current_T, loss), mode="lines",
                name=f"current T = {current_T:.3g}", legendgroup="current",
                showlegend=col == 1, line={"color": "black", "width": 4},
            ), row=1, col=col)
        # One title for the three axes, under the middle one: three of them overlapped.
        fig.update_xaxes(title_text="f(x′) of an unlabeled point x′"
                         if col == (len(DA_LOSSES) + 1) // 2 else None, showgrid=False, row=1,
                         col=col)
    fig.update_yaxes(showgrid=True)
    fig.update_yaxes(title_text="V'_T(f) − its minimum", row=1, col=1)
    fig.update_layout(height=TEACHING_HEIGHT - 40,
                      margin={"l": 10, "r": 10, "t": 40, "b": 10})
    return fig


def annealing_curves_figure(T, entropy, objective, current_T: float | None = None):
    """Entropy ``S(p)`` and objective ``J_T`` at the end of each temperature, against T.

    The T axis is logarithmic and reversed, so annealing (T decreasing) reads left to right;
    a dotted vertical line marks ``current_T``.
    """
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.1,
                        subplot_titles=("entropy S(p) (nats)", "objective J_T (4)"))
    for col, (values, color) in enumerate(((entropy, "#CC79A7"), (objective, "#009E73")),
                                          start=1):
        fig.add_trace(go.Scatter(x=T, y=values, mode="lines+markers", showlegend=False,
                                 line={"color": color}, marker={"size": 6}), row=1, col=col)
        if current_T is not None:
            # in data units: plotly.js places a shape on a log axis by its value, not its log
            fig.add_vline(x=current_T, line={"color": "black", "dash": "dot"}, row=1, col=col)
        fig.update_xaxes(**log_axis(T, decades=True), autorange="reversed",
                         title_text="T (annealing →)", showgrid=False, row=1, col=col)
    fig.update_yaxes(showgrid=True)
    fig.update_layout(height=TEACHING_HEIGHT - 80,
                      margin={"l": 10, "r": 10, "t": 40, "b": 10})
    return fig


CRITERION_COLORS = {
    "grad_norm": "#0072B2", "grad_norm_preconditioned": "#56B4E9", "mixed_product": "#009E73",
    "objective": "#E69F00", "stability": "#CC79A7", "validation": "#D55E00",
    "mixed": "#000000", "objective_normalized": "#999999",
}


#: Each criterion's line pattern: its colour is not the only cue (a grey-scale print, a
#: colour-blind eye); the two panels' curves differ by pattern within each panel.
CRITERION_DASHES = {
    "grad_norm": "solid", "grad_norm_preconditioned": "dash", "mixed_product": "dashdot",
    "objective": "longdash", "objective_normalized": "longdashdot",
    "stability": "solid", "validation": "dashdot", "mixed": "longdash",
}


CRITERION_TITLES = {
    "grad_norm": "‖∇‖", "grad_norm_preconditioned": "‖∇̂‖ (preconditioned)",
    "mixed_product": "√(∇̂ᵀ∇) (mixed product)", "objective": "relative objective decrease",
    "stability": "stability check τ (Alg. 2)", "validation": "validation error (Alg. 3)",
    "mixed": "mixed check (§4.1)", "objective_normalized": "obj / obj₀ (Figure 4)",
}


CLASSICAL = ("grad_norm", "grad_norm_preconditioned", "mixed_product", "objective")


def stopping_figure(iterations, classical: dict, checks: dict, stops: dict,
                    unlabeled_error=None) -> go.Figure:
    """PCG's goal conditions against the iteration (LapSVM Figure 4, and §4.1's checks).

    Left: the classical criteria normalized by their value at t = 0 (log scale): a curve per
    entry of ``classical`` (name -> values). Right: the data-based checks (``checks``, name ->
    values: stability τ, validation error) and, if given, the unlabeled error against the
    truth. ``stops`` maps every criterion to the first iteration where it says "stop" (or
    ``None``): one vertical marker trace named ``"stop: <criterion>"`` per criterion that
    fires, in the panel of its criterion.
    """
    # Two short lines each: on one line the two titles ran into each other below 1400 px.
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.08, subplot_titles=(
        "classical criteria,<br>normalized by t = 0",
        "checks on the classifier's<br>decisions (until they settle)"))
    iterations = np.asarray(iterations)
    for name, values in classical.items():
        fig.add_trace(go.Scatter(x=iterations, y=np.maximum(np.asarray(values, float), 1e-16),
                                 mode="lines", name=CRITERION_TITLES.get(name, name),
                                 line={"color": CRITERION_COLORS.get(name, "#555555"),
                                       "dash": CRITERION_DASHES.get(name, "solid")}),
                      row=1, col=1)
    for name, values in checks.items():
        fig.add_trace(go.Scatter(x=iterations, y=values, mode="lines",
                                 name=CRITERION_TITLES.get(name, name),
                                 line={"color": CRITERION_COLORS.get(name, "#555555"),
                                       "dash": CRITERION_DASHES.get(name, "solid")}),
                      row=1, col=2)
    if unlabeled_error is not None:
        fig.add_trace(go.Scatter(x=iterations, y=unlabeled_error, mode="lines",
                                 name="unlabeled error (true labels)",
                                 line={"color": "#999999", "dash": "dash"}), row=1, col=2)
    left = [np.asarray(v, float) for v in classical.values()]
    low = max(min((np.nanmin(np.maximum(v, 1e-16)) for v in left), default=1e-8), 1e-16)
    high = max((np.nanmax(v) for v in left), default=1.0)
    for name, at in stops.items():
        if at is None:
            continue
        col = 1 if name in CLASSICAL else 2
        y_range = [low, high] if col == 1 else [0.0, 1.0]
        fig.add_trace(go.Scatter(
            x=[at, at], y=y_range, mode="lines", name=f"stop: {CRITERION_TITLES.get(name, name)}",
            line={"color": CRITERION_COLORS.get(name, "#555555"), "width": 2, "dash": "dot"},
            hovertemplate=f"{name} stops at iteration {at}<extra></extra>",
        ), row=1, col=col)
    fig.update_yaxes(**log_axis(np.maximum(np.concatenate(left or [np.ones(1)]), 1e-16)),
                     row=1, col=1, showgrid=True)
    fig.update_yaxes(range=[0, 1.05], row=1, col=2, showgrid=True)
    right = [*checks.values(), *([] if unlabeled_error is None else [unlabeled_error])]
    right_stops = [at for name, at in stops.items() if at is not None and name not in CLASSICAL]
    if iterations.size:
        end = max([settled_iteration(iterations, right), *right_stops])
        # a margin past the last change, so the flat end shows that nothing happens later
        end = min(iterations[-1], max(1.25 * end, end + 10))
        fig.update_xaxes(range=[iterations[0], end], row=1, col=2)
    fig.update_xaxes(title_text="PCG iteration", showgrid=False)
    fig.update_annotations(font={"size": HEADING_SIZE})
    # (the legend at the figure's foot, as on the Local minima chart: clear of the axis titles
    # when the window is resized)
    fig.update_layout(height=TEACHING_HEIGHT + 100,
                      margin={"l": 10, "r": 10, "t": 50, "b": 110},
                      legend={"orientation": "h", "x": 0, "y": 0, "yref": "container",
                              "yanchor": "bottom"})
    return fig


def settled_iteration(iterations, series) -> int:
    """The last iteration at which any of ``series`` still changes (NaNs, where a check was
    not made, are left out); the first iteration when none ever does."""
    iterations = np.asarray(iterations)
    last = 0
    for values in series:
        values = np.asarray(values, dtype=float)
        known = np.flatnonzero(np.isfinite(values))
        if known.size:
            moving = known[~np.isclose(values[known], values[known[-1]], rtol=0, atol=1e-9)]
            last = max(last, moving[-1] + 1 if moving.size else 0)
    return int(iterations[min(last, iterations.size - 1)])
