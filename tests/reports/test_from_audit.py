"""Reports of an audit computed beforehand (the pytest plugin's): no proof, no second audit, figures as usual."""

from __future__ import annotations

import pytest

from dpaudit import get
from dpaudit.auditor import audit
from dpaudit.reports import render, report_from_audit

from .conftest import FIXED_ENVIRONMENT, SMALL

# laplace-float-textbook: its witness is the float-support event, whose membership test replays the
# mechanism's own noise -- the figures can only be drawn if the report hands that noise over.
FLOAT_FLAWED = "laplace-float-textbook"


@pytest.fixture(scope="module")
def float_audit():
    return audit(FLOAT_FLAWED, samples=SMALL["samples"], seed=SMALL["seed"], confidence=SMALL["confidence"])


@pytest.mark.statistical
def test_the_document_carries_the_audit_as_computed(float_audit, schema_validator):
    document = report_from_audit(float_audit, FLOAT_FLAWED, plot_samples=2_000, env=FIXED_ENVIRONMENT,
                                 proof_note="not run by the pytest plugin")
    schema_validator.validate(document)
    assert document["proof"] == {"status": "skipped", "result": None, "note": "not run by the pytest plugin"}
    assert document["audit"] == {"status": "done", "result": float_audit.as_dict(), "note": ""}
    assert document["settings"]["seed"] == float_audit.seed and document["settings"]["plot_samples"] == 2_000
    assert document["settings"]["reproduce"] == float_audit.reproduce()
    entry = next(c for c in document["implementation"] if c["name"] == "float-support")
    assert entry["result"]["verdict"] == "violation" and entry["result"]["proven_empty"] is True
    sensitivity = next(c for c in document["implementation"] if c["name"] == "sensitivity")
    assert sensitivity["status"] == "skipped" and sensitivity["note"] == "not run by the audit"
    # Summary: no proof, the audit's violation and the check's finding.
    assert document["summary"]["verdicts"]["proof"] == "skipped"
    assert document["summary"]["overall"] == "violation"


@pytest.mark.statistical
def test_figures_of_a_float_support_event_are_drawn_with_the_mechanisms_noise(float_audit):
    assert float_audit.event_spec["type"] == "float-support"
    document = report_from_audit(float_audit, get(FLOAT_FLAWED), plot_samples=2_000, env=FIXED_ENVIRONMENT)
    assert document["plots"]["note"] == ""
    ids = [f["id"] for f in document["plots"]["figures"]]
    assert "distributions" in ids and "bound-curve" in ids
    # S is a set of exact doubles: the outputs in S are drawn filled, with the fraction of each side in it.
    distributions = document["plots"]["figures"][ids.index("distributions")]
    assert "M(a) in S: " in distributions["svg"] and "M(b) in S: 0.0%" in distributions["svg"]
    assert "filled: the outputs of each side that lie in the audited event" in distributions["caption"]
    page = render(document, "html")
    assert page.count('<img src="data:image/svg+xml;base64,') == len(ids)
    assert "not run: this report was made from an audit computed beforehand" in page


def test_the_dict_form_gives_the_same_document(float_audit):
    from_result = report_from_audit(float_audit, FLOAT_FLAWED, plots=False, env=FIXED_ENVIRONMENT)
    from_dict = report_from_audit(float_audit.as_dict(), FLOAT_FLAWED, plots=False, env=FIXED_ENVIRONMENT)
    for document in (from_result, from_dict):
        document["settings"].pop("elapsed_s")
    assert from_dict == from_result


def test_a_restated_claim_is_kept(schema_validator):
    # Laplace (epsilon = 1) audited against 0.5: the report's claim is the audited one, not the entry's.
    result = audit("laplace", epsilon=0.5, samples=2_000, seed=4)
    document = report_from_audit(result, "laplace", plots=False, env=FIXED_ENVIRONMENT)
    schema_validator.validate(document)
    assert document["claim"]["epsilon"] == 0.5 == document["audit"]["result"]["claim"]["epsilon"]


@pytest.mark.statistical
def test_both_levels_and_both_scopes_are_rendered():
    # The default levels (estimate 0.95, verdict 0.999) on a float entry: the verdict's bound and the
    # implementation and algorithmic bounds each get a row, in Markdown and HTML alike.
    result = audit(FLOAT_FLAWED, samples=SMALL["samples"], seed=SMALL["seed"], executor="in-process")
    assert result.bounds_by_scope.decided_by == "implementation"
    document = report_from_audit(result, FLOAT_FLAWED, plots=False, env=FIXED_ENVIRONMENT)
    markdown, page = render(document, "markdown"), render(document, "html")
    decisive = f"{result.verdict_epsilon_lower_bound:.4g}"
    algorithmic = f"{result.bounds_by_scope.algorithmic.epsilon_lower_bound:.4g}"
    assert "| verdict's bound | ε ≥ " + decisive + " at confidence 0.999" in markdown
    assert "| implementation bound |" in markdown and "**decided the verdict**" in markdown
    assert "| algorithmic bound | ε ≥ " + algorithmic + " at 0.95" in markdown
    assert "verdict&#39;s bound" in page or "verdict's bound" in page
    assert "implementation bound" in page and "algorithmic bound" in page and "decided the verdict" in page
