"""Broken sparse vector variants: Lyu, Su & Li (2017, PVLDB 10(6)), "Understanding the sparse vector
technique for differential privacy", Algorithms 3-6 (their Fig. 1; names follow the paper).

All four take k query answers q (sensitivity Delta = 1 each, "ALL" neighbourhood
||q - q'||_inf <= 1), a public threshold T, a noisy threshold T + rho with rho ~ Lap(Delta / eps1), and
compare each q_i + nu_i with it.  Output: one number per query, 1 for "above" (⊤), 0 for "below"
(⊥), -1 for "not answered" (after the c-th ⊤ of the algorithms with a cutoff); Algorithm 3 releases
the noisy answer q_i + nu_i in place of each ⊤.  Defaults follow StatDP's benchmark: k = 10,
c = 1, T = 1, eps = 0.1.

* ``svt-lyu-3`` (Roth 2011 lecture notes; StatDP iSVT4, DP-Sniper SVT3): eps1 = eps/2,
  nu ~ Lap(c Delta / eps2), eps2 = eps/2, and the noisy value is released.  True epsilon for k
  queries: k eps / (2c) (0.5 at the defaults), unbounded as k grows (Lyu et al. Sect. 3.3 let k go to
  infinity, hence their "not eps'-DP for any eps'").  Derivation: the probability of an output
  (⊥^(m), v) is int_{r <= v - T} p_rho(r) prod_{i <= m} F_nu(T + r - q_i) f_nu(v - q_(m+1)) dr; p_rho
  and the region do not depend on q, and each of the m + 1 <= k factors F_nu, f_nu is
  log-Lipschitz with constant 1/b_nu = eps/(2c), so the ratio is at most exp(k eps/(2c)); with
  q = 0, q' = 1 (all) and v <= 0 every factor sits in the Laplace left tail where its ratio is
  exactly exp(1/b_nu), so the bound is attained by every output (⊥^(k-1), v <= 0).
* ``svt-lyu-4`` (Lee & Clifton 2014; StatDP iSVT3, DP-Sniper SVT4): eps1 = eps/4 and
  nu ~ Lap(Delta / eps2), eps2 = 3 eps/4, not scaled by c.  True epsilon (1 + 6c) eps / 4 (0.175 at
  the defaults; Lyu et al. Thm. 7): shifting rho by Delta costs eps1 and makes every ⊥ factor equal,
  and each of the c ⊤ answers then faces a shift of 2 Delta in a Lap(Delta/eps2) variable, costing
  2 eps2: eps1 + 2c eps2 = (1 + 6c) eps / 4.  The bound is approached when many ⊥ answers push the
  posterior of rho into the right tail: with k = 10 the output ⊥^9 ⊤ on 0^10 vs 1^9 (-1) has
  log-ratio 0.1748 (quadrature; 0.17496 as the base moves up), StatDP verified 0.1719.
* ``svt-lyu-5`` (Stoddard, Chen & Machanavajjhala 2014; StatDP iSVT1, DP-Sniper SVT5): no query
  noise, no cutoff: the answer to query i is 1[q_i >= T + rho].  True epsilon inf: the output is
  a deterministic function of rho, so the pattern ⊤ on q_1 and ⊥ on q_2 is impossible when
  q_1 < q_2 and possible when q_1 > q_2 -- e.g. x-shaped inputs (1^5, 0^5) vs (0^5, 1^5).
  Closed-form pmf: P(y | q) = max(0, F_rho(min_(y_i = 1) (q_i - T)) - F_rho(max_(y_i = 0) (q_i - T))).
* ``svt-lyu-6`` (Chen, Xu, Bai & Xu 2015; StatDP iSVT2, DP-Sniper SVT6): nu ~ Lap(Delta / eps2),
  eps2 = eps/2, no cutoff.  True epsilon for k queries: k eps / 2 (0.5 at the defaults), unbounded in
  k (Lyu et al. Sect. 3.4).  Derivation: P(y | q) = int p_rho(r) prod_(⊤) (1 - F_nu(T + r - q_i))
  prod_(⊥) F_nu(T + r - q_i) dr, each factor log-Lipschitz with 1/b_nu = eps/2, so the ratio is at
  most exp(k eps / 2); the bound is approached by ⊤ answers on queries far below the ⊥ ones (all
  factors in their Laplace tails over most of rho's mass): (T - G)^5 (T + G)^5 vs (T - G - 1)^5
  (T + G + 1)^5 with output ⊤^5 ⊥^5 gives 0.420, 0.485, 0.4998 at G = 0, 20, 100 -- at vanishing
  mass.  The visible witness is G = 0, Ding et al.'s "half up half down" (1^10 vs 0^5 2^5).

The pmfs of Algorithms 3, 4 and 6 are one-dimensional integrals over rho of products of piecewise
exponentials; only Algorithm 5 declares a symbolic density (its pmf needs no integral).  Noisy values
of Algorithm 3 are released on the grid of :mod:`dpaudit.mechanisms._grid` (a ⊤ value landing exactly
on 0 or -1 would read as ⊥ or "not answered": a post-processing merge of probability < 1e-4).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ...._validation import check_positive_finite, check_positive_int, check_real
from ....claims import PureDP
from ....neighbours import QueryDistance
from ..._grid import snap_to_grid
from ..._queries import identity_query, query_vector
from ...base import Mechanism
from ...registry import register

__all__ = ["svt5_density"]

_LYU = "Lyu, Su & Li (2017, PVLDB 10(6)) 'Understanding the sparse vector technique for differential privacy'"
_NOT_ANSWERED = -1.0
Scale = Callable[[Any, Any], Any]  # a noise scale as a function of (epsilon, Delta)


def _run_svt(
    q: np.ndarray,
    n: int,
    rng: np.random.Generator,
    *,
    threshold: float,
    rho_scale: float,
    nu_scale: float,
    cutoff: int | None,
    release_value: bool,
) -> np.ndarray:
    """n runs of a sparse vector variant at once: rows are runs, columns the queries in order."""
    k = q.size
    rho = rng.laplace(0.0, rho_scale, size=(n, 1))
    noisy = q + (rng.laplace(0.0, nu_scale, size=(n, k)) if nu_scale > 0 else np.zeros((n, k)))
    above = noisy >= threshold + rho
    out = above.astype(float)
    if release_value:
        out = np.where(above, snap_to_grid(noisy, nu_scale), 0.0)
    if cutoff is not None:
        tops_before = np.cumsum(above, axis=1) - above
        out = np.where(tops_before < cutoff, out, _NOT_ANSWERED)
    return out


def _svt(
    name: str,
    *,
    epsilon: float,
    k: int,
    c: int,
    threshold: float,
    scales: tuple[Scale, Scale | None],
    cutoff: bool,
    release_value: bool,
    **fields: Any,
) -> Mechanism:
    """The entry; ``scales`` are the threshold and query noise scales as functions of (epsilon, Delta)
    (None: no query noise), evaluated for the sampler and kept symbolic in its program."""
    rho_scale = scales[0](epsilon, 1.0)
    nu_scale = 0.0 if scales[1] is None else scales[1](epsilon, 1.0)

    def program():
        from ...programs import threshold_program

        return threshold_program(
            name,
            epsilon=epsilon,
            queries=k,
            threshold=threshold,
            threshold_scale=scales[0],
            query_scale=scales[1],
            cutoff=c if cutoff else None,
            release="value" if release_value else "bit",
        )

    def sample(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        return _run_svt(
            query_vector(data, k),
            n,
            rng,
            threshold=threshold,
            rho_scale=rho_scale,
            nu_scale=nu_scale,
            cutoff=c if cutoff else None,
            release_value=release_value,
        )

    return Mechanism(
        name=name,
        claim=PureDP(epsilon),
        neighbours=QueryDistance(1.0, "linf"),
        sampler=sample,
        family="sparse-vector",
        query=identity_query,
        sensitivity=1.0,
        domain=(0.0,) * k,
        program=program,
        **fields,
    )


def _check(epsilon: float, k: int, c: int, threshold: float) -> tuple[float, int, int, float]:
    return (
        check_positive_finite("epsilon", epsilon),
        check_positive_int("k", k),
        check_positive_int("c", c),
        check_real("threshold", threshold),
    )


def _x_shape(k: int, low: float, high: float) -> tuple[tuple[float, ...], tuple[float, ...]]:
    half = k // 2
    return (high,) * half + (low,) * (k - half), (low,) * half + (high,) * (k - half)


@register("svt-lyu-3")
def svt_lyu_3(epsilon: float = 0.1, k: int = 10, c: int = 1, threshold: float = 1.0) -> Mechanism:
    """Lyu et al. Alg. 3 (Roth 2011): releases q_i + nu_i for each ⊤; true eps k eps / (2c)."""
    epsilon, k, c, threshold = _check(epsilon, k, c, threshold)
    return _svt(
        "svt-lyu-3",
        epsilon=epsilon,
        k=k,
        c=c,
        threshold=threshold,
        scales=(lambda eps, sens: 2 * sens / eps, lambda eps, sens: 2 * c * sens / eps),
        cutoff=True,
        release_value=True,
        description=f"sparse vector releasing noisy answers (Lyu Alg. 3), k={k}, c={c}, T={threshold:g}, eps={epsilon:g}",
        pairs=(((0.0,) * k, (1.0,) * k), ((1.0,) * k, (2.0,) * k)),
        flaw=(
            "releases the noisy answer q_i + nu_i of each query above the threshold, so the answers below it "
            "are no longer paid for by the threshold noise: each of the k queries costs eps / (2c)"
        ),
        true_epsilon=k * epsilon / (2 * c),
        source=f"{_LYU}, Alg. 3 (from Roth 2011 lecture notes); StatDP iSVT4; DP-Sniper SVT3",
    )


@register("svt-lyu-4")
def svt_lyu_4(epsilon: float = 0.1, k: int = 10, c: int = 1, threshold: float = 1.0) -> Mechanism:
    """Lyu et al. Alg. 4 (Lee & Clifton 2014): eps1 = eps/4, nu not scaled by c; true (1 + 6c) eps / 4."""
    epsilon, k, c, threshold = _check(epsilon, k, c, threshold)
    return _svt(
        "svt-lyu-4",
        epsilon=epsilon,
        k=k,
        c=c,
        threshold=threshold,
        scales=(lambda eps, sens: 4 * sens / eps, lambda eps, sens: 4 * sens / (3 * eps)),
        cutoff=True,
        release_value=False,
        description=f"sparse vector with query noise not scaled by c (Lyu Alg. 4), k={k}, c={c}, eps={epsilon:g}",
        pairs=(((0.0,) * k, (1.0,) * (k - 1) + (-1.0,)), ((1.0,) * k, (2.0,) * (k - 1) + (0.0,)),
               _x_shape(k, 0.0, 1.0)),  # the x-shape straddling the threshold, where DP-Sniper reports it
        flaw=(
            "query noise Lap(4 / (3 eps)) is not scaled by the cutoff c, so each of the c answers above the "
            "threshold costs 2 eps2 = 3 eps / 2 on top of eps1 = eps / 4: (1 + 6c) eps / 4 in total"
        ),
        true_epsilon=(1 + 6 * c) * epsilon / 4,
        source=f"{_LYU}, Alg. 4 (from Lee & Clifton 2014, KDD); StatDP iSVT3; DP-Sniper SVT4",
    )


def svt5_density(k: int, epsilon: float, threshold: float):
    """pmf of Lyu Alg. 5: P(y | q) = max(0, min_i (y_i F(q_i - T) + 1 - y_i) - max_i (1 - y_i) F(q_i - T)).

    F is the CDF of rho ~ Lap(b), b = 2 Delta / eps; the answer to query i is ⊤ iff rho <= q_i - T, so
    a pattern y is the event that rho lies above every q_i - T answered ⊥ and at most every q_i - T
    answered ⊤: P = max(0, F(min_(⊤) (q_i - T)) - F(max_(⊥) (q_i - T))), written with y_i in {0, 1}
    as weights (F is increasing; an empty min is 1, an empty max 0).  Min and Max are left
    unevaluated until numbers are substituted (``xreplace`` evaluates it in milliseconds).
    """
    import sympy

    from ...density import SymbolicDensity, symbol

    eps, sens, t = symbol("epsilon"), symbol("Delta"), symbol("T")
    ys = tuple(symbol(f"y{i}") for i in range(1, k + 1))
    qs = tuple(symbol(f"q{i}") for i in range(1, k + 1))
    b = 2 * sens / eps

    def cdf(x: Any) -> Any:  # e^(x/b)/2 for x < 0, 1 - e^(-x/b)/2 for x >= 0
        return (1 + sympy.sign(x) * (1 - sympy.exp(-sympy.Abs(x) / b))) / 2

    cdfs = [cdf(qi - t) for qi in qs]
    upper = sympy.Min(*(yi * fi + 1 - yi for yi, fi in zip(ys, cdfs)), evaluate=False)
    lower = sympy.Max(*((1 - yi) * fi for yi, fi in zip(ys, cdfs)), evaluate=False)
    return SymbolicDensity(
        expr=sympy.Max(0, upper - lower, evaluate=False),
        outputs=ys,
        inputs=qs,
        epsilon=eps,
        sensitivity=sens,
        norm="linf",
        discrete=True,
        output_domain=sympy.FiniteSet(0, 1),
        instance={eps: epsilon, sens: 1, t: threshold},
        note="exact pmf: the outputs are comparisons of the exact query answers with T + rho",
    )


@register("svt-lyu-5")
def svt_lyu_5(epsilon: float = 0.1, k: int = 10, threshold: float = 1.0) -> Mechanism:
    """Lyu et al. Alg. 5 (Stoddard et al. 2014): no query noise, no cutoff; true eps inf."""
    epsilon, k, _, threshold = _check(epsilon, k, 1, threshold)
    return _svt(
        "svt-lyu-5",
        epsilon=epsilon,
        k=k,
        c=1,
        threshold=threshold,
        scales=(lambda eps, sens: 2 * sens / eps, None),
        cutoff=False,
        release_value=False,
        description=f"sparse vector without query noise (Lyu Alg. 5), k={k}, T={threshold:g}, eps={epsilon:g}",
        density=lambda: svt5_density(k, epsilon, threshold),
        pairs=(_x_shape(k, 0.0, 1.0), ((1.0,) * k, (2.0,) + (1.0,) * (k - 1))),
        flaw=(
            "adds no noise to the queries, so the answers are deterministic comparisons with one noisy "
            "threshold: answer patterns that contradict the order of the queries are impossible"
        ),
        true_epsilon=math.inf,
        source=f"{_LYU}, Alg. 5 (from Stoddard, Chen & Machanavajjhala 2014); StatDP iSVT1; DP-Sniper SVT5",
    )


@register("svt-lyu-6")
def svt_lyu_6(epsilon: float = 0.1, k: int = 10, threshold: float = 1.0) -> Mechanism:
    """Lyu et al. Alg. 6 (Chen et al. 2015): no cutoff on the ⊤ answers; true eps k eps / 2."""
    epsilon, k, _, threshold = _check(epsilon, k, 1, threshold)
    half = k // 2
    half_up_half_down = ((threshold,) * k, (threshold - 1.0,) * half + (threshold + 1.0,) * (k - half))
    return _svt(
        "svt-lyu-6",
        epsilon=epsilon,
        k=k,
        c=1,
        threshold=threshold,
        scales=(lambda eps, sens: 2 * sens / eps, lambda eps, sens: 2 * sens / eps),
        cutoff=False,
        release_value=False,
        description=f"sparse vector without a cutoff (Lyu Alg. 6), k={k}, T={threshold:g}, eps={epsilon:g}",
        pairs=(half_up_half_down, _x_shape(k, 0.0, 1.0)),
        flaw=(
            "never stops after c answers above the threshold, so every query answered costs eps / 2 and "
            "the loss grows with the number of queries instead of being capped"
        ),
        true_epsilon=k * epsilon / 2,
        source=f"{_LYU}, Alg. 6 (from Chen, Xu, Bai & Xu 2015); StatDP iSVT2; DP-Sniper SVT6",
    )
