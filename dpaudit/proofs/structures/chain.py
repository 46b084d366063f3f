"""Closing a chain of theorem rules against the claim: post-processing into the release, then the implication.

Every structure rule derives a claim from its parts (:mod:`.sequential`, :mod:`.admissible`,
:mod:`.wishart`); :func:`close_chain` maps it through the release (post-processing, Dwork & Roth 2014,
Prop. 2.1) when the structure names one, and compares it with the claim (:func:`claim_covers`).  The rules
are sufficient conditions: a derived claim weaker than the claim gives ``unknown``, never ``refuted``.
"""

from __future__ import annotations

import dataclasses

from ...claims import Claim
from ..result import Outcome, Step, Verdict
from ..theorems.rules import TheoremNotApplicable, post_processing

__all__ = ["FLOAT_SLACK", "claim_covers", "close_chain"]

FLOAT_SLACK = 1e-12
"""Claims are floats: a bound equal to the claim up to its float rounding (1e-12 relative, the tolerance of
the claims' ``implies`` in :mod:`dpaudit.claims`, which the composition theorem uses) counts as meeting it."""


def claim_covers(proved: Claim, claim: Claim) -> bool:
    """``proved`` implies ``claim`` (``proved.implies(claim)``), or ``proved`` has delta = 0 and an epsilon no larger.

    The second case adds that pure DP implies probabilistic DP too: its privacy loss never exceeds
    epsilon, so the outputs where it does have mass 0 <= delta (Meiser 2018, Def. 2).
    """
    return proved.implies(claim) or (proved.delta == 0 and proved.epsilon <= claim.epsilon * (1 + FLOAT_SLACK))


def close_chain(derived: Claim, claim: Claim, method: str, steps: list[Step], what: str, output: str = "") -> Outcome:
    """Close a chain: ``derived`` (what the rules gave), post-processed into ``output`` if one is named,
    against the claim."""
    if output:
        try:
            derived, release_step = post_processing(derived)
        except TheoremNotApplicable as exc:
            return Outcome(Verdict.UNKNOWN, f"step 'post-processing': {exc}", method, steps)
        justification = f"the release is {output}; " + release_step.justification
        steps.append(dataclasses.replace(release_step, justification=justification))
    if claim_covers(derived, claim):
        steps.append(Step("final inequality", steps[-1].expression, f"{derived} implies the claim {claim}"))
        return Outcome(Verdict.PROVED, f"{what} gives {derived}, which implies the claim {claim}", method, steps)
    return Outcome(
        Verdict.UNKNOWN,
        f"step 'final inequality': {what} gives {derived}, weaker than the claim {claim} "
        "(the rule is sufficient, not necessary: the claim is not refuted)",
        method,
        steps,
    )
