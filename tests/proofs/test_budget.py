"""The time budget: a proof past its deadline ends as ``unknown`` naming the step, never hangs."""

from __future__ import annotations

import time

import pytest

from dpaudit.errors import InvalidArgument
from dpaudit.proofs import Verdict, prove
from dpaudit.proofs.budget import BudgetExhausted, checkpoint, time_budget


def test_checkpoint_outside_a_budget_is_free():
    checkpoint("anything")  # no budget: never raises


def test_checkpoint_raises_after_the_deadline_with_the_current_step():
    with pytest.raises(BudgetExhausted) as info:
        with time_budget(0.05):
            checkpoint("first step")
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:  # the timer (or the next checkpoint) must stop this
                checkpoint()
    assert info.value.step == "first step"


def test_the_timer_interrupts_a_long_call_between_checkpoints():
    start = time.monotonic()
    with pytest.raises(BudgetExhausted):
        with time_budget(0.1):
            checkpoint("busy loop")
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:  # no checkpoint inside: only the interval timer can end it
                pass
    assert time.monotonic() - start < 2


def test_inner_budget_ends_no_later_than_the_outer_one():
    with time_budget(0.05):
        with pytest.raises(BudgetExhausted):
            with time_budget(100.0):
                time.sleep(0.1)
                checkpoint("inner")
    checkpoint("after")  # both budgets are gone


def test_prove_with_a_tiny_budget_is_unknown_naming_the_step():
    result = prove("laplace-vector", time_budget=0.001)
    assert result.verdict is Verdict.UNKNOWN
    assert result.reason.startswith("time budget exhausted at step")
    assert result.elapsed_s < 2


def test_the_same_proof_with_a_normal_budget_is_proved():
    assert prove("laplace-vector", time_budget=30).verdict is Verdict.PROVED


@pytest.mark.parametrize("budget", [0, -1.0, "1"])
def test_invalid_budget(budget):
    with pytest.raises(InvalidArgument, match="time_budget"):
        prove("laplace", time_budget=budget)
