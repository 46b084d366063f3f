"""`dpaudit prove`: exit codes and output through click's CliRunner."""

from __future__ import annotations

import json

import pytest

from click.testing import CliRunner

from dpaudit.cli import main


def invoke(*args):
    return CliRunner().invoke(main, ["prove", *args])


def test_laplace_is_proved_exit_0():
    result = invoke("laplace")
    assert result.exit_code == 0, result.output
    assert "PROVED" in result.output and "final inequality" in result.output


def test_restated_claim_is_refuted_exit_1_with_witness():
    result = invoke("laplace", "--epsilon", "0.5")
    assert result.exit_code == 1
    assert "output set S" in result.output and "re-verified" in result.output
    # The headline's reason is the witness's description: said once, not twice.
    reason = result.output.splitlines()[1].strip()
    assert sum(line.strip() == reason for line in result.output.splitlines()) == 1


def test_gaussian_claimed_pure_exit_1():
    result = invoke("tests.proofs.cli_targets:gaussian_pure")
    assert result.exit_code == 1, result.output
    assert "y <" in result.output


def test_time_budget_exhausted_exit_3():
    result = invoke("laplace-vector", "--time-budget", "0.001")
    assert result.exit_code == 3, result.output
    assert "time budget exhausted at step" in result.output


def test_floor_density_is_proved_by_pairing_its_floor_terms_exit_0():
    result = invoke("tests.proofs.cli_targets:floor_density")
    assert result.exit_code == 0, result.output


def test_bad_input_exit_2():
    for args in (["no-such-mechanism"], ["tests.proofs.cli_targets:no_density"], ["tests.proofs.cli_targets:broken_density"]):
        result = invoke(*args)
        assert result.exit_code == 2, (args, result.output)
        assert result.output.count("\n") <= 1 or "error" in result.output


def test_json_output():
    result = invoke("laplace", "--json")
    document = json.loads(result.output)
    assert document["verdict"] == "proved" and document["certificate"]["steps"]


def test_gaussian_zcdp_is_proved_with_its_certificate_exit_0():
    result = invoke("gaussian-zcdp")
    assert result.exit_code == 0, result.output
    assert "PROVED" in result.output and "0.5-zCDP" in result.output and "[conversion]" in result.output


def test_restated_zcdp_gdp_and_renyi_claims():
    refuted = invoke("gaussian-zcdp", "--rho", "0.25")
    assert refuted.exit_code == 1 and "D_alpha at alpha = 2" in refuted.output
    assert invoke("gaussian-gdp", "--mu", "2").exit_code == 0
    renyi = invoke("laplace", "--alpha", "2", "--epsilon", "0.5", "--json")
    assert renyi.exit_code == 1 and json.loads(renyi.output)["claim"] == {"kind": "renyi", "alpha": [2.0], "epsilon": [0.5]}
    point = invoke("gaussian-zcdp", "--claim", "approximate", "--delta", "1e-5")
    assert point.exit_code == 0 and "delta_BW" in point.output


def test_a_curve_claim_restated_without_its_parameter_is_one_line_exit_2():
    result = invoke("laplace", "--claim", "zcdp")
    assert result.exit_code == 2 and "--claim zcdp needs --rho too" in result.output
    result = invoke("gaussian-zcdp", "--claim", "approximate")
    assert result.exit_code == 2 and "needs --delta or --epsilon" in result.output


def test_above_threshold_prints_its_alignment_certificate_exit_0():
    result = invoke("above-threshold")
    assert result.exit_code == 0, result.output
    assert "randomness alignment" in result.output
    assert "Eq(eta_rho, Delta)" in result.output and "Eq(eta_nu_top, Delta - d_t)" in result.output


def test_svt_lyu_3_prints_its_counterexample_exit_1():
    result = invoke("svt-lyu-3")
    assert result.exit_code == 1, result.output
    assert "REFUTED" in result.output and "inputs: [[" in result.output
    assert "bottom, bottom, top with value <=" in result.output and "re-verified with mpmath at 50 digits" in result.output


def test_svt_lyu_4_json_names_the_witness_pattern():
    result = invoke("svt-lyu-4", "--json")
    assert result.exit_code == 1
    witness = json.loads(result.output)["counterexample"]
    pattern = witness["output"]
    assert pattern.count(1) == 1 and pattern[: pattern.index(1)] == [0] * pattern.index(1)  # bottoms, one top, then -1s
    assert witness["value"] > witness["bound"] == 0.1


@pytest.mark.parametrize(("args", "named"), [
    (("--epsilon", "nan", "--claim", "zcdp"), "epsilon=nan"),  # found by the CLI fuzzer: zcdp does not use epsilon
    (("--rho", "nan", "--claim", "gdp", "--mu", "1"), "rho=nan"),
    (("--delta", "2", "--claim", "zcdp", "--rho", "1"), "delta=2.0"),
])
def test_a_malformed_value_is_named_even_where_the_restated_claim_would_not_use_it(args, named):
    result = invoke("rr", *args)
    assert result.exit_code == 2 and named in result.output


def test_epsilon_and_delta_on_a_curve_claim_restate_its_point_as_audit_does():
    # Proving the zCDP claim itself while the user named a point would answer a question not asked.
    refuted = invoke("gaussian-zcdp", "--epsilon", "1", "--delta", "1e-5")
    assert refuted.exit_code == 1 and "REFUTED" in refuted.output and "1e-05" in refuted.output
    assert invoke("gaussian-zcdp", "--delta", "1e-3").exit_code == 0
