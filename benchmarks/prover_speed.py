"""Time `dpaudit.prove` on every catalogue entry with a density (targets: <= 2 s each, <= 60 s in all).

Run: python benchmarks/prover_speed.py  (prints a table; entries without a density are listed as such).
"""

from __future__ import annotations

import time

import dpaudit
from dpaudit.errors import InvalidArgument


def main() -> None:
    from dpaudit.proofs import prove

    start = time.perf_counter()
    print(f"{'name':<34} {'verdict':<9} {'seconds':>8}  reason")
    for mechanism in dpaudit.catalogue():
        t0 = time.perf_counter()
        try:
            result = prove(mechanism)
            verdict, reason = result.verdict.value, result.reason
        except InvalidArgument as exc:
            verdict, reason = "no proof", str(exc)
        elapsed = time.perf_counter() - t0
        flag = "  (> 2 s)" if elapsed > 2 else ""
        print(f"{mechanism.name:<34} {verdict:<9} {elapsed:8.2f}  {reason[:90]}{flag}")
    print(f"total: {time.perf_counter() - start:.1f} s (target <= 60 s)")


if __name__ == "__main__":
    main()
