"""The curve stage of an audit: the empirical privacy curve of the chosen pair (:mod:`.curve`).

After the verification stage, on the pair it verified:

1. a *pilot* fixes the family: thresholds at the pooled pilot's tail quantiles on the output (for
   vectors: the verified threshold events' features, the sum and the first coordinates)
   (:func:`.curve.threshold_family`; tail masses down to ``3 / N``) plus the audit's verified events.
   The pilot is the event search's own outputs of the pair (spawn addresses ``(0, 1, side)``, kept
   from the search stage or drawn again from those addresses after a resume): they are independent
   of the counting samples below, which is all the curve's validity asks of the events, and drawing
   a pilot of its own (``search_budget(N)`` per side at ``(6, 0, side)``, still the fallback for a
   checkpoint written before the search kept its count) cost a quarter of a curve audit's draws;
2. N fresh outputs per side (addresses ``(6, 1, side)``) are counted in every event of the family,
   and :func:`.curve.measure_curve` turns the counts into bounds simultaneous over the curve.

The events are fixed before the counting samples are drawn, and the curve's confidence is its own
(the verification's bounds and the curve's are separate statements, each at its stated level).
"""

from __future__ import annotations

from typing import Any

from ..._codec import from_json, to_json
from ..events.family import Scored
from ..events.sets import Feature, Threshold, labelled
from ..run.sampling import Draws
from ..screening import SearchOutcome
from .empirical import EmpiricalCurve, measure_curve, threshold_family

__all__ = ["CURVE_ADDRESS", "MAX_CURVE_FEATURES", "curve_stage"]

CURVE_ADDRESS = 6
MAX_CURVE_FEATURES = 4


def _features(width: int, chosen: list[Scored], categorical: frozenset[int]) -> list[Feature]:
    """The scalar output itself; for vectors the features of the verified threshold events, the sum (the
    sufficient statistic of independent noise on every coordinate) and the first coordinates."""
    if width == 1:
        return [] if 0 in categorical else [Feature("value")]
    found = [s.event.feature for s in chosen if isinstance(s.event, Threshold)]
    found += [] if categorical else [Feature("sum")]
    found += [Feature("coordinate", index=i) for i in range(width) if i not in categorical]
    return list(dict.fromkeys(found))[:MAX_CURVE_FEATURES]


def curve_stage(draws: Draws, pair: tuple[Any, Any], n: int, outcome: SearchOutcome, n_pilot: int,
                chosen: list[Scored], confidence: float, verdict_confidence: float) -> EmpiricalCurve:
    """The empirical curve of ``pair`` from ``n`` fresh outputs per side, its events fixed on the search's
    outputs of the pair (``outcome``; ``n_pilot`` others of its own when the outcome does not say how
    many the search drew)."""
    a, b = pair
    if outcome.rows is not None:
        pilot_a, pilot_b = outcome.rows
    elif outcome.search_rows is not None:
        m = outcome.search_rows
        pilot_a, pilot_b = draws.rows_many([((0, 1, 0), a, m), ((0, 1, 1), b, m)])
    else:
        pilot_a, pilot_b = draws.rows_many([((CURVE_ADDRESS, 0, 0), a, n_pilot), ((CURVE_ADDRESS, 0, 1), b, n_pilot)])
    events: list[Any] = []
    for feature in _features(draws.width, chosen, draws.coding.categorical):
        events += threshold_family(pilot_a, pilot_b, feature, smallest_mass=3.0 / n)
    events += [s.event for s in chosen]
    distinct = {repr(e.as_dict()): labelled(e, draws.coding) for e in events}
    events = list(distinct.values())
    hits_a, hits_b = draws.counts_many([((CURVE_ADDRESS, 1, 0), a, n), ((CURVE_ADDRESS, 1, 1), b, n)], events)
    return measure_curve(events, hits_a, hits_b, (n, n), from_json(to_json(pair)), confidence, verdict_confidence)
