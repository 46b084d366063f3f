"""``--claim``, ``--rho``, ``--mu``, ``--alpha``: one reading of a restated claim for ``dpaudit audit`` and
``dpaudit prove`` (:mod:`dpaudit.cli._claims`)."""

from __future__ import annotations

import json
import shlex

import pytest
from click.testing import CliRunner

from dpaudit import ApproxDP, GaussianDP, ProbabilisticDP, PureDP, RenyiDP, ZeroConcentratedDP
from dpaudit.claims import claim_from_dict
from dpaudit.auditor.result import AuditResult, without_timings

MECHANISM = """
import numpy as np


def noisy_count(data, n, rng):
    # sigma = Delta / sqrt(2 rho) = 1 for Delta = 1, rho = 0.5: exactly 0.5-zCDP (on a 2^-16 grid: no float leak)
    return np.rint((np.sum(data) + rng.normal(0.0, 1.0, size=n)) * 2.0**16) / 2.0**16
"""
PAIR = ["--a", "[1, 0, 1]", "--b", "[1, 0, 1, 1]"]
QUICK = ["--samples", "20000", "--seed", "1", "--executor", "in-process"]


@pytest.fixture()
def target(tmp_path):
    path = tmp_path / "mech.py"
    path.write_text(MECHANISM)
    return f"{path}:noisy_count"


def run(*args: str):
    from dpaudit.cli import main

    return CliRunner().invoke(main, list(args))


def test_rho_audits_a_plain_function_against_its_zcdp_claim(target):
    # The statistics are those of tests/auditor/test_any_claim.py (same function, budget and verdict level
    # 0.999 here: validity <= 1e-3 on any seed, and the quarter-rho claim is refuted by 16 sd).
    result = run("audit", target, "--rho", "0.5", *PAIR, *QUICK)
    assert result.exit_code == 0, result.output
    assert result.output.startswith("PASS: noisy_count claims 0.5-zCDP")
    assert "the empirical curve at confidence 0.999 does not refute the claim" in result.output
    over = run("audit", target, "--rho", "0.125", *PAIR, *QUICK)
    assert over.exit_code == 1, over.output
    assert over.output.startswith("VIOLATION: noisy_count claims 0.125-zCDP") and "(decided by the curve)" in over.output


def test_the_reproduce_line_carries_the_claim_and_reproduces_the_run(target):
    shown = run("audit", target, "--claim", "zcdp", "--rho", "0.125", "--delta", "1e-3", *PAIR, *QUICK)
    line = next(text for text in shown.output.splitlines() if text.startswith("  reproduce: "))
    args = shlex.split(line.removeprefix("  reproduce: "))
    assert args[:2] == ["dpaudit", "audit"] and "--claim zcdp" in line and "--rho 0.125" in line and "--delta 0.001" in line
    first = json.loads(run("audit", target, "--claim", "zcdp", "--rho", "0.125", "--delta", "1e-3", *PAIR, *QUICK,
                           "--json").output)
    again = json.loads(run(*args[1:], "--executor", "in-process", "--json").output)
    first, again = without_timings(first), without_timings(again)
    assert again == first and first["claim"] == ZeroConcentratedDP(0.125).to_approx(1e-3).as_dict()


def test_json_round_trips_the_claim_audited(target):
    document = json.loads(run("audit", target, "--mu", "1", *PAIR, "--samples", "2000", "--seed", "2", "--json").output)
    result = AuditResult.from_dict(document)
    assert result.claim == GaussianDP(1.0) and result.curve_check and result.as_dict() == document


@pytest.mark.parametrize("options, claim", [
    (["--rho", "0.25"], ZeroConcentratedDP(0.25)),
    (["--claim", "zcdp"], ZeroConcentratedDP(0.5)),  # the mechanism's own rho
    (["--rho", "0.5", "--delta", "1e-3"], ZeroConcentratedDP(0.5).to_approx(1e-3)),
    (["--claim", "approximate", "--delta", "1e-3"], ZeroConcentratedDP(0.5).to_approx(1e-3)),
    (["--claim", "probabilistic", "--epsilon", "3"], ProbabilisticDP(3.0, ZeroConcentratedDP(0.5).delta_at_epsilon(3.0))),
    (["--claim", "pure", "--epsilon", "2"], PureDP(2.0)),
    (["--mu", "1.5"], GaussianDP(1.5)),
    (["--alpha", "2", "--epsilon", "1"], RenyiDP(2.0, 1.0)),
    (["--alpha", "2", "--epsilon", "1", "--delta", "1e-4"], RenyiDP(2.0, 1.0).to_approx(1e-4)),
])
def test_prove_and_audit_read_the_claim_options_alike(options, claim):
    proved = json.loads(run("prove", "gaussian-zcdp", *options, "--json").output)
    audited = json.loads(run("audit", "gaussian-zcdp", *options, "--samples", "100", "--seed", "1",
                             "--executor", "in-process", "--json").output)
    assert claim_from_dict(proved["claim"]) == claim_from_dict(audited["claim"]) == claim


def test_claim_options_on_a_point_claim():
    document = json.loads(run("audit", "laplace", "--claim", "approximate", "--delta", "1e-3", "--samples", "100",
                              "--seed", "1", "--executor", "in-process", "--json").output)
    assert document["claim"] == ApproxDP(1.0, 1e-3).as_dict()


@pytest.mark.parametrize("options, message", [
    (["--claim", "zcdp"], "--claim zcdp needs --rho too (a plain function carries no claim)"),
    (["--claim", "gdp"], "--claim gdp needs --mu too"),
    (["--claim", "renyi", "--alpha", "2"], "--claim renyi needs --epsilon too"),
    (["--alpha", "2"], "--alpha (a --claim renyi claim) needs --epsilon too"),
    (["--claim", "pure"], "--claim pure needs --epsilon too"),
    (["--claim", "approximate", "--epsilon", "1"], "--claim approximate needs --delta too"),
    (["--rho", "0.5", "--mu", "1"], "--rho and --mu state different claims (zcdp, gdp): give one"),
    (["--rho", "0.5", "--mu", "1", "--alpha", "2"], "--rho, --mu and --alpha state different claims"),
    (["--claim", "pure", "--rho", "1"], "--rho states a zcdp claim, not --claim pure: drop --rho or give --claim zcdp"),
    (["--claim", "gdp", "--alpha", "2", "--epsilon", "1"], "--alpha states a renyi claim, not --claim gdp"),
    (["--claim", "pure", "--epsilon", "1", "--delta", "1e-5"], "--claim pure has delta = 0, not --delta 1e-05"),
    (["--rho", "0.5", "--epsilon", "1", "--delta", "1e-5"],
     "--rho (a --claim zcdp claim) with --epsilon and --delta: give one, the point of its curve"),
    (["--rho", "0.5", "--delta", "0"], "--delta=0.0 must lie in (0, 1)"),
    (["--rho", "-1"], "--rho=-1.0 must be a finite number >= 0"),
    (["--alpha", "1", "--epsilon", "1"], "--alpha=1.0 must be a finite Rényi order > 1"),
])
def test_a_malformed_claim_is_one_line_exit_2_before_any_work(target, options, message):
    result = run("audit", target, *options, *PAIR, *QUICK)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"dpaudit: error: {message}"), result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize("options, message", [
    (["--rho", "0.5", "--mu", "1"], "--rho and --mu state different claims"),
    (["--claim", "pure", "--rho", "1"], "--rho states a zcdp claim, not --claim pure"),
    (["--claim", "pure", "--delta", "1e-5"], "--claim pure has delta = 0"),
    (["--rho", "0.5", "--epsilon", "1", "--delta", "1e-5"], "give one, the point of its curve"),
    (["--claim", "pure"], "--claim pure needs --epsilon too (the mechanism claims 0.5-zCDP)"),
])
def test_prove_refuses_the_same_combinations(options, message):
    result = run("prove", "gaussian-zcdp", *options)
    assert result.exit_code == 2 and message in result.output
