"""Scale-out and long audits: process-pool speed-up, budget saved by early stopping, coverage under it.

Three measurements:

1. **Speed-up** of the local process pool over in-process sampling for a one-run callable mechanism
   (``one_run_laplace`` below: a Python function called once per sample, ~2 us each, released on a
   2^-16 grid), shipped to the workers by its ``module:attr`` spec.  Same seed, same result (checked);
   goal >= 1.8x on 2 cores.
2. **Early stopping on the flawed catalogue**: for every flawed entry, on its recommended pair at the
   default budget, the look at which the violation was certified (``decided_at``) and the fraction
   of the verification budget actually drawn.  Goal: blatant violations decided within 10 % of the
   budget.  (Support mismatches keep sampling after the decision, because their bound is the
   sample-size cap; the table shows both numbers.)
3. **Coverage under early stopping**: the false-alarm rate over ``--seeds`` seeds (default 200) of
   correct catalogue mechanisms audited with early stopping on, against alpha = 1 - confidence, with
   its exact 95 % Clopper-Pearson interval.

Run: ``python -m benchmarks.scale_out [--samples 400000] [--seeds 200] [--coverage-samples 20000]``
"""

from __future__ import annotations

import argparse
import os
import time
from dataclasses import replace

import dpaudit
from dpaudit.auditor import DEFAULT_SAMPLES, audit

TARGET = "benchmarks.scale_out:one_run_laplace"


def one_run_laplace(q, rng):
    """One run of a Laplace(1) mechanism on a query value, released on a 2^-16 grid (no float-lattice leak)."""
    return round((q + rng.laplace(0.0, 1.0)) * 65536.0) / 65536.0


def _burn(n: int) -> int:
    total = 0
    for i in range(n):
        total += i * i
    return total


def machine_parallelism(workers: int) -> float:
    """Speed-up of a bare ProcessPoolExecutor on pure-Python work: what the machine gives right now."""
    import concurrent.futures
    import multiprocessing

    start = time.perf_counter()
    for _ in range(workers):
        _burn(5_000_000)
    serial = time.perf_counter() - start
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(workers, mp_context=context) as pool:
        list(pool.map(_burn, [10] * workers))
        start = time.perf_counter()
        list(pool.map(_burn, [5_000_000] * workers))
        parallel = time.perf_counter() - start
    return serial / parallel


def speed_up(samples: int) -> None:
    kwargs = dict(epsilon=1.0, pair=(0.0, 1.0), samples=samples, seed=7, early_stopping=False)
    start = time.perf_counter()
    local = audit(TARGET, executor="in-process", **kwargs)
    in_process = time.perf_counter() - start
    start = time.perf_counter()
    pooled = audit(TARGET, executor="process-pool", workers=os.cpu_count(), **kwargs)
    pool = time.perf_counter() - start
    same = replace(local, elapsed_s=0.0, mechanism_s=0.0, run={}) == replace(pooled, elapsed_s=0.0, mechanism_s=0.0, run={})
    total = 2 * (local.search_samples + samples)
    print(f"1. one-run callable, {total:,} draws in all, {os.cpu_count()} cores; a bare process pool on pure-Python "
          f"work gets {machine_parallelism(os.cpu_count() or 1):.2f}x on this machine right now")
    print(f"   in-process {in_process:6.2f} s   process pool {pool:6.2f} s   speed-up {in_process / pool:4.2f}x "
          f"(goal >= 1.8)   same result: {same}")


def early_stopping(samples: int) -> None:
    print(f"2. early stopping on the flawed catalogue, {samples:,} verification samples per side, recommended pair")
    print(f"   {'mechanism':<32} {'verdict':<10} {'bound':>7} {'decided at':>11} {'used':>6} {'reason'}")
    decided_fractions = []
    for mechanism in dpaudit.catalogue():
        if not mechanism.flawed:
            continue
        pair = mechanism.pairs[0] if mechanism.pairs else None
        result = audit(mechanism, pair=pair, samples=samples, seed=1)
        stop = result.stopping
        decided = stop["decided_at"]
        fraction = stop["looks"][decided - 1] / samples if decided else None
        if decided:
            decided_fractions.append(fraction)
        shown = f"{fraction:.4f}" if fraction is not None else "-"
        print(f"   {mechanism.name:<32} {result.verdict.value:<10} {result.epsilon_lower_bound:7.3f} {shown:>11} "
              f"{stop['fraction_used']:6.3f} {stop['reason'][:40]}")
    within = sum(f <= 0.1 for f in decided_fractions)
    print(f"   violations decided within 10 % of the budget: {within} of {len(decided_fractions)}")


def coverage(seeds: int, samples: int) -> None:
    from scipy.stats import binom
    from statsmodels.stats.proportion import proportion_confint

    allowed = int(binom.isf(1e-3, seeds, 0.05))
    print(f"3. coverage under early stopping: {seeds} seeds x {samples:,} samples per side, confidence 0.95; "
          f"allowance (Bin({seeds}, 0.05) 1-1e-3 quantile) = {allowed}")
    for name in ("laplace", "geometric", "rr", "gaussian"):
        mechanism = dpaudit.get(name)
        start = time.perf_counter()
        results = [audit(mechanism, pair=mechanism.pairs[0], samples=samples, seed=s, executor="in-process")
                   for s in range(seeds)]
        flags = sum(r.violation for r in results)
        low, high = proportion_confint(flags, seeds, alpha=0.05, method="beta")
        used = sum(r.stopping.fraction_used for r in results) / seeds
        print(f"   {name:<12} flags {flags:>3} rate {flags / seeds:.3f} [{low:.3f}, {high:.3f}]  "
              f"{'ok' if flags <= allowed else 'NO':>3}  mean budget used {used:.2f}  {time.perf_counter() - start:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=400_000, help="budget of the speed-up run")
    parser.add_argument("--stopping-samples", type=int, default=DEFAULT_SAMPLES)
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--coverage-samples", type=int, default=20_000)
    parser.add_argument("--skip", nargs="*", default=[], choices=["speed", "stopping", "coverage"])
    args = parser.parse_args()
    if "speed" not in args.skip:
        speed_up(args.samples)
    if "stopping" not in args.skip:
        early_stopping(args.stopping_samples)
    if "coverage" not in args.skip:
        coverage(args.seeds, args.coverage_samples)


if __name__ == "__main__":
    main()
