"""Bad output paths cost no work: each is refused in one line before any proving or sampling, and work
finished before a write fails is kept and its place named.

The three command lines of the issue are run as a user types them; a sentinel replaces the work they
would start, so the tests show that the refusal comes first (and a generous wall-clock bound that
it is immediate).  The tests never create ``/no``: the path must still not exist afterwards (the
suite may run as the superuser, who could create it).
"""

from __future__ import annotations

import importlib
import json
import re
import shlex
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

import dpaudit
from dpaudit.cli import main

SMALL = ["--samples", "2000", "--seed", "3", "--confidence", "0.999999"]


@pytest.fixture
def no_work(monkeypatch):
    """Any proof, audit or report started fails the test."""

    def refuse(*args, **kwargs):
        raise AssertionError("work started before the output path was checked")

    monkeypatch.setattr(importlib.import_module("dpaudit.auditor.audit"), "search_stage", refuse)
    monkeypatch.setattr(importlib.import_module("dpaudit.reports"), "build_report", refuse)
    monkeypatch.setattr(importlib.import_module("dpaudit.reports.catalogue"), "_one", refuse)
    monkeypatch.setattr(importlib.import_module("dpaudit.proofs"), "prove", refuse)


def _run(command: str):
    args = shlex.split(command)
    assert args[0] == "dpaudit"
    started = time.perf_counter()
    result = CliRunner().invoke(main, args[1:])
    return result, time.perf_counter() - started


@pytest.mark.parametrize(
    "command, option, folder",
    [
        ("dpaudit report laplace -o /no/such/dir/x.html", "-o/--output='/no/such/dir/x.html'", "/no/such/dir"),
        ("dpaudit audit laplace --checkpoint /no/such/dir/ck.json", "--checkpoint='/no/such/dir/ck.json'", "/no/such/dir"),
        ("dpaudit report --all -o /no/such/dir", "-o/--output='/no/such/dir'", "/no/such"),
    ],
)
def test_the_issue_command_lines_are_refused_at_once_in_one_line(no_work, command, option, folder):
    result, elapsed = _run(command)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert lines == [f"dpaudit: error: {option}: the folder {folder!r} does not exist; create it first"]
    assert result.stdout == ""
    # The check is a few stat calls and one temporary file; a second is a bound no loaded machine misses.
    assert elapsed < 1.0
    assert not Path("/no").exists()


@pytest.mark.parametrize(
    "args, message",
    [
        (["report", "laplace", "-o", "{tmp}"], "must end in one of"),
        (["report", "laplace", "-o", "{tmp}/a-file.txt/x.html"], "'{tmp}/a-file.txt' is not a folder"),
        (["report", "laplace", "-o", "{tmp}/dir.html"], "-o/--output='{tmp}/dir.html' is a folder; give a file name"),
        (["report", "--all", "-o", "{tmp}/a-file.txt"], "-o/--output='{tmp}/a-file.txt' must be a folder"),
        (["report", "--all", "-o", "{tmp}/a-file.txt/reports"], "'{tmp}/a-file.txt' is not a folder"),
        (["report", "laplace", "-o", "/proc/x.html"], "cannot write in the folder '/proc'"),
        (["audit", "laplace", "--checkpoint", "{tmp}/a-file.txt/ck.json"], "'{tmp}/a-file.txt' is not a folder"),
        (["audit", "laplace", "--checkpoint", "/proc/ck.json"], "cannot write in the folder '/proc'"),
    ],
)
def test_unwritable_outputs_are_refused_before_work(no_work, tmp_path, args, message):
    (tmp_path / "a-file.txt").write_text("not a folder")
    (tmp_path / "dir.html").mkdir()
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert len(result.stderr.strip().splitlines()) == 1
    assert message.replace("{tmp}", str(tmp_path)) in result.stderr


def test_the_api_refuses_a_checkpoint_it_cannot_write_before_work(no_work):
    with pytest.raises(dpaudit.InvalidArgument, match=r"checkpoint='/no/such/dir/ck.json': the folder '/no/such/dir'"):
        dpaudit.audit("laplace", samples=1000, checkpoint="/no/such/dir/ck.json")
    assert not Path("/no").exists()


def test_a_report_whose_folder_vanishes_during_the_work_is_kept_and_named(tmp_path, monkeypatch):
    folder = tmp_path / "out"
    folder.mkdir()
    real = dpaudit.reports.build_report

    def build_then_remove_the_folder(*args, **kwargs):
        document = real(*args, **kwargs)
        folder.rmdir()
        return document

    monkeypatch.setattr("dpaudit.reports.build_report", build_then_remove_the_folder)
    out = folder / "x.json"
    result = CliRunner().invoke(main, ["report", "laplace", "-o", str(out), "--no-plots", "--skip-check", "sensitivity",
                                       *SMALL])
    assert result.exit_code == 2, result.output
    error = result.stderr.strip().splitlines()
    assert len(error) == 1 and error[0].startswith(f"dpaudit: error: -o/--output: could not write {str(out)!r}")
    kept = Path(error[0].rsplit("kept in ", 1)[1])
    assert json.loads(kept.read_text(encoding="utf-8"))["mechanism"]["name"] == "laplace"
    assert result.stdout.startswith("PASS: laplace") and f"wrote {kept}" in result.stdout
    kept.unlink()


def test_a_checkpoint_whose_folder_vanishes_moves_and_the_audit_finishes(tmp_path, monkeypatch):
    from dpaudit.auditor.run.checkpoint import Checkpoint

    folder = tmp_path / "ck"
    folder.mkdir()
    real = Checkpoint.set_search

    def remove_the_folder_then_save(self, outcome):
        if folder.exists():
            for path in folder.iterdir():
                path.unlink()
            folder.rmdir()
        real(self, outcome)

    monkeypatch.setattr(Checkpoint, "set_search", remove_the_folder_then_save)
    result = dpaudit.audit("laplace", samples=20_000, seed=5, checkpoint=folder / "ck.json", executor="in-process")
    moved = Path(result.run.checkpoint)
    assert moved != folder / "ck.json" and moved.is_file()
    assert any(f"its finished chunks are kept in {moved}" in note for note in result.notes)
    monkeypatch.undo()
    # The moved file is a working checkpoint: the same audit resumes from it and agrees.
    again = dpaudit.audit("laplace", samples=20_000, seed=5, checkpoint=moved, executor="in-process")
    assert again.run.resumed_chunks > 0
    assert again.epsilon_lower_bound == result.epsilon_lower_bound
    moved.unlink()


def test_a_catalogue_folder_removed_during_the_run_keeps_every_report_and_the_index(tmp_path, monkeypatch):
    import shutil

    folder = tmp_path / "reports"
    reports = importlib.import_module("dpaudit.reports")
    real = reports.build_report

    def build_then_remove_the_folder(name, **options):
        document = real(name, **options)
        shutil.rmtree(folder, ignore_errors=True)
        return document

    monkeypatch.setattr("dpaudit.mechanisms.registry.names", lambda: ["rr", "k-rr"])
    monkeypatch.setattr(reports, "build_report", build_then_remove_the_folder)
    result = CliRunner().invoke(main, ["report", "--all", "-o", str(folder), "--samples", "1000", "--no-plots",
                                       "--jobs", "1"])
    assert result.exit_code == 3, result.output  # finished, but not where asked: "some could not be written"
    kept = [Path(p) for p in re.findall(r"is kept in (\S+?)(?:;|$)", result.stderr, flags=re.M)]
    assert sorted(p.suffix for p in kept) == [".html", ".html", ".html", ".json", ".json"]  # 2 x 2 reports, the index
    assert all(p.is_file() for p in kept)
    assert f"and {[p for p in kept if p.name.startswith('dpaudit-index-')][0]}" in result.stdout
    for path in kept:
        path.unlink()
