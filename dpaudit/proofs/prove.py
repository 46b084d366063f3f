"""``prove(mechanism)``: check the arguments, then run the first registered proof procedure that applies.

The procedures, their order and the room each comes from are listed in :mod:`.procedures`: a
Composition, a declared structure, a program, a tabulated privacy curve, another curve claim, and a
density with a pure, approximate or probabilistic claim.  Each procedure's modules state their
Preconditions / Claim / Proof.

A claim is proved for all parameter values allowed by the declared assumptions, unless the caller asks
for the numeric instance (``numeric=True``) or restates it with other numbers (the density's procedure,
:mod:`.densities.procedure`, says when).  Every proof runs under a time budget (:mod:`.budget`, default
:data:`DEFAULT_TIME_BUDGET` seconds); past it the verdict is ``unknown`` with the reason "time budget
exhausted at step ...".
"""

from __future__ import annotations

import time
from typing import Any

from .._validation import check_flag, check_positive_finite
from ..claims import Claim, check_claim
from ..errors import InvalidArgument
from ..mechanisms.base import Mechanism
from ..targets import is_plain_callable, load_target, resolve, target_name
from .procedures import ProofRequest, registered_procedures
from .result import ProofResult
from .theorems.composition import Composition

__all__ = ["DEFAULT_TIME_BUDGET", "check_provable", "prove"]

DEFAULT_TIME_BUDGET = 10.0


def check_provable(named: str, target: Any) -> None:
    """A plain function declares nothing to prove: InvalidArgument starting ``named`` (the target as the user
    named it) that says so and points to the verbs that check code."""
    if isinstance(target, Composition) or not is_plain_callable(target):
        return
    raise InvalidArgument(f"{named} is a plain function: it declares no density, program or structure to prove; "
                          "audit it (a sampled lower bound on its epsilon) or certify it (exact bounds from its code, "
                          "for discrete samplers) instead")


def prove(
    mechanism: Any,
    *,
    claim: Claim | None = None,
    numeric: bool = False,
    time_budget: float | None = DEFAULT_TIME_BUDGET,
) -> ProofResult:
    """Prove or refute a mechanism's privacy claim from its declared density, program or structure.

    Parameters
    ----------
    mechanism : Mechanism, Composition or str
        A Mechanism with a ``density``, ``program`` or ``structure``, a catalogue name, ``module:attr``,
        or a Composition (decided against its own claim).
    claim : Claim, optional
        Restate the claim (default: the mechanism's own): PureDP, ApproxDP, ProbabilisticDP, or a
        curve claim -- ZeroConcentratedDP, RenyiDP, GaussianDP (decided from the closed-form Rényi
        divergence, :mod:`.divergences.concentrated`) or PrivacyCurve (each point as ApproxDP).
    numeric : bool
        Check the catalogue instance's parameter values only, instead of all parameter values.
    time_budget : float or None
        Seconds after which the proof stops with verdict ``unknown`` ("time budget exhausted at
        step ..."); ``None`` for no limit.

    Returns
    -------
    ProofResult
        ``proved`` with a certificate, ``refuted`` with a counterexample re-verified with mpmath at
        50 digits, or ``unknown`` with the step that could not be decided.
    """
    start = time.perf_counter()
    if time_budget is not None:
        try:
            time_budget = check_positive_finite("time_budget", time_budget)
        except InvalidArgument:
            raise InvalidArgument(
                f"time_budget={time_budget!r} must be a positive finite number of seconds or None") from None
    check_flag("numeric", numeric)
    if isinstance(mechanism, str):
        loaded = load_target(mechanism)
        check_provable(f"mechanism={mechanism!r}", loaded)
        mechanism = loaded if isinstance(loaded, Mechanism) else resolve(mechanism)
    check_provable(f"mechanism={target_name(mechanism)}", mechanism)
    if isinstance(mechanism, Composition):
        restated, claim = False, mechanism.claim  # a Composition is decided against its own claim
    elif isinstance(mechanism, Mechanism):
        if claim is not None:
            check_claim("claim", claim)
        restated, claim = claim is not None, claim or mechanism.claim
    else:
        raise InvalidArgument(f"mechanism={target_name(mechanism)} must be a Mechanism, a Composition or a catalogue name")
    request = ProofRequest(numeric=numeric, time_budget=time_budget, start=start, restated=restated, prove=prove)
    for procedure in registered_procedures():
        if procedure.applies(mechanism, claim):
            return procedure.decide(mechanism, claim, request)
    raise InvalidArgument(f"mechanism={mechanism.name!r} must declare a symbolic density, a program or a structure "
                          "to be proved (it has none)")
