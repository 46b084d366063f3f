"""The Laplace mechanism (Dwork, McSherry, Nissim & Smith 2006; Dwork & Roth 2014, Def. 3.3, Thm. 3.6).

M(D) = f(D) + Z with Z ~ Lap(b), b = Delta_1 / epsilon, density p(y | q) = exp(-|y - q| / b) / (2b).
For neighbours with |f(D) - f(D')|_1 <= Delta_1 the log-ratio is
|y - q'| / b - |y - q| / b <= |q - q'| / b <= epsilon (triangle inequality): pure epsilon-DP.

Entries: ``laplace`` (a count), ``laplace-sum`` (sum of records clamped to [lower, upper],
Delta = max(|lower|, |upper|) under add/remove), ``laplace-mean`` (clamped mean with public n under
replace-one, Delta = (upper - lower)/n) and ``laplace-vector`` (a histogram, l1 sensitivity 1, product
density; the log-ratio is a sum of per-coordinate terms bounded by ||q - q'||_1 / b).

Outputs are released on a fine power-of-two grid (see :mod:`dpaudit.mechanisms._grid`), so no
floating-point lattice reveals the input.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from ..._validation import check_positive_finite, check_positive_int, check_real
from ...claims import PureDP
from ...errors import InvalidArgument
from ...neighbours import AddRemove, Replace
from .._grid import released
from ..base import Mechanism
from ..registry import register

_GRID_NOTE = "released on a 2^-16 b grid, clamped to 2^24 b (mechanisms._grid)"


def count(data: Any) -> float:
    """The number of records equal to 1 (or True): sensitivity 1 under add/remove and replace."""
    return float(sum(1 for r in data if r == 1))


def laplace_density(epsilon: float, sensitivity: float, note: str = ""):
    """p(y | q) = exp(-|y - q| / b) / (2 b), b = Delta / epsilon, symbolic in epsilon and Delta.

    ``epsilon`` and ``sensitivity`` are the catalogue instance's values.
    """
    import sympy

    from ..density import SymbolicDensity, symbol

    y, q, eps, sens = symbol("y"), symbol("q"), symbol("epsilon"), symbol("Delta")
    b = sens / eps
    return SymbolicDensity(
        expr=sympy.exp(-sympy.Abs(y - q) / b) / (2 * b),
        outputs=(y,),
        inputs=(q,),
        epsilon=eps,
        sensitivity=sens,
        instance={eps: epsilon, sens: sensitivity},
        note=note,
    )


@register("laplace")
def laplace_count(epsilon: float = 1.0) -> Mechanism:
    """Laplace mechanism on a count (records in {0, 1}, add/remove neighbours, Delta = 1)."""
    scale = 1.0 / epsilon

    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        return released(count(data), rng.laplace(0.0, scale, size=n), scale)

    def density():
        return laplace_density(epsilon, 1.0, note="released on a 2^-16 b grid, clamped to 2^24 b (mechanisms._grid)")

    return Mechanism(
        name="laplace",
        claim=PureDP(epsilon),
        neighbours=AddRemove(),
        sampler=sample,
        family="laplace",
        description=f"Laplace mechanism on a count, scale 1/epsilon, epsilon={epsilon:g}",
        query=count,
        sensitivity=1.0,
        density=density,
        domain=(0, 1),
        pairs=(((1, 0, 1), (1, 0, 1, 1)),),
        true_epsilon=epsilon,
        source="Dwork, McSherry, Nissim & Smith (2006); Dwork & Roth (2014) Thm. 3.6",
    )


def _clamp_bounds(lower: float, upper: float) -> tuple[float, float]:
    lo, hi = check_real("lower", lower), check_real("upper", upper)
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise InvalidArgument(f"lower={lower!r}, upper={upper!r} must be finite numbers with lower < upper")
    return lo, hi


def clamped_sum(data: Any, lower: float, upper: float) -> Fraction:
    """sum_i clamp(x_i, lower, upper), computed exactly (a rational number).

    Adding or removing one record moves the exact sum by at most max(|lower|, |upper|).  A float sum
    would not keep that promise: its rounding depends on the other records, so neighbouring sums can
    differ by more than the bound (Casacuberta, Shoemate, Vadhan & Wagaman 2022).  The exact sum is
    rounded to a double once, when the noise is added: that shifts the Laplace centre by at most half
    an ulp, a change of the log-ratio below 2^-52 |f(D)| / b, of the same order as the grid's float
    error (:mod:`dpaudit.mechanisms._grid`).
    """
    values, counts = np.unique(np.clip(np.asarray(data, dtype=float).reshape(-1), lower, upper), return_counts=True)
    return sum((Fraction(v) * int(c) for v, c in zip(values.tolist(), counts.tolist())), Fraction(0))


@register("laplace-sum")
def laplace_sum(epsilon: float = 1.0, lower: float = -1.0, upper: float = 2.0) -> Mechanism:
    """Laplace mechanism on the sum of records clamped to [lower, upper], add/remove neighbours.

    Adding or removing one record changes sum_i clamp(x_i) by clamp(x) in [lower, upper], so the
    sensitivity is Delta = max(|lower|, |upper|) and the scale b = Delta / epsilon (Dwork & Roth 2014,
    Thm. 3.6).
    """
    epsilon = check_positive_finite("epsilon", epsilon)
    lo, hi = _clamp_bounds(lower, upper)
    sensitivity = max(abs(lo), abs(hi))
    scale = sensitivity / epsilon

    def query(data: Any) -> Fraction:
        return clamped_sum(data, lo, hi)

    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        return released(float(query(data)), rng.laplace(0.0, scale, size=n), scale)

    def density():
        return laplace_density(epsilon, sensitivity, note=f"Delta = max(|{lo:g}|, |{hi:g}|); {_GRID_NOTE}")

    extreme = hi if abs(hi) >= abs(lo) else lo
    return Mechanism(
        name="laplace-sum",
        claim=PureDP(epsilon),
        neighbours=AddRemove(),
        sampler=sample,
        family="laplace",
        description=f"Laplace on a sum clamped to [{lo:g}, {hi:g}], Delta={sensitivity:g}, epsilon={epsilon:g}",
        query=query,
        sensitivity=sensitivity,
        density=density,
        domain=(lo, hi),
        pairs=(((lo, hi), (lo, hi, extreme)), ((lo, hi, extreme), (lo, hi))),
        true_epsilon=epsilon,
        source="Dwork & Roth (2014) Thm. 3.6 with clamping (Sect. 3.3)",
    )


@register("laplace-mean")
def laplace_mean(epsilon: float = 1.0, lower: float = 0.0, upper: float = 1.0, size: int = 10) -> Mechanism:
    """Laplace mechanism on the clamped mean of a dataset of known, public size n (replace neighbours).

    Under replace-one neighbours the size n is the same for D and D', so it is public and the query
    f(D) = (1/n) sum_i clamp(x_i, lower, upper) has sensitivity (upper - lower) / n: replacing x by x'
    moves the sum by clamp(x') - clamp(x) in [-(upper - lower), upper - lower].  The scale is therefore
    b = (upper - lower) / (n epsilon) (Dwork & Roth 2014, Thm. 3.6).  Under add/remove neighbours n is
    *not* public and dividing by the observed size is a different query whose sensitivity is not
    (upper - lower)/n; that relation is not claimed here.  The divisor is the declared ``size`` n: for a
    dataset of another length the output is the clamped sum over n, whose replace-one sensitivity is
    still (upper - lower)/n, so the claim holds for every input.
    """
    epsilon = check_positive_finite("epsilon", epsilon)
    lo, hi = _clamp_bounds(lower, upper)
    size = check_positive_int("size", size)
    sensitivity = (hi - lo) / size
    scale = sensitivity / epsilon

    def query(data: Any) -> Fraction:
        return clamped_sum(data, lo, hi) / size

    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        return released(float(query(data)), rng.laplace(0.0, scale, size=n), scale)

    def density():
        return laplace_density(epsilon, sensitivity, note=f"Delta = (upper - lower)/n with n = {size}; {_GRID_NOTE}")

    base = (lo,) * (size - 1)
    return Mechanism(
        name="laplace-mean",
        claim=PureDP(epsilon),
        neighbours=Replace(),
        sampler=sample,
        family="laplace",
        description=f"Laplace on a mean of n={size} records clamped to [{lo:g}, {hi:g}], epsilon={epsilon:g}",
        query=query,
        sensitivity=sensitivity,
        density=density,
        domain=(lo, hi),
        pairs=((base + (lo,), base + (hi,)), (base + (hi,), base + (lo,))),
        true_epsilon=epsilon,
        source="Dwork & Roth (2014) Thm. 3.6; bounded (replace-one) DP with public n",
    )


def histogram(data: Any, bins: int) -> np.ndarray:
    """Counts of the records 0, 1, ..., bins - 1 (other values are ignored): l1 sensitivity 1 under add/remove."""
    values = np.asarray(data, dtype=float).reshape(-1)
    return np.array([np.count_nonzero(values == k) for k in range(bins)], dtype=float)


def laplace_vector_density(epsilon: float, sensitivity: float, dimension: int, note: str = ""):
    """p(y | q) = prod_i exp(-|y_i - q_i| / b) / (2 b), b = Delta_1 / epsilon (l1 neighbours).

    The log-ratio is sum_i (|y_i - q'_i| - |y_i - q_i|) / b <= ||q - q'||_1 / b <= epsilon.
    """
    import sympy

    from ..density import SymbolicDensity, symbol

    eps, sens = symbol("epsilon"), symbol("Delta")
    ys = tuple(symbol(f"y{i + 1}") for i in range(dimension))
    qs = tuple(symbol(f"q{i + 1}") for i in range(dimension))
    b = sens / eps
    expr = sympy.Mul(*(sympy.exp(-sympy.Abs(y - q) / b) / (2 * b) for y, q in zip(ys, qs)))
    return SymbolicDensity(
        expr=expr,
        outputs=ys,
        inputs=qs,
        epsilon=eps,
        sensitivity=sens,
        norm="l1",
        instance={eps: epsilon, sens: sensitivity},
        note=note,
    )


@register("laplace-vector")
def laplace_vector(epsilon: float = 1.0, bins: int = 4) -> Mechanism:
    """Laplace mechanism on a histogram of ``bins`` categories: independent Lap(1/epsilon) per count.

    Adding or removing one record changes exactly one count by one, so ||f(D) - f(D')||_1 <= 1 and
    the product density has log-ratio at most epsilon (Dwork & Roth 2014, Thm. 3.6 and Sect. 3.3).
    """
    epsilon = check_positive_finite("epsilon", epsilon)
    bins = check_positive_int("bins", bins)
    scale = 1.0 / epsilon

    def query(data: Any) -> np.ndarray:
        return histogram(data, bins)

    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        return released(query(data), rng.laplace(0.0, scale, size=(n, bins)), scale)

    def density():
        return laplace_vector_density(epsilon, 1.0, bins, note=f"each coordinate: {_GRID_NOTE}")

    records = tuple(range(bins))
    return Mechanism(
        name="laplace-vector",
        claim=PureDP(epsilon),
        neighbours=AddRemove(),
        sampler=sample,
        family="laplace",
        description=f"Laplace histogram over {bins} categories, l1 sensitivity 1, epsilon={epsilon:g}",
        query=query,
        sensitivity=1.0,
        density=density,
        domain=records,
        pairs=((records, records + (0,)), (records + (0,), records)),
        true_epsilon=epsilon,
        source="Dwork, McSherry, Nissim & Smith (2006); Dwork & Roth (2014) Thm. 3.6",
    )
