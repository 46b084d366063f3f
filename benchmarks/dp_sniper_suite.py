"""DP-Sniper's benchmark suite at epsilon = 0.1: dpaudit's bound against DP-Sniper's published one.

The mechanisms are re-implemented from DP-Sniper's artefact (Bichsel, Steffen, Bogunovic & Vechev,
"DP-Sniper: Black-Box Discovery of Differential Privacy Violations using Classifiers", IEEE S&P 2021;
``dpsniper/mechanisms/*.py``, parameters of ``dpsniper/experiments/exp_default.py``): same noise
(numpy doubles), same output encodings (sparse vector: 1 above, 0 below, -1 aborted; Alg. 3: the
noisy value, -1000.0 below, -2000.0 aborted), same parameters (SVT1: c = 1, T = 0.5; SVT2-6: c = 1,
T = 1; SVT34Parallel and NumericalSVT: c = 2, T = 1; LaplaceParallel: 20 copies at eps = 0.005).
Each is audited on the input pair DP-Sniper's logistic-regression run reported as its best
(``eval_sp2021/reference-results/dd_search_reg_data.log``), against that run's published lower
bound (``eps_lcb``: confidence 0.90, 10^7 training and 2 x 10^8 verification samples per side).

dpaudit's audit: the pair given, ``checks=None`` (the float-lattice checks off, so only the
algorithm is measured, not the doubles), ``early_stopping=False`` (the whole budget spent: the bound's
size, not only the verdict), confidence 0.90 as DP-Sniper, N verification samples per side plus the
search stage's N/2 (at most 5 x 10^5).  Every row is run twice: without the learned family
(``learned=False``: thresholds, atoms, patterns, first-answer conjunctions, Fisher's direction) and
with it (:mod:`dpaudit.auditor.events.learned`).  The ratio is dpaudit's bound / DP-Sniper's figure.

DP-Sniper's figure was certified on 2 x 10^8 verification samples per side; "DPS@N" is what its own
event certifies at dpaudit's N per side (the median outcome: its published probabilities p1, p2 as
counts round(N p), its Clopper-Pearson union bound at 0.90), the comparison at equal verification
samples; "on/@N" is dpaudit's bound (learned family on) over it.

"private" says whether the mechanism keeps its claim of 0.1 (then a bound above 0.1 would be a false
alarm, and DP-Sniper's figure is a lower bound on a correct mechanism, not a violation).

Run: ``python benchmarks/dp_sniper_suite.py [--samples 1000000] [--only SVT3,SVT4] [--seed 1]``
(writes benchmarks/results/dp_sniper_suite.json).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

import dpaudit
from dpaudit.auditor import bounds

sys.path.insert(0, str(Path(__file__).parent))
from tightness import write_results  # noqa: E402

RESULTS = Path(__file__).parent / "results" / "dp_sniper_suite.json"
EPSILON = 0.1
CONFIDENCE = 0.90


# --- the mechanisms, as DP-Sniper codes them (vectorised: n runs at once, Generator noise) -----------

def report_noisy_max(noise: str, value: bool) -> Callable[[Any, int, np.random.Generator], np.ndarray]:
    """Ding et al. 2018 Algs. 5-8: argmax (RNM1/2) or max (RNM3/4) of q + Lap(2/eps) or Exp(2/eps)."""

    def sample(q, n, rng):
        q = np.asarray(q, dtype=float)
        scale, shape = 2 / EPSILON, (n, q.size)
        noisy = q + (rng.laplace(0.0, scale, shape) if noise == "laplace" else rng.exponential(scale, shape))
        return noisy.max(axis=1) if value else noisy.argmax(axis=1)

    return sample


def _abort_after_cutoff(above: np.ndarray, out: np.ndarray, c: int, aborted_code: float) -> np.ndarray:
    """Entries after the c-th "above" answer become ``aborted_code`` (DP-Sniper's column loop)."""
    seen = np.cumsum(above, axis=1)
    aborted = np.zeros_like(above)
    aborted[:, 1:] = seen[:, :-1] >= c
    out[aborted] = aborted_code
    return out


def svt(alg: int, c: int = 1, t: float = 1.0) -> Callable[[Any, int, np.random.Generator], np.ndarray]:
    """Lyu, Su & Li 2017 Algs. 1, 3, 4, 5, 6 as in DP-Sniper's ``sparse_vector_technique.py``."""
    eps1 = EPSILON / 4 if alg == 4 else EPSILON / 2
    eps2 = EPSILON - eps1

    def sample(q, n, rng):
        q = np.asarray(q, dtype=float)
        rho = rng.laplace(0.0, 1 / eps1, (n, 1))
        if alg == 5:
            return (q >= rho + t).astype(float)
        nu_scale = {1: 2 * c / eps2, 3: c / eps2, 4: 1 / eps2, 6: 1 / eps2}[alg]
        noisy = q + rng.laplace(0.0, nu_scale, (n, q.size))
        above = noisy >= rho + t
        if alg == 6:
            return above.astype(float)
        if alg == 3:
            return _abort_after_cutoff(above, np.where(above, noisy, -1000.0), c, -2000.0)
        return _abort_after_cutoff(above, above.astype(float), c, -1.0)

    return sample


def svt2(c: int = 1, t: float = 1.0) -> Callable[[Any, int, np.random.Generator], np.ndarray]:
    """Lyu Alg. 2 (Dwork-Roth): the noisy threshold is redrawn after every "above" answer."""
    eps1 = eps2 = EPSILON / 2

    def sample(q, n, rng):
        q = np.asarray(q, dtype=float)
        rho = rng.laplace(0.0, c / eps1, n)
        noisy = q + rng.laplace(0.0, 2 * c / eps2, (n, q.size))
        out = np.empty((n, q.size))
        count = np.zeros(n)
        aborted = np.zeros(n, dtype=bool)
        for i in range(q.size):
            above = noisy[:, i] >= rho + t
            out[:, i] = above
            out[aborted, i] = -1.0
            count += above
            rho = np.where(above, rng.laplace(0.0, c / eps1, n), rho)
            aborted |= count == c
        return out

    return sample


def numerical_svt(c: int = 2, t: float = 1.0) -> Callable[[Any, int, np.random.Generator], np.ndarray]:
    """Numerical SVT (Wang et al. PLDI 2019) as in DP-Sniper: the value q_i + Lap(3c/eps) of each answer."""

    def sample(q, n, rng):
        q = np.asarray(q, dtype=float)
        rho1 = rng.laplace(0.0, 3 / EPSILON, (n, 1))
        rho2 = rng.laplace(0.0, 6 * c / EPSILON, (n, q.size))
        rho3 = rng.laplace(0.0, 3 * c / EPSILON, (n, q.size))
        above = q + rho2 >= t + rho1
        return _abort_after_cutoff(above, np.where(above, q + rho3, 0.0), c, -1000.0)

    return sample


def svt34_parallel(q, n, rng):
    """SVT3 and SVT4 (c = 2, T = 1) on the same input, outputs side by side (DP-Sniper ``SVT34Parallel``)."""
    return np.hstack([svt(3, c=2)(q, n, rng), svt(4, c=2)(q, n, rng)])


def prefix_sum(q, n, rng):
    """PrefixSum (Wang et al. PLDI 2019): cumulative sums of q_i + Lap(1/eps)."""
    q = np.asarray(q, dtype=float)
    return np.cumsum(q + rng.laplace(0.0, 1 / EPSILON, (n, q.size)), axis=1)


def laplace_parallel(q, n, rng):
    """20 independent Laplace mechanisms at eps = 0.005 on the same count (total 0.1)."""
    return float(np.asarray(q).reshape(-1)[0]) + rng.laplace(0.0, 1 / 0.005, (n, 20))


def noisy_hist(scale_bug: bool) -> Callable[[Any, int, np.random.Generator], np.ndarray]:
    """Ding et al. Algs. 9 (NoisyHist1: Lap(1/eps)) and 10 (NoisyHist2: Lap(eps), the scale bug)."""

    def sample(q, n, rng):
        q = np.asarray(q, dtype=float)
        return q + rng.laplace(0.0, EPSILON if scale_bug else 1 / EPSILON, (n, q.size))

    return sample


@dataclass(frozen=True)
class Row:
    """One benchmark mechanism: its DP-Sniper name, sampler, best pair, published bound, privacy."""

    name: str
    sampler: Callable[[Any, int, np.random.Generator], np.ndarray]
    pair: tuple[tuple[float, ...], tuple[float, ...]]
    dp_sniper: float
    dp_sniper_event: tuple[float, float]  # (p1, p2): DP-Sniper's estimates of its event's probabilities
    private: bool
    note: str = ""

    def mechanism(self) -> dpaudit.Mechanism:
        return dpaudit.Mechanism.from_callable(
            self.sampler, claim=dpaudit.PureDP(EPSILON), neighbours=dpaudit.QueryDistance(1.0, "linf"),
            name=self.name, vectorised=True,
        )


ONES5, ONES10 = (1.0,) * 5, (1.0,) * 10
HALF = (1.0,) * 5 + (0.0,) * 5
HALF_SWAPPED = (0.0,) * 5 + (1.0,) * 5
UP_DOWN = (2.0,) * 5 + (0.0,) * 5

# Pairs and figures: DP-Sniper's logistic-regression run (dd_search_reg_data.log: "best_result", "eps_lcb", "p1", "p2").
ROWS: tuple[Row, ...] = (
    Row("ReportNoisyMax1", report_noisy_max("laplace", False),
        (ONES5, (0.0,) + (2.0,) * 4), 0.0923, (0.010988, 0.009997), True),
    Row("ReportNoisyMax2", report_noisy_max("exponential", False),
        (ONES5, (0.0,) + (2.0,) * 4), 0.0975, (0.011056, 0.010006), True),
    Row("ReportNoisyMax3", report_noisy_max("laplace", True),
        ((0.0,) * 5, ONES5), 0.2478, (0.012882, 0.010033), False, "scalar output"),
    Row("ReportNoisyMax4", report_noisy_max("exponential", True),
        (ONES5, (2.0,) * 5), 0.3463, (0.014219, 0.010035), False, "scalar output"),
    Row("SVT1", svt(1, t=0.5), (HALF_SWAPPED, HALF), 0.0858, (0.010873, 0.009957), True),
    Row("SVT2", svt2(), (HALF_SWAPPED, HALF), 0.0859, (0.010917, 0.009995), True),
    Row("SVT3", svt(3), (ONES10, UP_DOWN), 0.1716, (0.011929, 0.010026), False),
    Row("SVT4", svt(4), (ONES10, UP_DOWN), 0.1687, (0.011913, 0.010042), False),
    Row("SVT5", svt(5), (UP_DOWN, ONES10), 1.7612, (0.058288, 0.01), False),
    Row("SVT6", svt(6), (HALF, HALF_SWAPPED), 0.2720, (0.013147, 0.009994), False),
    Row("NumericalSVT", numerical_svt(), ((2.0,) * 10, ONES10), 0.0343, (0.010394, 0.010021), True),
    Row("SVT34Parallel", svt34_parallel, (ONES10, UP_DOWN), 0.2610, (0.013006, 0.009996), False),
    Row("PrefixSum", prefix_sum, (ONES10, (0.0,) * 10), 0.5040, (0.01655, 0.009977), False),
    Row("LaplaceParallel", laplace_parallel, ((1.0,), (0.0,)), 0.0350, (0.010403, 0.010022), True),
    Row("NoisyHist1", noisy_hist(False), ((0.0,) + (1.0,) * 4, ONES5), 0.0978, (0.011123, 0.010064), True),
    Row("NoisyHist2", noisy_hist(True), ((0.0,) + (1.0,) * 4, ONES5), 4.6020, (0.998867, 0.010009), False),
)


def dp_sniper_at(row: Row, samples: int) -> float:
    """DP-Sniper's own event at ``samples`` per side: its bound (Clopper-Pearson on each side, union,
    confidence 0.90) with the median counts k = round(N p1), k' = round(N p2) plugged in."""
    p1, p2 = row.dp_sniper_event
    k1, k2 = round(samples * p1), round(samples * p2)
    return float(bounds.epsilon_lower_bound("union", k1, samples, k2, samples, CONFIDENCE, 0.0))


def run(row: Row, samples: int, seed: int, learned: bool) -> dict[str, Any]:
    started = time.perf_counter()
    result = dpaudit.audit(
        row.mechanism(), pair=row.pair, samples=samples, seed=seed, confidence=CONFIDENCE, checks=None,
        early_stopping=False, executor="in-process", learned=learned,
    )
    return {
        "bound": result.epsilon_lower_bound,
        "ratio": result.epsilon_lower_bound / row.dp_sniper,
        "verdict": result.verdict.value,
        "event": result.event,
        "family": result.candidates[0].family if result.candidates else None,
        "search_samples": result.search_samples,
        "seconds": time.perf_counter() - started,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=1_000_000, help="verification samples per side")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", default="", help="comma-separated row names (default: all)")
    args = parser.parse_args()
    wanted = {name.strip() for name in args.only.split(",") if name.strip()}
    started = time.perf_counter()
    print(f"DP-Sniper suite, eps = {EPSILON}, confidence {CONFIDENCE}, N = {args.samples} per side "
          f"(+ search), checks=None, full budget, seed {args.seed}")
    header = (f"{'mechanism':<16} {'private':>7} {'DP-Sniper':>9} {'DPS@N':>7} {'off':>8} {'ratio':>6} {'on':>8} "
              f"{'ratio':>6} {'on/@N':>6} {'s off':>6} {'s on':>6}  event (on)")
    print(header)
    rows = []
    for row in ROWS:
        if wanted and row.name not in wanted:
            continue
        off = run(row, args.samples, args.seed, learned=False)
        on = run(row, args.samples, args.seed, learned=True)
        at_n = dp_sniper_at(row, args.samples)
        versus = on["bound"] / at_n if at_n > 0 else float("inf")
        print(f"{row.name:<16} {'yes' if row.private else 'no':>7} {row.dp_sniper:>9.4f} {at_n:>7.4f} "
              f"{off['bound']:>8.4f} {off['ratio']:>6.2f} {on['bound']:>8.4f} {on['ratio']:>6.2f} {versus:>6.2f} "
              f"{off['seconds']:>6.0f} {on['seconds']:>6.0f}  [{on['family']}] {on['event'][:70]}", flush=True)
        flagged = [name for name, r in (("off", off), ("on", on)) if row.private and r["verdict"] == "violation"]
        if flagged:
            print(f"  !! correct mechanism flagged ({', '.join(flagged)})")
        rows.append({"mechanism": row.name, "private": row.private, "pair": row.pair, "dp_sniper": row.dp_sniper,
                     "dp_sniper_event": row.dp_sniper_event, "dp_sniper_at_n": at_n, "note": row.note,
                     "learned_off": off, "learned_on": on})
    write_results(RESULTS, seed=args.seed, confidence=CONFIDENCE, started=started, samples=args.samples, rows=rows)


if __name__ == "__main__":
    main()
