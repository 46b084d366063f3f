"""The plugin's inner pytest runs are subprocesses: they must import this checkout's dpaudit, not an
installed copy, so the project root goes first on their ``PYTHONPATH``.

A few inner runs are in-process (``pytester.runpytest``): pytester removes the modules they imported
when they end, and numpy cannot be imported twice in one process, so numpy is imported here first --
otherwise a later test of the same (xdist) worker that imports numpy fails with "cannot load module
more than once per process", depending on which tests the worker ran before it.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy  # noqa: F401 - see the module docstring
import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _this_checkout(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
