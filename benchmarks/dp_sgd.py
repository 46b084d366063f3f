"""DP-SGD: audited lower bounds against the accountants and the exact privacy loss distribution.

Four parts, each a table:

1. The correct DP-SGD (``dp-sgd``, white-box gradient canary, delta = 1e-5) for T in {1, 10, 100},
   q in {1, 0.01}, sigma in {0.5, 1, 2}: its claim (exact where a closed form exists, else the PLD
   accountant), the RDP accountant's epsilon, the exact bracket of
   :func:`dpaudit.proofs.divergences.privacy_loss.exact_epsilon` (grid 1e-3), the many-run audit's lower bound
   at 0.95 and its ratio to the claim; no correct configuration may be flagged.  ``--samples`` per
   side at T = 1, q = 1 (where the audit can be tight; goal ratio >= 0.8), ``--grid-samples``
   elsewhere.
2. The flawed twins (``dpaudit catalog --flawed``, family dp-sgd) at ``--flawed-samples`` per side:
   claim, true epsilon, bound at the verdict's 0.999, verdict, seconds.
3. Accountants checked against the exact bracket: dp_accounting's PLD and RDP, and two
   under-reporting ones (the wrong sampling rate q / 2; epochs composed instead of steps).
4. The one-run audit (Steinke, Nasr & Jagielski 2023; black-box, m Dirac canaries, m / 10 guesses,
   confidence 0.95) beside the many-run audit of the same black-box model (``threat="black-box"``)
   and the theory, with the number of training runs each cost.
5. Per step and end to end: the audited bound after t = 1, 2, 4, 8, 16 steps (sigma = 2, q = 1) beside
   the claim epsilon(t) and the RDP accountant's, on one plot (``benchmarks/results/dp_sgd_steps.png``).

Run: ``python benchmarks/dp_sgd.py [--samples 10000000] [--grid-samples 100000] [--seed 1]``
(``--quick``: 10^6 and 2 x 10^4).  Writes ``benchmarks/results/dp_sgd.json``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

import dpaudit
from dpaudit.auditor import search_budget
from dpaudit.auditor.one_run import one_run_audit
from dpaudit.mechanisms.catalogue.dp_sgd import TrainingConfig, accountant_epsilon, dp_sgd, train
from dpaudit.proofs.divergences.privacy_loss import check_accountant, exact_epsilon

sys.path.insert(0, str(Path(__file__).parent))
from tightness import write_results

RESULTS = Path(__file__).parent / "results" / "dp_sgd.json"
DELTA = 1e-5
CONFIDENCE = 0.95
FLAWED = ["dp-sgd-fixed-batch", "dp-sgd-clip-after-sum", "dp-sgd-noise-batch-mean", "dp-sgd-last-step-no-multiplier"]


def correct_grid(args) -> list[dict]:
    print(f"Part 1: correct DP-SGD, white-box canary, delta={DELTA:g}, bound at {CONFIDENCE}, seed {args.seed}")
    print(f"{'T':>4} {'q':>5} {'sigma':>5} {'claim':>8} {'RDP':>8} {'exact [low, high]':>20} {'N':>9} {'bound':>7} {'ratio':>6} verdict  s")
    rows = []
    for steps in (1, 10, 100):
        for q in (1.0, 0.01):
            for sigma in (0.5, 1.0, 2.0):
                mechanism = dp_sgd(sigma=sigma, q=q, steps=steps, delta=DELTA)
                exact = exact_epsilon(sigma, q, steps, DELTA)
                rdp = accountant_epsilon(sigma, q, steps, DELTA, "rdp")
                samples = args.samples if (steps, q) == (1, 1.0) else args.grid_samples
                started = time.perf_counter()
                result = dpaudit.audit(mechanism, samples=samples, seed=args.seed, confidence=CONFIDENCE)
                seconds = time.perf_counter() - started
                claim = mechanism.claim.epsilon
                row = {"steps": steps, "q": q, "sigma": sigma, "claim": claim, "rdp": rdp, "exact_low": exact.low,
                       "exact_high": exact.high, "samples": samples, "bound": result.epsilon_lower_bound,
                       "ratio": result.epsilon_lower_bound / claim, "verdict": result.verdict.value,
                       "event": result.event, "seconds": seconds}
                rows.append(row)
                print(f"{steps:>4} {q:>5g} {sigma:>5g} {claim:>8.4f} {rdp:>8.4f} [{exact.low:>8.4f}, {exact.high:>8.4f}] "
                      f"{samples:>9.0e} {row['bound']:>7.4f} {row['ratio']:>6.3f} {row['verdict']:<8} {seconds:.0f}", flush=True)
    flagged = [r for r in rows if r["verdict"] == "violation"]
    print(f"correct configurations flagged: {len(flagged)} of {len(rows)}")
    return rows


def flawed_twins(args) -> list[dict]:
    print(f"\nPart 2: flawed twins at {args.flawed_samples} samples per side (verdict at 0.999)")
    rows = []
    for name in FLAWED:
        mechanism = dpaudit.get(name)
        started = time.perf_counter()
        result = dpaudit.audit(mechanism, samples=args.flawed_samples, seed=args.seed)
        seconds = time.perf_counter() - started
        row = {"name": name, "claim": mechanism.claim.epsilon, "true_epsilon": mechanism.true_epsilon,
               "bound": result.verdict_epsilon_lower_bound, "verdict": result.verdict.value, "event": result.event,
               "seconds": seconds, "flaw": mechanism.flaw}
        rows.append(row)
        print(f"{name:<32} claim {row['claim']:.4f} true {row['true_epsilon']:.4f} bound {row['bound']:.4f} "
              f"{row['verdict']:<9} {seconds:5.1f} s  event: {row['event']}", flush=True)
    return rows


def accountants() -> list[dict]:
    print("\nPart 3: accountants against the exact privacy loss distribution (grid 1e-3)")

    def pld(s, q, t, d):
        return accountant_epsilon(s, q, t, d)

    def rdp(s, q, t, d):
        return accountant_epsilon(s, q, t, d, "rdp")

    def wrong_q(s, q, t, d):
        return accountant_epsilon(s, q / 2, t, d)

    def epochs(s, q, t, d):
        return accountant_epsilon(s, q, max(1, round(t * q)), d, "rdp")

    rows = []
    for label, accountant in (("dp_accounting PLD", pld), ("dp_accounting RDP", rdp),
                              ("PLD at q / 2", wrong_q), ("RDP over epochs, not steps", epochs)):
        for sigma, q, steps in ((1.0, 0.01, 100), (0.8, 0.1, 20), (2.0, 1.0, 10)):
            check = check_accountant(accountant, sigma, q, steps, DELTA)
            rows.append({"accountant": label, **check.as_dict()})
            print(f"{label:<27} sigma={sigma:<4g} q={q:<5g} T={steps:<4} {check.verdict:<14} {check.reason}")
    return rows


def one_run_vs_many(args) -> list[dict]:
    print(f"\nPart 4: one-run audit ({args.canaries} canaries, {args.canaries // 10} guesses) vs many-run, black-box, T=1, q=1")
    rows = []
    m = args.canaries
    canaries = [tuple(np.eye(m)[k] * 4.0) + (1.0,) for k in range(m)]
    for sigma in (0.5, 1.0, 2.0):
        config = TrainingConfig(noise_multipliers=(sigma,), threat="black-box", canary=canaries[0])
        one = one_run_audit(lambda d, rng, config=config: train(config, d, 1, rng)[0], canaries,
                            lambda w, c: float(w @ np.asarray(c[:-1])), guesses=m // 10, delta=DELTA,
                            confidence=CONFIDENCE, seed=args.seed)
        mechanism = dp_sgd(sigma=sigma, threat="black-box")
        many = dpaudit.audit(mechanism, samples=args.grid_samples, seed=args.seed, confidence=CONFIDENCE)
        runs = 2 * (args.grid_samples + search_budget(args.grid_samples))
        row = {"sigma": sigma, "theory": mechanism.claim.epsilon, "one_run": one.epsilon_lower_bound, "one_run_runs": 1,
               "correct": one.correct, "guesses": one.guesses, "many_run": many.epsilon_lower_bound, "many_run_runs": runs}
        rows.append(row)
        print(f"sigma={sigma:<4g} theory {row['theory']:.4f}  one-run {row['one_run']:.4f} ({one.correct}/{one.guesses} "
              f"correct, 1 run)  many-run {row['many_run']:.4f} (at most {runs} runs)")
    return rows


def per_step(args) -> list[dict]:
    print(f"\nPart 5: per step and end to end, sigma=2, q=1, {args.grid_samples} samples per side")
    rows = []
    for steps in (1, 2, 4, 8, 16):
        mechanism = dp_sgd(sigma=2.0, steps=steps)
        result = dpaudit.audit(mechanism, samples=args.grid_samples, seed=args.seed, confidence=CONFIDENCE)
        row = {"steps": steps, "claim": mechanism.claim.epsilon, "rdp": accountant_epsilon(2.0, 1.0, steps, DELTA, "rdp"),
               "bound": result.epsilon_lower_bound, "verdict": result.verdict.value}
        rows.append(row)
        print(f"T={steps:<3} claim {row['claim']:.4f}  RDP {row['rdp']:.4f}  bound {row['bound']:.4f}  {row['verdict']}")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(6, 4))
    steps = [r["steps"] for r in rows]
    axes.plot(steps, [r["claim"] for r in rows], "o-", label="claim (exact Gaussian composition = PLD)")
    axes.plot(steps, [r["rdp"] for r in rows], "s--", label="RDP accountant")
    axes.plot(steps, [r["bound"] for r in rows], "^-", label=f"audited lower bound ({CONFIDENCE})")
    axes.set_xscale("log", base=2)
    axes.set_xlabel("steps T")
    axes.set_ylabel(f"epsilon at delta = {DELTA:g}")
    axes.set_title("DP-SGD, sigma = 2, q = 1: per step and end to end")
    axes.legend()
    figure.tight_layout()
    figure.savefig(RESULTS.with_name("dp_sgd_steps.png"), dpi=100)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=10**7)
    parser.add_argument("--grid-samples", type=int, default=10**5)
    parser.add_argument("--flawed-samples", type=int, default=10**5)
    parser.add_argument("--canaries", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.samples, args.grid_samples = 10**6, 2 * 10**4
    started = time.perf_counter()
    payload = {"correct": correct_grid(args), "flawed": flawed_twins(args), "accountants": accountants(),
               "one_run": one_run_vs_many(args), "per_step": per_step(args)}
    write_results(RESULTS, seed=args.seed, confidence=CONFIDENCE, started=started, **payload)


if __name__ == "__main__":
    main()
