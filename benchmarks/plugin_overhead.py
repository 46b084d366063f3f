"""Overhead of the dpaudit pytest plugin on a suite that audits nothing.

Runs `pytest` on a generated suite of plain tests, alternating runs with the plugin loaded and with
`-p no:dpaudit`, and prints the ratio of the median wall times (target <= 1.05).

    python benchmarks/plugin_overhead.py [--runs 15]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SUITE = "\n".join(f"def test_{i}():\n    assert {i} + 1 == {i + 1}\n" for i in range(200))


def timed_run(directory: Path, extra: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *extra],
        cwd=directory,
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        (directory / "test_plain.py").write_text(SUITE)
        timed_run(directory, [])  # warm the file system and bytecode caches
        with_plugin, without_plugin = [], []
        for _ in range(args.runs):
            with_plugin.append(timed_run(directory, []))
            without_plugin.append(timed_run(directory, ["-p", "no:dpaudit"]))
    a, b = statistics.median(with_plugin), statistics.median(without_plugin)
    result = {"runs": args.runs, "median_with_plugin_s": a, "median_without_plugin_s": b, "ratio": a / b}
    print(f"{'runs':<28}{args.runs}")
    print(f"{'median with dpaudit plugin':<28}{a:.4f} s")
    print(f"{'median with -p no:dpaudit':<28}{b:.4f} s")
    print(f"{'ratio (target <= 1.05)':<28}{a / b:.3f}")
    out = Path(__file__).parent / "results" / "plugin_overhead.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
