"""Validity of the default verdict: how often is a mechanism that keeps its claim exactly reported as a violation?

Audits tight, correct catalogue mechanisms -- Laplace and the geometric mechanism on a count,
k-ary and binary randomized response, report noisy max (index) over 5 and 2 answers -- each on its
recommended pair (where the claim is attained by an event: a threshold for Laplace / geometric, an
atom for randomized response), ``--seeds`` seeds each at ``--samples`` per side, in process, with
the DEFAULT verdict settings of :func:`dpaudit.audit` (estimate at 0.95, verdict at 0.999).  It
prints, per mechanism and pooled, the number of violations with the exact Clopper-Pearson interval
of the false-alarm rate, and beside it how often the 0.95 estimate lay above the claim: exactly the
audits that ``verdict_confidence=0.95`` would have flagged (an estimate above the claim after the
planned looks is a violation at that level; one below it makes no extension looks).  Audits whose
estimate lay above the claim extend to at most 4x the samples before their verdict.

The criterion.  The auditor guarantees a rate <= 1 - verdict_confidence = 1e-3 per audit.  N audits
cannot certify a rate below the upper end of the Clopper-Pearson interval at 0 violations,
u(0, N) = 1 - (alpha/2)^(1/N) ~ ln(2/alpha) / N (3.69 / N for the two-sided 95 % interval; 1.23e-3
at N = 3 000): that resolution is the slack.  The run passes when the pooled interval's upper end
is <= 1e-3 + u(0, N).  A valid auditor whose rate were exactly 1e-3 would still fail this now and
then (its flag count is Bin(N, 1e-3)); the printed figure is the evidence, the criterion a summary.

Run: ``python benchmarks/validity.py [--seeds 500] [--samples 5000] [--names laplace geometric ...]``
(6 mechanisms x 500 seeds = 3 000 audits: 35 s on one core at 5 000 samples).
"""

from __future__ import annotations

import argparse
import math
import time

from statsmodels.stats.proportion import proportion_confint

import dpaudit
from dpaudit.auditor import DEFAULT_CONFIDENCE, DEFAULT_VERDICT_CONFIDENCE

DEFAULT_NAMES = ("laplace", "geometric", "k-rr", "rr", "report-noisy-max", "report-noisy-max-2")
INTERVAL = 0.95  # two-sided level of the printed Clopper-Pearson intervals


def clopper_pearson(flags: int, n: int) -> tuple[float, float]:
    """Exact two-sided Clopper-Pearson interval at ``INTERVAL`` (statsmodels ``method="beta"``)."""
    low, high = proportion_confint(flags, n, alpha=1 - INTERVAL, method="beta")
    return float(low), float(high)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=500, help="audits per mechanism (seeds 0 .. seeds-1)")
    parser.add_argument("--samples", type=int, default=5_000, help="verification samples per side")
    parser.add_argument("--names", nargs="*", default=list(DEFAULT_NAMES))
    args = parser.parse_args()
    target_rate = 1 - DEFAULT_VERDICT_CONFIDENCE
    print(f"{args.seeds} seeds x {args.samples} samples per side per mechanism; default verdict settings: estimate at "
          f"{DEFAULT_CONFIDENCE}, verdict at {DEFAULT_VERDICT_CONFIDENCE} (guaranteed false-alarm rate <= {target_rate:g})")
    print(f"{'mechanism':<20} {'claim':<12} {'violations':>10} {'rate':>9} {f'{INTERVAL:.0%} CP interval':>22} "
          f"{'est > claim':>11} {'verdict bound':>13} {'s/audit':>8}")
    total_flags = total_above = total = 0
    started = time.perf_counter()
    for name in args.names:
        mechanism = dpaudit.get(name)
        pair = mechanism.pairs[0]
        start = time.perf_counter()
        flags = above = 0
        bound_sum = 0.0
        for seed in range(args.seeds):
            result = dpaudit.audit(mechanism, pair=pair, samples=args.samples, seed=seed, executor="in-process")
            flags += result.violation
            above += result.epsilon_lower_bound > mechanism.claim.epsilon
            bound_sum += result.verdict_epsilon_lower_bound
        low, high = clopper_pearson(flags, args.seeds)
        total_flags, total_above, total = total_flags + flags, total_above + above, total + args.seeds
        print(f"{name:<20} {str(mechanism.claim):<12} {flags:>10} {flags / args.seeds:>9.2e} "
              f"[{low:.2e}, {high:.2e}] {above:>11} {bound_sum / args.seeds:>13.4f} "
              f"{(time.perf_counter() - start) / args.seeds:>8.3f}")
    low, high = clopper_pearson(total_flags, total)
    resolution = 1 - ((1 - INTERVAL) / 2) ** (1 / total)  # u(0, N): the CP upper end at 0 of N
    above_low, above_high = clopper_pearson(total_above, total)
    print(f"pooled: {total_flags} violations in {total} audits, rate {total_flags / total:.2e}, "
          f"{INTERVAL:.0%} Clopper-Pearson interval [{low:.2e}, {high:.2e}]")
    print(f"slack u(0, {total}) = 1 - ({(1 - INTERVAL) / 2:g})^(1/{total}) = {resolution:.2e} (~ ln(2/{1 - INTERVAL:g}) / N "
          f"= {math.log(2 / (1 - INTERVAL)) / total:.2e}); criterion: upper end {high:.2e} <= {target_rate:g} + "
          f"{resolution:.2e} = {target_rate + resolution:.2e}: {'PASS' if high <= target_rate + resolution else 'FAIL'}")
    print(f"for comparison, a verdict at the estimate's {DEFAULT_CONFIDENCE}: {total_above} of {total} flagged, rate "
          f"{total_above / total:.3f}, interval [{above_low:.3f}, {above_high:.3f}]")
    print(f"total time {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
