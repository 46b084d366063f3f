"""The report document: schema validity, section order, verdict combination, determinism, errors."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from dpaudit import PureDP
from dpaudit.mechanisms.base import Mechanism
from dpaudit.reports import SCHEMA_VERSION, build_report, render
from dpaudit.reports.model import EXIT_CODES, outcome, section

from .conftest import FIXED_ENVIRONMENT, FLAWED, SMALL

VOLATILE = {"elapsed_s", "mechanism_s", "seconds", "times"}


def _strip(value):
    """The document without wall-clock fields (they differ between two identical runs)."""
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def test_laplace_report_is_valid_and_ordered_like_the_evaluation_pyramid(laplace_report, schema_validator):
    schema_validator.validate(laplace_report)
    assert laplace_report["schema_version"] == SCHEMA_VERSION
    keys = list(laplace_report)
    # claim and unit of privacy first, then proof, audit, implementation checks, environment last
    assert keys.index("claim") < keys.index("unit_of_privacy") < keys.index("proof") < keys.index("audit")
    assert keys.index("audit") < keys.index("implementation") < keys.index("environment") == len(keys) - 1
    assert laplace_report["proof"]["result"]["verdict"] == "proved"
    assert laplace_report["proof"]["result"]["certificate"]["steps"]
    audit = laplace_report["audit"]["result"]
    for field in ("pair", "event", "hits", "sample_sizes", "epsilon_lower_bound", "method", "confidence", "seed",
                  "samples", "elapsed_s"):
        assert field in audit
    assert audit["seed"] == laplace_report["settings"]["seed"] == 20260101
    # The leak checks ran inside the audit and found nothing on this correct entry (validity).
    assert audit["checks"] == ["float-support", "lattice", "correlated-noise", "draw-count"] and audit["findings"] == []
    assert audit["stopping"]["stopped_at"] >= 1 and audit["run"]["executor"]
    assert laplace_report["summary"] == {
        "verdicts": laplace_report["summary"]["verdicts"], "overall": "pass", "exit_code": 0}
    assert {f["id"] for f in laplace_report["plots"]["figures"]} == {"distributions", "privacy-loss", "bound-curve"}


def test_flawed_report_carries_the_counterexample_and_the_violation(flawed_report, schema_validator):
    schema_validator.validate(flawed_report)
    proof = flawed_report["proof"]["result"]
    assert proof["verdict"] == "refuted" and proof["counterexample"] is not None
    assert flawed_report["audit"]["result"]["verdict"] == "violation"
    assert flawed_report["mechanism"]["flawed"] and flawed_report["mechanism"]["name"] == FLAWED
    assert flawed_report["summary"]["overall"] == "violation"
    assert flawed_report["summary"]["exit_code"] == 1


def test_json_rendering_round_trips(laplace_report):
    assert json.loads(render(laplace_report, "json")) == laplace_report


def test_same_seed_same_document(laplace_report):
    again = build_report("laplace", env=FIXED_ENVIRONMENT, **SMALL)
    assert _strip(again) == _strip(laplace_report)


def test_schema_rejects_a_document_of_another_version_or_shape(laplace_report, schema_validator):
    wrong_version = copy.deepcopy(laplace_report)
    wrong_version["schema_version"] = "0.9"
    assert not schema_validator.is_valid(wrong_version)
    no_claim = copy.deepcopy(laplace_report)
    del no_claim["claim"]
    assert not schema_validator.is_valid(no_claim)
    bad_verdict = copy.deepcopy(laplace_report)
    bad_verdict["audit"]["result"]["verdict"] = "probably fine"
    assert not schema_validator.is_valid(bad_verdict)


def _done(verdict):
    return section("done", {"verdict": verdict})


@pytest.mark.parametrize(
    "proof, audit, checks, expected",
    [
        (_done("proved"), _done("pass"), [], "pass"),
        (_done("proved"), _done("underpowered"), [], "pass"),
        (_done("unknown"), _done("pass"), [], "pass"),
        (_done("unknown"), _done("underpowered"), [], "unknown"),
        (section("skipped"), section("error", note="boom"), [], "unknown"),
        (_done("refuted"), _done("pass"), [], "violation"),
        (_done("proved"), _done("violation"), [], "violation"),
        (_done("proved"), _done("pass"), [{"name": "lattice", **_done("violation")}], "violation"),
        (_done("proved"), _done("pass"), [{"name": "lattice", **_done("inconclusive")}], "pass"),
    ],
)
def test_outcome_combines_verdicts_failure_first(proof, audit, checks, expected):
    result = outcome(proof, audit, checks)
    assert result["overall"] == expected
    assert result["exit_code"] == EXIT_CODES[expected]


def test_a_mechanism_without_density_is_reported_with_the_proof_skipped(schema_validator):
    def sampler(data, n, rng):
        return float(data) + rng.laplace(0.0, 1.0, size=n)

    mechanism = Mechanism.from_callable(sampler, claim=PureDP(1.0), name="user-laplace", domain=0.0)
    document = build_report(mechanism, samples=2_000, seed=5, plot_samples=1_000, env=FIXED_ENVIRONMENT)
    schema_validator.validate(document)
    assert document["proof"]["status"] == "skipped"
    assert document["density"] is None
    assert document["audit"]["status"] == "done"
    assert "privacy-loss" not in {f["id"] for f in document["plots"]["figures"]}


def test_an_audit_that_raises_is_recorded_not_hidden(schema_validator):
    def broken(data, n, rng):
        return np.full(n, np.nan)

    mechanism = Mechanism.from_callable(broken, claim=PureDP(1.0), name="broken", domain=0.0)
    document = build_report(mechanism, samples=1_000, seed=5, env=FIXED_ENVIRONMENT)
    schema_validator.validate(document)
    assert document["audit"]["status"] == "error"
    assert "NaN" in document["audit"]["note"]
    assert document["summary"]["overall"] == "unknown"
    assert document["plots"]["figures"] == []


def test_the_environment_records_what_reproduces_the_report():
    from dpaudit.reports.model import environment

    env = environment()
    assert {"dpaudit", "python", "numpy", "platform", "datetime_utc"} <= set(env)
    assert env["datetime_utc"].endswith("+00:00")


@pytest.mark.parametrize(("kind", "words"), [("zcdp", "alpha*rho"), ("renyi", "epsilon(alpha)"),
                                             ("gdp", "Phi^-1(1 - a)"), ("curve", "delta(epsilon)")])
def test_a_curve_claims_report_states_its_own_definition(kind, words):
    from dpaudit.reports.model import claim_equations

    (equation,) = claim_equations(kind)
    assert words in equation["text"] and equation["legend"] and equation["mathml"].startswith("<mrow>")
