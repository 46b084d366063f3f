"""Ctrl-C during ``dpaudit report --all -o DIR`` keeps the finished reports and an index of what is
missing; rerunning the same command builds only the missing reports."""

from __future__ import annotations

import importlib
import json

from click.testing import CliRunner

from dpaudit.cli import main
from dpaudit.reports.catalogue import PROGRESS_FILE

from .conftest import FLAWED

ENTRIES = ["laplace", FLAWED, "rr"]
COMMAND = ["report", "--all", "--samples", "2000", "--no-plots", "--jobs", "1",
           "--skip-check", "sensitivity", "--skip-check", "lattice"]


def _counting_builder(monkeypatch, built, interrupt_at=None):
    """The real report builder, recording each name it builds and raising Ctrl-C at build ``interrupt_at``."""
    reports = importlib.import_module("dpaudit.reports")
    real = reports.build_report

    def build(name, **options):
        if len(built) == interrupt_at:
            raise KeyboardInterrupt
        built.append(name)
        return real(name, **options)

    monkeypatch.setattr(reports, "build_report", build)


def test_ctrl_c_keeps_the_finished_reports_and_the_rerun_builds_only_the_missing(tmp_path, monkeypatch):
    monkeypatch.setattr("dpaudit.mechanisms.registry.names", lambda: list(ENTRIES))
    first: list[str] = []
    _counting_builder(monkeypatch, first, interrupt_at=2)
    result = CliRunner().invoke(main, [*COMMAND, "-o", str(tmp_path)])
    assert result.exit_code == 130, result.output
    done, missing = sorted(ENTRIES)[:2], sorted(ENTRIES)[2:]
    assert first == done
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [PROGRESS_FILE, "index.html", *[f"{n}.{s}" for n in done for s in ("html", "json")]])
    index = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert all(f'href="{n}.html"' in index for n in done)
    assert f'<code>{missing[0]}</code>' in index and "not built (interrupted)" in index
    assert f"1 of 3 reports missing (listed in {tmp_path / 'index.html'})" in result.stderr
    assert [e["name"] for e in json.loads((tmp_path / PROGRESS_FILE).read_text())["done"]] == done

    monkeypatch.undo()
    monkeypatch.setattr("dpaudit.mechanisms.registry.names", lambda: list(ENTRIES))
    second: list[str] = []
    _counting_builder(monkeypatch, second)
    result = CliRunner().invoke(main, [*COMMAND, "-o", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert second == missing
    assert "wrote 1 reports (2 more kept from the interrupted run before)" in result.output
    assert not (tmp_path / PROGRESS_FILE).exists()
    index = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert all(f'href="{n}.json"' in index for n in ENTRIES) and "not built" not in index


def test_a_rerun_with_other_settings_builds_everything(tmp_path, monkeypatch):
    monkeypatch.setattr("dpaudit.mechanisms.registry.names", lambda: list(ENTRIES))
    _counting_builder(monkeypatch, [], interrupt_at=1)
    assert CliRunner().invoke(main, [*COMMAND, "-o", str(tmp_path)]).exit_code == 130
    monkeypatch.undo()
    monkeypatch.setattr("dpaudit.mechanisms.registry.names", lambda: list(ENTRIES))
    built: list[str] = []
    _counting_builder(monkeypatch, built)
    other = [a if a != "2000" else "3000" for a in COMMAND]
    result = CliRunner().invoke(main, [*other, "-o", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert built == sorted(ENTRIES)
    assert "left by a run with other settings" in result.output


def test_a_complete_run_is_rebuilt_in_full(tmp_path, monkeypatch):
    # Without an interruption there is nothing to resume: regenerating a folder rebuilds every report.
    monkeypatch.setattr("dpaudit.mechanisms.registry.names", lambda: ENTRIES[:1])
    built: list[str] = []
    _counting_builder(monkeypatch, built)
    for _ in range(2):
        assert CliRunner().invoke(main, [*COMMAND, "-o", str(tmp_path)]).exit_code == 0
    assert built == ENTRIES[:1] * 2
