"""Thresholded histogram: release only the keys present, with noise, and only above a threshold.

Korolova, Kenthapadi, Mishra & Ntoulas, "Releasing search queries and clicks privately", WWW 2009;
Wilson, Zhang, Lam, Desfontaines, Simmons-Marengo & Gipson, "Differentially private SQL with bounded
user contribution", PoPETs 2020 (the "partition selection" step).  Data: a sequence of keys from the
universe {0..U-1}; c_j is the count of key j.  For every key with c_j >= 1 draw c_j + Z_j with
Z_j ~ discrete Laplace, P[Z = z] = (1 - a)/(1 + a) a^|z|, a = e^-eps, and release it if it is at
least tau; every other key (absent, or suppressed) reports the sentinel -1.

Privacy under add/remove (one record changes one count by 1):
* a key present in both datasets: released values have pmf ratio a^(|y - c| - |y - c'|) <= e^eps,
  suppression is post-processing of c + Z, so the loss is at most eps;
* a key absent from D (c = 0) and present once in D' (c' = 1): D never releases it, D' releases it
  with probability delta = P[Z >= tau - 1] = a^(tau - 1)/(1 + a), with infinite loss.
The outputs whose loss exceeds eps therefore have mass at most delta: probabilistic (eps, delta)-DP
(Meiser 2018, Def. 2), hence also approximate (eps, delta)-DP, and no pure DP at all.  The sentinel's
loss ln(1/(1 - delta)) must stay below eps, which holds whenever delta <= 1 - e^-eps (checked).

The noise comes from the exact sampler of :mod:`dpaudit.mechanisms._discrete_sampling`, so the output
pmf below is exactly the sampler's; epsilon is read as a rational (denominator <= 10^6).  ``one_run``
draws the same law from a ``random.Random`` (:func:`dpaudit.mechanisms.one_run.discrete_laplace`),
drawing no noise for the absent keys, whose report is the sentinel whatever the noise.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..._validation import check_positive_int
from ...claims import ProbabilisticDP
from ...errors import InvalidArgument, InvalidDataset
from ...neighbours import AddRemove
from .._discrete_sampling import discrete_laplace
from ..base import Mechanism
from ..one_run import discrete_laplace as draw_discrete_laplace
from ..registry import register
from .geometric import positive_fraction

__all__ = ["SENTINEL", "histogram_counts", "thresholded_histogram", "thresholded_histogram_delta"]

SENTINEL = -1


def histogram_counts(data: Any, universe: int) -> tuple[int, ...]:
    """Counts of the keys 0..universe-1 in ``data`` (a sequence of keys)."""
    if isinstance(data, (str, bytes)) or not isinstance(data, (Sequence, np.ndarray)):
        raise InvalidDataset(f"data={data!r} must be a sequence of keys in {{0, ..., {universe - 1}}}")
    keys = np.asarray(data, dtype=float).reshape(-1) if len(data) else np.zeros(0)
    if np.any((keys != np.round(keys)) | (keys < 0) | (keys >= universe)):
        raise InvalidDataset(f"data={data!r} must hold keys in {{0, ..., {universe - 1}}} only")
    return tuple(np.bincount(keys.astype(np.int64), minlength=universe).tolist())


def thresholded_histogram_delta(epsilon: float, tau: int) -> float:
    """delta = P[Z >= tau - 1] = e^(-eps (tau - 1)) / (1 + e^-eps) for discrete Laplace Z (tau >= 2)."""
    a = math.exp(-epsilon)
    return a ** (tau - 1) / (1 + a)


def _density(universe: int, eps, tau: int):
    import sympy

    from ..density import SymbolicDensity, symbol

    e, t = symbol("epsilon"), symbol("tau", integer=True, positive=True)
    a = sympy.exp(-e)
    ys = tuple(symbol(f"y{j}") for j in range(universe))
    cs = tuple(symbol(f"c{j}", integer=True, nonnegative=True) for j in range(universe))

    def key_pmf(y, c):
        released = (1 - a) / (1 + a) * a ** sympy.Abs(y - c)
        suppressed = sympy.Piecewise(  # P[c + Z <= tau - 1]
            (1 - a ** (t - c) / (1 + a), c <= t - 1),
            (a ** (c - t + 1) / (1 + a), True),
        )
        return sympy.Piecewise(
            (1, sympy.Eq(c, 0) & sympy.Eq(y, SENTINEL)),
            (0, sympy.Eq(c, 0)),
            (suppressed, sympy.Eq(y, SENTINEL)),
            (released, y >= t),
            (0, True),
        )

    return SymbolicDensity(
        expr=sympy.Mul(*(key_pmf(y, c) for y, c in zip(ys, cs))),
        outputs=ys,
        inputs=cs,
        epsilon=e,
        delta=a ** (t - 1) / (1 + a),
        sensitivity=1,
        norm="l1",
        discrete=True,
        output_domain=sympy.Union(sympy.FiniteSet(SENTINEL), sympy.Range(t, sympy.oo)),
        instance={e: sympy.Rational(eps.numerator, eps.denominator), t: tau},
        # the constructor's condition delta <= 1 - e^-epsilon: the sentinel's loss ln(1/(1 - delta)) <= epsilon
        assumptions=(t >= 2, a ** (t - 1) / (1 + a) <= 1 - a),
        note="inputs are the key counts c_j >= 0 (integers); output -1 means 'not released'",
    )


@register("thresholded-histogram")
def thresholded_histogram(epsilon: float = 1.0, tau: int = 5, universe: int = 3) -> Mechanism:
    """Noisy counts (discrete Laplace, exact) of the keys present, released only if >= tau."""
    eps = positive_fraction("epsilon", epsilon)
    tau, universe = check_positive_int("tau", tau), check_positive_int("universe", universe)
    if tau < 2:
        raise InvalidArgument(f"tau={tau!r} must be at least 2 (a key seen once must not be released surely)")
    delta = thresholded_histogram_delta(float(eps), tau)
    if delta > 1 - math.exp(-float(eps)):
        raise InvalidArgument(f"tau={tau!r} must make delta={delta:.3g} at most 1 - e^-epsilon; raise tau")

    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        counts = np.asarray(histogram_counts(data, universe), dtype=np.int64)
        noisy = counts + discrete_laplace(1 / eps, n * universe, rng).reshape(n, universe)
        return np.where((counts > 0) & (noisy >= tau), noisy, SENTINEL)

    scale = 1 / eps

    def one_run(data: Any, rng: random.Random) -> tuple[int, ...]:
        counts = histogram_counts(data, universe)
        released: tuple[int, ...] = ()
        while True:  # key by key: the noisy count if present and >= tau, else the sentinel
            count = counts[len(released)]
            report = SENTINEL
            if count > 0:
                noise = draw_discrete_laplace(scale.numerator, scale.denominator, rng)
                report = count + noise if count + noise >= tau else SENTINEL
            released = released + (report,)
            if len(released) == universe:
                return released

    return Mechanism(
        name="thresholded-histogram",
        claim=ProbabilisticDP(float(eps), delta),
        neighbours=AddRemove(),
        sampler=sample,
        one_run=one_run,
        family="thresholded-histogram",
        description=(
            f"keys present released with discrete Laplace noise if >= {tau}, {universe} keys, "
            f"epsilon={float(eps):g}, delta={delta:.3g}"
        ),
        query=lambda data: histogram_counts(data, universe),
        sensitivity=1.0,
        density=lambda: _density(universe, eps, tau),
        domain=tuple(range(universe)),
        pairs=(((0,) * tau, (0,) * tau + (1,)), ((0,) * tau, (0,) * (tau - 1))),
        true_epsilon=float(eps),
        source="Korolova, Kenthapadi, Mishra & Ntoulas (2009) WWW; Wilson et al. (2020) PoPETs",
    )
