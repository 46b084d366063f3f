"""Side channels recorded with each output: the number of random draws a run consumes, and its wall time.

DP promises nothing about what an observer sees besides the output, and a sampler whose running time
depends on its noise leaks the input even when its output is exactly distributed (Jin, McMurtry,
Rubinstein & Ohrimenko, IEEE S&P 2022; :mod:`dpaudit.auditor.events.side_channels` reads the events
and findings).  So the audit can record what it observes of each run as part of the output:

* ``"draw-count"`` -- the number of random values the run drew.  The one-run function is handed a
  counting subclass of its randomness source that shares the audit's bit generator (so the outputs
  are the very ones the audit draws without the count):
  ``numpy.random.Generator`` / ``RandomState``: one per value a call returns (``size=`` included;
  a shuffle: one per element shuffled), counted at the outermost call only (``choice`` drawing
  through ``random`` counts what ``choice`` returns); the values numpy draws *inside* a call (a ziggurat normal's rare
  rejections) are not seen.  ``random.Random``: one per call of its primitives ``random()`` and
  ``getrandbits()``, which every other method is built on.
* ``"wall-time"`` -- the run's wall time in nanoseconds (``time.perf_counter_ns``).  Off by default:
  on a shared machine one run of a Python function varies by far more than the ~130 ns a Bernoulli
  trial costs, and the two inputs' runs are drawn in different chunks, at different times, under
  different load: a load difference is an observable difference, so a correct mechanism can be
  flagged.  The bound is valid for the timings as they were observed, not for the mechanism alone.

Both become extra coordinates of the output (keys ``'draws'`` and ``'wall_ns'``; the output keeps
its own as ``'output'``, ``'output[i]'`` or its dict keys), so every event family searches them.

Only one-run functions ``f(data, rng)`` can be observed run by run.  A vectorised sampler draws all
n runs in one call, so per-run counts do not exist; nor can the draws of a function with its own
randomness be counted.  The audit says so in a note when the check was asked for by name.
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Mapping
from typing import Any

import numpy as np

from ...errors import MechanismError
from ...mechanisms.base import Mechanism
from ...mechanisms.outputs import SHAPE_HINT

__all__ = [
    "CHANNEL_KEYS",
    "DRAWS_KEY",
    "SIDE_CHANNELS",
    "TIME_KEY",
    "CountingGenerator",
    "CountingRandom",
    "CountingRandomState",
    "ObservedRuns",
    "as_audited",
    "observed",
    "with_side_channels",
]

SIDE_CHANNELS = ("draw-count", "wall-time")
DRAWS_KEY = "draws"
TIME_KEY = "wall_ns"
CHANNEL_KEYS = {"draw-count": DRAWS_KEY, "wall-time": TIME_KEY}
"""The output key each side channel is recorded under."""

_NOT_DRAWING = frozenset({"bit_generator", "spawn", "get_state", "set_state", "seed", "get_bit_generator",
                          "set_bit_generator"})
_SCALARS = frozenset({float, int, bool, np.float64, np.int64, np.bool_})


def _values_drawn(out: Any, args: tuple, kwargs: dict) -> int:
    """How many random values one call drew: the size of what it returned (in place: of what it shuffled)."""
    if out is None:  # shuffle(x) works in place
        x = args[0] if args else kwargs.get("x")
        return int(np.shape(x)[0]) if np.ndim(x) else 0
    if isinstance(out, bytes):
        return len(out)
    return int(np.size(out))


def _counted(base: type, name: str) -> Any:
    """``base.name`` counting what it draws.  The count is set, not added to, after the call, so the
    calls a method makes of other public methods (``choice`` of ``random``) do not count twice."""
    method = getattr(base, name)

    def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
        before = self.draws
        out = method(self, *args, **kwargs)
        self.draws = before + (1 if type(out) in _SCALARS else _values_drawn(out, args, kwargs))
        return out

    counted.__name__ = counted.__qualname__ = name
    counted.__doc__ = method.__doc__
    return counted


def _counting_class(base: type, name: str) -> type:
    methods = [m for m in dir(base) if not m.startswith("_") and m not in _NOT_DRAWING and callable(getattr(base, m))]

    def __init__(self: Any, *args: Any) -> None:
        base.__init__(self, *args)
        self.draws = 0

    namespace = {m: _counted(base, m) for m in methods}
    namespace.update(__init__=__init__, __module__=__name__,
                     __doc__=f"A ``{base.__module__}.{base.__name__}`` that counts the random values drawn "
                             "(``draws``).")
    return type(name, (base,), namespace)


CountingGenerator = _counting_class(np.random.Generator, "CountingGenerator")
CountingRandomState = _counting_class(np.random.RandomState, "CountingRandomState")


class CountingRandom(random.Random):
    """A ``random.Random`` that counts calls of its primitives ``random()`` and ``getrandbits()`` (``draws``).

    Every other method of ``random.Random`` draws through these two, so the stream is the base class's.
    """

    def __init__(self, seed: Any = None) -> None:
        self.draws = 0
        super().__init__(seed)

    def random(self) -> float:
        self.draws += 1
        return super().random()

    def getrandbits(self, k: int) -> int:
        self.draws += 1
        return super().getrandbits(k)


def _counting_source(kind: str, rng: np.random.Generator) -> Any:
    """The counting source a one-run function gets: seeded exactly as :mod:`dpaudit.mechanisms.base` seeds it."""
    if kind == "random-state":
        return CountingRandomState(np.random.MT19937(int(rng.integers(2**63))))
    if kind == "python-random":
        return CountingRandom(int(rng.integers(2**63)))
    return CountingGenerator(rng.bit_generator)  # the same bit generator: the same draws as rng's


def _output_columns(name: str, outputs: list[Any]) -> dict[Any, list[Any]]:
    """The runs' outputs as named columns: ``'output'``, ``'output[i]'`` or the dict's own keys."""
    first = outputs[0]
    if isinstance(first, Mapping):
        keys = list(first)
        clash = [k for k in keys if k in (DRAWS_KEY, TIME_KEY)]
        if clash:
            raise MechanismError(f"mechanism {name!r} returned the output key {clash[0]!r}, which names a side channel "
                                 "the audit records; rename it or pass checks without that side channel")
        if any(not isinstance(o, Mapping) or set(o) != set(keys) for o in outputs):
            raise MechanismError(f"mechanism {name!r} returned outputs of varying shapes: dicts with keys "
                                 f"{sorted(keys, key=str)} and others{SHAPE_HINT}")
        return {k: [o[k] for o in outputs] for k in keys}
    if isinstance(first, (tuple, list, np.ndarray)):
        rows = [np.ravel(o) if isinstance(o, np.ndarray) else o for o in outputs]
        width = len(rows[0])
        if any(not isinstance(r, (tuple, list, np.ndarray)) or len(r) != width for r in rows):
            raise MechanismError(f"mechanism {name!r} returned outputs of varying shapes: {first!r} and others"
                                 f"{SHAPE_HINT}")
        return {f"output[{i}]": [r[i] for r in rows] for i in range(width)}
    return {"output": outputs}


class ObservedRuns:
    """An n-run sampler calling a one-run function n times and recording each run's side channels."""

    def __init__(self, function: Any, randomness: str, channels: tuple[str, ...], name: str = "mechanism") -> None:
        self.one_run = self.function = function
        self.name = name
        self.randomness = randomness
        self.channels = channels
        self.__name__ = getattr(function, "__name__", "sampler")

    def __call__(self, data: Any, n: int, rng: np.random.Generator) -> Any:
        own = self.randomness == "own"
        source = CountingRandom(0) if own else _counting_source(self.randomness, rng)  # own: nothing to count
        timed = "wall-time" in self.channels
        clock = time.perf_counter_ns
        outputs, draws, times = [], [], []
        for _ in range(n):
            before = source.draws
            start = clock() if timed else 0
            outputs.append(self.function(data) if own else self.function(data, source))
            if timed:
                times.append(clock() - start)
            draws.append(source.draws - before)
        if n == 0:
            return []
        columns = _output_columns(self.name, outputs)
        if "draw-count" in self.channels:
            columns[DRAWS_KEY] = draws
        if timed:
            columns[TIME_KEY] = times
        return {k: _column(v) for k, v in columns.items()}


def _column(values: list[Any]) -> np.ndarray:
    """A column as a numeric array when its values are plain numbers (fast), else as objects to encode."""
    if all(type(v) in _SCALARS for v in values):
        return np.asarray(values)
    return np.asarray(values, dtype=object)


def with_side_channels(mechanism: Mechanism, channels: tuple[str, ...]) -> Mechanism:
    """``mechanism`` whose outputs carry the side channels ``channels`` as extra dict keys.

    ``mechanism`` must wrap a one-run function with a source the audit hands it (see :func:`observed`).
    """
    runtime = mechanism.runtime
    sampler = ObservedRuns(runtime.sampler.one_run, runtime.randomness, tuple(channels), mechanism.name)
    sampler.thread_safe = runtime.thread_safe and "wall-time" not in channels
    return dataclasses.replace(mechanism, runtime=dataclasses.replace(runtime, sampler=sampler))


def observed(mechanism: Mechanism, checks: tuple[str, ...], explicit: bool) -> tuple[tuple[str, ...], list[str]]:
    """The side channels of ``checks`` that can be observed on ``mechanism``, and notes on the others.

    The notes are given only when the checks were named (``explicit``): by default the draw count is
    observed where it can be and silently left out elsewhere.
    """
    wanted = tuple(c for c in SIDE_CHANNELS if c in checks)
    if not wanted:
        return (), []
    if getattr(mechanism.sampler, "one_run", None) is None:
        why = ("per-run side channels are not observable on a vectorised sampler (one call draws all n runs); "
               "audit the one-run function f(data, rng) to observe them")
        return (), [f"{', '.join(wanted)} not observed: {why}"] if explicit else []
    if mechanism.randomness == "own" and "draw-count" in wanted:
        why = "a function with its own randomness draws from no source the audit hands it"
        return tuple(c for c in wanted if c != "draw-count"), [f"draw-count not observed: {why}"] if explicit else []
    return wanted, []


def as_audited(mechanism: Mechanism, checks: tuple[str, ...]) -> Mechanism:
    """``mechanism`` as an audit with these ``checks`` draws it: with the side channels it records, if any.

    Events of that audit (``AuditResult.event_spec``) are stated on these outputs; a report that
    re-draws the mechanism to plot them draws it this way.
    """
    channels, _ = observed(mechanism, tuple(checks), explicit=False)
    return with_side_channels(mechanism, channels) if channels else mechanism
