"""`dpaudit report`: formats from the suffix, exit codes, JSON summary, argument errors."""

from __future__ import annotations

import json

from click.testing import CliRunner

from dpaudit.cli import main

from .conftest import FLAWED

# Confidence 1 - 1e-6: a correct mechanism is reported as violating with probability <= 1e-6 (the
# auditor's guarantee), so the exit codes below hold for any seed.
SMALL = ["--samples", "5000", "--seed", "7", "--confidence", "0.999999", "--skip-check", "sensitivity"]


def test_report_laplace_html_exits_0(tmp_path):
    out = tmp_path / "out.html"
    result = CliRunner().invoke(main, ["report", "laplace", "-o", str(out), *SMALL])
    assert result.exit_code == 0, result.output
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert result.output.startswith("PASS: laplace")
    assert "dpaudit report laplace --seed 7" in result.output


def test_report_of_a_flawed_entry_exits_1_and_writes_json(tmp_path):
    out = tmp_path / "bad.json"
    result = CliRunner().invoke(main, ["report", FLAWED, "-o", str(out), "--no-plots", "--json", *SMALL])
    assert result.exit_code == 1, result.output
    summary = json.loads(result.output)
    assert summary["overall"] == "violation" and summary["path"] == str(out)
    document = json.loads(out.read_text(encoding="utf-8"))
    assert document["proof"]["result"]["verdict"] == "refuted"


def test_report_markdown(tmp_path):
    out = tmp_path / "comment.md"
    result = CliRunner().invoke(main, ["report", "laplace", "-o", str(out), "--no-plots", *SMALL])
    assert result.exit_code == 0, result.output
    assert out.read_text(encoding="utf-8").startswith("# Privacy audit of laplace")


def test_restated_claim_is_audited(tmp_path):
    out = tmp_path / "tight.json"
    # Laplace at epsilon = 1 restated as 0.1-DP: the prover refutes it and the exit code is 1.
    result = CliRunner().invoke(main, ["report", "laplace", "--epsilon", "0.1", "-o", str(out), "--no-plots", *SMALL])
    assert result.exit_code == 1, result.output
    assert json.loads(out.read_text(encoding="utf-8"))["claim"]["epsilon"] == 0.1


def test_bad_inputs_exit_2(tmp_path):
    runner = CliRunner()
    cases = [
        ["report", "laplace", "-o", str(tmp_path / "x.pdf")],
        ["report", "-o", str(tmp_path / "x.html")],
        ["report", "laplace", "--all", "-o", str(tmp_path)],
        ["report", "no-such-mechanism", "-o", str(tmp_path / "x.html")],
        ["report", "laplace", "-o", str(tmp_path / "x.html"), "--confidence", "1.5"],
        ["report", "--all", "-o", str(tmp_path / "file.html")],
    ]
    for args in cases:
        result = runner.invoke(main, args)
        assert result.exit_code == 2, (args, result.output)
        assert "error" in result.output.lower()
    assert not list(tmp_path.iterdir())


def test_help_documents_the_exit_codes():
    result = CliRunner().invoke(main, ["report", "--help"])
    assert result.exit_code == 0
    for line in ("0  pass / proved", "1  violation / refuted", "2  bad input", "3  unknown / underpowered"):
        assert line in result.output


def test_all_writes_the_reports_and_an_index(tmp_path, monkeypatch):
    from dpaudit.reports import catalogue

    # Two entries stand in for the catalogue so the test stays fast; --all itself runs unchanged.
    monkeypatch.setattr("dpaudit.mechanisms.registry.names", lambda: ["laplace", FLAWED])
    result = CliRunner().invoke(main, ["report", "--all", "-o", str(tmp_path), "--samples", "2000", "--no-plots",
                                       "--jobs", "1", "--skip-check", "sensitivity", "--skip-check", "lattice"])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["index.html", "laplace.html", "laplace.json", f"{FLAWED}.html", f"{FLAWED}.json"])
    index = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert 'href="laplace.html"' in index and f'href="{FLAWED}.json"' in index
    assert catalogue.CATALOGUE_COMMAND in index
    assert "2000 verification samples per side" in result.output


_MINE = """
import numpy as np

def noisy_sum(data, n, rng):
    return np.rint((sum(data) + rng.laplace(0, 1.0, size=n)) * 2**16) / 2**16
"""


def test_report_of_your_own_function_on_two_datasets(tmp_path):
    (tmp_path / "mine.py").write_text(_MINE)
    out = tmp_path / "mine.json"
    result = CliRunner().invoke(main, ["report", f"{tmp_path / 'mine.py'}:noisy_sum", "--epsilon", "1", "--a", "[1, 0, 1]",
                                       "--b", "[1, 0, 1, 1]", "-o", str(out), "--no-plots", *SMALL])
    assert result.exit_code in (0, 3), result.output
    audit = json.loads(out.read_text())["audit"]
    assert audit["status"] == "done" and audit["result"]["neighbours"]["source"] == "inferred"
    assert "--a '[1, 0, 1]' --b '[1, 0, 1, 1]'" in result.output  # the reproduce line carries the pair


def test_report_whose_audit_cannot_start_says_what_to_give(tmp_path):
    (tmp_path / "mine.py").write_text(_MINE)
    out = tmp_path / "mine.json"
    result = CliRunner().invoke(main, ["report", f"{tmp_path / 'mine.py'}:noisy_sum", "--epsilon", "1", "-o", str(out),
                                       "--no-plots", *SMALL])
    assert result.exit_code == 2, result.output
    assert "the audit could not run" in result.output and "--a JSON --b JSON or --data JSON" in result.output
    assert out.exists()  # the report of what did run is kept
