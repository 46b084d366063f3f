"""The plugin's inner pytest runs are subprocesses: they must import this checkout's dpaudit, not an
installed copy, so the project root goes first on their ``PYTHONPATH``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _this_checkout(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
