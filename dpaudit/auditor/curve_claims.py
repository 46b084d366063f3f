"""What the auditor does with a claim that states a curve (zCDP, RDP, GDP, a privacy curve).

The audit bounds epsilon at one delta; a curve claim states a whole family of (epsilon, delta)
guarantees.  Until the curve itself is audited, such a claim is audited at one point of its curve,
chosen by the caller: ``audit(target, delta=1e-5)`` audits the (epsilon(1e-5), 1e-5)-DP the claim
implies (:func:`dpaudit.mechanisms.targets.resolve` fills in epsilon from the claim's curve).
"""

from __future__ import annotations

from ..claims import CURVE_KINDS, Claim
from ..errors import InvalidArgument

__all__ = ["check_auditable"]

EXAMPLE_DELTA = 1e-5


def check_auditable(claim: Claim) -> None:
    """Raise InvalidArgument, naming the fix, for a curve claim that was not restated at a point."""
    if claim.kind not in CURVE_KINDS:
        return
    point = claim.to_approx(EXAMPLE_DELTA)
    raise InvalidArgument(
        f"claim {claim} ({claim.kind}) states a curve of (epsilon, delta) guarantees; audit one point of it: "
        f"pass delta= (e.g. delta={EXAMPLE_DELTA:g} audits {point}) or epsilon= (--delta/--epsilon on the command line)"
    )
