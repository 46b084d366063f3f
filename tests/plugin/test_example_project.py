"""examples/ci_project runs green for the correct mechanism and red, with the evidence, for the buggy one."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[2] / "examples" / "ci_project"


def run(test_file: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", test_file],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )


def test_correct_mechanism_passes():
    result = run("tests/test_private_count.py")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 passed" in result.stdout


def test_buggy_mechanism_fails_with_the_lower_bound():
    result = run("tests/test_buggy_count.py")
    assert result.returncode == pytest.ExitCode.TESTS_FAILED, result.stdout + result.stderr
    bound = re.search(r"lower bound: epsilon >= ([0-9.]+) at confidence 0.999999", result.stdout)
    assert bound and float(bound.group(1)) > 1.0, result.stdout
    assert "reproduce:   dpaudit audit src/noisy_stats/counts.py:buggy_count" in result.stdout
