"""OpenDP and diffprivlib mechanisms audited through the adapters, exactly as a user calls them.

Each row is one ``dpaudit.audit(obj, ...)`` call with the default checks on the object the library
builds -- a diffprivlib mechanism object as is (its claim, sensitivity and default pair read from
it), an OpenDP ``Measurement`` with ``d_in=1`` (the claim from its privacy map) -- and reports the
verdict, the verified lower bound on epsilon, the samples, the time, the time per draw inside the
library and the library's version.

Expected: diffprivlib's ``Laplace``, ``Gaussian`` and ``GaussianAnalytic`` release fl(value + noise)
in double arithmetic, so the ulp-lattice check (Mironov 2012) certifies outputs of M(0) that M(1)
cannot produce: *violation*.  Every other row is a correct implementation of its claim: *pass*.
A *pass* is "no violation found at this confidence and budget", never a proof.

Confidence: the defaults a user gets -- the estimate at 0.95, the verdict at 0.999
(``dpaudit.audit``'s ``verdict_confidence``): most correct rows are *tight* (the realised epsilon on
the default pair equals the claim: Geometric, Binary, Snapping, the Laplace measurements), so a
verdict at 0.95 would flag each with probability up to 5 % (diffprivlib's Binary was, at seed 1:
estimate 1.0028), while at 0.999 the chance of any false violation in the 13-row table is at most
13 x 1e-3.  The leaks are support mismatches whose bounds stay far above the claims at either level.

Run: ``PYTHONPATH=. python benchmarks/thirdparty.py [--samples 100000] [--seed 1] [--confidence 0.95]``
(writes benchmarks/results/thirdparty.json; about 6 minutes on 2 cores, most of it OpenDP's bounded geometric).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from importlib.metadata import version
from pathlib import Path
from typing import Any

import dpaudit

sys.path.insert(0, str(Path(__file__).parent))
from tightness import write_results  # noqa: E402

RESULTS = Path(__file__).parent / "results" / "thirdparty.json"


def diffprivlib_rows() -> list[tuple[str, Any, dict, str]]:
    """(row name, mechanism object, extra audit arguments, expected verdict)."""
    from diffprivlib.mechanisms import (
        Binary,
        Exponential,
        Gaussian,
        GaussianAnalytic,
        Geometric,
        Laplace,
        Snapping,
    )

    return [
        ("Laplace(epsilon=1, sensitivity=1)", Laplace(epsilon=1.0, sensitivity=1.0), {}, "violation"),
        ("Gaussian(epsilon=1, delta=1e-5, sensitivity=1)", Gaussian(epsilon=1.0, delta=1e-5, sensitivity=1.0), {},
         "violation"),
        ("GaussianAnalytic(epsilon=1, delta=1e-5, sensitivity=1)",
         GaussianAnalytic(epsilon=1.0, delta=1e-5, sensitivity=1.0), {}, "violation"),
        ("Geometric(epsilon=1, sensitivity=1)", Geometric(epsilon=1.0, sensitivity=1), {}, "pass"),
        ("Snapping(epsilon=1, sensitivity=1, lower=-10, upper=10)",
         Snapping(epsilon=1.0, sensitivity=1.0, lower=-10.0, upper=10.0), {}, "pass"),
        ("Binary(epsilon=1, value0='no', value1='yes')", Binary(epsilon=1.0, value0="no", value1="yes"), {}, "pass"),
        ("Exponential(epsilon=1, sensitivity=1, utility=[3, 2, 1, 0, 0])",
         Exponential(epsilon=1.0, sensitivity=1.0, utility=[3.0, 2.0, 1.0, 0.0, 0.0]), {}, "pass"),
    ]


def opendp_rows() -> list[tuple[str, Any, dict, str]]:
    """(row name, measurement, extra audit arguments, expected verdict); every claim read at d_in = 1."""
    import opendp.prelude as dp

    dp.enable_features("contrib")
    floats = dp.atom_domain(T=float, nan=False)
    ints = dp.atom_domain(T=int)
    return [
        ("make_laplace(int, scale=1)", dp.m.make_laplace(ints, dp.absolute_distance(T=int), scale=1.0),
         {"d_in": 1}, "pass"),
        ("make_laplace(float, scale=1)", dp.m.make_laplace(floats, dp.absolute_distance(T=float), scale=1.0),
         {"d_in": 1.0}, "pass"),
        ("make_geometric(int, scale=1)", dp.m.make_geometric(ints, dp.absolute_distance(T=int), scale=1.0),
         {"d_in": 1}, "pass"),
        ("make_geometric(int, scale=1, bounds=(-100, 100))",
         dp.m.make_geometric(ints, dp.absolute_distance(T=int), scale=1.0, bounds=(-100, 100)), {"d_in": 1}, "pass"),
        ("make_gaussian(int, scale=2) [zCDP]", dp.m.make_gaussian(ints, dp.absolute_distance(T=int), scale=2.0),
         {"d_in": 1}, "pass"),
        ("make_gaussian(float, scale=2) [zCDP]",
         dp.m.make_gaussian(floats, dp.absolute_distance(T=float), scale=2.0), {"d_in": 1.0}, "pass"),
    ]


def audit_row(library: str, name: str, target: Any, extra: dict, expected: str, args) -> dict:
    started = time.perf_counter()
    result = dpaudit.audit(target, samples=args.samples, seed=args.seed, confidence=args.confidence, **extra)
    seconds = time.perf_counter() - started
    run = result.run
    row = {
        "library": f"{library} {version(library)}",
        "mechanism": name,
        "claim": str(result.claim),
        "expected": expected,
        "verdict": result.verdict.value,
        "as_expected": result.verdict.value == expected,
        "epsilon_lower_bound": result.epsilon_lower_bound,
        "event": result.event,
        "pair": result.pair,
        "hits": result.hits,
        "sample_sizes": result.sample_sizes,
        "samples": result.samples,
        "search_samples": result.search_samples,
        "draws": run.draws,
        "seconds": seconds,
        "seconds_per_draw": result.seconds_per_draw,
        "batching": run.batching,
        "executor": run.executor,
        "reproducible": result.reproducible,
        "findings": [f.check for f in result.findings],
        "reason": result.reason,
        "notes": list(result.notes),
    }
    print(f"{library:<12} {name:<60} {row['verdict']:<10} {'' if row['as_expected'] else '(UNEXPECTED) '}"
          f"eps >= {row['epsilon_lower_bound']:.4f}  {seconds:6.1f} s  "
          f"{(row['seconds_per_draw'] or 0) * 1e6:6.1f} us/draw", flush=True)
    return row


def markdown(rows: list[dict], confidence: float) -> str:
    lines = [
        f"| library | mechanism | claim | verdict (at 0.999) | epsilon >= (at {confidence:g}) | event | samples per side "
        "(verification + search) | time | time per draw |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if r["verdict"] == "error":
            lines.append(f"| {r['library']} | `{r['mechanism']}` | | **error** | | {r['reason']} | | | |")
            continue
        lines.append(
            f"| {r['library']} | `{r['mechanism']}` | {r['claim']} | **{r['verdict']}** | "
            f"{r['epsilon_lower_bound']:.4f} | {r['event']} | {r['samples']:,} + {r['search_samples']:,} | "
            f"{r['seconds']:.1f} s | {r['seconds_per_draw'] * 1e6:.1f} us |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=100_000, help="verification samples per side")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--confidence", type=float, default=0.95, help="the estimate's; the verdict's is 0.999")
    args = parser.parse_args()
    started = time.perf_counter()
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # diffprivlib's PrivacyLeakWarning-style notices are not ours
        for library, build in (("diffprivlib", diffprivlib_rows), ("opendp", opendp_rows)):
            for name, target, extra, expected in build():
                try:
                    rows.append(audit_row(library, name, target, extra, expected, args))
                except dpaudit.DPAuditError as exc:
                    print(f"{library:<12} {name:<60} ERROR {exc}", flush=True)
                    rows.append({"library": library, "mechanism": name, "expected": expected, "verdict": "error",
                                 "as_expected": False, "reason": str(exc)})
    print()
    print(markdown(rows, args.confidence))
    wrong = [r["mechanism"] for r in rows if not r["as_expected"]]
    write_results(RESULTS, seed=args.seed, confidence=args.confidence, started=started, samples=args.samples,
                  rows=rows, unexpected=wrong)
    if wrong:
        print(f"UNEXPECTED VERDICTS: {wrong}")


if __name__ == "__main__":
    main()
