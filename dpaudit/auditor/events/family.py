"""Event families: the one interface through which the search stage gets its candidate events.

An **event** is a set S of outputs, a frozen value with

* ``contains(rows) -> bool array``: membership of each output row (rows: n x width), vectorised;
* ``describe() -> str``: the event as the report states it (``output <= 2.5``);
* ``as_dict() -> dict``: plain JSON with a ``"type"``; :func:`.sets.event_from_dict` rebuilds the very
  same set from it (a checkpoint resumes on it).

An **event family** (:class:`EventFamily`) proposes events for one neighbouring pair (a, b) from that
pair's search samples, each :class:`Scored` by the strict search bound ``context.score`` in its better
direction.  The search stage (:mod:`dpaudit.auditor.screening`) asks every registered family that is
``enabled`` for the audit, in registration order, and ranks what they propose together.  The events
chosen are bounded on fresh verification samples, so a family changes which event is verified, never
the validity of the reported bound: a family cannot make an audit unsound, only weaker or stronger.

The families of :mod:`dpaudit.auditor.events`, registered in this order: ``standard`` (thresholds,
intervals, ratio-ordered atoms and bins, row patterns, first and k-th answers, Fisher's linear score),
``lattice``, ``float-support`` and ``correlated-noise`` (the implementation's float leaks,
``implementation = True``), ``learned`` (a classifier's posterior thresholded), ``product-ratio``
(per-coordinate density ratios summed and thresholded: the Neyman-Pearson sets of product outputs).

A family of one's own, for example "the largest coordinate is above the median of M(a)'s"::

    import numpy as np
    from dpaudit.extend import BaseFamily, Feature, Scored, Threshold, register_family

    class MaxAboveMedian(BaseFamily):
        name = "max-above-median"
        def search(self, rows_a, rows_b, context):
            t = float(np.median(rows_a.max(axis=1)))
            event = Threshold(Feature("max"), t, upper=False)    # max > t
            ka, kb = np.count_nonzero(event.contains(rows_a)), np.count_nonzero(event.contains(rows_b))
            bound = float(context.score(np.array([ka]), len(rows_a), np.array([kb]), len(rows_b))[0])
            return [Scored(event, self.name, True, bound, int(ka), int(kb))], []

    register_family(MaxAboveMedian())

:class:`BaseFamily` gives the defaults (always enabled, no part in the pair screening, algorithmic
scope, no event type of its own).  Its events are :class:`.sets.Threshold` values, which
:func:`.sets.event_from_dict` already rebuilds; a family whose events are of a type of its own lists
that ``"type"`` in ``event_types`` and rebuilds it in ``event_from_dict``.
``unregister_family("max-above-median")`` takes it out again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..._registry import Registry
from ...errors import InvalidArgument

__all__ = [
    "BaseFamily",
    "EventFamily",
    "Scored",
    "Scorer",
    "SearchContext",
    "family_named",
    "register_family",
    "registered_families",
    "unregister_family",
]

Scorer = Callable[[np.ndarray, int, np.ndarray, int], np.ndarray]
"""score(k_a, n_a, k_b, n_b) -> bound per event, vectorised over the counts."""


@dataclass(frozen=True)
class Scored:
    """One event found on the search samples: ``forward`` means P[M(a) in S] > P[M(b) in S].

    ``family`` is the proposing family's name, or for the standard family the kind of set it is
    (``threshold``, ``interval``, ``values``, ``histogram``, ``rows``, ...), as results report it.
    ``objective`` is the search score (the strict search bound of ``context.score``, or the held-out
    score after the screening's re-scoring), ``hits_a`` / ``hits_b`` the counts it was computed from.
    """

    event: Any
    family: str
    forward: bool
    objective: float
    hits_a: int
    hits_b: int


@dataclass(frozen=True)
class SearchContext:
    """What a family may know of the audit when it proposes events for one pair.

    ``score`` is the strict search bound (Bonferroni over the events the search scores);
    ``checks`` the leak checks the audit runs; ``categorical`` the output coordinates that hold label
    codes (:mod:`dpaudit.mechanisms.outputs`: no float bits, no order); ``learned`` whether learned
    events were asked for; ``screening`` is True while pairs are screened (a cheap pass: families skip
    their slow parts, e.g. identifying hidden float noise).
    """

    mechanism: Any
    pair: tuple[Any, Any]
    score: Scorer
    checks: tuple[str, ...] = ()
    categorical: frozenset[int] = frozenset()
    learned: bool = True
    screening: bool = False


@runtime_checkable
class EventFamily(Protocol):
    """A way of proposing events (see the module docstring).

    ``name`` names the family in results (``Scored.family``); ``implementation`` says whether its
    events speak of the implementation (float bits) rather than the algorithm, which decides the scope
    of its bounds (:mod:`dpaudit.auditor.scopes`); ``event_types`` lists the ``"type"`` values of the
    events it rebuilds with :meth:`event_from_dict`.
    """

    name: str
    implementation: bool
    event_types: tuple[str, ...]

    def enabled(self, context: SearchContext) -> bool:
        """Whether the family runs in this audit (its check asked for, the outputs of its kind)."""

    def search(self, rows_a: np.ndarray, rows_b: np.ndarray, context: SearchContext) -> tuple[list[Scored], list[str]]:
        """The events proposed on the chosen pair's search rows, and notes for the result."""

    def screen(self, rows_a: np.ndarray, rows_b: np.ndarray,
               context: SearchContext) -> Sequence[Callable[[], list[Scored]]]:
        """Independent searches (run on threads) whose events take part in the pair screening; [] for none.

        ``rows_a`` and ``rows_b`` are all of a pair's screening rows; the screening re-scores what the
        searches return on the odd-indexed rows, so a search that should not see those uses the
        even-indexed ones only (``rows[0::2]``).
        """

    def event_from_dict(self, spec: dict[str, Any], noise: Any = None) -> Any:
        """Rebuild an event of one of ``event_types`` from its ``as_dict()`` (``noise``: the mechanism's exposed float noise)."""


class BaseFamily:
    """The defaults of an :class:`EventFamily`: a subclass sets ``name`` and writes :meth:`search`."""

    name: str = ""
    implementation = False
    event_types: tuple[str, ...] = ()

    def enabled(self, context: SearchContext) -> bool:
        return True

    def search(self, rows_a: np.ndarray, rows_b: np.ndarray, context: SearchContext) -> tuple[list[Scored], list[str]]:
        raise NotImplementedError(f"event family {self.name!r} must define search()")

    def screen(self, rows_a: np.ndarray, rows_b: np.ndarray,
               context: SearchContext) -> Sequence[Callable[[], list[Scored]]]:
        return []

    def event_from_dict(self, spec: dict[str, Any], noise: Any = None) -> Any:
        raise InvalidArgument(f"event family {self.name!r} has no event type {spec.get('type')!r} of its own")


_FAMILIES: Registry[EventFamily] = Registry(
    "event family", ("name", "implementation", "event_types", "enabled", "search", "screen", "event_from_dict"),
    "dpaudit.auditor.events.family")


def register_family(family: EventFamily) -> EventFamily:
    """Add ``family`` to the search of every later audit (after the families registered before it).

    A family of the same name is replaced in place.  Returns the family, so it can decorate an instance.
    """
    return _FAMILIES.register(family)


def unregister_family(name: str) -> None:
    """Remove the family called ``name`` from the search; an unknown name is an error."""
    _FAMILIES.unregister(name)


def registered_families() -> tuple[EventFamily, ...]:
    """The registered families, in search order."""
    return _FAMILIES.items()


def family_named(name: str) -> EventFamily | None:
    """The registered family called ``name``, or None."""
    return _FAMILIES.named(name)
