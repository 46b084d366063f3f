"""The peers' benchmark mechanisms as the peers coded them: numpy floating point, not exact arithmetic.

DP-Sniper's and StatDP's benchmark mechanisms add ``np.random.laplace`` noise to the query in double
precision (e.g. DP-Sniper's ``LaplaceMechanism.m``: ``np.random.laplace(loc=f(a), scale=1/eps)``).
Their published figures treat these as the exact mechanisms (true epsilon 0.1, 0.25, 10), but by
Mironov (2012) a float Laplace is not epsilon-DP for any epsilon: the low bits of the output depend on
the query.  dpaudit's catalogue implements the exact mechanisms (outputs on a grid; ``peers.py`` rows);
this script audits float twins of the three Laplace-based rows -- the catalogue entry with its
sampler replaced by the peers' numpy code, same claim, inputs and neighbours -- with the default audit
(confidence 0.90, as the peers) at 10^5 and 10^6 verification samples per side, and prints the bound,
the share of the peers' 2 x 10^8 samples per side it used, and the leak finding behind it.

Run: ``python benchmarks/peer_implementations.py [--seed 1]`` (about 15 s; writes
benchmarks/results/peer_implementations.json).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

import numpy as np

import dpaudit
from dpaudit.mechanisms.catalogue.laplace import count

sys.path.insert(0, str(Path(__file__).parent))
from peers import ANCHORS, CONFIDENCE, SAMPLES_PER_SIDE  # noqa: E402
from tightness import write_results  # noqa: E402

RESULTS = Path(__file__).parent / "results" / "peer_implementations.json"
EPSILON = 0.1


def laplace_float(data, n, rng):
    """DP-Sniper ``LaplaceMechanism``: f(a) + Laplace(1/eps) in doubles."""
    return count(data) + rng.laplace(0.0, 1.0 / EPSILON, size=n)


def noisy_max_value_float(data, n, rng):
    """Ding et al. 2018 Alg. (noisy max returning the value): max_i (q_i + Laplace(2/eps)) in doubles."""
    q = np.asarray(data, dtype=float)
    return (q + rng.laplace(0.0, 2.0 / EPSILON, size=(n, q.size))).max(axis=1)


def laplace_scale_epsilon_float(data, n, rng):
    """NoisyHist2 (Ding et al. 2018): f(a) + Laplace(eps) -- scale eps instead of 1/eps -- in doubles."""
    return count(data) + rng.laplace(0.0, EPSILON, size=n)


FLOAT_TWINS = {
    "laplace": laplace_float,
    "noisy-max-value-laplace": noisy_max_value_float,
    "laplace-scale-epsilon": laplace_scale_epsilon_float,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    started = time.perf_counter()
    print(f"{'benchmark':<50} {'peers':>12} {'samples/side':>12} {'share':>7} {'bound':>8} {'check':>8} {'proved':>6}")
    rows = []
    for anchor in ANCHORS:
        if anchor.catalogue not in FLOAT_TWINS:
            continue
        exact = anchor.build()
        twin = dataclasses.replace(exact, name=f"{exact.name}-float", sampler=FLOAT_TWINS[anchor.catalogue], noise=None)
        peers = [v for v in (anchor.dp_sniper[1] if anchor.dp_sniper else None, anchor.statdp) if v is not None]
        for n in (10**5, 10**6):
            result = dpaudit.audit(twin, samples=n, seed=args.seed, confidence=CONFIDENCE, executor="in-process")
            total = n + result.search_samples
            leak = max(result.findings, key=lambda f: float(getattr(f, "epsilon_lower_bound", 0.0)), default=None)
            row = dict(benchmark=anchor.benchmark, catalogue=anchor.catalogue, peers=peers, n=n, samples_per_side=total,
                       share_of_peer_samples=total / SAMPLES_PER_SIDE, bound=result.epsilon_lower_bound,
                       at_least_peers=result.epsilon_lower_bound >= max(peers), event=result.event,
                       check=None if leak is None else leak["check"],
                       proven_empty=bool(leak and leak.get("proven_empty")), seconds=result.elapsed_s)
            rows.append(row)
            print(f"{anchor.benchmark[:50]:<50} {max(peers):>12.4g} {total:>12.3g} {row['share_of_peer_samples']:>7.2%} "
                  f"{row['bound']:>8.3f} {str(row['check']):>8} {'yes' if row['proven_empty'] else 'no':>6}", flush=True)
    write_results(RESULTS, seed=args.seed, confidence=CONFIDENCE, started=started, rows=rows)


if __name__ == "__main__":
    main()
