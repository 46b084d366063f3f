"""Self-contained HTML rendering of a report document (and of the catalogue index).

The renderer takes only the report dict, so the HTML cannot say anything the JSON does not.  The
page needs nothing from the network and runs no script:

* the jinja2 environment autoescapes every value, so a mechanism named ``<script>`` is text;
* equations are the document's MathML, re-parsed and whitelisted by :func:`.mathml.safe_mathml`
  (MathML Core renders natively in current Chromium, Firefox and Safari, with no CDN);
* figures are the document's SVG, embedded as ``data:image/svg+xml;base64`` images -- an SVG shown
  through ``<img>`` cannot run script or load anything.
"""

from __future__ import annotations

import base64
from functools import cache
from typing import Any

from .mathml import math_block
from .model import in_process, support_status

__all__ = ["render_html", "render_index"]


def _number(value: Any, digits: int = 4) -> str:
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, (int, float)):
        return f"{value:.{digits}g}"
    return str(value)


def _svg_uri(svg: str) -> str:
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode("utf-8")).decode("ascii")


@cache
def _environment():
    import jinja2
    from markupsafe import Markup

    from .checks import LEAK_CHECKS

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("dpaudit.reports", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["math"] = lambda expression, display="block": Markup(math_block(expression, display))
    env.filters["num"] = _number
    env.filters["svg_uri"] = _svg_uri
    env.filters["support"] = support_status
    env.tests["in_process"] = in_process
    env.globals["leak_checks"] = LEAK_CHECKS
    return env


def render_html(document: dict[str, Any]) -> str:
    """The report as one self-contained HTML page."""
    return _environment().get_template("report.html.j2").render(doc=document)


def render_index(entries: list[dict[str, Any]], *, title: str, environment: dict[str, Any], command: str) -> str:
    """The catalogue index: one row per report (``entries`` from :func:`.catalogue.index_entry`)."""
    return _environment().get_template("index.html.j2").render(
        entries=entries, title=title, environment=environment, command=command
    )
