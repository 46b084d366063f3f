"""The bound at the claimed delta beside the truth, for the classic and the analytic Gaussian.

Each row audits one Gaussian mechanism at its own (epsilon, delta) claim with ``checks=None`` (the
algorithm's own events: diffprivlib's float outputs also leak through their low bits, which the
default checks certify as a violation -- ``benchmarks/thirdparty.py`` -- and which would hide the
question asked here: how close the approximate-DP bound gets to the truth).  Columns:

* ``true eps``: the epsilon the mechanism really realises at the claimed delta, the root of
  Balle & Wang's exact delta(epsilon) (2018, Thm. 8) for its sigma;
* ``limit``: the best any single event can certify with N samples per side at confidence 0.95
  (threshold events, Clopper-Pearson union bound at the median counts round(N p), maximised over
  the threshold: NOTES "the physical limit");
* ``audit``: the reported bound with the default sequential verification (which stops for
  futility once no verified event can refute the claim: often at N/8);
* ``full N``: the same with ``early_stopping=False`` (one look at N);
* ``curve``: ``audit(..., curve=True).curve.epsilon_lower_bound(delta)``, the empirical curve at the
  claimed delta (simultaneous over the whole curve, N fresh samples per side).

``--choice`` adds the simulation behind :mod:`dpaudit.auditor.targeting`: which threshold each
search score picks on 5 x 10^5 search samples per side (10 seeds), and the expected verified bound
at N = 10^6 (median counts, confidence 0.95) of the event it picks.

Run: ``PYTHONPATH=. python benchmarks/approx_dp.py [--samples 1000000] [--seed 1] [--choice]``
(``--without-curve`` for a tree without ``audit(curve=...)``).  Writes benchmarks/results/approx_dp.json.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy.optimize import brentq
from scipy.stats import norm

import dpaudit
from dpaudit.auditor import bounds
from dpaudit.mechanisms.catalogue.gaussian import analytic_delta, analytic_sigma, classic_sigma

sys.path.insert(0, str(Path(__file__).parent))
from tightness import write_results  # noqa: E402

RESULTS = Path(__file__).parent / "results" / "approx_dp.json"
CONFIDENCE = 0.95


def rows():
    """(name, target, sigma, epsilon, delta)."""
    from diffprivlib.mechanisms import Gaussian, GaussianAnalytic

    return [
        ("gaussian (0.5, 1e-5)", dpaudit.get("gaussian"), classic_sigma(0.5, 1e-5), 0.5, 1e-5),
        ("gaussian-analytic (1, 1e-5)", dpaudit.get("gaussian-analytic"),
         analytic_sigma(1.0, 1e-5), 1.0, 1e-5),
        ("diffprivlib Gaussian (1, 1e-6)", Gaussian(epsilon=1.0, delta=1e-6, sensitivity=1.0), classic_sigma(1.0, 1e-6),
         1.0, 1e-6),
        ("diffprivlib GaussianAnalytic (1, 1e-5)", GaussianAnalytic(epsilon=1.0, delta=1e-5, sensitivity=1.0),
         analytic_sigma(1.0, 1e-5), 1.0, 1e-5),
    ]


def true_epsilon(sigma: float, delta: float) -> float:
    """The root of delta_BW(sigma, epsilon) = delta (Balle & Wang 2018, Thm. 8)."""
    return brentq(lambda e: analytic_delta(sigma, e) - delta, 0.0, 50.0)


def event_limit(sigma: float, delta: float, n: int, confidence: float = CONFIDENCE) -> float:
    """max over thresholds t of ln((CP_lo(round(n P_a)) - delta) / CP_hi(round(n P_b))), shift 1, noise sigma."""
    t = np.linspace(-16 * sigma, 1.0, 40001)
    pa, pb = norm.cdf(t / sigma), norm.cdf((t - 1.0) / sigma)
    values = bounds.union_bound(np.round(n * pa), n, np.round(n * pb), n, confidence, delta)
    return float(np.max(values))


def choice_rows(seeds: int = 10) -> list[dict]:
    """Expected verified bound (N = 10^6) of the threshold each search score picks on 5 x 10^5 samples per side."""
    from dpaudit.auditor.targeting import targeted_score

    n, n_search, out = 10**6, 5 * 10**5, []
    for name, sigma, delta in (("analytic (1, 1e-5)", analytic_sigma(1.0, 1e-5), 1e-5),
                               ("classic (1, 1e-6)", classic_sigma(1.0, 1e-6), 1e-6)):

        def expected(t: float) -> float:
            pa, pb = norm.cdf(t / sigma), norm.cdf((t - 1.0) / sigma)
            return float(bounds.union_bound(round(n * pa), n, round(n * pb), n, CONFIDENCE, delta))

        scores = {
            "plug-in p^ = k/n": lambda ka, na, kb, nb: bounds.union_bound(ka * n / na, n, kb * n / nb, n, CONFIDENCE, delta),
            "strict (search size, Bonferroni 10^4)": lambda ka, na, kb, nb: bounds.union_bound(
                ka, na, kb, nb, 1 - (1 - CONFIDENCE) / 10**4, delta),
            "targeted (shrunk at 0.975)": targeted_score(n, CONFIDENCE, delta),
        }
        for label, score in scores.items():
            picked = []
            for seed in range(seeds):
                rng = np.random.default_rng(seed)
                a, b = np.sort(rng.normal(0, sigma, n_search)), np.sort(rng.normal(1, sigma, n_search))
                cuts = np.unique(np.r_[a, b])
                keep = np.unique(np.r_[np.arange(256), np.linspace(256, cuts.size - 257, 1536).astype(int),
                                       np.arange(cuts.size - 256, cuts.size)])
                cuts = cuts[keep]
                ka, kb = np.searchsorted(a, cuts, "right"), np.searchsorted(b, cuts, "right")
                values = np.nan_to_num(score(ka, n_search, kb, n_search), neginf=-1e9, nan=-1e9)
                picked.append(expected(float(cuts[int(np.argmax(values))])))
            out.append({"mechanism": name, "score": label, "mean": float(np.mean(picked)), "min": float(np.min(picked)),
                        "limit": event_limit(sigma, delta, n)})
            print(f"  {name:<20} {label:<40} mean {np.mean(picked):.3f}  min {np.min(picked):.3f}  "
                  f"limit {out[-1]['limit']:.3f}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=10**6)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--choice", action="store_true", help="also run the search-score simulation")
    parser.add_argument("--without-curve", action="store_true", help="skip the curve column (older trees)")
    args = parser.parse_args()
    started = time.perf_counter()
    table = []
    print(f"N = {args.samples} per side, seed {args.seed}, checks=None, confidence {CONFIDENCE}")
    print(f"{'mechanism':<40} {'true eps':>8} {'limit':>7} {'audit':>7} {'full N':>7} {'curve':>7}  event (full N)")
    for name, target, sigma, epsilon, delta in rows():
        common = dict(samples=args.samples, seed=args.seed, executor="in-process", checks=None)
        default = dpaudit.audit(target, **common)
        full = dpaudit.audit(target, early_stopping=False, **common)
        curve = None
        if not args.without_curve:
            curve = dpaudit.audit(target, curve=True, **common).curve.epsilon_lower_bound(delta)
        row = {"mechanism": name, "sigma": sigma, "epsilon": epsilon, "delta": delta,
               "true_epsilon": true_epsilon(sigma, delta), "limit": event_limit(sigma, delta, args.samples),
               "audit": default.epsilon_lower_bound, "audit_samples_used": default.stopping.samples_used,
               "full_n": full.epsilon_lower_bound, "curve": curve, "event": full.event}
        table.append(row)
        shown = "-" if curve is None else f"{curve:.4f}"
        print(f"{name:<40} {row['true_epsilon']:>8.4f} {row['limit']:>7.4f} {row['audit']:>7.4f} {row['full_n']:>7.4f} "
              f"{shown:>7}  {full.event}")
    choice = []
    if args.choice:
        print("\nsearch score -> expected verified bound of the chosen event at N = 10^6 (10 seeds)")
        choice = choice_rows()
    write_results(RESULTS, seed=args.seed, confidence=CONFIDENCE, started=started, samples=args.samples, rows=table,
                  choice=choice)


if __name__ == "__main__":
    main()
