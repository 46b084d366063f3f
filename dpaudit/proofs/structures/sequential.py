"""Sequential composition of proved parts (:class:`~dpaudit.mechanisms.structure.SequentialComposition`).

Preconditions
    Every part's mechanism has a density and its own claim is proved by :func:`dpaudit.prove` for query
    values within its sensitivity Delta_i; the part's input moves by at most ``input_sensitivity`` <=
    Delta_i between neighbouring datasets, for every value of the earlier parts' outputs.
Claim
    The composed release is (sum_i r_i epsilon_i, sum_i r_i delta_i)-DP (r_i the part's repeats).
Proof
    Each part is (epsilon_i, delta_i)-DP as a function of the data, for every history, by its proof and
    the sensitivity step; the transcript is their adaptive sequential composition (Dwork & Roth 2014,
    Thm. 3.16; the adaptive form: Dwork, Rothblum & Vadhan 2010, and for pure DP directly: the
    transcript's density is the product of the parts' conditional densities, each ratio <= e^epsilon_i);
    the release is a map of the transcript (post-processing, Dwork & Roth 2014, Prop. 2.1; :mod:`.chain`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from ...claims import Claim
from ...errors import InvalidArgument
from ...mechanisms.structure import SequentialComposition
from ..budget import checkpoint
from ..result import Outcome, ProofResult, Step, Verdict
from ..theorems.rules import TheoremNotApplicable, sequential
from .chain import FLOAT_SLACK, close_chain

__all__ = ["prove_sequential"]


def prove_sequential(structure: SequentialComposition, claim: Claim, numeric: bool,
                     prove: Callable[..., ProofResult]) -> Outcome:
    """Prove each part with ``prove`` (:func:`dpaudit.prove`), check its sensitivity, compose, close the chain."""
    import sympy

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
                f"step 'part {index}' ({part.label}): the part {part.mechanism.name!r} is {result.verdict.value}: "
                f"{result.reason}",
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
            return Outcome(Verdict.UNKNOWN,
                           f"step 'sensitivity {index}': the part {part.mechanism.name!r} declares no sensitivity",
                           method, steps)
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
