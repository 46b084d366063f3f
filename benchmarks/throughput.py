"""Sampling throughput of every catalogue entry: samples per second of ``mechanism.sample``.

For each entry of ``dpaudit.catalogue()`` the input is the first element of its first recommended
pair, or else one derived from its ``domain`` (the record values as a dataset for dataset relations,
the base value for query-distance relations, the first symbol for local relations).  The batch size n
is doubled (after one untimed warm-up call) until one call takes at least 20 ms, then calls are
repeated for about ``--seconds`` (default 0.2 s) and the samples per second are reported.  For the
``laplace`` entry raw ``rng.laplace(size=n)`` is timed too, and the throughput ratio is the median
over alternating calls of the two at the same n (robust to a shared machine's changing load) (target >= 0.5: the float-safe grid release may cost at most as much again as drawing the
noise).

Run: ``python benchmarks/throughput.py`` (prints a table, writes benchmarks/results/throughput.json).
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

import dpaudit
from dpaudit.mechanisms.base import Mechanism
from dpaudit.neighbours import Local, QueryDistance

RESULTS = Path(__file__).parent / "results" / "throughput.json"
SEED = 20261122
LAPLACE_TARGET = 0.5


def benchmark_input(mechanism: Mechanism) -> Any:
    """The input sampled: the first recommended pair's first element, else one built from the domain."""
    if mechanism.pairs:
        return mechanism.pairs[0][0]
    if isinstance(mechanism.neighbours, Local):
        return list(mechanism.domain)[0]
    if isinstance(mechanism.neighbours, QueryDistance):
        return mechanism.domain
    return tuple(mechanism.domain)


def samples_per_second(draw: Callable[[int], Any], seconds: float) -> tuple[float, int]:
    """(samples per second, batch size n) of ``draw(n)``, timed for about ``seconds``."""
    draw(16)  # warm-up: lazy imports and calibrations (e.g. the analytic Gaussian's sigma) are not timed
    n = 1_000
    while True:
        start = time.perf_counter()
        draw(n)
        elapsed = time.perf_counter() - start
        if elapsed >= 0.02 or n >= 1 << 24:
            break
        n *= 2
    calls, total = 0, 0.0
    while total < seconds:
        start = time.perf_counter()
        draw(n)
        total += time.perf_counter() - start
        calls += 1
    return calls * n / total, n


def interleaved_ratio(first: Callable[[int], Any], second: Callable[[int], Any], n: int, seconds: float) -> float:
    """Median over alternating calls of time(second(n)) / time(first(n)): the throughput ratio first/second.

    Alternating the two keeps them under the same machine load, which a shared machine changes by
    several times within seconds; the median discards calls hit by a pause.
    """
    ratios, total = [], 0.0
    while total < 2 * seconds or len(ratios) < 5:
        start = time.perf_counter()
        first(n)
        middle = time.perf_counter()
        second(n)
        end = time.perf_counter()
        ratios.append((end - middle) / (middle - start))
        total += end - start
    return float(np.median(ratios))


def run(seconds: float) -> dict[str, Any]:
    rows = []
    laplace_ratio = None
    for mechanism in dpaudit.catalogue():
        data = benchmark_input(mechanism)
        rng = np.random.default_rng(SEED)
        row: dict[str, Any] = {"name": mechanism.name, "family": mechanism.family}
        try:
            rate, n = samples_per_second(lambda k: mechanism.sample(data, k, rng), seconds)
            row.update(samples_per_second=rate, n=n)
        except Exception as exc:  # one broken entry must not hide the others' figures
            row.update(samples_per_second=None, n=None, error=f"{type(exc).__name__}: {exc}")
        if mechanism.name == "laplace" and row["samples_per_second"]:
            raw_rng = np.random.default_rng(SEED)
            raw, _ = samples_per_second(lambda k: raw_rng.laplace(size=k), seconds)
            laplace_ratio = interleaved_ratio(
                lambda k: mechanism.sample(data, k, rng), lambda k: raw_rng.laplace(size=k), row["n"], seconds
            )
            row.update(raw_laplace_samples_per_second=raw, ratio_to_raw=laplace_ratio)
        rows.append(row)
    return {
        "schema_version": 1,
        "dpaudit_version": dpaudit.__version__,
        "datetime": datetime.now(timezone.utc).isoformat(),
        "machine_info": {
            "python": platform.python_version(),
            "numpy": np.__version__,
            "machine": platform.machine(),
            "processor": platform.processor(),
            "system": platform.system(),
        },
        "seed": SEED,
        "seconds_per_entry": seconds,
        "laplace_ratio_to_raw": laplace_ratio,
        "laplace_ratio_target": LAPLACE_TARGET,
        "entries": rows,
    }


def print_table(result: dict[str, Any]) -> None:
    print(f"{'name':<30} {'family':<20} {'samples/s':>14} {'n':>9}")
    print("-" * 76)
    for row in result["entries"]:
        rate = f"{row['samples_per_second']:>14,.0f}" if row["samples_per_second"] else f"{'error':>14}"
        n = f"{row['n']:>9}" if row["n"] else ""
        print(f"{row['name']:<30} {row['family']:<20} {rate} {n}" + (f"  {row['error']}" if "error" in row else ""))
    ratio = result["laplace_ratio_to_raw"]
    if ratio is not None:
        verdict = "meets" if ratio >= LAPLACE_TARGET else "misses"
        print(f"\nlaplace / raw rng.laplace: {ratio:.3f} ({verdict} the target {LAPLACE_TARGET})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=0.2, help="timing budget per entry (default 0.2)")
    parser.add_argument("--output", type=Path, default=RESULTS, help="where to write the JSON")
    args = parser.parse_args()
    result = run(args.seconds)
    print_table(result)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(result, indent=2) + "\n")
    print(f"\nwritten to {args.output}")


if __name__ == "__main__":
    main()
