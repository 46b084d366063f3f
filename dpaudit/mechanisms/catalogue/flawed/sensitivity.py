"""Sensitivity mistakes: the noise is calibrated to a sensitivity the statistic does not have.

``clamped-mean-wrong-sensitivity`` -- the mean of the records clamped to [lb, ub] = [0, 1] plus
    Laplace noise of scale (ub - lb) / (n eps) with n = |D| (max(n, 1): the empty dataset releases
    0 with scale (ub - lb) / eps), under add/remove neighbours.  The mean itself moves by at most
    (ub - lb) / (n + 1) when a record is added, but n -- and with it the noise scale -- changes
    between neighbours.  For D with n records and D' = D + r the scales are b_n > b_(n+1) and
    ln p_D(y) - ln p_D'(y) = ln(b_(n+1) / b_n) - |y - m| / b_n + |y - m'| / b_(n+1), which grows like
    |y| (1/b_(n+1) - 1/b_n) = |y| eps / (ub - lb): **true epsilon inf**.  Witness (eps = 1): D = (1,),
    D' = (1, 0) give ln p_D(y) - ln p_D'(y) = y - ln 2 for y >= 1, above eps = 1 on y > 1 + ln 2, an
    event of probability 1/4 under D.  (DP-Auditorium keeps mean mechanisms with the same kind of bug.)
    The entry declares its structure (f = the clamped mean, S(x) = (ub - lb) / max(|x|, 1), alpha =
    eps, Laplace noise, no smoothness), and the prover refutes it with a tail event of the released
    grid values at such a pair.
``sum-clamp-after`` -- meant as the sum of records clamped to [lb, ub] = [0, 1] with Laplace(ub /
    eps) noise, it clamps the TOTAL instead: f(D) = clamp(sum(D), n lb, n ub), n = |D|.  Records
    come from [0, R] with R = 10.  Since clamp(x, a, c) is 1-Lipschitz in (x, a, c) for the max norm
    and adding a record r moves x by r <= R and the bounds by lb, ub, |f(D) - f(D')| <= R, attained
    by D = 0^(R - 1) vs D' = D + (R,) (f = 0 vs f = R).  The Laplace ratio at shift R is exactly
    R / b for y beyond both: **true epsilon R eps / ub = 5** at eps = 0.5.  The declared density is
    the code's Laplace(ub / eps) noise under the statistic's true constraint |q - q'| <= R, so a prover
    refutes the claim with that witness.
``median-local-sensitivity`` -- the median plus Laplace noise scaled to its local sensitivity
    LS(D) = max(x_m - x_(m-1), x_(m+1) - x_m) (sorted records in [0, L], x_0 = 0, x_(n+1) = L,
    m = ceil(n / 2)) divided by eps, the pitfall of Nissim, Raskhodnikova & Smith (2007, STOC),
    Sect. 1.1.  D = (0, 0, 0, 0, 1) has LS = 0 and releases exactly 0; its Replace neighbour
    D' = (0, 0, 0, 1, 1) has median 0 but LS = 1, so its output is continuous and P[y = 0] = 0:
    **true epsilon inf** (probability 1 vs 0).  Outputs are not rounded: rounding would put
    mass on 0 under D' as well and blur the point.  The entry declares its structure (admissible-noise
    form with S = LS and no smoothness), and the prover refutes it with such a pair.

The first two release on the grid of :mod:`dpaudit.mechanisms._grid` for the coarsest noise scale
(post-processing), so the documented flaw is the only one.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from ...._validation import check_positive_finite, check_real
from ....claims import PureDP
from ....errors import InvalidArgument, InvalidDataset
from ....neighbours import AddRemove, Replace
from ..._grid import grid_for, snap_to_grid
from ...base import Mechanism
from ...registry import register
from ...structure import AdmissibleNoise
from ..smooth_sensitivity import median_local_sensitivity as exact_local_sensitivity
from ..smooth_sensitivity import replace_one

__all__ = ["add_remove_one", "clamp_after_density", "clamped_total", "local_sensitivity_of_median", "median", "standard_laplace_density"]


def _records(data: Any) -> np.ndarray:
    try:
        x = np.asarray(data, dtype=float)
    except (TypeError, ValueError):
        raise InvalidDataset(f"data={data!r} must be a sequence of numeric records") from None
    if x.ndim != 1 or not np.all(np.isfinite(x)):
        raise InvalidDataset(f"data={data!r} must be a flat sequence of finite numeric records")
    return x


def _bounds(lower: float, upper: float) -> tuple[float, float]:
    lower, upper = check_real("lower", lower), check_real("upper", upper)
    if not lower < upper:
        raise InvalidArgument(f"upper={upper!r} must be > lower={lower!r}")
    return lower, upper


def add_remove_one(data: Any, records: tuple[float, ...]) -> list[tuple[float, ...]]:
    """The add/remove neighbours of ``data``: each record removed, then each of ``records`` added."""
    data = tuple(data)
    return [data[:i] + data[i + 1:] for i in range(len(data))] + [data + (r,) for r in records]


@register("clamped-mean-wrong-sensitivity")
def clamped_mean_wrong_sensitivity(epsilon: float = 1.0, lower: float = 0.0, upper: float = 1.0) -> Mechanism:
    """Clamped mean with noise scale (ub - lb) / (|D| eps): the scale depends on D, true eps inf."""
    epsilon = check_positive_finite("epsilon", epsilon)
    lower, upper = _bounds(lower, upper)
    width = upper - lower

    def clamped_mean(data: Any) -> float:
        x = np.clip(_records(data), lower, upper)
        return float(x.sum() / max(x.size, 1))

    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        size = max(_records(data).size, 1)
        noise = rng.laplace(0.0, width / (size * epsilon), size=n)
        return snap_to_grid(clamped_mean(data) + noise, width / epsilon)

    def local_sensitivity(data: Any) -> float:
        # f(x + r) is affine in r, so over r in [lb, ub] the largest move is at lb or ub
        return max(abs(clamped_mean(data) - clamped_mean(d)) for d in add_remove_one(data, (lower, upper)))

    records = (lower, (lower + upper) / 2, upper)
    structure = AdmissibleNoise(  # f(x) + (S(x)/alpha) Z with S = (ub - lb)/max(|x|, 1), alpha = eps, Z ~ Lap(1)
        noise_density=standard_laplace_density,
        alpha=epsilon,
        beta=None,
        smooth_bound=lambda data: width / max(_records(data).size, 1),
        local_sensitivity=local_sensitivity,
        datasets=tuple(d for size in range(4) for d in itertools.combinations_with_replacement((upper, lower), size)),
        neighbours=lambda data: add_remove_one(data, records),
        statistic=f"the mean of records clamped to [{lower:g}, {upper:g}] (0 for no records)",
        output=f"rounded to the grid of noise scale (ub - lb)/eps = {width / epsilon:g} (snap_to_grid)",
        grid=grid_for(width / epsilon),
    )

    return Mechanism(
        name="clamped-mean-wrong-sensitivity",
        claim=PureDP(epsilon),
        neighbours=AddRemove(),
        sampler=sample,
        family="sensitivity",
        description=f"clamped mean on [{lower:g}, {upper:g}] with noise scale (ub - lb)/(|D| eps), eps={epsilon:g}",
        query=clamped_mean,
        structure=structure,
        domain=(lower, upper),
        pairs=(((upper,), (upper, lower)), ((lower,), (lower, upper)), ((upper, lower), (upper, lower, upper))),
        flaw=(
            "calibrates the noise to (ub - lb) / n with n the size of the dataset itself, so neighbours get "
            "different noise scales and the privacy loss grows without bound in the tails"
        ),
        true_epsilon=math.inf,
        source="sensitivity (ub - lb)/n of the clamped mean used under add/remove neighbours; Dwork & Roth (2014) Sect. 3.3",
    )


def clamped_total(data: Any, lower: float, upper: float) -> float:
    """The buggy statistic: clamp(sum(D), |D| lower, |D| upper), clamping the total, not each record."""
    x = _records(data)
    return float(np.clip(x.sum(), x.size * lower, x.size * upper))


def clamp_after_density(epsilon: float, upper: float, record_bound: float):
    """p(y | q) = exp(-|y - q| / b) / (2b) with the code's scale b = ub / eps, under the statistic's TRUE
    neighbour constraint |q - q'| <= R (records in [0, R], lb = 0; see the module docstring).

    Symbolic in eps, ub (``upper``) and R (``Delta``): the declared noise is what the code adds, the
    sensitivity what clamp(sum(D), n lb, n ub) really has, so the log-ratio reaches R eps / ub.
    """
    import sympy

    from ...density import SymbolicDensity, symbol

    y, q, eps = symbol("y"), symbol("q"), symbol("epsilon")
    ub, bound = symbol("upper", positive=True), symbol("Delta")
    b = ub / eps
    return SymbolicDensity(
        expr=sympy.exp(-sympy.Abs(y - q) / b) / (2 * b),
        outputs=(y,),
        inputs=(q,),
        epsilon=eps,
        sensitivity=bound,
        instance={eps: sympy.nsimplify(epsilon), ub: sympy.nsimplify(upper), bound: sympy.nsimplify(record_bound)},
        note=(
            "Laplace noise of the code's scale ub/eps under the statistic's true sensitivity R (records in "
            "[0, R]); released on a 2^-16 b grid"
        ),
    )


@register("sum-clamp-after")
def sum_clamp_after(
    epsilon: float = 0.5, lower: float = 0.0, upper: float = 1.0, record_bound: float = 10.0
) -> Mechanism:
    """Sum that clamps the total to [n lb, n ub] instead of each record; records in [0, R]: true R eps / ub."""
    epsilon = check_positive_finite("epsilon", epsilon)
    lower, upper = _bounds(lower, upper)
    if lower != 0.0:
        raise InvalidArgument(f"lower={lower!r} must be 0: the gallery entry states its true epsilon for lb = 0")
    record_bound = check_positive_finite("record_bound", record_bound)
    if record_bound < upper:
        raise InvalidArgument(f"record_bound={record_bound!r} must be >= upper={upper!r}")
    scale = upper / epsilon
    witness_size = max(math.ceil(record_bound / upper) - 1, 0)

    def total(data: Any) -> float:
        return clamped_total(data, lower, upper)

    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        return snap_to_grid(total(data) + rng.laplace(0.0, scale, size=n), scale)

    def density():
        return clamp_after_density(epsilon, upper, record_bound)

    zeros = (0.0,) * witness_size
    return Mechanism(
        name="sum-clamp-after",
        claim=PureDP(epsilon),
        neighbours=AddRemove(),
        sampler=sample,
        family="sensitivity",
        description=(
            f"sum clamping the total to [n lb, n ub] = n [{lower:g}, {upper:g}] instead of each record, "
            f"records in [0, {record_bound:g}], eps={epsilon:g}"
        ),
        query=total,
        sensitivity=upper,
        density=density,
        domain=(0.0, upper, record_bound),
        pairs=((zeros + (record_bound,), zeros), (zeros, zeros + (record_bound,))),
        flaw=(
            f"clamps the total to [n lb, n ub] after summing instead of clamping each record, so one record "
            f"of up to {record_bound:g} moves the sum by up to {record_bound:g}, not ub = {upper:g}"
        ),
        true_epsilon=record_bound * epsilon / upper,
        source="clamping after aggregation instead of per record; Dwork & Roth (2014) Sect. 3.3 (Laplace on a bounded sum)",
    )


def _sorted_records(data: Any, upper: float) -> np.ndarray:
    x = np.sort(np.clip(_records(data), 0.0, upper))
    if x.size == 0:
        raise InvalidDataset("data=() must hold at least one record: the median of nothing is undefined")
    return x


def median(data: Any, upper: float = 1.0) -> float:
    """x_m of the records clamped to [0, upper], m = ceil(n / 2) (1-based, the lower median)."""
    x = _sorted_records(data, upper)
    return float(x[(x.size + 1) // 2 - 1])


def local_sensitivity_of_median(data: Any, upper: float = 1.0) -> float:
    """LS(D) = max(x_m - x_(m-1), x_(m+1) - x_m) with x_0 = 0, x_(n+1) = upper (Nissim et al. 2007)."""
    x = np.concatenate(([0.0], _sorted_records(data, upper), [upper]))
    m = (x.size - 2 + 1) // 2
    return float(max(x[m] - x[m - 1], x[m + 1] - x[m]))


def standard_laplace_density():
    """h(z) = e^(-|z|) / 2, the density of rng.laplace(0, 1), with its symbol z."""
    import sympy

    z = sympy.Symbol("z", real=True)
    return sympy.exp(-sympy.Abs(z)) / 2, z


@register("median-local-sensitivity")
def median_local_sensitivity(epsilon: float = 1.0, upper: float = 1.0) -> Mechanism:
    """Median plus Laplace(LS(D) / eps) noise: scale 0 on some datasets, true epsilon inf."""
    epsilon = check_positive_finite("epsilon", epsilon)
    upper = check_positive_finite("upper", upper)

    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        scale = local_sensitivity_of_median(data, upper) / epsilon
        return median(data, upper) + scale * rng.laplace(0.0, 1.0, size=n)

    grid = (0.0, upper / 2, upper)
    structure = AdmissibleNoise(  # f(x) + (S(x)/alpha) Z with S = LS, alpha = eps and Z ~ Lap(1)
        noise_density=standard_laplace_density,
        alpha=epsilon,
        beta=None,
        smooth_bound=lambda data: local_sensitivity_of_median(data, upper),
        local_sensitivity=lambda data: exact_local_sensitivity(data, upper),
        datasets=tuple(d for size in range(1, 6) for d in itertools.combinations_with_replacement(grid, size)),
        neighbours=lambda data: replace_one(data, grid),
        statistic=f"the median of records clamped to [0, {upper:g}]",
    )

    return Mechanism(
        name="median-local-sensitivity",
        claim=PureDP(epsilon),
        neighbours=Replace(),
        sampler=sample,
        family="sensitivity",
        description=f"median of records in [0, {upper:g}] with Laplace noise scaled to its local sensitivity, eps={epsilon:g}",
        query=lambda data: median(data, upper),
        structure=structure,
        domain=(0.0, upper),
        pairs=(((0.0, 0.0, 0.0, 0.0, upper), (0.0, 0.0, 0.0, upper, upper)), ((0.0, 0.0, 0.0), (0.0, 0.0, upper))),
        flaw=(
            "scales the noise to the local sensitivity of the median, which is itself data-dependent and 0 "
            "on some datasets: the noise scale reveals the data (an exact, noise-free release vs a continuous one)"
        ),
        true_epsilon=math.inf,
        source="Nissim, Raskhodnikova & Smith (2007, STOC) 'Smooth sensitivity and sampling in private data analysis', Sect. 1.1",
    )
