"""Detection: the fewest samples per side at which dpaudit flags each flawed catalogue entry.

For every entry of the flawed gallery (``mechanism.flawed``), ``dpaudit.audit`` runs with its
default settings (pair search, events, early stopping, float checks as the auditor has them), the
estimate at confidence 0.95 and the verdict at the default 0.999, seed ``--seed``, on the ladder N = 100, 200, 500, 1000, ... , 10^7 verification
samples per side (1-2-5 per decade), stopping at the first N whose verdict is ``violation``.  Printed:
that N, the search samples spent on top of it, the wall time of that audit and of the whole ladder
up to it, and the bound it reported; then the bound at N = 10^6 per side (re-audited unless the
ladder already ran it).  Entries not flagged at the largest N are reported as such.

One seed gives one realisation: a flawed entry flagged at N by this seed may need a little more or
less under another (the ladder is not a power curve).

Run: ``python benchmarks/detection.py [--seed 1] [--max-samples 10000000]`` (prints a table, writes
benchmarks/results/detection.json).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import dpaudit
from dpaudit.auditor import DEFAULT_VERDICT_CONFIDENCE

sys.path.insert(0, str(Path(__file__).parent))
from tightness import write_results  # noqa: E402

RESULTS = Path(__file__).parent / "results" / "detection.json"
CONFIDENCE = 0.95
REFERENCE_N = 10**6


def ladder(maximum: int) -> list[int]:
    """100, 200, 500, 1000, 2000, 5000, ... up to ``maximum``."""
    sizes, decade = [], 100
    while decade <= maximum:
        sizes += [m * decade for m in (1, 2, 5) if m * decade <= maximum]
        decade *= 10
    return sizes


def lattice_ladder(mechanism, sizes: list[int], seed: int) -> tuple[int, object, float, float] | None:
    """The leak check of :mod:`dpaudit.auditor.events.leaks.lattice` up the ladder on the first pair with scalar
    float outputs: (N, finding, seconds of that check, seconds of the ladder) at the first flag, None if never flagged.

    ``n_verify`` = N fresh outputs per side, ``n_search`` = max(N / 5, 100) more; the query values
    are passed so that the ulp-lattice lemma can prove the event empty (see lattice_check).
    """
    from dpaudit.auditor.events.leaks.float_support import query_value
    from dpaudit.auditor.events.leaks.lattice import lattice_check

    for a, b in mechanism.pairs:
        try:
            queries = (query_value(mechanism, a), query_value(mechanism, b))
        except (ValueError, TypeError):
            continue
        spent = 0.0
        for n in sizes:
            started = time.perf_counter()
            finding = lattice_check(mechanism, a, b, n_search=max(n // 5, 100), n_verify=n, seed=seed,
                                    confidence=CONFIDENCE, queries=queries)
            last = time.perf_counter() - started
            spent += last
            if finding.flagged:
                return n, finding, last, spent
        return None
    return None


def detect(mechanism, sizes: list[int], seed: int) -> dict:
    """Audit up the ladder until the first violation; the row of the table.

    When ``dpaudit.audit`` does not flag a mechanism with float outputs on the whole ladder, the
    auditor's lattice leak check runs up the same ladder (column ``check``).
    """
    ladder_seconds, first, seen = 0.0, None, {}
    for n in sizes:
        result = dpaudit.audit(mechanism, samples=n, seed=seed, confidence=CONFIDENCE)
        ladder_seconds += result.elapsed_s
        seen[n] = result
        if result.violation:
            first = result
            break
    leak = None
    if first is None and mechanism.family in ("laplace", "gaussian"):
        leak = lattice_ladder(mechanism, sizes, seed)
    reference = seen.get(REFERENCE_N) or dpaudit.audit(mechanism, samples=REFERENCE_N, seed=seed, confidence=CONFIDENCE)
    true_eps = mechanism.true_epsilon
    if leak is not None:
        n, finding, last, spent = leak
        return {
            "mechanism": mechanism.name, "claim": str(mechanism.claim),
            "true_epsilon": true_eps if true_eps is None or math.isfinite(true_eps) else "inf",
            "flaw": mechanism.flaw, "flagged": True, "check": "lattice", "samples_per_side": n,
            "search_samples_per_side": max(n // 5, 100), "seconds": last, "ladder_seconds": ladder_seconds + spent,
            "bound_at_detection": finding.epsilon_lower_bound, "event_at_detection": finding.event,
            "proven_empty": finding.proven_empty, "bound_at_1e6": reference.epsilon_lower_bound,
            "verdict_at_1e6": reference.verdict.value, "event_at_1e6": reference.event, "largest_n_tried": max(seen),
        }
    return {
        "mechanism": mechanism.name,
        "claim": str(mechanism.claim),
        "true_epsilon": true_eps if true_eps is None or math.isfinite(true_eps) else "inf",
        "flaw": mechanism.flaw,
        "flagged": first is not None,
        "check": "audit" if first is not None else None,
        "samples_per_side": first.samples if first else None,
        "search_samples_per_side": first.search_samples if first else None,
        "seconds": first.elapsed_s if first else None,
        "ladder_seconds": ladder_seconds,
        "bound_at_detection": first.epsilon_lower_bound if first else None,
        "event_at_detection": first.event if first else None,
        "bound_at_1e6": reference.epsilon_lower_bound,
        "verdict_at_1e6": reference.verdict.value,
        "event_at_1e6": reference.event,
        "largest_n_tried": max(seen),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-samples", type=int, default=10**7)
    args = parser.parse_args()
    started = time.perf_counter()
    sizes = ladder(args.max_samples)
    flawed = [m for m in dpaudit.catalogue() if m.flawed]
    print(f"confidence {CONFIDENCE} (estimate), verdict at {DEFAULT_VERDICT_CONFIDENCE}, seed {args.seed}, ladder {sizes[0]}..{sizes[-1]} (1-2-5) samples per side")
    print(f"{'mechanism':<32} {'claim':<26} {'true':>6} {'check':>7} {'N flagged':>10} {'+search':>8} {'time s':>7} "
          f"{'ladder s':>8} {'bound':>8} {'bound@1e6':>9}  event at detection")
    rows = []
    for mechanism in flawed:
        row = detect(mechanism, sizes, args.seed)
        rows.append(row)
        true = row["true_epsilon"]
        flagged = f"{row['samples_per_side']:>10}" if row["flagged"] else f"{'>' + format(row['largest_n_tried'], '.0e'):>10}"
        print(f"{row['mechanism']:<32} {row['claim']:<26} {true if isinstance(true, str) else f'{true:.4g}':>6} "
              f"{row['check'] or '-':>7} {flagged} {row['search_samples_per_side'] or '-':>8} "
              f"{'-' if row['seconds'] is None else format(row['seconds'], '.2f'):>7} {row['ladder_seconds']:>8.2f} "
              f"{'-' if row['bound_at_detection'] is None else format(row['bound_at_detection'], '.4f'):>8} "
              f"{row['bound_at_1e6']:>9.4f}  {(row['event_at_detection'] or '')[:50]}", flush=True)
    write_results(RESULTS, seed=args.seed, confidence=CONFIDENCE, started=started, ladder=sizes, entries=rows)
    print(f"flagged {sum(r['flagged'] for r in rows)} of {len(rows)}")


if __name__ == "__main__":
    main()
