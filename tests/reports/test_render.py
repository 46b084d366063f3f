"""Renderers: self-contained HTML from the dict alone, escaping of every user string, safe MathML."""

from __future__ import annotations

import json
import re

import pytest

from dpaudit import PureDP
from dpaudit.mechanisms.base import Mechanism
from dpaudit.reports import build_report, format_for, render
from dpaudit.reports.mathml import safe_mathml

from .conftest import FIXED_ENVIRONMENT

SCRIPT = '<script>alert("pwned")</script>'


@pytest.fixture(scope="module")
def hostile_report() -> dict:
    """A user mechanism whose every free-text field carries a script tag."""

    def sampler(data, n, rng):
        return float(data) + rng.laplace(0.0, 1.0, size=n)

    mechanism = Mechanism.from_callable(
        sampler,
        claim=PureDP(1.0),
        name=f"evil{SCRIPT}",
        domain=0.0,
        description=f"desc {SCRIPT}",
        source=f"<img src=x onerror=alert(1)> {SCRIPT}",
        flaw=f"flaw {SCRIPT}",
    )
    return build_report(mechanism, samples=2_000, seed=11, plot_samples=1_000, checks=False, env=FIXED_ENVIRONMENT)


def test_html_has_equations_plots_and_nothing_external(laplace_report):
    page = render(laplace_report, "html")
    assert page.startswith("<!DOCTYPE html>")
    assert page.count("<math ") >= 1 + len(laplace_report["proof"]["result"]["certificate"]["steps"])
    images = re.findall(r'<img src="([^"]*)"', page)
    assert len(images) == len(laplace_report["plots"]["figures"]) == 3
    assert all(src.startswith("data:image/svg+xml;base64,") for src in images)
    lowered = page.lower()
    for forbidden in ("<script", "<link", 'src="http', "src='http", "url(http", "@import", "<iframe"):
        assert forbidden not in lowered


def test_html_is_a_function_of_the_json_alone(laplace_report):
    assert render(json.loads(render(laplace_report, "json")), "html") == render(laplace_report, "html")


def test_a_script_in_a_mechanism_name_is_rendered_inert(hostile_report):
    page = render(hostile_report, "html")
    assert "<script" not in page.lower()
    assert "onerror=" not in page.replace("onerror=alert", "")  # only as escaped text, never an attribute
    assert "<img src=x" not in page
    assert "evil&lt;script&gt;alert(&#34;pwned&#34;)&lt;/script&gt;" in page
    markdown = render(hostile_report, "markdown")
    assert "<script" not in markdown.lower() and "<img" not in markdown.lower()
    assert "evil&lt;script&gt;" in markdown


@pytest.mark.parametrize(
    "fragment",
    [
        "<mi>x</mi><script>alert(1)</script>",
        '<mi onclick="alert(1)">x</mi>',
        '<maction actiontype="statusline"><mi>x</mi><mtext>y</mtext></maction>',
        '<mi xlink:href="javascript:alert(1)" xmlns:xlink="http://www.w3.org/1999/xlink">x</mi>',
        "<mi>x</mi><foreignObject><div>html</div></foreignObject>",
        "<mi>unclosed",
        "",
    ],
)
def test_mathml_outside_mathml_core_falls_back_to_escaped_text(fragment):
    out = safe_mathml(fragment, fallback="x <b>")
    assert out == "<code>x &lt;b&gt;</code>"


def test_mathml_from_sympy_is_kept_with_entities_resolved():
    fragment = "<mrow><mi>&ExponentialE;</mi><mo>&InvisibleTimes;</mo><mi>&#949;</mi><mo>&lt;</mo><mn>1</mn></mrow>"
    out = safe_mathml(fragment, fallback="unused")
    assert out.startswith('<math xmlns="http://www.w3.org/1998/Math/MathML" display="block">')
    assert "\u2147" in out and "\u2062" in out and "\u03b5" in out and "&lt;" in out


def test_markdown_has_the_sections_in_pyramid_order(laplace_report):
    text = render(laplace_report, "markdown")
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert headings == [
        "## 1. Claim and unit of privacy",
        "## 2. Proof",
        "## 3. Empirical audit",
        "## 4. Implementation checks",
        "## 5. Reproduce",
    ]
    assert "$$" in text and "**Overall: PASS**" in text


def test_stopping_run_and_leak_checks_are_shown_in_both_formats(laplace_report):
    audit = laplace_report["audit"]["result"]
    stopping = audit["stopping"]
    stopped = f"stopped at look {stopping['stopped_at']} of {stopping['planned_looks']} after {stopping['samples_used']}"
    for text in (render(laplace_report, "markdown"), render(laplace_report, "html")):
        assert stopped in text
        assert "alpha spending over" in text  # the procedure itself
        assert f"executor {audit['run']['executor']}" in text
        assert "float-support, lattice, correlated-noise, draw-count; 0 finding(s)" in text


@pytest.mark.parametrize("path, fmt", [("a.html", "html"), ("b.HTM", "html"), ("c.json", "json"), ("d.md", "markdown")])
def test_the_suffix_picks_the_format(path, fmt):
    assert format_for(path) == fmt


def test_an_unknown_suffix_is_refused():
    from dpaudit.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match=r"path='report.pdf' must end in one of"):
        format_for("report.pdf")
