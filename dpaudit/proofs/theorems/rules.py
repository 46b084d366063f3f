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

Curve claims compose in their own terms: zCDP adds rho (Bun & Steinke 2016, Lemma 2.3), RDP adds
epsilon order by order at the orders all parts state (Mironov 2017, Prop. 1; a zCDP part is read as
RDP with epsilon(alpha) = rho alpha), GDP adds mu^2 (Dong, Roth & Su 2022, Cor. 3.3); in parallel the
largest parameter holds.  :func:`implies` says whether one claim implies another, with the
conversion (:mod:`dpaudit.conversions`) as a checked step.

A mechanism declared as a composition of parts (:mod:`.composition`) is proved by these rules, as are
the declared structures of :mod:`dpaudit.proofs.structures`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ..._validation import check_positive_int, check_probability_open
from ...claims import ApproxDP, Claim, GaussianDP, RenyiDP, ZeroConcentratedDP
from ...errors import InvalidArgument
from ..result import Step

__all__ = [
    "TheoremNotApplicable",
    "advanced",
    "group",
    "implies",
    "parallel",
    "post_processing",
    "sequential",
]


class TheoremNotApplicable(InvalidArgument):
    """A theorem's preconditions do not hold for the claims it was applied to."""


def _shared_definition(claims: Sequence[Claim]) -> Claim:
    """A part whose ``with_parameters`` states the composed claim: the parts are all probabilistic DP or all
    pure and approximate DP (one definition, Dwork & Roth 2014, Def. 2.4), not a mix of the two."""
    if not claims:
        raise InvalidArgument("claims=[] must hold at least one claim")
    if len({c.bounds_loss_per_output for c in claims}) > 1:
        raise TheoremNotApplicable(f"claims={list(map(str, claims))!r} mix probabilistic and approximate DP")
    return claims[0]


def claim_expression(claim: Claim) -> Any:
    """The claim's parameters (those of ``claim.as_dict()``) as a sympy expression for a certificate step.

    One parameter is the equation ``name = value`` (rho, mu), several the tuple of such equations
    (epsilon, delta), and a tabulated claim the tuple of its pairs (an RDP claim's (alpha, epsilon(alpha)),
    a privacy curve's (epsilon, delta)).
    """
    import sympy

    parameters = {name: value for name, value in claim.as_dict().items() if name != "kind"}
    if all(isinstance(value, list) for value in parameters.values()):
        return sympy.Tuple(*(sympy.Tuple(*map(sympy.Float, pair)) for pair in zip(*parameters.values())))
    equations = [sympy.Eq(sympy.Symbol(name), sympy.Float(value)) for name, value in parameters.items()]
    return equations[0] if len(equations) == 1 else sympy.Tuple(*equations)


def _step(rule: str, claim: Claim, sentence: str) -> Step:
    return Step(rule, claim_expression(claim), sentence)


def _compose_curves(claims: Sequence[Claim], rule: str) -> tuple[Claim, Step]:
    """zCDP / RDP / GDP claims composed sequentially (sums) or in parallel (largest); see the module docstring.

    zCDP and RDP parts compose as RDP at the orders every RDP part states (a zCDP part states them all).
    """
    combine = math.fsum if rule == "sequential" else max
    if all(isinstance(c, ZeroConcentratedDP) for c in claims):
        result: Claim = ZeroConcentratedDP(combine(c.rho for c in claims))
        source = "Bun & Steinke 2016, Lemma 2.3" if rule == "sequential" else "each record in one part"
    elif all(isinstance(c, GaussianDP) for c in claims):
        result = GaussianDP(math.sqrt(combine(c.mu**2 for c in claims)))
        source = "Dong, Roth & Su 2022, Cor. 3.3" if rule == "sequential" else "each record in one part"
    elif all(c.bounds_renyi_divergence for c in claims):
        orders = set.intersection(*(set(c.renyi_orders) for c in claims if c.renyi_orders is not None))
        if not orders:
            raise TheoremNotApplicable(f"claims={list(map(str, claims))!r} state no Rényi order in common")
        ordered = sorted(orders)
        result = RenyiDP(ordered, [combine(c.renyi_bound(a) for c in claims) for a in ordered])
        source = "Mironov 2017, Prop. 1, order by order" if rule == "sequential" else "each record in one part, order by order"
    else:
        raise TheoremNotApplicable(
            f"claims={list(map(str, claims))!r} mix {sorted({c.kind for c in claims})}: compose zCDP, RDP or GDP "
            "claims among their own kind, or convert each first (claim.to_approx(delta))")
    return result, _step(f"{rule} composition", result, f"{' + '.join(map(str, claims))} -> {result} ({source})")


def implies(stronger: Claim, weaker: Claim) -> tuple[bool, Step | None]:
    """Does the claim ``stronger`` imply ``weaker`` (``stronger.implies(weaker)``)?  With the conversion step
    when it takes one.

    Same kind: the parameters compare (rho, mu, epsilon order by order, (epsilon, delta)).  zCDP
    implies RDP with epsilon(alpha) = rho alpha (Bun & Steinke 2016, Def. 1.1); mu-GDP implies
    (mu^2/2)-zCDP (the divergences of N(0, 1) vs N(mu, 1), Dong, Roth & Su 2022, Thm. 2.10, Blackwell);
    a curve claim implies (epsilon, delta)-DP at the epsilon its conversion gives for delta, and a
    privacy curve at each of its points: those two are the conversion steps.  Pure DP is implied only
    by pure DP; a curve claim never implies probabilistic DP here.
    """
    holds = stronger.implies(weaker)
    if not (stronger.is_curve and stronger.compares_through_conversion(weaker)):
        return holds, None
    if weaker.is_curve:
        worst = stronger.delta_excess(weaker)
        return holds, _step("conversion", weaker, f"{stronger}'s delta(epsilon) is at most the claimed curve's at every point"
                            if holds else f"{stronger}'s delta(epsilon) exceeds the claimed curve by {worst:.3g} at a point")
    epsilon = stronger.epsilon_at_delta(weaker.delta)
    return holds, _step("conversion", ApproxDP(min(epsilon, 1e308), weaker.delta),
                        f"{stronger} implies ({epsilon:.6g}, {weaker.delta:g})-DP ({stronger.conversion_reference})"
                        f"{' <= ' if holds else ' > '}the claimed {weaker}")


def sequential(claims: Sequence[Claim]) -> tuple[Claim, Step]:
    """Basic composition: (sum epsilon_i, sum delta_i) (Dwork & Roth 2014, Thm. 3.16); curve claims in their own terms."""
    if any(c.is_curve for c in claims):
        return _compose_curves(claims, "sequential")
    shared = _shared_definition(claims)
    result = shared.with_parameters(math.fsum(c.epsilon for c in claims),
                                    min(math.fsum(c.delta for c in claims), math.nextafter(1.0, 0)))
    return result, _step("sequential composition", result, f"{' + '.join(map(str, claims))} -> {result} (Dwork & Roth 2014, Thm. 3.16)")


def parallel(claims: Sequence[Claim]) -> tuple[Claim, Step]:
    """Parallel composition on disjoint data: (max epsilon_i, max delta_i) (McSherry 2009, Thm. 4); curve claims: the largest."""
    if any(c.is_curve for c in claims):
        return _compose_curves(claims, "parallel")
    result = _shared_definition(claims).with_parameters(max(c.epsilon for c in claims), max(c.delta for c in claims))
    return result, _step("parallel composition", result, f"disjoint parts {', '.join(map(str, claims))} -> {result} (McSherry 2009, Thm. 4)")


def advanced(claim: Claim, k: int, delta_prime: float) -> tuple[Claim, Step]:
    """k-fold advanced composition (Dwork, Rothblum & Vadhan 2010; Dwork & Roth 2014, Thm. 3.20)."""
    k = check_positive_int("k", k)
    delta_prime = check_probability_open("delta_prime", delta_prime)
    if claim.is_curve:
        raise TheoremNotApplicable(f"claim={claim!s} composes by its own rule: sequential([claim] * k)")
    if claim.bounds_loss_per_output:
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
    if isinstance(claim, ZeroConcentratedDP):
        result = ZeroConcentratedDP(k * k * claim.rho)
        return result, _step("group privacy", result, f"groups of {k}: k^2 rho -> {result} (Bun & Steinke 2016, Prop. 1.9)")
    if claim.is_curve or claim.bounds_loss_per_output:
        raise TheoremNotApplicable(f"claim={claim!s} must be pure, approximate or zCDP for the group-privacy rule")
    eps = claim.epsilon
    factor = k if eps == 0 else math.expm1(k * eps) / math.expm1(eps)
    delta = claim.delta * factor
    if delta >= 1:
        raise TheoremNotApplicable(f"group delta = {delta!r} for k={k} must be < 1")
    result = claim.with_parameters(k * eps, delta)
    return result, _step("group privacy", result, f"groups of {k}: k eps and delta (e^(k eps) - 1)/(e^eps - 1) -> {result}")


def post_processing(claim: Claim) -> tuple[Claim, Step]:
    """Post-processing keeps pure and approximate DP (Dwork & Roth 2014, Prop. 2.1) and the curve claims (the
    data-processing inequality of Rényi divergences, van Erven & Harremoës 2014, Thm. 9; of trade-off functions,
    Dong, Roth & Su 2022, Prop. 2.9); refused for probabilistic DP."""
    if not claim.closed_under_post_processing:
        raise TheoremNotApplicable(
            f"claim={claim!s} must be pure or approximate DP: probabilistic DP is not closed under "
            "post-processing (Meiser 2018, Sect. 3; merging outputs 0 and 1 of Meiser's K breaks it)"
        )
    return claim, _step("post-processing", claim, f"any map of the output keeps {claim} (Dwork & Roth 2014, Prop. 2.1)")
