"""Audit fingerprints of the whole catalogue: the check that a refactor of the auditor changes no result.

For every catalogue entry and seed, one audit at a small budget; the fingerprint is everything the audit
decided and reported (the whole ``as_dict()``: verdict, reason, both bounds, event, pair, counts,
candidates, findings, notes, stopping) but its wall-clock times.  Run it before and
after a change and compare::

    python benchmarks/fingerprints.py -o before.json          # on the old tree
    python benchmarks/fingerprints.py -o after.json --compare before.json

It prints the entries whose fingerprint differs (none, for a change that moves code only) and exits 1
if any does; then the differing entries whose verdict changed and those whose bound is lower by more
than its own noise (the standard error of the reported event's log-ratio from its hits: a change that
moves which event or which search samples are used moves the bound within that).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time

import dpaudit
from dpaudit.auditor.result import without_timings
from dpaudit.mechanisms.registry import names

SAMPLES = 20_000
SEEDS = (1, 2)


def fingerprint(name: str, seed: int, samples: int) -> dict:
    """Everything the audit reported (``as_dict()``, candidates, findings, notes and reason included)
    but its wall-clock times (:func:`dpaudit.auditor.result.without_timings`), as JSON."""
    result = dpaudit.audit(name, samples=samples, seed=seed, executor="in-process", progress=False)
    document = without_timings(result.as_dict())
    return json.loads(json.dumps(document, sort_keys=True, default=str))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", required=True, help="where to write the fingerprints (JSON)")
    parser.add_argument("--compare", help="fingerprints of an earlier run to compare with")
    parser.add_argument("--samples", type=int, default=SAMPLES)
    args = parser.parse_args()
    started = time.perf_counter()
    prints = {f"{name}@{seed}": fingerprint(name, seed, args.samples) for name in names() for seed in SEEDS}
    with open(args.output, "w", encoding="utf-8") as handle:
        json.dump(prints, handle, indent=1, sort_keys=True)
    print(f"{len(prints)} audits at {args.samples} samples per side in {time.perf_counter() - started:.0f} s")
    if not args.compare:
        return 0
    with open(args.compare, encoding="utf-8") as handle:
        before = json.load(handle)
    differ = sorted(k for k in before.keys() | prints.keys() if before.get(k) != prints.get(k))
    for key in differ:
        print(f"{key}:\n  before {before.get(key)}\n  after  {prints.get(key)}")
    print(f"{len(prints) - len(differ)} of {len(prints)} fingerprints identical")
    verdicts, lower = outcome_changes(before, prints, differ)
    print(f"{len(verdicts)} verdicts changed{': ' + ', '.join(verdicts) if verdicts else ''}; "
          f"{len(lower)} bounds lower by more than their noise{': ' + ', '.join(lower) if lower else ''}")
    return 1 if differ else 0


def noise(document: dict) -> float:
    """The standard error of the reported bound's log-ratio, sqrt(1 / k_a + 1 / k_b) from its hits (a count of 0
    read as 1/2)."""
    hits = [max(float(k), 0.5) for k in document.get("hits") or (0, 0)]
    return math.sqrt(sum(1.0 / k for k in hits))


def outcome_changes(before: dict, after: dict, keys: list[str]) -> tuple[list[str], list[str]]:
    """Among ``keys``, those whose verdict changed, and those whose bound is lower than before by more than the
    larger of the two runs' :func:`noise` (each with the two bounds)."""
    verdicts, lower = [], []
    for key in keys:
        old, new = before.get(key), after.get(key)
        if old is None or new is None:
            verdicts.append(f"{key} (missing)")
            continue
        if old["verdict"] != new["verdict"]:
            verdicts.append(f"{key} ({old['verdict']} -> {new['verdict']})")
        drop = float(old["epsilon_lower_bound"]) - float(new["epsilon_lower_bound"])
        if drop > max(noise(old), noise(new)):
            lower.append(f"{key} ({old['epsilon_lower_bound']} -> {new['epsilon_lower_bound']})")
    return verdicts, lower


if __name__ == "__main__":
    sys.exit(main())
