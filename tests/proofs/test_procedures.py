"""The prover's procedures: one registry, asked in a documented order; the rooms never import the entry point."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import dpaudit.proofs
from dpaudit.claims import ApproxDP, GaussianDP, PrivacyCurve, PureDP, ZeroConcentratedDP
from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.registry import get
from dpaudit.proofs import (
    Composition,
    ProofProcedure,
    ProofResult,
    Verdict,
    prove,
    register_procedure,
    registered_procedures,
    unregister_procedure,
)
from tests.proofs.cli_targets import no_density

ORDER = ["composition", "structure", "program", "privacy-curve", "renyi-divergence", "density"]
ROOT = Path(dpaudit.proofs.__file__).parent.parent


def _first(mechanism, claim=None):
    claim = claim or mechanism.claim
    return next(p.name for p in registered_procedures() if p.applies(mechanism, claim))


def test_the_procedures_and_their_order():
    assert [p.name for p in registered_procedures()] == ORDER
    assert all(isinstance(p, ProofProcedure) for p in registered_procedures())


def test_the_procedures_docstring_lists_the_registry_in_order():
    doc = dpaudit.proofs.procedures.__doc__
    positions = [doc.index(f"``{name}``") for name in ORDER]
    assert positions == sorted(positions)


@pytest.mark.parametrize("name, claim, expected", [
    ("above-threshold", None, "program"),
    ("dp-sgd", None, "structure"),
    ("wishart", None, "structure"),
    ("laplace", None, "density"),
    ("gaussian", ApproxDP(1.0, 1e-5), "density"),
    ("gaussian-zcdp", None, "renyi-divergence"),
    ("gaussian", GaussianDP(1.0), "renyi-divergence"),
    ("laplace", PrivacyCurve((1.0,), (1e-6,)), "privacy-curve"),
    ("dp-sgd", ZeroConcentratedDP(1.0), "structure"),
])
def test_each_declaration_goes_to_its_procedure(name, claim, expected):
    assert _first(get(name), claim) == expected


def test_a_composition_goes_to_the_composition_procedure():
    composition = Composition("both", (get("laplace"), get("laplace")), "sequential", PureDP(2.0))
    assert _first(composition) == "composition"


class _Declined:
    name = "declined"

    def applies(self, mechanism, claim):
        return mechanism is no_density

    def decide(self, mechanism, claim, request):
        reason = f"declined (numeric={request.numeric})"
        return ProofResult(mechanism.name, claim.as_dict(), Verdict.UNKNOWN, reason, "none")


def test_a_procedure_of_ones_own_is_asked_after_the_rooms_and_can_be_removed():
    with pytest.raises(InvalidArgument, match="must declare a symbolic density, a program or a structure"):
        prove(no_density)
    register_procedure(_Declined())
    try:
        assert [p.name for p in registered_procedures()] == [*ORDER, "declined"]
        assert prove(no_density, numeric=True).reason == "declined (numeric=True)"
        replacement = _Declined()
        register_procedure(replacement)  # same name: replaced in place
        assert registered_procedures()[-1] is replacement
    finally:
        unregister_procedure("declined")
    assert [p.name for p in registered_procedures()] == ORDER


def test_invalid_registrations_are_refused():
    with pytest.raises(InvalidArgument, match="lacks decide"):
        register_procedure(type("NoDecide", (), {"name": "x", "applies": lambda self, m, c: True})())
    with pytest.raises(InvalidArgument, match="non-empty name"):
        register_procedure(type("Nameless", (_Declined,), {"name": ""})())
    with pytest.raises(InvalidArgument, match="no proof procedure named 'nothing'"):
        unregister_procedure("nothing")


def _imports(path: Path) -> set[str]:
    """Absolute names of the modules a module imports (module level and function-local)."""
    package = ".".join(path.relative_to(ROOT.parent).with_suffix("").parts[:-1])
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            names.add(".".join([*base, node.module] if node.module else base))
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names



def test_no_room_imports_the_entry_point():
    """A room reaches :func:`dpaudit.prove` through ``request.prove`` only, so prove.py and the rooms form no cycle."""
    rooms = [p for p in (ROOT / "proofs").iterdir() if (p / "__init__.py").exists()]
    offending = {str(path.relative_to(ROOT)) for room in rooms for path in room.rglob("*.py")
                 if {"dpaudit.proofs.prove", "dpaudit.proofs", "dpaudit"} & _imports(path)}
    assert offending == set()


def test_importing_the_prover_loads_no_sympy():
    code = "import sys, dpaudit.proofs; sys.exit(1 if 'sympy' in sys.modules else 0)"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0
