"""OpenDP measurements as plain callables ``f(data, n, rng)`` for dpaudit.

Each builder constructs the measurement through ``opendp.prelude`` and reads the claim from the
measurement's own privacy map at d_in = 1:

* ``laplace_float`` -- ``make_laplace`` on floats (OpenDP samples a discrete Laplace on a 2^k grid
  and rounds the exact sum q + noise to the nearest double; Canonne, Kamath & Steinke 2020);
* ``discrete_laplace`` -- ``make_laplace`` on integers (the two-sided geometric mechanism);
* ``gaussian_int`` / ``gaussian_float`` -- ``make_gaussian`` (a zCDP measurement; the (epsilon,
  delta) claim is the library's own conversion ``make_zCDP_to_approxDP`` at ``delta``);
* ``noisy_max`` -- ``make_noisy_max`` under ``max_divergence`` (report noisy max with exponential
  noise, equivalent to the exponential mechanism / permute-and-flip; McKenna & Sheldon 2020);
* ``randomized_response`` -- ``make_randomized_response_bool``.

Batching: a Laplace or Gaussian measurement on ``vector_domain`` adds independent noise, from the
same scalar sampler, to every coordinate; n draws of M(x) are therefore the coordinates of the vector
measurement applied to (x, ..., x), which costs one call into the library instead of n.  The claim is
read from the *scalar* measurement.  Noisy max and randomized response are called once per draw.

Seeding: OpenDP draws from the operating system's CSPRNG and offers no seed, so the ``rng`` passed by
dpaudit is not used and an audit's seed does not reproduce these draws (it still fixes dpaudit's own
choices: the search/verification split and the Poisson sample sizes).
"""

from __future__ import annotations

from importlib.metadata import version
from typing import Any

import numpy as np

from wrapped import Wrapped

__all__ = [
    "discrete_laplace",
    "gaussian_float",
    "gaussian_int",
    "laplace_float",
    "noisy_max",
    "randomized_response",
    "all_mechanisms",
]

UNSEEDED = "unseeded: OpenDP samples from the OS CSPRNG; the audit seed does not reproduce its draws"


def _dp():
    import opendp.prelude as dp

    dp.enable_features("contrib")
    return dp


def _library() -> str:
    return f"opendp {version('opendp')}"


def _vector_sampler(measurement: Any, cast: type):
    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        return np.asarray(measurement([cast(data)] * n)) if n else np.empty(0)

    return sample


def _one_run_sampler(measurement: Any, cast: Any):
    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        value = cast(data)
        return np.asarray([measurement(value) for _ in range(n)])

    return sample


def laplace_float(scale: float = 1.0) -> Wrapped:
    """``make_laplace`` on doubles: epsilon = map(1) = 1 / scale."""
    dp = _dp()
    scalar = dp.m.make_laplace(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=scale)
    vector = dp.m.make_laplace(dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l1_distance(T=float), scale=scale)
    return Wrapped(
        name="opendp make_laplace (float)",
        library=_library(),
        sampler=_vector_sampler(vector, float),
        epsilon=float(scalar.map(1.0)),
        delta=0.0,
        pair=(0.0, 1.0),
        float_output=True,
        lemma_queries=None,  # OpenDP rounds the exact sum q + k 2^j: the fl(q + n) lemma does not apply
        seeding=UNSEEDED,
        note="n draws = one call of the vector measurement on (x, ..., x)",
    )


def discrete_laplace(scale: float = 1.0) -> Wrapped:
    """``make_laplace`` on integers (discrete Laplace / two-sided geometric): epsilon = map(1)."""
    dp = _dp()
    scalar = dp.m.make_laplace(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=scale)
    vector = dp.m.make_laplace(dp.vector_domain(dp.atom_domain(T=int)), dp.l1_distance(T=int), scale=scale)
    return Wrapped(
        name="opendp make_laplace (int, discrete Laplace)",
        library=_library(),
        sampler=_vector_sampler(vector, int),
        epsilon=float(scalar.map(1)),
        delta=0.0,
        pair=(0, 1),
        float_output=False,
        lemma_queries=None,
        seeding=UNSEEDED,
        note="n draws = one call of the vector measurement on (x, ..., x)",
    )


def _gaussian(name: str, kind: type, scale: float, delta: float) -> Wrapped:
    dp = _dp()
    unit = kind(1)
    scalar = dp.m.make_gaussian(dp.atom_domain(T=kind, **({"nan": False} if kind is float else {})),
                                dp.absolute_distance(T=kind), scale=scale)
    vector = dp.m.make_gaussian(dp.vector_domain(dp.atom_domain(T=kind, **({"nan": False} if kind is float else {}))),
                                dp.l2_distance(T=kind), scale=scale)
    epsilon = float(dp.c.make_zCDP_to_approxDP(scalar).map(unit).epsilon(delta))
    return Wrapped(
        name=name,
        library=_library(),
        sampler=_vector_sampler(vector, kind),
        epsilon=epsilon,
        delta=delta,
        pair=(kind(0), unit),
        float_output=kind is float,
        lemma_queries=None,
        seeding=UNSEEDED,
        note=f"zCDP rho = {float(scalar.map(unit)):.6g} converted by make_zCDP_to_approxDP at delta = {delta:g}",
    )


def gaussian_int(scale: float = 2.0, delta: float = 1e-5) -> Wrapped:
    """``make_gaussian`` on integers (discrete Gaussian), claim (epsilon(delta), delta) from the library."""
    return _gaussian("opendp make_gaussian (int, discrete Gaussian)", int, scale, delta)


def gaussian_float(scale: float = 2.0, delta: float = 1e-5) -> Wrapped:
    """``make_gaussian`` on doubles, claim (epsilon(delta), delta) from the library's conversion."""
    return _gaussian("opendp make_gaussian (float)", float, scale, delta)


def noisy_max(scale: float = 2.0, k: int = 5) -> Wrapped:
    """``make_noisy_max`` under ``max_divergence``: argmax of scores plus exponential noise, epsilon = map(1)."""
    dp = _dp()
    measurement = dp.m.make_noisy_max(
        dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.linf_distance(T=float), dp.max_divergence(), scale=scale
    )
    winner = (1.0,) + (0.0,) * (k - 1)
    loser = (0.0,) + (1.0,) * (k - 1)
    return Wrapped(
        name=f"opendp make_noisy_max (exponential noise, {k} scores)",
        library=_library(),
        sampler=_one_run_sampler(measurement, lambda data: [float(v) for v in data]),
        epsilon=float(measurement.map(1.0)),
        delta=0.0,
        pair=(winner, loser),
        norm="linf",
        float_output=False,
        lemma_queries=None,
        seeding=UNSEEDED,
        note="one library call per draw; scores at l-infinity distance 1",
    )


def randomized_response(probability: float = 0.75) -> Wrapped:
    """``make_randomized_response_bool``: keep the bit with ``probability``, epsilon = ln(p / (1 - p))."""
    dp = _dp()
    measurement = dp.m.make_randomized_response_bool(probability)
    return Wrapped(
        name="opendp make_randomized_response_bool",
        library=_library(),
        sampler=_one_run_sampler(measurement, bool),
        epsilon=float(measurement.map(1)),
        delta=0.0,
        pair=(True, False),
        float_output=False,
        lemma_queries=None,
        seeding=UNSEEDED,
        note="one library call per draw",
    )


def all_mechanisms() -> list[Wrapped]:
    """Every OpenDP mechanism of this module with its default parameters."""
    return [laplace_float(), discrete_laplace(), gaussian_int(), gaussian_float(), noisy_max(), randomized_response()]
