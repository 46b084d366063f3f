"""The curve claims' proof procedures: a declared density against zCDP, RDP, GDP or a tabulated curve.

* ``privacy-curve`` (:class:`PrivacyCurveProcedure`) -- a :class:`~dpaudit.claims.PrivacyCurve` is the
  family of (epsilon_i, delta_i)-DP claims at its tabulated points; each point with delta_i < 1 is proved
  as approximate DP, and the first point not proved decides the verdict.
* ``renyi-divergence`` (:class:`RenyiDivergenceProcedure`) -- zCDP, RDP and GDP from the closed-form Rényi
  divergence of the density (:mod:`.renyi`), decided by :mod:`.concentrated`, for all parameter values or,
  with ``numeric=True``, at the catalogue instance.

Both check the mechanism's declarations against its density's first (:mod:`dpaudit.proofs.declarations`),
the claim counting as restated: a curve claim is never the density's own epsilon and delta.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from ...claims import ApproxDP, Claim, PrivacyCurve
from ...mechanisms.base import Mechanism
from ..budget import decide_within
from ..declarations import check_declarations
from ..densities.declared import SYMPY_FAILURES, add_note, at_instance, checked_context, load_density, rational_instance
from ..procedures import ProofRequest
from ..result import Certificate, Outcome, ProofResult, Step, Verdict

__all__ = ["PrivacyCurveProcedure", "RenyiDivergenceProcedure"]


def _has_density(mechanism: Any) -> bool:
    return isinstance(mechanism, Mechanism) and mechanism.density is not None


class PrivacyCurveProcedure:
    """``privacy-curve``: a Mechanism with a declared density and a PrivacyCurve claim, point by point."""

    name = "privacy-curve"

    def applies(self, mechanism: Any, claim: Claim) -> bool:
        return _has_density(mechanism) and isinstance(claim, PrivacyCurve)

    def decide(self, mechanism: Mechanism, claim: PrivacyCurve, request: ProofRequest) -> ProofResult:
        import sympy

        # Checked once for the whole curve: a contradiction is refused even when no point is left to prove.
        declared = load_density(mechanism)
        check_declarations(mechanism, declared, rational_instance(declared), True)
        steps = []
        for epsilon, delta in zip(claim.epsilon, claim.delta):
            if delta >= 1:
                continue
            point = request.prove(mechanism, claim=ApproxDP(epsilon, delta), numeric=request.numeric,
                                  time_budget=request.time_budget)
            if not point.proved:
                reason = f"at the point ({epsilon:g}, {delta:g}) of the curve: {point.reason}"
                return dataclasses.replace(point, claim=claim.as_dict(), reason=reason,
                                           elapsed_s=time.perf_counter() - request.start,
                                           details={**point.details, "curve_point": [epsilon, delta]})
            steps.append(Step("part", sympy.Tuple(sympy.Float(epsilon), sympy.Float(delta)),
                              f"({epsilon:g}, {delta:g})-DP: {point.reason}"))
        certificate = Certificate(f"{mechanism.name} satisfies {claim}", tuple(steps), "instance")
        return ProofResult(mechanism.name, claim.as_dict(), Verdict.PROVED,
                           f"all {len(steps)} points of the curve proved", "privacy curve, point by point",
                           scope="instance", certificate=certificate, elapsed_s=time.perf_counter() - request.start)


class RenyiDivergenceProcedure:
    """``renyi-divergence``: a Mechanism with a declared density and a zCDP, RDP or GDP claim."""

    name = "renyi-divergence"

    def applies(self, mechanism: Any, claim: Claim) -> bool:
        return _has_density(mechanism) and claim.is_curve

    def decide(self, mechanism: Mechanism, claim: Claim, request: ProofRequest) -> ProofResult:
        declared = load_density(mechanism)
        instance = rational_instance(declared)
        mismatch = check_declarations(mechanism, declared, instance, True)
        density = at_instance(declared, instance) if request.numeric else declared
        outcome = decide_within(request.time_budget, lambda: _decide(density, claim))
        add_note(outcome, density)
        if mismatch is not None:
            outcome.details["declaration_mismatch"] = mismatch
        scope = outcome.scope or "all parameters"
        certificate = None
        if outcome.verdict is Verdict.PROVED:
            statement = f"{mechanism.name} is {claim}"
            if scope == "instance":
                statement += " at " + ", ".join(f"{p}={v}" for p, v in dict(density.instance).items())
            assumptions = tuple(str(a) for a in density.assumptions)
            certificate = Certificate(statement, tuple(outcome.steps), scope, assumptions)
        return ProofResult(mechanism.name, claim.as_dict(), outcome.verdict, outcome.reason, outcome.method,
                           scope=scope, certificate=certificate, counterexample=outcome.counterexample,
                           elapsed_s=time.perf_counter() - request.start, details=outcome.details)


def _decide(density: Any, claim: Claim) -> Outcome:
    from .concentrated import prove_concentrated

    try:
        context, problem = checked_context(density)
        if problem is not None:
            return problem
        return prove_concentrated(density, claim, context)
    except SYMPY_FAILURES as exc:
        return Outcome(Verdict.UNKNOWN, f"sympy could not complete a step: {type(exc).__name__}: {exc}", "none")
