"""`dpaudit audit --curve` and `dpaudit report --curve`: the empirical privacy curve on the command line."""

from __future__ import annotations

import json

from click.testing import CliRunner

from dpaudit.cli import main

ARGS = ["gaussian-analytic", "--samples", "20000", "--seed", "1", "--executor", "in-process"]


def test_audit_curve_prints_the_curve_and_its_reproduce_line():
    result = CliRunner().invoke(main, ["audit", *ARGS, "--curve"])
    assert result.exit_code == 0, result.output
    assert "curve   : eps(0.01) >= " in result.output and "(simultaneous, confidence 0.95)" in result.output
    assert "mu >= " in result.output and "rho >= " in result.output
    assert result.output.rstrip().endswith("--curve")


def test_audit_curve_json_carries_the_curve():
    result = CliRunner().invoke(main, ["audit", *ARGS, "--curve", "--json"])
    data = json.loads(result.output)
    assert data["curve"]["confidence"] == 0.95 and len(data["curve"]["epsilons"]) == len(data["curve"]["delta_lower"])
    plain = json.loads(CliRunner().invoke(main, ["audit", *ARGS, "--json"]).output)
    assert plain["curve"] is None


def test_report_curve_draws_the_privacy_curve(tmp_path):
    out = tmp_path / "report.json"
    result = CliRunner().invoke(main, ["report", "gaussian-analytic", "--samples", "20000", "--seed", "1", "--curve",
                                       "--skip-check", "sensitivity", "-o", str(out)])
    assert result.exit_code == 0, result.output
    document = json.loads(out.read_text())
    assert "privacy-curve" in {f["id"] for f in document["plots"]["figures"]}
    assert "--curve" in document["settings"]["reproduce"]
