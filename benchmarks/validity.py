"""Validity: how often does the auditor flag a mechanism that keeps its claim exactly?

For each correct catalogue mechanism (Laplace, geometric, randomized response, Gaussian at its
(epsilon, delta), report noisy max) audit ``--seeds`` independent seeds (default 200) at
``--samples`` per side with the entry's recommended pair, count the violations, and print the measured
false-flag rate with its exact 95 % Clopper-Pearson interval.  A valid auditor at confidence 0.95
flags at most alpha = 0.05 of the runs: the number of flags is stochastically at most
Bin(seeds, 0.05), whose 1 - 1e-3 quantile is printed as the allowance.

Run: ``python benchmarks/validity.py [--seeds 200] [--samples 20000] [--names laplace geometric ...]``
"""

from __future__ import annotations

import argparse
import time

from scipy.stats import binom
from statsmodels.stats.proportion import proportion_confint

import dpaudit

DEFAULT_NAMES = ("laplace", "geometric", "rr", "k-rr", "gaussian", "gaussian-analytic", "report-noisy-max")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--samples", type=int, default=20_000)
    parser.add_argument("--confidence", type=float, default=0.95)
    parser.add_argument("--names", nargs="*", default=[n for n in DEFAULT_NAMES if n in dpaudit.names()])
    args = parser.parse_args()
    alpha = 1 - args.confidence
    allowed = int(binom.isf(1e-3, args.seeds, alpha))
    print(f"{args.seeds} seeds x {args.samples} samples per side, confidence {args.confidence}; "
          f"allowance (Bin({args.seeds}, {alpha:g}) 1-1e-3 quantile) = {allowed} flags")
    print(f"{'mechanism':<22} {'claim':<16} {'flags':>5} {'rate':>7} {'95% CI':>17} {'mean bound':>11} {'ok':>4} {'time':>7}")
    for name in args.names:
        mechanism = dpaudit.get(name)
        pair = mechanism.pairs[0] if mechanism.pairs else None
        start = time.perf_counter()
        results = [dpaudit.audit(mechanism, pair=pair, samples=args.samples, seed=s, confidence=args.confidence)
                   for s in range(args.seeds)]
        flags = sum(r.violation for r in results)
        low, high = proportion_confint(flags, args.seeds, alpha=0.05, method="beta")
        mean = sum(r.epsilon_lower_bound for r in results) / len(results)
        print(f"{name:<22} {str(mechanism.claim):<16} {flags:>5} {flags / args.seeds:>7.3f} "
              f"[{low:.3f}, {high:.3f}]{'':>2} {mean:>11.4f} {'yes' if flags <= allowed else 'NO':>4} "
              f"{time.perf_counter() - start:>6.1f}s")


if __name__ == "__main__":
    main()
