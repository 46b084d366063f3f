"""Meiser's mechanism K: probabilistic DP is not closed under post-processing.

Meiser, "Approximate and probabilistic differential privacy definitions", IACR ePrint 2018/277.
K takes one bit x and outputs y in {0, 1, 2, 3}:

    K(0): P[0] = delta, P[1] = (1 - delta) e^eps/(1 + e^eps), P[2] = (1 - delta)/(1 + e^eps), P[3] = 0
    K(1): the mirror image (y -> 3 - y).

Privacy (``meiser-k``): for the ordered pair (0, 1) the loss is +inf at y = 0 (mass delta under K(0)),
+-eps at y = 1, 2 and never positive at y = 3, so the outputs whose loss exceeds eps have mass exactly
delta: probabilistic (eps, delta)-DP (Meiser 2018, Def. 2), tight; by symmetry the same for (1, 0).

Post-processing (``meiser-k-merged``): T merges outputs 0 and 1 (T(y) = 0 for y <= 1, y - 1 otherwise).
Under K(0) the merged output has mass delta + (1 - delta) e^eps/(1 + e^eps) against (1 - delta)/(1 + e^eps)
under K(1); its loss ln(e^eps + delta (1 + e^eps)/(1 - delta)) exceeds eps, so the bad set now carries
mass P(merged) > delta and T o K is *not* probabilistically (eps, delta)-DP (the witness holds for all
eps > 0, delta in (0, 1): P(merged | K(0)) - e^eps P(merged | K(1)) = delta > 0).  It is still
approximately (eps, delta)-DP: that notion is closed under post-processing.  The smallest eps' with
T o K probabilistically (eps', delta)-DP is that loss, ln(e^eps + delta (1 + e^eps)/(1 - delta)),
recorded as ``true_epsilon`` (1.0137 at eps = 1, delta = 1/100).

The sampler is exact: Bernoulli(delta) for rational delta and an e^eps-weighted exact binary choice;
``one_run`` draws the same law from a ``random.Random`` (:mod:`dpaudit.mechanisms.one_run`).
"""

from __future__ import annotations

import math
import random
from fractions import Fraction
from typing import Any

import numpy as np

from ...claims import ProbabilisticDP
from ...errors import InvalidArgument
from ...neighbours import Local
from .._discrete_sampling import as_fraction, bernoulli_rational, exponential_choice
from ..base import Mechanism
from ..one_run import bernoulli
from ..one_run import exponential_choice as choose_one
from ..registry import register
from .geometric import positive_fraction
from .randomized_response import _value_in

__all__ = ["meiser_k", "meiser_k_merged", "merge_zero_and_one", "merged_true_epsilon"]

_SOURCE = "Meiser (2018), Approximate and probabilistic differential privacy definitions, IACR ePrint 2018/277"


def merge_zero_and_one(y: Any) -> np.ndarray:
    """The post-processing T: outputs 0 and 1 become 0, outputs 2 and 3 become 1 and 2."""
    y = np.asarray(y)
    return np.where(y <= 1, 0, y - 1).astype(np.int64)


def merged_true_epsilon(epsilon: float, delta: float) -> float:
    """ln(e^eps + delta (1 + e^eps)/(1 - delta)): the privacy loss of T o K at the merged output."""
    return math.log(math.exp(epsilon) + delta * (1 + math.exp(epsilon)) / (1 - delta))


def _parameters(epsilon: Any, delta: Any) -> tuple[Fraction, Fraction]:
    eps = positive_fraction("epsilon", epsilon)
    dlt = as_fraction("delta", delta)
    if not 0 < dlt < 1:
        raise InvalidArgument(f"delta={delta!r} must lie in (0, 1)")
    return eps, dlt


def _k_sampler(eps: Fraction, dlt: Fraction):
    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        x = _value_in("data", data, 2)
        extreme = bernoulli_rational(dlt, n, rng)
        keep = exponential_choice([eps, Fraction(0)], n, rng) == 0  # P = e^eps / (1 + e^eps)
        return np.where(extreme, 3 * x, np.where(keep, 1 + x, 2 - x)).astype(np.int64)

    return sample


def _k_one_run(eps: Fraction, dlt: Fraction):
    def one_run(data: Any, rng: random.Random) -> int:
        x = _value_in("data", data, 2)
        extreme = bernoulli(dlt.numerator, dlt.denominator, rng)
        if extreme:
            return 3 * x
        choice = choose_one((eps.numerator, 0), eps.denominator, (), rng)  # 0 w.p. e^eps / (1 + e^eps)
        return 1 + x if choice == 0 else 2 - x

    return one_run


def _k_pmf():
    """P[K(q) = y] as a sympy Piecewise in y, q (q in {0, 1}) with symbolic epsilon, delta."""
    import sympy

    from ..density import symbol

    y, q, e, d = symbol("y"), symbol("q"), symbol("epsilon"), symbol("delta")
    return sympy.Piecewise(
        (d, sympy.Eq(y, 3 * q)),
        ((1 - d) * sympy.exp(e) / (1 + sympy.exp(e)), sympy.Eq(y, 1 + q)),
        ((1 - d) / (1 + sympy.exp(e)), sympy.Eq(y, 2 - q)),
        (0, True),
    )


def _density(expr, outputs: int, eps: Fraction, dlt: Fraction, note: str):
    import sympy

    from ..density import SymbolicDensity, symbol

    e, d = symbol("epsilon"), symbol("delta")
    return SymbolicDensity(
        expr=expr,
        outputs=(symbol("y"),),
        inputs=(symbol("q"),),
        epsilon=e,
        delta=d,
        discrete=True,
        output_domain=sympy.FiniteSet(*range(outputs)),
        input_domain=((0,), (1,)),
        instance={e: sympy.Rational(eps.numerator, eps.denominator), d: sympy.Rational(dlt.numerator, dlt.denominator)},
        assumptions=(d < 1,),
        note=note,
    )


@register("meiser-k")
def meiser_k(epsilon: float = 1.0, delta: float = 0.01) -> Mechanism:
    """Meiser's K: probabilistically (eps, delta)-DP on one bit, outputs 0..3."""
    eps, dlt = _parameters(epsilon, delta)

    def density():
        return _density(_k_pmf(), 4, eps, dlt, "exact sampler")

    return Mechanism(
        name="meiser-k",
        claim=ProbabilisticDP(float(eps), float(dlt)),
        neighbours=Local(),
        sampler=_k_sampler(eps, dlt),
        one_run=_k_one_run(eps, dlt),
        family="meiser",
        description=f"Meiser's mechanism K on one bit, outputs 0..3, epsilon={float(eps):g}, delta={float(dlt):g}",
        density=density,
        domain=(0, 1),
        pairs=((0, 1), (1, 0)),
        true_epsilon=float(eps),
        source=_SOURCE,
    )


@register("meiser-k-merged")
def meiser_k_merged(epsilon: float = 1.0, delta: float = 0.01) -> Mechanism:
    """T o K with T merging outputs 0 and 1: breaks the probabilistic (eps, delta)-DP claim of K."""
    eps, dlt = _parameters(epsilon, delta)
    inner = _k_sampler(eps, dlt)

    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        return merge_zero_and_one(inner(data, n, rng))

    inner_one_run = _k_one_run(eps, dlt)

    def one_run(data: Any, rng: random.Random) -> int:
        y = inner_one_run(data, rng)
        return 0 if y <= 1 else y - 1

    def density():
        import sympy

        from ..density import symbol

        y, pk = symbol("y"), _k_pmf()
        expr = sympy.Piecewise(
            (pk.subs(y, 0) + pk.subs(y, 1), sympy.Eq(y, 0)),
            (pk.subs(y, 2), sympy.Eq(y, 1)),
            (pk.subs(y, 3), sympy.Eq(y, 2)),
            (0, True),
        )
        return _density(expr, 3, eps, dlt, "push-forward of meiser-k through T = merge outputs 0 and 1")

    true_eps = merged_true_epsilon(float(eps), float(dlt))
    return Mechanism(
        name="meiser-k-merged",
        claim=ProbabilisticDP(float(eps), float(dlt)),
        neighbours=Local(),
        sampler=sample,
        one_run=one_run,
        family="meiser",
        description="Meiser's K post-processed by merging outputs 0 and 1 (probabilistic DP lost)",
        density=density,
        domain=(0, 1),
        pairs=((0, 1), (1, 0)),
        flaw=(
            "probabilistic DP is not closed under post-processing: merging outputs 0 and 1 of K puts "
            f"mass > delta on an output with loss {true_eps:.4f} > epsilon"
        ),
        true_epsilon=true_eps,
        source=_SOURCE + ", Sect. 3; witness: outputs 0 and 1 merged",
    )
