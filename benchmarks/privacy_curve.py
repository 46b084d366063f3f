"""The empirical privacy curve of the Gaussian mechanism (sigma = 1, Delta = 1) beside the exact curve and the limit.

One ``dpaudit.audit(mechanism, pair=(0, 1), samples=N, curve=True)`` of the Gaussian mechanism
stated as 1-GDP (so the audit decides the claim on the curve), N = 10^6 per side by default.  At each
delta the table prints

* ``exact``: epsilon(delta) of N(0, 1) vs N(1, 1), i.e. of 1-GDP (Dong, Roth & Su 2022, Cor. 2.13);
* ``limit``: the best any single event can certify with N samples per side at confidence 0.95 --
  threshold events, Clopper-Pearson union bound at the median counts round(N p), maximised over the
  threshold (NOTES "the physical limit"); the curve's bounds are simultaneous over 100-200 events,
  so they pay a Bonferroni factor this limit does not;
* ``curve``: ``result.curve.epsilon_lower_bound(delta)`` at confidence 0.95, simultaneous over the curve;
* the ratios curve / limit (the aim: >= 0.9) and curve / exact.

Then the lower confidence bounds on mu (true 1) and rho (true 1/2) derived from the same curve, and
the verdicts of 1-GDP (true), 0.8-GDP, 0.5-zCDP (true) and 0.3-zCDP (over-claims) on the same seed.

Run: ``PYTHONPATH=. python benchmarks/privacy_curve.py [--samples 1000000] [--seed 1]``
(writes benchmarks/results/privacy_curve.json).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy.stats import norm

import dpaudit
from dpaudit import GaussianDP, Mechanism, QueryDistance, ZeroConcentratedDP
from dpaudit.auditor import bounds
from dpaudit.conversions import gdp_epsilon

sys.path.insert(0, str(Path(__file__).parent))
from tightness import write_results  # noqa: E402

RESULTS = Path(__file__).parent / "results" / "privacy_curve.json"
CONFIDENCE = 0.95
DELTAS = (1e-2, 1e-3, 1e-4, 1e-5)


def unit_gaussian(q, n, rng):
    """q + N(0, 1), released on a 2^-16 grid (post-processing: no float lattice reveals q)."""
    return np.rint((q + rng.normal(0.0, 1.0, size=n)) * 2**16) / 2**16


def event_limit(delta: float, n: int, confidence: float = CONFIDENCE) -> float:
    """max over t of ln((CP_lo(round(n P(N(1,1) > t))) - delta) / CP_hi(round(n P(N(0,1) > t))))."""
    t = np.linspace(-4.0, 9.0, 52001)
    pa, pb = norm.sf(t - 1.0), norm.sf(t)
    return float(np.max(bounds.union_bound(np.round(n * pa), n, np.round(n * pb), n, confidence, delta)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=10**6)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    started = time.perf_counter()
    n = args.samples

    def audit(claim):
        mechanism = Mechanism(name="gaussian-sigma-1", claim=claim, neighbours=QueryDistance(1.0), sampler=unit_gaussian)
        return dpaudit.audit(mechanism, pair=(0.0, 1.0), samples=n, seed=args.seed, confidence=CONFIDENCE,
                             executor="in-process")

    result = audit(GaussianDP(1.0))
    curve = result.curve
    print(f"Gaussian sigma = 1, Delta = 1: N = {n} per side, seed {args.seed}; {curve.method}")
    print(f"{'delta':>8} {'exact':>7} {'limit':>7} {'curve':>7} {'curve/limit':>12} {'curve/exact':>12}  event")
    rows = []
    for delta in DELTAS:
        exact, limit, found = gdp_epsilon(1.0, delta), event_limit(delta, n), curve.epsilon_lower_bound(delta)
        event = curve.worst_event(delta)
        rows.append({"delta": delta, "exact": exact, "limit": limit, "curve": found, "ratio_limit": found / limit,
                     "ratio_exact": found / exact, "event": event.event if event else None})
        print(f"{delta:>8g} {exact:>7.4f} {limit:>7.4f} {found:>7.4f} {found / limit:>12.3f} {found / exact:>12.3f}  "
              f"{rows[-1]['event']}")
    print(f"mu  >= {curve.mu_lower_bound:.4f} (true 1; ratio {curve.mu_lower_bound:.3f}) at {curve.confidence:g}; "
          f">= {curve.verdict_mu_lower_bound:.4f} at {curve.verdict_confidence:g}")
    print(f"rho >= {curve.rho_lower_bound:.4f} (true 0.5) at {curve.confidence:g}; "
          f">= {curve.verdict_rho_lower_bound:.4f} at {curve.verdict_confidence:g}")
    verdicts = []
    for claim, expected in ((GaussianDP(1.0), "pass"), (GaussianDP(0.8), "violation"), (ZeroConcentratedDP(0.5), "pass"),
                            (ZeroConcentratedDP(0.3), "violation")):
        found = result if claim == GaussianDP(1.0) else audit(claim)
        verdicts.append({"claim": str(claim), "verdict": found.verdict.value, "expected": expected, "reason": found.reason})
        print(f"{str(claim):<12} {found.verdict.value:<10} (expected {expected}): {found.reason[:150]}")
    write_results(RESULTS, seed=args.seed, confidence=CONFIDENCE, started=started, samples=n, rows=rows,
                  mu_lower_bound=curve.mu_lower_bound, rho_lower_bound=curve.rho_lower_bound, verdicts=verdicts,
                  method=curve.method)


if __name__ == "__main__":
    main()
