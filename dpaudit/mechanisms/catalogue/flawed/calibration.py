"""Calibration slips: the right mechanism with its noise tuned to the wrong privacy parameter.

``laplace-scale-epsilon`` (StatDP ``histogram_eps``; DP-Sniper NoisyHist2) -- a count plus Laplace
    noise of scale eps instead of Delta / eps.  Density p(y | q) = e^(-|y - q| / eps) / (2 eps); the
    log-ratio is |y - q'| / eps - |y - q| / eps <= |q - q'| / eps with equality for y beyond both
    inputs, so the true epsilon is Delta / eps: 10 at the claim eps = 0.1 (a violation whenever
    eps < sqrt(Delta); at eps = 1.5 it would be 0.667-DP, no violation).
``rr-miscalibrated`` -- binary randomized response (Warner 1965) that keeps the true bit with
    probability e^(2 eps) / (1 + e^(2 eps)) while claiming eps.  The two outputs' probability ratios
    are e^(2 eps) and e^(-2 eps): true epsilon 2 eps (1.0 at the claim 0.5).
``exponential-no-factor-2`` -- the exponential mechanism of McSherry & Talwar (2007) with weights
    exp(eps u_i / Delta) instead of exp(eps u_i / (2 Delta)) (Dwork & Roth 2014, Def. 3.4), on a
    utility vector u with ||u - u'||_inf <= Delta.  P(i | u) / P(i | u') = e^(eps (u_i - u'_i) / Delta)
    Z(u') / Z(u) <= e^eps e^eps: true epsilon 2 eps (McSherry & Talwar 2007, Thm. 6), the supremum
    being approached when u_i = u'_i + Delta, u_j = u'_j - Delta and u'_i far below the other
    utilities: (1, 9, 9) vs (0, 10, 10) gives 2 - 1.45e-4 at eps = 1.  The pair (1, 1, 1) vs (0, 0, 2)
    violates eps-DP exactly when e^eps > 2, i.e. eps > ln 2 (ratio (2 + e^(2 eps)) / 3).

The two discrete entries have a ``one_run`` over a ``random.Random`` with the law of their float code:
``rng.random()`` is j / 2^53 for j uniform, as numpy's ``Generator.random()`` is, so ``rng.random() <
keep`` is the same Bernoulli(ceil(keep 2^53) / 2^53), and numpy's ``choice(k, p=p)`` is
``searchsorted(cumsum(p) / cumsum(p)[-1], random(), side="right")``, which ``bisect_right`` over the
same float CDF repeats.
"""

from __future__ import annotations

import bisect
import random
from typing import Any

import numpy as np

from ...._validation import check_positive_finite, check_positive_int
from ....claims import PureDP
from ....errors import InvalidDataset
from ....neighbours import AddRemove, Local, QueryDistance
from ..._grid import snap_to_grid
from ..._queries import identity_query, query_vector
from ...base import Mechanism
from ...registry import register
from ..laplace import count

__all__ = ["exponential_no_factor_2_density", "laplace_scale_epsilon_density", "rr_miscalibrated_density"]


def laplace_scale_epsilon_density(epsilon: float):
    """p(y | q) = e^(-|y - q| / eps) / (2 eps) with the claim eps-DP for |q - q'| <= Delta."""
    import sympy

    from ...density import SymbolicDensity, symbol

    y, q, eps, sens = symbol("y"), symbol("q"), symbol("epsilon"), symbol("Delta")
    return SymbolicDensity(
        expr=sympy.exp(-sympy.Abs(y - q) / eps) / (2 * eps),
        outputs=(y,),
        inputs=(q,),
        epsilon=eps,
        sensitivity=sens,
        instance={eps: epsilon, sens: 1},
        note="released on a 2^-16 eps grid (mechanisms._grid)",
    )


@register("laplace-scale-epsilon")
def laplace_scale_epsilon(epsilon: float = 0.1) -> Mechanism:
    """A count plus Laplace noise of scale eps (not 1/eps): true epsilon 1/eps."""
    epsilon = check_positive_finite("epsilon", epsilon)

    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        return snap_to_grid(count(data) + rng.laplace(0.0, epsilon, size=n), epsilon)

    return Mechanism(
        name="laplace-scale-epsilon",
        claim=PureDP(epsilon),
        neighbours=AddRemove(),
        sampler=sample,
        family="laplace",
        description=f"Laplace on a count with scale eps instead of 1/eps, eps={epsilon:g}",
        query=count,
        sensitivity=1.0,
        density=lambda: laplace_scale_epsilon_density(epsilon),
        domain=(0, 1),
        pairs=(((), (1,)), ((1, 0, 1), (1, 0, 1, 1))),
        flaw="uses the noise scale eps instead of Delta / eps, so the privacy loss is Delta / eps, not eps",
        true_epsilon=1.0 / epsilon,
        source="StatDP histogram_eps (Ding et al. 2018, CCS); DP-Sniper NoisyHist2 (Bichsel et al. 2021, S&P)",
    )


def rr_miscalibrated_density(epsilon: float):
    """pmf P(y = x) = e^(2 eps) / (1 + e^(2 eps)), P(y != x) = 1 / (1 + e^(2 eps)), claim eps."""
    import sympy

    from ...density import SymbolicDensity, symbol

    y, q, eps = symbol("y"), symbol("q"), symbol("epsilon")
    keep = sympy.exp(2 * eps) / (1 + sympy.exp(2 * eps))
    return SymbolicDensity(
        expr=sympy.Piecewise((keep, sympy.Eq(y, q)), (1 - keep, True)),
        outputs=(y,),
        inputs=(q,),
        epsilon=eps,
        discrete=True,
        output_domain=sympy.FiniteSet(0, 1),
        input_domain=((0,), (1,)),
        instance={eps: epsilon},
        note="the keep probability is compared with a double uniform (error 2^-53)",
    )


def _bit(data: Any) -> int:
    value = np.asarray(data)
    if value.ndim != 0 or value.dtype.kind not in "biuf" or float(value) not in (0.0, 1.0):
        raise InvalidDataset(f"data={data!r} must be one bit, 0 or 1")
    return int(value)


@register("rr-miscalibrated")
def rr_miscalibrated(epsilon: float = 0.5) -> Mechanism:
    """Randomized response keeping the bit with probability e^(2 eps)/(1 + e^(2 eps)): true 2 eps."""
    epsilon = check_positive_finite("epsilon", epsilon)
    keep = 1.0 / (1.0 + np.exp(-2.0 * epsilon))

    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        x = _bit(data)
        return np.where(rng.random(n) < keep, x, 1 - x)

    def one_run(data: Any, rng: random.Random) -> int:
        x = _bit(data)
        if rng.random() < float(keep):
            return x
        return 1 - x

    return Mechanism(
        name="rr-miscalibrated",
        claim=PureDP(epsilon),
        neighbours=Local(),
        sampler=sample,
        one_run=one_run,
        family="randomized-response",
        description=f"randomized response calibrated to 2 eps while claiming eps={epsilon:g}",
        density=lambda: rr_miscalibrated_density(epsilon),
        domain=(0, 1),
        pairs=((1, 0), (0, 1)),
        flaw="the coin keeps the truth with probability e^(2 eps) / (1 + e^(2 eps)), the calibration for 2 eps",
        true_epsilon=2 * epsilon,
        source="randomized response of Warner (1965) with a factor-2 calibration slip; Dwork & Roth (2014) Sect. 3.2",
    )


def exponential_no_factor_2_density(k: int, epsilon: float):
    """pmf P(y = i | u) = exp(eps u_i / Delta) / sum_j exp(eps u_j / Delta), claim eps-DP (linf Delta)."""
    import sympy

    from ...density import SymbolicDensity, symbol

    y, eps, sens = symbol("y"), symbol("epsilon"), symbol("Delta")
    us = tuple(symbol(f"q{i}") for i in range(1, k + 1))
    weights = [sympy.exp(eps * u / sens) for u in us]
    total = sympy.Add(*weights)
    pieces = [(w / total, sympy.Eq(y, i)) for i, w in enumerate(weights[:-1])]
    return SymbolicDensity(
        expr=sympy.Piecewise(*pieces, (weights[-1] / total, True)),
        outputs=(y,),
        inputs=us,
        epsilon=eps,
        sensitivity=sens,
        norm="linf",
        discrete=True,
        output_domain=sympy.FiniteSet(*range(k)),
        instance={eps: epsilon, sens: 1},
        note="candidates are numbered 0..k-1; numpy's choice inverts the CDF of these weights",
    )


@register("exponential-no-factor-2")
def exponential_no_factor_2(epsilon: float = 1.0, k: int = 3) -> Mechanism:
    """Exponential mechanism with weights exp(eps u / Delta), missing the factor 2: true 2 eps."""
    epsilon = check_positive_finite("epsilon", epsilon)
    k = check_positive_int("k", k)

    def probabilities(data: Any) -> np.ndarray:
        u = query_vector(data, k)
        weights = np.exp(epsilon * (u - u.max()))
        return weights / weights.sum()

    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        return rng.choice(k, size=n, p=probabilities(data))

    def one_run(data: Any, rng: random.Random) -> int:
        cdf = np.cumsum(probabilities(data))  # numpy's choice: the CDF in float, divided by its last value
        cdf = tuple((cdf / cdf[-1]).tolist())
        u = rng.random()
        return bisect.bisect_right(cdf, u)

    far = tuple([1.0] + [9.0] * (k - 1)), tuple([0.0] + [10.0] * (k - 1))
    return Mechanism(
        name="exponential-no-factor-2",
        claim=PureDP(epsilon),
        neighbours=QueryDistance(1.0, "linf"),
        sampler=sample,
        one_run=one_run,
        family="exponential",
        description=f"exponential mechanism without the factor 2, k={k} candidates, eps={epsilon:g}",
        query=identity_query,
        sensitivity=1.0,
        density=lambda: exponential_no_factor_2_density(k, epsilon),
        domain=(0.0,) * k,
        pairs=((tuple([1.0] * k), tuple([0.0] * (k - 1) + [2.0])), far),
        flaw=(
            "weights candidates by exp(eps u / Delta) instead of exp(eps u / (2 Delta)): both the score and "
            "the normaliser move by e^eps, so the loss reaches 2 eps"
        ),
        true_epsilon=2 * epsilon,
        source="McSherry & Talwar (2007, FOCS) Thm. 6; Dwork & Roth (2014) Def. 3.4 and Thm. 3.10",
    )
