"""What a proof returns: a verdict with its reason, and a certificate or a counterexample.

* :class:`Step` -- one line of a derivation: a sympy expression and the sentence that justifies it
  (in the manner of OpenDP's proof margin notes: "substitute pdf", "cancel constants", ...).
* :class:`Certificate` -- the ordered steps of a proof (log ratio, case split, supremum, final
  inequality) and the statement proved, with its scope (all parameters or one numeric instance).
* :class:`Counterexample` -- the witness of a refutation: the output y (or output set S), the
  neighbouring inputs, the ratio or divergence reached, the parameter values used, and the
  high-precision re-evaluation that confirmed it.
* :class:`ProofResult` -- the verdict (``proved`` / ``refuted`` / ``unknown``) with its reason.

Every object is a frozen dataclass; ``as_dict()`` gives JSON-ready data in which each sympy
expression appears as a string and as presentation MathML.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from .._codec import to_json

__all__ = ["Certificate", "Counterexample", "ProofResult", "Step", "Verdict", "expression_dict"]


class Verdict(str, Enum):
    """The three outcomes of a proof attempt; never a "proved" that was not derived."""

    PROVED = "proved"
    REFUTED = "refuted"
    UNKNOWN = "unknown"

    def __str__(self) -> str:
        return self.value


def expression_dict(expression: Any) -> dict[str, str]:
    """A sympy expression as ``{"text": str, "latex": ..., "mathml": presentation MathML}``."""
    import sympy
    from sympy.printing.mathml import mathml

    expr = sympy.sympify(expression)
    return {
        "text": sympy.sstr(expr),
        "latex": sympy.latex(expr),
        "mathml": mathml(expr, printer="presentation"),
    }


@dataclass(frozen=True)
class Step:
    """One derivation step: ``expression`` (sympy) justified by ``justification`` (a sentence)."""

    name: str
    expression: Any
    justification: str

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "justification": self.justification, **expression_dict(self.expression)}

    def __str__(self) -> str:
        import sympy

        return f"[{self.name}] {sympy.sstr(self.expression)}\n    -- {self.justification}"


@dataclass(frozen=True)
class Certificate:
    """The derivation of a proved claim.

    Attributes
    ----------
    statement : str
        What was proved, in words (e.g. "for all epsilon > 0, Delta > 0 and |q - q'| <= Delta ...").
    steps : tuple of Step
        The ordered derivation.
    scope : str
        ``"all parameters"`` (symbolic, under ``assumptions``) or ``"instance"`` (numeric values).
    assumptions : tuple of str
        The assumptions on the parameters under which the statement holds.
    """

    statement: str
    steps: tuple[Step, ...]
    scope: str = "all parameters"
    assumptions: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            "statement": self.statement,
            "scope": self.scope,
            "assumptions": list(self.assumptions),
            "steps": [s.as_dict() for s in self.steps],
        }

    def __str__(self) -> str:
        lines = [f"Claim: {self.statement}", f"Scope: {self.scope}"]
        if self.assumptions:
            lines.append("Assumptions: " + ", ".join(self.assumptions))
        lines += [f"{i}. {step}" for i, step in enumerate(self.steps, 1)]
        return "\n".join(lines)


@dataclass(frozen=True)
class Counterexample:
    """A witness that the claim fails, re-verified with mpmath before it is reported.

    Attributes
    ----------
    description : str
        One sentence: what goes wrong.
    inputs : tuple
        The neighbouring inputs (a, b) (query values or domain elements), as plain numbers.
    output : Any
        The output y (a number or tuple), or None when the witness is a set.
    output_set : str or None
        The output set S in words (e.g. "y < -22.97"), when the witness is a set.
    log_ratio : float
        ln p(y | a) - ln p(y | b) at the witness (``inf`` when b cannot produce y), or the
        divergence value for (epsilon, delta) claims (see ``quantity``).
    quantity : str
        What ``log_ratio`` measures: "log ratio", "hockey-stick delta", "bad-event mass".
    bound : float
        The claimed value it exceeds (epsilon, or delta).
    mass : float or None
        P[M(a) in S] for a set witness.
    parameters : dict
        Parameter values of the witness (name -> number).
    precision_digits : int
        The mpmath working precision of the re-verification.
    """

    description: str
    inputs: tuple[Any, ...]
    output: Any
    log_ratio: float
    bound: float
    quantity: str = "log ratio"
    output_set: str | None = None
    mass: float | None = None
    parameters: dict[str, float] = field(default_factory=dict)
    precision_digits: int = 50
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "description": self.description,
            "inputs": to_json(self.inputs, whole_as_int=True),
            "output": to_json(self.output, whole_as_int=True),
            "output_set": self.output_set,
            "quantity": self.quantity,
            "value": to_json(self.log_ratio),
            "bound": to_json(self.bound),
            "mass": to_json(self.mass),
            "parameters": to_json(self.parameters),
            "precision_digits": self.precision_digits,
            "extra": to_json(self.extra, whole_as_int=True),
        }

    def __str__(self) -> str:
        return "\n".join([self.description, *self.detail_lines()])

    def detail_lines(self) -> list[str]:
        """The witness line by line (inputs, output, set, ratio, mass, parameters), without the description."""
        lines = [f"  inputs: {to_json(self.inputs, whole_as_int=True)}"]
        if self.output is not None:
            lines.append(f"  output y = {to_json(self.output, whole_as_int=True)}")
        if self.output_set:
            lines.append(f"  output set S: {self.output_set}")
        lines.append(f"  {self.quantity} = {_fmt(self.log_ratio)} > {_fmt(self.bound)}")
        if self.mass is not None:
            lines.append(f"  mass of S under the first input: {_fmt(self.mass)}")
        if self.parameters:
            lines.append("  parameters: " + ", ".join(f"{k}={_fmt(v)}" for k, v in self.parameters.items()))
        for key, value in self.extra.items():
            lines.append(f"  {key}: {to_json(value, whole_as_int=True)}")
        if self.precision_digits:  # 0: an exact witness (probabilities 1 and 0), nothing to re-evaluate
            lines.append(f"  (re-verified with mpmath at {self.precision_digits} digits)")
        return lines


def _fmt(value: Any) -> str:
    number = to_json(value)
    return f"{number:.6g}" if isinstance(number, float) else str(number)


@dataclass(frozen=True)
class ProofResult:
    """The outcome of :func:`dpaudit.prove`.

    Attributes
    ----------
    mechanism : str
        The mechanism's name.
    claim : dict
        The claim checked (``claim.as_dict()``), plus its symbolic form when it has one.
    verdict : Verdict
        ``proved`` (with ``certificate``), ``refuted`` (with ``counterexample``) or ``unknown``.
    reason : str
        Why: the theorem that closed the proof, the violated inequality, or the step that could
        not be decided.
    method : str
        Which procedure decided it ("density ratio", "finite enumeration", "hockey-stick", ...).
    scope : str
        ``"all parameters"`` or ``"instance"``.
    elapsed_s : float
        Wall time of the proof.
    """

    mechanism: str
    claim: dict[str, Any]
    verdict: Verdict
    reason: str
    method: str = ""
    scope: str = "all parameters"
    certificate: Certificate | None = None
    counterexample: Counterexample | None = None
    elapsed_s: float = 0.0
    details: dict[str, Any] = field(default_factory=dict)
    scope: str | None = None

    @property
    def proved(self) -> bool:
        return self.verdict is Verdict.PROVED

    @property
    def refuted(self) -> bool:
        return self.verdict is Verdict.REFUTED

    def as_dict(self) -> dict[str, Any]:
        return {
            "mechanism": self.mechanism,
            "claim": to_json(self.claim),
            "verdict": self.verdict.value,
            "reason": self.reason,
            "method": self.method,
            "scope": self.scope,
            "certificate": None if self.certificate is None else self.certificate.as_dict(),
            "counterexample": None if self.counterexample is None else self.counterexample.as_dict(),
            "elapsed_s": round(self.elapsed_s, 4),
            "details": to_json(self.details, whole_as_int=True),
        }

    def __str__(self) -> str:
        head = f"{self.mechanism}: {self.verdict.value.upper()} ({self.method}, scope: {self.scope})\n  {self.reason}"
        if self.counterexample is not None and self.counterexample.description.strip() == self.reason.strip():
            return "\n".join([head, *self.counterexample.detail_lines()])  # the reason already said it
        body = self.certificate or self.counterexample
        return head if body is None else f"{head}\n{body}"


@dataclass
class Outcome:
    """What a proof procedure hands back to :func:`dpaudit.prove` (internal, mutable while built)."""

    verdict: Verdict
    reason: str
    method: str
    steps: list[Step] = field(default_factory=list)
    statement: str = ""
    counterexample: Counterexample | None = None
    details: dict[str, Any] = field(default_factory=dict)
    scope: str | None = None

    def as_result(self, mechanism: str, claim: dict[str, Any], scope: str, certificate: Certificate | None,
                  elapsed_s: float) -> ProofResult:
        """The frozen :class:`ProofResult` of this outcome."""
        return ProofResult(
            mechanism=mechanism,
            claim=claim,
            verdict=self.verdict,
            reason=self.reason,
            method=self.method,
            scope=scope,
            certificate=certificate,
            counterexample=self.counterexample,
            elapsed_s=elapsed_s,
            details=self.details,
        )
