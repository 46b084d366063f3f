"""Confidence bounds on the privacy loss of one event S, from hit counts on fresh samples.

With p = P[M(a) in S] and p' = P[M(b) in S], (epsilon, delta)-DP requires p <= e^epsilon p' + delta
(Dwork & Roth 2014, Def. 2.4), so any lower confidence bound on ln((p - delta) / p') is a lower
confidence bound on the epsilon the mechanism realises at that delta.  Two bounds are offered:

* ``"union"`` -- exact one-sided Clopper-Pearson bounds on p and p' (Clopper & Pearson 1934), each at
  level 1 - alpha/2, joined by a union bound: epsilon_LB = ln((LCB(p) - delta) / UCB(p')).  This is
  the bound of DP-Sniper (Bichsel et al., S&P 2021, Sect. 6) and Delta-Siege; it handles delta > 0.
* ``"joint"`` -- one exact test on the ratio, for delta = 0.  The verification stage draws
  Poisson(lambda_a) and Poisson(lambda_b) samples per side, so the hit counts are independent
  Poisson(lambda_a p) and Poisson(lambda_b p') variables and, given their sum T = k + k',
  k ~ Bin(T, pi) with pi = lambda_a p / (lambda_a p + lambda_b p') exactly (Przyborowski & Wilenski
  1940; Lehmann & Romano 2005, *Testing Statistical Hypotheses*, Sect. 4.6).  p/p' =
  (pi / (1 - pi)) (lambda_b / lambda_a) is increasing in pi, so the one-sided Clopper-Pearson lower
  bound on pi at level 1 - alpha gives a lower bound on ln(p / p') with coverage >= 1 - alpha
  conditionally on T, hence unconditionally.  It spends all of alpha on one side: on Laplace at
  epsilon = 1 its gap to the truth is about 1.6x smaller than the union bound's: asymptotically, at
  alpha = 0.05 and N samples per side on the oracle event, 1.645 sqrt(2 e^eps / N) against
  1.96 (1 + sqrt(2 e^eps - 1)) / sqrt(N) (oracle-event limits of both: benchmarks/README.md).

statsmodels' ``proportion_confint(method="beta")`` is two-sided: its ``alpha`` is split over both
tails, so a one-sided bound at level ``c`` is the matching end of the interval with
``alpha = 2 (1 - c)``; :func:`cp_lower` and :func:`cp_upper` compute that one end directly with
``scipy.special.betaincinv`` (the search scores thousands of events) and are tested against it.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import numpy as np

__all__ = [
    "METHODS",
    "approximate_bound",
    "approximate_cp_lower",
    "approximate_cp_upper",
    "bonferroni_confidence",
    "cp_lower",
    "cp_upper",
    "delta_lower_bound",
    "epsilon_lower_bound",
    "holm_adjusted",
    "joint_bound",
    "p_value",
    "reach",
    "union_bound",
]

METHODS = ("auto", "joint", "union")


def cp_lower(k: np.ndarray | int, n: np.ndarray | int, level: float) -> np.ndarray:
    """One-sided Clopper-Pearson lower bound on p from k ~ Bin(n, p): P[p >= bound] >= level.

    bound = Beta^-1(1 - level; k, n - k + 1), and 0 when k = 0 (Clopper & Pearson 1934).  This is
    the lower end of statsmodels' ``proportion_confint(k, n, alpha=2 * (1 - level), method="beta")``
    (tests/auditor/test_bounds.py checks the two agree); only the one end needed is computed.
    """
    from scipy.special import betaincinv

    k, n = np.broadcast_arrays(np.asarray(k, dtype=float), np.asarray(n, dtype=float))
    out = np.zeros(k.shape)
    ok = (k > 0) & (n > 0)
    if np.any(ok):
        out[ok] = betaincinv(k[ok], n[ok] - k[ok] + 1, 1.0 - level)
    return out


def cp_upper(k: np.ndarray | int, n: np.ndarray | int, level: float) -> np.ndarray:
    """One-sided Clopper-Pearson upper bound on p from k ~ Bin(n, p): P[p <= bound] >= level.

    bound = Beta^-1(level; k + 1, n - k), and 1 when k = n (Clopper & Pearson 1934); the upper end
    of statsmodels' ``proportion_confint(k, n, alpha=2 * (1 - level), method="beta")``.
    """
    from scipy.special import betaincinv

    k, n = np.broadcast_arrays(np.asarray(k, dtype=float), np.asarray(n, dtype=float))
    out = np.ones(k.shape)
    ok = k < n
    if np.any(ok):
        out[ok] = betaincinv(k[ok] + 1, n[ok] - k[ok], level)
    return out


def _log(x: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x > 0, np.log(np.where(x > 0, x, 1.0)), -np.inf)


def union_bound(ka, na, kb, nb, confidence: float, delta: float = 0.0) -> np.ndarray:
    """epsilon_LB = ln((LCB(p) - delta) / UCB(p')), each Clopper-Pearson bound at 1 - alpha/2.

    Coverage >= ``confidence`` by the union bound over the two one-sided intervals; ``-inf`` when
    LCB(p) <= delta.  Vectorised over the counts.
    """
    return _union(ka, na, kb, nb, confidence, delta, cp_lower, cp_upper)


def _union(ka, na, kb, nb, confidence: float, delta: float, lower: Callable, upper: Callable) -> np.ndarray:
    """:func:`union_bound` with the one-sided bounds ``lower`` and ``upper`` (exact or approximate)."""
    level = 1.0 - (1.0 - confidence) / 2
    return _log(lower(ka, na, level) - delta) - _log(upper(kb, nb, level))


def joint_bound(ka, kb, confidence: float, scale_ratio: float = 1.0) -> np.ndarray:
    """epsilon_LB = ln(pi_L / (1 - pi_L)) - ln(scale_ratio), pi_L the one-sided CP bound of Bin(T, pi).

    ``scale_ratio`` is lambda_a / lambda_b, the ratio of the Poisson means of the two sample sizes.
    Exact for Poissonised samples (see the module docstring); ``-inf`` when T = k + k' = 0.
    """
    return _joint(ka, kb, confidence, scale_ratio, cp_lower)


def _joint(ka, kb, confidence: float, scale_ratio: float, lower: Callable) -> np.ndarray:
    """:func:`joint_bound` with the one-sided lower bound ``lower`` (exact or approximate)."""
    ka, kb = np.broadcast_arrays(np.asarray(ka, dtype=float), np.asarray(kb, dtype=float))
    total = ka + kb
    pi_low = lower(ka, total, confidence)
    with np.errstate(divide="ignore", invalid="ignore"):
        odds = _log(pi_low) - np.log1p(-pi_low)
    return np.where(total > 0, odds - math.log(scale_ratio), -np.inf)


def epsilon_lower_bound(method: str, ka, na, kb, nb, confidence: float, delta: float = 0.0) -> np.ndarray:
    """The bound of ``method`` (``"joint"`` or ``"union"``); ``"joint"`` requires delta = 0.

    For ``"joint"``, ``na`` and ``nb`` are the Poisson means lambda_a and lambda_b of the sample sizes.
    """
    return _bound(method, ka, na, kb, nb, confidence, delta, cp_lower, cp_upper)


def _bound(method: str, ka, na, kb, nb, confidence: float, delta: float, lower: Callable,
           upper: Callable) -> np.ndarray:
    """:func:`epsilon_lower_bound` with the one-sided bounds ``lower`` and ``upper`` (exact or approximate)."""
    if method == "joint":
        if delta:
            raise ValueError("the joint ratio test bounds epsilon at delta = 0 only")
        return _joint(ka, kb, confidence, float(na) / float(nb), lower)
    return _union(ka, na, kb, nb, confidence, delta, lower, upper)


def delta_lower_bound(ka, na, kb, nb, epsilon: float, confidence: float) -> np.ndarray:
    """delta_LB = LCB(p) - e^epsilon UCB(p'), each Clopper-Pearson bound at 1 - alpha/2, floored at 0.

    A lower confidence bound on the hockey-stick divergence at ``epsilon`` witnessed by the event
    (Dwork & Roth 2014, Def. 2.4: delta >= P[M(a) in S] - e^epsilon P[M(b) in S] for every S).
    """
    alpha = 1.0 - confidence
    value = cp_lower(ka, na, 1 - alpha / 2) - math.exp(epsilon) * cp_upper(kb, nb, 1 - alpha / 2)
    return np.maximum(value, 0.0)


def approximate_bound(method: str, ka, na, kb, nb, confidence: float, delta: float = 0.0) -> np.ndarray:
    """A cheap stand-in for :func:`epsilon_lower_bound` that only *ranks* events: the same bound with every
    Clopper-Pearson end computed from the normal approximation of the beta quantile of Abramowitz & Stegun
    (1964), 26.5.22, instead of by root-finding (:func:`approximate_cp_lower`, :func:`approximate_cp_upper`).

    The search ranks thousands of events by it and computes the exact bound on the head of that ranking
    only (:func:`.events.standard._scores_many`); it is never reported.  Measured against the exact bound:
    the log-odds of the joint bound differ by less than 0.05 standard errors of the log-ratio once the
    counts reach 10^3 (at levels 0.95 to 1 - 5 x 10^-6), by at most 0.32 below 10^2 -- mostly below the
    exact value there, so small counts do not crowd the head (tests/auditor/test_bounds.py).
    """
    return _bound(method, ka, na, kb, nb, confidence, delta, approximate_cp_lower, approximate_cp_upper)


def approximate_cp_upper(k: np.ndarray | int, n: np.ndarray | int, level: float) -> np.ndarray:
    """:func:`cp_upper` approximated: 1 - :func:`approximate_cp_lower` (n - k, n) (the beta quantile's symmetry)."""
    k, n = np.broadcast_arrays(np.asarray(k, dtype=float), np.asarray(n, dtype=float))
    return 1.0 - approximate_cp_lower(n - k, n, level)


def approximate_cp_lower(k: np.ndarray | int, n: np.ndarray | int, level: float) -> np.ndarray:
    """:func:`cp_lower` approximated: Beta^-1(1 - level; a, b), a = k, b = n - k + 1, by A&S 26.5.22,

        x = a / (a + b e^(2w)),  w = y sqrt(h + l) / h - (1/(2b - 1) - 1/(2a - 1)) (l + 5/6 - 2/(3h)),
        h = 2 / (1/(2a - 1) + 1/(2b - 1)),  l = (y^2 - 3) / 6,  y = Phi^-1(level);

    exact at a = 1 and at b = 1, where the beta quantile has a closed form; 0 at k = 0."""
    y = _normal_quantile(level)
    k, n = np.broadcast_arrays(np.asarray(k, dtype=float), np.asarray(n, dtype=float))
    shape, k, n = k.shape, k.reshape(-1), n.reshape(-1)
    a = np.where(k > 0, k, 1.0)
    b = np.maximum(n - k + 1.0, 1.0)
    inverse_a, inverse_b = 2.0 * a - 1.0, 2.0 * b - 1.0
    np.reciprocal(inverse_a, out=inverse_a)
    np.reciprocal(inverse_b, out=inverse_b)
    h = np.add(inverse_a, inverse_b)
    np.divide(2.0, h, out=h)
    spread = (y * y - 3.0) / 6.0
    with np.errstate(over="ignore", invalid="ignore"):
        w = np.maximum(h + spread, 0.0)
        np.sqrt(w, out=w)
        w *= y
        w /= h
        w -= (inverse_b - inverse_a) * (spread + 5.0 / 6.0 - 2.0 / (3.0 * h))
        w *= 2.0
        x = np.exp(w, out=w)
        x *= b
        x += a
        np.divide(a, x, out=x)
    # The closed forms (the quantile's only finite-sum cases) where they apply: at b = 1 (k = n) alpha^(1/a),
    # else at a = 1 1 - (1 - alpha)^(1/b); then 0 where k = 0 and where the formula overflowed (NaN).
    alpha = 1.0 - level
    at_b = b == 1.0
    at_a = (a == 1.0) & ~at_b
    if at_b.any():
        x[at_b] = np.exp(math.log(alpha) / a[at_b])
    if at_a.any():
        x[at_a] = -np.expm1(math.log1p(-alpha) / b[at_a])
    x[np.isnan(x) | (k <= 0)] = 0.0
    return x.reshape(shape)


@functools.lru_cache(maxsize=64)
def _normal_quantile(level: float) -> float:
    """Phi^-1(level) (scipy's ``ndtri``), once per level."""
    from scipy.special import ndtri

    return float(ndtri(level))


def p_value(method: str, ka: int, na: float, kb: int, nb: float, epsilon: float, delta: float = 0.0) -> float:
    """The p-value of H0: epsilon_true <= ``epsilon`` given by inverting the bound of ``method``.

    ``"joint"``: the exact binomial test P[Bin(T, pi0) >= k], pi0 = lambda_a e^eps / (lambda_a e^eps +
    lambda_b), whose inversion is the Clopper-Pearson bound.  ``"union"``: the smallest alpha at which
    the union bound exceeds ``epsilon`` (found by bisection on ln alpha; the bound grows with alpha).
    """
    if method == "joint":
        from scipy.stats import binom

        total = ka + kb
        if total == 0:
            return 1.0
        odds = math.exp(epsilon) * na / nb
        pi0 = odds / (1.0 + odds)
        return float(min(1.0, binom.sf(ka - 1, total, pi0)))

    def exceeds(log_alpha: float) -> bool:
        bound = union_bound(ka, na, kb, nb, 1.0 - math.exp(log_alpha), delta)
        return bool(bound[()] > epsilon)

    low, high = -700.0, math.log(1.0 - 1e-12)
    if not exceeds(high):
        return 1.0
    if exceeds(low):
        return 0.0
    for _ in range(60):
        mid = 0.5 * (low + high)
        low, high = (low, mid) if exceeds(mid) else (mid, high)
    return math.exp(high)


def bonferroni_confidence(confidence: float, tests: int) -> float:
    """Per-test confidence 1 - alpha/m so that m simultaneous bounds hold jointly (Bonferroni)."""
    return 1.0 - (1.0 - confidence) / max(1, tests)


def holm_adjusted(p_values: list[float], confidence: float) -> tuple[list[bool], list[float]]:
    """Holm's step-down adjustment (Holm 1979) via statsmodels ``multipletests``: (reject, adjusted p)."""
    if len(p_values) < 2:
        return [p <= 1.0 - confidence for p in p_values], list(p_values)
    from statsmodels.stats.multitest import multipletests

    reject, adjusted, _, _ = multipletests(p_values, alpha=1.0 - confidence, method="holm")
    return [bool(r) for r in reject], [float(p) for p in adjusted]


def reach(method: str, n: float, epsilon: float, delta: float, confidence: float) -> float:
    """The bound a perfect witness of a mechanism exactly at its claim would give with n samples.

    The most favourable event the claim allows puts all of M(a) in S (p = 1) and the least mass the
    claim permits under M(b), p' = (1 - delta) e^-epsilon; the bound is evaluated at the expected
    counts k = n, k' = round(n p').  No event of a mechanism meeting its claim can do better in
    expectation, so when this is far below the claimed epsilon a pass says little (*underpowered*).
    """
    p_b = (1.0 - delta) * math.exp(-epsilon)
    kb = round(n * p_b)
    return float(epsilon_lower_bound(method, n, n, kb, n, confidence, delta))
