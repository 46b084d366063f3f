"""Cost of the draw-count side channel (on by default for one-run functions).

Audits three exact one-run functions at N verification samples per side (pair given, in process,
seed 1) with the default checks and with the same checks minus ``"draw-count"``, and prints the best
of ``--runs`` wall times of each, the time spent inside the mechanism, and the bound (which must be
the same: the counted source draws the very stream of the plain one, and a constant draw count adds
no event).  The functions: randomized response with one uniform per run, a two-sided geometric
from two 63-bit integers per run, and a Laplace released on a 2^-16 grid (one ``rng.laplace``).

    python -m benchmarks.draw_count_overhead [--samples 100000] [--runs 2]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

import dpaudit
from dpaudit.auditor.events.leaks.events import LEAK_FAMILIES


def rr(bit, rng: np.random.Generator):
    return bit if rng.random() < 0.75 else 1 - bit


def geometric_two_draws(q, rng: np.random.Generator):
    g1, g2 = (int(v) for v in rng.integers(0, 2**63, size=2))
    return q + ((~g1) & (g1 + 1)).bit_length() - ((~g2) & (g2 + 1)).bit_length()


def grid_laplace(q, rng: np.random.Generator):
    return round((q + rng.laplace(0, 1.0)) * 2**16) / 2**16


FUNCTIONS = ((rr, math.log(3), (1, 0)), (geometric_two_draws, math.log(2), (0, 1)), (grid_laplace, 1.0, (0, 1)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    dpaudit.audit(rr, epsilon=1.0, pair=(1, 0), samples=200, seed=0, executor="in-process")  # imports
    print(f"{'function':<20} {'checks':<16} {'best s':>7} {'in mech s':>9} {'bound':>8}  per run (us)")
    for function, epsilon, pair in FUNCTIONS:
        for label, checks in (("default", "default"), ("no draw-count", LEAK_FAMILIES)):
            times, result = [], None
            for _ in range(args.runs):
                start = time.perf_counter()
                result = dpaudit.audit(function, epsilon=epsilon, pair=pair, samples=args.samples, seed=1,
                                       executor="in-process", checks=checks)
                times.append(time.perf_counter() - start)
            runs = 2 * (result.search_samples + result.samples)
            print(f"{function.__name__:<20} {label:<16} {min(times):>7.2f} {result.mechanism_s:>9.2f} "
                  f"{result.epsilon_lower_bound:>8.4f}  {1e6 * result.mechanism_s / runs:.2f}")


if __name__ == "__main__":
    main()
