"""The HTML reports render in headless Chromium: equations, figures, and no console errors.

Skipped only when no Chromium binary is installed.  The page is loaded from a file with the network
features of Chromium turned off; ``--dump-dom`` gives the DOM after load (with MathML and images),
``--screenshot`` a PNG, and ``--enable-logging=stderr`` every console message (``:CONSOLE`` lines).
A page that logs an error is used first to show that the console check can fail.
"""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from dpaudit.reports import render

CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed")

FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--hide-scrollbars", "--enable-logging=stderr", "--v=0",
)


def _chromium(page: Path, tmp_path: Path, *extra: str) -> subprocess.CompletedProcess:
    profile = tmp_path / f"profile-{len(list(tmp_path.iterdir()))}"
    command = [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *extra, page.as_uri()]
    return subprocess.run(command, capture_output=True, text=True, timeout=90, check=False)


def _console(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if ":CONSOLE" in line]


def _png_size(path: Path) -> tuple[int, int]:
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", header[16:24])


def test_the_console_check_sees_errors(tmp_path):
    page = tmp_path / "broken.html"
    page.write_text('<!DOCTYPE html><p>x</p><script>console.error("boom"); missing();</script>', encoding="utf-8")
    lines = _console(_chromium(page, tmp_path, "--dump-dom").stderr)
    assert any("boom" in line for line in lines) and any("missing is not defined" in line for line in lines)


@pytest.mark.parametrize("fixture", ["laplace_report", "flawed_report"])
def test_report_renders_with_equations_and_plots(fixture, request, tmp_path):
    document = request.getfixturevalue(fixture)
    page = tmp_path / f"{document['mechanism']['name']}.html"
    page.write_text(render(document, "html"), encoding="utf-8")

    dom = _chromium(page, tmp_path, "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert _console(dom.stderr) == []
    assert len(re.findall(r"<math\b", dom.stdout)) >= 2
    assert "<mfrac>" in dom.stdout or "<msup>" in dom.stdout
    figures = re.findall(r'<img src="data:image/svg\+xml;base64,', dom.stdout)
    assert len(figures) == len(document["plots"]["figures"]) >= 3

    shot = tmp_path / f"{document['mechanism']['name']}.png"
    result = _chromium(page, tmp_path, f"--screenshot={shot}", "--window-size=1000,2600")
    assert result.returncode == 0 and shot.exists(), result.stderr[-2000:]
    assert _console(result.stderr) == []
    assert _png_size(shot) == (1000, 2600)
    assert shot.stat().st_size > 50_000  # a blank page of this size compresses to a few kB
    keep = Path(__file__).parent / ".screenshots"
    if keep.is_dir():  # create this folder to keep the screenshots for a look
        shutil.copy(shot, keep / shot.name)
