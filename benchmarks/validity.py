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
resolve a rate only so far: a procedure whose rate were *exactly* the nominal p0 flags Bin(N, p0)
audits, at most q = the 0.999 quantile of Bin(N, p0) of them except with probability 1e-3, and
its Clopper-Pearson upper end then lies at u(q, N).  That width is the resolution of N audits,
r(N) = u(q, N) - p0, and the run passes when the pooled interval's upper end is <= p0 + r(N): an
auditor valid at the nominal level passes with probability >= 0.999, and a rate above p0 fails
once N resolves it.  (u(0, N) = 1 - (alpha/2)^(1/N), the upper end at no flag, is the smallest rate
N audits can certify: 1.23e-3 at N = 3 000.)

Run: ``python benchmarks/validity.py [--seeds 500] [--samples 5000] [--names laplace geometric ...]``
(6 mechanisms x 500 seeds = 3 000 audits: 35 s on one core at 5 000 samples).

**Coverage at scale** (``--scale``).  The same question at 10^5, 10^6 and 10^7 samples per side, on
the tight mechanisms whose claim is attained by one event (``laplace`` and ``geometric``: a threshold
at the claim; ``k-rr``: an atom), with early stopping on and off: >= 400 seeds per cell at 10^5 and
10^6, >= 100 at 10^7 (``--scale-seeds``).  Each cell prints two rates with their exact two-sided 95 %
Clopper-Pearson intervals:

* the **miscoverage of the 0.95 estimate**: how often the reported bound lies above the mechanism's
  true epsilon (nominal 1 - confidence = 0.05);
* the **false-alarm rate of the verdict**: how often the default verdict says ``violation`` (nominal
  1 - verdict_confidence = 1e-3).

A cell is within its nominal level when the upper end of its interval is <= the nominal rate plus the
resolution r(n) of its number of seeds n, as for the pooled criterion above (a procedure exactly at
the nominal level is within with probability >= 0.999 per cell).  Each audit's
outcome is appended to ``--cache`` (JSON lines), so an interrupted run resumes where it stopped;
``--jobs`` audits run in parallel processes.  A fixed seed's result is one draw of the audit: the
guarantee is over seeds, and these rates are its measure.

Run: ``python benchmarks/validity.py --scale [--jobs 2] [--scale-seeds 400 400 100] [--names laplace]
[--report-only]`` (``--report-only`` prints the cells the cache completes and runs nothing).
"""

from __future__ import annotations

import argparse
import json
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from scipy.stats import binom
from statsmodels.stats.proportion import proportion_confint

import dpaudit
from dpaudit.auditor import DEFAULT_CONFIDENCE, DEFAULT_VERDICT_CONFIDENCE

DEFAULT_NAMES = ("laplace", "geometric", "k-rr", "rr", "report-noisy-max", "report-noisy-max-2")
SCALE_NAMES = ("laplace", "geometric", "k-rr")
SCALE_SIZES = (10**5, 10**6, 10**7)
SCALE_CACHE = Path(__file__).parent / "results" / "validity_scale.jsonl"
INTERVAL = 0.95  # two-sided level of the printed Clopper-Pearson intervals
CRITERION_QUANTILE = 0.999  # a procedure exactly at its nominal rate meets the criterion with this probability


def clopper_pearson(flags: int, n: int) -> tuple[float, float]:
    """Exact two-sided Clopper-Pearson interval at ``INTERVAL`` (statsmodels ``method="beta"``)."""
    low, high = proportion_confint(flags, n, alpha=1 - INTERVAL, method="beta")
    return float(low), float(high)


def resolution(nominal: float, n: int) -> float:
    """r(n) = u(q, n) - nominal, q the 0.999 quantile of Bin(n, nominal): how far above a rate of
    exactly ``nominal`` the Clopper-Pearson upper end of n trials may lie (module docstring)."""
    return clopper_pearson(int(binom.ppf(CRITERION_QUANTILE, n, nominal)), n)[1] - nominal


def one_scaled_audit(task: tuple[str, int, bool, int]) -> dict:
    """One default audit of a tight entry on its recommended pair: was it flagged, and did its 0.95
    estimate cover the true epsilon?"""
    name, samples, early_stopping, seed = task
    mechanism = dpaudit.get(name)
    start = time.perf_counter()
    result = dpaudit.audit(mechanism, pair=mechanism.pairs[0], samples=samples, seed=seed,
                           early_stopping=early_stopping, executor="in-process")
    return {"name": name, "samples": samples, "early_stopping": early_stopping, "seed": seed,
            "violation": bool(result.violation),
            "above_truth": bool(result.epsilon_lower_bound > mechanism.true_epsilon),
            "bound": result.epsilon_lower_bound, "verdict_bound": result.verdict_epsilon_lower_bound,
            "seconds": time.perf_counter() - start}


def coverage_at_scale(names: list[str], seeds: list[int], jobs: int, cache: Path, run: bool = True) -> None:
    """Run (or resume from ``cache``) every cell of the scale table and print it (module docstring);
    with ``run`` False, print the cells the cache completes and run nothing."""
    done: dict[tuple, dict] = {}
    if cache.exists():
        for line in cache.read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                done[(row["name"], row["samples"], row["early_stopping"], row["seed"])] = row
    tasks = [(name, n, stopping, seed) for n, count in zip(SCALE_SIZES, seeds) for stopping in (True, False)
             for name in names for seed in range(count)]
    todo = [task for task in tasks if task not in done] if run else []
    print(f"coverage at scale: {len(tasks)} audits, {len(tasks) - len(todo)} read back from {cache}, "
          f"{len(todo)} to run on {jobs} processes", flush=True)
    cache.parent.mkdir(exist_ok=True)
    started = time.perf_counter()
    with cache.open("a") as out, ProcessPoolExecutor(max_workers=jobs) as pool:
        for row in pool.map(one_scaled_audit, todo, chunksize=1):
            done[(row["name"], row["samples"], row["early_stopping"], row["seed"])] = row
            out.write(json.dumps(row) + "\n")
            out.flush()
    estimate_nominal, verdict_nominal = 1 - DEFAULT_CONFIDENCE, 1 - DEFAULT_VERDICT_CONFIDENCE
    print(f"ran in {time.perf_counter() - started:.0f} s; nominal: estimate miscoverage {estimate_nominal:g}, "
          f"verdict false alarms {verdict_nominal:g}; intervals: two-sided {INTERVAL:.0%} Clopper-Pearson; "
          f"within = upper end <= nominal + r(n)")
    print("| mechanism | N per side | early stopping | seeds | est > true eps | rate [95 % CP] | within | "
          "violations | rate [95 % CP] | within | mean s/audit |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    every = True
    for n, count in zip(SCALE_SIZES, seeds):
        for stopping in (True, False):
            for name in names if count else ():
                rows = [done[key] for key in ((name, n, stopping, seed) for seed in range(count)) if key in done]
                if len(rows) < count:
                    print(f"| {name} | {n:.0e} | {'on' if stopping else 'off'} | {count} | not run: {len(rows)} of "
                          f"{count} seeds in {cache.name} | | | | | | |")
                    every = False
                    continue
                above = sum(r["above_truth"] for r in rows)
                flags = sum(r["violation"] for r in rows)
                cells = []
                for hits, nominal in ((above, estimate_nominal), (flags, verdict_nominal)):
                    low, high = clopper_pearson(hits, count)
                    within = high <= nominal + resolution(nominal, count)
                    every &= within
                    cells.append(f"{hits} | {hits / count:.4f} [{low:.4f}, {high:.4f}] | "
                                 f"{'yes' if within else 'NO'} (<= {nominal + resolution(nominal, count):.4f})")
                seconds = sum(r["seconds"] for r in rows) / count
                print(f"| {name} | {n:.0e} | {'on' if stopping else 'off'} | {count} | {cells[0]} | {cells[1]} | "
                      f"{seconds:.2f} |")
    print(f"every cell within its nominal level: {'yes' if every else 'NO'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=500, help="audits per mechanism (seeds 0 .. seeds-1)")
    parser.add_argument("--samples", type=int, default=5_000, help="verification samples per side")
    parser.add_argument("--names", nargs="*", default=None,
                        help=f"entries (default {' '.join(DEFAULT_NAMES)}; with --scale {' '.join(SCALE_NAMES)})")
    parser.add_argument("--scale", action="store_true", help="coverage at 10^5, 10^6 and 10^7 per side instead")
    parser.add_argument("--scale-seeds", type=int, nargs=3, default=[400, 400, 100], metavar=("S5", "S6", "S7"),
                        help="seeds per cell at 10^5, 10^6, 10^7 (default 400 400 100)")
    parser.add_argument("--jobs", type=int, default=1, help="parallel processes for --scale")
    parser.add_argument("--cache", type=Path, default=SCALE_CACHE, help="--scale results, one audit per line")
    parser.add_argument("--report-only", action="store_true", help="with --scale: print what --cache holds, run nothing")
    args = parser.parse_args()
    if args.scale:
        coverage_at_scale(args.names or list(SCALE_NAMES), args.scale_seeds, args.jobs, args.cache,
                          run=not args.report_only)
        return
    args.names = args.names or list(DEFAULT_NAMES)
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
    slack = resolution(target_rate, total)
    above_low, above_high = clopper_pearson(total_above, total)
    print(f"pooled: {total_flags} violations in {total} audits, rate {total_flags / total:.2e}, "
          f"{INTERVAL:.0%} Clopper-Pearson interval [{low:.2e}, {high:.2e}]")
    print(f"resolution r({total}) = u(q, {total}) - {target_rate:g} = {slack:.2e}, q = "
          f"{int(binom.ppf(CRITERION_QUANTILE, total, target_rate))} the {CRITERION_QUANTILE} quantile of "
          f"Bin({total}, {target_rate:g}); criterion: upper end {high:.2e} <= {target_rate:g} + {slack:.2e} = "
          f"{target_rate + slack:.2e}: {'PASS' if high <= target_rate + slack else 'FAIL'}")
    print(f"for comparison, a verdict at the estimate's {DEFAULT_CONFIDENCE}: {total_above} of {total} flagged, rate "
          f"{total_above / total:.3f}, interval [{above_low:.3f}, {above_high:.3f}]")
    print(f"total time {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
