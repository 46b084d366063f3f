"""Audit reports: one document per mechanism, rendered as JSON, Markdown and self-contained HTML.

``report(target, ...)`` proves and audits ``target`` and returns the report document (a JSON-ready
dict, schema in :func:`load_schema`); :func:`report_from_audit` makes the document of an audit that
has already run (no proof, no second audit); :func:`render` turns a document into text and
:func:`write` into a file whose suffix picks the format.  :func:`.catalogue.write_catalogue` does the
whole catalogue into a folder with an ``index.html``.  Modules: :mod:`.model` (sections, schema
version, environment), :mod:`.build` (prove + audit + checks + plots), :mod:`.from_audit`,
:mod:`.document` (assembly), :mod:`.checks`, :mod:`.plots`, :mod:`.mathml`, :mod:`.render_json`,
:mod:`.render_markdown`, :mod:`.render_html`, :mod:`.catalogue`.

Importing this package loads neither sympy nor matplotlib; they come with the first report.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import InvalidArgument
from .build import STAGES, build_report
from .certificate import CERTIFY_TIME_LIMIT, certify_audited
from .from_audit import report_from_audit
from .model import SCHEMA_VERSION, load_schema
from .render_html import render_html
from .render_json import render_json

__all__ = [
    "CATALOGUE_PROOF_TIMEOUT",
    "CERTIFY_TIME_LIMIT",
    "CATALOGUE_SAMPLES",
    "CATALOGUE_SEED",
    "FORMATS",
    "SCHEMA_VERSION",
    "STAGES",
    "CatalogueInterrupted",
    "build_report",
    "certify_audited",
    "format_for",
    "load_schema",
    "render",
    "report",
    "report_from_audit",
    "write",
    "write_catalogue",
]

# The catalogue runner's names, loaded on first use (PEP 562): :mod:`.catalogue` reads build_report and
# render from this package when it runs (the tests substitute them here), so it is imported after it.
_CATALOGUE = ("CATALOGUE_PROOF_TIMEOUT", "CATALOGUE_SAMPLES", "CATALOGUE_SEED", "CatalogueInterrupted", "write_catalogue")

FORMATS = {".html": "html", ".htm": "html", ".json": "json", ".md": "markdown", ".markdown": "markdown"}

report = build_report


def format_for(path: str | Path, name: str = "path") -> str:
    """The format a path's suffix asks for: ``html``, ``json`` or ``markdown`` (``name`` names the path in errors)."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise InvalidArgument(f"{name}={str(path)!r} must end in one of {', '.join(sorted(FORMATS))} (the format)")
    return FORMATS[suffix]


def render(document: dict[str, Any], format: str) -> str:
    """The document as ``"html"``, ``"json"`` or ``"markdown"`` text."""
    if format == "html":
        return render_html(document)
    if format == "json":
        return render_json(document)
    if format == "markdown":
        from .render_markdown import render_markdown

        return render_markdown(document)
    raise InvalidArgument(f"format={format!r} must be one of 'html', 'json', 'markdown'")


def write(document: dict[str, Any], path: str | Path) -> Path:
    """Render the document in the format of ``path``'s suffix and write it (UTF-8); returns the path."""
    path = Path(path)
    text = render(document, format_for(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def __getattr__(name: str) -> Any:
    if name in _CATALOGUE:
        from importlib import import_module

        return getattr(import_module("dpaudit.reports.catalogue"), name)
    raise AttributeError(f"module 'dpaudit.reports' has no attribute {name!r}")
