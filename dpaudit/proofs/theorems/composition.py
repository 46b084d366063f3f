"""A mechanism declared as a composition of parts, and the ``composition`` proof procedure.

Preconditions
    Each part is a mechanism :func:`dpaudit.prove` proves on its own (its own claim); the parts run on
    the same data (``"sequential"``) or on disjoint subsets of it (``"parallel"``).
Claim
    The composition's own claim.
Proof
    Each part proved, then the composition theorem of :mod:`.rules` (:func:`~.rules.sequential`,
    :func:`~.rules.parallel`) gives the composed claim, and :func:`~.rules.implies` checks that it
    implies the claim (probabilistic DP implying approximate DP, Meiser 2018, as a step).  A part not
    proved, or a composed claim weaker than the claim, gives ``unknown``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from ..._validation import check_one_of
from ...claims import Claim, claim_from_dict
from ...errors import InvalidArgument
from ..budget import time_budget
from ..procedures import ProofRequest
from ..result import Certificate, ProofResult, Step, Verdict
from .rules import claim_expression, implies, parallel, sequential

__all__ = ["Composition", "CompositionProcedure"]


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


class CompositionProcedure:
    """``composition``: a :class:`Composition`, decided against its own claim."""

    name = "composition"

    def applies(self, mechanism: Any, claim: Claim) -> bool:
        return isinstance(mechanism, Composition)

    def decide(self, composition: Composition, claim: Claim, request: ProofRequest) -> ProofResult:
        with time_budget(request.time_budget):
            parts = [request.prove(part, numeric=request.numeric, time_budget=request.time_budget)
                     for part in composition.parts]
        failed = [p for p in parts if not p.proved]
        if failed:
            return ProofResult(
                composition.name,
                claim.as_dict(),
                Verdict.UNKNOWN,
                "parts not proved: " + ", ".join(f"{p.mechanism} ({p.verdict.value})" for p in failed),
                "composition",
                elapsed_s=time.perf_counter() - request.start,
            )
        rule = sequential if composition.rule == "sequential" else parallel
        composed, step = rule([part.claim for part in composition.parts])
        steps = [Step("part", claim_expression(claim_from_dict(p.claim)), f"{p.mechanism}: {p.reason}") for p in parts]
        steps.append(step)
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
                elapsed_s=time.perf_counter() - request.start,
            )
        certificate = Certificate(f"{composition.name} satisfies {claim}", tuple(steps), "all parameters")
        return ProofResult(
            composition.name,
            claim.as_dict(),
            Verdict.PROVED,
            f"{composition.rule} composition of proved parts gives {composed}",
            "composition",
            certificate=certificate,
            elapsed_s=time.perf_counter() - request.start,
        )
