"""The ``structure`` proof procedure: a mechanism without a density that declares how it is built.

A mechanism without a closed-form density may declare a ``structure`` (:mod:`dpaudit.mechanisms.structure`);
:class:`StructureProcedure` decides its claim with the rule of the structure's kind and returns a
certificate whose steps are the chain of rules, each one checked:

* :class:`~dpaudit.mechanisms.structure.SequentialComposition` -- the parts proved, then sequential
  composition (:mod:`.sequential`);
* :class:`~dpaudit.mechanisms.structure.AdmissibleNoise` -- smooth-sensitivity noise (:mod:`.admissible`);
* :class:`~dpaudit.mechanisms.structure.WishartNoise` -- the Wishart mechanism (:mod:`.wishart`);
* :class:`~dpaudit.mechanisms.structure.GaussianSteps` -- DP-SGD's Gaussian steps (:mod:`.gaussian_steps`).

A failed precondition gives ``unknown`` with the step that failed: these rules are sufficient
conditions, so a failure does not show that the claim is false.  A curve claim is decided from a
declared density only, so against a structure it is ``unknown``.
"""

from __future__ import annotations

import time
from typing import Any

from ...claims import Claim
from ...mechanisms.base import Mechanism
from ...mechanisms.structure import AdmissibleNoise, GaussianSteps, SequentialComposition, WishartNoise
from ..budget import decide_within
from ..procedures import ProofRequest
from ..result import Certificate, Outcome, ProofResult, Verdict

__all__ = ["StructureProcedure"]


class StructureProcedure:
    """``structure``: a Mechanism with no density and a declared ``structure``."""

    name = "structure"

    def applies(self, mechanism: Any, claim: Claim) -> bool:
        return isinstance(mechanism, Mechanism) and mechanism.density is None and mechanism.structure is not None

    def decide(self, mechanism: Mechanism, claim: Claim, request: ProofRequest) -> ProofResult:
        if claim.is_curve:
            reason = f"a {claim.kind} claim is decided from a declared density; {mechanism.name!r} declares a structure"
            return ProofResult(mechanism.name, claim.as_dict(), Verdict.UNKNOWN, reason, "none",
                               elapsed_s=time.perf_counter() - request.start)
        # The rules' modules are imported before the budget starts: its alarm, raised inside an import,
        # can land in CPython's parser and leave it in an inconsistent state (a SystemError, not a timeout).
        from .admissible import prove_admissible_noise
        from .gaussian_steps import prove_gaussian_steps
        from .sequential import prove_sequential
        from .wishart import prove_wishart

        structure = mechanism.structure

        def rule() -> Outcome:
            if isinstance(structure, SequentialComposition):
                return prove_sequential(structure, claim, request.numeric, request.prove)
            if isinstance(structure, AdmissibleNoise):
                return prove_admissible_noise(structure, claim, mechanism.query)
            if isinstance(structure, WishartNoise):
                return prove_wishart(structure, claim)
            if isinstance(structure, GaussianSteps):
                return prove_gaussian_steps(structure, claim)
            return Outcome(Verdict.UNKNOWN, f"structure {type(structure).__name__} has no proof rule", "none")

        outcome = decide_within(request.time_budget, rule)
        scope = outcome.scope or "instance"
        certificate = None
        if outcome.verdict is Verdict.PROVED:
            statement = f"{mechanism.name} ({mechanism.description}) satisfies {claim}"
            certificate = Certificate(statement, tuple(outcome.steps), scope)
        else:
            outcome.details.setdefault("steps_checked", [str(s) for s in outcome.steps])
        elapsed = time.perf_counter() - request.start
        return outcome.as_result(mechanism.name, dict(claim.as_dict()), scope, certificate, elapsed)
