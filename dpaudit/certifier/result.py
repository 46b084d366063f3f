"""What :func:`dpaudit.certify` returns: typed, frozen, JSON round-trippable through the one codec.

* :class:`Verdict` -- ``certified`` (the code keeps the claim on the pairs enumerated: a proof),
  ``refuted`` (an output's certified probability ratio, or the certified delta, exceeds the claim:
  exact, no confidence level involved) or ``unknown`` (with the reason: mass left unexplored, an
  operation not followed, no claim given).
* :class:`OutcomeBound` -- one output with the interval [low, high] of its exact probability.
* :class:`InputLaw` -- per input of the pair: the outputs reached, the unexplored mass, the work done.
* :class:`Witness` -- the output that sets the certified lower bound: both intervals and one path.
* :class:`CertifyResult` -- the verdict with epsilon bracketed: ``epsilon_low <= epsilon <= epsilon_up``
  (pure; ``delta_up`` is the delta that goes with ``epsilon_up``), the hockey-stick delta at the
  claimed epsilon bracketed when a claim is given.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from typing import Any

from .._codec import to_json
from ..claims import Claim

__all__ = ["CertifyResult", "InputLaw", "OutcomeBound", "Verdict", "Witness", "bracket_text"]


class Verdict(str, enum.Enum):
    """The three outcomes of a certification; never ``certified`` for a claim the code breaks."""

    CERTIFIED = "certified"
    REFUTED = "refuted"
    UNKNOWN = "unknown"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class OutcomeBound:
    """``low <= P[output = outcome] <= high`` (exact rationals rounded outward to floats)."""

    outcome: Any
    low: float
    high: float


@dataclass(frozen=True)
class InputLaw:
    """The explored law of the sampler on one input.

    ``residual`` bounds the probability of every output not listed and the excess of every listed one;
    ``complete`` says it is 0 (every path enumerated).  ``set_aside`` lists mass the enumeration could
    not follow, with the reason (largest first).  ``paths`` counts the paths run from the sampler's
    start, ``summary_paths`` those run to summarise its helpers, ``nodes`` the merged program states;
    ``stopped_by`` says what ended the enumeration (``complete``, ``tolerance``, ``time limit``, ``path limit``).
    """

    input: Any
    outcomes: tuple[OutcomeBound, ...]
    residual: float
    complete: bool
    paths: int
    summary_paths: int
    nodes: int
    seconds: float
    set_aside: tuple[tuple[float, str], ...] = ()
    stopped_by: str = "complete"

    def probability(self, outcome: Any) -> tuple[float, float]:
        for bound in self.outcomes:
            if bound.outcome == outcome:
                return bound.low, bound.high
        return 0.0, min(1.0, self.residual)


@dataclass(frozen=True)
class Witness:
    """An output whose probabilities under the two inputs are certified to differ by ``ratio_low``
    at least: ``ln(P[o | input_x] / P[o | input_y]) >= ratio_low`` (infinite when P[o | input_y] = 0)."""

    outcome: Any
    input_x: Any
    input_y: Any
    interval_x: tuple[float, float]
    interval_y: tuple[float, float]
    ratio_low: float
    path: tuple[str, ...]


@dataclass(frozen=True)
class CertifyResult:
    """The certificate (or refutation) of a sampler's own code on the pairs enumerated.

    ``epsilon_low`` is a certified lower bound of the pure epsilon of the pairs; ``(epsilon_up,
    delta_up)`` is a valid (epsilon, delta) certificate (``delta_up`` = 0: pure).  With a claim, ``delta_at_claim`` brackets the
    hockey-stick delta at the claimed epsilon (the claim is certified when its upper end is at most the
    claimed delta, refuted when its lower end exceeds it).  ``observed`` says what an adversary sees:
    the output, or the output with the number of draws the sampler made.
    """

    target: str
    claim: Claim | None
    pairs: tuple[tuple[Any, Any], ...]
    verdict: Verdict
    reason: str
    epsilon_low: float
    epsilon_up: float
    delta_up: float
    delta_at_claim: tuple[float, float] | None
    observed: str
    laws: tuple[InputLaw, ...]
    witness: Witness | None
    seconds: float

    @property
    def certified(self) -> bool:
        return self.verdict is Verdict.CERTIFIED

    @property
    def refuted(self) -> bool:
        return self.verdict is Verdict.REFUTED

    @property
    def paths(self) -> int:
        return sum(law.paths + law.summary_paths for law in self.laws)

    @property
    def unexplored(self) -> float:
        """The largest unexplored mass over the inputs."""
        return max((law.residual for law in self.laws), default=0.0)

    def bracket(self, audited_low: float | None = None) -> str:
        """``epsilon in [low, up]``, the low end the larger of the certified one and an audited one; the
        certificate's delta is named when it is not 0."""
        low = self.epsilon_low if audited_low is None else max(self.epsilon_low, audited_low)
        return bracket_text(low, self.epsilon_up, self.delta_up)

    def as_dict(self) -> dict[str, Any]:
        return to_json({
            "target": self.target,
            "claim": None if self.claim is None else self.claim.as_dict(),
            "pairs": [list(pair) for pair in self.pairs],
            "verdict": self.verdict,
            "reason": self.reason,
            "epsilon_low": self.epsilon_low,
            "epsilon_up": self.epsilon_up,
            "delta_up": self.delta_up,
            "delta_at_claim": self.delta_at_claim,
            "observed": self.observed,
            "laws": [
                {
                    "input": law.input,
                    "outcomes": [[repr(b.outcome), b.low, b.high] for b in law.outcomes],
                    "residual": law.residual,
                    "complete": law.complete,
                    "paths": law.paths,
                    "summary_paths": law.summary_paths,
                    "nodes": law.nodes,
                    "seconds": law.seconds,
                    "set_aside": [list(item) for item in law.set_aside],
                    "stopped_by": law.stopped_by,
                }
                for law in self.laws
            ],
            "witness": None if self.witness is None else {
                "outcome": repr(self.witness.outcome),
                "input_x": self.witness.input_x,
                "input_y": self.witness.input_y,
                "interval_x": self.witness.interval_x,
                "interval_y": self.witness.interval_y,
                "ratio_low": self.witness.ratio_low,
                "path": self.witness.path,
            },
            "seconds": self.seconds,
        })

    def lines(self) -> list[str]:
        """The result as the command line prints it."""
        claim = "no claim" if self.claim is None else str(self.claim)
        out = [f"{self.verdict.value.upper()}: {self.target} against {claim} ({self.observed} observed)",
               f"  {self.reason}",
               f"  {self.bracket()} (certified by exact path enumeration)"]
        if self.delta_at_claim is not None:
            low, up = self.delta_at_claim
            out.append(f"  delta at the claimed epsilon in [{low:.3g}, {up:.3g}]")
        for law in self.laws:
            shown = ", ".join(f"{b.outcome!r}: [{b.low:.6g}, {b.high:.6g}]" for b in law.outcomes[:4]) or (
                "no output reached")
            more = f", ... ({len(law.outcomes)} outputs)" if len(law.outcomes) > 4 else ""
            stop = "" if law.stopped_by in ("complete", "tolerance") else f", stopped by the {law.stopped_by}"
            out.append(f"  input {law.input!r}: {shown}{more}; unexplored mass {law.residual:.3g} after "
                       f"{law.paths + law.summary_paths} paths in {law.seconds:.2f} s{stop}")
            for mass, reason in law.set_aside[:2]:
                out.append(f"    set aside {mass:.3g}: {reason}")
        if self.witness is not None and self.refuted:
            w = self.witness
            out.append(f"  witness: output {w.outcome!r}: P[. | {w.input_x!r}] in [{w.interval_x[0]:.6g}, "
                       f"{w.interval_x[1]:.6g}], P[. | {w.input_y!r}] in [{w.interval_y[0]:.6g}, {w.interval_y[1]:.6g}]")
            if w.path:
                out.append(f"  one path to it: {'; '.join(w.path[:6])}{' ...' if len(w.path) > 6 else ''}")
        return out

    def __str__(self) -> str:
        return "\n".join(self.lines())


def bracket_text(low: float, up: float, delta_up: float) -> str:
    """``epsilon in [low, up]`` (with the certificate's delta when it is not 0), or what is known when the
    upper end is infinite."""
    if math.isinf(up):
        return f"epsilon >= {_number(low)} (no finite upper bound certified)"
    with_delta = f" with delta {delta_up:.3g}" if delta_up > 0 else ""
    return f"epsilon in [{_number(low)}, {_number(up)}{with_delta}]"


def _number(value: float) -> str:
    return "inf" if math.isinf(value) else f"{value:.10g}"
