"""The report of a catalogue entry with a one-run sampler carries the certificate of its code: the section
(verdict, bracket, per-input table of outputs with intervals, unexplored mass) in JSON, Markdown and HTML,
the certified upper bound on the epsilon figure, and the certificate's verdict among the summary's; an
entry without one has no certificate section."""

from __future__ import annotations

import pytest

from .conftest import FIXED_ENVIRONMENT, SMALL


@pytest.fixture(scope="module")
def rr_report() -> dict:
    from dpaudit.reports import build_report

    return build_report("rr-miscalibrated", env=FIXED_ENVIRONMENT, **SMALL)


def test_the_certificate_section(rr_report, schema_validator):
    schema_validator.validate(rr_report)
    envelope = rr_report["certificate"]
    assert envelope["status"] == "done"
    result = envelope["result"]
    assert result["verdict"] == "refuted" and result["epsilon_up"] == pytest.approx(1.0)
    assert [law["input"] for law in result["laws"]] == list(rr_report["audit"]["result"]["pair"])
    assert all(law["residual"] == 0 and law["complete"] for law in result["laws"])
    bracket = envelope["bracket"]
    assert bracket["audited_low"] == rr_report["audit"]["result"]["epsilon_lower_bound"]
    assert bracket["certified_up"] == result["epsilon_up"] and bracket["text"] == "epsilon in [1, 1]"
    assert rr_report["summary"]["verdicts"]["certificate"] == "refuted"
    assert rr_report["summary"]["overall"] == "violation"


def test_the_renderings_show_it(rr_report):
    from dpaudit.reports import render

    markdown = render(rr_report, "markdown")
    assert "## 2b. Certificate of the code (exact path enumeration)" in markdown
    assert "| bracket | **epsilon in \\[1, 1\\]** — audited lower bound" in markdown
    assert "| input | output | P low | P high |" in markdown
    assert "unexplored mass 0 after" in markdown and "- witness: output 0" in markdown
    html = render(rr_report, "html")
    assert '<h2 id="certificate">2b. Certificate of the code' in html
    assert "<strong>epsilon in [1, 1]</strong>" in html


def test_the_epsilon_figure_shows_the_certified_upper_bound(rr_report):
    figure = next(f for f in rr_report["plots"]["figures"] if f["id"] == "bound-curve")
    assert "certified upper bound" in figure["svg"]
    assert "Dash-dotted: the certified upper bound epsilon <= 1 " in figure["caption"]


def test_an_entry_without_a_one_run_sampler_has_no_certificate(laplace_report):
    assert "certificate" not in laplace_report
    assert "certificate" not in laplace_report["summary"]["verdicts"]
