"""Tightness: the verified bound against the best bound any event could give at the same N.

**Part 1 (the limit).**  For each catalogue mechanism with a known finite ``true_epsilon`` and
delta = 0, and for report noisy max (argmax, whose pmf is computed exactly), audit its first
recommended pair at N = 10^4, 10^5, 10^6, 10^7 verification samples per side, confidence 0.95, and
print the reported bound next to the *limit*: the bound obtained by plugging the exact probabilities
(p, p') of the optimal event in as counts k = round(N p), k' = round(N p') (the median outcome).  The
limit is printed for the Clopper-Pearson union bound (reference figures: 0.9808 / 0.9939 / 0.9981 for
Laplace at eps = 1, alpha = 0.05, N = 10^5 / 10^6 / 10^7) and for the auditor's joint ratio test; the
ratio is bound / limit.  Optimal events, exact probabilities:

* Laplace location (scale b = Delta/eps, inputs Delta apart): half-line at the lower input,
  p = 1/2, p' = e^-eps / 2 (likelihood ratio exactly e^eps there, largest mass);
* two-sided geometric: {y <= q_a}, p = 1/(1 + e^-eps), p' = e^-eps / (1 + e^-eps);
* binary / k-ary randomized response: the atom {a}, p = e^eps/(e^eps + k - 1), p' = 1/(e^eps + k - 1);
* report noisy max (argmax of u + Lap(b) noise): P[argmax = i] = int f_b(x - u_i) prod_{j != i}
  F_b(x - u_j) dx (Dwork & Roth 2014, Sect. 3.3), integrated with ``scipy.integrate.quad``; the
  limit is the maximum over all 2^k sets of outputs (the best event at this N, by enumeration).

Other entries have no closed form here: their line shows ``est.``, the limit of the event the auditor
found at the largest N with its probabilities estimated on ``--oracle-samples`` fresh samples (an
estimate of the limit of that event, not of the optimal one).

**Part 2 (the peers).**  The published DP-Sniper / StatDP bounds of :mod:`peers` (confidence 0.90,
2 x 10^8 verification samples per side, claims epsilon = 0.1) beside dpaudit's bound on the same
mechanism at confidence 0.90 and N = 10^6 and 10^7 per side (plus the search samples, counted), twice:
the default audit (pairs searched, verification stopped at the first look that refutes the claim) and
the peers' setting -- one fixed pair (the entry's first recommended pair) and the whole verification
budget spent (``early_stopping=False``).  The default audit answers "is the claim violated?" and stops
once it is; only the second measures how large a bound the budget can certify.

**Part 3 (``--large-peers``).**  Two rows need more than 10^7 per side to reach the peers:
noisy max returning the value (pair given, full budget, N = 10^8: the optimal event's limit crosses
DP-Sniper's 0.2488 only near 10^8) and SVT without query noise (default audit, N = 1.2 x 10^8: a
zero-count bound grows as ln N, StatDP's 14.31 is its own cap at 2 x 10^8).

**Part 4 (``--last-look``).**  The price of early stopping at the last look: the default audit of
the exactly tight catalogue Laplace (epsilon 1, its pair of 2 vs 3 records) at N = 10^5 and 10^6 per
side, seeds 1-3, with early stopping (the default) and without, each bound over the joint-test limit
of the oracle event at N; and the same for a plain function drawing ``sum(data) + Lap(1)`` in floats
(``checks=None``: its float outputs are a leak of their own), whose event the search chooses among a
continuum of thresholds.  The median over the seeds is the figure: one seed is one draw.

``--quick`` runs N = 10^7 only for the four headline mechanisms (laplace, geometric, rr,
report-noisy-max) and the peer rows at 10^6 only.  Writes benchmarks/results/tightness.json.

Run: ``python benchmarks/tightness.py [--quick] [--large-peers] [--last-look] [--seed 1] [--oracle-samples 4000000]``
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import platform
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

import dpaudit
from dpaudit.auditor import bounds, search_budget
from dpaudit.auditor.events.sets import event_from_dict

sys.path.insert(0, str(Path(__file__).parent))
from peers import ANCHORS  # noqa: E402
from peers import CONFIDENCE as PEER_CONFIDENCE
from peers import SAMPLES_PER_SIDE as PEER_SAMPLES

RESULTS = Path(__file__).parent / "results" / "tightness.json"
CONFIDENCE = 0.95
SIZES = (10**4, 10**5, 10**6, 10**7)
HEADLINE = ("laplace", "geometric", "rr", "report-noisy-max")
EXACT_PMF = ("report-noisy-max", "report-noisy-max-2")
ROWS_PER_CHUNK = 1 << 16


def closed_form(mechanism) -> tuple[float, float] | None:
    """Exact (p, p') of the optimal event for the families with a closed form, else None."""
    eps = mechanism.true_epsilon
    family = mechanism.family
    if family == "laplace" and mechanism.name in ("laplace", "laplace-sum", "laplace-mean"):
        return 0.5, 0.5 * math.exp(-eps)
    if family == "geometric":
        return 1 / (1 + math.exp(-eps)), math.exp(-eps) / (1 + math.exp(-eps))
    if family == "randomized-response" and mechanism.domain is not None and len(mechanism.domain) >= 2:
        if mechanism.name == "rappor":
            return None
        k = len(mechanism.domain)
        return math.exp(eps) / (math.exp(eps) + k - 1), 1 / (math.exp(eps) + k - 1)
    return None


def noisy_argmax_pmf(utilities: tuple[float, ...], scale: float) -> np.ndarray:
    """P[argmax_i (u_i + Z_i) = i] for iid Z_i ~ Lap(scale), by quadrature over the winner's value."""
    from scipy import integrate, stats

    noise = stats.laplace(scale=scale)
    u = np.asarray(utilities, dtype=float)
    pmf = []
    for i in range(len(u)):
        others = np.delete(u, i)

        def integrand(x, i=i, others=others):
            return noise.pdf(x - u[i]) * float(np.prod(noise.cdf(x - others)))

        lo, hi = u.min() - 60 * scale, u.max() + 60 * scale
        pmf.append(integrate.quad(integrand, lo, hi, points=sorted(set(u.tolist())), limit=200, epsabs=1e-13)[0])
    return np.asarray(pmf)


def rnm_scale(mechanism) -> float:
    """Laplace scale 2 Delta / eps of the catalogue's report noisy max."""
    return 2 * mechanism.sensitivity / mechanism.claim.epsilon


def best_event_limit(method: str, n: int, pmf_a: np.ndarray, pmf_b: np.ndarray, confidence: float) -> float:
    """max over every set S of outputs (both directions) of the plug-in bound at N = n."""
    best = -math.inf
    outputs = range(len(pmf_a))
    for size in range(1, len(pmf_a)):
        for subset in itertools.combinations(outputs, size):
            p, q = float(pmf_a[list(subset)].sum()), float(pmf_b[list(subset)].sum())
            best = max(best, limit(method, n, p, q, confidence), limit(method, n, q, p, confidence))
    return best


def estimated(mechanism, result, samples: int, seed: int) -> tuple[float, float]:
    """(p, p') of the reported event, estimated on ``samples`` fresh samples per side."""
    event = event_from_dict(result.event_spec)
    rng = np.random.default_rng(seed)
    probabilities = []
    for data in result.pair:
        data = _as_input(data)
        hits, done = 0, 0
        while done < samples:
            rows = min(ROWS_PER_CHUNK, samples - done)
            out = np.asarray(mechanism.sample(data, rows, rng)).astype(float).reshape(rows, -1)
            hits += int(np.count_nonzero(event.contains(out)))
            done += rows
        probabilities.append(hits / samples)
    return probabilities[0], probabilities[1]


def _as_input(value):
    return tuple(_as_input(v) for v in value) if isinstance(value, (list, tuple)) else value


def limit(method: str, n: int, p: float, q: float, confidence: float = CONFIDENCE, delta: float = 0.0) -> float:
    """The plug-in bound of ``method`` at counts round(n p), round(n q) out of n per side."""
    ka, kb = round(n * p), round(n * q)
    return float(bounds.epsilon_lower_bound(method, ka, n, kb, n, confidence, delta))


def machine_info() -> dict:
    import os

    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "")
    return {"python": platform.python_version(), "numpy": np.__version__, "nproc": os.cpu_count(), "cpu": cpu,
            "machine": platform.machine(), "system": platform.system()}


def write_results(path: Path, *, seed: int, confidence: float, started: float, default=str, **payload) -> float:
    """Write the benchmark envelope (versions, UTC time, machine, command, seed, confidence, seconds)
    followed by ``payload`` as JSON to ``path``; print and return the seconds since ``started``."""
    seconds = time.perf_counter() - started
    envelope = {
        "schema_version": 1,
        "dpaudit_version": dpaudit.__version__,
        "datetime": datetime.now(timezone.utc).isoformat(),
        "machine_info": machine_info(),
        "command": f"python benchmarks/{Path(sys.argv[0]).name} " + " ".join(sys.argv[1:]),
        "seed": seed,
        "confidence": confidence,
        "seconds": seconds,
        **payload,
    }
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(envelope, indent=2, default=default) + "\n")
    print(f"\nwrote {path} ({seconds:.0f} s)")
    return seconds


def limit_rows(args) -> list[dict]:
    entries = [m for m in dpaudit.catalogue()
               if m.pairs and isinstance(m.claim, dpaudit.PureDP)
               and ((m.true_epsilon is not None and math.isfinite(m.true_epsilon)) or m.name in EXACT_PMF)]
    print(f"Part 1: confidence {CONFIDENCE}, seed {args.seed}; search samples per side: "
          + ", ".join(f"N={n:.0e}: {search_budget(n)}" for n in SIZES))
    print(f"{'mechanism':<28} {'true eps':>8} {'N':>6} {'bound':>8} {'limit CP':>9} {'limit joint':>11} "
          f"{'ratio CP':>8} {'ratio joint':>11} {'time s':>7}  event")
    rows = []
    for mechanism in entries:
        sizes = [n for n in SIZES if n < 10**7 or not args.quick or mechanism.name in HEADLINE]
        pair = mechanism.pairs[0]
        results = [dpaudit.audit(mechanism, pair=pair, samples=n, seed=args.seed) for n in sizes]
        true_eps = mechanism.true_epsilon
        if mechanism.name in EXACT_PMF:
            pmf_a, pmf_b = (noisy_argmax_pmf(d, rnm_scale(mechanism)) for d in pair)
            true_eps = float(np.max(np.abs(np.log(pmf_a / pmf_b))))
            limits = [(best_event_limit("union", n, pmf_a, pmf_b, CONFIDENCE),
                       best_event_limit(r.method, n, pmf_a, pmf_b, CONFIDENCE)) for n, r in zip(sizes, results)]
            tag = " pmf"
        else:
            exact = closed_form(mechanism)
            p, q = exact if exact is not None else estimated(mechanism, results[-1], args.oracle_samples, args.seed + 1)
            limits = [(limit("union", n, p, q), limit(r.method, n, p, q)) for n, r in zip(sizes, results)]
            tag = "" if exact is not None else " est."
        for n, result, (lim_cp, lim_joint) in zip(sizes, results, limits):
            row = dict(mechanism=mechanism.name, true_epsilon=true_eps, n=n, bound=result.epsilon_lower_bound,
                       limit_cp=lim_cp, limit_joint=lim_joint, ratio_cp=result.epsilon_lower_bound / lim_cp,
                       ratio_joint=result.epsilon_lower_bound / lim_joint, limit_kind=tag.strip() or "exact",
                       event=result.event, seconds=result.elapsed_s, search_samples=result.search_samples)
            rows.append(row)
            print(f"{mechanism.name:<28} {true_eps:>8.4g} {n:>6.0e} {row['bound']:>8.4f} {lim_cp:>9.4f} "
                  f"{lim_joint:>11.4f} {row['ratio_cp']:>8.3f} {row['ratio_joint']:>11.3f}{tag:<5} "
                  f"{result.elapsed_s:>6.1f}  {result.event[:50]}", flush=True)
    return rows


def peer_rows(args) -> list[dict]:
    sizes = (10**6,) if args.quick else (10**6, 10**7)
    print(f"\nPart 2: published anchors (confidence {PEER_CONFIDENCE}, {PEER_SAMPLES:.0e} verification samples "
          f"per side) beside dpaudit at confidence {PEER_CONFIDENCE} (samples per side: verification + search)")
    print(f"{'benchmark':<48} {'true':>6} {'DP-Sniper':>15} {'StatDP':>7} {'samples/side':>13} {'default':>8} "
          f"{'pair+full':>9} {'>= peers':>8} {'time s':>7}  event (pair+full)")
    rows = []
    for anchor in ANCHORS:
        mechanism = anchor.build()
        for n in sizes:
            result = dpaudit.audit(mechanism, samples=n, seed=args.seed, confidence=PEER_CONFIDENCE)
            full = dpaudit.audit(mechanism, pair=mechanism.pairs[0], samples=n, seed=args.seed,
                                 confidence=PEER_CONFIDENCE, early_stopping=False)
            peers = [v for v in (anchor.dp_sniper[1] if anchor.dp_sniper else None, anchor.statdp) if v is not None]
            best = max(result.epsilon_lower_bound, full.epsilon_lower_bound)
            at_least = best >= max(peers)
            sniper = "-" if anchor.dp_sniper is None else (
                f"{anchor.dp_sniper[0]:.4g}" if anchor.dp_sniper[0] == anchor.dp_sniper[1]
                else f"{anchor.dp_sniper[0]:.4g}-{anchor.dp_sniper[1]:.4g}")
            total = n + result.search_samples
            leak = None
            if anchor.catalogue == "laplace-numpy":  # the auditor's lattice leak check, same budget per side
                from dpaudit.auditor.events.leaks.lattice import lattice_check

                a, b = mechanism.pairs[0]
                finding = lattice_check(mechanism, a, b, n_search=result.search_samples, n_verify=n, seed=args.seed,
                                        confidence=PEER_CONFIDENCE, queries=(0.0, 1.0))
                leak = {"bound": finding.epsilon_lower_bound, "event": finding.event, "proven_empty": finding.proven_empty}
                at_least = at_least or finding.epsilon_lower_bound >= max(peers)
            rows.append(dict(anchor.as_dict(), n=n, samples_per_side=total, fraction_of_peer_samples=total / PEER_SAMPLES,
                             bound=result.epsilon_lower_bound, lattice=leak, at_least_peers=at_least, verdict=result.verdict.value,
                             event=result.event, seconds=result.elapsed_s,
                             full_budget=dict(pair=full.pair, bound=full.epsilon_lower_bound, event=full.event,
                                              hits=full.hits, seconds=full.elapsed_s,
                                              samples_per_side=n + full.search_samples),
                             limit_at_n=limit("union", n, 0.5, 0.5 * math.exp(-0.1), PEER_CONFIDENCE)
                             if anchor.catalogue == "laplace" else None))
            print(f"{anchor.benchmark:<48} {anchor.true_epsilon:>6.4g} {sniper:>15} "
                  f"{'-' if anchor.statdp is None else f'{anchor.statdp:.4g}':>7} {total:>13.3g} "
                  f"{result.epsilon_lower_bound:>8.4f} {full.epsilon_lower_bound:>9.4f} {'yes' if at_least else 'NO':>8} "
                  f"{result.elapsed_s + full.elapsed_s:>7.1f}  {full.event[:40]}" + (f"; lattice check: {leak['bound']:.4f} on [{leak['event']}]" if leak else ""),
                  flush=True)
    return rows


# Rows where matching the peers needs more than 10^7 per side: (pair given and full budget?, N).
LARGE_PEER_RUNS = {"noisy-max-value-laplace": (True, 10**8), "svt-lyu-5": (False, 12 * 10**7)}


def large_peer_rows(args) -> list[dict]:
    """The rows of ``LARGE_PEER_RUNS`` at their budgets (``--large-peers``; about 1 min on 2 cores)."""
    print(f"\nPart 3: the rows that need more than 10^7 samples per side (confidence {PEER_CONFIDENCE})")
    rows = []
    for anchor in ANCHORS:
        if anchor.catalogue not in LARGE_PEER_RUNS:
            continue
        given, n = LARGE_PEER_RUNS[anchor.catalogue]
        mechanism = anchor.build()
        result = dpaudit.audit(mechanism, pair=mechanism.pairs[0] if given else None, samples=n, seed=args.seed,
                               confidence=PEER_CONFIDENCE, early_stopping=not given)
        peers = [v for v in (anchor.dp_sniper[1] if anchor.dp_sniper else None, anchor.statdp) if v is not None]
        total = n + result.search_samples
        rows.append(dict(anchor.as_dict(), n=n, pair_given=given, samples_per_side=total,
                         fraction_of_peer_samples=total / PEER_SAMPLES, bound=result.epsilon_lower_bound,
                         at_least_peers=result.epsilon_lower_bound >= max(peers), event=result.event,
                         hits=result.hits, seconds=result.elapsed_s))
        print(f"{anchor.benchmark:<48} peers {max(peers):.4g}  samples/side {total:.4g} "
              f"({total / PEER_SAMPLES:.1%})  bound {result.epsilon_lower_bound:.4f}  "
              f"{'>= peers' if rows[-1]['at_least_peers'] else 'below peers'}  {result.elapsed_s:.0f} s  {result.event}",
              flush=True)
    return rows


def _float_laplace_count(data, rng):
    return float(sum(data)) + rng.laplace(0.0, 1.0)


def last_look_rows() -> list[dict]:
    """Part 4: the tight Laplace at N = 10^5, 10^6, seeds 1-3, early stopping on and off (module docstring)."""
    oracle = (0.5, 0.5 * math.exp(-1.0))
    targets = {"laplace (catalogue)": ("laplace", {}),
               "sum(data) + Lap(1), floats": (_float_laplace_count, dict(epsilon=1.0, pair=([1, 1, 1], [1, 1]),
                                                                         checks=None))}
    print("Part 4: tight Laplace at epsilon 1, bound / joint limit of the oracle event, seeds 1-3")
    print(f"{'target':<28} {'N':>6} {'early stopping':>14} {'ratios (seeds 1, 2, 3)':>26} {'median':>7}")
    rows = []
    for label, (target, extra) in targets.items():
        for n in (10**5, 10**6):
            reference = limit("joint", n, *oracle)
            for early in (True, False):
                ratios = [dpaudit.audit(target, samples=n, seed=seed, early_stopping=early, executor="in-process",
                                        **extra).epsilon_lower_bound / reference for seed in (1, 2, 3)]
                median = float(np.median(ratios))
                print(f"{label:<28} {n:>6.0e} {'on' if early else 'off':>14} "
                      f"{', '.join(f'{r:.4f}' for r in ratios):>26} {median:>7.4f}")
                rows.append({"target": label, "samples": n, "early_stopping": early, "limit": reference,
                             "ratios": ratios, "median": median})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="N = 10^7 only for the headline mechanisms")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--oracle-samples", type=int, default=4_000_000)
    parser.add_argument("--skip-peers", action="store_true")
    parser.add_argument("--large-peers", action="store_true", help="also the peer rows at 10^8 samples per side")
    parser.add_argument("--last-look", action="store_true",
                        help="only part 4: the tight Laplace at 10^5 and 10^6, seeds 1-3, early stopping on and off")
    args = parser.parse_args()
    started = time.perf_counter()
    if args.last_look:
        last_look_rows()
        print(f"{time.perf_counter() - started:.0f} s")
        return
    rows = limit_rows(args)
    anchors = [] if args.skip_peers else peer_rows(args)
    large = large_peer_rows(args) if args.large_peers else []
    write_results(RESULTS, seed=args.seed, confidence=CONFIDENCE, started=started,
                  default=lambda v: "inf" if v == math.inf else str(v), limit=rows, peers=anchors, large_peers=large)


if __name__ == "__main__":
    main()
