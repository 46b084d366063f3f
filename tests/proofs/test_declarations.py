"""A mechanism's claim and sensitivity against its density's: contradictions are named, never proved around."""

from __future__ import annotations

import warnings

import pytest
import sympy
from click.testing import CliRunner

import dpaudit
from dpaudit.cli import main
from dpaudit.mechanisms.density import SymbolicDensity, symbol

MODULE = '''
import sympy
import dpaudit
from dpaudit.mechanisms.density import SymbolicDensity, symbol


def _density():
    y, q, eps, Delta = symbol("y"), symbol("q"), symbol("epsilon"), symbol("Delta")
    b = Delta / eps
    return SymbolicDensity(expr=sympy.exp(-sympy.Abs(y - q) / b) / (2 * b), outputs=(y,), inputs=(q,),
                           epsilon=eps / 2, sensitivity=Delta, instance={eps: 1, Delta: 1})


halved = dpaudit.Mechanism("halved", dpaudit.PureDP(1.0), dpaudit.AddRemove(),
                           lambda data, n, rng: sum(data) + rng.laplace(0.0, 1.0, n),
                           query=sum, sensitivity=1.0, density=_density)
'''


def laplace(epsilon_of=lambda eps: eps, sensitivity_of=lambda delta: delta, claim=1.0, sensitivity=1.0):
    """Laplace(Delta / epsilon) on a count, instance epsilon = Delta = 1, with the declarations given."""

    def density():
        y, q, eps, delta = symbol("y"), symbol("q"), symbol("epsilon"), symbol("Delta")
        b = delta / eps
        return SymbolicDensity(expr=sympy.exp(-sympy.Abs(y - q) / b) / (2 * b), outputs=(y,), inputs=(q,),
                               epsilon=epsilon_of(eps), sensitivity=sensitivity_of(delta), instance={eps: 1, delta: 1})

    return dpaudit.Mechanism("declared", dpaudit.PureDP(claim), dpaudit.AddRemove(),
                             lambda data, n, rng: sum(data) + rng.laplace(0.0, 1.0, n),
                             query=sum, sensitivity=sensitivity, density=density)


def test_the_issue_case_a_density_claiming_half_the_epsilon_is_refused_naming_both():
    with pytest.raises(dpaudit.InvalidArgument) as caught:
        dpaudit.prove(laplace(epsilon_of=lambda eps: eps / 2))
    message = str(caught.value)
    assert "claims PureDP(epsilon=1.0)" in message
    assert "its density states epsilon = epsilon/2 = 0.5 at the instance (epsilon=1, Delta=1)" in message


def test_the_issue_case_from_the_command_line_is_one_line_exit_2(tmp_path):
    path = tmp_path / "halved.py"
    path.write_text(MODULE)
    result = CliRunner().invoke(main, ["prove", f"{path}:halved"])
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and "two different claims" in result.stderr


def test_agreeing_declarations_are_proved_for_all_parameters():
    result = dpaudit.prove(laplace())
    assert result.proved and result.scope == "all parameters"
    assert "scope_reason" not in result.details


def test_a_restated_claim_says_why_the_scope_is_the_instance():
    result = dpaudit.prove(laplace(epsilon_of=lambda eps: eps / 2), claim=dpaudit.PureDP(1.0))
    assert result.proved and result.scope == "instance"
    assert result.details["scope_reason"] == (
        "the claim 1-DP restates epsilon=1 (the density states epsilon/2 = 0.5): it is checked at the instance "
        "(epsilon=1, Delta=1), not for every parameter value")


def test_a_smaller_density_sensitivity_is_refused():
    with pytest.raises(dpaudit.InvalidArgument, match=r"declares sensitivity=2.0 but its density's neighbours are "
                                                       r"within Delta = 1 at the instance"):
        dpaudit.prove(laplace(sensitivity=2.0))


def test_a_larger_density_sensitivity_is_used_with_a_warning_saying_so():
    mechanism = laplace(epsilon_of=lambda eps: 2 * eps, sensitivity_of=lambda delta: 2 * delta, claim=2.0)
    with pytest.warns(dpaudit.DeclarationMismatchWarning, match=r"the prover used the density's 2"):
        result = dpaudit.prove(mechanism)
    assert result.proved
    assert "declares sensitivity=1.0" in result.details["declaration_mismatch"]


def test_a_gallery_entry_whose_flaw_is_the_mismatch_is_proved_without_a_warning():
    # sum-clamp-after declares the sensitivity the code believes (1) and a density with the true one (10).
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = dpaudit.prove("sum-clamp-after")
    assert result.verdict.value == "refuted"
    assert "the prover used the density's 10" in result.details["declaration_mismatch"]
