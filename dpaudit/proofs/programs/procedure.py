"""The ``program`` proof procedure: a mechanism without a density that declares a program.

:class:`ProgramProcedure` runs :func:`~.decide.prove_program` (an alignment proof, else a checked
counterexample, else unknown) under the time budget, and writes the result: a proof's certificate states
pure epsilon-DP under |q_i - q'_i| <= Delta for every i, for all epsilon > 0 and Delta > 0 when the
alignment's cost is a constant multiple of epsilon, else at the program's instance.  The scope of anything
but a proof for all parameters is the instance.
"""

from __future__ import annotations

import time
from typing import Any

from ...claims import Claim
from ...mechanisms.base import Mechanism
from ..budget import decide_within
from ..procedures import ProofRequest
from ..result import Certificate, ProofResult, Verdict

__all__ = ["ProgramProcedure"]


class ProgramProcedure:
    """``program``: a Mechanism with no density and a declared ``program``."""

    name = "program"

    def applies(self, mechanism: Any, claim: Claim) -> bool:
        return isinstance(mechanism, Mechanism) and mechanism.density is None and mechanism.program is not None

    def decide(self, mechanism: Mechanism, claim: Claim, request: ProofRequest) -> ProofResult:
        import sympy

        # Imported before the budget starts (see :mod:`dpaudit.proofs.structures.procedure`).
        from .decide import claimed_epsilon, load_program, prove_program

        outcome = decide_within(request.time_budget,
                                lambda: prove_program(mechanism, claim, request.numeric, tuple(mechanism.pairs)),
                                scope="instance")
        scope = outcome.scope or "instance"
        certificate = None
        if outcome.verdict is Verdict.PROVED:
            program = load_program(mechanism)
            epsilon = claimed_epsilon(program, claim, request.numeric)[0]
            statement = f"{mechanism.name} is pure ({sympy.sstr(epsilon)}, 0)-DP"
            if scope == "instance":
                statement += " at " + ", ".join(f"{p}={sympy.sstr(v)}" for p, v in program.instance.items())
            statement += f" under |q_i - q'_i| <= {sympy.sstr(program.sensitivity)} for every i"
            if program.monotone:
                statement += ", all q'_i - q_i of one sign (monotone queries only)"
            symbols = program.epsilon.free_symbols | program.sensitivity.free_symbols
            assumptions = tuple(f"{s} > 0" for s in sorted(symbols, key=str))
            certificate = Certificate(statement, tuple(outcome.steps), scope, assumptions)
        elapsed = time.perf_counter() - request.start
        return outcome.as_result(mechanism.name, dict(claim.as_dict()), scope, certificate, elapsed)
