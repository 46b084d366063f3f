"""Speed: a whole audit of the Laplace count at N per side against numpy drawing the same samples.

Prints, for N = 10^7 per side (``--samples`` to change), the best-of-``--repeat`` wall time of

* ``numpy``: ``Generator.laplace`` drawing the 2 N noise values (in the auditor's chunk size, the
  fastest way numpy draws them here);
* ``sampler``: the catalogue sampler itself (numpy Laplace noise plus the float-safe grid snap of
  :mod:`dpaudit.mechanisms._grid`) drawing 2 N outputs;
* ``audit``: ``dpaudit.audit("laplace", samples=N)`` -- pair screening, event search on the search
  samples (up to ``search_budget(N)`` more per side: ``search_start(N)`` when the choice settles on
  them) and verification;

and the ratios audit / numpy and audit / sampler, with the last audit's time split (``result.run.times``).
The three are timed in turn, ``--repeat`` times (so a drift of the machine touches all three alike); the
ratios are of the best times and, beside them, of the median times.  The goal is audit / numpy <= 1.5.

Two trees are compared by running this file from each (``PYTHONPATH=<tree> python
benchmarks/audit_speed.py``), one after the other.

Run: ``python benchmarks/audit_speed.py [--samples 10000000] [--repeat 5]``
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import dpaudit
from dpaudit.auditor import search_budget
from dpaudit.auditor.run.sampling import CHUNK_VALUES


def seconds(function) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=10_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    n = args.samples
    mechanism = dpaudit.get("laplace")
    rng = np.random.default_rng(20261122)

    def numpy_draw() -> None:
        for _ in range(2):
            done = 0
            while done < n:
                rows = min(CHUNK_VALUES, n - done)
                rng.laplace(0.0, 1.0, size=rows)
                done += rows

    def sampler_draw() -> None:
        for data in ((1, 0, 1), (1, 0, 1, 1)):
            done = 0
            while done < n:
                rows = min(CHUNK_VALUES, n - done)
                mechanism.sample(data, rows, rng)
                done += rows

    results = []

    def run_audit() -> None:
        results.append(dpaudit.audit(mechanism, samples=n, seed=len(results)))

    dpaudit.audit(mechanism, samples=10_000, seed=0)  # import statsmodels/scipy outside the timing
    timed: dict[str, list[float]] = {"numpy": [], "sampler": [], "audit": []}
    for _ in range(args.repeat):  # in turn, so that a drift of the machine touches all three alike
        for name, function in (("numpy", numpy_draw), ("sampler", sampler_draw), ("audit", run_audit)):
            timed[name].append(seconds(function))
    t_numpy, t_sampler, t_audit = (min(timed[name]) for name in ("numpy", "sampler", "audit"))
    m_numpy, m_sampler, m_audit = (statistics.median(timed[name]) for name in ("numpy", "sampler", "audit"))
    last = results[-1]
    print(f"N = {n:.0e} per side (+ {last.search_samples} search samples per side of at most {search_budget(n)}), "
          f"best of {args.repeat}")
    print(f"numpy Generator.laplace, 2N draws : {t_numpy:8.3f} s")
    print(f"catalogue sampler, 2N outputs     : {t_sampler:8.3f} s")
    print(f"dpaudit.audit                     : {t_audit:8.3f} s  (mechanism time in the last run {last.mechanism_s:.3f} s)")
    print(f"ratio audit / numpy               : {t_audit / t_numpy:8.2f}   (goal <= 1.5; of the medians {m_audit / m_numpy:.2f})")
    print(f"ratio audit / sampler             : {t_audit / t_sampler:8.2f}   (of the medians {m_audit / m_sampler:.2f})")
    print(f"last audit's stages               : {last.run.times.describe()}")
    print(f"last audit: epsilon >= {last.epsilon_lower_bound:.4f} on {last.event}, {last.pairs_screened} pairs screened")


if __name__ == "__main__":
    main()
