"""A diffprivlib mechanism audited as it is: ``dpaudit.audit(Laplace(epsilon=1, sensitivity=1))``.

**Claim.**  ``PureDP(mechanism.epsilon)``, or ``ApproxDP(epsilon, delta)`` when ``mechanism.delta``
is positive (Gaussian, GaussianAnalytic, GaussianDiscrete, LaplaceBoundedNoise, Uniform...).

**Inputs, neighbours and the default pair**, by what ``randomise`` takes:

* a number (Laplace and its truncated / folded / bounded variants, Gaussian, GaussianAnalytic,
  GaussianDiscrete, Geometric and variants, Staircase, Snapping, Uniform): the query value;
  neighbours ``QueryDistance(sensitivity)``; default pair (0, sensitivity) -- both inside
  [lower, upper] for the bounded ones, else (lower, lower + sensitivity) -- integers for the
  integer mechanisms (Geometric, GaussianDiscrete).  The input is the value the noise is added to,
  so the float checks (ulp lattice; Mironov 2012) see it: a release fl(value + noise) is certified
  leaky.
* a label (Binary): ``Local()`` over {value0, value1}; default pair (value0, value1); outputs are the
  labels.
* nothing (Exponential, PermuteAndFlip: the utilities are fixed at construction): the input is the
  utility vector, neighbours ``QueryDistance(sensitivity, "linf")``; default pair (u, u') with u the
  mechanism's utilities and u' the candidate k of lowest utility lowered by the sensitivity and
  every other raised by it (monotonic: only the others lowered) -- the likelihood ratio of output k
  then approaches e^epsilon as its probability shrinks (McSherry & Talwar 2007).  Outputs are
  candidate indices, or the ``candidates`` when given.

**Randomness.**  Each chunk of draws rebuilds the mechanism from its own parameters with a random
source seeded from the audit's generator, of the kind the object already uses, so the same code path
runs and the seed reproduces the draws: a ``secrets.SystemRandom`` (diffprivlib's default, secure
path) is replaced by :class:`SeededSystemRandom`, a ``RandomState`` by a ``RandomState``.  (Passing
an integer ``random_state`` would switch diffprivlib's Gaussian and Snapping samplers to other code.)
"""

from __future__ import annotations

import inspect
import math
import random
import secrets
from typing import Any

import numpy as np

from ..claims import ApproxDP, Claim, PureDP
from ..errors import InvalidArgument, InvalidDataset
from ..mechanisms.base import Mechanism
from ..neighbours import Local, NeighbourRelation, QueryDistance

__all__ = ["DiffprivlibSampler", "SeededSystemRandom", "from_mechanism"]

_INTEGER = ("Geometric", "GeometricTruncated", "GeometricFolded", "GaussianDiscrete")
_UTILITY = ("Exponential", "PermuteAndFlip")
_NUMERIC = (
    "Laplace", "LaplaceTruncated", "LaplaceFolded", "LaplaceBoundedDomain", "LaplaceBoundedNoise",
    "Gaussian", "GaussianAnalytic", "GaussianDiscrete", "Geometric", "GeometricTruncated", "GeometricFolded",
    "Staircase", "Snapping", "Uniform",
)


class SeededSystemRandom(secrets.SystemRandom):
    """``secrets.SystemRandom`` whose entropy comes from a seeded ``random.Random``.

    diffprivlib's default, secure code path asks ``isinstance(rng, SystemRandom)`` and then draws
    with ``random()``, ``getrandbits(k)`` and ``normalvariate`` (built on ``random()``); this class
    keeps that path and makes it reproducible: ``random()`` is a 53-bit multiple of 2^-53 and
    ``getrandbits(k)`` k uniform bits, as ``SystemRandom`` gives.
    """

    def __init__(self, seed: int) -> None:
        super().__init__()
        self._source = random.Random(seed)

    def random(self) -> float:
        return self._source.random()

    def getrandbits(self, k: int) -> int:
        return self._source.getrandbits(k)

    def randbytes(self, n: int) -> bytes:
        return self._source.randbytes(n)

    def __reduce__(self):  # pragma: no cover - SystemRandom refuses pickling; a seeded one need not
        raise TypeError("SeededSystemRandom is built per chunk and never shipped")


def _kind(mechanism: Any) -> str:
    names = [cls.__name__ for cls in type(mechanism).__mro__ if cls.__module__.startswith("diffprivlib.")]
    for name in names:
        if name == "Binary":
            return "label"
        if name in _UTILITY:
            return "utility"
        if name in _NUMERIC:
            return "integer" if name in _INTEGER else "number"
    from diffprivlib.mechanisms import DPMechanism

    if not isinstance(mechanism, DPMechanism):
        raise InvalidArgument(
            f"the diffprivlib object is a {type(mechanism).__name__}, not a mechanism (diffprivlib.mechanisms): "
            "dpaudit audits mechanism objects such as Laplace(epsilon=1, sensitivity=1)"
        )
    raise InvalidArgument(
        f"diffprivlib {type(mechanism).__name__} is not supported by the adapter (numeric, Binary and Exponential "
        "mechanisms are): wrap it as a plain function f(data, rng) with epsilon= and pair="
    )


def _parameters(mechanism: Any) -> dict[str, Any]:
    """The constructor's keyword arguments, read back from the object (random_state left out)."""
    names = [p for p in inspect.signature(type(mechanism).__init__).parameters if p not in ("self", "random_state")]
    return {name: getattr(mechanism, name) for name in names}


def _to_int(value: Any) -> int:
    if float(value) != int(value):
        raise InvalidDataset(f"{value!r} must be an integer: this diffprivlib mechanism randomises integers")
    return int(value)


class DiffprivlibSampler:
    """n draws of one diffprivlib mechanism on one input, from a source seeded by the audit's ``rng``.

    Holds the class and its parameters (not the object), so it pickles for process pools.
    """

    batching = "one diffprivlib randomise() call per draw (the library has no vectorised form)"

    def __init__(self, mechanism: Any) -> None:
        self.cls = type(mechanism)
        self.parameters = _parameters(mechanism)
        self.kind = _kind(mechanism)
        self.secure = isinstance(getattr(mechanism, "_rng", None), secrets.SystemRandom)

    def _source(self, rng: np.random.Generator) -> Any:
        seed = int(rng.integers(0, 2**63 - 1))
        if self.secure:
            return SeededSystemRandom(seed)
        return np.random.RandomState(np.random.MT19937(seed))

    def build(self, rng: np.random.Generator, **changes: Any) -> Any:
        """The mechanism with its own parameters (``changes`` applied), drawing from a seeded source."""
        return self.cls(**{**self.parameters, **changes}, random_state=self._source(rng))

    def __call__(self, data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        if self.kind == "utility":
            mechanism = self.build(rng, utility=[float(u) for u in np.asarray(data, dtype=float).tolist()])
            return np.asarray([mechanism.randomise() for _ in range(n)])
        mechanism = self.build(rng)
        if self.kind == "integer":
            value: Any = _to_int(data)
        elif self.kind == "number":
            value = float(data)
        else:
            value = data
        return np.asarray([mechanism.randomise(value) for _ in range(n)])


def _claim(mechanism: Any, epsilon: float | None, delta: float | None) -> Claim:
    eps = float(mechanism.epsilon) if epsilon is None else epsilon
    dlt = float(getattr(mechanism, "delta", 0.0) or 0.0) if delta is None else delta
    return ApproxDP(eps, dlt) if dlt else PureDP(eps)


def _numeric_pair(mechanism: Any, sensitivity: float) -> tuple[float, float]:
    """(0, sensitivity), or (lower, lower + sensitivity) when 0 is not inside [lower, upper - sensitivity]."""
    lower = getattr(mechanism, "lower", -math.inf)
    upper = getattr(mechanism, "upper", math.inf)
    base = 0.0 if lower <= 0 <= upper - sensitivity else float(lower)
    # Floats even for the integer mechanisms (the sampler casts them back): the pair search's own
    # candidates (q, q +- sensitivity) are floats, and one pair should not be screened twice.
    return base, float(min(base + sensitivity, upper))


def _utility_pair(mechanism: Any, sensitivity: float) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """(u, u'): candidate k of lowest utility down by the sensitivity, the others up (monotonic: others down)."""
    u = np.asarray(mechanism.utility, dtype=float)
    k = int(np.argmin(u))
    if getattr(mechanism, "monotonic", False):
        moved = u - sensitivity
        moved[k] = u[k]
    else:
        moved = u + sensitivity
        moved[k] = u[k] - sensitivity
    return tuple(u.tolist()), tuple(moved.tolist())


def from_mechanism(mechanism: Any, *, epsilon: float | None = None, delta: float | None = None) -> Mechanism:
    """A diffprivlib mechanism object as a :class:`Mechanism` with the claim it carries."""
    sampler = DiffprivlibSampler(mechanism)
    relation: NeighbourRelation
    if sampler.kind == "label":
        relation, pair = Local(), (mechanism.value0, mechanism.value1)
        domain: Any = pair
    elif sampler.kind == "utility":
        sensitivity = float(mechanism.sensitivity)
        relation, pair = QueryDistance(sensitivity, "linf"), _utility_pair(mechanism, sensitivity)
        domain = pair[0]
    else:
        sensitivity = float(mechanism.sensitivity)
        relation = QueryDistance(sensitivity)
        pair = _numeric_pair(mechanism, sensitivity)
        domain = pair[0]
    name = type(mechanism).__name__
    return Mechanism(
        name=f"diffprivlib-{name.lower()}",
        claim=_claim(mechanism, epsilon, delta),
        neighbours=relation,
        sampler=sampler,
        family="diffprivlib",
        description=f"diffprivlib {name}({', '.join(f'{k}={v!r}' for k, v in sampler.parameters.items())})",
        domain=domain,
        pairs=(pair,),
        source=f"diffprivlib {_version()}",
        randomness="python-random" if sampler.secure else "random-state",
    )


def _version() -> str:
    from importlib.metadata import version

    return version("diffprivlib")
