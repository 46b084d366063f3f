"""The generated reports/ folder is current: one valid report per catalogue entry, and the index.

Only reads files (regenerate with ``dpaudit report --all -o reports/``, see reports/README.md).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dpaudit.mechanisms.registry import names
from dpaudit.reports import SCHEMA_VERSION

REPORTS = Path(__file__).resolve().parents[2] / "reports"

pytestmark = pytest.mark.skipif(not REPORTS.is_dir(), reason="reports/ has not been generated in this checkout")


def test_the_files_match_the_catalogue():
    expected = {f"{name}.{suffix}" for name in names() for suffix in ("html", "json")} | {"index.html", "README.md"}
    assert {p.name for p in REPORTS.iterdir() if not p.name.startswith(".")} == expected


def test_every_json_report_is_valid_and_current(schema_validator):
    for name in names():
        document = json.loads((REPORTS / f"{name}.json").read_text(encoding="utf-8"))
        assert document["schema_version"] == SCHEMA_VERSION, name
        schema_validator.validate(document)
        assert document["mechanism"]["name"] == name
        assert document["settings"]["samples"] is not None


def test_the_index_lists_every_mechanism():
    index = (REPORTS / "index.html").read_text(encoding="utf-8")
    for name in names():
        assert f'href="{name}.html"' in index and f'href="{name}.json"' in index
    assert "dpaudit report --all -o reports/" in index


def test_every_entry_is_decided_by_the_prover_in_its_report():
    # Every catalogue entry declares a density, a program or a structure: its report's proof section ran
    # and says proved, refuted or unknown -- never "skipped" for want of something to prove from.
    for name in names():
        proof = json.loads((REPORTS / f"{name}.json").read_text(encoding="utf-8"))["proof"]
        assert proof["status"] == "done", (name, proof.get("note"))
        assert proof["result"]["verdict"] in ("proved", "refuted", "unknown"), name
