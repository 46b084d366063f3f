"""A second CI run with nothing changed, against the first: how much of the audits' time the store saves.

Copies ``examples/ci_project`` to a temporary folder and runs its test suite with pytest (the plugin's
default budget unless ``--samples`` is given) four times:

1. an empty store: every audit computed;
2. nothing changed: every audit read back (the goal is <= 10 % of run 1's audit time, with the
   same verdicts);
3. one constant of ``buggy_count`` changed: that audit alone recomputed;
4. ``--dp-seed`` changed: every audit recomputed.

The audit time of a run is the sum of the durations of the audited tests (pytest's ``--junitxml``
times), with dpaudit's auditor imported before pytest starts: loading the library (about 0.2 s, scipy
and statsmodels with it) is the same in both runs and no audit's work, and would otherwise land in
whichever test runs first.  The wall time of each whole ``pytest`` process, imports included, is
printed beside it.  Printed: per run the audits read back, the verdicts, both
times, and the ratio run 2 / run 1 (checked against the bound 0.10).

Run: ``PYTHONPATH=. python benchmarks/evidence_store.py [--samples N]``.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ROOT / "examples" / "ci_project"
BOUND = 0.10


def run(folder: Path, *args: str) -> dict:
    junit = folder / "junit.xml"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    start = time.perf_counter()
    command = [sys.executable, "-c", "import sys, dpaudit.auditor, pytest; sys.exit(pytest.main(sys.argv[1:]))",
               "-q", f"--junitxml={junit}", *args]
    done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    cases = ET.parse(junit).getroot().iter("testcase")
    audit_s = sum(float(case.get("time", 0)) for case in cases)
    stored = re.search(r"evidence store \S+: (\d+) of (\d+) audit\(s\) read back", done.stdout)
    verdicts = sorted(line.split()[0] + " " + line.rsplit("(", 1)[1] for line in done.stdout.splitlines()
                      if line.startswith(("pass ", "violation ", "underpowered ")))
    return {"audit_s": audit_s, "wall_s": wall, "read_back": f"{stored.group(1)} of {stored.group(2)}",
            "verdicts": verdicts}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=None, help="--dp-samples (default: the plugin's)")
    options = parser.parse_args()
    extra = [] if options.samples is None else [f"--dp-samples={options.samples}"]
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary) / "ci_project"
        shutil.copytree(PROJECT, folder, ignore=shutil.ignore_patterns(".pytest_cache", "__pycache__"))
        rows = [("1 empty store", run(folder, *extra)), ("2 nothing changed", run(folder, *extra))]
        counts = folder / "src" / "noisy_stats" / "counts.py"
        counts.write_text(counts.read_text().replace("0.5 / EPSILON", "0.45 / EPSILON"))
        rows.append(("3 one constant changed", run(folder, *extra)))
        rows.append(("4 --dp-seed changed", run(folder, *extra, "--dp-seed=7")))
    print(f"{'run':<24} {'read back':>10} {'audit s':>9} {'wall s':>8}")
    for name, row in rows:
        print(f"{name:<24} {row['read_back']:>10} {row['audit_s']:>9.3f} {row['wall_s']:>8.2f}")
    first, second = rows[0][1], rows[1][1]
    ratio = second["audit_s"] / first["audit_s"]
    print(f"second run / first run, audit time: {ratio:.4f} (bound {BOUND}); wall time: "
          f"{second['wall_s'] / first['wall_s']:.3f}")
    print(f"same verdicts: {first['verdicts'] == second['verdicts']}")
    if ratio > BOUND or first["verdicts"] != second["verdicts"]:
        sys.exit(1)


if __name__ == "__main__":
    main()
