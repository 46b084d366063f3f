"""diffprivlib mechanisms as plain callables ``f(data, n, rng)`` for dpaudit.

Each builder returns a :class:`~wrapped.Wrapped` whose sampler builds the diffprivlib mechanism with
the stated parameters and calls ``randomise`` n times:

* ``laplace`` -- ``Laplace``: value - b (ln(1-U1) cos(pi U2) + ln(1-U3) cos(pi U4)), float arithmetic;
* ``geometric`` -- ``Geometric``: the two-sided geometric mechanism on integers;
* ``gaussian_analytic`` -- ``GaussianAnalytic`` (Balle & Wang 2018): value + sigma N, N built from
  two ``normalvariate`` draws, float arithmetic;
* ``exponential`` -- ``Exponential``: the exponential mechanism over k candidates whose utilities are
  the input (sensitivity 1, l-infinity neighbours);
* ``snapping`` -- ``Snapping`` (Mironov 2012): clamp, add Laplace, round to a power-of-two grid, clamp.

Claims are the parameters passed (diffprivlib's mechanisms promise epsilon-DP, or (epsilon, delta)
for the Gaussian, for values at distance ``sensitivity``).  Laplace and the Gaussian release
fl(value + noise) in double arithmetic, so the ulp-lattice lemma applies to them (``lemma_queries``).

Seeding: by default diffprivlib draws from ``secrets.SystemRandom`` (no seed).  Passing an integer
``random_state`` would switch it to a numpy ``RandomState`` and, for the Gaussians, to another code
path (``standard_normal`` instead of ``normalvariate``).  The wrappers instead pass a
:class:`~wrapped.SeededSystemRandom` seeded from the audit's ``rng``: the default, secure code path
runs unchanged, and the audit's seed reproduces its draws.
"""

from __future__ import annotations

from importlib.metadata import version
from typing import Any

import numpy as np

from wrapped import Wrapped, seeded_source

__all__ = ["all_mechanisms", "exponential", "gaussian_analytic", "geometric", "laplace", "snapping"]

SEEDED = "seeded: a SystemRandom subclass fed by a random.Random seeded from the audit's rng (default code path)"


def _library() -> str:
    return f"diffprivlib {version('diffprivlib')}"


def _value_sampler(factory, cast):
    """n calls of ``factory(random_state).randomise(cast(data))``, one mechanism per batch."""

    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        mechanism = factory(seeded_source(rng))
        value = cast(data)
        return np.asarray([mechanism.randomise(value) for _ in range(n)])

    return sample


def laplace(epsilon: float = 1.0, sensitivity: float = 1.0) -> Wrapped:
    """``diffprivlib.mechanisms.Laplace`` on doubles at distance ``sensitivity``."""
    from diffprivlib.mechanisms import Laplace

    return Wrapped(
        name="diffprivlib Laplace",
        library=_library(),
        sampler=_value_sampler(lambda rs: Laplace(epsilon=epsilon, sensitivity=sensitivity, random_state=rs), float),
        epsilon=epsilon,
        delta=0.0,
        pair=(0.0, float(sensitivity)),
        float_output=True,
        lemma_queries=(0.0, float(sensitivity)),
        seeding=SEEDED,
    )


def geometric(epsilon: float = 1.0, sensitivity: int = 1) -> Wrapped:
    """``diffprivlib.mechanisms.Geometric`` on integers at distance ``sensitivity``."""
    from diffprivlib.mechanisms import Geometric

    return Wrapped(
        name="diffprivlib Geometric",
        library=_library(),
        sampler=_value_sampler(lambda rs: Geometric(epsilon=epsilon, sensitivity=sensitivity, random_state=rs), int),
        epsilon=epsilon,
        delta=0.0,
        pair=(0, int(sensitivity)),
        float_output=False,
        lemma_queries=None,
        seeding=SEEDED,
    )


def gaussian_analytic(epsilon: float = 1.0, delta: float = 1e-5, sensitivity: float = 1.0) -> Wrapped:
    """``diffprivlib.mechanisms.GaussianAnalytic`` on doubles at distance ``sensitivity``."""
    from diffprivlib.mechanisms import GaussianAnalytic

    return Wrapped(
        name="diffprivlib GaussianAnalytic",
        library=_library(),
        sampler=_value_sampler(
            lambda rs: GaussianAnalytic(epsilon=epsilon, delta=delta, sensitivity=sensitivity, random_state=rs), float
        ),
        epsilon=epsilon,
        delta=delta,
        pair=(0.0, float(sensitivity)),
        float_output=True,
        lemma_queries=(0.0, float(sensitivity)),
        seeding=SEEDED,
    )


def exponential(epsilon: float = 1.0, k: int = 5) -> Wrapped:
    """``diffprivlib.mechanisms.Exponential`` over k candidates; the input is the utility vector."""
    from diffprivlib.mechanisms import Exponential

    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        mechanism = Exponential(epsilon=epsilon, sensitivity=1.0, utility=[float(u) for u in data],
                                random_state=seeded_source(rng))
        return np.asarray([mechanism.randomise() for _ in range(n)], dtype=np.int64)

    return Wrapped(
        name=f"diffprivlib Exponential ({k} candidates)",
        library=_library(),
        sampler=sample,
        epsilon=epsilon,
        delta=0.0,
        pair=((1.0,) + (0.0,) * (k - 1), (0.0,) + (1.0,) * (k - 1)),
        norm="linf",
        float_output=False,
        lemma_queries=None,
        seeding=SEEDED,
        note="utilities at l-infinity distance 1 (sensitivity 1)",
    )


def snapping(epsilon: float = 1.0, sensitivity: float = 1.0, bound: float = 10.0) -> Wrapped:
    """``diffprivlib.mechanisms.Snapping`` on doubles in [-bound, bound]."""
    from diffprivlib.mechanisms import Snapping

    return Wrapped(
        name="diffprivlib Snapping",
        library=_library(),
        sampler=_value_sampler(
            lambda rs: Snapping(epsilon=epsilon, sensitivity=sensitivity, lower=-bound, upper=bound, random_state=rs),
            float,
        ),
        epsilon=epsilon,
        delta=0.0,
        pair=(0.0, float(sensitivity)),
        float_output=True,
        lemma_queries=None,  # the output is rounded to a power-of-two grid, not fl(q + noise)
        seeding=SEEDED,
        note=f"inputs and outputs clamped to [{-bound:g}, {bound:g}]",
    )


def all_mechanisms() -> list[Wrapped]:
    """Every diffprivlib mechanism of this module with its default parameters."""
    return [laplace(), geometric(), gaussian_analytic(), exponential(), snapping()]
