"""Floating-point noise: mechanisms whose algebra is right and whose doubles are not.

Mironov (2012, CCS), "On significance of the least significant bits for differential privacy":
adding continuously distributed noise to q in double precision is not eps-DP for any eps, because
the set of doubles that q + Z can produce depends on q.  A simple certificate (ulp lattice): if
|x| >= 1 then fl(x + n) is a multiple of 2^-53 for every double n (either |n| >= 1/2 and both terms
are multiples of 2^-53, or |x + n| > 1/2 and the result's ulp is at least 2^-53).  So with f(D) = 1
every output lies on 2^-53 Z, while with f(D) = 0 the output is the noise itself and a sizeable share
of the noise doubles are finer than that (about 27 % for Laplace at eps = 1, 3 % at eps = 0.1; 2.8 %
for Box-Muller at eps = 0.5, delta = 1e-5).  The event "output not a multiple of 2^-53" has positive probability on one
side and probability 0 on the other: **true epsilon inf** for every entry here (for the Gaussian:
P > delta on one side, 0 on the other, so no (eps, delta) with that delta holds).

The declared densities are the exact Laplace and normal ones: the algebra is correct, so a symbolic
prover PROVES them.  What finds the flaw is the auditor's floating-point support (lattice) check.
All entries act on a count (records in {0, 1}, add/remove neighbours, Delta = 1) and are released
without any rounding, exactly as the cited code does.

* ``laplace-float-textbook`` -- ``q + s * (-b * log(u))``, b = 1/eps, s = +-1 from a separate uniform,
  u = 1 - U with U = ``rng.random()`` (53-bit, on 2^-53 Z in [0, 1)), so u in (0, 1] and log(u) is
  finite: the textbook inverse-CDF sampler Mironov analyses.
* ``laplace-scipy`` -- ``scipy.stats.laplace.rvs(loc=q, scale=b, random_state=rng)``.
* ``laplace-numpy`` -- ``q + rng.laplace(0, b)`` (numpy's inverse-CDF Laplace).
* ``laplace-histogram-numpy`` -- ``histogram(D) + rng.laplace(0, b, size=bins)``: the Laplace
  histogram (Dwork & Roth 2014, Sect. 3.3; the "NoisyHist1" benchmark of Ding et al. 2018 as DP-Sniper
  and StatDP code it) in doubles.  The leak is in the one count the neighbour changes, found by the
  auditor's lattice events and exact noise replay on that coordinate.
* ``geometric-inverse-cdf`` -- the two-sided geometric (discrete Laplace) noise P[z] = (1 - a)/(1 + a) a^|z|,
  a = e^-eps, by inverting its CDF at one uniform: v = (1 + a) U; z = floor(log1p(-v) / ln a) for
  v < 1, else z = -1 - floor(log1p(-(v - 1)/a) / ln a).  In exact arithmetic this is the geometric
  mechanism (the declared pmf is proved); in doubles U lives on 2^-53 Z, so |z| is at most about
  36.7/eps: the largest output reachable from q + 1 is unreachable from q, **true epsilon inf**, on
  mass about 2^-53.  Its ``one_run`` is the same code on a ``random.Random``, which ``certify``
  enumerates completely: it measures both the rounding of every cell and the truncated tail.
* ``gaussian-box-muller`` -- ``q + sigma sqrt(-2 log(1 - U1)) cos(2 pi U2)`` with the classic
  sigma = sqrt(2 ln(1.25/delta)) / eps (Dwork & Roth 2014, Thm. A.1; eps < 1); floating-point
  Gaussians are broken the same way (Jin, McMurtry, Rubinstein & Ohrimenko 2022, S&P, "Are we there
  yet? Timing and floating-point attacks on differential privacy systems").
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from ...._validation import check_positive_finite, check_unit_interval
from ....claims import ApproxDP, PureDP
from ....errors import InvalidArgument
from ....neighbours import AddRemove
from ...base import Mechanism, Sampler
from ...float_noise import FloatNoise, numpy_laplace_noise, textbook_laplace_noise
from ...registry import register
from ..gaussian import classic_sigma, gaussian_density
from ..laplace import count, laplace_density, laplace_vector, laplace_vector_density

_MIRONOV = "Mironov (2012, CCS) 'On significance of the least significant bits for differential privacy'"
_PROVED_NOTE = (
    "exact {what} density: the algebra is correct and a prover proves it; the flaw is in floating point "
    "(the set of reachable doubles depends on q), found by the auditor's lattice/support check"
)
_FLAW = (
    "adds {what} noise to the query in double precision: the set of reachable doubles depends on the query "
    "value (with f(D) = 1 every output is a multiple of 2^-53, with f(D) = 0 many are not), so some "
    "outputs are impossible under one neighbour and possible under the other"
)
# f(D) in {0, 1}: the lattice event lives on f(D) = 0, so each pair starts with the side where it occurs.
_PAIRS = (((), (1,)), ((0,), (0, 1)), ((1,), ()))


def _float_laplace(
    name: str, epsilon: float, sampler: Sampler, description: str, source: str, noise: FloatNoise
) -> Mechanism:
    return Mechanism(
        name=name,
        claim=PureDP(epsilon),
        neighbours=AddRemove(),
        sampler=sampler,
        family="laplace",
        description=description,
        query=count,
        sensitivity=1.0,
        density=lambda: laplace_density(epsilon, 1.0, note=_PROVED_NOTE.format(what="Laplace")),
        domain=(0, 1),
        pairs=_PAIRS,
        flaw=_FLAW.format(what="Laplace"),
        true_epsilon=math.inf,
        source=source,
        noise=noise,
    )


@register("laplace-float-textbook")
def laplace_float_textbook(epsilon: float = 1.0) -> Mechanism:
    """The textbook float Laplace sampler q + s (-b ln u): true epsilon inf (Mironov 2012)."""
    epsilon = check_positive_finite("epsilon", epsilon)
    b = 1.0 / epsilon

    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        q = count(data)
        u = 1.0 - rng.random(n)
        s = np.where(rng.random(n) < 0.5, -1.0, 1.0)
        return q + s * (-b * np.log(u))

    return _float_laplace(
        "laplace-float-textbook",
        epsilon,
        sample,
        f"textbook floating-point Laplace q + s(-b ln u) on a count, eps={epsilon:g}",
        f"{_MIRONOV}, Sect. 3 (the textbook inverse-CDF sampler)",
        textbook_laplace_noise(b),
    )


_BELOW_ONE = 1.0 - 2.0**-53  # the largest double below 1: keeps log1p(-w) finite where (v - 1)/a rounds to 1


def _inverse_cdf_geometric(u: Any, a: float, log_a: float) -> Any:
    """z = F^-1(u) of the two-sided geometric, in floating point (scalars or arrays alike)."""
    v = u * (1.0 + a)
    if isinstance(v, np.ndarray):
        with np.errstate(invalid="ignore", divide="ignore"):  # each branch is computed on every element
            upper = np.floor(np.log1p(-v) / log_a)
            lower = -1.0 - np.floor(np.log1p(-np.minimum((v - 1.0) / a, _BELOW_ONE)) / log_a)
        return np.where(v < 1.0, upper, lower)
    if v < 1.0:
        return float(math.floor(math.log1p(-v) / log_a))
    return -1.0 - math.floor(math.log1p(-min((v - 1.0) / a, _BELOW_ONE)) / log_a)


@register("geometric-inverse-cdf")
def geometric_inverse_cdf(epsilon: float = 1.0) -> Mechanism:
    """Two-sided geometric noise by a float inverse CDF at one uniform: exact law proved, true epsilon inf."""
    epsilon = check_positive_finite("epsilon", epsilon)
    a = math.exp(-epsilon)
    log_a = math.log(a)

    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        return count(data) + _inverse_cdf_geometric(rng.random(n), a, log_a)

    def one_run(data: Any, rng: Any) -> float:
        return count(data) + _inverse_cdf_geometric(rng.random(), a, log_a)

    def density():
        from fractions import Fraction

        import sympy

        from ..geometric import geometric_density

        return geometric_density(sympy.nsimplify(epsilon), Fraction(1),
                                 note="exact-arithmetic law of the inverse CDF; in floating point the code "
                                      "truncates the tails (certify measures it)")

    return Mechanism(
        name="geometric-inverse-cdf",
        claim=PureDP(epsilon),
        neighbours=AddRemove(),
        sampler=sample,
        one_run=one_run,
        family="geometric",
        description=f"two-sided geometric noise by a float inverse CDF at one uniform on a count, eps={epsilon:g}",
        query=count,
        sensitivity=1.0,
        density=density,
        domain=(0, 1),
        pairs=_PAIRS,
        flaw=("a double uniform on 2^-53 Z truncates the inverse CDF's tails at |z| ~ 36.7/eps: the extreme output "
              "reachable from q + 1 is not reachable from q (and each cell's probability is rounded)"),
        true_epsilon=math.inf,
        source=f"{_MIRONOV} (the float lattice argument, applied to a discrete inverse CDF)",
    )


@register("laplace-scipy")
def laplace_scipy(epsilon: float = 1.0) -> Mechanism:
    """scipy.stats.laplace.rvs(loc=q, scale=1/eps): true epsilon inf (float lattice)."""
    epsilon = check_positive_finite("epsilon", epsilon)
    b = 1.0 / epsilon

    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        from scipy import stats

        return np.atleast_1d(stats.laplace.rvs(loc=count(data), scale=b, size=n, random_state=rng))

    return _float_laplace(
        "laplace-scipy",
        epsilon,
        sample,
        f"scipy.stats.laplace.rvs on a count, scale 1/eps, eps={epsilon:g}",
        f"{_MIRONOV}; scipy.stats.laplace",
        numpy_laplace_noise(b),  # scipy draws numpy's laplace(0, 1), then scales: the same doubles
    )


@register("laplace-numpy")
def laplace_numpy(epsilon: float = 1.0) -> Mechanism:
    """q + numpy Generator.laplace(0, 1/eps): true epsilon inf (float lattice)."""
    epsilon = check_positive_finite("epsilon", epsilon)
    b = 1.0 / epsilon

    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        return count(data) + rng.laplace(0.0, b, size=n)

    return _float_laplace(
        "laplace-numpy",
        epsilon,
        sample,
        f"q + numpy Generator.laplace on a count, scale 1/eps, eps={epsilon:g}",
        f"{_MIRONOV}; numpy.random.Generator.laplace (audited by DP-Sniper and Delta-Siege)",
        numpy_laplace_noise(b),
    )


@register("gaussian-box-muller")
def gaussian_box_muller(epsilon: float = 0.5, delta: float = 1e-5) -> Mechanism:
    """Box-Muller Gaussian with the classic sigma: claims (eps, delta), true epsilon inf (float)."""
    epsilon = check_positive_finite("epsilon", epsilon)
    delta = check_unit_interval("delta", delta, low_open=True)
    if epsilon >= 1:
        raise InvalidArgument(f"epsilon={epsilon!r} must be < 1 for the classic calibration (Dwork & Roth Thm. A.1)")
    sigma = classic_sigma(epsilon, delta)

    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        u1, u2 = rng.random(n), rng.random(n)
        return count(data) + sigma * np.sqrt(-2.0 * np.log(1.0 - u1)) * np.cos(2.0 * np.pi * u2)

    def density():
        declared = gaussian_density(epsilon, delta, 1.0, analytic=False)
        return dataclasses.replace(declared, note=_PROVED_NOTE.format(what="normal"))

    return Mechanism(
        name="gaussian-box-muller",
        claim=ApproxDP(epsilon, delta),
        neighbours=AddRemove(),
        sampler=sample,
        family="gaussian",
        description=f"Box-Muller Gaussian on a count, classic sigma={sigma:.4g}, eps={epsilon:g}, delta={delta:g}",
        query=count,
        sensitivity=1.0,
        density=density,
        domain=(0, 1),
        pairs=_PAIRS,
        flaw=_FLAW.format(what="Box-Muller normal"),
        true_epsilon=math.inf,
        source=(
            f"Box & Muller (1958); {_MIRONOV}; Jin, McMurtry, Rubinstein & Ohrimenko (2022, S&P) "
            "'Are we there yet? Timing and floating-point attacks on differential privacy systems'"
        ),
    )


@register("laplace-histogram-numpy")
def laplace_histogram_numpy(epsilon: float = 1.0, bins: int = 4) -> Mechanism:
    """Laplace histogram with numpy's float noise per count: the product density is proved, the doubles leak."""
    exact = laplace_vector(epsilon, bins)
    scale = 1.0 / exact.claim.epsilon

    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        return exact.query(data) + rng.laplace(0.0, scale, size=(n, bins))

    return dataclasses.replace(
        exact,
        name="laplace-histogram-numpy",
        sampler=sample,
        description=f"Laplace histogram over {bins} categories with numpy float noise, epsilon={epsilon:g}",
        density=lambda: laplace_vector_density(epsilon, 1.0, bins, note=_PROVED_NOTE.format(what="Laplace")),
        pairs=(((), (0,)), ((0,), ()), *exact.pairs),
        noise=numpy_laplace_noise(scale),
        flaw=("adds Laplace noise to every count in double precision: in the count the neighbour changes (0 against 1) "
              "the set of reachable doubles depends on the count, so some outputs are impossible under one neighbour "
              "and possible under the other"),
        true_epsilon=math.inf,
        source=f"Dwork & Roth (2014), Sect. 3.3; Ding et al. (2018, CCS) NoisyHist1; {_MIRONOV}",
    )
