"""The verification stage: fresh Poissonised samples, counted in batches, bounded at each look.

Batch j draws Poisson(n_j - n_(j-1)) samples per side (address ``(1, 0, j)`` of the spawn tree for the
sizes, ``(1, 1, j, side, chunk)`` for the draws; :mod:`.run.sampling`), counts the hits of every chosen
event, and bounds each event on the cumulative counts twice: at 1 - alpha_j / C (the estimate) and
at 1 - alpha'_j / C (the verdict's level; :mod:`.sequential` gives both schedules and why each
running maximum keeps its stated confidence).  A violation is decided, and the stage stops for it,
on the verdict's running maximum only.  After the planned looks it goes on to the extension looks
only when the estimate lies above the claim and the verdict's bound does not.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import bounds
from .events.family import Scored
from .run.sampling import Draws, TimeLimitReached, generator
from .sequential import Schedule, sequential_p_value, upper_bound

__all__ = ["Measured", "Verification", "verify"]


@dataclass
class Measured:
    """One chosen event's verification counts (oriented: ``ka`` on the side where it has more mass).

    ``bound`` is the running maximum of its bounds at the estimate's level, ``verdict_bound`` at the
    verdict's (never larger: the same counts at a stricter level).
    """

    scored: Scored
    pair: tuple[Any, Any]
    hits: tuple[int, int] = (0, 0)
    sizes: tuple[int, int] = (0, 0)
    bound: float = -math.inf
    verdict_bound: float = -math.inf
    p_values: list[float] = field(default_factory=list)
    p: float = 1.0


@dataclass(frozen=True)
class Verification:
    """What the verification stage measured, where it stopped and where a violation was first certified.

    ``look`` and ``decided_at`` are 1-based (``decided_at`` is None unless the verdict's bound
    exceeded the claim); ``level`` and ``verdict_level`` are the per-candidate levels of the last look.
    ``timed_out`` says why the stage stopped before its planned looks were done (the time limit, with the chunk
    in flight), else None; ``look`` is then the last complete look (0: none).
    """

    measured: list[Measured]
    look: int
    reason: str
    level: float
    verdict_level: float
    samples_used: int
    decided_at: int | None
    timed_out: str | None = None


def verify(
    draws: Draws,
    chosen: list[Scored],
    pair: tuple[Any, Any],
    plan: Schedule,
    *,
    method: str,
    epsilon: float,
    delta: float,
    on_look: Callable[[int, float], None] | None = None,
) -> Verification:
    """Count the ``chosen`` events on fresh samples of ``pair`` look by look; stop as :mod:`.sequential` says."""
    a, b = pair
    measured = [Measured(s, (a, b) if s.forward else (b, a)) for s in chosen]
    events = [s.event for s in chosen]
    count = max(1, len(chosen))
    cumulative_a, cumulative_b = [0] * len(chosen), [0] * len(chosen)
    size_a = size_b = 0
    reason, look, decided = "budget", 1, None
    level = 1.0 - plan.alphas[-1] / count
    verdict_level = 1.0 - plan.verdict_alphas[-1] / count
    for j, increment in enumerate(plan.increments()):
        look = j + 1
        sizes = generator(draws.seed, (1, 0, j)).poisson(increment, size=2)
        size_a, size_b = size_a + int(sizes[0]), size_b + int(sizes[1])
        if chosen:
            try:
                hits_a, hits_b = draws.counts_many(
                    [((1, 1, j, 0), a, int(sizes[0])), ((1, 1, j, 1), b, int(sizes[1]))], events
                )
            except TimeLimitReached as stopped:  # the counts and bounds stay those of the last complete look
                return _timed_out(measured, plan, j, decided, stopped, (level, verdict_level))
            cumulative_a = [c + h for c, h in zip(cumulative_a, hits_a)]
            cumulative_b = [c + h for c, h in zip(cumulative_b, hits_b)]
        mean = plan.sizes[j]
        level = 1.0 - plan.alphas[j] / count
        verdict_level = 1.0 - plan.verdict_alphas[j] / count
        futility_level = 1.0 - plan.futility_alphas[j] / count
        uppers = []
        for m, ha, hb in zip(measured, cumulative_a, cumulative_b):
            ka, kb, na, nb = (ha, hb, size_a, size_b) if m.scored.forward else (hb, ha, size_b, size_a)
            scale = (na, nb) if method == "union" else (mean, mean)
            value = float(bounds.epsilon_lower_bound(method, ka, scale[0], kb, scale[1], level, delta))
            m.bound = max(m.bound, value)
            verdict_value = value if verdict_level == level else float(
                bounds.epsilon_lower_bound(method, ka, scale[0], kb, scale[1], verdict_level, delta))
            m.verdict_bound = max(m.verdict_bound, verdict_value)
            m.hits, m.sizes = (int(ka), int(kb)), (int(na), int(nb))
            m.p_values.append(bounds.p_value(method, ka, scale[0], kb, scale[1], epsilon, delta))
            m.p = sequential_p_value(m.p_values, plan.alphas[: j + 1])
            uppers.append(upper_bound(method, ka, scale[0], kb, scale[1], futility_level, delta))
        best = max((m.bound for m in measured), default=-math.inf)
        decisive = max((m.verdict_bound for m in measured), default=-math.inf)
        if on_look is not None:
            on_look(j + 1, best)
        if decisive > epsilon and decided is None:
            decided = j + 1
        if j + 1 == plan.planned and not (best > epsilon and decisive <= epsilon):
            break  # the extension looks are only for an estimate above the claim whose verdict's bound is not
        if j + 1 < plan.looks and measured:
            top = max(measured, key=lambda m: m.verdict_bound)
            # A support mismatch (no hit on the other side) keeps going: its bound is the sample-size
            # cap ln(k / ln(1/alpha_j)), which each doubling raises by about ln 2.
            if decisive > epsilon and (top.hits[1] > 0 or j + 1 >= plan.planned):
                reason = "violation"
                break
            if all(u < epsilon for u in uppers):
                reason = "futility"
                break
    extended = look > plan.planned
    if extended:
        reason = f"{reason} after extending beyond the planned budget: the estimate lay above the claim, the verdict's bound did not"
    elif reason == "budget" and decided is not None:
        reason = _decided_at_budget(measured, decided, look)
    return Verification(measured, look, reason, level, verdict_level, plan.sizes[look - 1], decided)


def _decided_at_budget(measured: list[Measured], decided: int, look: int) -> str:
    """Why a stage that decided a violation ran to its last planned look: a support mismatch kept going (its bound
    is capped by the sample size), else the violation was decided at that last look itself."""
    top = max(measured, key=lambda m: m.verdict_bound)
    if top.hits[1] == 0:
        return f"budget (violation decided at look {decided}; support mismatch, bound capped by the sample size)"
    return "violation" if decided == look else f"budget (violation decided at look {decided})"


def _timed_out(measured: list[Measured], plan: Schedule, j: int, decided: int | None, stopped: TimeLimitReached,
               levels: tuple[float, float]) -> Verification:
    """The stage stopped by the time limit during look j + 1: what its last complete look (j; 0 for none) holds.

    Every bound is a running maximum at its look's own alpha, valid however the stage stops (:mod:`.sequential`),
    so a violation decided by look j stands; nothing else is decided before the planned looks are done
    (the decision says underpowered, :mod:`.decision`).
    """
    why = f"{stopped.describe()}, during look {j + 1}"
    if j < plan.planned:
        reason = f"time limit: {why}; stopped at look {j}, the last complete one" if j else f"time limit: {why}"
    else:  # the planned looks are done: an extension look was cut short, the planned budget's answer stands
        reason = f"time limit during an extension look ({why}): the planned looks' answer stands"
    timed_out = why if j < plan.planned else None
    used = plan.sizes[j - 1] if j else 0
    return Verification(measured, j, reason, *levels, used, decided, timed_out)
