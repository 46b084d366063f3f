"""How a mechanism exposes its floating-point noise for the exact-support check.

Many float mechanisms compute their output as

    y = fl(q + s * noise(u)),      u = k * 2^-bits,  k in {1, ..., 2^bits}

(for vector outputs: y_i = fl(q_i + s_i * noise(u_i)), each coordinate with its own draws)
where q is the query value, u a double uniform on a grid of 2^bits points, ``noise`` a vectorised
function of u that is monotone (the inverse CDF of the noise distribution) and s an optional random
sign in {-1, +1}.  The grid depends on how the uniform is drawn:

* ``bits = 53`` for ``rng.random()``-style uniforms: numpy's ``Generator.random`` returns
  k' * 2^-53, k' in {0, ..., 2^53 - 1}, so ``1.0 - rng.random()`` is exactly k * 2^-53 with k in
  {1, ..., 2^53} (the subtraction is exact);
* ``bits = 52`` for ``rng.random() - 0.5`` styles: ``1 - 2*abs(rng.random() - 0.5)`` is exactly
  k * 2^-52, k in {0, ..., 2^52} (k = 0 gives infinite noise and never a finite output).

Because the output is a monotone function of k for each sign, whether an observed y can come from a
candidate q is decided exactly by a binary search over k (Mironov 2012, "On significance of the
least significant bits for differential privacy", CCS, Sect. 5: the set of reachable doubles
depends on q).  :mod:`dpaudit.auditor.events.leaks.float_support` performs that search.

The replay must repeat the mechanism's float operations in the same order on the same platform:
the noise must be computed exactly as the mechanism does (including the multiplication by the
scale), and the mechanism must add q last.  numpy's array ``np.log`` may use a SIMD routine that
differs in the last bit from the C library ``log`` that numpy's own samplers call (on AVX-512
builds about 0.35 % of inputs differ); then give the fast ``function`` for the search and a
bit-exact ``exact_function`` (for example ``math.log`` through ``np.frompyfunc``) for the final
equality test.  The auditor checks the replay with a self-consistency test before it trusts an
"impossible" verdict.

Examples
--------
The textbook Laplace mechanism ``q + s * (-b * np.log(1.0 - rng.random()))``::

    FloatNoise(lambda u: -b * np.log(u), bits=53, signed=True)

numpy's ``Generator.laplace(q, b)`` (``distributions.c``: ``U < 0.5 ? b*log(U+U) : -b*log(2-U-U)``)::

    libm_log = lambda x: np.frompyfunc(lambda t: math.log(t) if t > 0 else -math.inf, 1, 1)(x).astype(float)
    FloatNoise(lambda u: np.where(u < 0.5, b * np.log(u + u), -(b * np.log(2.0 - u - u))), bits=53,
               exact_function=lambda u: np.where(u < 0.5, b * libm_log(u + u), -(b * libm_log(2.0 - u - u))))
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .._validation import check_positive_int
from ..errors import InvalidArgument

__all__ = ["FloatNoise", "libm_log", "numpy_laplace_noise", "textbook_laplace_noise"]


@dataclass(frozen=True)
class FloatNoise:
    """The noise of a float mechanism y = fl(q + s * noise(u)), u = k * 2^-bits, k = 1..2^bits.

    Parameters
    ----------
    function : callable
        ``function(u) -> array``: vectorised, monotone in u (either direction), computing the noise
        with the same float operations as the mechanism.  May return +-inf at the grid ends.
    bits : int
        The uniform's grid: u = k * 2^-bits for k = 1..2^bits; 53 for ``1 - rng.random()``,
        52 for ``1 - 2*abs(rng.random() - 0.5)``.  At most 53 (so every k * 2^-bits is a double).
    signed : bool
        True if a separate fair random sign s multiplies the noise.
    description : str
        One line naming the noise, for reports.
    exact_function : callable or None
        Bit-exact (possibly slow) version of ``function`` used only to test equality at the few
        candidate indices the search returns; ``None`` when ``function`` is already bit-exact.
    """

    function: Callable[[np.ndarray], np.ndarray]
    bits: int = 53
    signed: bool = False
    description: str = ""
    exact_function: Callable[[np.ndarray], np.ndarray] | None = None

    def __post_init__(self) -> None:
        if not callable(self.function):
            raise InvalidArgument(f"function={self.function!r} must be callable as function(u) -> array")
        bits = check_positive_int("bits", self.bits)
        if bits > 53:
            raise InvalidArgument(f"bits={self.bits!r} must be at most 53 (k * 2^-bits must be a double)")
        if not isinstance(self.signed, bool):
            raise InvalidArgument(f"signed={self.signed!r} must be True or False")
        if self.exact_function is not None and not callable(self.exact_function):
            raise InvalidArgument(f"exact_function={self.exact_function!r} must be callable or None")
        if self.increasing is None:
            raise InvalidArgument(
                f"function={self.function!r} must be monotone in u: it takes the same value at both ends of the grid"
            )

    @property
    def grid_size(self) -> int:
        """The number of grid points 2^bits (the largest index k)."""
        return 1 << self.bits

    @property
    def signs(self) -> tuple[float, ...]:
        """The values the sign s can take."""
        return (1.0, -1.0) if self.signed else (1.0,)

    @property
    def increasing(self) -> bool | None:
        """True if noise(u) increases with u, False if it decreases, None if the ends are equal."""
        ends = self.noise(np.array([1, self.grid_size], dtype=np.int64))
        low, high = float(ends[0]), float(ends[1])
        if math.isnan(low) or math.isnan(high) or low == high:
            return None
        return high > low

    def uniform(self, index: np.ndarray) -> np.ndarray:
        """u = k * 2^-bits for integer indices k (exact: k <= 2^53)."""
        return np.ldexp(np.asarray(index, dtype=np.int64).astype(np.float64), -self.bits)

    def noise(self, index: np.ndarray, exact: bool = False) -> np.ndarray:
        """noise(k * 2^-bits) (bit-exact version if asked), float warnings at the grid ends silenced."""
        function = self.exact_function if exact and self.exact_function is not None else self.function
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return np.asarray(function(self.uniform(index)), dtype=np.float64)

    def output(self, query: float, index: np.ndarray, sign: float = 1.0, exact: bool = False) -> np.ndarray:
        """Replay the mechanism: fl(q + s * noise(k * 2^-bits))."""
        with np.errstate(invalid="ignore", over="ignore"):
            return np.float64(query) + sign * self.noise(index, exact)

    def sample(self, query: float, n: int, rng: np.random.Generator) -> np.ndarray:
        """n outputs fl(q + s * noise(u)) with k uniform on 1..2^bits and s a fair sign."""
        index = rng.integers(1, self.grid_size, size=n, endpoint=True, dtype=np.int64)
        sign = np.where(rng.random(n) < 0.5, -1.0, 1.0) if self.signed else 1.0
        with np.errstate(invalid="ignore", over="ignore"):
            return np.float64(query) + sign * self.noise(index, exact=True)


def libm_log(x: np.ndarray) -> np.ndarray:
    """The C library's log, element by element: what numpy's own samplers call (bit-exact replay)."""
    return np.frompyfunc(lambda t: math.log(t) if t > 0 else -math.inf, 1, 1)(x).astype(float)


def numpy_laplace_noise(b: float) -> FloatNoise:
    """numpy's ``Generator.laplace(0, b)`` (and ``RandomState.laplace``, ``scipy.stats.laplace``) as a
    function of its uniform U = k 2^-53 (distributions.c: ``U < 0.5 ? b log(2U) : -b log(2 - 2U)``)."""
    def exact(u: np.ndarray) -> np.ndarray:  # the slow libm log only where each branch applies
        u = np.asarray(u, dtype=np.float64)
        out, low = np.empty(u.shape), u < 0.5
        out[low] = b * libm_log(u[low] + u[low])
        out[~low] = -(b * libm_log(2.0 - u[~low] - u[~low]))
        return out

    return FloatNoise(
        lambda u: np.where(u < 0.5, b * np.log(u + u), -(b * np.log(2.0 - u - u))),
        bits=53,
        exact_function=exact,
        description=f"numpy Generator.laplace(0, {b:g})",
    )


def textbook_laplace_noise(b: float) -> FloatNoise:
    """The textbook inverse-CDF Laplace s * (-b ln u), u = 1 - ``rng.random()``, s a fair sign (Mironov 2012)."""
    return FloatNoise(lambda u: -b * np.log(u), bits=53, signed=True, description=f"-{b:g} log(u), random sign")
