"""Verdicts for the claims that state a curve (zCDP, RDP, GDP, a privacy curve), from the empirical curve.

A curve claim promises (epsilon, delta_claim(epsilon))-DP for every epsilon >= 0 (and, for zCDP and
RDP, bounds on Rényi divergences).  The audit measures the empirical curve of the pair it verified
(:mod:`.curve`): one-sided Clopper-Pearson bounds L_i <= P_first(S_i) and U_i >= P_second(S_i) on m
oriented events, all holding at once with probability >= the curve's confidence (Bonferroni).  On
that event each of the following refutes the claim, so each is a test at that level and using
several of them costs no further alpha (they are consequences of one family of bounds):

* **the point of the curve** -- some event and epsilon with L_i - e^epsilon U_i > delta_claim(epsilon)
  (Dwork & Roth 2014, Def. 2.4).  The epsilon is searched on a grid (every grid point is a valid
  witness; the grid can only cost power) from 0 to ln(L_i / U_i), beyond which the left side is negative;
* **Gaussian DP** -- Phi^-1(L_i) - Phi^-1(U_i) > mu (Dong, Roth & Su 2022; :mod:`.curve`), the exact
  form of the same statement for the GDP curve;
* **zCDP and RDP** -- d_alpha(L_i || U_i) > rho alpha for some alpha > 1 (zCDP, Bun & Steinke 2016,
  Def. 1.1), or > epsilon(alpha) at one of the claimed orders (RDP, Mironov 2017, Def. 4), with
  d_alpha the binary Rényi divergence (data processing, van Erven & Harremoës 2014, Thm. 9).

The verdict is taken on the bounds at ``verdict_confidence``; the same test on the bounds at
``confidence`` is the estimate (a refutation there only is "not significant", as for point claims).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...claims import CURVE_KINDS, ApproxDP, Claim, PureDP
from ..result import Verdict
from .empirical import ALPHA_GRID, EmpiricalCurve, binary_renyi

__all__ = ["EPSILON_GRID", "WORKING_DELTA", "CurveCheck", "check_curve_claim", "is_curve_claim", "working_point"]

WORKING_DELTA = 1e-5
EPSILON_GRID = 256


def is_curve_claim(claim: Claim) -> bool:
    """Whether ``claim`` states a curve of guarantees (zCDP, RDP, GDP, a privacy curve)."""
    return getattr(claim, "kind", None) in CURVE_KINDS


def working_point(claim: Claim) -> ApproxDP | PureDP:
    """The (epsilon, delta) point of a curve claim that the search and verification stages work at.

    The verdict of a curve claim comes from the whole empirical curve (:func:`check_curve_claim`);
    this point only chooses the pair and the events those stages report: the claim at
    ``WORKING_DELTA``, or, for a tabulated curve that promises nothing there, its point of least delta.
    """
    if claim.kind == "curve" and not math.isfinite(claim.epsilon_at_delta(WORKING_DELTA)):  # type: ignore[attr-defined]
        epsilon, delta = claim.epsilon[-1], claim.delta[-1]  # type: ignore[attr-defined]
        return ApproxDP(epsilon, delta) if delta > 0 else PureDP(epsilon)
    return claim.to_approx(WORKING_DELTA)  # type: ignore[attr-defined]


@dataclass(frozen=True)
class CurveCheck:
    """The outcome of :func:`check_curve_claim` at one level: whether the claim is refuted, and where.

    ``witness`` names the event and its orientation, the test that refutes (``"curve point"``,
    ``"gdp"`` or ``"renyi"``), and for a curve point the epsilon, the claimed delta there and the
    empirical lower bound on delta; for Rényi the order alpha, the claimed and the bounded divergence.
    """

    refuted: bool
    witness: dict[str, Any] | None

    def describe(self) -> str:
        w = self.witness
        if w is None:
            return "no event of the curve's family refutes it"
        where = f"on the event {w['event']} ({w['orientation']})"
        if w["test"] == "renyi":
            return (f"at order alpha = {w['alpha']:.4g} the Rényi divergence is >= {w['divergence_lower_bound']:.4g} "
                    f"> the claimed {w['claimed_divergence']:.4g} {where}")
        if w["test"] == "gdp":
            return (f"Phi^-1(P1(S)) - Phi^-1(P2(S)) >= {w['mu_lower_bound']:.4g} > mu = {w['mu']:g} {where}, i.e. at "
                    f"epsilon = {w['epsilon']:.4g} delta >= {w['delta_lower_bound']:.3g} > the claimed "
                    f"{w['claimed_delta']:.3g}")
        return (f"at epsilon = {w['epsilon']:.4g} delta >= {w['delta_lower_bound']:.3g} > the claimed "
                f"{w['claimed_delta']:.3g} {where}")


def _orientation(event: Any) -> str:
    return "M(a) over M(b)" if event.forward else "M(b) over M(a)"


def _curve_point(claim: Claim, curve: EmpiricalCurve, lower: np.ndarray, upper: np.ndarray) -> dict[str, Any] | None:
    """The largest excess L_i - e^epsilon U_i - delta_claim(epsilon) over the events and an epsilon grid."""
    useful = (lower > upper) & (lower > 0)
    if not np.any(useful):
        return None
    with np.errstate(divide="ignore"):
        top = float(np.max(np.log(lower[useful]) - np.log(upper[useful])))
    epsilons = np.linspace(0.0, min(top, 700.0), EPSILON_GRID)
    claimed = np.array([claim.delta_at_epsilon(float(e)) for e in epsilons])  # type: ignore[attr-defined]
    excess = lower[:, None] - np.exp(epsilons)[None, :] * upper[:, None] - claimed[None, :]
    i, j = np.unravel_index(int(np.argmax(excess)), excess.shape)
    if excess[i, j] <= 0:
        return None
    event = curve.events[i]
    return {"test": "curve point", "event": event.event, "event_spec": event.event_spec,
            "orientation": _orientation(event), "epsilon": float(epsilons[j]), "claimed_delta": float(claimed[j]),
            "delta_lower_bound": float(lower[i] - math.exp(epsilons[j]) * upper[i])}


def _gdp(claim: Any, curve: EmpiricalCurve, lower: np.ndarray, upper: np.ndarray) -> dict[str, Any] | None:
    """Phi^-1(L_i) - Phi^-1(U_i) > mu, with the (epsilon, delta) point where the curves cross."""
    from scipy.special import ndtri

    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.nan_to_num(ndtri(lower) - ndtri(upper), nan=-np.inf)
    i = int(np.argmax(values))
    if not values[i] > claim.mu:
        return None
    event = curve.events[i]
    # The point of the curve that refutes: maximise L - e^eps U - delta_mu(eps) over eps.
    top = math.log(lower[i] / upper[i])
    epsilons = np.linspace(0.0, top, EPSILON_GRID)
    excess = [lower[i] - math.exp(e) * upper[i] - claim.delta_at_epsilon(float(e)) for e in epsilons]
    j = int(np.argmax(excess))
    return {"test": "gdp", "event": event.event, "event_spec": event.event_spec, "orientation": _orientation(event),
            "mu": claim.mu, "mu_lower_bound": float(values[i]), "epsilon": float(epsilons[j]),
            "claimed_delta": float(claim.delta_at_epsilon(float(epsilons[j]))),
            "delta_lower_bound": float(lower[i] - math.exp(epsilons[j]) * upper[i])}


def _renyi(claim: Any, curve: EmpiricalCurve, lower: np.ndarray, upper: np.ndarray) -> dict[str, Any] | None:
    """d_alpha(L_i || U_i) above the claimed divergence at some order (zCDP: all alpha; RDP: its orders)."""
    useful = np.flatnonzero((lower > upper) & (lower > 0))
    if useful.size == 0:
        return None
    if claim.kind == "zcdp":
        alphas = np.asarray(ALPHA_GRID)
        claimed = claim.rho * alphas
    else:
        alphas, claimed = np.asarray(claim.alpha), np.asarray(claim.epsilon)
    divergence = binary_renyi(lower[useful][:, None], upper[useful][:, None], alphas[None, :])
    excess = divergence - claimed[None, :]
    i, j = np.unravel_index(int(np.argmax(excess)), excess.shape)
    if not excess[i, j] > 0:
        return None
    event = curve.events[int(useful[i])]
    return {"test": "renyi", "event": event.event, "event_spec": event.event_spec, "orientation": _orientation(event),
            "alpha": float(alphas[j]), "claimed_divergence": float(claimed[j]),
            "divergence_lower_bound": float(divergence[i, j])}


def check_curve_claim(claim: Claim, curve: EmpiricalCurve, verdict: bool) -> CurveCheck:
    """Whether the empirical curve refutes the curve ``claim`` (on the verdict's bounds when ``verdict``)."""
    lower, upper = curve.bounds(verdict)
    found = _curve_point(claim, curve, lower, upper)
    if found is None and claim.kind == "gdp":
        found = _gdp(claim, curve, lower, upper)
    if found is None and claim.kind in ("zcdp", "renyi"):
        found = _renyi(claim, curve, lower, upper)
    return CurveCheck(found is not None, found)


def decide_curve_claim(result: Any, claim: Claim) -> Any:
    """``result`` (an AuditResult whose stages worked at :func:`working_point`) with the curve claim's verdict.

    Violation when the curve's bounds at ``verdict_confidence`` refute the claim
    (``decided_by="curve"``) or a check proved the working point false outright (a certificate or a
    sensitivity counterexample, which refute every claim that implies the point); else underpowered when
    the budget could not certify even 0.9 x the working point's epsilon with a perfect witness (the
    working point's own reach, :func:`..bounds.reach`: never a silent pass), else pass.  The
    working point's verified bound is kept as the reported estimate, but it does not decide: its
    verdict would be a second test at the same level.
    """
    from dataclasses import replace

    curve = result.curve
    decisive, estimate = check_curve_claim(claim, curve, verdict=True), check_curve_claim(claim, curve, verdict=False)
    point = (f"the verification at the working point {result.claim} gave epsilon >= {result.epsilon_lower_bound:.4g} "
             f"at confidence {result.confidence:g} (an estimate; it does not decide)")
    if decisive.refuted:
        verdict, decided_by = Verdict.VIOLATION, "curve"
        reason = f"the empirical curve at the verdict's confidence {curve.verdict_confidence:g} refutes {claim}: {decisive.describe()}"
    elif result.decided_by in ("certificate", "sensitivity"):
        verdict, decided_by = Verdict.VIOLATION, result.decided_by
        reason = f"{result.reason} (the working point {result.claim} is implied by {claim})"
    elif result.verdict is Verdict.UNDERPOWERED:  # never a silent pass: the budget could not reach the claim
        verdict, decided_by = Verdict.UNDERPOWERED, ""
        reason = (f"no event of the curve's family ({len(curve.events)} oriented events) refutes {claim} at the "
                  f"verdict's confidence {curve.verdict_confidence:g}, but with {result.samples} samples per side even a "
                  f"perfect witness at the working point {result.claim} could certify only {result.epsilon_reach:.4g} "
                  f"< 0.9 x {result.claim.epsilon:g}: increase samples")
    else:
        verdict, decided_by = Verdict.PASS, ""
        reason = (f"no violation: at the verdict's confidence {curve.verdict_confidence:g} no event of the curve's "
                  f"family ({len(curve.events)} oriented events) refutes {claim}")
        if estimate.refuted:
            reason += (f"; not significant: at confidence {curve.confidence:g} the curve's estimate refutes it "
                       f"({estimate.describe()}), at {curve.verdict_confidence:g} it does not; more samples would settle it")
    check = {"refuted": decisive.refuted, "estimate_refutes": estimate.refuted,
             "witness": decisive.witness if decisive.refuted else estimate.witness,
             "working_point": result.claim.as_dict()}
    return replace(result, claim=claim, verdict=verdict, decided_by=decided_by, reason=f"{reason}; {point}",
                   curve_check=check)
