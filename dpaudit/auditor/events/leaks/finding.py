"""The result of an implementation-leak check, and the bound that turns an event into a statement.

Every leak check (exact float support, lattice events, correlated noise) ends the same way: it has
an event S of outputs, ``hits_a`` of ``n_a`` fresh outputs of M(a) in S and ``hits_b`` of ``n_b``
fresh outputs of M(b) in S.  Two one-sided exact Clopper-Pearson bounds, each at level alpha/2 and
joined by a union bound, give with confidence at least 1 - alpha

    P_a(S) >= LCB_a,    P_b(S) <= UCB_b,
    epsilon >= ln((LCB_a - delta) / UCB_b)        (DP-Sniper, Bichsel et al. 2021, Sect. 6; :mod:`.bounds`)
    delta   >= LCB_a - e^epsilon * UCB_b          (at the claimed epsilon)

because (epsilon, delta)-DP requires P_a(S) <= e^epsilon P_b(S) + delta for every S (Dwork & Roth
2014, Def. 2.4).  When the check *proves* P_b(S) = 0 (an exact support replay or the ulp-lattice
lemma), an output in S is a certificate of infinite privacy loss; with hits_b = 0 the epsilon bound
is then capped only by n_b (about ln(n_b * p_a / ln(2/alpha))): report "support mismatch", not a
finite epsilon as if it were tight.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from ...._codec import to_json
from ...._validation import (
    check_nonnegative_int,
    check_positive_int,
    check_probability_open,
)
from ....errors import InvalidArgument
from ...bounds import cp_lower, cp_upper

__all__ = ["LeakFinding", "LeakVerdict", "clopper_pearson_bounds", "epsilon_lower_bound", "delta_lower_bound"]


class LeakVerdict(str, Enum):
    """What a leak check concluded."""

    VIOLATION = "violation"  # the claim is refuted at the stated confidence
    PASS = "pass"  # this check found no leak (never a proof of privacy)
    INCONCLUSIVE = "inconclusive"  # the check refused to decide; the reason says why


def clopper_pearson_bounds(hits_a: int, n_a: int, hits_b: int, n_b: int, confidence: float) -> tuple[float, float]:
    """(LCB of P_a, UCB of P_b), each one-sided exact Clopper-Pearson at level 1 - (1 - confidence)/2.

    The union bound over the two gives joint coverage >= confidence; the bounds are the auditor's
    own (:func:`.bounds.cp_lower`, :func:`.bounds.cp_upper`), so leak findings and audit bounds agree.
    """
    check_probability_open("confidence", confidence)
    for name, hits, n in (("hits_a", hits_a, n_a), ("hits_b", hits_b, n_b)):
        check_positive_int(name.replace("hits", "n"), n)
        if check_nonnegative_int(name, hits) > n:
            raise InvalidArgument(f"{name}={hits!r} must be at most the number of samples {n}")
    level = 1.0 - (1.0 - confidence) / 2
    return float(cp_lower(hits_a, n_a, level)), float(cp_upper(hits_b, n_b, level))


def epsilon_lower_bound(lcb_a: float, ucb_b: float, delta: float = 0.0) -> float:
    """epsilon >= ln((LCB_a - delta) / UCB_b), floored at 0 (a bound of 0 says nothing)."""
    if lcb_a - delta <= 0.0 or ucb_b <= 0.0:
        return 0.0 if lcb_a - delta <= 0.0 else math.inf
    return max(0.0, math.log((lcb_a - delta) / ucb_b))


def delta_lower_bound(lcb_a: float, ucb_b: float, epsilon: float) -> float:
    """delta >= LCB_a - e^epsilon * UCB_b at the given epsilon, floored at 0."""
    return max(0.0, lcb_a - math.exp(epsilon) * ucb_b)


@dataclass(frozen=True)
class LeakFinding:
    """What one leak check found for one ordered pair (a, b).

    Attributes
    ----------
    check : str
        Which check produced it: ``"float-support"``, ``"lattice"`` or ``"correlated-noise"``.
    verdict : LeakVerdict
        ``violation`` when ``epsilon_lower_bound`` exceeds the claimed epsilon.
    reason : str
        One paragraph: what was found and why it implies a privacy violation (or why not).
    method : str
        How the event was chosen and how the bound was computed.
    claim : dict
        The claim under test (``claim.as_dict()``).
    pair : tuple
        The ordered pair (a, b), as ``repr`` strings; the event has mass under a.
    event : str
        Readable description of the event S.
    hits_a, n_a, hits_b, n_b : int
        Verification-stage counts of outputs in S.
    confidence : float
        Joint confidence of the two Clopper-Pearson bounds.
    lcb_a, ucb_b : float
        The bounds on P_a(S) and P_b(S).
    epsilon_lower_bound, delta_lower_bound : float
        The bounds of the module docstring (delta at the claimed epsilon).
    support_mismatch : bool
        No output of M(b) fell in S while some of M(a) did.
    proven_empty : bool
        P_b(S) = 0 is proved (exact replay, or the lattice lemma), not only observed.
    witness : dict
        One output in S and how it arises (e.g. its uniform index k*).
    figures : dict
        Other measured numbers (fractions, correlations, timings).
    seed : int or None
        The seed that reproduces the samples.
    """

    check: str
    verdict: LeakVerdict
    reason: str
    method: str
    claim: dict[str, Any]
    pair: tuple[str, str]
    event: str = ""
    hits_a: int = 0
    n_a: int = 0
    hits_b: int = 0
    n_b: int = 0
    confidence: float = 0.95
    lcb_a: float = 0.0
    ucb_b: float = 1.0
    epsilon_lower_bound: float = 0.0
    delta_lower_bound: float = 0.0
    support_mismatch: bool = False
    proven_empty: bool = False
    witness: dict[str, Any] = field(default_factory=dict)
    figures: dict[str, Any] = field(default_factory=dict)
    seed: int | None = None

    @property
    def flagged(self) -> bool:
        """True when the check refutes the claim."""
        return self.verdict is LeakVerdict.VIOLATION

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready (:func:`dpaudit._codec.to_json`: non-finite floats become the strings "inf", "-inf", "nan")."""
        return {name: to_json(getattr(self, name)) for name in self.__dataclass_fields__}


def finding_from_counts(
    *,
    check: str,
    claim: Any,
    pair: tuple[Any, Any],
    event: str,
    counts: tuple[int, int, int, int],
    confidence: float,
    proven_empty: bool,
    method: str,
    why: str,
    witness: dict[str, Any] | None = None,
    figures: dict[str, Any] | None = None,
    seed: int | None = None,
) -> LeakFinding:
    """Bound an event from its verification counts and phrase the finding.

    ``why`` explains, in one sentence, why the event can reveal a privacy violation.
    """
    hits_a, n_a, hits_b, n_b = counts
    lcb, ucb = clopper_pearson_bounds(hits_a, n_a, hits_b, n_b, confidence)
    delta = float(getattr(claim, "delta", 0.0))
    eps_lb = epsilon_lower_bound(lcb, ucb, delta)
    delta_lb = delta_lower_bound(lcb, ucb, claim.epsilon)
    mismatch = hits_a > 0 and hits_b == 0
    violated = eps_lb > claim.epsilon
    bound = (
        f"epsilon >= {eps_lb:.3f} and delta >= {delta_lb:.4g} at epsilon = {claim.epsilon:g} "
        f"(confidence {confidence:g}; Clopper-Pearson union bound on {hits_a}/{n_a} vs {hits_b}/{n_b})"
    )
    if violated and mismatch and proven_empty:
        reason = (
            f"support mismatch: {why} The event S = [{event}] has P_b(S) = 0 exactly, yet {hits_a} of {n_a} "
            f"outputs of M(a) fall in it, so the privacy loss is infinite (no epsilon satisfies "
            f"P_a(S) <= e^epsilon * 0 + delta for delta < P_a(S)); {bound}, capped by the sample size."
        )
    elif violated:
        tag = "support mismatch (observed, not proved): " if mismatch else ""
        reason = f"{tag}{why} The event S = [{event}] separates M(a) from M(b): {bound} > claimed {claim}."
    else:
        reason = f"no violation found by this check: {bound}, not above the claimed {claim} (not a proof of privacy)."
    return LeakFinding(
        check=check,
        verdict=LeakVerdict.VIOLATION if violated else LeakVerdict.PASS,
        reason=reason,
        method=method,
        claim=claim.as_dict(),
        pair=(repr(pair[0]), repr(pair[1])),
        event=event,
        hits_a=hits_a,
        n_a=n_a,
        hits_b=hits_b,
        n_b=n_b,
        confidence=confidence,
        lcb_a=lcb,
        ucb_b=ucb,
        epsilon_lower_bound=eps_lb,
        delta_lower_bound=delta_lb,
        support_mismatch=mismatch,
        proven_empty=proven_empty and hits_b == 0,
        witness=dict(witness or {}),
        figures=dict(figures or {}),
        seed=seed,
    )
