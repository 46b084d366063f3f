"""Floating-point leaks: the default audit's bound at 10^5 samples per side against the event ceiling.

For each floating-point entry of the flawed gallery at several claims, ``dpaudit.audit`` runs with
its defaults (pair screening, every event family including the float checks, early stopping) at
confidence 0.95 with N_v = 66 666 verification samples per side, so that with the search stage
(N_v / 2) at most 10^5 outputs per side are drawn.  Printed: the bound, the wall time, the check that
produced the finding and whether P_b(S) = 0 is proved.  A second audit spends the same 10^5 per
side as 95 000 verification + 5 000 search samples (``search_samples=5000``): a float leak shows in
a few thousand outputs, so the budget is better spent on verification when that is what one audits.

**The ceiling.**  Every float entry is exactly DP *inside* the support it shares between neighbours;
what breaks it is S* = the outputs of M(a) that M(b) can never produce (probability m under M(a),
0 under M(b)).  An event-based bound from N samples per side can do no better than

    ceiling = ln((m - delta) N / ln(1/alpha)),

which is the bound with P_a(S*) = m known exactly, all of alpha spent on the zero count under M(b)
(its one-sided Clopper-Pearson upper bound 1 - alpha^(1/N) ~ ln(1/alpha) / N) and no sample spent
on search: adding outputs that M(b) can produce raises P_b(S) faster than the ratio gains (their
loss is at most the claimed epsilon).  m is estimated here on 10^6 fresh outputs of M(0) against
q_b = 1 (the best neighbouring pair of a count: the mass shrinks as |q| grows), exactly: outside
the replayed noise support when the entry exposes its noise (:mod:`dpaudit.auditor.events.leaks.float_support`),
else outside the doubles fl(1 + n) reaches (:class:`dpaudit.auditor.events.leaks.lattice.NotReachableFrom`); the
ceiling uses the one-sided 0.999 Clopper-Pearson upper bound of m, so it is generous.  A bound >= 8
at 10^5 per side therefore needs m >= e^8 ln(20) / 10^5 = 0.089: the Box-Muller Gaussian at a small
epsilon spreads its noise so wide (sigma = 48 at epsilon = 0.1) that only about 3 % of its outputs
fall where the lattices differ, and no black-box bound reaches 8 there with 10^5 samples.

For the float histogram the mass is that of one count, 0 against 1 (no noise exposed: reachability).

**Dataset black boxes** (second table).  The raw float sum, mean and histogram as a user writes them:
plain functions ``f(data, n, rng)`` with numpy's ``rng.laplace``, no ``query``, no ``noise``, audited
on the user's pair ([1, 0, 1] against [1, 0, 1, 1], add/remove; the mean, whose noise 1/(eps n) is
calibrated to a fixed n, against [1, 0, 0], replace), with the same two budgets.  The auditor is told
neither the query values (2 against 3; 2/3 against 1/3) nor the noise: it estimates the centres and
identifies numpy's Laplace on the search outputs, so a finding is observed, never proved.  The mass
m here is the one with the true query values and noise, of the pair audited; "lattice only" is the
default budget with ``checks=("lattice",)``, whose distribution-free event (fl(q_b + n) for no double
n) has mass m_lattice.

Run: ``python benchmarks/leaks.py [--seed 1] [--only catalogue|dataset]`` (about 40 s + 20 s; prints
the tables, writes benchmarks/results/leaks.json).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

import dpaudit
from dpaudit.auditor.bounds import cp_upper
from dpaudit.auditor.events.leaks.float_support import support_match
from dpaudit.auditor.events.leaks.lattice import NotReachableFrom
from dpaudit.mechanisms.catalogue.flawed import floating_point
from dpaudit.mechanisms.float_noise import numpy_laplace_noise

sys.path.insert(0, str(Path(__file__).parent))
from tightness import write_results  # noqa: E402

RESULTS = Path(__file__).parent / "results" / "leaks.json"
CONFIDENCE = 0.95
BUDGET = 100_000  # samples per side, search included
VERIFY = 66_666  # + search_budget(VERIFY) = 33 333 -> 99 999
SMALL_SEARCH = 5_000  # the second audit: 95 000 verification + 5 000 search samples per side
MASS_SAMPLES = 1_000_000
ROWS = (
    ("laplace-float-textbook", floating_point.laplace_float_textbook, (0.1, 1.0)),
    ("laplace-scipy", floating_point.laplace_scipy, (0.1, 1.0)),
    ("laplace-numpy", floating_point.laplace_numpy, (0.1, 1.0)),
    ("gaussian-box-muller", floating_point.gaussian_box_muller, (0.1, 0.5, 0.99)),
    ("laplace-histogram-numpy", floating_point.laplace_histogram_numpy, (0.1, 1.0)),
)


def raw_sum(data, n, rng):
    return sum(data) + rng.laplace(0, 1.0, size=n)


def raw_mean(data, n, rng):  # records in [0, 1], fixed n: sensitivity 1 / n under replace
    return np.mean(data) + rng.laplace(0, 1.0 / len(data), size=n)


def raw_histogram(data, n, rng):  # 4 bins; add / remove changes one count by 1
    return np.bincount(np.asarray(data, dtype=int), minlength=4)[:4].astype(float) + rng.laplace(0, 1.0, size=(n, 4))


ADD, REPLACE = ([1, 0, 1], [1, 0, 1, 1]), ([1, 0, 1], [1, 0, 0])
DATASET_ROWS = (  # name, function, relation, pair, (q_a, q_b) at the changed coordinate, noise scale
    ("raw float sum", raw_sum, dpaudit.AddRemove(), ADD, (2.0, 3.0), 1.0),
    ("raw float mean", raw_mean, dpaudit.Replace(), REPLACE, (2 / 3, 1 / 3), 1 / 3),
    ("raw float histogram (4 bins)", raw_histogram, dpaudit.AddRemove(), ADD, (2.0, 3.0), 1.0),
)


def dataset_masses(queries: tuple[float, float], scale: float, seed: int) -> tuple[float, float, float]:
    """(m, 0.999 upper bound of m, m_lattice): P[M(a) outputs what M(b) cannot] with the true query
    values and numpy's Laplace noise replayed exactly, and outside the doubles fl(q_b + n) reaches;
    the larger of the two directions, as the audit picks it."""
    rng = np.random.default_rng(seed)
    noise = numpy_laplace_noise(scale)
    best = (0.0, 0.0, 0.0)
    for q_a, q_b in (queries, queries[::-1]):
        outputs = q_a + rng.laplace(0, scale, size=MASS_SAMPLES)
        hits = int(np.count_nonzero(~support_match(noise, outputs, q_b).consistent))
        lattice = float(np.mean(NotReachableFrom(q_b).contains(outputs)))
        if hits / MASS_SAMPLES > best[0]:
            best = (hits / MASS_SAMPLES, float(cp_upper(hits, MASS_SAMPLES, 0.999)), lattice)
    return best


def dataset_table(seed: int) -> list[dict]:
    """The second table of the module docstring."""
    print(f"\ndataset black boxes: {VERIFY} verification + search <= {BUDGET} samples per side")
    print(f"{'function':<30} {'bound':>7} {'time s':>6} {'check':>14} {'proved':>6} {'mass m':>7} {'ceiling':>7} "
          f"{'95k+5k':>7} {'lattice only':>12} {'m_lattice':>9}")
    rows = []
    for name, function, relation, pair, queries, scale in DATASET_ROWS:
        mechanism = dpaudit.Mechanism.from_callable(function, claim=dpaudit.PureDP(1.0), neighbours=relation)
        runs = {
            label: dpaudit.audit(mechanism, pair=pair, seed=seed, confidence=CONFIDENCE, executor="in-process", **kw)
            for label, kw in (("default", dict(samples=VERIFY)),
                              ("small_search", dict(samples=BUDGET - SMALL_SEARCH, search_samples=SMALL_SEARCH)),
                              ("lattice_only", dict(samples=VERIFY, checks=("lattice",))))
        }
        result = runs["default"]
        mass, mass_upper, lattice_mass = dataset_masses(queries, scale, seed)
        limit = ceiling(mass_upper, 0.0)
        best = max(result.findings, key=lambda f: float(f.epsilon_lower_bound), default=None)
        row = dict(
            entry=name, claim=mechanism.claim.as_dict(), pair=result.pair, bound=result.epsilon_lower_bound,
            verdict=result.verdict.value, seconds=result.elapsed_s, samples_per_side=VERIFY + result.search_samples,
            event=result.event, check=None if best is None else best["check"],
            proven_empty=bool(best and best["proven_empty"]), witness=None if best is None else best.get("witness"),
            mass=mass, mass_upper=mass_upper, ceiling=limit, meets_8=result.epsilon_lower_bound >= 8.0,
            small_search=dict(bound=runs["small_search"].epsilon_lower_bound, seconds=runs["small_search"].elapsed_s),
            lattice_only=dict(bound=runs["lattice_only"].epsilon_lower_bound, seconds=runs["lattice_only"].elapsed_s,
                              event=runs["lattice_only"].event, mass=lattice_mass),
        )
        rows.append(row)
        print(f"{name:<30} {row['bound']:>7.3f} {row['seconds']:>6.2f} {str(row['check']):>14} "
              f"{'yes' if row['proven_empty'] else 'no':>6} {mass:>7.4f} {limit:>7.3f} "
              f"{row['small_search']['bound']:>7.3f} {row['lattice_only']['bound']:>12.3f} {lattice_mass:>9.4f}",
              flush=True)
    return rows


def outside_mass(mechanism, seed: int) -> tuple[float, float]:
    """(estimate, one-sided 0.999 upper bound) of P[M(0) outputs what M(1) cannot] (vectors: bin 0)."""
    outputs = np.asarray(mechanism.sample((), MASS_SAMPLES, np.random.default_rng(seed)), dtype=np.float64)
    outputs = outputs[:, 0] if outputs.ndim == 2 else outputs
    if mechanism.noise is not None:
        outside = ~support_match(mechanism.noise, outputs, 1.0).consistent
    else:
        outside = NotReachableFrom(1.0).contains(outputs)
    hits = int(np.count_nonzero(outside))
    return hits / MASS_SAMPLES, float(cp_upper(hits, MASS_SAMPLES, 0.999))


def ceiling(mass: float, delta: float) -> float:
    """ln((m - delta) N / ln(1/alpha)) at N = BUDGET (module docstring)."""
    if mass <= delta:
        return 0.0
    return math.log((mass - delta) * BUDGET / math.log(1.0 / (1.0 - CONFIDENCE)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", choices=("catalogue", "dataset"), default=None,
                        help="run one of the two tables (the other keeps its stored rows in leaks.json)")
    args = parser.parse_args()
    started, seed = time.perf_counter(), args.seed
    rows = [] if args.only == "dataset" else catalogue_table(seed)
    dataset = [] if args.only == "catalogue" else dataset_table(seed)
    if args.only is not None and RESULTS.exists():  # keep the table that did not run
        import json

        stored = json.loads(RESULTS.read_text(encoding="utf-8"))
        rows = rows or stored.get("rows", [])
        dataset = dataset or stored.get("dataset_rows", [])
    write_results(RESULTS, seed=seed, confidence=CONFIDENCE, started=started, rows=rows, dataset_rows=dataset)


def catalogue_table(seed: int) -> list[dict]:
    """The first table of the module docstring."""
    print(f"default audit, confidence {CONFIDENCE}, {VERIFY} verification + search <= {BUDGET} samples per side")
    print(f"{'entry':<24} {'claim':>14} {'bound':>7} {'time s':>6} {'check':>14} {'proved':>6} "
          f"{'mass m':>7} {'ceiling':>7} {'ratio':>6} {'>= 8':>5} {'search 5k':>9}")
    rows = []
    for name, build, epsilons in ROWS:
        for epsilon in epsilons:
            mechanism = build(epsilon=epsilon)
            delta = float(getattr(mechanism.claim, "delta", 0.0))
            result = dpaudit.audit(mechanism, samples=VERIFY, seed=seed, confidence=CONFIDENCE,
                                   executor="in-process")
            mass, mass_upper = outside_mass(mechanism, seed)
            limit = ceiling(mass_upper, delta)
            small_search = dpaudit.audit(mechanism, samples=BUDGET - SMALL_SEARCH, search_samples=SMALL_SEARCH,
                                         seed=seed, confidence=CONFIDENCE, executor="in-process")
            leaks = [f for f in result.findings if f.check in ("lattice", "float-support")]
            best = max(leaks, key=lambda f: float(f.epsilon_lower_bound), default=None)
            row = dict(
                entry=name, claim=mechanism.claim.as_dict(), bound=result.epsilon_lower_bound,
                verdict=result.verdict.value, seconds=result.elapsed_s,
                samples_per_side=VERIFY + result.search_samples, pair=result.pair, event=result.event,
                check=None if best is None else best["check"], proven_empty=bool(best and best["proven_empty"]),
                witness=None if best is None else best.get("witness"), mass=mass, mass_upper=mass_upper,
                ceiling=limit, ratio=result.epsilon_lower_bound / limit if limit else None,
                meets_8=result.epsilon_lower_bound >= 8.0,
                small_search=dict(bound=small_search.epsilon_lower_bound, seconds=small_search.elapsed_s,
                                  samples_per_side=small_search.samples + small_search.search_samples,
                                  meets_8=small_search.epsilon_lower_bound >= 8.0),
            )
            rows.append(row)
            claim = f"({epsilon:g}, {delta:g})" if delta else f"{epsilon:g}-DP"
            print(f"{name:<24} {claim:>14} {row['bound']:>7.3f} {row['seconds']:>6.2f} {str(row['check']):>14} "
                  f"{'yes' if row['proven_empty'] else 'no':>6} {mass:>7.4f} {limit:>7.3f} "
                  f"{row['ratio']:>6.3f} {'yes' if row['meets_8'] else 'no':>5} "
                  f"{small_search.epsilon_lower_bound:>9.3f}", flush=True)
    return rows


if __name__ == "__main__":
    main()
