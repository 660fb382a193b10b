"""Synthetic images of the shape of the LapSVM paper's two large data sets (its Table 1).

Nothing is downloaded: the images are drawn here, from a few continuous parameters each, so
that each class lies near a low-dimensional manifold of the pixel space (as real digits and
faces do) and the cluster assumption the graph Laplacian relies on holds.

* ``strokes_3vs8``: 28 x 28 = 784 pixels, handwritten-like threes against eights (the shape of
  MNIST3VS8). Each image is a pen stroke, two arcs for a 3 and two loops for an 8, under a
  random slant, rotation, stretch, shift and pen width; pixels in [0, 1], then each image
  scaled to unit length so that the polynomial kernel ``(<x, z> + 1)^9`` of the paper (§6.3,
  after Decoste and Schölkopf) stays between 1 and 512.
* ``faces``: 19 x 19 = 361 pixels, faces against clutter (the shape of FACEMIT, whose
  training set, the CBCL test set, holds 472 faces among 24,045 images: ``face_fraction``
  1.96 %). A face is an oval with eyes, brows, nose and mouth under random proportions,
  lighting and pose; clutter is 1/f noise, edges and blobs, some of which look like eyes. Each
  image is histogram-equalized, as the CBCL images are, so pixels are uniform in [0, 1].

Both return ``(X, y)`` with ``y = 1`` for the 8s / the faces, and take ``n_samples``,
``noise`` (Gaussian pixel noise before the normalization) and ``random_state`` like the other
generators; they are deterministic for a fixed seed.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

from toy_data.generators import _check_common

#: Images rendered at once (bounds the (images x pixels x stroke points) array to ~100 MB).
_CHUNK = 200
#: Points sampled along a digit's stroke.
_STROKE_POINTS = 96
#: Share of faces in FACEMIT's training set (the CBCL test set: 472 of 24,045 images).
FACE_FRACTION = 472 / 24045


def _grid(side: int) -> np.ndarray:
    """Pixel centres of a ``side x side`` image in coordinates [-1, 1], y up, row-major."""
    t = np.linspace(-1.0, 1.0, side)
    u, v = np.meshgrid(t, -t)
    return np.column_stack([u.ravel(), v.ravel()])


def _affine(rng, count, rotation, shear, scale_x, scale_y, shift):
    """``count`` random 2 x 2 maps (rotation, slant, stretch) and shifts."""
    angle = rng.normal(0.0, rotation, count)
    slant = rng.normal(0.0, shear, count)
    sx = rng.uniform(*scale_x, count)
    sy = rng.uniform(*scale_y, count)
    c, s = np.cos(angle), np.sin(angle)
    A = np.empty((count, 2, 2))
    A[:, 0, 0] = c * sx
    A[:, 0, 1] = (c * slant - s) * sy
    A[:, 1, 0] = s * sx
    A[:, 1, 1] = (s * slant + c) * sy
    return A, rng.normal(0.0, shift, (count, 2))


def _arc(center, radius, start, stop, points):
    """Points on arcs from angle ``start`` to ``stop`` (radians, arrays over the images)."""
    t = np.linspace(0.0, 1.0, points)[None, :]
    theta = start[:, None] + (stop - start)[:, None] * t
    return np.stack([center[0] + radius[:, None] * np.cos(theta),
                     center[1][:, None] + radius[:, None] * np.sin(theta)], axis=-1)


def _digit_strokes(rng, eights, count):
    """Stroke points (count x _STROKE_POINTS x 2) of threes or eights, in [-1, 1] units."""
    half = _STROKE_POINTS // 2
    upper_radius = rng.uniform(0.36, 0.5, count)
    lower_radius = rng.uniform(0.42, 0.56, count)
    middle = rng.normal(0.0, 0.06, count)  # where the two bowls meet
    upper_center = (0.0, middle + upper_radius)
    lower_center = (0.0, middle - lower_radius)
    if eights:  # two loops, each closed up to a small gap where the pen starts
        gap_up, gap_low = rng.uniform(0.0, 0.5, count), rng.uniform(0.0, 0.5, count)
        start_up = -np.pi / 2 + rng.uniform(0.0, 0.3, count)
        start_low = np.pi / 2 + rng.uniform(-0.3, 0.0, count)
        upper = _arc(upper_center, upper_radius, start_up, start_up + 2 * np.pi - gap_up, half)
        lower = _arc(lower_center, lower_radius, start_low, start_low - 2 * np.pi + gap_low,
                     half)
    else:  # two bowls open to the left, from the upper left round to the lower left
        upper = _arc(upper_center, upper_radius, np.pi * rng.uniform(0.75, 1.1, count),
                     np.full(count, -np.pi / 2), half)
        lower = _arc(lower_center, lower_radius, np.full(count, np.pi / 2),
                     -np.pi * rng.uniform(0.75, 1.1, count), half)
    return np.concatenate([upper, lower], axis=1) * 0.72  # the digit fills ~20 of 28 pixels


def strokes_3vs8(n_samples=1000, noise=0.03, random_state=None):
    """Handwritten-like threes (class 0) and eights (class 1), 28 x 28 pixels (784 features).

    The MNIST3VS8 shape of the LapSVM paper (Table 1; §6.3 uses a polynomial kernel of degree 9
    on it). Each image is a pen stroke of Gaussian profile (width 0.9 to 1.6 pixels) through
    two arcs (a 3) or two loops (an 8), drawn under a random rotation (sd 0.15 rad), slant
    (sd 0.2), stretch and shift (sd 0.06 of the image); classes have equal probability.
    ``noise`` is the sd of Gaussian pixel noise; pixels are clipped to [0, 1] and each image is
    scaled to unit Euclidean length.
    """
    _check_common(n_samples, noise)
    rng = check_random_state(random_state)
    y = (rng.random(n_samples) < 0.5).astype(int)
    grid = _grid(28)
    X = np.empty((n_samples, grid.shape[0]))
    for start in range(0, n_samples, _CHUNK):
        rows = np.arange(start, min(start + _CHUNK, n_samples))
        points = np.empty((rows.size, _STROKE_POINTS, 2))
        for label in (0, 1):
            mine = y[rows] == label
            points[mine] = _digit_strokes(rng, bool(label), int(mine.sum()))
        A, shift = _affine(rng, rows.size, 0.15, 0.2, (0.75, 1.1), (0.9, 1.1), 0.06)
        points = np.einsum("kij,kpj->kpi", A, points) + shift[:, None, :]
        width = rng.uniform(0.9, 1.6, rows.size) * (2.0 / 27.0)  # pixels -> [-1, 1] units
        # squared distances of every pixel to every stroke point, |g|^2 + |p|^2 - 2 <g, p>
        d2 = np.matmul(grid, points.transpose(0, 2, 1))
        d2 *= -2.0
        d2 += (grid**2).sum(axis=1)[None, :, None]
        d2 += (points**2).sum(axis=2)[:, None, :]
        nearest = np.maximum(d2.min(axis=2), 0.0)
        X[rows] = np.exp(-nearest / (2.0 * width[:, None] ** 2))
    if noise > 0:
        X += noise * rng.standard_normal(X.shape)
    np.clip(X, 0.0, 1.0, out=X)
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    return X, y


def _ellipse(grid, center, axes, angle=None):
    """Squared elliptical radius of every pixel (images x pixels): 1 on the ellipse."""
    u = grid[None, :, 0] - center[0][:, None]
    v = grid[None, :, 1] - center[1][:, None]
    if angle is not None:
        c, s = np.cos(angle)[:, None], np.sin(angle)[:, None]
        u, v = c * u + s * v, -s * u + c * v
    return (u / axes[0][:, None]) ** 2 + (v / axes[1][:, None]) ** 2


def _soft_inside(r2, edge=0.15):
    """About 1 inside an ellipse (r2 < 1), 0 outside, with a soft border."""
    return 1.0 / (1.0 + np.exp((np.sqrt(r2) - 1.0) / edge))


def _face_images(rng, grid, count):
    """Faces: an oval with dark eyes, brows, nostrils and mouth, lit from one side."""
    tilt = rng.normal(0.0, 0.1, count)
    cx, cy = rng.normal(0.0, 0.05, count), rng.normal(0.0, 0.05, count)
    skin = rng.uniform(0.45, 0.9, count)
    background = (rng.uniform(0.1, 0.7, count)[:, None]
                  + 0.1 * _smooth_noise(rng, grid, count, (2.0, 3.0)))
    r2 = _ellipse(grid, (cx, cy), (rng.uniform(0.62, 0.82, count),
                                   rng.uniform(0.85, 1.05, count)), tilt)
    oval = _soft_inside(r2)
    rounded = skin[:, None] * (1.0 - 0.35 * np.minimum(r2, 1.0))  # a face is lit as a dome
    image = background + (rounded - background) * oval
    eye_x, eye_y = rng.uniform(0.26, 0.4, count), rng.uniform(0.12, 0.3, count)
    eye_size = rng.uniform(0.08, 0.14, count)
    darkness = rng.uniform(0.3, 0.7, count)[:, None] * skin[:, None]
    c, s = np.cos(tilt), np.sin(tilt)
    for side in (-1.0, 1.0):
        ex, ey = cx + c * side * eye_x - s * eye_y, cy + s * side * eye_x + c * eye_y
        image -= darkness * _soft_inside(_ellipse(grid, (ex, ey), (1.4 * eye_size, eye_size),
                                                  tilt), 0.3)
        image -= 0.6 * darkness * _soft_inside(_ellipse(
            grid, (ex - s * 0.17, ey + c * 0.17), (2.0 * eye_size, 0.35 * eye_size), tilt), 0.3)
    mouth_y = -rng.uniform(0.4, 0.6, count)
    mouth = (cx - s * mouth_y, cy + c * mouth_y)
    image -= 0.8 * darkness * _soft_inside(_ellipse(
        grid, mouth, (rng.uniform(0.2, 0.42, count), rng.uniform(0.04, 0.12, count)), tilt), 0.3)
    nose = (cx + s * 0.15, cy - c * 0.15)
    image -= 0.4 * darkness * _soft_inside(_ellipse(grid, nose, (np.full(count, 0.12),
                                                                np.full(count, 0.2)), tilt), 0.4)
    light = rng.normal(0.0, 0.35, (count, 2))
    return image * (1.0 + grid @ light.T).T


def _smooth_noise(rng, grid, count, slopes):
    """1/f^slope noise images (slope drawn in ``slopes``), of unit standard deviation: the
    spectrum of natural images, whose slope is about 2 (Field 1987)."""
    side = int(round(np.sqrt(grid.shape[0])))
    frequencies = np.sqrt(np.add.outer(np.fft.fftfreq(side) ** 2, np.fft.fftfreq(side) ** 2))
    frequencies[0, 0] = 1.0
    slope = rng.uniform(*slopes, count)
    spectrum = (rng.standard_normal((count, side, side))
                + 1j * rng.standard_normal((count, side, side)))
    spectrum /= frequencies[None] ** slope[:, None, None]
    spectrum[:, 0, 0] = 0.0
    image = np.fft.ifft2(spectrum).real.reshape(count, -1)
    return image / image.std(axis=1, keepdims=True)


def _clutter_images(rng, grid, count):
    """Non-faces: 1/f noise with edges and blobs, the kind of patch a face detector meets."""
    image = _smooth_noise(rng, grid, count, (1.0, 2.2))
    angle = rng.uniform(0.0, np.pi, count)
    offset = rng.uniform(-0.8, 0.8, count)
    normal = np.column_stack([np.cos(angle), np.sin(angle)])
    edge = np.tanh(((grid @ normal.T).T - offset[:, None]) / 0.1)
    image += rng.uniform(0.0, 2.0, count)[:, None] * edge
    for _ in range(3):  # dark or bright blobs, some where a face would have its eyes
        center = (rng.uniform(-0.8, 0.8, count), rng.uniform(-0.8, 0.8, count))
        size = rng.uniform(0.08, 0.4, count)
        image += (rng.normal(0.0, 1.5, count)[:, None]
                  * _soft_inside(_ellipse(grid, center, (size, size)), 0.3))
    return image


def _equalized(X):
    """Histogram equalization of every image: pixel ranks scaled to [0, 1] (as CBCL's)."""
    ranks = np.argsort(np.argsort(X, axis=1, kind="stable"), axis=1, kind="stable")
    return ranks / (X.shape[1] - 1.0)


def faces(n_samples=1000, noise=0.02, random_state=None, face_fraction=FACE_FRACTION):
    """Faces (class 1) against clutter (class 0), 19 x 19 pixels (361 features).

    The FACEMIT shape of the LapSVM paper (Table 1): about ``face_fraction`` of the images are
    faces (default 1.96 %, FACEMIT's training set). A face is an oval with eyes, brows, nose
    and mouth under random proportions (eye distance, mouth width ...), tilt (sd 0.1 rad),
    shift and lighting; clutter is 1/f noise (slope 1 to 2.2) with an edge and three blobs.
    ``noise`` is the sd of Gaussian pixel noise (against a contrast of about 1); every image is
    histogram-equalized, so its pixels are uniform in [0, 1].
    """
    _check_common(n_samples, noise)
    if not 0.0 < face_fraction < 1.0:
        raise ValueError(f"face_fraction must lie between 0 and 1, got {face_fraction!r}.")
    rng = check_random_state(random_state)
    y = (rng.random(n_samples) < face_fraction).astype(int)
    grid = _grid(19)
    X = np.empty((n_samples, grid.shape[0]))
    for start in range(0, n_samples, _CHUNK):
        rows = np.arange(start, min(start + _CHUNK, n_samples))
        for label, draw in ((1, _face_images), (0, _clutter_images)):
            mine = rows[y[rows] == label]
            if mine.size:
                X[mine] = draw(rng, grid, mine.size)
    if noise > 0:
        X += noise * rng.standard_normal(X.shape)
    return _equalized(X), y
