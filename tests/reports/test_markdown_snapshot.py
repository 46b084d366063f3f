"""Markdown output is stable: a stored report document renders to the stored Markdown, byte for byte.

The document ``snapshots/laplace.json`` was produced by the real pipeline (prove + audit of the
catalogue's ``laplace`` with the fixed seed and budget of ``conftest.SMALL``, no figures) with the
fixed environment of ``conftest.FIXED_ENVIRONMENT``.  When the schema or the Markdown layout changes
on purpose, regenerate both files with ``python -m tests.reports.test_markdown_snapshot`` and review
the diff.
"""

from __future__ import annotations

import json
from pathlib import Path

from dpaudit.reports import SCHEMA_VERSION, render

SNAPSHOTS = Path(__file__).parent / "snapshots"


def test_markdown_matches_the_snapshot(schema_validator):
    document = json.loads((SNAPSHOTS / "laplace.json").read_text(encoding="utf-8"))
    schema_validator.validate(document)  # the stored document is current with the schema
    assert document["schema_version"] == SCHEMA_VERSION
    expected = (SNAPSHOTS / "laplace.md").read_text(encoding="utf-8")
    assert render(document, "markdown") == expected


def test_markdown_of_the_same_seed_is_the_same_text(laplace_report):
    """Two renderings of one document agree, and the seed and budget appear in the text."""
    first, second = render(laplace_report, "markdown"), render(laplace_report, "markdown")
    assert first == second
    assert "--seed 20260101" in first and "20000 verification" in first


def _regenerate() -> None:  # pragma: no cover - run by hand
    from dpaudit.reports import build_report

    from .conftest import FIXED_ENVIRONMENT, SMALL

    document = build_report("laplace", env=FIXED_ENVIRONMENT, plots=False, **SMALL)
    SNAPSHOTS.mkdir(exist_ok=True)
    (SNAPSHOTS / "laplace.json").write_text(render(document, "json"), encoding="utf-8")
    (SNAPSHOTS / "laplace.md").write_text(render(document, "markdown"), encoding="utf-8")


if __name__ == "__main__":  # pragma: no cover
    _regenerate()
