"""The extension API: event families of one's own join every later audit's search.

An event family proposes candidate events (sets S of outputs) for a neighbouring pair from that pair's
search samples; the audit bounds the events it chooses on fresh samples, so a family can make an audit
stronger or weaker, never unsound (:mod:`dpaudit.auditor.events.family` states the contract)::

    import numpy as np
    from dpaudit.extend import BaseFamily, Feature, Scored, Threshold, register_family

    class MaxAboveMedian(BaseFamily):              # "the largest coordinate is above the median of M(a)'s"
        name = "max-above-median"
        def search(self, rows_a, rows_b, context):
            event = Threshold(Feature("max"), float(np.median(rows_a.max(axis=1))), upper=False)
            ka, kb = np.count_nonzero(event.contains(rows_a)), np.count_nonzero(event.contains(rows_b))
            bound = float(context.score(np.array([ka]), len(rows_a), np.array([kb]), len(rows_b))[0])
            return [Scored(event, self.name, True, bound, int(ka), int(kb))], []

    register_family(MaxAboveMedian())

The names here are the whole of it: the family protocol and its base, what a family returns, what it
is handed, the registry, and the event values a family builds its events from.
"""

from __future__ import annotations

from .auditor.events.family import (
    BaseFamily,
    EventFamily,
    Scored,
    Scorer,
    SearchContext,
    register_family,
    registered_families,
    unregister_family,
)
from .auditor.events.sets import Feature, Interval, Threshold, event_from_dict

__all__ = ["BaseFamily", "EventFamily", "Feature", "Interval", "Scored", "Scorer", "SearchContext", "Threshold",
           "event_from_dict", "register_family", "registered_families", "unregister_family"]
