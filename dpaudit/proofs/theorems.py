"""Theorems of differential privacy as checked proof steps.

Each rule takes claims, checks its preconditions, and returns the resulting claim together with the
:class:`~dpaudit.proofs.result.Step` that records it, so a certificate can be assembled from them.

* :func:`sequential` -- basic composition: (sum epsilon_i, sum delta_i) (Dwork & Roth 2014, Thm. 3.16);
  probabilistic DP composes the same way (the union of the bad events has mass <= sum delta_i).
* :func:`parallel` -- parts on disjoint subsets of the data: (max epsilon_i, max delta_i)
  (McSherry 2009, "Privacy integrated queries", Thm. 4).
* :func:`advanced` -- k-fold adaptive composition of (epsilon, delta)-DP: (epsilon', k delta + delta')
  with epsilon' = sqrt(2 k ln(1/delta')) epsilon + k epsilon (e^epsilon - 1) (Dwork, Rothblum &
  Vadhan 2010; Dwork & Roth 2014, Thm. 3.20).
* :func:`group` -- groups of k records: (k epsilon, delta (e^{k epsilon} - 1) / (e^epsilon - 1))
  (Dwork & Roth 2014, Thm. 2.2 for pure DP; summing the geometric series along a path of k
  neighbours for delta > 0).
* :func:`post_processing` -- preserved by pure and approximate DP (Dwork & Roth 2014, Prop. 2.1),
  NOT by probabilistic DP (Meiser 2018, Sect. 3): applying it to a ProbabilisticDP claim is refused.

:class:`Composition` declares a mechanism built from parts; :func:`prove_composition` proves each part
and assembles the certificate from these rules.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .._validation import check_one_of, check_positive_int, check_probability_open
from ..claims import ApproxDP, Claim, ProbabilisticDP, PureDP
from ..errors import InvalidArgument
from .result import Step

__all__ = [
    "Composition",
    "TheoremNotApplicable",
    "advanced",
    "group",
    "parallel",
    "post_processing",
    "sequential",
]


class TheoremNotApplicable(InvalidArgument):
    """A theorem's preconditions do not hold for the claims it was applied to."""


def _make(kind: str, epsilon: float, delta: float) -> Claim:
    if kind == "probabilistic":
        return ProbabilisticDP(epsilon, delta)
    return PureDP(epsilon) if delta == 0 else ApproxDP(epsilon, delta)


def _kinds(claims: Sequence[Claim]) -> str:
    if not claims:
        raise InvalidArgument("claims=[] must hold at least one claim")
    kinds = {c.kind for c in claims}
    if "probabilistic" in kinds and len(kinds) > 1:
        raise TheoremNotApplicable(f"claims={list(map(str, claims))!r} mix probabilistic and approximate DP")
    return "probabilistic" if kinds == {"probabilistic"} else "approximate"


def _step(rule: str, claim: Claim, sentence: str) -> Step:
    import sympy

    eps, dlt = sympy.Symbol("epsilon"), sympy.Symbol("delta")
    return Step(rule, sympy.Tuple(sympy.Eq(eps, sympy.Float(claim.epsilon)), sympy.Eq(dlt, sympy.Float(claim.delta))), sentence)


def sequential(claims: Sequence[Claim]) -> tuple[Claim, Step]:
    """Basic composition: (sum epsilon_i, sum delta_i) (Dwork & Roth 2014, Thm. 3.16)."""
    kind = _kinds(claims)
    result = _make(kind, math.fsum(c.epsilon for c in claims), min(math.fsum(c.delta for c in claims), math.nextafter(1.0, 0)))
    return result, _step("sequential composition", result, f"{' + '.join(map(str, claims))} -> {result} (Dwork & Roth 2014, Thm. 3.16)")


def parallel(claims: Sequence[Claim]) -> tuple[Claim, Step]:
    """Parallel composition on disjoint data: (max epsilon_i, max delta_i) (McSherry 2009, Thm. 4)."""
    kind = _kinds(claims)
    result = _make(kind, max(c.epsilon for c in claims), max(c.delta for c in claims))
    return result, _step("parallel composition", result, f"disjoint parts {', '.join(map(str, claims))} -> {result} (McSherry 2009, Thm. 4)")


def advanced(claim: Claim, k: int, delta_prime: float) -> tuple[Claim, Step]:
    """k-fold advanced composition (Dwork, Rothblum & Vadhan 2010; Dwork & Roth 2014, Thm. 3.20)."""
    k = check_positive_int("k", k)
    delta_prime = check_probability_open("delta_prime", delta_prime)
    if claim.kind == "probabilistic":
        raise TheoremNotApplicable(f"claim={claim!s} must be pure or approximate DP for advanced composition")
    eps = claim.epsilon
    epsilon = math.sqrt(2 * k * math.log(1 / delta_prime)) * eps + k * eps * math.expm1(eps)
    total_delta = k * claim.delta + delta_prime
    if total_delta >= 1:
        raise TheoremNotApplicable(f"k * delta + delta_prime = {total_delta!r} must be < 1")
    result = ApproxDP(epsilon, total_delta)
    return result, _step(
        "advanced composition",
        result,
        f"{k}-fold composition of {claim}: eps' = sqrt(2k ln(1/delta')) eps + k eps (e^eps - 1) -> {result} (DRV 2010)",
    )


def group(claim: Claim, k: int) -> tuple[Claim, Step]:
    """Group privacy for k records: (k epsilon, delta (e^{k eps} - 1)/(e^eps - 1)) (Dwork & Roth 2014, Thm. 2.2)."""
    k = check_positive_int("k", k)
    if claim.kind == "probabilistic":
        raise TheoremNotApplicable(f"claim={claim!s} must be pure or approximate DP for the group-privacy rule")
    eps = claim.epsilon
    factor = k if eps == 0 else math.expm1(k * eps) / math.expm1(eps)
    delta = claim.delta * factor
    if delta >= 1:
        raise TheoremNotApplicable(f"group delta = {delta!r} for k={k} must be < 1")
    result = _make(claim.kind, k * eps, delta)
    return result, _step("group privacy", result, f"groups of {k}: k eps and delta (e^(k eps) - 1)/(e^eps - 1) -> {result}")


def post_processing(claim: Claim) -> tuple[Claim, Step]:
    """Post-processing keeps pure and approximate DP (Dwork & Roth 2014, Prop. 2.1); refused for probabilistic DP."""
    if claim.kind == "probabilistic":
        raise TheoremNotApplicable(
            f"claim={claim!s} must be pure or approximate DP: probabilistic DP is not closed under "
            "post-processing (Meiser 2018, Sect. 3; merging outputs 0 and 1 of Meiser's K breaks it)"
        )
    return claim, _step("post-processing", claim, f"any map of the output keeps {claim} (Dwork & Roth 2014, Prop. 2.1)")


@dataclass(frozen=True)
class Composition:
    """A mechanism declared as a composition of parts.

    Attributes
    ----------
    name : str
    parts : tuple of Mechanism
        Each part is proved on its own (its own claim).
    rule : str
        ``"sequential"`` (all parts see the same data) or ``"parallel"`` (disjoint data).
    claim : Claim
        What the composed mechanism promises.
    """

    name: str
    parts: tuple[Any, ...]
    rule: str
    claim: Claim

    def __post_init__(self) -> None:
        check_one_of("rule", self.rule, ("sequential", "parallel"))
        if not self.parts:
            raise InvalidArgument("parts=() must hold at least one mechanism")
        object.__setattr__(self, "parts", tuple(self.parts))
