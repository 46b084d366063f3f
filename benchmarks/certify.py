"""Certify: per sampler, the work done and how close the certified upper bound comes to the exact epsilon.

For each discrete sampler (the catalogue's one-run samplers, two CKS discrete Laplace scales and the
float gallery entries) it prints, from one run of this script:

* ``paths`` -- paths run (from the sampler's start and to summarise its helpers), ``left`` the largest
  unexplored mass over the two inputs, ``seconds`` the enumeration's wall time;
* ``eps_up`` and ``delta_up`` -- the (epsilon, delta) certificate; ``exact`` -- the exact epsilon of
  the code on the pair, computed independently here (closed forms in exact rationals / mpmath; the
  float entries' from Mironov's lattice argument: inf), and ``up/exact`` their ratio (1 when tight);
* ``audit_low`` -- the audit's lower bound at ``--samples`` per side (seed 1, its default confidence),
  the other end of the bracket;
* ``verdict`` -- certify's verdict on the entry's own claim (``delta`` given where noted).

The discrete Gaussian has no finite pure epsilon: its row reads the hockey-stick delta at epsilon = 1
(``delta_up`` against the exact delta, from its pmf at 60 digits).

Run: ``python benchmarks/certify.py [--samples 1000000] [--no-audit]``
"""

from __future__ import annotations

import argparse
import math
import time
from fractions import Fraction

import mpmath

import dpaudit
from dpaudit.mechanisms.one_run import discrete_gaussian, discrete_laplace

mpmath.mp.dps = 60


def dlaplace_t3(data, rng):
    """A count plus CKS discrete Laplace noise of scale t = 3 (epsilon 1/3)."""
    return sum(data) + discrete_laplace(3, 1, rng)


def dgauss_sigma2_4(data, rng):
    """A count plus CKS discrete Gaussian noise, sigma^2 = 4."""
    return sum(data) + discrete_gaussian(4, 1, rng)


def exact_gaussian_delta(sigma2: Fraction, epsilon: float) -> float:
    """The hockey-stick delta at ``epsilon`` of N_Z(0, sigma2) vs N_Z(1, sigma2), from the pmf at 60 digits."""
    support = range(-200, 201)
    weights = {z: mpmath.exp(-mpmath.mpf(z * z) / (2 * mpmath.mpf(sigma2.numerator) / sigma2.denominator))
               for z in range(-202, 203)}
    total = sum(weights.values())
    factor = mpmath.exp(epsilon)
    delta = sum(max(mpmath.mpf(0), weights[z] / total - factor * weights[z - 1] / total) for z in support)
    return float(delta)


# name, target, keyword arguments of certify, exact epsilon (or exact delta for the Gaussian row)
ROWS = [
    ("rr", "rr", {}, math.log(3)),
    ("k-rr", "k-rr", {}, 1.0),
    ("rappor", "rappor", {}, 1.0),
    ("geometric (CKS t=1)", "geometric", {"delta": 1e-12}, 1.0),
    ("discrete Laplace t=3", dlaplace_t3, {"pair": ((1, 0, 1), (1, 0, 1, 1)), "epsilon": 1 / 3, "delta": 1e-12}, 1 / 3),
    ("exponential", "exponential", {}, None),
    ("snapping (complete)", "snapping", {"tolerance": 0.0, "max_paths": 10**6, "time_limit": 120.0}, None),
    ("geometric-inverse-cdf", "geometric-inverse-cdf", {"tolerance": 0.0}, math.inf),
    ("geometric-by-trials, output", "geometric-by-trials", {"delta": 1e-12}, math.log(2)),
    ("geometric-by-trials, draws", "geometric-by-trials", {"observe": "draws"}, math.inf),
    ("rr-miscalibrated", "rr-miscalibrated", {}, 1.0),
    ("exponential-no-factor-2", "exponential-no-factor-2", {}, None),
    ("discrete Gaussian s2=4, delta(1)", dgauss_sigma2_4,
     {"pair": ((1, 0, 1), (1, 0, 1, 1)), "epsilon": 1.0, "delta": 0.0073}, "gaussian"),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=1_000_000)
    parser.add_argument("--no-audit", action="store_true", help="skip the audits (the lower end of the bracket)")
    args = parser.parse_args()
    header = (f"{'sampler':32} {'verdict':9} {'paths':>8} {'left':>9} {'eps_up':>14} {'delta_up':>9} "
              f"{'exact':>14} {'up/exact':>12} {'audit_low':>9} {'seconds':>8}")
    print(header)
    print("-" * len(header))
    for label, target, options, exact in ROWS:
        started = time.perf_counter()
        result = dpaudit.certify(target, **options)
        seconds = time.perf_counter() - started
        eps_up = result.epsilon_up
        if exact == "gaussian":
            exact_value = exact_gaussian_delta(Fraction(4), 1.0)
            up_value = result.delta_at_claim[1]
            shown_up, shown_exact = f"d={up_value:.6g}", f"d={exact_value:.6g}"
            ratio = up_value / exact_value
        else:
            exact_value = exact if exact is not None else result.epsilon_low
            shown_up, shown_exact = f"{eps_up:.12g}", f"{exact_value:.12g}"
            ratio = eps_up / exact_value if exact_value and math.isfinite(exact_value) else math.nan
        audit_low = math.nan
        if not args.no_audit and isinstance(target, str):
            audit_low = dpaudit.audit(target, samples=args.samples, seed=1).epsilon_lower_bound
        print(f"{label:32} {result.verdict.value:9} {result.paths:>8} {result.unexplored:>9.2g} {shown_up:>14} "
              f"{result.delta_up:>9.2g} {shown_exact:>14} {ratio:>12.10f} {audit_low:>9.4f} {seconds:>8.2f}")


if __name__ == "__main__":
    main()
