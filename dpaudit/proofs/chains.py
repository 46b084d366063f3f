"""How a chain of theorem rules ends: the claim it derived, post-processed into the release, against the claim.

The structure rules (:mod:`.structure`: sequential composition; :mod:`.admissible`; :mod:`.wishart`)
each derive a claim for what the mechanism computes and close with :func:`close_chain`: the release is
a map of it (post-processing, Dwork & Roth 2014, Prop. 2.1) and the derived claim must imply the one
stated (:func:`claim_covers`), else the verdict is ``unknown`` -- the rules are sufficient conditions,
so a weaker derived claim does not refute.
"""

from __future__ import annotations

import dataclasses

from ..claims import Claim
from .result import Outcome, Step, Verdict
from .theorems import TheoremNotApplicable, post_processing

__all__ = ["FLOAT_SLACK", "claim_covers", "close_chain"]

# Claims are floats: a bound equal to the claim up to its float rounding (1e-12 relative, the
# tolerance of the composition rule in prove._prove_composition) counts as meeting it.
FLOAT_SLACK = 1e-12


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
        steps.append(dataclasses.replace(release_step,
                                         justification=f"the release is {output}; " + release_step.justification))
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
