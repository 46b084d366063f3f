"""Two bounds side by side: the implementation's (every event family) and the algorithm's (leak families off).

A mechanism that samples its noise in doubles leaks its input through the low bits of its outputs
(Mironov 2012), and the leak families of :mod:`.events.leaks.families` find that with bounds of 4-12, which
hide whatever the algorithm itself does: a factor missing from the noise of report noisy max is
invisible behind a lattice event.  So when the events chosen for verification are all of leak
families, the best event of the mechanism's own families (thresholds, atoms, patterns, ...) is
verified beside them on the same fresh samples, and the audit reports both bounds:

* the *implementation bound*: the largest verified bound over every candidate (``epsilon_lower_bound``);
* the *algorithmic bound*: the largest over the candidates of the mechanism's own families, i.e.
  what the audit would say of the same implementation with exact arithmetic, ``checks=None``.

Both are candidates of one verification, so the Bonferroni split is explicit: each gets alpha / C
at every look (C = the number of verified candidates, 2 or more), and both bounds hold jointly at
the stated levels.  When an own-family event ranks first, the two scopes share it and nothing is
added: a leak event ranked below it would not raise the implementation bound, and verifying it
would cost every candidate alpha (an exact mechanism's leak families can score a chance tail event
above 0: sparse vector Alg. 5's correlated-noise event, 14.20 instead of 14.47 at 1.2 x 10^8).  The verdict says which scope decided it: *algorithmic* when the own-family
bound at the verdict's level exceeds the claim (the algorithm is broken, whatever the arithmetic),
else *implementation* (only a leak event refutes the claim: fix the floating point).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from .events import Scored, family_named
from .events.leaks.events import LEAK_FAMILIES
from .records import Scope, ScopeBounds

__all__ = ["bounds_by_scope", "describe", "implementation_only", "with_both_scopes"]


def implementation_only(reads_side_channel: Callable[[Any], bool]) -> Callable[[Scored], bool]:
    """Whether a found event speaks of the implementation only: its family says so (the leak families,
    ``EventFamily.implementation``), or it reads a side channel (:mod:`.events.side_channels`: the draw
    count or wall time recorded beside the output)."""
    def implementation(scored: Scored) -> bool:
        family = family_named(scored.family)
        return (family is not None and family.implementation) or reads_side_channel(scored.event)

    return implementation


def with_both_scopes(found: list[Scored], chosen: list[Scored],
                     implementation: Callable[[Scored], bool]) -> list[Scored]:
    """``chosen`` plus the best own event of ``found`` (ranked best first) when every chosen event is an
    implementation event (``implementation``, :func:`implementation_only`); else ``chosen`` itself."""
    if not chosen or not all(implementation(s) for s in chosen):
        return list(chosen)
    own = next((s for s in found if not implementation(s)), None)
    return list(chosen) + ([own] if own is not None else [])


def _scope(records: list[Any], levels: tuple[float, float]) -> Scope | None:
    if not records:
        return None
    best = max(records, key=lambda r: r.epsilon_lower_bound)
    decisive = max(r.verdict_epsilon_lower_bound for r in records)
    return Scope(epsilon_lower_bound=max(float(best.epsilon_lower_bound), 0.0), confidence=levels[0],
                 verdict_epsilon_lower_bound=max(float(decisive), 0.0), verdict_confidence=levels[1],
                 event=best.event, family=best.family)


def bounds_by_scope(records: list[Any], flags: list[bool], checks: tuple[str, ...], epsilon: float,
                    levels: tuple[float, float], decided: bool) -> ScopeBounds | None:
    """The two bounds and the scope that decided a violation (``decided``: decided by a verified event).

    ``flags[i]`` says whether ``records[i]`` is an implementation event (:func:`implementation_only`).
    None when the search ran no leak family and no event read a side channel (then there is one
    scope, and it is the algorithm's).  ``algorithmic`` is None when no own event was verified.
    """
    if not set(checks) & set(LEAK_FAMILIES) and not any(flags):
        return None
    own = [r for r, flag in zip(records, flags) if not flag]
    implementation, algorithmic = _scope(list(records), levels), _scope(own, levels)
    deciding = None
    if decided:
        algorithm_refutes = algorithmic is not None and algorithmic.verdict_epsilon_lower_bound > epsilon
        deciding = "algorithmic" if algorithm_refutes else "implementation"
    return ScopeBounds(implementation, algorithmic, deciding, len(records))


def describe(scopes: ScopeBounds | None, epsilon: float) -> str:
    """One sentence for the verdict's reason: which scope decided, and the other scope's bound."""
    if scopes is None or scopes.decided_by is None or scopes.algorithmic is None:
        return ""
    algorithmic = scopes.algorithmic
    bound = algorithmic.verdict_epsilon_lower_bound
    if scopes.decided_by == "algorithmic":
        return (f"; decided by the algorithmic bound (the mechanism's own events, {algorithmic.family}): "
                f"{bound:.4g} > {epsilon:g} at {algorithmic.verdict_confidence:g}, so the algorithm itself breaks "
                f"the claim, whatever the floating point")
    shown = f"{bound:.4g}" if math.isfinite(bound) else "-"
    return (f"; decided by the implementation bound (a leak or side-channel event): the algorithmic bound, the "
            f"mechanism's own events only, is {shown} <= {epsilon:g} at {algorithmic.verdict_confidence:g}, so exact "
            f"arithmetic and a fixed number of draws would remove this violation as far as this audit can see")
