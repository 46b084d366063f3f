"""The exact law of a sampler's output, by best-first enumeration of its paths with merged states.

:func:`enumerate_law` explores the execution tree of ``function(*args)`` (see :mod:`.paths`) best
first by path probability.  Paths are *merged*, not only listed, in two ways:

* **merge points** (:mod:`.frames`): when a path comes back, within one segment, to a program state it
  has been in (a rejection loop's head), that state becomes a node; every path reaching a node stops
  there.  The nodes and the probabilities of going from one to another or to an outcome form an
  absorbing Markov chain explored from below: with ``T`` the explored node-to-node probabilities and
  ``b`` the explored node-to-outcome ones, the law is ``P(o) >= e_start^T (I - T)^{-1} b(o)``.
  Since ``(I - T)^{-1} = sum_k T^k`` is monotone in ``T`` and ``b``, the exact absorption
  probabilities of the explored part are lower bounds of the true ones, however little is explored.
* **summaries**: a helper called with plain arguments (``bernoulli_exp(num, den, rng)``) has one law
  per argument tuple; it is enumerated once (its own residual kept), and each call is one branch over
  its outcomes.

All probabilities are exact rationals; what is not explored is the residual ``1 - sum_o P_low(o)``,
so that ``P_low(o) <= P(o) <= P_low(o) + residual`` for every outcome ``o``.  Mass the enumeration
sets aside (an unsupported operation, the sampler raising) stays in the residual, with its reason.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import heapq
import math
import signal
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from .frames import NotPlain, plain_key
from .paths import Branch, Decision, Run, Stop, current_run
from .symbolic import SMALL_INTERVAL, Symbolic, Unsupported

__all__ = ["Budget", "Law", "Summaries", "enumerate_law", "plain_output"]

#: A sampler's loops seldom need more; more nodes make the exact linear solve slow.
MAX_NODES = 48


@dataclass(frozen=True)
class Budget:
    """How far to enumerate: stop when the residual is at most ``tolerance``, or at ``max_paths``
    expanded paths, or at the ``deadline`` (a ``time.monotonic()`` value).

    Once the tolerance is reached, up to ``finish_paths`` more paths are run in case the tree is finite:
    a complete enumeration gives exact laws, and with them a pure certificate or an exact refutation on
    mass far below the tolerance (a float sampler's truncated tail, 2^-53).
    """

    tolerance: Fraction = Fraction(1, 10**15)
    max_paths: int = 200_000
    deadline: float = float("inf")
    finish_paths: int = 2_000


@dataclass
class Law:
    """The explored law of one run of a sampler: exact lower bounds and what is left.

    ``outcomes[o]`` is a lower bound of P(o) (exact rational); ``residual`` = 1 - their sum bounds
    the probability of every outcome not explored and the excess of every explored one.  ``reasons``
    lists mass set aside and why (largest first); ``paths`` counts the expanded paths and ``nodes``
    the merged program states; ``witnesses[o]`` is one path reaching ``o`` (its events and answers).
    """

    outcomes: dict[Hashable, Fraction]
    residual: Fraction
    paths: int = 0
    nodes: int = 1
    reasons: list[tuple[Fraction, str]] = field(default_factory=list)
    complete: bool = False
    witnesses: dict[Hashable, tuple[str, ...]] = field(default_factory=dict)
    stopped_by: str = "complete"

    def interval(self, outcome: Hashable) -> tuple[Fraction, Fraction]:
        low = self.outcomes.get(outcome, Fraction(0))
        return low, min(Fraction(1), low + self.residual)


def plain_output(value: Any, where: str = "the output") -> Hashable:
    """The sampler's output as a hashable value: symbolic values made concrete (a branch each), lists as
    tuples, numpy scalars and arrays as Python values.  Raises :class:`Unsupported` for other objects."""
    if isinstance(value, Symbolic):
        return value.concrete(where)
    if value is None or isinstance(value, (bool, int, float, str, bytes, Fraction)):
        return value
    if isinstance(value, (tuple, list)):
        return tuple(plain_output(v, where) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((plain_output(k, where), plain_output(v, where)) for k, v in value.items()))
    if hasattr(value, "dtype") and hasattr(value, "tolist"):
        return plain_output(value.tolist(), where)
    raise Unsupported(f"{where} is a {type(value).__name__}, which certify cannot compare: return numbers, "
                      "strings or tuples of them")


class _Nodes:
    """The merged program states of one enumeration; node 0 is the start."""

    def __init__(self) -> None:
        self.index: dict[Hashable, int] = {}
        self.carriers: list[tuple[tuple[Decision, ...], int]] = [((), 0)]
        self.weights: list[float] = [1.0]
        self.current_weight = 1.0

    def stop_at(self, key: Hashable, run: Run) -> bool:
        """Stop at an existing node, or make one where the path meets a state of its own segment again."""
        if key in self.index:
            return True
        if key in run.segment_keys and len(self.carriers) < MAX_NODES:
            self.index[key] = len(self.carriers)
            self.carriers.append((run.decisions, run.points))
            self.weights.append(self.current_weight)
            return True
        return False


def _visits(transitions: list[dict[int, Fraction]]) -> list[Fraction]:
    """Expected visits of each node from node 0: the solution v of (I - T)^T v = e_0, exactly.

    For a chain whose explored part cannot leave a closed class (``I - T`` singular) the series
    ``sum_k T^k`` is cut after as many terms as there are nodes, which is still a lower bound.
    """
    n = len(transitions)
    if n == 1 and not transitions[0]:
        return [Fraction(1)]
    # rows of the system (I - T)^T v = e_0 with an augmented column
    rows = [[Fraction(int(i == j)) for j in range(n)] + [Fraction(int(i == 0))] for i in range(n)]
    for i, out in enumerate(transitions):
        for j, p in out.items():
            rows[j][i] -= p
    for column in range(n):
        pivot = next((r for r in range(column, n) if rows[r][column] != 0), None)
        if pivot is None:
            return _truncated_visits(transitions)
        rows[column], rows[pivot] = rows[pivot], rows[column]
        head = rows[column][column]
        rows[column] = [x / head for x in rows[column]]
        for r in range(n):
            if r != column and rows[r][column] != 0:
                factor = rows[r][column]
                rows[r] = [a - factor * b for a, b in zip(rows[r], rows[column])]
    visits = [rows[i][n] for i in range(n)]
    if any(v < 0 for v in visits):  # cannot happen for a substochastic T; keep the bound safe anyway
        return _truncated_visits(transitions)
    return visits


def _truncated_visits(transitions: list[dict[int, Fraction]]) -> list[Fraction]:
    n = len(transitions)
    visits = [Fraction(0)] * n
    current = [Fraction(int(i == 0)) for i in range(n)]
    for _ in range(4 * n):
        visits = [a + b for a, b in zip(visits, current)]
        nxt = [Fraction(0)] * n
        for i, out in enumerate(transitions):
            for j, p in out.items():
                nxt[j] += current[i] * p
        current = nxt
    return visits


class Summaries:
    """Exact laws of helper functions, one per argument tuple, and the wrappers that use them.

    A helper is summarised at a call whose arguments are all plain values (numbers, strings, tuples,
    the random source); its law is that of ``(return value, draws made)``.  A call with a symbolic or
    mutable argument, a recursive call, or a helper returning something else (a value of a draw, such
    as a uniform, which the caller goes on to transform) runs inline.  The helper
    must be a function of its arguments and draws (the assumption of the whole enumeration).
    """

    def __init__(self, *, observe_draws: bool, budget: Budget) -> None:
        self.observe_draws = observe_draws
        self.budget = budget
        self.laws: dict[Hashable, Law | None] = {}
        self.active: set[Hashable] = set()
        self.inline: set[Callable[..., Any]] = set()
        self.paths = 0
        #: mass set aside inside summarised calls, by reason (the mass is that of one call's law)
        self.reasons: dict[str, Fraction] = {}

    def wrap(self, helper: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(helper)
        def summarised(*args: Any, **kwargs: Any) -> Any:
            return self.call(helper, args, kwargs, sys._getframe(1))

        summarised.__dpaudit_summarised__ = helper  # type: ignore[attr-defined]
        return summarised

    def call(self, helper: Callable[..., Any], args: tuple, kwargs: dict, caller: Any) -> Any:
        # a small integer draw passed as an argument is made concrete (a branch per value), so that the
        # helper is summarised per value rather than followed inline
        args = tuple(_small_concrete(value, helper) for value in args)
        try:
            key = (helper, plain_key(args), plain_key(tuple(sorted(kwargs.items()))))
        except NotPlain:
            key = None
        if key is None or key in self.active or helper in self.inline:
            return helper(*args, **kwargs)
        law = self.laws.get(key)
        if key not in self.laws:
            self.active.add(key)
            try:
                law = self._law(helper, args, kwargs)
            finally:
                self.active.discard(key)
            self.laws[key] = law
        if law is None:
            return helper(*args, **kwargs)
        event = f"{helper.__name__}({', '.join(map(repr, args))})"
        run = current_run()
        return run.outcome_of(event, law.outcomes, caller, ("call", helper.__qualname__, key[1:]))

    def _law(self, helper: Callable[..., Any], args: tuple, kwargs: dict) -> Law | None:
        function = functools.partial(helper, **kwargs) if kwargs else helper
        try:
            law = enumerate_law(function, args, summaries=self, observe_draws=self.observe_draws,
                                budget=self.budget, helper=True)
        except _NotSummarisable:
            self.inline.add(helper)
            return None
        self.paths += law.paths
        call = f"{getattr(helper, '__name__', 'helper')}({', '.join(map(repr, args))})"
        for mass, reason in law.reasons:
            self.reasons.setdefault(f"in {call}: {reason}", mass)
        return law


def _small_concrete(value: Any, helper: Callable[..., Any]) -> Any:
    if isinstance(value, Symbolic) and value.run.size(value.draw) <= SMALL_INTERVAL:
        return value.concrete(f"an argument of {helper.__name__}()")
    return value


class _NotSummarisable(Exception):
    pass


class _OutOfTime(BaseException):
    """The deadline passed inside the sampler's code (:class:`_Alarm`).  A ``BaseException``, as
    ``KeyboardInterrupt`` is, so that the sampler's own ``except Exception`` does not swallow it."""


def _in_gc_callback(frame: Any) -> bool:
    """Whether ``frame`` runs inside a garbage-collector callback (``gc.callbacks``, e.g. hypothesis's timer), where
    an exception is reported as unraisable and dropped: the alarm rings again 50 ms later."""
    codes = {getattr(callback, "__code__", None) for callback in gc.callbacks}
    while frame is not None:
        if frame.f_code in codes:
            return True
        frame = frame.f_back
    return False


class _Alarm:
    """Stops the sampler's own code at the budget's deadline.

    The enumeration checks the time between paths; a path whose code loops without drawing (``while
    True: pass``) never returns to that check.  Where it can -- the main thread of a POSIX process, no
    other interval timer armed (pytest-timeout's, say) -- this arms ``SIGALRM`` for the deadline and
    every 50 ms after it; the handler raises :class:`_OutOfTime` only while the sampler's code runs
    (:meth:`user_code`), and the enumeration stops there with "time limit": the path's mass stays in the
    residual, as every path not finished does.  Elsewhere it does nothing (the time is checked between
    paths only, as before).
    """

    REPEAT = 0.05

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline
        self.armed = False
        self.inside = False
        self.previous: Any = None

    def __enter__(self) -> _Alarm:
        if (math.isfinite(self.deadline) and hasattr(signal, "setitimer")
                and threading.current_thread() is threading.main_thread()
                and signal.getitimer(signal.ITIMER_REAL)[0] == 0):
            self.previous = signal.signal(signal.SIGALRM, self._ring)
            signal.setitimer(signal.ITIMER_REAL, max(self.deadline - time.monotonic(), 1e-3), self.REPEAT)
            self.armed = True
        return self

    def __exit__(self, *exc: object) -> None:
        if self.armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.previous)
            self.armed = False

    def _ring(self, signum: int, frame: Any) -> None:
        if self.inside and not _in_gc_callback(frame):  # raised there, it would only be printed and lost
            raise _OutOfTime

    @contextlib.contextmanager
    def user_code(self) -> Iterator[None]:
        self.inside = True
        try:
            yield
        finally:
            self.inside = False


def enumerate_law(
    function: Callable[..., Any],
    args: tuple[Any, ...],
    *,
    summaries: Summaries,
    observe_draws: bool,
    budget: Budget,
    helper: bool = False,
) -> Law:
    """The law of ``function(*args)`` (outcomes, or ``(outcome, draws)`` when ``observe_draws``)."""
    nodes = _Nodes()
    transitions: list[dict[int, Fraction]] = [defaultdict(Fraction)]
    terminals: list[dict[Hashable, Fraction]] = [defaultdict(Fraction)]
    terminal_mass: list[Fraction] = [Fraction(0)]
    set_aside: list[dict[str, Fraction]] = [defaultdict(Fraction)]
    frontier: list[tuple[float, int, int, tuple[Decision, ...], Fraction]] = [(-1.0, 0, 0, (), Fraction(1))]
    counter = paths = 0
    next_check = 64
    residual = Fraction(1)
    finish = _finish(helper)
    witnesses: dict[Hashable, tuple[str, ...]] = {}

    def grow() -> None:
        while len(transitions) < len(nodes.carriers):
            transitions.append(defaultdict(Fraction))
            terminals.append(defaultdict(Fraction))
            terminal_mass.append(Fraction(0))
            set_aside.append(defaultdict(Fraction))

    finish_by: int | None = None  # the path count at which the attempt to complete ends
    stopped_by = "complete"
    with _Alarm(budget.deadline) as alarm:
        try:
            while frontier:
                if finish_by is None and paths >= next_check:
                    next_check = paths + max(64, paths // 4)
                    visits = _visits(transitions)
                    residual = 1 - sum(v * m for v, m in zip(visits, terminal_mass))
                    if residual <= budget.tolerance:
                        finish_by = paths + budget.finish_paths
                if finish_by is not None and paths >= finish_by:
                    stopped_by = "tolerance"
                    break
                if paths >= budget.max_paths or time.monotonic() > budget.deadline:
                    stopped_by = "path limit" if paths >= budget.max_paths else "time limit"
                    break
                _, _, node, extra, q = heapq.heappop(frontier)
                carrier, start = nodes.carriers[node]
                nodes.current_weight = nodes.weights[node] * float(q)
                run = Run(carrier + extra, start_point=start, nodes=nodes, observe_draws=observe_draws)
                paths += 1
                try:
                    with alarm.user_code():
                        value = run.execute(function, args, finish)
                except Branch as branch:
                    for option in branch.options:
                        probability = q * option.probability
                        counter += 1
                        heapq.heappush(frontier, (-nodes.weights[node] * float(probability), counter, node,
                                                  extra + (option,), probability))
                    for probability, reason in branch.abandoned:
                        set_aside[node][reason] += q * probability
                    continue
                except Stop as stop:
                    target = nodes.index[stop.key]
                    if target >= len(transitions):  # a new node: its own exploration starts
                        grow()
                        counter += 1
                        heapq.heappush(frontier, (-nodes.weights[target], counter, target, (), Fraction(1)))
                    transitions[node][target] += q
                    continue
                except _NotSummarisable:
                    raise
                except Unsupported as error:
                    set_aside[node][str(error)] += q
                    continue
                except Exception as error:  # the sampler's own code raised on this path
                    set_aside[node][f"the sampler raised {type(error).__name__}: {error}"] += q
                    continue
                if helper:  # a summary's outcome carries the draws it made, counted only when they are observed
                    outcome: Hashable = (value, run.draw_count if observe_draws else 0)
                else:
                    outcome = (value, run.draw_count) if observe_draws else value
                terminals[node][outcome] += q
                terminal_mass[node] += q
                if outcome not in witnesses:
                    witnesses[outcome] = tuple(_described(d) for d in run.decisions if d.step != "rest")
        except _OutOfTime:  # the deadline passed inside the sampler's code (a loop that never draws)
            if not alarm.armed:  # this enumeration's caller's alarm: its caller stops
                raise
            stopped_by = "time limit"
    grow()
    visits = _visits(transitions)
    outcomes: dict[Hashable, Fraction] = defaultdict(Fraction)
    for v, terms in zip(visits, terminals):
        if v:
            for outcome, p in terms.items():
                outcomes[outcome] += v * p
    reasons: dict[str, Fraction] = defaultdict(Fraction)
    for v, aside in zip(visits, set_aside):
        for reason, p in aside.items():
            reasons[reason] += v * p
    residual = 1 - sum(outcomes.values(), Fraction(0))
    return Law(
        outcomes=dict(outcomes),
        residual=residual,
        paths=paths,
        nodes=len(nodes.carriers),
        reasons=sorted(((p, r) for r, p in reasons.items()), key=lambda item: -item[0]),
        complete=residual == 0,
        witnesses=witnesses,
        stopped_by=stopped_by,
    )


def _described(decision: Decision) -> str:
    """One step of a path: the event (its text cut at 100 characters) and the answer taken."""
    event = decision.event if len(decision.event) <= 100 else decision.event[:97] + "..."
    if decision.step == "side":
        return f"{event}: {bool(decision.value)}"
    return f"{event}: {decision.value[0] if decision.step == 'outcome' else decision.value!r}"


def _finish(helper: bool) -> Callable[[Any], Any]:
    """What a run does with the function's result, inside the run (a symbolic result branches there)."""
    if not helper:
        return plain_output

    def finish(value: Any) -> Any:
        if isinstance(value, Symbolic):
            if value.run.size(value.draw) > SMALL_INTERVAL:  # a uniform: followed in the caller, where it is used
                raise _NotSummarisable
            value = value.concrete("the helper's result")  # a small integer draw: one outcome per value
        try:
            plain_key(value)
        except NotPlain:
            raise _NotSummarisable from None
        return value

    return finish
