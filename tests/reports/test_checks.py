"""Implementation checks in reports: the leak checks read back from the audit, the sensitivity check run here."""

from __future__ import annotations

import pytest

from dpaudit import get
from dpaudit.auditor import audit
from dpaudit.errors import InvalidArgument
from dpaudit.reports import build_report, render
from dpaudit.reports.checks import CHECKS, implementation_checks, sensitivity_check

from .conftest import FIXED_ENVIRONMENT, SMALL


def test_sensitivity_violation_of_a_flawed_entry_is_reported(schema_validator):
    # sum-clamp-after clamps after summing: its declared sensitivity fails on datasets, no sampling needed.
    document = build_report("sum-clamp-after", samples=2_000, seed=3, plots=False, env=FIXED_ENVIRONMENT,
                            skip_checks=("lattice",))
    schema_validator.validate(document)
    checks = {c["name"]: c for c in document["implementation"]}
    assert list(checks) == list(CHECKS)
    assert checks["sensitivity"]["source"] == "report" and checks["sensitivity"]["status"] == "done"
    assert checks["sensitivity"]["result"]["verdict"] == "violation"
    assert checks["lattice"] == {"name": "lattice", "source": "audit", "status": "skipped", "result": None,
                                 "note": "not requested"}
    # A skipped leak check is left out of the audit itself, not only of the report.
    assert "lattice" not in document["audit"]["result"]["checks"]
    assert document["summary"]["verdicts"]["check:sensitivity"] == "violation"
    assert document["summary"]["overall"] == "violation"


@pytest.mark.parametrize("name", ["laplace-sum", "laplace-mean"])
def test_exact_statistics_pass_the_sensitivity_check(name):
    # Both compute their statistic exactly (Fraction), so no neighbouring pair can exceed Delta: a
    # flag here would be a false alarm of the check (its search is derandomised: no seed to be lucky with).
    entry = sensitivity_check(get(name))
    assert entry["status"] == "done", entry["note"]
    assert entry["result"]["verdict"] == "pass"
    assert entry["result"]["examples_tried"] > 0


@pytest.mark.statistical
def test_vector_outputs_get_the_correlation_check_from_the_audit():
    mechanism = get("laplace-vector")
    result = audit(mechanism, samples=2_000, seed=1, confidence=SMALL["confidence"])
    assert "correlated-noise" in result.checks and result.findings == ()
    checks = implementation_checks(mechanism, result.as_dict(), skip=("sensitivity",))
    status = {c["name"]: (c["source"], c["status"]) for c in checks}
    # the audit runs the lattice events on vector float outputs too (per changed coordinate); the
    # entry exposes no float noise and no known float sampler reproduces its outputs, so the
    # float-support replay is the one left out
    assert status == {"float-support": ("audit", "skipped"), "lattice": ("audit", "done"),
                      "correlated-noise": ("audit", "done"), "draw-count": ("audit", "skipped"),
                      "sensitivity": ("report", "skipped")}
    by_name = {c["name"]: c for c in checks}
    assert by_name["lattice"]["result"]["verdict"] == by_name["correlated-noise"]["result"]["verdict"] == "pass"
    assert by_name["float-support"]["note"] == (
        "the mechanism does not expose its float noise and no known sampler (numpy Generator.laplace, "
        "textbook -b log u) reproduces its search outputs")


@pytest.mark.statistical
def test_a_float_leak_is_the_audits_finding_not_a_second_test(schema_validator):
    # laplace-float-textbook adds textbook float Laplace noise to the count: outputs no exact replay of
    # the noise reaches from q_b, so P_b(S) = 0 is proved and each output in S is an infinite loss.
    # At confidence 1 - 1e-6 a correct mechanism is flagged with probability <= 1e-6, so the flag is
    # power, not luck; with P_a(S) ~ 2/3 and 2 x 10^4 samples the capped bound is ~6.8 > 1.
    document = build_report("laplace-float-textbook", plots=False, env=FIXED_ENVIRONMENT, **SMALL)
    schema_validator.validate(document)
    findings = document["audit"]["result"]["findings"]
    assert [f["check"] for f in findings] == ["float-support"]
    entry = next(c for c in document["implementation"] if c["name"] == "float-support")
    assert entry["source"] == "audit" and entry["status"] == "done"
    # The entry is the audit's finding, with the same counts: nothing was sampled a second time.
    assert {k: v for k, v in entry["result"].items() if k not in ("method", "findings")} == findings[0]
    assert entry["result"]["proven_empty"] is True and entry["result"]["hits"][1] == 0
    assert document["summary"]["verdicts"]["check:float-support"] == "violation"
    markdown = render(document, "markdown")
    assert "| float-support | audit | violation | proved |" in markdown
    assert "P\\_b(S) = 0: proved" in markdown
    page = render(document, "html")
    assert "P<sub>b</sub>(S) = 0: proved" in page


def test_unknown_check_names_are_refused_before_any_work():
    with pytest.raises(InvalidArgument, match=r"skip_checks=\('lattic',\) must name checks among"):
        build_report("laplace", skip_checks=("lattic",))
    with pytest.raises(InvalidArgument, match=r"skip=\['lattic'\] must name checks among"):
        implementation_checks(get("laplace"), None, skip=("lattic",))
