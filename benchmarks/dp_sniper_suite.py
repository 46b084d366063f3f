"""DP-Sniper's and StatDP's benchmark suites at epsilon = 0.1: dpaudit's bound against the peers' published ones.

The mechanisms are DP-Sniper's whole suite (20), re-implemented from its artefact (Bichsel, Steffen,
Bogunovic & Vechev, "DP-Sniper: Black-Box Discovery of Differential Privacy Violations using
Classifiers", IEEE S&P 2021; ``dpsniper/mechanisms/*.py``, parameters of
``dpsniper/experiments/exp_default.py``): same noise (numpy doubles), same output encodings (sparse
vector: 1 above, 0 below, -1 aborted; Alg. 3: the noisy value, -1000.0 below, -2000.0 aborted), same
parameters (SVT1: c = 1, T = 0.5; SVT2-6: c = 1, T = 1; SVT34Parallel and NumericalSVT: c = 2, T = 1;
LaplaceParallel: 20 copies at eps = 0.005; TruncatedGeometric: Balcer & Vadhan's GeoSample, n = 5;
RAPPOR: f = 0.75, p = 0.45, q = 0.55, OneTimeRappor: f = 0.95, both 4 hashes into 20 bits).  StatDP's
suite (Ding, Wang, Wang, Zhang & Kifer, "Detecting Violations of Differential Privacy", CCS 2018:
noisy max variants, histograms, sparse vector variants, Laplace) is covered by the same mechanisms.

Published figures (confidence 0.90, 2 x 10^8 verification samples per side), written below as data
with their source lines in DP-Sniper's artefact, ``eval_sp2021/reference-results/``:

* DP-Sniper: the logistic-regression run ``dd_search_reg_data.log`` (its best pair ``best_result``,
  its bound ``eps_lcb``, its event's probabilities ``p1``, ``p2``);
* StatDP: its two runs as re-run and verified in DP-Sniper's evaluation, ``statdp_1_data.log`` and
  ``statdp_2_data.log`` (``statdp_result``: ``eps_lcb``, the pair ``a1``/``a2``, the event; the
  ``p1``/``p2`` lines before it); the row keeps the better run of the two.  StatDP did not run
  NumericalSVT.

dpaudit's audit: ``dpaudit.audit`` as it is, the pair given, ``early_stopping=False`` (the whole budget
spent: the bound's size, not only the verdict), confidence 0.90 as the peers, N verification samples
per side plus the search stage (``search_budget(N)``: N/2, up to 2 x 10^6).  Columns:

* ``off`` / ``on``: ``checks=None`` (the float-lattice checks off: only the algorithm is measured, not
  the doubles), the learned family (:mod:`dpaudit.auditor.events.learned`) off / on, on DP-Sniper's
  pair; ``off`` at the smallest N of ``--samples`` only, ``on`` at every N;
* ``float``: the same samplers with ``checks="default"`` (the implementation bound: the leak families
  see the doubles), at the smallest N; beside it the algorithmic bound of the same audit (its own
  events, :mod:`dpaudit.auditor.scopes`);
* ``StatDP pair``: ``on`` on StatDP's best pair when it differs from DP-Sniper's (as an unordered pair:
  the audit tests both directions); the ratio to StatDP's figure is dpaudit's bound at StatDP's pair.

* ``black-box``: dpaudit given only DP-Sniper's input domain, no pair: ``dpaudit.audit(f, epsilon=claim,
  data=[1.0] * d, neighbours="query-distance:1:linf", samples=N)`` (d the row's input dimension; it
  screens the Ding et al. patterns around that base itself), ``checks=None`` as ``on``; the RAPPOR rows,
  whose inputs are any two values (local model), get DP-Sniper's integer domain -10..10 instead
  (:data:`RAPPOR_DOMAIN`) and claim the largest exact epsilon over its pairs.  Its table gives the bound
  (the median over ``--seeds``), the pair chosen, the exact epsilon there where it is known
  (:data:`EXACT_ON_PATTERNS`, RAPPOR: :func:`rappor_pair_epsilon`), the outputs drawn in all (search,
  screening and verification, ``result.run.draws``) beside DP-Sniper's (:data:`DP_SNIPER_DRAWS`), and
  the wall time beside the time numpy takes to draw as many outputs of the row's sampler
  (:func:`numpy_seconds`, timed on 10^6 outputs and scaled).

* ``black-box-search``: the same at the smallest N with ``search_samples`` = ``SEARCH_FACTOR`` x N per side
  (the default is N/2): what a larger search buys at 10^6, where the default search's strict score cannot
  yet tell a witness of small mass from heavier events (:mod:`dpaudit.auditor.screening`).  Its cells give
  the outputs drawn in all beside DP-Sniper's, as the black-box column's do.

"DPS@N" / "StatDP@N" is what the peer's own event certifies at dpaudit's N per side: its published
probabilities as median counts k = round(N p1), k' = round(N p2) (StatDP's swapped so that p1 >= p2,
as DP-Sniper's verification of StatDP does), the Clopper-Pearson union bound at 0.90 (the peers' own
method: at N = 2 x 10^8 it gives back their published figures, tests/benchmarks).  The ratios
"/DPS@N", "/StatDP@N" are the comparison at equal verification samples.

Claims and "private": every mechanism claims epsilon = 0.1 except GeoSample, which is
ln(1 + 2^-ceil(ln(2/eps)))-DP (Balcer & Vadhan 2018, Thm. 4.7: 0.1178 at eps = 0.1; claimed so), and
the RAPPOR rows, which claim the exact epsilon of the audited pair (:func:`rappor_pair_epsilon`).
A private row flagged ``violation`` by an algorithmic event is a false alarm, printed with ``!!``.

The peers' own budget: with 2 x 10^8 in ``--samples`` the ``on`` audits at both pairs are run there too
(a block "2x10^8": the bounds, their ratios to the published figures, the wall time, "fits" under 10
minutes); without it the column "time at 2x10^8 (est.)" extrapolates that wall time from the measured
ones (:func:`peer_budget_seconds`; an extrapolation, not a run).

Every audit (a "cell": row, pair, column, N, seed) is stored in ``benchmarks/results/dp_sniper_suite/``
as it finishes; a rerun reuses the stored cells and measures only the missing ones (``--rerun``
measures again), so a long column can be run row by row and resumed; ``--jobs`` runs cells in parallel
processes; ``--report`` prints the table from the stored cells only.  RAPPOR's Bloom filter needs
MurmurHash3: ``pip install 'dpaudit[benchmarks]'`` (or ``pip install mmh3``).

Speed: each cell also records its stages' times (``result.run.times``) and ``draw_seconds``, the time the
row's own sampler takes to draw the outputs the audit drew (N plus the search samples per side, in the
audit's chunks, in this process, as the audit's ``executor="in-process"``); the column "time on N" gives
the audit's wall time, that time and their ratio.

Run: ``PYTHONPATH=. python benchmarks/dp_sniper_suite.py [--samples 1000000,10000000] [--only SVT3,Rappor]
[--columns on,off,float,black-box] [--pairs dp-sniper,statdp] [--seed 1] [--seeds 1-5] [--jobs 1] [--rerun]
[--report]`` (writes benchmarks/results/dp_sniper_suite.json, the black-box column
dp_sniper_suite_black_box.json, each holding every row: a run with ``--only`` stores its cells and leaves
both files as they were); ``--columns black-box --samples 1000000,10000000,20000000`` runs the
black-box column alone, ``--seeds`` the seeds of its median, ``--pairs`` the pairs of the other columns.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

import dpaudit
from dpaudit.auditor import bounds
from dpaudit.auditor.run.executors import chunk_sizes

sys.path.insert(0, str(Path(__file__).parent))
from tightness import write_results  # noqa: E402

RESULTS = Path(__file__).parent / "results" / "dp_sniper_suite.json"
BLACK_BOX_RESULTS = Path(__file__).parent / "results" / "dp_sniper_suite_black_box.json"
CELLS = Path(__file__).parent / "results" / "dp_sniper_suite"
EPSILON = 0.1
CONFIDENCE = 0.90
PEER_SAMPLES = 200_000_000  # the peers' verification samples per side
TEN_MINUTES = 600.0
DP_SNIPER_DRAWS = 16 * 3 * 10_700_000 + 2 * PEER_SAMPLES
"""DP-Sniper's outputs drawn per mechanism: 16 input pairs x 3 x 10.7 million, then its best pair's final
estimate, 2 x 10^8 on each of the 2 sides (its ``exp_default.py``): 913.6 million."""
RAPPOR_DOMAIN = tuple(float(v) for v in range(-10, 11))
"""DP-Sniper's input domain for the RAPPOR rows: one integer in [-10, 10] (its ``exp_default.py``)."""
NUMPY_TIMED = 1_000_000

Pair = tuple[tuple[float, ...], tuple[float, ...]]
Sampler = Callable[[Any, int, np.random.Generator], np.ndarray]


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


def laplace(q, n, rng):
    """The Laplace mechanism on one count: q + Lap(1/eps) (DP-Sniper ``LaplaceMechanism``)."""
    return float(np.asarray(q).reshape(-1)[0]) + rng.laplace(0.0, 1 / EPSILON, n)


def _count(q, low: int, high: int) -> int:
    value = float(np.asarray(q).reshape(-1)[0])
    if not value.is_integer() or not low <= value <= high:
        raise ValueError(f"the input must be an integer in [{low}, {high}], got {value!r}")
    return int(value)


def geo_sample_cdf(count: int, individuals: int, k: int) -> np.ndarray:
    """Balcer & Vadhan 2018, Alg. 4.8 step 2: the integer CDF F(z), z = 0..n, of GeoSample at count c.

    With D = (2^(k+1) + 1)(2^k + 1)^(n-1):  F(z) = 2^(k(c-z)) (2^k + 1)^(n-(c-z)) for z < c,
    F(z) = D - 2^(k(z-c+1)) (2^k + 1)^(n-1-(z-c)) for c <= z < n, and F(n) = D; the output is the
    smallest z with F(z) >= U, U uniform on {1, ..., D}.
    """
    total = (2 ** (k + 1) + 1) * (2**k + 1) ** (individuals - 1)
    cdf = [2 ** (k * (count - z)) * (2**k + 1) ** (individuals - (count - z)) for z in range(count)]
    cdf += [total - 2 ** (k * (z - count + 1)) * (2**k + 1) ** (individuals - 1 - (z - count))
            for z in range(count, individuals)]
    return np.array(cdf + [total], dtype=np.int64)


def geo_sample_epsilon(epsilon: float = EPSILON) -> float:
    """GeoSample(eps, n) is ln(1 + 2^-k)-DP with k = ceil(ln(2/eps)) (Balcer & Vadhan 2018, Thm. 4.7)."""
    return math.log1p(2.0 ** -math.ceil(math.log(2 / epsilon)))


def truncated_geometric(individuals: int = 5) -> Sampler:
    """GeoSample (Balcer & Vadhan 2018, Alg. 4.8): a truncated geometric on {0..n} from integer arithmetic
    only (DP-Sniper ``TruncatedGeometricMechanism``, n = 5, eps = 0.1: k = 3, D = 17 * 9^4)."""
    k = math.ceil(math.log(2 / EPSILON))

    def sample(q, n, rng):
        cdf = geo_sample_cdf(_count(q, 0, individuals), individuals, k)
        return np.searchsorted(cdf, rng.integers(1, cdf[-1] + 1, n), side="left").astype(float)

    return sample


RAPPOR_BITS, RAPPOR_HASHES = 20, 4


def bloom_filter(value: int) -> frozenset[int]:
    """RAPPOR's Bloom filter of one value: bits MurmurHash3(str(value), seed i) mod 20, i = 0..3 (as DP-Sniper)."""
    try:
        import mmh3
    except ImportError:
        raise SystemExit("RAPPOR rows need MurmurHash3: pip install 'dpaudit[benchmarks]' (or pip install mmh3)") \
            from None
    return frozenset(mmh3.hash(str(value), seed=i) % RAPPOR_BITS for i in range(RAPPOR_HASHES))


def rappor_bit_probabilities(f: float, p: float | None, q: float | None) -> tuple[float, float]:
    """P[reported bit = 1 | Bloom bit 1] and P[... | Bloom bit 0] after the permanent randomized response
    (bit -> 1 w.p. f/2, 0 w.p. f/2, kept w.p. 1 - f) and, unless p, q are None (one-time RAPPOR), the
    instantaneous one (1 w.p. q if the permanent bit is 1, p if it is 0) (Erlingsson, Pihur & Korolova, CCS 2014):
    P[1|1] = (1 - f/2) q + (f/2) p and P[1|0] = (f/2) q + (1 - f/2) p, with q = 1, p = 0 for the one-time one."""
    q_, p_ = (1.0, 0.0) if p is None or q is None else (q, p)
    return (1 - f / 2) * q_ + f / 2 * p_, f / 2 * q_ + (1 - f / 2) * p_


def rappor_pair_epsilon(a: int, b: int, f: float, p: float | None = None, q: float | None = None) -> float:
    """The exact epsilon of RAPPOR between inputs a and b: the reported bits are independent given the
    Bloom filters, identical filter bits cancel in the likelihood ratio, and each of the d = |B(a) xor B(b)|
    differing bits contributes at most eps_bit = max(ln(P[1|1] / P[1|0]), ln(P[0|0] / P[0|1])), reached
    together by one output (each differing bit at its worse value): epsilon = d * eps_bit."""
    one_given_one, one_given_zero = rappor_bit_probabilities(f, p, q)
    per_bit = max(math.log(one_given_one / one_given_zero), math.log((1 - one_given_zero) / (1 - one_given_one)))
    return len(bloom_filter(a) ^ bloom_filter(b)) * per_bit


def rappor(f: float, p: float | None = None, q: float | None = None) -> Sampler:
    """RAPPOR steps 1-3 (p, q given) or one-time RAPPOR, steps 1-2 (Erlingsson et al. 2014; DP-Sniper
    ``Rappor``, ``OneTimeRappor``): the 20-bit Bloom filter of the value, each bit through the permanent
    randomized response (drawn afresh per run, as DP-Sniper does) and, for RAPPOR, the instantaneous one."""

    def sample(value, n, rng):
        bits = np.zeros(RAPPOR_BITS)
        bits[sorted(bloom_filter(_count(value, -10, 10)))] = 1.0
        u = rng.random((n, RAPPOR_BITS))
        permanent = np.where(u < f / 2, 1.0, np.where(u < f, 0.0, bits))
        if p is None or q is None:
            return permanent
        return (rng.random((n, RAPPOR_BITS)) < np.where(permanent == 1.0, q, p)).astype(float)

    return sample


@dataclass(frozen=True)
class StatDPRun:
    """StatDP's better run on a mechanism: its bound, pair, event and the event's probabilities p1, p2."""

    eps_lcb: float
    pair: Pair
    event: str  # StatDP's postprocessing and event, as logged
    p1: float
    p2: float
    source: str  # the statdp_result line it is taken from


@dataclass(frozen=True)
class Row:
    """One benchmark mechanism: its DP-Sniper name, sampler, best pair, published bounds, privacy, claim."""

    name: str
    sampler: Sampler
    pair: Pair
    dp_sniper: float
    dp_sniper_event: tuple[float, float]  # (p1, p2): DP-Sniper's estimates of its event's probabilities
    private: bool
    statdp: StatDPRun | None = None
    note: str = ""
    claim: Callable[[Pair], float] = field(default=lambda pair: EPSILON)  # the epsilon claimed on a pair
    neighbours: Any = field(default_factory=lambda: dpaudit.QueryDistance(1.0, "linf"))

    def pairs(self) -> dict[str, Pair]:
        """DP-Sniper's pair and, when it differs as an unordered pair, StatDP's."""
        pairs = {"dp-sniper": self.pair}
        if self.statdp is not None and {self.statdp.pair[0], self.statdp.pair[1]} != {self.pair[0], self.pair[1]}:
            pairs["statdp"] = self.statdp.pair
        return pairs

    def mechanism(self, pair: Pair) -> dpaudit.Mechanism:
        return dpaudit.Mechanism.from_callable(
            self.sampler, claim=dpaudit.PureDP(self.claim(pair)), neighbours=self.neighbours,
            name=self.name, vectorised=True,
        )


def _rappor_claim(f: float, p: float | None = None, q: float | None = None) -> Callable[[Pair], float]:
    return lambda pair: rappor_pair_epsilon(int(pair[0][0]), int(pair[1][0]), f, p, q)


ONES5, ONES10 = (1.0,) * 5, (1.0,) * 10
HALF = (1.0,) * 5 + (0.0,) * 5
HALF_SWAPPED = (0.0,) * 5 + (1.0,) * 5
UP_DOWN = (2.0,) * 5 + (0.0,) * 5
ONE_UP = (2.0,) + (1.0,) * 4
ONE_UP_OTHERS_DOWN = (2.0,) + (0.0,) * 4
S1, S2 = "statdp_1_data.log", "statdp_2_data.log"

# DP-Sniper's figures: dd_search_reg_data.log ("best_result" a1/a2, "p1", "p2", "eps_lcb" at the line given);
# StatDP's: the better of its two runs (statdp_result at the line given, the p1/p2 lines before it).
ROWS: tuple[Row, ...] = (
    Row("LaplaceMechanism", laplace, ((1.0,), (2.0,)), 0.0968, (0.011047, 0.010005), True,
        StatDPRun(0.0998, ((1.0,), (0.0,)), "EntryPP(0) in (-inf, -0.834)", 0.4161176, 0.459916945, f"{S1}:30"),
        note="DP-Sniper line 8"),
    Row("TruncatedGeometric", truncated_geometric(), ((2.0,), (1.0,)), 0.1156, (0.011248, 0.009998), True,
        StatDPRun(0.1169, ((1.0,), (0.0,)), "EntryPP(0) == 2", 0.052297835, 0.04648265, f"{S2}:64"),
        note="DP-Sniper line 16; claim ln(1 + 2^-3) = 0.1178 (GeoSample)",
        claim=lambda pair: geo_sample_epsilon()),
    Row("NoisyHist1", noisy_hist(False), ((0.0,) + (1.0,) * 4, ONES5), 0.0978, (0.011123, 0.010064), True,
        StatDPRun(0.0994, (ONES5, ONE_UP), "EntryPP(0) in (-inf, -7.82)", 0.20701144, 0.18732938, f"{S2}:94"),
        neighbours=dpaudit.QueryDistance(1.0, "l1")),
    Row("NoisyHist2", noisy_hist(True), ((0.0,) + (1.0,) * 4, ONES5), 4.6020, (0.998867, 0.010009), False,
        StatDPRun(10.0022, (ONES5, ONE_UP), "EntryPP(0) in (-inf, 0.951)", 0.30643086, 1.3445e-05, f"{S2}:148"),
        neighbours=dpaudit.QueryDistance(1.0, "l1")),
    Row("ReportNoisyMax1", report_noisy_max("laplace", False),
        (ONES5, (0.0,) + (2.0,) * 4), 0.0923, (0.010988, 0.009997), True,
        StatDPRun(0.0921, (ONES5, ONE_UP_OTHERS_DOWN), "EntryPP(0) == 0", 0.200016165, 0.219412235, f"{S2}:178")),
    Row("ReportNoisyMax2", report_noisy_max("exponential", False),
        (ONES5, (0.0,) + (2.0,) * 4), 0.0975, (0.011056, 0.010006), True,
        StatDPRun(0.0997, (ONES5, ONE_UP_OTHERS_DOWN), "EntryPP(0) == 0", 0.19998388, 0.22104362, f"{S2}:208")),
    Row("ReportNoisyMax3", report_noisy_max("laplace", True),
        ((0.0,) * 5, ONES5), 0.2478, (0.012882, 0.010033), False,
        StatDPRun(0.1991, (ONES5, (2.0,) * 5), "EntryPP(0) in (-inf, 3.85)", 0.058262955, 0.04769551, f"{S1}:242"),
        note="scalar output"),
    Row("ReportNoisyMax4", report_noisy_max("exponential", True),
        (ONES5, (2.0,) * 5), 0.3463, (0.014219, 0.010035), False,
        StatDPRun(0.1988, (ONES5, (0.0,) * 5), "EntryPP(0) in (-inf, 16.8)", 0.048197975, 0.05885808, f"{S2}:276"),
        note="scalar output"),
    Row("SVT1", svt(1, t=0.5), (HALF_SWAPPED, HALF), 0.0858, (0.010873, 0.009957), True,
        StatDPRun(0.0298, (HALF, HALF_SWAPPED), "CountPP(False) == 9", 0.005935295, 0.0061334, f"{S2}:310")),
    Row("SVT2", svt2(), (HALF_SWAPPED, HALF), 0.0859, (0.010917, 0.009995), True,
        StatDPRun(0.0407, (ONES10, UP_DOWN), "CountPP(False) == 8", 0.008031005, 0.0076907, f"{S2}:344")),
    Row("SVT3", svt(3), (ONES10, UP_DOWN), 0.1716, (0.011929, 0.010026), False,
        StatDPRun(0.1793, (ONES10, (2.0,) + (0.0,) * 9), "EntryPP(5) in (-inf, 0)", 0.00013142, 0.0001603,
                  f"{S2}:386")),
    Row("SVT4", svt(4), (ONES10, UP_DOWN), 0.1687, (0.011913, 0.010042), False,
        StatDPRun(0.1719, (ONES10, UP_DOWN), "CountPP(False) == 5", 0.016729405, 0.01406084, f"{S2}:420")),
    Row("SVT5", svt(5), (UP_DOWN, ONES10), 1.7612, (0.058288, 0.01), False,
        StatDPRun(14.3143, (ONES10, UP_DOWN), "HammingDistancePP == 5", 0.0, 0.024684015, f"{S1}:470")),
    Row("SVT6", svt(6), (HALF, HALF_SWAPPED), 0.2720, (0.013147, 0.009994), False,
        StatDPRun(0.3220, (HALF, HALF_SWAPPED), "HammingDistancePP == 1", 0.00508151, 0.003669395, f"{S1}:508")),
    Row("Rappor", rappor(0.75, 0.45, 0.55), ((1.0,), (0.0,)), 0.2930, (0.013424, 0.009993), True,
        StatDPRun(0.2416, ((1.0,), (0.0,)), "HammingDistancePP == 3", 0.00075979, 0.00097513, f"{S1}:546"),
        note="DP-Sniper line 120; claim: the pair's exact epsilon", claim=_rappor_claim(0.75, 0.45, 0.55),
        neighbours=dpaudit.Local()),
    Row("OneTimeRappor", rappor(0.95), ((1.0,), (0.0,)), 0.5978, (0.018149, 0.009963), True,
        StatDPRun(0.4706, ((1.0,), (2.0,)), "HammingDistancePP == 3", 0.00213882, 0.00132832, f"{S1}:588"),
        note="DP-Sniper line 128; claim: the pair's exact epsilon", claim=_rappor_claim(0.95),
        neighbours=dpaudit.Local()),
    Row("LaplaceParallel", laplace_parallel, ((1.0,), (0.0,)), 0.0350, (0.010403, 0.010022), True,
        StatDPRun(0.0135, ((1.0,), (2.0,)), "MaxPP in (-inf, 281)", 0.071898115, 0.070874995, f"{S2}:614")),
    Row("SVT34Parallel", svt34_parallel, (ONES10, UP_DOWN), 0.2610, (0.013006, 0.009996), False,
        StatDPRun(0.1963, (ONES10, (0.0,) * 10), "EntryPP(9) in (-inf, 0)", 7.717e-05, 9.6295e-05, f"{S2}:660")),
    Row("PrefixSum", prefix_sum, (ONES10, (0.0,) * 10), 0.5040, (0.01655, 0.009977), False,
        StatDPRun(0.3516, (ONES10, (2.0,) * 10), "EntryPP(9) in (-inf, -32.2)", 0.16669125, 0.117208875, f"{S1}:698")),
    Row("NumericalSVT", numerical_svt(), ((2.0,) * 10, ONES10), 0.0343, (0.010394, 0.010021), True,
        note="StatDP did not run it"),
)
ROW_BY_NAME = {row.name: row for row in ROWS}

EXACT_ON_PATTERNS = {
    "LaplaceMechanism": 0.1, "TruncatedGeometric": 0.1178, "NoisyHist1": 0.1, "NoisyHist2": 10.0,
    "ReportNoisyMax1": 0.0946, "ReportNoisyMax3": 0.250, "ReportNoisyMax4": math.inf, "SVT1": 0.0885,
    "SVT2": 0.0882, "SVT3": 0.500, "SVT4": 0.1725, "SVT5": math.inf, "SVT6": 0.420, "LaplaceParallel": 0.1,
    "SVT34Parallel": 0.487, "PrefixSum": 1.0, "NumericalSVT": 0.0805,
}
"""The exact epsilon over the input pairs of DP-Sniper's pattern generator (dimension 5 or 10, both
orders), where it is known: numerical integration (SVT*, ReportNoisyMax1/3, NumericalSVT), the
closed forms (Laplace: 0.1; NoisyHist2: 1/eps = 10; LaplaceParallel: 20 x 0.005; PrefixSum: 10 x 0.1;
GeoSample: Balcer & Vadhan Thm. 4.7) and disjoint supports (ReportNoisyMax4, SVT5: infinite).  The RAPPOR
rows' exact epsilon is per pair (:func:`rappor_pair_epsilon`)."""


def _dimension(row: Row) -> int:
    return len(row.pair[0])


def _local(row: Row) -> bool:
    return isinstance(row.neighbours, dpaudit.Local)


def black_box_claim(row: Row) -> float:
    """The epsilon a black-box audit of ``row`` claims: the row's claim, for RAPPOR the largest exact
    epsilon over the pairs of :data:`RAPPOR_DOMAIN`."""
    if not _local(row):
        return row.claim(row.pair)
    return max(row.claim(((a,), (b,))) for a in RAPPOR_DOMAIN for b in RAPPOR_DOMAIN if a < b)


def exact_at(row: Row, pair: Any) -> float | None:
    """The exact epsilon at the black-box audit's chosen ``pair``, where known."""
    if _local(row):
        a, b = (float(np.asarray(x).reshape(-1)[0]) for x in pair)
        return row.claim(((a,), (b,)))
    return EXACT_ON_PATTERNS.get(row.name)


def black_box_audit(row: Row, samples: int, seed: int, search_samples: int | None = None) -> dpaudit.AuditResult:
    """dpaudit given DP-Sniper's domain only (the module docstring's ``black-box`` column; with
    ``search_samples``, its ``black-box-search`` column)."""
    options = dict(samples=samples, seed=seed, confidence=CONFIDENCE, early_stopping=False, executor="in-process",
                   checks=None, progress=False, search_samples=search_samples)
    if _local(row):
        mechanism = dpaudit.Mechanism.from_callable(row.sampler, claim=dpaudit.PureDP(black_box_claim(row)),
                                                    neighbours=row.neighbours, name=row.name, vectorised=True,
                                                    domain=RAPPOR_DOMAIN)
        return dpaudit.audit(mechanism, **options)
    return dpaudit.audit(row.sampler, epsilon=black_box_claim(row), data=[1.0] * _dimension(row),
                         neighbours=row.neighbours, **options)


def numpy_seconds(row: Row, pair: Any, draws: int) -> float:
    """The time numpy takes to draw ``draws`` outputs of the row's sampler on ``pair`` (half on each
    input): ``NUMPY_TIMED`` of them timed, scaled linearly."""
    rng = np.random.default_rng(0)
    started = time.perf_counter()
    for x in pair:
        row.sampler(x, NUMPY_TIMED // 2, rng)
    return (time.perf_counter() - started) * draws / NUMPY_TIMED


def peer_at(p1: float, p2: float, samples: int) -> float:
    """A peer's own event at ``samples`` per side: Clopper-Pearson on each side, union, confidence 0.90,
    with the median counts k = round(N max(p1, p2)), k' = round(N min(p1, p2)) plugged in; 0 when it
    certifies nothing."""
    high, low = max(p1, p2), min(p1, p2)
    k1, k2 = round(samples * high), round(samples * low)
    return max(float(bounds.epsilon_lower_bound("union", k1, samples, k2, samples, CONFIDENCE, 0.0)), 0.0)


# --- cells: one audit each, stored as it finishes ----------------------------------------------------

COLUMNS = {  # column -> audit options ("black-box", "black-box-search": black_box_audit)
    "off": {"checks": None, "learned": False},
    "on": {"checks": None, "learned": True},
    "float": {"checks": "default", "learned": True},
    "black-box": {},
    "black-box-search": {},
}
BLACK_BOX = ("black-box", "black-box-search")
SEARCH_FACTOR = 2
"""The ``black-box-search`` column's search samples per side, as a multiple of N."""


@dataclass(frozen=True)
class Cell:
    """One audit: a row, one of its pairs ("dp-sniper", "statdp"; "domain" for the black-box column), a
    column, N per side and a seed."""

    row: str
    pair: str
    column: str
    samples: int
    seed: int

    def path(self) -> Path:
        return CELLS / f"{self.row}-{self.pair}-{self.column}-{self.samples}-seed{self.seed}.json"

    def stored(self) -> dict[str, Any] | None:
        return json.loads(self.path().read_text()) if self.path().exists() else None


def _commit() -> str | None:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=Path(__file__).parent,
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


_WARM: list[bool] = []


def warm_up() -> None:
    """Once per process, a small audit of a vector row with every family: the imports (scipy, scikit-learn) are
    then done before any cell's time is taken."""
    if not _WARM:
        row = ROW_BY_NAME["SVT1"]
        dpaudit.audit(row.mechanism(row.pair), pair=row.pair, samples=2_000, seed=0, executor="in-process",
                      progress=False)
        _WARM.append(True)


def measure(cell: Cell) -> dict[str, Any]:
    """Run the cell's audit, store and return its record."""
    warm_up()
    row = ROW_BY_NAME[cell.row]
    started = time.perf_counter()
    if cell.column in BLACK_BOX:
        result = black_box_audit(row, cell.samples, cell.seed,
                                 SEARCH_FACTOR * cell.samples if cell.column == "black-box-search" else None)
    else:
        pair = row.pairs()[cell.pair]
        result = dpaudit.audit(
            row.mechanism(pair), pair=pair, samples=cell.samples, seed=cell.seed, confidence=CONFIDENCE,
            early_stopping=False, executor="in-process", **COLUMNS[cell.column],
        )
    seconds = time.perf_counter() - started
    scopes = result.bounds_by_scope
    algorithmic = None if scopes is None else scopes.algorithmic
    record = {
        "cell": cell.__dict__,
        "claim": result.claim.epsilon,
        "bound": result.epsilon_lower_bound,
        "verdict": result.verdict.value,
        "verdict_bound": result.verdict_epsilon_lower_bound,
        "decided_by": None if scopes is None else scopes.decided_by,
        "algorithmic_bound": None if algorithmic is None else algorithmic.epsilon_lower_bound,
        "event": result.event,
        "family": result.candidates[0].family if result.candidates else None,
        "search_samples": result.search_samples,
        "seconds": seconds,
        "stage_seconds": result.run.times.as_dict(),
        "dpaudit_version": dpaudit.__version__,
        "commit": _commit(),
    }
    if cell.column in BLACK_BOX:
        draws = result.run.draws if result.run is not None else None
        record.update(pair=result.pair, exact=exact_at(row, result.pair), draws=draws,
                      numpy_seconds=None if draws is None else numpy_seconds(row, result.pair, draws))
    else:
        record["draw_seconds"] = draw_seconds(row, pair, cell.samples + result.search_samples, cell.seed)
    CELLS.mkdir(parents=True, exist_ok=True)
    cell.path().write_text(json.dumps(record, indent=2, default=str) + "\n")
    return record


def draw_seconds(row: Row, pair: Pair, per_side: int, seed: int) -> float:
    """The time the row's own sampler takes to draw what the audit drew: ``per_side`` outputs on each input of
    the pair, in the audit's chunks (:func:`dpaudit.auditor.run.executors.chunk_sizes`), here, one after another."""
    rng = np.random.default_rng(seed)
    width = int(np.prod(np.shape(row.sampler(pair[0], 1, rng))[1:], dtype=int))
    started = time.perf_counter()
    for data in pair:
        for rows in chunk_sizes(per_side, width):
            row.sampler(data, rows, rng)
    return time.perf_counter() - started


def false_alarm(row: Row, record: dict[str, Any]) -> bool:
    """A private row's violation decided by the algorithm's events (a float column's violation decided by
    a leak event is the doubles' real leak, not a false alarm)."""
    return row.private and record["verdict"] == "violation" and record["decided_by"] != "implementation"


def planned(rows: list[Row], sizes: list[int], seed: int, columns: tuple[str, ...] = ("on", "off", "float"),
            seeds: tuple[int, ...] = ()) -> list[Cell]:
    """Of ``columns``: ``on`` (both pairs) at every N, ``off`` and ``float`` at the smallest N,
    ``black-box`` at every N below the peers' budget and every seed of ``seeds`` (default: ``seed``),
    ``black-box-search`` at the smallest N and every seed;
    N ascending, and at each N DP-Sniper's pairs of every row before StatDP's and the black-box audits
    (a run cut short has the first comparison complete)."""
    cells = []
    for n in sizes:
        at_n = [c for c in (("on", "off", "float") if n == sizes[0] else ("on",)) if c in columns]
        cells += [Cell(row.name, "dp-sniper", column, n, seed) for row in rows for column in at_n]
        if "on" in columns:
            cells += [Cell(row.name, "statdp", "on", n, seed) for row in rows if "statdp" in row.pairs()]
        if "black-box" in columns and n < PEER_SAMPLES:
            cells += [Cell(row.name, "domain", "black-box", n, s) for s in seeds or (seed,) for row in rows]
        if "black-box-search" in columns and n == sizes[0]:
            cells += [Cell(row.name, "domain", "black-box-search", n, s) for s in seeds or (seed,) for row in rows]
    return cells


def run_cells(cells: list[Cell], jobs: int) -> None:
    """Measure the cells one after the other (``jobs`` = 1) or in ``jobs`` processes, each stored as it ends."""
    def report(cell: Cell, record: dict[str, Any]) -> None:
        alarm = "  !! CORRECT MECHANISM FLAGGED" if false_alarm(ROW_BY_NAME[cell.row], record) else ""
        print(f"  {cell.row:<18} {cell.pair:<9} {cell.column:<5} N={cell.samples:.0e}: {record['bound']:.4f} "
              f"({record['verdict']}, {record['seconds']:.1f} s, {_speed(record)} of the draws) [{record['family']}] "
              f"{str(record['event'])[:60]}{alarm}",
              flush=True)

    if jobs == 1:
        for cell in cells:
            report(cell, measure(cell))
        return
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for cell, record in zip(cells, pool.map(measure, cells)):
            report(cell, record)


# --- the table -----------------------------------------------------------------------------------------

def _number(value: float | None, digits: int = 4) -> str:
    if value is None:
        return "—"
    return "inf" if math.isinf(value) else f"{value:.{digits}f}"


def _ratio(numerator: float | None, denominator: float | None) -> str:
    if numerator is None or denominator is None:
        return "—"
    if denominator <= 0:
        return "inf" if numerator > 0 else "—"
    return f"{numerator / denominator:.2f}"


def _bound(cells: dict[tuple[str, str, int], dict[str, Any] | None], pair: str, column: str, n: int) -> float | None:
    return (cells.get((pair, column, n)) or {}).get("bound")


def _speed(record: dict[str, Any] | None) -> str:
    """The audit's wall time over its sampler's time for the same outputs (:func:`draw_seconds`), e.g. ``2.1x``."""
    if not record or not record.get("draw_seconds"):
        return "—"
    return f"{record['seconds'] / record['draw_seconds']:.2f}x"


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    if seconds < 10:
        return f"{seconds:.1f} s"
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.0f} min"


def _power(n: int) -> str:
    """10^6, 2x10^7 (as the peers write their budgets); other sizes as 3e+05."""
    exponent = math.floor(math.log10(n))
    mantissa = n / 10**exponent
    if mantissa == 1:
        return f"10^{exponent}"
    return f"{mantissa:.0f}x10^{exponent}" if mantissa.is_integer() else f"{n:.0e}"


def peer_budget_seconds(seconds: dict[int, float]) -> float | None:
    """The wall time of an ``on`` audit at the peers' 2 x 10^8 per side, extrapolated: the line t = a + b N
    through the smallest and largest N measured (a: the search stage and set-up, b: verification), or
    t(N) 2 x 10^8 / N from one N (an overestimate: the search stage does not grow with N)."""
    if not seconds:
        return None
    small, large = min(seconds), max(seconds)
    if small == large:
        return seconds[large] * PEER_SAMPLES / large
    slope = max((seconds[large] - seconds[small]) / (large - small), 0.0)
    return seconds[small] + slope * (PEER_SAMPLES - small)


def table(rows: list[Row], sizes: list[int], seed: int) -> tuple[list[str], list[dict[str, Any]]]:
    """The markdown table from the stored cells ("—": not measured) and the rows' records for the JSON.

    A block of columns per N below the peers' budget (dpaudit at DP-Sniper's pair, DPS@N, the ratio, dpaudit
    at StatDP's pair, StatDP@N, the ratio), the ratios of the largest such N to the published figures, the
    float column, and the peers' budget: measured when 2 x 10^8 is in ``sizes``, else extrapolated."""
    below = [n for n in sizes if n < PEER_SAMPLES]
    small, large, peer = below[0], below[-1], PEER_SAMPLES in sizes
    header = ["mechanism", "private", "claim", "DP-Sniper", "StatDP", f"off {_power(small)}"]
    for n in below:
        header += [f"on {_power(n)}", f"DPS@{_power(n)}", f"/DPS@{_power(n)}", f"at StatDP pair {_power(n)}",
                   f"StatDP@{_power(n)}", f"/StatDP@{_power(n)}"]
    header += [f"on {_power(large)} / DP-Sniper", f"at StatDP pair {_power(large)} / StatDP",
               f"float {_power(small)}: implementation / algorithmic",
               f"time on {_power(large)}: audit, draws, audit / draws"]
    header += (["on 2x10^8", "/DP-Sniper", "at StatDP pair 2x10^8", "/StatDP", "time at 2x10^8"] if peer
               else ["time at 2x10^8 (est.)"])
    header += [f"event (on, {_power(large)})"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    records = []
    for row in rows:
        cells = {(c.pair, c.column, c.samples): c.stored() for c in planned([row], sizes, seed)}
        get = partial(_bound, cells)
        statdp_pair = "statdp" if "statdp" in row.pairs() else "dp-sniper"
        claim = row.claim(row.pair)
        flagged = [k for k, record in cells.items() if record and false_alarm(row, record)]
        line = [row.name + (" **FLAGGED**" if flagged else ""), "yes" if row.private else "no", f"{claim:.4f}",
                _number(row.dp_sniper), _number(row.statdp.eps_lcb if row.statdp else None),
                _number(get("dp-sniper", "off", small))]
        for n in below:
            dps_n = peer_at(*row.dp_sniper_event, n)
            statdp_n = peer_at(row.statdp.p1, row.statdp.p2, n) if row.statdp else None
            on, at_statdp = get("dp-sniper", "on", n), get(statdp_pair, "on", n) if row.statdp else None
            line += [_number(on), _number(dps_n), _ratio(on, dps_n), _number(at_statdp), _number(statdp_n),
                     _ratio(at_statdp, statdp_n)]
        floating = cells.get(("dp-sniper", "float", small))
        line += [_ratio(get("dp-sniper", "on", large), row.dp_sniper),
                 _ratio(get(statdp_pair, "on", large), row.statdp.eps_lcb) if row.statdp else "—",
                 (f"{_number(floating['bound'])} / {_number(floating['algorithmic_bound'])}"
                  f" ({floating['verdict']})" if floating else "—")]
        timed = cells.get(("dp-sniper", "on", large))
        line.append(f"{_duration(timed['seconds'])}, {_duration(timed.get('draw_seconds'))}, {_speed(timed)}"
                    if timed else "—")
        at_peer = cells.get(("dp-sniper", "on", PEER_SAMPLES))
        if peer:
            bound, at_statdp = get("dp-sniper", "on", PEER_SAMPLES), get(statdp_pair, "on", PEER_SAMPLES)
            line += [_number(bound), _ratio(bound, row.dp_sniper), _number(at_statdp) if row.statdp else "—",
                     _ratio(at_statdp, row.statdp.eps_lcb) if row.statdp else "—"]
        if at_peer:
            line.append(_duration(at_peer["seconds"]) + (" (fits)" if at_peer["seconds"] <= TEN_MINUTES else ""))
        else:
            estimate = peer_budget_seconds({n: cells[("dp-sniper", "on", n)]["seconds"] for n in below
                                            if cells.get(("dp-sniper", "on", n))})
            line.append(("est. " if estimate is not None else "") + _duration(estimate))
        on_large = cells.get(("dp-sniper", "on", large))
        line.append((f"[{on_large['family']}] {str(on_large['event'])[:60]}" if on_large else "—").replace("|", "/"))
        lines.append("| " + " | ".join(line) + " |")
        records.append({"mechanism": row.name, "private": row.private, "claim": claim, "pairs": row.pairs(),
                        "dp_sniper": row.dp_sniper, "dp_sniper_event": row.dp_sniper_event,
                        "statdp": row.statdp.__dict__ if row.statdp else None, "note": row.note,
                        "dp_sniper_at": {n: peer_at(*row.dp_sniper_event, n) for n in sizes},
                        "statdp_at": ({n: peer_at(row.statdp.p1, row.statdp.p2, n) for n in sizes}
                                      if row.statdp else None),
                        "false_alarms": [list(k) for k in flagged],
                        "cells": {f"{pair}/{column}/{n}": record for (pair, column, n), record in cells.items()}})
    return lines, records


RAPPOR_SHARE = 0.99

FIRST_ANSWER_THRESHOLDS = {"SVT1": 0.5, "SVT2": 1.0}
"""The sparse-vector rows with cut-off 1 (Lyu Algs. 1 and 2, noise Lap(20) on the threshold and Lap(40)
on each query at eps = 0.1, both alike until the first answer), whose output is the index of the first
answer: their oracle event is computed exactly (:func:`oracle_limit`)."""


def first_answer_probabilities(queries: Any, threshold: float) -> np.ndarray:
    """P[the first answer is query j] for j = 1..k, then P[no answer], of sparse vector with cut-off 1 at
    eps = 0.1 (threshold noise rho ~ Lap(2 / eps), query noise nu_i ~ Lap(4 / eps)): the integral over rho
    of prod_{i<j} F(rho + T - q_i) (1 - F(rho + T - q_j)), F the query noise's CDF (adaptive quadrature)."""
    from scipy import integrate, stats

    q = np.asarray(queries, dtype=float)
    rho, nu = stats.laplace(scale=2 / EPSILON), stats.laplace(scale=4 / EPSILON)

    def atom(j: int) -> float:
        def density(r: float) -> float:
            below = nu.cdf(r + threshold - q)
            return float(np.prod(below[:j]) * (1 - below[j] if j < q.size else 1.0) * rho.pdf(r))

        return integrate.quad(density, -4000, 4000, points=[0.0, threshold], limit=400)[0]

    return np.array([atom(j) for j in range(q.size + 1)])


def oracle_limit(row: Row, samples: int) -> float:
    """The physical limit of a bound on ``row`` at ``samples`` per side (NOTES): the joint bound at the
    suite's confidence of the best event on DP-Sniper's pair, the median counts N p plugged in, over every
    set of first-answer indices (the best of each size is a prefix in likelihood-ratio order)."""
    a = first_answer_probabilities(row.pair[0], FIRST_ANSWER_THRESHOLDS[row.name])
    b = first_answer_probabilities(row.pair[1], FIRST_ANSWER_THRESHOLDS[row.name])
    best = -math.inf
    for p, q in ((a, b), (b, a)):
        order = np.argsort(-(np.log(p) - np.log(q)))
        counts_p, counts_q = np.round(samples * np.cumsum(p[order])), np.round(samples * np.cumsum(q[order]))
        best = max(best, float(np.max(bounds.joint_bound(counts_p, counts_q, CONFIDENCE))))
    return best


def black_box_target(row: Row, records: list[dict[str, Any]]) -> str:
    """Whether the black-box audits at 2 x 10^7 per side (``records``, one per seed) reach the target:
    the median bound >= DP-Sniper's published bound where the exact epsilon over the patterns is known;
    for the RAPPOR rows, where that bound sits at the exact epsilon of its pair within its sampling
    error, the median over seeds of bound / exact epsilon at each seed's own pair >= ``RAPPOR_SHARE``.
    Where the oracle event's own bound at 2 x 10^7 (:func:`oracle_limit`) lies below DP-Sniper's, no
    audit can reach it there: the line says so and gives the median bound / that limit."""
    if row.name in FIRST_ANSWER_THRESHOLDS and records:
        limit = oracle_limit(row, records[0]["cell"]["samples"])
        median = float(np.median([r["bound"] for r in records]))
        if limit < row.dp_sniper:
            return (f"unreachable: the oracle event's {CONFIDENCE} bound is {limit:.4f} < {row.dp_sniper:.4f}; "
                    f"bound / oracle {median / limit:.3f}")
    if _local(row):
        shares = [r["bound"] / r["exact"] for r in records if r.get("exact")]
        if not shares:
            return "—"
        share = float(np.median(shares))
        return f"{'met' if share >= RAPPOR_SHARE else 'not met'} (bound / exact {share:.3f})"
    if not records or records[0].get("exact") is None:
        return "—"
    median = float(np.median([r["bound"] for r in records]))
    return f"{'met' if median >= row.dp_sniper else 'not met'} (>= {row.dp_sniper:.4f})"


def _millions(draws: float | None) -> str:
    return "—" if draws is None else f"{draws / 1e6:.0f} M"


def black_box_table(rows: list[Row], sizes: list[int],
                    seeds: tuple[int, ...]) -> tuple[list[str], list[dict[str, Any]]]:
    """The black-box column from the stored cells: per N the median bound over ``seeds`` (with the number
    of seeds measured), its ratio to DPS@N, the same for the ``black-box-search`` column at the smallest N
    with the outputs it drew, and at the largest N the pair chosen (first seed), the exact
    epsilon there (RAPPOR) or over DP-Sniper's patterns, the ratio to the published DP-Sniper figure and
    the target (:func:`black_box_target`), outputs drawn against DP-Sniper's, wall time against numpy's."""
    large, small = sizes[-1], sizes[0]
    header = ["mechanism", "private", "DP-Sniper"]
    for n in sizes:
        header += [f"black-box {_power(n)}", f"DPS@{_power(n)}", f"/DPS@{_power(n)}"]
    header += [f"search {SEARCH_FACTOR}N: {_power(small)}", f"/DPS@{_power(small)}", "outputs drawn"]
    header += [f"pair chosen ({_power(large)})", "exact (pair / patterns)", f"/DP-Sniper ({_power(large)})",
               f"target ({_power(large)})",
               f"outputs drawn ({_power(large)})", "DP-Sniper's", f"time ({_power(large)})", "numpy's"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    records = []
    for row in rows:
        stored = {(n, seed): Cell(row.name, "domain", "black-box", n, seed).stored() for n in sizes for seed in seeds}
        line = [row.name, "yes" if row.private else "no", _number(row.dp_sniper)]
        medians = {}
        dps = {n: peer_at(*row.dp_sniper_event, n) for n in sizes}
        for n in sizes:
            bounds_n = [r["bound"] for seed in seeds if (r := stored[(n, seed)])]
            medians[n] = float(np.median(bounds_n)) if bounds_n else None
            shown = _number(medians[n]) + (f" ({len(bounds_n)} seeds)" if len(bounds_n) > 1 else "")
            line += [shown, _number(dps[n]), _ratio(medians[n], dps[n])]
        searched = [r for seed in seeds if (r := Cell(row.name, "domain", "black-box-search", small, seed).stored())]
        searched_median = float(np.median([r["bound"] for r in searched])) if searched else None
        line += [_number(searched_median) + (f" ({len(searched)} seeds)" if len(searched) > 1 else ""),
                 _ratio(searched_median, dps[small]),
                 _millions(searched[0]["draws"] if searched else None)]
        at_large = [r for seed in seeds if (r := stored[(large, seed)])]
        first = at_large[0] if at_large else None
        exact = first["exact"] if first else None
        target = black_box_target(row, at_large)
        pair = "—" if first is None else " / ".join(
            str(tuple(round(float(v), 3) for v in np.asarray(x).reshape(-1))) for x in first["pair"])
        line += [pair, _number(exact), _ratio(medians[large], row.dp_sniper), target,
                 _millions(first["draws"] if first else None), _millions(DP_SNIPER_DRAWS),
                 _duration(first["seconds"] if first else None),
                 _duration(first["numpy_seconds"] if first else None)]
        lines.append("| " + " | ".join(line) + " |")
        records.append({"mechanism": row.name, "medians": medians, "target": target,
                        "cells": {f"{n}/seed{seed}": record for (n, seed), record in stored.items()},
                        "search": {"factor": SEARCH_FACTOR, "samples": small, "median": searched_median,
                                   "cells": {f"{r['cell']['samples']}/seed{r['cell']['seed']}": r for r in searched}}})
    return lines, records


def _seeds(text: str) -> tuple[int, ...]:
    """"1-5" or "1,3,4" as a tuple of seeds."""
    seeds: list[int] = []
    for part in text.split(","):
        low, _, high = part.strip().partition("-")
        seeds += range(int(low), int(high or low) + 1)
    return tuple(dict.fromkeys(seeds))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", default="1000000",
                        help="comma-separated verification samples per side, e.g. 1000000,10000000 "
                             f"(add {PEER_SAMPLES} for the peers' budget)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--columns", default="on,off,float,black-box",
                        help=f"comma-separated columns to measure, of {', '.join(COLUMNS)}")
    parser.add_argument("--seeds", default="", help="the black-box column's seeds, e.g. 1-5 (default: --seed)")
    parser.add_argument("--only", default="", help="comma-separated row names (default: all)")
    parser.add_argument("--jobs", type=int, default=1, help="cells measured in parallel processes")
    parser.add_argument("--rerun", action="store_true", help="measure again the cells already stored")
    parser.add_argument("--report", action="store_true", help="print the table of the stored cells, measure none")
    parser.add_argument("--pairs", default="", help="comma-separated pairs to measure (dp-sniper, statdp; default: both)")
    args = parser.parse_args()
    try:
        sizes = sorted({int(float(size)) for size in args.samples.split(",") if size.strip()})
    except ValueError:
        parser.error(f"--samples must be comma-separated sample sizes, got {args.samples!r}")
    wanted = {name.strip() for name in args.only.split(",") if name.strip()}
    unknown = wanted - set(ROW_BY_NAME)
    if unknown:
        parser.error(f"--only: unknown rows {', '.join(sorted(unknown))} (rows: {', '.join(ROW_BY_NAME)})")
    if not sizes or sizes[0] >= PEER_SAMPLES or args.jobs < 1:
        parser.error(f"--samples needs a size below {PEER_SAMPLES} (the peers' budget is a column beside it) "
                     "and --jobs at least 1")
    columns = tuple(c.strip() for c in args.columns.split(",") if c.strip())
    if not columns or set(columns) - set(COLUMNS):
        parser.error(f"--columns must name some of {', '.join(COLUMNS)}, got {args.columns!r}")
    try:
        seeds = _seeds(args.seeds) if args.seeds.strip() else (args.seed,)
    except ValueError:
        parser.error(f"--seeds must be seeds like 1-5 or 1,2,3, got {args.seeds!r}")
    rows = [row for row in ROWS if not wanted or row.name in wanted]
    for row in rows:  # before any work: a RAPPOR row without mmh3 stops here with what to install
        row.claim(row.pair)
    started = time.perf_counter()
    if not args.report:
        kinds = {p.strip() for p in args.pairs.split(",") if p.strip()} or {"dp-sniper", "statdp"}
        cells = [cell for cell in planned(rows, sizes, args.seed, columns, seeds)
                 if cell.column in BLACK_BOX or cell.pair in kinds]
        missing = [cell for cell in cells if args.rerun or cell.stored() is None]
        print(f"DP-Sniper and StatDP suites, eps = {EPSILON}, confidence {CONFIDENCE}, seed {args.seed}: "
              f"{len(missing)} of {len(cells)} audits to run ({len(cells) - len(missing)} stored in {CELLS})")
        run_cells(missing, args.jobs)
    records: list[dict[str, Any]] = []
    black_box: list[dict[str, Any]] = []
    if set(columns) - set(BLACK_BOX):
        lines, records = table(rows, sizes, args.seed)
        print("\n" + "\n".join(lines))
    if set(columns) & set(BLACK_BOX):
        lines, black_box = black_box_table(rows, [n for n in sizes if n < PEER_SAMPLES], seeds)
        print("\nBlack-box (DP-Sniper's domain, no pair given):\n" + "\n".join(lines))
    alarms = [record["mechanism"] for record in records if record["false_alarms"]]
    if alarms:
        print(f"\n!! CORRECT MECHANISMS FLAGGED: {', '.join(alarms)}")
    if wanted and (records or black_box):  # a subset of the rows would replace the whole table's file
        print(f"\n--only: {RESULTS.name} and {BLACK_BOX_RESULTS.name} are left as they were (they hold every row); "
              "the cells measured are stored, and the same command without --only, with --report, rewrites them")
        return
    if records:
        write_results(RESULTS, seed=args.seed, confidence=CONFIDENCE, started=started, samples=sizes, rows=records)
    if black_box:
        write_results(BLACK_BOX_RESULTS, seed=args.seed, confidence=CONFIDENCE, started=started, samples=sizes,
                      seeds=list(seeds), dp_sniper_draws=DP_SNIPER_DRAWS, rows=black_box)


if __name__ == "__main__":
    main()
