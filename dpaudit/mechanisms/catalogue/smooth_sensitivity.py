"""The smooth-sensitivity median (Nissim, Raskhodnikova & Smith 2007, "Smooth sensitivity and sampling
in private data analysis", STOC; names follow the paper).

Records lie in [0, Lambda] (values outside are clamped), n is public (replace-one neighbours),
x_1 <= ... <= x_n sorted with x_i = 0 for i < 1 and x_i = Lambda for i > n, and the median is x_m with
m = floor((n + 1)/2) (the lower median when n is even).  The beta-smooth sensitivity is (NRS Prop. 3.4,
whose argument holds for the order statistic x_m of any rank m)

    S*(x) = max_{k = 0..n} e^(-k beta) max_{t = 0..k+1} (x_{m+t} - x_{m+t-k-1}),

the inner maximum being the largest local sensitivity at distance k from x.  The mechanism releases

    A(x) = med(x) + (S*(x) / alpha) Z,    Z with density h(z) = (sqrt 2 / pi) / (1 + z^4).

Privacy (NRS Def. 2.5 and Lemma 2.6): if h is (alpha, beta)-admissible -- for |Delta| <= alpha and
|lambda| <= beta, P[Z in S] <= e^(epsilon/2) P[Z + Delta in S] (sliding) and
P[Z in S] <= e^(epsilon/2) P[e^lambda Z in S] (dilation) -- then A is epsilon-DP, because
|med(x) - med(x')| <= LS(x) <= S*(x) and S*(x') / S*(x) in [e^-beta, e^beta].  For
h(z) proportional to 1/(1 + |z|^gamma), gamma = 4 (NRS Lemma 2.7, the family with polynomial tails):
* sliding: |d/dz ln(1 + |z|^gamma)| <= (gamma - 1)^(1 - 1/gamma) < gamma, so alpha = epsilon/(2 gamma) suffices;
* dilation: e^lambda Z has density e^-lambda h(e^-lambda z) and
  |ln(h(z) / (e^-lambda h(e^-lambda z)))| <= max(1, gamma - 1) |lambda| < (gamma + 1) |lambda|,
  so beta = epsilon/(2 (gamma + 1)) suffices.
These constants are conservative and give pure epsilon-DP.  The entry declares this structure
(:class:`~dpaudit.mechanisms.structure.AdmissibleNoise`), and the prover checks both admissibility
inequalities exactly and the smooth bound on every dataset of up to 5 records on the grid
{0, Lambda/4, ..., Lambda} (:mod:`dpaudit.proofs.structures.admissible`).

Z is sampled by rejection from the standard Cauchy: h(z)/c(z) = sqrt 2 (1 + z^2)/(1 + z^4) <= (2 + sqrt 2)/2,
accepted with probability (1 + z^2)/(1 + z^4) / ((1 + sqrt 2)/2) (acceptance rate 0.586), vectorised
in rounds.  Outputs are rounded to the fixed power-of-two grid of :mod:`dpaudit.mechanisms._grid` for
scale Lambda (data independent, so the grid itself reveals nothing; S*/alpha >= Lambda e^(-beta (n+1)/2)/alpha
keeps every noise scale far above the step).
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from ..._validation import check_positive_finite, check_positive_int
from ...claims import PureDP
from ...neighbours import Replace
from .._grid import snap_to_grid
from ..base import Mechanism
from ..registry import register
from ..structure import AdmissibleNoise

__all__ = [
    "median_local_sensitivity",
    "quartic_density",
    "quartic_noise",
    "replace_one",
    "smooth_median",
    "smooth_sensitivity_median",
]

GAMMA = 4
_ACCEPT_BOUND = (1.0 + math.sqrt(2.0)) / 2.0  # max of (1 + z^2)/(1 + z^4), at z^2 = sqrt 2 - 1


def _sorted_records(data: Any, upper: float) -> np.ndarray:
    return np.sort(np.clip(np.asarray(data, dtype=float).reshape(-1), 0.0, upper))


def smooth_sensitivity_median(data: Any, upper: float, beta: float) -> float:
    """S*(x) = max_k e^(-k beta) max_{t <= k+1} (x_{m+t} - x_{m+t-k-1}) (NRS 2007, Prop. 3.4), O(n^2) vectorised."""
    x = _sorted_records(data, upper)
    n = check_positive_int("len(data)", x.size)
    m = (n + 1) // 2
    # padded[i + n] = x_i for 1-based i in -n .. 2n+1: 0 for i < 1, upper for i > n
    padded = np.concatenate([np.zeros(n + 1), x, np.full(n + 1, upper)])
    k = np.arange(n + 1)[:, None]
    t = np.arange(n + 2)[None, :]
    gaps = padded[m + t + n] - padded[m + t - k - 1 + n]
    gaps = np.where(t <= k + 1, gaps, 0.0)
    return float(np.max(np.exp(-k[:, 0] * beta) * gaps.max(axis=1)))


def _median(x: np.ndarray) -> float:
    return float(x[(x.size + 1) // 2 - 1])


def median_local_sensitivity(data: Any, upper: float) -> float:
    """LS(x) = max over one replaced record of |med(x') - med(x)|, records in [0, upper].

    The median is nondecreasing in each record, so over replacements v in [0, upper] its extremes are
    at v = 0 and v = upper: 2n candidates decide LS exactly.
    """
    x = _sorted_records(data, upper)
    med = _median(x)
    changes = [
        abs(_median(np.sort(np.concatenate([x[:i], [v], x[i + 1 :]]))) - med) for i in range(x.size) for v in (0.0, upper)
    ]
    return max(changes)


def replace_one(data: Any, values: tuple[float, ...]) -> list[tuple[float, ...]]:
    """Every dataset obtained from ``data`` by replacing one record with one of ``values``."""
    records = tuple(data)
    return [records[:i] + (v,) + records[i + 1 :] for i in range(len(records)) for v in values if v != records[i]]


def quartic_density():
    """h(z) = (sqrt 2 / pi) / (1 + z^4), the density of :func:`quartic_noise`, with its symbol z."""
    import sympy

    z = sympy.Symbol("z", real=True)
    return sympy.sqrt(2) / sympy.pi / (1 + z**GAMMA), z


def quartic_noise(n: int, rng: np.random.Generator) -> np.ndarray:
    """n draws of Z with density (sqrt 2 / pi) / (1 + z^4), by vectorised rejection from the Cauchy."""
    out = np.empty(n)
    filled = 0
    while filled < n:
        want = n - filled
        z = rng.standard_cauchy(int(want / 0.55) + 16)
        keep = z[rng.random(z.size) * _ACCEPT_BOUND * (1.0 + z**4) <= 1.0 + z**2][:want]
        out[filled : filled + keep.size] = keep
        filled += keep.size
    return out


@register("smooth-sensitivity-median")
def smooth_median(epsilon: float = 1.0, upper: float = 1.0) -> Mechanism:
    """Median of records in [0, upper] with smooth-sensitivity-scaled quartic noise (NRS 2007), pure epsilon-DP."""
    epsilon = check_positive_finite("epsilon", epsilon)
    upper = check_positive_finite("upper", upper)
    alpha = epsilon / (2 * GAMMA)
    beta = epsilon / (2 * (GAMMA + 1))

    def median(data: Any) -> float:
        x = _sorted_records(data, upper)
        check_positive_int("len(data)", x.size)
        return _median(x)

    def smooth_bound(data: Any) -> float:
        return smooth_sensitivity_median(data, upper, beta)

    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        scale = smooth_bound(data) / alpha
        return snap_to_grid(median(data) + scale * quartic_noise(n, rng), upper)

    grid = tuple(upper * i / 4 for i in range(5))
    structure = AdmissibleNoise(
        noise_density=quartic_density,
        alpha=alpha,
        beta=beta,
        smooth_bound=smooth_bound,
        local_sensitivity=lambda data: median_local_sensitivity(data, upper),
        datasets=tuple(d for size in range(1, 6) for d in itertools.combinations_with_replacement(grid, size)),
        neighbours=lambda data: replace_one(data, grid),
        statistic=f"the median of records clamped to [0, {upper:g}]",
        output="the value rounded to a fixed power-of-two grid (data independent)",
    )

    base = (0.0, 0.0, upper, upper)
    return Mechanism(
        name="smooth-sensitivity-median",
        claim=PureDP(epsilon),
        neighbours=Replace(),
        sampler=sample,
        family="smooth-sensitivity",
        description=(
            f"median of records in [0, {upper:g}] with smooth sensitivity and 1/(1+z^4) noise, epsilon={epsilon:g}"
        ),
        query=median,
        structure=structure,
        domain=(0.0, upper / 2, upper),
        pairs=((base + (0.0,), base + (upper,)), ((0.0,) * 5, (0.0,) * 4 + (upper,))),
        source="Nissim, Raskhodnikova & Smith (2007, STOC) Def. 2.5, Lemma 2.6, Prop. 3.4",
    )
