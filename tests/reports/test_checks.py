"""Implementation checks in reports: run when the mechanism supports them, skipped with a reason otherwise."""

from __future__ import annotations

import pytest

from dpaudit import get
from dpaudit.errors import InvalidArgument
from dpaudit.reports import build_report
from dpaudit.reports.checks import CHECKS, implementation_checks

from .conftest import FIXED_ENVIRONMENT


def test_sensitivity_violation_of_a_flawed_entry_is_reported(schema_validator):
    # sum-clamp-after clamps after summing: its declared sensitivity fails on datasets, no sampling needed.
    document = build_report("sum-clamp-after", samples=2_000, seed=3, plots=False, env=FIXED_ENVIRONMENT,
                            skip_checks=("lattice",))
    schema_validator.validate(document)
    checks = {c["name"]: c for c in document["implementation"]}
    assert list(checks) == list(CHECKS)
    assert checks["sensitivity"]["status"] == "done"
    assert checks["sensitivity"]["result"]["verdict"] == "violation"
    assert checks["lattice"] == {"name": "lattice", "status": "skipped", "result": None, "note": "not requested"}
    assert document["summary"]["verdicts"]["check:sensitivity"] == "violation"
    assert document["summary"]["overall"] == "violation"


def test_vector_outputs_get_the_correlation_check_and_no_lattice_check():
    mechanism = get("laplace-vector")
    checks = implementation_checks(mechanism, mechanism.pairs[0], samples=2_000, seed=1, confidence=0.95,
                                   skip=("sensitivity",))
    status = {c["name"]: c["status"] for c in checks}
    assert status == {"float-support": "skipped", "lattice": "skipped", "correlated-noise": "done",
                      "sensitivity": "skipped"}


def test_unknown_check_names_are_refused_before_any_work():
    with pytest.raises(InvalidArgument, match=r"skip_checks=\('lattic',\) must name checks among"):
        build_report("laplace", skip_checks=("lattic",))
