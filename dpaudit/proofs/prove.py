"""``prove(mechanism)``: route a declared density to the procedure that can decide its claim.

Routes (each procedure's module docstring states its Preconditions / Claim / Proof):

* pure DP -- finite input domain: :mod:`.densities.finite`; finite outputs with query inputs:
  :mod:`.densities.finite_query`; real or integer outputs with query inputs: :mod:`.densities.query_density`;
* approximate DP -- finite: :mod:`.densities.hockey_stick`; the normal density: :mod:`.densities.gaussian`;
  otherwise a proof of pure epsilon-DP (which implies (epsilon, delta)-DP for every delta >= 0);
* probabilistic DP -- finite: :mod:`.densities.probabilistic`; a product pmf whose neighbours move one integer
  input by one: :mod:`.densities.product_probabilistic`; otherwise via pure DP (the bad set is empty);
* zero-concentrated, Rényi and Gaussian DP -- the closed-form Rényi divergence (:mod:`.divergences.renyi`),
  decided by :mod:`.divergences.concentrated`; a tabulated privacy curve -- each point as approximate DP;
* a :class:`~dpaudit.proofs.theorems.rules.Composition` -- each part, then the composition theorem;
* no density but a program (:mod:`dpaudit.mechanisms.programs`) -- randomness alignment, else a
  counterexample search with exact probabilities: :mod:`.programs.procedure`;
* a mechanism with no density but a declared ``structure`` (sequential composition of parts, admissible
  noise, Wishart noise): the theorem rules of :mod:`.structures.procedure`, chained in the certificate.

The claim is checked for all parameter values allowed by the declared assumptions, unless the caller
asks for the numeric instance (``numeric=True``) or restates the claim with numbers that differ from the
declared symbolic epsilon/delta at the instance (the result's ``details["scope_reason"]`` says which).
A mechanism whose own claim or sensitivity contradicts its density's is refused before any proof,
or proved under the density's larger sensitivity with a warning (:mod:`.declarations`).

Every proof runs under a time budget (:mod:`.budget`, default :data:`DEFAULT_TIME_BUDGET` seconds);
past it the verdict is ``unknown`` with the reason "time budget exhausted at step ...".  A density's
``note`` (how the implementation relates to the declared density: float arithmetic, grids) is carried
into the result's details, and a note that says the algebra is proved but the float implementation is
not is repeated in the reason of a "proved" verdict.
"""

from __future__ import annotations

import dataclasses
import math
import time
from typing import Any

from .._validation import check_flag, check_positive_finite
from ..claims import ApproxDP, Claim, PrivacyCurve, check_claim, claim_from_dict
from ..errors import InvalidArgument
from ..mechanisms.base import Mechanism
from .budget import BudgetExhausted, checkpoint
from .budget import time_budget as time_budget_context
from .declarations import check_declarations, scope_reason
from .inequalities.signs import SignContext
from .result import Certificate, Outcome, ProofResult, Step, Verdict
from .theorems.rules import Composition, claim_expression, implies, parallel, sequential

__all__ = ["DEFAULT_TIME_BUDGET", "prove"]

DEFAULT_TIME_BUDGET = 10.0


def _load_density(mechanism: Mechanism) -> Any:
    import sympy

    if mechanism.density is None:
        raise InvalidArgument(f"mechanism={mechanism.name!r} must declare a symbolic density, a program or a structure to be proved (it has none)")
    try:
        density = mechanism.density()
    except Exception as exc:  # a user's density builder may raise anything; report it as bad input
        raise InvalidArgument(f"density of mechanism={mechanism.name!r} could not be built: {type(exc).__name__}: {exc}") from exc
    if not hasattr(density, "expr") or not isinstance(density.expr, sympy.Expr):
        raise InvalidArgument(f"density of mechanism={mechanism.name!r} must be a SymbolicDensity with a sympy expression")
    if not any(density.expr.has(o) for o in density.outputs):
        raise InvalidArgument(f"density expression {density.expr!r} of {mechanism.name!r} must depend on its outputs {density.outputs!r}")
    if density.expr.has(sympy.nan, sympy.zoo):
        raise InvalidArgument(f"density expression {density.expr!r} of {mechanism.name!r} must not contain nan or zoo")
    return density


def _rational(value: Any) -> Any:
    import sympy

    return sympy.nsimplify(value, rational=True) if isinstance(value, float) else sympy.sympify(value)


def _matches(expr: Any, instance: dict, value: float) -> bool:
    try:
        number = float(expr.subs(instance))
    except (TypeError, ValueError):
        return False
    return math.isclose(number, value, rel_tol=1e-9, abs_tol=1e-12)


def _default_assumptions(density: Any) -> tuple:
    """Probabilities declared as positive symbols are also < 1 (delta of a claim, flip probabilities)."""
    import sympy

    extra = []
    bounded = {a.lhs for a in map(sympy.sympify, density.assumptions) if isinstance(a, sympy.core.relational.Relational)}
    for parameter in density.parameters:
        if parameter.name == "delta" and parameter not in bounded:
            extra.append(sympy.StrictLessThan(parameter, 1))
    return tuple(density.assumptions) + tuple(extra)


def _setup(density: Any, claim: Claim, numeric: bool) -> tuple[Any, Any, Any, str]:
    import sympy

    instance = {p: _rational(v) for p, v in dict(density.instance).items()}
    symbolic = not numeric and _matches(density.epsilon, instance, claim.epsilon) and (
        not claim.states_delta or _matches(density.delta, instance, claim.delta)
    )
    if symbolic:
        eps, dlt = density.epsilon, density.delta if claim.states_delta else sympy.Integer(0)
        return density, eps, dlt, "all parameters"
    numeric_density = dataclasses.replace(density, instance=instance).at_instance()
    numeric_density = dataclasses.replace(numeric_density, instance=instance)
    for assumption in numeric_density.assumptions:
        if sympy.sympify(assumption) is sympy.false:
            raise InvalidArgument(f"the instance {instance} violates the declared assumption of the density")
    return numeric_density, _rational(claim.epsilon), _rational(claim.delta), "instance"


def _route(density: Any, claim: Claim, eps: Any, dlt: Any, context: SignContext) -> Outcome:
    from .densities.outputs import is_finite_output

    finite_inputs = density.input_domain is not None
    finite_outputs = is_finite_output(density)
    if finite_inputs and not finite_outputs:
        return Outcome(Verdict.UNKNOWN, "a finite input domain with infinitely many outputs is not handled", "none")
    # dlt is 0 for a pure claim (:func:`_setup`): a nonzero one is of approximate or probabilistic DP.
    if dlt != 0 and not claim.bounds_loss_per_output:
        if finite_inputs:
            from .densities.hockey_stick import prove_finite_approx

            return prove_finite_approx(density, eps, dlt, context)
        from .densities.gaussian import gaussian_sigma, prove_gaussian_approx

        sigma = gaussian_sigma(density)
        if sigma is not None:
            return prove_gaussian_approx(density, eps, dlt, context, sigma)
        return _via_pure(density, eps, context, "approximate")
    if dlt != 0:
        if finite_inputs:
            from .densities.probabilistic import prove_finite_probabilistic

            outcome = prove_finite_probabilistic(density, eps, dlt, context)
            if outcome.verdict is Verdict.PROVED and len(density.outputs) == 1:
                outcome.details.update(_postprocessing_details(density, eps, dlt, context))
            return outcome
        from .densities.product_probabilistic import factor_structure, prove_product_probabilistic

        if factor_structure(density) is not None:
            return prove_product_probabilistic(density, eps, dlt, context)
        return _via_pure(density, eps, context, "probabilistic")
    return _pure(density, eps, context, finite_inputs, finite_outputs)


def _postprocessing_details(density: Any, eps: Any, dlt: Any, context: SignContext) -> dict[str, Any]:
    from .densities.postprocessing import search_postprocessing

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
        from .densities.finite import prove_finite_pure

        return prove_finite_pure(density, eps, context)
    if finite_outputs:
        from .densities.finite_query import prove_finite_query

        return prove_finite_query(density, eps, context)
    from .densities.query_density import prove_query_density

    return prove_query_density(density, eps, context)


def _via_pure(density: Any, eps: Any, context: SignContext, kind: str) -> Outcome:
    from .densities.outputs import is_finite_output

    outcome = _pure(density, eps, context, density.input_domain is not None, is_finite_output(density))
    if outcome.verdict is Verdict.PROVED:
        outcome.steps.append(
            Step("final inequality", outcome.steps[-1].expression, f"pure epsilon-DP implies {kind} (epsilon, delta)-DP for every delta >= 0")
        )
        outcome.reason = f"pure {eps}-DP proved, which implies the {kind} claim"
        return outcome
    return Outcome(
        Verdict.UNKNOWN,
        f"no exact {kind} procedure for this density, and pure DP is {outcome.verdict.value}: {outcome.reason}",
        outcome.method,
        outcome.steps,
    )


def prove(
    mechanism: Any,
    *,
    claim: Claim | None = None,
    numeric: bool = False,
    time_budget: float | None = DEFAULT_TIME_BUDGET,
) -> ProofResult:
    """Prove or refute a mechanism's privacy claim from its declared density.

    Parameters
    ----------
    mechanism : Mechanism, Composition or str
        A Mechanism with a ``density``, a catalogue name, ``module:attr``, or a Composition.
    claim : Claim, optional
        Restate the claim (default: the mechanism's own): PureDP, ApproxDP, ProbabilisticDP, or a
        curve claim -- ZeroConcentratedDP, RenyiDP, GaussianDP (decided from the closed-form Rényi
        divergence, :mod:`.divergences.concentrated`) or PrivacyCurve (each point as ApproxDP).
    numeric : bool
        Check the catalogue instance's parameter values only, instead of all parameter values.
    time_budget : float or None
        Seconds after which the proof stops with verdict ``unknown`` ("time budget exhausted at
        step ..."); ``None`` for no limit.

    Returns
    -------
    ProofResult
        ``proved`` with a certificate, ``refuted`` with a counterexample re-verified with mpmath at
        50 digits, or ``unknown`` with the step that could not be decided.
    """
    start = time.perf_counter()
    if time_budget is not None:
        try:
            time_budget = check_positive_finite("time_budget", time_budget)
        except InvalidArgument:
            raise InvalidArgument(f"time_budget={time_budget!r} must be a positive finite number of seconds or None") from None
    check_flag("numeric", numeric)
    if isinstance(mechanism, str):
        from ..mechanisms.targets import resolve

        mechanism = resolve(mechanism)
    if isinstance(mechanism, Composition):
        return _prove_composition(mechanism, start, numeric, time_budget)
    if not isinstance(mechanism, Mechanism):
        raise InvalidArgument(f"mechanism={mechanism!r} must be a Mechanism, a Composition or a catalogue name")
    if claim is not None:
        check_claim("claim", claim)
    restated = claim is not None
    claim = claim or mechanism.claim
    if mechanism.density is None and mechanism.structure is not None:
        if claim.is_curve:
            return ProofResult(mechanism.name, claim.as_dict(), Verdict.UNKNOWN,
                               f"a {claim.kind} claim is decided from a declared density; {mechanism.name!r} declares a structure",
                               "none", elapsed_s=time.perf_counter() - start)
        from .structures.procedure import prove_structure

        return prove_structure(mechanism, claim, numeric, time_budget, start)
    if mechanism.density is None and mechanism.program is not None:
        from .programs.procedure import decide_program

        return decide_program(mechanism, claim, numeric, time_budget, start)
    declared = _load_density(mechanism)
    instance = {p: _rational(v) for p, v in dict(declared.instance).items()}
    if claim.is_curve:
        return _prove_curve_claim(mechanism, claim, declared, check_declarations(mechanism, declared, instance, True),
                                  numeric, time_budget, start)
    mismatch = check_declarations(mechanism, declared, instance, restated)
    density, eps, dlt, scope = _setup(declared, claim, numeric)
    hints = _hint_pairs(mechanism, density)
    try:
        with time_budget_context(time_budget):
            outcome = _decide(density, claim, eps, dlt, hints)
    except BudgetExhausted as exc:
        limit = "the enclosing budget" if time_budget is None else f"{time_budget:g} s"
        outcome = Outcome(Verdict.UNKNOWN, f"time budget exhausted at step {exc.step!r} (limit {limit})", "time budget")
    _add_note(outcome, density)
    if outcome.verdict is Verdict.PROVED and mechanism.flaw:
        outcome.details.setdefault("flaw_outside_the_density", mechanism.flaw)
    if mismatch is not None:
        outcome.details["declaration_mismatch"] = mismatch
    scope = outcome.scope or scope
    if scope == "instance":
        outcome.details.setdefault("scope_reason", scope_reason(claim, declared, instance, numeric))
    return _result(mechanism.name, claim, eps, dlt, density, outcome, scope, start)


def _prove_curve_claim(mechanism: Mechanism, claim: Claim, declared: Any, mismatch: str | None, numeric: bool,
                       time_budget: float | None, start: float) -> ProofResult:
    """zCDP, RDP and GDP from the Rényi divergence (:mod:`.divergences.concentrated`); a privacy curve point by
    point."""
    if isinstance(claim, PrivacyCurve):
        return _prove_privacy_curve(mechanism, claim, numeric, time_budget, start)
    if numeric:
        instance = {p: _rational(v) for p, v in dict(declared.instance).items()}
        density = dataclasses.replace(dataclasses.replace(declared, instance=instance).at_instance(), instance=instance)
    else:
        density = declared
    try:
        with time_budget_context(time_budget):
            outcome = _decide_curve(density, claim)
    except BudgetExhausted as exc:
        limit = "the enclosing budget" if time_budget is None else f"{time_budget:g} s"
        outcome = Outcome(Verdict.UNKNOWN, f"time budget exhausted at step {exc.step!r} (limit {limit})", "time budget")
    except (NotImplementedError, RecursionError, TypeError, ValueError, AttributeError) as exc:
        outcome = Outcome(Verdict.UNKNOWN, f"sympy could not complete a step: {type(exc).__name__}: {exc}", "none")
    _add_note(outcome, density)
    if mismatch is not None:
        outcome.details["declaration_mismatch"] = mismatch
    scope = outcome.scope or "all parameters"
    certificate = None
    if outcome.verdict is Verdict.PROVED:
        statement = f"{mechanism.name} is {claim}"
        if scope == "instance":
            statement += " at " + ", ".join(f"{p}={v}" for p, v in dict(density.instance).items())
        certificate = Certificate(statement, tuple(outcome.steps), scope, tuple(str(a) for a in density.assumptions))
    return ProofResult(mechanism.name, claim.as_dict(), outcome.verdict, outcome.reason, outcome.method, scope=scope,
                       certificate=certificate, counterexample=outcome.counterexample,
                       elapsed_s=time.perf_counter() - start, details=outcome.details)


def _decide_curve(density: Any, claim: Claim) -> Outcome:
    from .densities.verify import normalisation_error
    from .divergences.concentrated import prove_concentrated

    checkpoint("normalisation check")
    context = SignContext(density.parameters, _default_assumptions(density), dict(density.instance))
    point = context.parameter_points()[0] if context.instance else {}
    problem = normalisation_error(density, point) if point or not density.parameters else None
    if problem is not None:
        return Outcome(Verdict.UNKNOWN, f"not a probability distribution: {problem}", "normalisation check")
    return prove_concentrated(density, claim, context)


def _prove_privacy_curve(mechanism: Mechanism, claim: PrivacyCurve, numeric: bool, time_budget: float | None,
                         start: float) -> ProofResult:
    """Each tabulated point as an (epsilon_i, delta_i)-DP claim; the first point not proved decides."""
    import sympy

    steps = []
    for epsilon, delta in zip(claim.epsilon, claim.delta):
        if delta >= 1:
            continue
        point = prove(mechanism, claim=ApproxDP(epsilon, delta), numeric=numeric, time_budget=time_budget)
        if not point.proved:
            reason = f"at the point ({epsilon:g}, {delta:g}) of the curve: {point.reason}"
            return dataclasses.replace(point, claim=claim.as_dict(), reason=reason, elapsed_s=time.perf_counter() - start,
                                       details={**point.details, "curve_point": [epsilon, delta]})
        steps.append(Step("part", sympy.Tuple(sympy.Float(epsilon), sympy.Float(delta)), f"({epsilon:g}, {delta:g})-DP: {point.reason}"))
    certificate = Certificate(f"{mechanism.name} satisfies {claim}", tuple(steps), "instance")
    return ProofResult(mechanism.name, claim.as_dict(), Verdict.PROVED, f"all {len(steps)} points of the curve proved",
                       "privacy curve, point by point", scope="instance", certificate=certificate,
                       elapsed_s=time.perf_counter() - start)


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
    from .densities.verify import normalisation_error

    checkpoint("normalisation check")
    context = SignContext(density.parameters, _default_assumptions(density), dict(density.instance), hints)
    point = context.parameter_points()[0] if context.instance else {}
    problem = normalisation_error(density, point) if point or not density.parameters else None
    if problem is not None:
        return Outcome(Verdict.UNKNOWN, f"not a probability distribution: {problem}", "normalisation check")
    try:
        return _route(density, claim, eps, dlt, context)
    except (NotImplementedError, RecursionError, TypeError, ValueError, AttributeError) as exc:
        return Outcome(Verdict.UNKNOWN, f"sympy could not complete a step: {type(exc).__name__}: {exc}", "none")


# Words in a density's note that mean: the declared (exact) density is proved, the implementation is not.
_IMPLEMENTATION_CAVEATS = ("floating point", "float arithmetic", "double precision", "side channel")


def _add_note(outcome: Outcome, density: Any) -> None:
    note = getattr(density, "note", "") or ""
    if not note:
        return
    outcome.details.setdefault("density_note", note)
    if outcome.verdict is Verdict.PROVED and any(word in note.lower() for word in _IMPLEMENTATION_CAVEATS):
        outcome.reason += f"; proved for the declared exact density only -- {note}"


def _result(name: str, claim: Claim, eps: Any, dlt: Any, density: Any, outcome: Outcome, scope: str, start: float) -> ProofResult:
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


def _prove_composition(composition: Composition, start: float, numeric: bool, budget: float | None) -> ProofResult:
    with time_budget_context(budget):
        parts = [prove(part, numeric=numeric, time_budget=budget) for part in composition.parts]
    failed = [p for p in parts if not p.proved]
    claim = composition.claim
    if failed:
        return ProofResult(
            composition.name,
            claim.as_dict(),
            Verdict.UNKNOWN,
            "parts not proved: " + ", ".join(f"{p.mechanism} ({p.verdict.value})" for p in failed),
            "composition",
            elapsed_s=time.perf_counter() - start,
        )
    rule = sequential if composition.rule == "sequential" else parallel
    composed, step = rule([part.claim for part in composition.parts])
    steps = [Step("part", _part_expression(p), f"{p.mechanism}: {p.reason}") for p in parts] + [step]
    holds, conversion = implies(composed, claim)  # probabilistic DP implies approximate DP (Meiser 2018)
    if conversion is not None:
        steps.append(conversion)
    if not holds:
        return ProofResult(
            composition.name,
            claim.as_dict(),
            Verdict.UNKNOWN,
            f"the {composition.rule} composition theorem gives {composed}, weaker than the claim {claim}",
            "composition",
            elapsed_s=time.perf_counter() - start,
        )
    certificate = Certificate(f"{composition.name} satisfies {claim}", tuple(steps), "all parameters")
    return ProofResult(
        composition.name,
        claim.as_dict(),
        Verdict.PROVED,
        f"{composition.rule} composition of proved parts gives {composed}",
        "composition",
        certificate=certificate,
        elapsed_s=time.perf_counter() - start,
    )


def _part_expression(result: ProofResult) -> Any:
    return claim_expression(claim_from_dict(result.claim))
