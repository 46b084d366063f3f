"""`dpaudit catalog`: lists every entry with its fields, as a table or JSON."""

from __future__ import annotations

import json

from click.testing import CliRunner

from dpaudit.claims import claim_from_dict
from dpaudit.cli import main
from dpaudit.mechanisms.registry import names


def test_catalog_json_lists_every_entry_with_its_fields():
    result = CliRunner().invoke(main, ["catalog", "--json"])
    assert result.exit_code == 0, result.output
    entries = json.loads(result.output)
    assert [e["name"] for e in entries] == names()
    for entry in entries:
        assert {"name", "family", "claim", "flawed", "true_epsilon", "description"} <= set(entry)
        assert claim_from_dict(entry["claim"]).as_dict() == entry["claim"]  # every kind of claim, in its own terms


def test_catalog_table_has_a_row_per_entry():
    result = CliRunner().invoke(main, ["catalog"])
    assert result.exit_code == 0
    assert len(result.output.strip().splitlines()) == len(names()) + 2
    assert "laplace" in result.output


def test_catalog_flawed_only_lists_the_gallery():
    result = CliRunner().invoke(main, ["catalog", "--flawed", "--json"])
    assert result.exit_code == 0
    assert all(entry["flawed"] for entry in json.loads(result.output))


def test_unknown_option_is_a_usage_error():
    result = CliRunner().invoke(main, ["catalog", "--bogus"])
    assert result.exit_code == 2
