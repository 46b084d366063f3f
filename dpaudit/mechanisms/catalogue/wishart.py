"""The Wishart mechanism for a covariance matrix (Jiang, Xie & Zhang 2016, "Wishart mechanism for
differentially private principal components analysis", AAAI; arXiv 1511.05680).

Records are vectors x in R^d clipped to ||x||_2 <= 1, n is public (replace-one neighbours) and the
query is A = (1/n) sum_i x_i x_i^T.  The mechanism releases A + W with W ~ Wishart_d(d + 1, C),
C = (3 / (2 n epsilon)) I_d (their Alg. 1 and Thm. 1), as the flattened upper triangle
(a_11, a_12, ..., a_dd); the catalogue instance has d = 2.

What is true (derived here; the paper claims pure epsilon-DP, which does not hold).  With d + 1
degrees of freedom the Wishart density is p(W) proportional to |W|^0 exp(-tr(C^-1 W)/2) on the
positive-definite cone, so on the common support
    ln p(Y - A) - ln p(Y - A') = tr(C^-1 (A - A'))/2 = (||x||^2 - ||x'||^2)/(2 c n) <= epsilon/3
with c = 3/(2 n epsilon).  But the support A + PD depends on A: with x = 0 replaced by a unit vector
u, A' = A + u u^T/n and Y = A + W lies outside A' + PD exactly when u^T W^-1 u > n.  Since
(u^T C^-1 u)/(u^T W^-1 u) ~ chi^2 with d + 1 - d + 1 = 2 degrees of freedom (Muirhead 1982,
Thm. 3.2.12), that event has probability P[chi^2_2 < 1/(c n)] = 1 - e^(-epsilon/3), and the privacy
loss on it is infinite: the pure claim is false (true pure epsilon = inf).  Splitting any event S
into its part inside and outside A' + PD gives P[M(A) in S] <= e^(epsilon/3) P[M(A') in S] +
(1 - e^(-epsilon/3)) for every neighbouring pair, so the entry claims the true guarantee
ApproxDP(epsilon/3, 1 - e^(-epsilon/3)) for the paper's calibration at ``epsilon``.

W = G^T G with G a (d + 1) x d matrix of independent N(0, c) entries (Bartlett's definition),
vectorised over runs; outputs are rounded to the power-of-two grid of :mod:`dpaudit.mechanisms._grid`
for scale c (post-processing; no float lattice reveals A).  No density is declared; the entry declares
its structure (:class:`~dpaudit.mechanisms.structure.WishartNoise`) and the prover derives the claim
by the argument above (:mod:`dpaudit.proofs.structures.wishart`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..._validation import check_positive_finite, check_positive_int
from ...claims import ApproxDP
from ...errors import InvalidDataset
from ...neighbours import Replace
from .._grid import snap_to_grid
from ..base import Mechanism
from ..registry import register
from ..structure import WishartNoise

__all__ = ["covariance", "wishart_noise"]


def _records(data: Any, dimension: int) -> np.ndarray:
    x = np.asarray(data, dtype=float)
    if x.ndim != 2 or x.shape[1] != dimension or x.shape[0] == 0 or not np.all(np.isfinite(x)):
        raise InvalidDataset(f"data={data!r} must be a non-empty sequence of finite {dimension}-vectors")
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.maximum(norms, 1.0)


def covariance(data: Any, dimension: int) -> np.ndarray:
    """A = (1/n) sum_i x_i x_i^T over records clipped to the unit l2 ball."""
    x = _records(data, dimension)
    return x.T @ x / x.shape[0]


def wishart_noise(dimension: int, dof: int, variance: float, n: int, rng: np.random.Generator) -> np.ndarray:
    """n draws of W ~ Wishart_d(dof, variance I): W = G^T G, G with dof rows of N(0, variance I_d)."""
    g = rng.normal(0.0, math.sqrt(variance), size=(n, dof, dimension))
    return np.einsum("nij,nik->njk", g, g)


@register("wishart")
def wishart(epsilon: float = 1.0, size: int = 4, dimension: int = 2) -> Mechanism:
    """Wishart mechanism (Jiang et al. 2016) with C = 3/(2 n epsilon) I for n = ``size`` records in R^d.

    The claim is the derived (epsilon/3, 1 - e^(-epsilon/3)) (see the module notes), not the
    paper's pure epsilon.  The divisor n is the declared ``size`` (public under replace-one).
    """
    epsilon = check_positive_finite("epsilon", epsilon)
    size = check_positive_int("size", size)
    dimension = check_positive_int("dimension", dimension)
    variance = 3.0 / (2.0 * size * epsilon)
    upper = np.triu_indices(dimension)
    structure = WishartNoise(
        dimension=dimension,
        dof=dimension + 1,
        scale=variance,
        size=size,
        output="the upper triangle of A + W rounded to a fixed power-of-two grid (data independent)",
    )

    def query(data: Any) -> np.ndarray:
        x = _records(data, dimension)
        return (x.T @ x / size)[upper]

    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        noise = wishart_noise(structure.dimension, structure.dof, structure.scale, n, rng)[:, upper[0], upper[1]]
        return snap_to_grid(query(data) + noise, structure.scale)

    zero = (0.0,) * dimension
    unit = (1.0,) + (0.0,) * (dimension - 1)
    other = (0.0, 1.0) + (0.0,) * (dimension - 2) if dimension > 1 else unit
    base = tuple([unit, other] * size)[: size - 1]
    return Mechanism(
        name="wishart",
        claim=ApproxDP(epsilon / 3.0, -math.expm1(-epsilon / 3.0)),
        neighbours=Replace(),
        sampler=sample,
        family="wishart",
        description=(
            f"Wishart mechanism, d={dimension}, n={size}, paper epsilon={epsilon:g} "
            f"(true: ({epsilon / 3:.3g}, {-math.expm1(-epsilon / 3):.3g})-DP)"
        ),
        query=query,
        structure=structure,
        domain=(zero, unit, other),
        pairs=((base + (zero,), base + (unit,)), (base + (unit,), base + (zero,))),
        source="Jiang, Xie & Zhang (2016, AAAI) Alg. 1; corrected claim derived in the module notes",
    )
