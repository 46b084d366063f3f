"""``--dp-report DIR`` is checked when the run starts, before any test audits anything."""

from __future__ import annotations

from pathlib import Path

import pytest


def test_a_report_folder_that_cannot_be_made_is_a_usage_error_before_any_test(pytester):
    pytester.makepyfile("def test_nothing():\n    raise AssertionError('a test ran')\n")
    result = pytester.runpytest("--dp-report=/no/such/dir")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--dp-report='/no/such/dir': the folder '/no/such' does not exist; create it first" in result.stderr.str()
    assert not Path("/no").exists()


def test_a_report_folder_that_is_a_file_is_a_usage_error(pytester):
    pytester.makefile(".txt", reports="not a folder")
    pytester.makepyfile("def test_nothing():\n    pass\n")
    result = pytester.runpytest("--dp-report=reports.txt")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--dp-report='reports.txt' is a file, not a folder" in result.stderr.str()
