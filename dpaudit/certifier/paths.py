"""One execution path of a sampler, replayed from the decisions that choose it.

The enumeration (:mod:`.law`) explores the tree of a sampler's executions by re-running the sampler's
own code: a :class:`Run` replays a prefix of :class:`Decision` s (which side of each comparison, which
run of grid points a value lies on, which outcome a summarised helper returned) and, at the first
random event the prefix does not decide, stops the code by raising :class:`Branch` with the options
there and their exact conditional probabilities (:class:`fractions.Fraction`).  A run that returns
gives an outcome; a run that reaches a *merge point* (see :mod:`.frames`) beyond its prefix may stop
there with :class:`Stop`, so that paths reaching the same program state are explored once.

The sampler must be deterministic given its draws: every replayed decision is checked against the event
it answers, and a mismatch stops the enumeration (:class:`~.symbolic.Unsupported`).
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .frames import state_key
from .symbolic import CONTINUOUS_INTERVAL, Draw, Symbolic, Unsupported

__all__ = ["Branch", "Decision", "Run", "Stop", "current_run"]


@dataclass(frozen=True)
class Decision:
    """The answer to one random event of a path, with its probability given the path so far.

    ``step`` is ``"side"`` (a comparison: ``value`` is its truth), ``"value"`` (a value made concrete:
    ``value`` is it), ``"rest"`` (the value lies beyond the run just tried) or ``"outcome"`` (a
    summarised helper returned ``value``).  For the first three the draw ``draw`` now lies in
    ``[lo, hi)``.  ``event`` names the event, to check the replay.
    """

    step: str
    event: str
    probability: Fraction
    value: Any = None
    draw: int = -1
    lo: int = 0
    hi: int = 0


class Branch(BaseException):
    """Raised through the sampler's code at an event its path does not decide yet.

    ``options`` are the decisions possible there; ``abandoned`` lists (probability, reason) for grid
    points the enumeration sets aside (a value the code raises on), whose mass stays unexplored.
    A ``BaseException``, so that a sampler's ``except Exception`` does not swallow it.
    """

    def __init__(self, options: list[Decision], abandoned: list[tuple[Fraction, str]] | None = None) -> None:
        super().__init__()
        self.options = options
        self.abandoned = abandoned or []


class Stop(BaseException):
    """Raised at a merge point beyond the path's prefix: the path continues from the node ``key``."""

    def __init__(self, key: Hashable, decisions: tuple[Decision, ...], point: int) -> None:
        super().__init__()
        self.key = key
        self.decisions = decisions
        self.point = point


_RUNS: list[Run] = []


def current_run() -> Run:
    """The run whose code is executing (summaries nest runs inside runs)."""
    if not _RUNS:
        raise Unsupported("a random draw happened outside an enumeration run")
    return _RUNS[-1]


class Run:
    """One replay of the sampler along ``decisions``; the random source and symbolic values report here.

    ``start_point`` is the merge point the replay starts exploring from (0: the beginning);
    ``nodes`` decides, at each merge point reached beyond the prefix, whether the path stops there
    (``nodes.stop_at(key, run)``).  ``observe_draws`` adds the number of draws to the state, so that
    paths are merged only with the same count (the count is part of the outcome then).
    """

    def __init__(
        self,
        decisions: tuple[Decision, ...],
        *,
        start_point: int,
        nodes: Any,
        observe_draws: bool,
    ) -> None:
        self.decisions = decisions
        self.position = 0
        self.start_point = start_point
        self.nodes = nodes
        self.observe_draws = observe_draws
        self.draws: list[Draw] = []
        self.intervals: list[list[int]] = []
        self.draw_count = 0
        self.points = 0
        self.root_frame: types.FrameType | None = None
        self.segment_keys: set[Hashable] = set()

    # -- running the code --------------------------------------------------------------------------
    def execute(self, function: Callable[..., Any], args: tuple[Any, ...], finish: Callable[[Any], Any]) -> Any:
        """``finish(function(*args))`` along this run's decisions (raises Branch / Stop / Unsupported).

        ``function`` is called from this frame directly: its frame is the root whose calls are merge points.
        """
        _RUNS.append(self)
        self.root_frame = sys._getframe()
        try:
            return finish(function(*args))
        finally:
            _RUNS.pop()

    # -- draws and their intervals -----------------------------------------------------------------
    def new_draw(self, size: int, label: str, caller: types.FrameType | None, event: tuple) -> Draw:
        """A primitive drew an integer uniform on ``[0, size)``; a merge point precedes it."""
        if size <= 0:
            raise ValueError(f"{label}: empty range")
        self.point(caller, event)
        draw = Draw(len(self.draws), size, f"{label} #{len(self.draws) + 1}")
        self.draws.append(draw)
        self.intervals.append([0, size])
        self.draw_count += 1
        return draw

    def interval(self, draw: Draw) -> tuple[int, int]:
        lo, hi = self.intervals[draw.index]
        return lo, hi

    def size(self, draw: Draw) -> int:
        lo, hi = self.intervals[draw.index]
        return hi - lo

    def _next(self, event: str) -> Decision | None:
        if self.position >= len(self.decisions):
            return None
        decision = self.decisions[self.position]
        if decision.event != event:
            raise Unsupported(
                f"the sampler is not deterministic given its draws: replaying a path, event "
                f"{self.position + 1} was {event!r} where it had been {decision.event!r}"
            )
        self.position += 1
        return decision

    def _take(self, decision: Decision) -> None:
        if decision.draw >= 0:
            self.intervals[decision.draw] = [decision.lo, decision.hi]

    def ends(self, value: Symbolic) -> tuple[Any, Any]:
        """``value.fn`` at both ends of its draw's interval.

        Grid points where the code raises (``log(0.0)`` for ``random() == 0``) are points the real code
        raises on: they are set aside as unexplored mass (the enumeration cannot say what the sampler does
        after an exception), and the rest of the interval is a branch.  Every step followed is monotone on
        an interval of its domain (``log`` on the positives, a division whose divisor keeps its sign), so
        the points that raise form a prefix and a suffix of the interval: their ends are found by bisection.
        """
        draw, fn = value.draw, value.fn
        event = f"ends of {value.text}"
        while True:
            lo, hi = self.interval(draw)
            low_error, high_error = _raises(fn, lo), _raises(fn, hi - 1)
            if low_error is None and high_error is None:
                return fn(lo), fn(hi - 1)
            decision = self._next(event)
            if decision is not None:
                self._take(decision)
                continue
            size = Fraction(hi - lo)
            if low_error is not None and high_error is not None and _raises(fn, (lo + hi) // 2) is not None:
                raise Branch([], [(Fraction(1), f"{value.text} raises {low_error} on all of {draw.label}")])
            new_lo, new_hi = lo, hi
            if low_error is not None:  # the first point that does not raise
                new_lo = _first(lo, hi - 1 if high_error is None else (lo + hi) // 2,
                                lambda j: _raises(fn, j) is None)
            if high_error is not None:  # the first point of the raising suffix
                new_hi = _first(max(new_lo, (lo + hi) // 2 if low_error is not None else new_lo), hi - 1,
                                lambda j: _raises(fn, j) is not None)
            abandoned = []
            if new_lo > lo:
                abandoned.append((Fraction(new_lo - lo) / size,
                                  f"{value.text} raises {low_error} on {new_lo - lo} point(s) of {draw.label}"))
            if new_hi < hi:
                abandoned.append((Fraction(hi - new_hi) / size,
                                  f"{value.text} raises {high_error} on {hi - new_hi} point(s) of {draw.label}"))
            rest = Decision("rest", event, Fraction(new_hi - new_lo) / size, None, draw.index, new_lo, new_hi)
            raise Branch([rest], abandoned)

    def split(self, draw: Draw, predicate: Callable[[int], bool], event: str, value: Symbolic) -> bool:
        """A comparison on one draw: monotone in ``j``, so true on a prefix or a suffix of the interval."""
        self.ends(value)
        lo, hi = self.interval(draw)
        first, last = predicate(lo), predicate(hi - 1)
        if first == last:
            return first
        decision = self._next(event)
        if decision is not None:
            self._take(decision)
            return bool(decision.value)
        boundary = _first(lo, hi - 1, lambda j: predicate(j) == last)
        size = Fraction(hi - lo)
        raise Branch(
            [
                Decision("side", event, (boundary - lo) / size, first, draw.index, lo, boundary),
                Decision("side", event, (hi - boundary) / size, last, draw.index, boundary, hi),
            ]
        )

    def concretize(self, value: Symbolic, where: str) -> Any:
        """The value as a number: a branch over the runs of grid points on which ``fn`` is constant.

        ``fn`` is monotone, so ``{j : fn(j) == v}`` is an interval for every v.  The run through the
        middle of the interval is found by two bisections and is one branch; what lies below and above it
        are two more (tried again on replay).  A value whose middle run is a single point of a large
        interval is continuous: nothing finite to enumerate, said so.
        """
        draw, fn = value.draw, value.fn
        event = f"{value.text} as {where}"
        while True:
            first, last = self.ends(value)
            lo, hi = self.interval(draw)
            if first == last:
                return first
            decision = self._next(event)
            if decision is not None:
                self._take(decision)
                if decision.step == "value":
                    return decision.value
                continue
            middle = (lo + hi) // 2
            pivot = fn(middle)
            start = lo if first == pivot else _first(lo, middle, lambda j: fn(j) == pivot)
            end = hi if last == pivot else _first(middle, hi - 1, lambda j: fn(j) != pivot)
            if end - start == 1 and hi - lo >= CONTINUOUS_INTERVAL:
                raise Unsupported(
                    f"{value.text} is used as {where}, but it takes a different value at almost every point "
                    f"of {draw.label}: a continuous value cannot be enumerated (only comparisons, floor and "
                    "monotone steps of it can)"
                )
            size = Fraction(hi - lo)
            options = [Decision("value", event, (end - start) / size, pivot, draw.index, start, end)]
            if start > lo:
                options.append(Decision("rest", event, (start - lo) / size, None, draw.index, lo, start))
            if end < hi:
                options.append(Decision("rest", event, (hi - end) / size, None, draw.index, end, hi))
            raise Branch(options)

    # -- summarised helpers ------------------------------------------------------------------------
    def outcome_of(self, event: str, outcomes: dict[Hashable, Fraction], caller: types.FrameType | None,
                   key_event: tuple) -> Any:
        """A summarised helper's call: one branch over the outcomes of its exact law."""
        self.point(caller, key_event)
        decision = self._next(event)
        if decision is None:
            raise Branch([Decision("outcome", event, p, o) for o, p in outcomes.items() if p > 0])
        value, draws = decision.value
        self.draw_count += draws
        return value

    # -- merge points ------------------------------------------------------------------------------
    def point(self, caller: types.FrameType | None, event: tuple) -> None:
        """A merge point: before a draw or a summarised call made by the root function itself."""
        self.points += 1
        if self.nodes is None or self.points < self.start_point:
            return
        key = self._key(caller, event)
        if key is None:
            return
        beyond_prefix = self.position >= len(self.decisions) and self.points > self.start_point
        if beyond_prefix and self.nodes.stop_at(key, self):
            raise Stop(key, self.decisions, self.points)
        self.segment_keys.add(key)

    def _key(self, caller: types.FrameType | None, event: tuple) -> Hashable | None:
        if caller is None or caller.f_back is not self.root_frame:
            return None
        frame_key = state_key(caller)
        if frame_key is None:
            return None
        return (frame_key, event, self.draw_count if self.observe_draws else None)


def _raises(fn: Callable[[int], Any], j: int) -> str | None:
    try:
        fn(j)
    except (ArithmeticError, ValueError) as error:
        return f"{type(error).__name__}({error})"
    return None


def _first(lo: int, hi: int, predicate: Callable[[int], bool]) -> int:
    """The smallest j in (lo, hi] with ``predicate(j)``, for a predicate false at lo and true at hi."""
    while hi - lo > 1:
        middle = (lo + hi) // 2
        if predicate(middle):
            hi = middle
        else:
            lo = middle
    return hi
