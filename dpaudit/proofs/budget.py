"""A time budget for one proof: cooperative checkpoints and, where possible, an interval timer.

Each procedure names the step it is in with :func:`checkpoint`; past the deadline the call raises
:class:`BudgetExhausted` carrying that step, and each procedure runs under :func:`decide_within`, which
turns it into the verdict ``unknown`` with the reason "time budget exhausted at step ...".  A single
sympy call can run for a long time between two checkpoints (``subs`` on a Min/Max-heavy pmf, ``solve`` on a transcendental
equation), so on the main thread of a process that has ``signal.setitimer`` an ``ITIMER_REAL`` timer
also raises :class:`BudgetExhausted` at the deadline from inside the running call (Python runs signal
handlers between bytecodes, so no C-level state is left half-written).  :class:`BudgetExhausted`
derives from ``BaseException`` so that library code catching ``Exception`` cannot swallow it.

Budgets nest: an inner budget (a part of a composition) ends no later than the outer one, and only
the outermost installs the timer.
"""

from __future__ import annotations

import contextvars
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from .result import Outcome, Verdict

__all__ = ["BudgetExhausted", "checkpoint", "decide_within", "time_budget"]


class BudgetExhausted(BaseException):
    """The proof ran past its deadline; ``step`` is the step it was in."""

    def __init__(self, step: str) -> None:
        super().__init__(f"time budget exhausted at step {step!r}")
        self.step = step


@dataclass
class _Budget:
    deadline: float
    step: str = "setup"
    timer: bool = False


_CURRENT: contextvars.ContextVar[_Budget | None] = contextvars.ContextVar("dpaudit_proof_budget", default=None)


def checkpoint(step: str | None = None) -> None:
    """Record that the proof enters ``step`` (None: stay in the current one); raise
    :class:`BudgetExhausted` if the deadline has passed."""
    budget = _CURRENT.get()
    if budget is None:
        return
    if step is not None:
        budget.step = step
    if time.monotonic() > budget.deadline:
        raise BudgetExhausted(budget.step)


def _timer_available() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


@contextmanager
def time_budget(seconds: float | None) -> Iterator[None]:
    """Run the body under a deadline ``seconds`` from now (``None``: no deadline of its own)."""
    outer = _CURRENT.get()
    if seconds is None and outer is None:
        yield
        return
    deadline = time.monotonic() + seconds if seconds is not None else outer.deadline
    if outer is not None:
        deadline = min(deadline, outer.deadline)
    budget = _Budget(deadline)
    token = _CURRENT.set(budget)
    installed, previous = False, None
    if outer is None and _timer_available() and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0):

        def on_alarm(signum: int, frame: object) -> None:
            if budget.timer:
                current = _CURRENT.get()
                raise BudgetExhausted((current or budget).step)

        previous = signal.signal(signal.SIGALRM, on_alarm)
        installed = budget.timer = True
        signal.setitimer(signal.ITIMER_REAL, max(deadline - time.monotonic(), 1e-3))
    try:
        yield
    finally:
        # Nested so that every clean-up runs even if the alarm fires in the middle of one of them.
        try:
            budget.timer = False
        finally:
            try:
                if installed:
                    signal.setitimer(signal.ITIMER_REAL, 0)
                    signal.signal(signal.SIGALRM, previous if previous is not None else signal.SIG_DFL)
            finally:
                _CURRENT.reset(token)


def decide_within(seconds: float | None, decide: Callable[[], Outcome], scope: str | None = None) -> Outcome:
    """``decide()`` under :func:`time_budget`; past the deadline, the verdict ``unknown`` naming the step.

    The reason reads "time budget exhausted at step 'STEP' (limit 10 s)", or "(limit the enclosing
    budget)" when ``seconds`` is None and an outer budget ran out; the method is "time budget" and the
    scope ``scope``.
    """
    try:
        with time_budget(seconds):
            return decide()
    except BudgetExhausted as exc:
        limit = "the enclosing budget" if seconds is None else f"{seconds:g} s"
        return Outcome(Verdict.UNKNOWN, f"time budget exhausted at step {exc.step!r} (limit {limit})", "time budget",
                       scope=scope)
