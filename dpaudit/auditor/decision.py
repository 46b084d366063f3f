"""The verdict of an audit, decided in one place: :func:`decide` applies every rule and says which decided.

The rules, in the order they are applied (a later one may only turn a non-violation into a
violation, or, for a curve claim, replace the point's verdict by the curve's):

1. **bound** -- the verified bound at the verdict's level exceeds the claimed epsilon (at the claimed
   delta): *violation* (its bound holds at whatever look the audit stopped).  Else *underpowered* when the
   time limit stopped the audit before its planned looks (or, for a curve claim, its curve) were done, or when even
   a perfect witness of a mechanism exactly at
   its claim would certify less than ``REACH_FRACTION`` x epsilon at that level (:func:`.bounds.reach`:
   never a silent pass), else *pass*.  An estimate above the claim whose verdict-level bound is not
   is said to be "not significant".
2. **certificate** -- a leak event with P_b(S) = 0 proved and a fresh output of M(a) in it
   (:func:`.events.leaks.events.certifies`): the claim is false outright, no estimate needed.
3. **probabilistic-dp** -- the bad-set test of :mod:`.probabilistic` refutes a probabilistic-DP claim
   (it also decides when its bound is the one reported).
4. **sensitivity** -- a pair of neighbours whose query values differ by more than the declared
   sensitivity (deterministic).
5. **curve** -- for a curve claim (zCDP, RDP, GDP, a privacy curve) the empirical curve at the
   verdict's level decides (:func:`.curve.claims.check_curve_claim`); a certificate or sensitivity
   counterexample at the working point refutes it too (the working point is implied by the claim);
   the working point's own bound is then an estimate only.

The scopes (:mod:`.scopes`) say whether a violation decided by a verified event (rules 1, 2) holds for
the algorithm itself or only for its implementation (a leak or side-channel event).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..claims import Claim
from .curve import EmpiricalCurve
from .curve.claims import check_curve_claim
from .records import CurveCheck, Finding, ScopeBounds, SensitivityFinding
from .result import Verdict, VerifiedEvent
from .scopes import bounds_by_scope, describe

__all__ = ["REACH_FRACTION", "Decision", "Evidence", "decide"]

REACH_FRACTION = 0.9


@dataclass(frozen=True)
class Evidence:
    """What the stages established, as :func:`decide` reads it.

    ``bound`` and ``verdict_bound`` are the reported bounds (floored at 0) at ``confidence`` and
    ``verdict_confidence``; ``reach`` the perfect witness's bound at the planned budget; ``event`` the
    reported event's text; ``records`` and ``implementation`` the verified candidates and whether each
    is an implementation event; ``certified`` the probabilistic-DP test (or None) and ``pdp_reported``
    whether its bound is the one reported; ``timed_out`` why the time limit stopped the audit before the looks a
    pass needs (None when it did not).
    """

    claim: Claim
    bound: float
    verdict_bound: float
    confidence: float
    verdict_confidence: float
    reach: float
    samples: int
    event: str
    findings: tuple[Finding, ...]
    records: tuple[VerifiedEvent, ...]
    implementation: tuple[bool, ...]
    checks: tuple[str, ...]
    certified: Any = None
    pdp_reported: bool = False
    timed_out: str | None = None


@dataclass(frozen=True)
class Decision:
    """The verdict, its reason, the rule that decided a violation (``decided_by``, "" otherwise), the
    bounds by scope, and for a curve claim the claim itself and its ``curve_check``."""

    verdict: Verdict
    reason: str
    decided_by: str
    bounds_by_scope: ScopeBounds | None
    claim: Claim
    curve_check: CurveCheck | None = None


def decide(evidence: Evidence, curve_claim: Claim | None = None, curve: EmpiricalCurve | None = None) -> Decision:
    """Apply the rules of the module docstring to ``evidence`` (and, for ``curve_claim``, to ``curve``)."""
    e, claim = evidence, evidence.claim
    verdict, reason = _bound_rule(e)
    decided_by = "bound" if verdict is Verdict.VIOLATION else ""
    certificates = [f for f in e.findings if f.is_certificate]
    if verdict is not Verdict.VIOLATION and certificates:
        verdict, decided_by = Verdict.VIOLATION, "certificate"
        reason = f"proved by the {certificates[0].check} check, not estimated: {certificates[0].reason}"
    certified = e.certified
    if certified is not None and certified.refuted and (e.pdp_reported or verdict is not Verdict.VIOLATION):
        verdict, decided_by = Verdict.VIOLATION, "probabilistic-dp"
        reason = ("probabilistic DP refuted: "
                  f"{certified.finding(claim, e.confidence, e.verdict_confidence).reason}")
    deterministic = [f for f in e.findings if isinstance(f, SensitivityFinding)]
    if verdict is not Verdict.VIOLATION and deterministic:
        verdict, decided_by = Verdict.VIOLATION, "sensitivity"
        reason = f"the sensitivity check found {deterministic[0].reason}"
    scopes = bounds_by_scope(list(e.records), list(e.implementation), e.checks, claim.epsilon,
                             (e.confidence, e.verdict_confidence), decided_by in ("bound", "certificate"))
    point = Decision(verdict, reason + describe(scopes, claim.epsilon), decided_by, scopes, claim)
    if curve_claim is None or curve is None:
        return point
    return _curve_rule(point, e, curve_claim, curve)


def _bound_rule(e: Evidence) -> tuple[Verdict, str]:
    """Rule 1: the bound at the verdict's level against the claim; the reason names both bounds."""
    epsilon = e.claim.epsilon
    levels_differ = e.verdict_confidence != e.confidence
    estimate_text = f" (estimate {e.bound:.4g} at confidence {e.confidence:g})" if levels_differ else ""
    if e.verdict_bound > epsilon:
        return Verdict.VIOLATION, (
            f"the verified bound {e.verdict_bound:.4g} at the verdict's confidence {e.verdict_confidence:g} exceeds "
            f"the claimed epsilon {epsilon:g} on the event {e.event}{estimate_text}"
        )
    marginal = ""
    if e.bound > epsilon:
        marginal = (
            f"; not significant: the estimate epsilon >= {e.bound:.4g} at confidence {e.confidence:g} lies above the "
            f"claim, but at the verdict's confidence {e.verdict_confidence:g} the bound is {e.verdict_bound:.4g} <= "
            f"{epsilon:g}: the excess {e.bound - epsilon:.2g} is within the interval's width "
            f"({e.bound - e.verdict_bound:.2g} between the two levels), where a mechanism exactly at its claim lands "
            f"in up to {1 - e.confidence:.2g} of audits; more samples would settle it"
        )
    if e.timed_out is not None:  # the looks a pass is judged on (``reach`` at the planned budget) never happened
        return Verdict.UNDERPOWERED, (
            f"no violation found before the time limit ({e.timed_out}): the looks that were complete support no "
            f"verdict, only the bound {e.verdict_bound:.4g} at the verdict's confidence {e.verdict_confidence:g}; "
            f"give it more time{marginal}"
        )
    if e.reach < REACH_FRACTION * epsilon:
        return Verdict.UNDERPOWERED, (
            f"no violation found, but with {e.samples} samples per side even a perfect witness could certify only "
            f"{max(e.reach, 0.0):.4g} < {REACH_FRACTION:g} x {epsilon:g} at the verdict's confidence "
            f"{e.verdict_confidence:g}; increase samples{marginal}"
        )
    if marginal:
        return Verdict.PASS, f"no violation{marginal}"
    return Verdict.PASS, (
        f"no violation: the verified bound {e.verdict_bound:.4g} at the verdict's confidence "
        f"{e.verdict_confidence:g} does not exceed the claimed epsilon {epsilon:g}{estimate_text}"
    )


def _curve_rule(point: Decision, e: Evidence, claim: Claim, curve: EmpiricalCurve) -> Decision:
    """Rule 5: the curve claim's verdict from the empirical curve at the verdict's level.

    Violation when the curve's bounds at ``verdict_confidence`` refute the claim (``decided_by="curve"``)
    or a check proved the working point false outright (a certificate or a sensitivity counterexample,
    which refute every claim that implies the point); else underpowered when the budget could not
    certify even ``REACH_FRACTION`` x the working point's epsilon with a perfect witness (the working point's own
    reach, :func:`.bounds.reach`: never a silent pass), else pass.  The working point's verified bound
    is kept as the reported estimate, but it does not decide: its verdict would be a second test at
    the same level.
    """
    working = e.claim
    decisive, estimate = check_curve_claim(claim, curve, verdict=True), check_curve_claim(claim, curve, verdict=False)
    at_point = (f"the verification at the working point {working} gave epsilon >= {e.bound:.4g} "
                f"at confidence {e.confidence:g} (an estimate; it does not decide)")
    if decisive.refuted:
        verdict, decided_by = Verdict.VIOLATION, "curve"
        reason = (f"the empirical curve at the verdict's confidence {curve.verdict_confidence:g} refutes {claim}: "
                  f"{decisive.describe()}")
    elif point.decided_by in ("certificate", "sensitivity"):
        verdict, decided_by = Verdict.VIOLATION, point.decided_by
        reason = f"{point.reason} (the working point {working} is implied by {claim})"
    elif point.verdict is Verdict.UNDERPOWERED:  # never a silent pass: the budget could not reach the claim
        verdict, decided_by = Verdict.UNDERPOWERED, ""
        reason = (f"no event of the curve's family ({len(curve.events)} oriented events) refutes {claim} at the "
                  f"verdict's confidence {curve.verdict_confidence:g}, but with {e.samples} samples per side even a "
                  f"perfect witness at the working point {working} could certify only {max(e.reach, 0.0):.4g} "
                  f"< {REACH_FRACTION:g} x {working.epsilon:g}: increase samples")
    else:
        verdict, decided_by = Verdict.PASS, ""
        reason = (f"no violation: at the verdict's confidence {curve.verdict_confidence:g} no event of the curve's "
                  f"family ({len(curve.events)} oriented events) refutes {claim}")
        if estimate.refuted:
            reason += (f"; not significant: at confidence {curve.confidence:g} the curve's estimate refutes it "
                       f"({estimate.describe()}), at {curve.verdict_confidence:g} it does not; more samples would "
                       "settle it")
    check = CurveCheck(refuted=decisive.refuted, estimate_refutes=estimate.refuted,
                       witness=decisive.witness if decisive.refuted else estimate.witness,
                       working_point=working.as_dict())
    return Decision(verdict, f"{reason}; {at_point}", decided_by, point.bounds_by_scope, claim, check)
