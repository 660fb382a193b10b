"""Graphs over the data: rho-path distances and MDS (LDS paper), k-NN graph Laplacians
(LapSVM paper). Sparse wherever the method allows."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
