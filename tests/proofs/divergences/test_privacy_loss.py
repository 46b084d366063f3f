"""The exact privacy loss distribution of subsampled Gaussian steps, and accountants checked against it."""

from __future__ import annotations

import importlib
import math
import sys

import pytest

from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.catalogue.dp_sgd import (
    accountant_epsilon,
    gaussian_epsilon,
    subsampled_gaussian_epsilon,
)
from dpaudit.proofs.divergences.privacy_loss import check_accountant, exact_epsilon


@pytest.mark.parametrize("sigma, q", [(1.0, 1.0), (0.5, 0.01), (1.0, 0.01), (2.0, 0.3)])
def test_one_step_bracket_holds_the_closed_form(sigma, q):
    bracket = exact_epsilon(sigma, q, 1, 1e-5)
    exact = subsampled_gaussian_epsilon(sigma, q, 1e-5)
    assert bracket.low <= exact <= bracket.high
    assert bracket.high - bracket.low <= 1e-3 + 1e-9


@pytest.mark.parametrize("sigma, steps", [(1.0, 10), (3.0, 30)])
def test_full_batch_composition_is_gaussian(sigma, steps):
    # q = 1: T Gaussian steps are sqrt(T)/sigma-GDP exactly (Dong, Roth & Su 2022, Cor. 3.3).
    bracket = exact_epsilon(sigma, 1.0, steps, 1e-5)
    assert bracket.low <= gaussian_epsilon(math.sqrt(steps) / sigma, 1e-5) <= bracket.high


@pytest.mark.parametrize("sigma, q, steps", [(1.0, 0.01, 10), (0.8, 0.1, 20)])
def test_dp_accounting_agrees(sigma, q, steps):
    bracket = exact_epsilon(sigma, q, steps, 1e-5)
    pld = accountant_epsilon(sigma, q, steps, 1e-5)
    # Both are discretisations of the same distribution: the PLD accountant's pessimistic value lies
    # within the bracket widened by its own interval (1e-4 per step).
    assert bracket.low <= pld <= bracket.high + steps * 1e-4
    assert check_accountant(accountant_epsilon, sigma, q, steps, 1e-5).verdict == "sound"
    rdp = check_accountant(lambda *a: accountant_epsilon(*a, accountant="rdp"), sigma, q, steps, 1e-5)
    assert rdp.verdict == "sound" and rdp.claimed > bracket.high


def test_under_reporting_accountants_are_flagged():
    # Composing with the wrong sampling rate (q / 2, e.g. a batch size divided by the dataset twice).
    wrong_q = check_accountant(lambda s, q, t, d: accountant_epsilon(s, q / 2, t, d), 1.0, 0.02, 10, 1e-5)
    assert wrong_q.verdict == "under-reports", wrong_q.reason
    # Composing the number of epochs (T q) instead of the number of steps T, with the RDP accountant.
    def epochs_for_steps(s, q, t, d):
        return accountant_epsilon(s, q, max(1, round(t * q)), d, accountant="rdp")

    flawed = check_accountant(epochs_for_steps, 1.0, 0.1, 20, 1e-5)
    assert flawed.verdict == "under-reports", flawed.reason
    assert flawed.claimed < flawed.exact.low


def test_bad_parameters_are_refused():
    with pytest.raises(InvalidArgument, match="q"):
        exact_epsilon(1.0, 0.0, 1, 1e-5)
    with pytest.raises(InvalidArgument, match="steps"):
        exact_epsilon(1.0, 0.5, 0, 1e-5)


def test_the_former_path_warns_and_gives_the_same_functions(monkeypatch):
    monkeypatch.delitem(sys.modules, "dpaudit.proofs.privacy_loss", raising=False)
    with pytest.warns(DeprecationWarning, match="dpaudit.proofs.divergences.privacy_loss"):
        former = importlib.import_module("dpaudit.proofs.privacy_loss")
    assert (former.exact_epsilon, former.check_accountant) == (exact_epsilon, check_accountant)
