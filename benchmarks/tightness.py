"""Tightness: the verified bound against the best bound any event could give at the same N.

For each catalogue mechanism with a known finite ``true_epsilon`` (and the test mechanisms of the
issue), audit its first recommended pair at N = 10^4, 10^5, 10^6 verification samples per side
(``--with-1e7`` adds 10^7), confidence 0.95, and print the reported bound next to the *limit*: the
bound obtained by plugging the exact probabilities (p, p') of the optimal event in as counts
k = round(N p), k' = round(N p') (the median outcome), as in NOTES.md Sect. 4.  The limit is printed
for the Clopper-Pearson union bound (the reference figures: 0.9808 / 0.9939 / 0.9981 for Laplace at
eps = 1) and for the auditor's joint ratio test.  Optimal events, exact probabilities:

* Laplace location (scale b = Delta/eps, inputs Delta apart): half-line at the lower input,
  p = 1/2, p' = e^-eps / 2 (likelihood ratio exactly e^eps there, largest mass);
* two-sided geometric: {y <= q_a}, p = 1/(1 + e^-eps), p' = e^-eps / (1 + e^-eps);
* binary randomized response: the atom {a}, p = e^eps/(1 + e^eps), p' = 1/(1 + e^eps);
* k-ary randomized response: the atom {a}, p = e^eps/(e^eps + k - 1), p' = 1/(e^eps + k - 1).

Other entries have no closed form here: their line shows ``est.``, the limit of the event the auditor
found at the largest N with its probabilities estimated on ``--oracle-samples`` fresh samples (an
estimate of the limit of that event, not of the optimal one).  Search samples are spent on top of N:
``search_budget(N)`` per side (N/5, at least min(N, 20 000), at most 500 000).

Run: ``python benchmarks/tightness.py [--with-1e7] [--seed 1] [--oracle-samples 4000000]``
"""

from __future__ import annotations

import argparse
import math

import numpy as np

import dpaudit
from dpaudit.auditor import bounds, search_budget
from dpaudit.auditor.sampling import CHUNK_VALUES

CONFIDENCE = 0.95


def closed_form(mechanism) -> tuple[float, float] | None:
    """Exact (p, p') of the optimal event for the families with a closed form, else None."""
    eps = mechanism.true_epsilon
    family = mechanism.family
    if family == "laplace" and mechanism.name in ("laplace", "laplace-sum", "laplace-mean"):
        return 0.5, 0.5 * math.exp(-eps)
    if family == "geometric":
        return 1 / (1 + math.exp(-eps)), math.exp(-eps) / (1 + math.exp(-eps))
    if family == "randomized-response" and mechanism.domain is not None and len(mechanism.domain) >= 2:
        if mechanism.name == "rappor":
            return None
        k = len(mechanism.domain)
        return math.exp(eps) / (math.exp(eps) + k - 1), 1 / (math.exp(eps) + k - 1)
    return None


def estimated(mechanism, result, samples: int, seed: int) -> tuple[float, float]:
    """(p, p') of the reported event, estimated on ``samples`` fresh samples per side."""
    from dpaudit.auditor.search import search_events  # noqa: F401  (events are rebuilt from the search)

    event = _event_from_spec(result.event_spec)
    rng = np.random.default_rng(seed)
    probabilities = []
    for data in result.pair:
        data = _as_input(data)
        hits, done = 0, 0
        while done < samples:
            rows = min(CHUNK_VALUES // 16, samples - done)
            out = mechanism.sample(data, rows, rng)
            out = out.astype(float).reshape(rows, -1)
            hits += int(np.count_nonzero(event.contains(out)))
            done += rows
        probabilities.append(hits / samples)
    return probabilities[0], probabilities[1]


def _as_input(value):
    return tuple(_as_input(v) for v in value) if isinstance(value, list) else value


def _event_from_spec(spec):
    from dpaudit.auditor.events import BinSet, Feature, Interval, RowSet, Threshold, ValueSet

    feature = Feature(spec["feature"]["kind"], spec["feature"].get("index"),
                      tuple(spec["feature"]["weights"]) if "weights" in spec["feature"] else None) if "feature" in spec else None
    kind = spec["type"]
    if kind == "threshold":
        return Threshold(feature, spec["t"], spec["upper"])
    if kind == "interval":
        return Interval(feature, spec["lo"], spec["hi"])
    if kind == "values":
        return ValueSet(feature, tuple(spec["values"]))
    if kind == "bins":
        return BinSet(feature, tuple(spec["edges"]), tuple(spec["bins"]))
    return RowSet(tuple(tuple(p) for p in spec["patterns"]))


def limit(method: str, n: int, p: float, q: float, delta: float = 0.0) -> float:
    ka, kb = round(n * p), round(n * q)
    return float(bounds.epsilon_lower_bound(method, ka, n, kb, n, CONFIDENCE, delta))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--with-1e7", action="store_true", help="also run N = 10^7")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--oracle-samples", type=int, default=4_000_000)
    args = parser.parse_args()
    sizes = [10**4, 10**5, 10**6] + ([10**7] if args.with_1e7 else [])
    entries = [m for m in dpaudit.catalogue()
               if m.true_epsilon is not None and math.isfinite(m.true_epsilon) and m.pairs and m.claim.delta == 0]
    print(f"confidence {CONFIDENCE}, seed {args.seed}; search samples per side: "
          + ", ".join(f"N={n:.0e}: {search_budget(n)}" for n in sizes))
    print(f"{'mechanism':<28} {'true eps':>8} {'N':>6} {'bound':>8} {'limit CP':>9} {'limit joint':>11} "
          f"{'ratio CP':>8} {'ratio joint':>11}  event")
    for mechanism in entries:
        pair = mechanism.pairs[0]
        results = [dpaudit.audit(mechanism, pair=pair, samples=n, seed=args.seed) for n in sizes]
        exact = closed_form(mechanism)
        p, q = exact if exact is not None else estimated(mechanism, results[-1], args.oracle_samples, args.seed + 1)
        tag = "" if exact is not None else " est."
        for n, result in zip(sizes, results):
            lim_cp, lim_joint = limit("union", n, p, q), limit(result.method, n, p, q)
            print(f"{mechanism.name:<28} {mechanism.true_epsilon:>8.4g} {n:>6.0e} {result.epsilon_lower_bound:>8.4f} "
                  f"{lim_cp:>9.4f} {lim_joint:>11.4f} {result.epsilon_lower_bound / lim_cp:>8.3f} "
                  f"{result.epsilon_lower_bound / lim_joint:>11.3f}{tag}  {result.event[:60]}")


if __name__ == "__main__":
    main()
