"""Audit OpenDP and diffprivlib mechanisms with dpaudit and print the verdict table.

For each :class:`~wrapped.Wrapped` mechanism two checks run on its plain callable:

1. ``dpaudit.audit(sampler, epsilon=..., delta=..., pair=...)`` -- the Monte Carlo lower bound on
   epsilon (search stage, then verification on fresh samples; only verified bounds are reported);
2. for float outputs, ``dpaudit.auditor.lattice.lattice_check`` -- events on the binary
   representation of the outputs (grids 2^p, low significand bits, exponents), searched on some
   samples and bounded on fresh ones.  When the output is fl(q + noise) (``lemma_queries``), the
   ulp-lattice lemma proves the event empty under the other input, so a hit is a certificate.

The row's verdict is ``violation`` if either check refutes the claim at the stated confidence,
``pass`` (never a proof of privacy) if neither does and the audit had the power to see a violation
near the claim, ``underpowered`` otherwise.

Run: ``python examples/thirdparty/audit_thirdparty.py [--samples 100000] [--confidence 0.95]``
(writes examples/thirdparty/results.json and prints the Markdown table of README.md).
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import dpaudit
from dpaudit.auditor.lattice import lattice_check

from wrapped import Wrapped

RESULTS = Path(__file__).parent / "results.json"


def audit_wrapped(
    wrapped: Wrapped,
    *,
    samples: int,
    lattice_samples: int,
    confidence: float,
    seed: int,
) -> dict[str, Any]:
    """Run both checks on ``wrapped`` and return the row as plain JSON data."""
    mechanism = wrapped.mechanism()
    started = time.perf_counter()
    result = dpaudit.audit(
        mechanism, pair=wrapped.pair, samples=samples, seed=seed, confidence=confidence, executor="in-process"
    )
    row: dict[str, Any] = {
        "mechanism": wrapped.name,
        "library": wrapped.library,
        "claim": str(mechanism.claim),
        "pair": [repr(v) for v in wrapped.pair],
        "seeding": wrapped.seeding,
        "note": wrapped.note,
        "audit": {
            "verdict": result.verdict.value,
            "epsilon_lower_bound": result.epsilon_lower_bound,
            "event": result.event,
            "hits": list(result.hits),
            "sample_sizes": list(result.sample_sizes),
            "search_samples": result.search_samples,
            "reason": result.reason,
            "seed": result.seed,
        },
        "lattice": None,
    }
    flagged = result.violation
    if wrapped.float_output:
        finding = lattice_check(
            mechanism, wrapped.pair[0], wrapped.pair[1], n_search=max(lattice_samples // 5, 100),
            n_verify=lattice_samples, seed=seed, confidence=confidence, queries=wrapped.lemma_queries,
        )
        row["lattice"] = {
            "verdict": finding.verdict.value,
            "epsilon_lower_bound": finding.epsilon_lower_bound,
            "event": finding.event,
            "counts": [finding.hits_a, finding.n_a, finding.hits_b, finding.n_b],
            "proven_empty": finding.proven_empty,
            "witness": finding.witness,
            "reason": finding.reason,
        }
        flagged = flagged or finding.flagged
    row["verdict"] = "violation" if flagged else result.verdict.value
    row["seconds"] = time.perf_counter() - started
    return row


def markdown_table(rows: list[dict[str, Any]], confidence: float) -> str:
    """The verdict table of README.md."""
    lines = [
        f"| mechanism | claim | verdict (confidence {confidence:g}) | audit: epsilon >= (event) | lattice check | seeded |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        audit = row["audit"]
        lattice = row["lattice"]
        if lattice is None:
            lattice_text = "n/a (integer outputs)"
        else:
            a_hits, a_n, b_hits, b_n = lattice["counts"]
            proof = ", proved empty under b" if lattice["proven_empty"] else ""
            lattice_text = (f"{lattice['verdict']}: epsilon >= {lattice['epsilon_lower_bound']:.3g} on "
                            f"[{lattice['event']}], {a_hits}/{a_n} vs {b_hits}/{b_n}{proof}")
        lines.append(
            f"| {row['mechanism']} ({row['library']}) | {row['claim']} | **{row['verdict']}** | "
            f"{audit['epsilon_lower_bound']:.4f} ({audit['event']}) | {lattice_text} | "
            f"{'yes' if row['seeding'].startswith('seeded') else 'no'} |"
        )
    return "\n".join(lines)


def main() -> None:
    import diffprivlib_mechanisms
    import opendp_mechanisms

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=100_000, help="verification samples per side")
    parser.add_argument("--lattice-samples", type=int, default=50_000, help="lattice verification samples per side")
    parser.add_argument("--confidence", type=float, default=0.95)
    parser.add_argument("--seed", type=int, default=20261122)
    args = parser.parse_args()
    rows = []
    for wrapped in opendp_mechanisms.all_mechanisms() + diffprivlib_mechanisms.all_mechanisms():
        # The slow one-call-per-draw OpenDP samplers get a tenth of the budget (about 200 us per call).
        per_call = wrapped.note.startswith("one library call") and wrapped.library.startswith("opendp")
        samples = max(args.samples // 10, 1000) if per_call else args.samples
        row = audit_wrapped(wrapped, samples=samples, lattice_samples=args.lattice_samples,
                            confidence=args.confidence, seed=args.seed)
        rows.append(row)
        print(f"{row['mechanism']:<52} {row['verdict']:<12} eps >= {row['audit']['epsilon_lower_bound']:.4f} "
              f"({row['seconds']:.1f} s)", flush=True)
    envelope = {
        "schema_version": 1,
        "dpaudit_version": dpaudit.__version__,
        "datetime": datetime.now(timezone.utc).isoformat(),
        "machine_info": {"python": platform.python_version(), "machine": platform.machine()},
        "command": "python examples/thirdparty/audit_thirdparty.py "
                   f"--samples {args.samples} --lattice-samples {args.lattice_samples} "
                   f"--confidence {args.confidence:g} --seed {args.seed}",
        "rows": rows,
    }
    RESULTS.write_text(json.dumps(envelope, indent=2, default=lambda v: "inf" if v == math.inf else str(v)) + "\n")
    print()
    print(markdown_table(rows, args.confidence))


if __name__ == "__main__":
    main()
