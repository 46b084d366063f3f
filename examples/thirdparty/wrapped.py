"""A third-party mechanism seen by dpaudit: a plain vectorised callable and the claim its library makes.

dpaudit audits any function ``f(data, n, rng)`` returning n outputs of one mechanism on ``data``; the
claim comes separately.  :class:`Wrapped` carries both, plus what the audit needs to know about the
library: the neighbouring inputs to compare, whether outputs are floats computed as fl(q + noise)
(then the ulp-lattice lemma of :mod:`dpaudit.auditor.lattice` applies to them), and whether the
library's sampler can be seeded from the audit's ``rng``.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["SeededSystemRandom", "Wrapped", "seeded_source"]


@dataclass(frozen=True)
class Wrapped:
    """One library mechanism, ready for ``dpaudit.audit(sampler, epsilon=..., delta=..., pair=pair)``.

    Attributes
    ----------
    name : str
        The library call, e.g. ``"opendp make_laplace (float)"``.
    library : str
        Distribution name and installed version.
    sampler : callable
        ``sampler(data, n, rng) -> array`` of n outputs on the first axis.
    epsilon, delta : float
        The claim, read from the library's own privacy map (or its documented parameters).
    pair : (a, b)
        Neighbouring inputs at distance 1 under the mechanism's input metric.
    float_output : bool
        Outputs are doubles: the black-box lattice check is run on them.
    lemma_queries : (q_a, q_b) or None
        Set only when the output is literally fl(q + noise) in double arithmetic, so that the
        ulp-lattice lemma proves events empty; None for libraries that round an exact sum.
    seeding : str
        How (or whether) the audit's ``rng`` reaches the library's sampler.
    note : str
        What the wrapper does beyond calling the library.
    norm : str
        The norm of the query distance ``|a - b|`` the claim is stated for (``"l1"`` or ``"linf"``).
    """

    name: str
    library: str
    sampler: Callable[[Any, int, np.random.Generator], np.ndarray]
    epsilon: float
    delta: float
    pair: tuple[Any, Any]
    float_output: bool
    lemma_queries: tuple[float, float] | None
    seeding: str
    note: str = ""
    norm: str = "l1"

    def mechanism(self):
        """The plain callable as a :class:`dpaudit.Mechanism` with this claim and |q - q'|_norm <= 1 neighbours."""
        import dpaudit

        claim = dpaudit.ApproxDP(self.epsilon, self.delta) if self.delta else dpaudit.PureDP(self.epsilon)
        return dpaudit.Mechanism.from_callable(
            self.sampler, claim=claim, neighbours=dpaudit.QueryDistance(1.0, self.norm), name=self.name, vectorised=True
        )

    @property
    def seeded(self) -> bool:
        """True when the audit's seed reproduces the library's draws."""
        return self.seeding.startswith("seeded")


class SeededSystemRandom(secrets.SystemRandom):
    """``secrets.SystemRandom`` whose entropy comes from a seeded ``random.Random``.

    Libraries that insist on a ``SystemRandom`` (diffprivlib's default, secure path) run their own
    code unchanged: ``random()`` still returns a 53-bit multiple of 2^-53 and ``getrandbits(k)`` k
    uniform bits, as ``SystemRandom`` does, but reproducibly.  Every other method of
    ``random.Random`` (``normalvariate``, ``randrange``...) is built on these two.
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


def seeded_source(rng: np.random.Generator) -> SeededSystemRandom:
    """A :class:`SeededSystemRandom` seeded by 63 bits drawn from the audit's ``rng``."""
    return SeededSystemRandom(int(rng.integers(0, 2**63 - 1)))
