"""Decide a mechanism declared as a program: an alignment proof, else a checked counterexample, else unknown.

Preconditions
    ``mechanism.program()`` returns a program of :mod:`dpaudit.mechanisms.programs`; the claim is pure,
    approximate or probabilistic DP (an alignment proves pure epsilon-DP, which implies the other two
    for every delta >= 0).

Claim
    ``proved``: the alignment of :mod:`.alignment` costs at most epsilon (for all epsilon > 0 and
    Delta > 0 when the cost is a constant multiple of epsilon, else at the instance).  ``refuted``:
    :mod:`.counterexamples` found a pair and an output with ln P ratio > epsilon at 50 digits
    (a pure-DP refutation; it refutes an (epsilon, delta) claim only if delta is below the witness
    mass gap, so for those claims the verdict is ``unknown`` with the witness in the details).
    ``unknown``: neither.

Proof
    See the two modules; this one only routes and writes the outcome (:mod:`.procedure` the result).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from ...claims import Claim
from ...errors import InvalidArgument
from ..result import Counterexample, Outcome, Verdict
from .alignment import find_alignment
from .counterexamples import search_counterexample

__all__ = ["claimed_epsilon", "load_program", "prove_program"]


def load_program(mechanism: Any) -> Any:
    """``mechanism.program()``, checked: a ThresholdProgram or a NoisyMaxProgram (InvalidArgument otherwise)."""
    from ...mechanisms.programs import NoisyMaxProgram, ThresholdProgram

    try:
        program = mechanism.program()
    except Exception as exc:  # a user's builder may raise anything; report it as bad input
        raise InvalidArgument(f"program of mechanism={mechanism.name!r} could not be built: {type(exc).__name__}: {exc}") from exc
    if not isinstance(program, (ThresholdProgram, NoisyMaxProgram)):
        raise InvalidArgument(f"program of mechanism={mechanism.name!r} must be a ThresholdProgram or NoisyMaxProgram, got {program!r}")
    return program


def claimed_epsilon(program: Any, claim: Claim, numeric: bool) -> tuple[Any, str]:
    """The symbolic epsilon when the claim is the program's own (at its instance), else the claimed number."""
    import sympy

    own = program.value(program.epsilon)
    if not numeric and math.isclose(own, claim.epsilon, rel_tol=1e-12) and program.epsilon.free_symbols:
        return program.epsilon, "all parameters"
    return sympy.nsimplify(claim.epsilon, rational=True), "instance"


def _output_text(output: Any) -> str:
    words = {0: "bottom", 1: "top", -1: "unanswered"}
    if isinstance(output, int):
        return f"index {output}"
    if isinstance(output, tuple) and len(output) == 2 and output[0] == "<=":
        return f"value <= {float(output[1]):g}"
    return ", ".join(f"top with value <= {float(v[1]):g}" if isinstance(v, tuple) else words[v] for v in output)


def _plain_output(output: Any) -> Any:
    if isinstance(output, tuple) and len(output) == 2 and output[0] == "<=":
        return f"<= {float(output[1]):g}"
    if isinstance(output, tuple):
        return tuple(_plain_output(v) for v in output)
    return output


def prove_program(mechanism: Any, claim: Claim, numeric: bool, hints: tuple) -> Outcome:
    """Alignment, else counterexample search, for ``mechanism.program()`` (see the module docstring)."""
    import sympy

    program = load_program(mechanism)
    epsilon, scope = claimed_epsilon(program, claim, numeric)
    alignment, why = find_alignment(program, epsilon, program.instance)
    details: dict[str, Any] = {"program": str(program)}
    if alignment is not None:
        outcome = Outcome(
            Verdict.PROVED,
            "randomness alignment: " + ", ".join(f"eta_{k} = {sympy.sstr(v)}" for k, v in alignment.shifts.items())
            + f" keeps every path and costs {sympy.sstr(alignment.cost)} <= {sympy.sstr(epsilon)}"
            + (f"; pure DP implies the {claim.kind} claim for every delta >= 0" if claim.states_delta else ""),
            "randomness alignment",
            list(alignment.steps),
            details=details,
            scope="instance" if alignment.at_instance else scope,
        )
        details["holds_for_every_number_of_queries"] = alignment.independent_of_k
        return outcome
    details["alignment"] = why
    bound = program.exact(epsilon) if scope == "all parameters" else epsilon
    witness = search_counterexample(program, Fraction(str(sympy.Rational(bound))), hints)
    if witness is None:
        return Outcome(
            Verdict.UNKNOWN,
            f"no alignment proves it ({why}) and the counterexample search found no pair and output beyond e^epsilon",
            "randomness alignment",
            details=details,
            scope="instance",
        )
    ratio = float(witness.log_ratio) if witness.log_ratio != math.inf else math.inf
    counterexample = Counterexample(
        description=(
            f"output ({_output_text(witness.output)}) is possible under the first input and impossible under the second"
            if ratio == math.inf
            else f"output ({_output_text(witness.output)}) is e^{ratio:.6g} times likelier under the first input than under "
            f"the second, more than e^epsilon"
        ),
        inputs=(tuple(float(x) for x in witness.first), tuple(float(x) for x in witness.second)),
        output=_plain_output(witness.output),
        log_ratio=ratio,
        bound=float(bound),
        parameters={str(k): float(v) for k, v in program.instance.items()},
        extra={
            "probability_first": float(witness.probability_first),
            "probability_second": float(witness.probability_second),
            "probabilities": "closed-form nested Laplace/exponential integrals at 60 digits, each within 1e-35",
            "log_ratio_is": "the lower bound ln((p - 1e-35) / (p' + 1e-35)), compared with epsilon at 50 digits",
            "pairs_tried": witness.pairs_tried,
            "outputs_tried": witness.outputs_tried,
            "samples_per_side_to_see_it": f"about {witness.samples_to_see:.2g} (normal approximation, 5 standard errors)",
        },
    )
    if claim.states_delta:
        details["pure_dp_witness"] = counterexample.as_dict()
        return Outcome(Verdict.UNKNOWN, f"not pure {float(bound):g}-DP (witness in details); the {claim.kind} claim is not decided",
                       "randomness alignment", details=details, scope="instance")
    return Outcome(
        Verdict.REFUTED,
        f"ln P[output | q] - ln P[output | q'] = {ratio:.6g} > epsilon = {float(bound):g} ({why})",
        "counterexample search (exact probabilities)",
        counterexample=counterexample,
        details=details,
        scope="instance",
    )
