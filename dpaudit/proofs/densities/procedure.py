"""The ``density`` proof procedure: a declared density and a pure, approximate or probabilistic claim.

Routes (each module's docstring states its Preconditions / Claim / Proof):

* pure DP -- finite input domain: :mod:`.finite`; finite outputs with query inputs: :mod:`.finite_query`;
  real or integer outputs with query inputs: :mod:`.query_density`;
* approximate DP -- finite: :mod:`.hockey_stick`; the normal density: :mod:`.gaussian`; otherwise a proof
  of pure epsilon-DP (which implies (epsilon, delta)-DP for every delta >= 0);
* probabilistic DP -- finite: :mod:`.probabilistic`, with the search of :mod:`.postprocessing` in the
  details of a proof; a product pmf whose neighbours move one integer input by one:
  :mod:`.product_probabilistic`; otherwise via pure DP (the bad set is empty).

The claim is checked for all parameter values allowed by the declared assumptions, unless the caller
asks for the numeric instance (``numeric=True``) or restates the claim with numbers that differ from the
declared symbolic epsilon/delta at the instance (the result's ``details["scope_reason"]`` says which).
A mechanism whose own claim or sensitivity contradicts its density's is refused before any proof,
or proved under the density's larger sensitivity with a warning (:mod:`dpaudit.proofs.declarations`).
The density's note is carried into the result (:func:`~.declared.add_note`).
"""

from __future__ import annotations

import math
import time
from typing import Any

from ...claims import Claim
from ...errors import InvalidArgument
from ...mechanisms.base import Mechanism
from ..budget import decide_within
from ..declarations import check_declarations, scope_reason
from ..inequalities.signs import SignContext
from ..procedures import ProofRequest
from ..result import Certificate, Outcome, ProofResult, Step, Verdict
from .declared import SYMPY_FAILURES, add_note, at_instance, checked_context, load_density, rational, rational_instance

__all__ = ["DensityProcedure"]


class DensityProcedure:
    """``density``: a Mechanism with a declared density and a claim that is not a curve claim."""

    name = "density"

    def applies(self, mechanism: Any, claim: Claim) -> bool:
        return isinstance(mechanism, Mechanism) and mechanism.density is not None and not claim.is_curve

    def decide(self, mechanism: Mechanism, claim: Claim, request: ProofRequest) -> ProofResult:
        declared = load_density(mechanism)
        instance = rational_instance(declared)
        mismatch = check_declarations(mechanism, declared, instance, request.restated)
        density, eps, dlt, scope = _setup(declared, instance, claim, request.numeric)
        hints = _hint_pairs(mechanism, density)
        outcome = decide_within(request.time_budget, lambda: _decide(density, claim, eps, dlt, hints))
        add_note(outcome, density)
        if outcome.verdict is Verdict.PROVED and mechanism.flaw:
            outcome.details.setdefault("flaw_outside_the_density", mechanism.flaw)
        if mismatch is not None:
            outcome.details["declaration_mismatch"] = mismatch
        scope = outcome.scope or scope
        if scope == "instance":
            outcome.details.setdefault("scope_reason", scope_reason(claim, declared, instance, request.numeric))
        return _result(mechanism.name, claim, eps, dlt, density, outcome, scope, request.start)


def _matches(expr: Any, instance: dict, value: float) -> bool:
    try:
        number = float(expr.subs(instance))
    except (TypeError, ValueError):
        return False
    return math.isclose(number, value, rel_tol=1e-9, abs_tol=1e-12)


def _setup(density: Any, instance: dict, claim: Claim, numeric: bool) -> tuple[Any, Any, Any, str]:
    """The density to prove, epsilon and delta, and the scope: the declared symbols when the claim is the
    density's own at the instance, else the claim's numbers with the instance substituted."""
    import sympy

    symbolic = not numeric and _matches(density.epsilon, instance, claim.epsilon) and (
        not claim.states_delta or _matches(density.delta, instance, claim.delta)
    )
    if symbolic:
        eps, dlt = density.epsilon, density.delta if claim.states_delta else sympy.Integer(0)
        return density, eps, dlt, "all parameters"
    numeric_density = at_instance(density, instance)
    for assumption in numeric_density.assumptions:
        if sympy.sympify(assumption) is sympy.false:
            raise InvalidArgument(f"the instance {instance} violates the declared assumption of the density")
    return numeric_density, rational(claim.epsilon), rational(claim.delta), "instance"


def _hint_pairs(mechanism: Mechanism, density: Any) -> tuple:
    """The mechanism's recommended pairs mapped to query values (counterexample candidates), as rationals."""
    import numpy as np
    import sympy

    if mechanism.query is None or density.input_domain is not None:
        return ()
    hints = []
    for pair in mechanism.pairs:
        try:
            values = [np.asarray(mechanism.query(data), dtype=float).reshape(-1) for data in pair]
        except Exception:  # noqa: BLE001 - a pair the query rejects is simply not a hint
            continue
        if all(v.size == len(density.inputs) and np.all(np.isfinite(v)) for v in values):
            hints.append(tuple(tuple(sympy.nsimplify(float(x), rational=True) for x in v) for v in values))
    return tuple(hints)


def _decide(density: Any, claim: Claim, eps: Any, dlt: Any, hints: tuple = ()) -> Outcome:
    context, problem = checked_context(density, hints)
    if problem is not None:
        return problem
    try:
        return _route(density, claim, eps, dlt, context)
    except SYMPY_FAILURES as exc:
        return Outcome(Verdict.UNKNOWN, f"sympy could not complete a step: {type(exc).__name__}: {exc}", "none")


def _route(density: Any, claim: Claim, eps: Any, dlt: Any, context: SignContext) -> Outcome:
    from .outputs import is_finite_output

    finite_inputs = density.input_domain is not None
    finite_outputs = is_finite_output(density)
    if finite_inputs and not finite_outputs:
        return Outcome(Verdict.UNKNOWN, "a finite input domain with infinitely many outputs is not handled", "none")
    # dlt is 0 for a pure claim (:func:`_setup`): a nonzero one is of approximate or probabilistic DP.
    if dlt != 0 and not claim.bounds_loss_per_output:
        if finite_inputs:
            from .hockey_stick import prove_finite_approx

            return prove_finite_approx(density, eps, dlt, context)
        from .gaussian import gaussian_sigma, prove_gaussian_approx

        sigma = gaussian_sigma(density)
        if sigma is not None:
            return prove_gaussian_approx(density, eps, dlt, context, sigma)
        return _via_pure(density, eps, context, "approximate")
    if dlt != 0:
        if finite_inputs:
            from .probabilistic import prove_finite_probabilistic

            outcome = prove_finite_probabilistic(density, eps, dlt, context)
            if outcome.verdict is Verdict.PROVED and len(density.outputs) == 1:
                outcome.details.update(_postprocessing_details(density, eps, dlt, context))
            return outcome
        from .product_probabilistic import factor_structure, prove_product_probabilistic

        if factor_structure(density) is not None:
            return prove_product_probabilistic(density, eps, dlt, context)
        return _via_pure(density, eps, context, "probabilistic")
    return _pure(density, eps, context, finite_inputs, finite_outputs)


def _postprocessing_details(density: Any, eps: Any, dlt: Any, context: SignContext) -> dict[str, Any]:
    from .postprocessing import search_postprocessing

    search = search_postprocessing(density, eps, dlt, context)
    details: dict[str, Any] = {
        "postprocessing_maps_checked": search.maps_checked,
        "postprocessing_breaking_probabilistic": search.breaking_probabilistic,
        "postprocessing_breaking_approximate": search.breaking_approximate,
        "postprocessing_points": [f"e^epsilon={e}, delta={d}" for e, d in search.points],
    }
    if search.witness_map is not None and search.witness_outcome is not None:
        details["postprocessing_witness_map"] = list(search.witness_map)
        details["postprocessing_witness_verdict"] = search.witness_outcome.verdict.value
        witness = search.witness_outcome.counterexample
        if witness is not None:
            details["postprocessing_witness_for_all_parameters"] = bool(witness.extra.get("for_all_parameters"))
    return details


def _pure(density: Any, eps: Any, context: SignContext, finite_inputs: bool, finite_outputs: bool) -> Outcome:
    if finite_inputs:
        from .finite import prove_finite_pure

        return prove_finite_pure(density, eps, context)
    if finite_outputs:
        from .finite_query import prove_finite_query

        return prove_finite_query(density, eps, context)
    from .query_density import prove_query_density

    return prove_query_density(density, eps, context)


def _via_pure(density: Any, eps: Any, context: SignContext, kind: str) -> Outcome:
    from .outputs import is_finite_output

    outcome = _pure(density, eps, context, density.input_domain is not None, is_finite_output(density))
    if outcome.verdict is Verdict.PROVED:
        outcome.steps.append(Step("final inequality", outcome.steps[-1].expression,
                                  f"pure epsilon-DP implies {kind} (epsilon, delta)-DP for every delta >= 0"))
        outcome.reason = f"pure {eps}-DP proved, which implies the {kind} claim"
        return outcome
    return Outcome(
        Verdict.UNKNOWN,
        f"no exact {kind} procedure for this density, and pure DP is {outcome.verdict.value}: {outcome.reason}",
        outcome.method,
        outcome.steps,
    )


def _result(name: str, claim: Claim, eps: Any, dlt: Any, density: Any, outcome: Outcome, scope: str,
            start: float) -> ProofResult:
    import sympy

    certificate = None
    if outcome.verdict is Verdict.PROVED:
        statement = f"{name} is {claim.kind} ({sympy.sstr(eps)}, {sympy.sstr(dlt)})-DP"
        assumptions = tuple(
            [f"{p} > 0" for p in density.parameters if p.is_positive] + [sympy.sstr(a) for a in density.assumptions]
        )
        if scope == "instance":
            statement += " at " + ", ".join(f"{p}={sympy.sstr(v)}" for p, v in dict(density.instance).items())
        certificate = Certificate(statement, tuple(outcome.steps), scope, assumptions)
    claim_dict = dict(claim.as_dict())
    claim_dict["epsilon_symbolic"] = sympy.sstr(eps)
    claim_dict["delta_symbolic"] = sympy.sstr(dlt)
    return outcome.as_result(name, claim_dict, scope, certificate, time.perf_counter() - start)
