"""Proofs from a mechanism's declared structure: its parts are proved, then theorem rules chain them.

A mechanism without a closed-form density may declare a ``structure``
(:mod:`dpaudit.mechanisms.structure`); :func:`prove_structure` decides its claim from it and returns a
certificate whose steps are the chain of rules, each one checked:

**Sequential composition** (:class:`~dpaudit.mechanisms.structure.SequentialComposition`).

* Preconditions: every part's mechanism has a density and its own claim is proved by
  :func:`dpaudit.prove` for query values within its sensitivity Delta_i; the part's input moves by at
  most ``input_sensitivity`` <= Delta_i between neighbouring datasets, for every value of the earlier
  parts' outputs.
* Claim: the composed release is (sum_i r_i epsilon_i, sum_i r_i delta_i)-DP (r_i the part's repeats).
* Proof: each part is (epsilon_i, delta_i)-DP as a function of the data, for every history, by its proof
  and the sensitivity step; the transcript is their adaptive sequential composition (Dwork & Roth 2014,
  Thm. 3.16; the adaptive form: Dwork, Rothblum & Vadhan 2010, and for pure DP directly: the
  transcript's density is the product of the parts' conditional densities, each ratio <= e^epsilon_i);
  the release is a map of the transcript (post-processing, Dwork & Roth 2014, Prop. 2.1).

**Admissible noise** (:mod:`.admissible`), **the Wishart mechanism** (:mod:`.wishart`) and **DP-SGD's
Gaussian steps** (:mod:`.gaussian_steps`) have their own modules; each chain of rules is closed against
the claim by :mod:`.chain`.

A failed precondition gives ``unknown`` with the step that failed: these rules are sufficient
conditions, so a failure does not show that the claim is false.
"""

from __future__ import annotations

import dataclasses
import time

from ...claims import Claim
from ...errors import InvalidArgument
from ...mechanisms.base import Mechanism
from ...mechanisms.structure import AdmissibleNoise, GaussianSteps, SequentialComposition, WishartNoise
from ..budget import BudgetExhausted, checkpoint
from ..budget import time_budget as time_budget_context
from ..result import Certificate, Outcome, ProofResult, Step, Verdict
from ..theorems.rules import TheoremNotApplicable, sequential
from .chain import FLOAT_SLACK, close_chain

__all__ = ["prove_structure"]

def prove_structure(mechanism: Mechanism, claim: Claim, numeric: bool, time_budget: float | None, start: float) -> ProofResult:
    """Decide ``claim`` for ``mechanism`` from its declared structure (see the module docstring)."""
    structure = mechanism.structure
    # The rules' modules are imported before the budget starts: its alarm, raised inside an import,
    # can land in CPython's parser and leave it in an inconsistent state (a SystemError, not a timeout).
    from .admissible import prove_admissible_noise
    from .gaussian_steps import prove_gaussian_steps
    from .wishart import prove_wishart

    try:
        with time_budget_context(time_budget):
            if isinstance(structure, SequentialComposition):
                outcome = _sequential(structure, claim, numeric)
            elif isinstance(structure, AdmissibleNoise):
                outcome = prove_admissible_noise(structure, claim, mechanism.query)
            elif isinstance(structure, WishartNoise):
                outcome = prove_wishart(structure, claim)
            elif isinstance(structure, GaussianSteps):
                outcome = prove_gaussian_steps(structure, claim)
            else:
                outcome = Outcome(Verdict.UNKNOWN, f"structure {type(structure).__name__} has no proof rule", "none")
    except BudgetExhausted as exc:
        limit = "the enclosing budget" if time_budget is None else f"{time_budget:g} s"
        outcome = Outcome(Verdict.UNKNOWN, f"time budget exhausted at step {exc.step!r} (limit {limit})", "time budget")
    scope = outcome.scope or "instance"
    certificate = None
    if outcome.verdict is Verdict.PROVED:
        statement = f"{mechanism.name} ({mechanism.description}) satisfies {claim}"
        certificate = Certificate(statement, tuple(outcome.steps), scope)
    else:
        outcome.details.setdefault("steps_checked", [str(s) for s in outcome.steps])
    return outcome.as_result(mechanism.name, dict(claim.as_dict()), scope, certificate, time.perf_counter() - start)


def _sequential(structure: SequentialComposition, claim: Claim, numeric: bool) -> Outcome:
    import sympy

    from ..prove import prove

    method = "sequential composition of proved parts"
    steps: list[Step] = []
    claims: list[Claim] = []
    for index, part in enumerate(structure.parts, 1):
        checkpoint(f"part {index}: {part.label}")
        try:
            result = prove(part.mechanism, numeric=numeric, time_budget=None)
        except InvalidArgument as exc:
            raise InvalidArgument(f"part {index} ({part.label!r}) of the declared structure: {exc}") from exc
        if not result.proved:
            return Outcome(
                Verdict.UNKNOWN,
                f"step 'part {index}' ({part.label}): the part {part.mechanism.name!r} is {result.verdict.value}: {result.reason}",
                method,
                steps,
            )
        part_claim = part.mechanism.claim
        eps_i = sympy.Symbol(f"epsilon_{index}")
        steps.append(Step(
            f"part {index}",
            sympy.Eq(eps_i, sympy.Float(part_claim.epsilon)),
            f"{part.label}: {part.mechanism.description}; proved ({result.method}, scope: {result.scope}): "
            f"{result.reason}",
        ))
        delta_i = part.mechanism.sensitivity
        if delta_i is None:
            return Outcome(Verdict.UNKNOWN, f"step 'sensitivity {index}': the part {part.mechanism.name!r} declares no sensitivity", method, steps)
        holds = part.input_sensitivity <= delta_i * (1 + FLOAT_SLACK)
        steps.append(Step(
            f"sensitivity {index}",
            sympy.Le(sympy.Float(part.input_sensitivity), sympy.Float(delta_i), evaluate=False),
            f"its input, {part.input}, moves by at most {part.input_sensitivity:g} between neighbouring datasets "
            f"({part.sensitivity_reason}); the part's proof covers inputs within Delta = {delta_i:g}",
        ))
        if not holds:
            return Outcome(
                Verdict.UNKNOWN,
                f"step 'sensitivity {index}' ({part.label}): the input moves by up to {part.input_sensitivity:g} "
                f"between neighbours, more than the part's proved sensitivity {delta_i:g}",
                method,
                steps,
            )
        claims.extend([part_claim] * part.repeat)
    try:
        composed, composition_step = sequential(claims)
    except TheoremNotApplicable as exc:
        return Outcome(Verdict.UNKNOWN, f"step 'composition': {exc}", method, steps)
    if len(claims) > 1:
        repeats = ", ".join(f"part {i} x {p.repeat}" for i, p in enumerate(structure.parts, 1))
        steps.append(dataclasses.replace(composition_step, justification=(
            f"{len(claims)} runs in sequence ({repeats}), each private for every value of the earlier outputs: "
            + composition_step.justification + "; adaptive form: Dwork, Rothblum & Vadhan 2010"
        )))
    return close_chain(composed, claim, method, steps, "the composition", structure.output)
