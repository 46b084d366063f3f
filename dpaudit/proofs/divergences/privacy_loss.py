"""The privacy loss distribution of T Poisson-subsampled Gaussian steps, and accountants checked against it.

One DP-SGD step under add/remove is dominated by the pair P = (1 - q) N(0, sigma^2) + q N(1, sigma^2),
Q = N(0, sigma^2) (units of the clip norm; Mironov, Talwar & Zhang 2019; Zhu, Dong & Wang 2022).  Its
privacy loss L = ln(p(X)/q(X)), X ~ P, with L(x) = ln((1 - q) + q exp((2x - 1)/(2 sigma^2))) increasing
in x, has the exact distribution function P(L <= l) = P(X <= x(l)), x(l) = sigma^2 ln((e^l - 1 + q)/q)
+ 1/2; the reverse order (X ~ Q, loss -L) likewise.  T steps compose by adding independent losses,
and for each order

    delta(epsilon) = E[(1 - e^(epsilon - L_1 - ... - L_T))_+]   (Koskela, Jalko & Honkela 2020, Eq. 3.3;
                                                                   Sommer, Meiser & Mohammadi 2019).

:func:`exact_epsilon` computes it without ``dp_accounting``: the loss of one step is put on a grid
of width h with its exact masses (differences of normal distribution functions), rounded up
(pessimistic: every loss moves up by less than h, so delta can only grow) and rounded down
(optimistic), and T-fold convolved by FFT.  The two epsilons bracket the exact epsilon(delta) of the
pair: ``low <= epsilon <= high``, ``high - low`` < T h.  For T = 1 the closed form of
:func:`~dpaudit.mechanisms.catalogue.dp_sgd.subsampled_gaussian_delta` cross-checks it.

:func:`check_accountant` compares an accountant's epsilon with the bracket: below ``low`` it
under-reports (its claim is false for this pair: a mechanism run to it is not DP as stated).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ..._validation import check_positive_finite, check_positive_int, check_unit_interval

__all__ = ["AccountantCheck", "EpsilonBracket", "check_accountant", "exact_epsilon"]

TAIL = 1e-15
"""Probability beyond the loss grid's ends in one step (above: counted as infinite loss by the pessimistic bound)."""

Accountant = Callable[[float, float, int, float], float]


@dataclass(frozen=True)
class EpsilonBracket:
    """The exact epsilon(delta) lies in [low, high] (grid width ``interval``)."""

    low: float
    high: float
    interval: float

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _loss_quantile_range(sigma: float, q: float) -> tuple[float, float]:
    """Losses l with both orders' one-step masses beyond [lo, hi] below TAIL."""
    from scipy.stats import norm

    z = float(norm.isf(TAIL))
    x_hi, x_lo = 1.0 + z * sigma, -z * sigma

    def loss(x: float) -> float:
        return float(np.logaddexp(math.log1p(-q) if q < 1 else -math.inf, math.log(q) + (2 * x - 1) / (2 * sigma**2)))

    return loss(x_lo), loss(x_hi)


def _one_step_masses(sigma: float, q: float, grid: np.ndarray, reverse: bool) -> np.ndarray:
    """Masses of the loss in the cells (grid[k-1], grid[k]] (k >= 1), cell 0 holding everything <= grid[0].

    Forward (X ~ P, loss L): P(L <= l) = P(X <= x(l)).  Reverse (X ~ Q, loss -L):
    P(-L <= l) = Q(X >= x(-l)).  x(l) = -inf where e^l <= 1 - q.
    """
    from scipy.special import ndtr

    def x_of(loss: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            inner = np.expm1(loss) + q
            return np.where(inner > 0, sigma**2 * np.log(np.maximum(inner, 1e-300) / q) + 0.5, -np.inf)

    if reverse:
        cdf = ndtr(-x_of(-grid) / sigma)  # Q(X >= x(-l)) = P(-L <= l)
    else:
        cdf = (1 - q) * ndtr(x_of(grid) / sigma) + q * ndtr((x_of(grid) - 1.0) / sigma)
    return np.diff(cdf, prepend=0.0)


def _compose(masses: np.ndarray, steps: int) -> np.ndarray:
    """The T-fold convolution of a pmf on an integer grid (one FFT, power T)."""
    size = steps * (len(masses) - 1) + 1
    length = 1 << (size - 1).bit_length()
    spectrum = np.fft.rfft(masses, length) ** steps
    composed = np.fft.irfft(spectrum, length)[:size]
    return np.clip(composed, 0.0, None)


def _delta_curve(sigma: float, q: float, steps: int, h: float, reverse: bool, pessimistic: bool):
    lo, hi = _loss_quantile_range(sigma, q)
    if reverse:
        lo, hi = -hi, -lo
    k_lo, k_hi = math.floor(lo / h), math.ceil(hi / h)
    grid = np.arange(k_lo, k_hi + 1) * h
    masses = _one_step_masses(sigma, q, grid, reverse)
    above = max(0.0, 1.0 - float(masses.sum()))  # loss beyond grid[-1]
    if pessimistic:
        values = masses  # the cell (grid[k-1], grid[k]] rounded up to grid[k]; below grid[0] up to grid[0]
        infinite = 1.0 - (1.0 - above) ** steps
    else:
        values = np.append(masses[1:], 0.0)  # rounded down to grid[k-1]; mass below grid[0] dropped (loss -inf)
        values[-1] += above  # beyond the grid: at least grid[-1]
        infinite = 0.0
    composed = _compose(values, steps)
    losses = (k_lo * steps + np.arange(len(composed))) * h
    return losses, composed, infinite


def _epsilon_from_curve(losses: np.ndarray, pmf: np.ndarray, infinite: float, delta: float) -> float:
    """The smallest epsilon >= 0 with sum_l pmf(l) (1 - e^(epsilon - l))_+ + infinite <= delta."""
    keep = pmf > 0
    losses, pmf = losses[keep], pmf[keep]

    def delta_at(epsilon: float) -> float:
        above = losses > epsilon
        return float(np.sum(pmf[above] * -np.expm1(epsilon - losses[above]))) + infinite

    if infinite >= delta:
        return math.inf
    if delta_at(0.0) <= delta:
        return 0.0
    low, high = 0.0, float(losses.max())
    for _ in range(60):  # bisection on a decreasing function
        middle = (low + high) / 2
        low, high = (low, middle) if delta_at(middle) <= delta else (middle, high)
    return high


def exact_epsilon(sigma: float, q: float, steps: int, delta: float, interval: float = 1e-3) -> EpsilonBracket:
    """Bracket the exact epsilon(delta) of T Poisson-subsampled Gaussian steps (add/remove, both orders).

    Pessimistic and optimistic discretisations of the privacy loss distribution on a grid of width
    ``interval`` (module docstring); each order's curve is composed separately and the larger
    epsilon taken (add/remove: either dataset may be the larger one).  Cost: one FFT of about
    T (hi - lo) / interval points, hi - lo ~ 17 / sigma^2 for small sigma.
    """
    sigma = check_positive_finite("sigma", sigma)
    q = check_unit_interval("q", q, low_open=True, high_open=False)
    steps = check_positive_int("steps", steps)
    delta = check_unit_interval("delta", delta, low_open=True)
    interval = check_positive_finite("interval", interval)
    bounds = []
    for pessimistic in (False, True):
        bounds.append(
            max(
                _epsilon_from_curve(*_delta_curve(sigma, q, steps, interval, reverse, pessimistic), delta)
                for reverse in (False, True)
            )
        )
    return EpsilonBracket(low=bounds[0], high=bounds[1], interval=interval)


@dataclass(frozen=True)
class AccountantCheck:
    """An accountant's epsilon against the exact bracket: ``under-reports`` when it is below ``exact.low``."""

    sigma: float
    q: float
    steps: int
    delta: float
    claimed: float
    exact: EpsilonBracket
    verdict: str
    reason: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def check_accountant(accountant: Accountant | float, sigma: float, q: float, steps: int, delta: float, interval: float = 1e-3) -> AccountantCheck:
    """Is ``accountant(sigma, q, steps, delta)`` (or the number given) at least the exact epsilon?

    ``under-reports`` when claimed < exact.low (a false claim, whatever the discretisation's error);
    ``sound`` otherwise, with the slack claimed - exact.high in the reason.
    """
    claimed = float(accountant(sigma, q, steps, delta) if callable(accountant) else accountant)
    exact = exact_epsilon(sigma, q, steps, delta, interval)
    if claimed < exact.low:
        verdict, reason = "under-reports", f"claims {claimed:.4g} < exact epsilon >= {exact.low:.4g}"
    else:
        verdict, reason = "sound", f"claims {claimed:.4g} >= exact epsilon in [{exact.low:.4g}, {exact.high:.4g}]"
    return AccountantCheck(sigma, q, steps, delta, claimed, exact, verdict, reason)
