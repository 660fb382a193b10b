"""Colour as people see it, for the tests of the app's palettes: sRGB to CIE Lab (D65), the
CIEDE2000 colour difference (Sharma, Wu & Dalal, Color Res. Appl. 30(1), 2005), colour vision
deficiency simulated by Machado, Oliveira & Fernandes (IEEE TVCG 15(6), 2009), and WCAG's
contrast ratio."""

import numpy as np

#: Machado et al. (2009), Table 1 at severity 1.0: linear RGB of what a dichromat sees.
MACHADO = {
    "protanopia": np.array([[0.152286, 1.052583, -0.204868],
                            [0.114503, 0.786281, 0.099216],
                            [-0.003882, -0.048116, 1.051998]]),
    "deuteranopia": np.array([[0.367322, 0.860646, -0.227968],
                              [0.280085, 0.672501, 0.047413],
                              [-0.011820, 0.042940, 0.968881]]),
}
#: sRGB (linear) to CIE XYZ, D65 white (IEC 61966-2-1).
_XYZ = np.array([[0.4124564, 0.3575761, 0.1804375],
                 [0.2126729, 0.7151522, 0.0721750],
                 [0.0193339, 0.1191920, 0.9503041]])
_WHITE = _XYZ @ np.ones(3)


def rgb(color: str) -> np.ndarray:
    """``"#RRGGBB"`` as sRGB in [0, 1]."""
    return np.array([int(color[i:i + 2], 16) for i in (1, 3, 5)]) / 255.0


def linear(srgb: np.ndarray) -> np.ndarray:
    srgb = np.asarray(srgb, dtype=float)
    return np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)


def lab(color) -> np.ndarray:
    """CIE L*a*b* (D65) of a colour (``"#RRGGBB"``, or linear RGB as an array)."""
    lin = linear(rgb(color)) if isinstance(color, str) else np.asarray(color, dtype=float)
    t = (_XYZ @ lin) / _WHITE
    f = np.where(t > (6 / 29) ** 3, np.cbrt(t), t / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def simulated(color: str, deficiency: str) -> np.ndarray:
    """Linear RGB of ``color`` as a person with ``deficiency`` sees it (Machado et al.)."""
    return np.clip(MACHADO[deficiency] @ linear(rgb(color)), 0.0, 1.0)


def delta_e_2000(lab1, lab2) -> float:
    """CIEDE2000 difference of two L*a*b* colours (k_L = k_C = k_H = 1)."""
    L1, a1, b1 = lab1
    L2, a2, b2 = lab2
    C_mean = (np.hypot(a1, b1) + np.hypot(a2, b2)) / 2
    G = 0.5 * (1 - np.sqrt(C_mean**7 / (C_mean**7 + 25.0**7)))
    a1p, a2p = (1 + G) * a1, (1 + G) * a2
    C1p, C2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1p = np.degrees(np.arctan2(b1, a1p)) % 360
    h2p = np.degrees(np.arctan2(b2, a2p)) % 360
    dLp, dCp = L2 - L1, C2p - C1p
    dhp = 0.0 if C1p * C2p == 0 else (h2p - h1p + 180) % 360 - 180
    dHp = 2 * np.sqrt(C1p * C2p) * np.sin(np.radians(dhp / 2))
    Lp_mean, Cp_mean = (L1 + L2) / 2, (C1p + C2p) / 2
    if C1p * C2p == 0:
        hp_mean = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        hp_mean = (h1p + h2p) / 2
    else:
        hp_mean = (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    T = (1 - 0.17 * np.cos(np.radians(hp_mean - 30)) + 0.24 * np.cos(np.radians(2 * hp_mean))
         + 0.32 * np.cos(np.radians(3 * hp_mean + 6))
         - 0.20 * np.cos(np.radians(4 * hp_mean - 63)))
    d_theta = 30 * np.exp(-(((hp_mean - 275) / 25) ** 2))
    R_C = 2 * np.sqrt(Cp_mean**7 / (Cp_mean**7 + 25.0**7))
    S_L = 1 + 0.015 * (Lp_mean - 50) ** 2 / np.sqrt(20 + (Lp_mean - 50) ** 2)
    S_C = 1 + 0.045 * Cp_mean
    S_H = 1 + 0.015 * Cp_mean * T
    R_T = -np.sin(np.radians(2 * d_theta)) * R_C
    return float(np.sqrt((dLp / S_L) ** 2 + (dCp / S_C) ** 2 + (dHp / S_H) ** 2
                         + R_T * (dCp / S_C) * (dHp / S_H)))


def nearest_pair(colors, seen=lab) -> tuple[float, str, str]:
    """The least CIEDE2000 difference between two of ``colors`` (as ``seen`` turns a colour
    into L*a*b*), and that pair."""
    labs = {color: seen(color) for color in colors}
    return min((delta_e_2000(labs[a], labs[b]), a, b)
               for i, a in enumerate(colors) for b in colors[i + 1:])


def luminance(color: str) -> float:
    """WCAG's relative luminance."""
    return float(np.array([0.2126, 0.7152, 0.0722]) @ linear(rgb(color)))


def contrast(color: str, background: str) -> float:
    """WCAG's contrast ratio of two colours (1 to 21)."""
    high, low = sorted((luminance(color), luminance(background)), reverse=True)
    return (high + 0.05) / (low + 0.05)
